package cli

import (
	"testing"
)

// TestNewCmdDoctor: doctor's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdDoctor(t *testing.T) {
	newCmdTable(t, NewCmdDoctor, []argvCase[DoctorOptions]{
		{argv: "", want: func(o *DoctorOptions) string { return differs("Dir", o.Dir, ".", "API", o.API, false) }},
		{argv: "proj --json", want: func(o *DoctorOptions) string { return differs("Dir", o.Dir, "proj", "json", o.Source.json, true) }},
		{argv: "--api --last 50 --demo", want: func(o *DoctorOptions) string {
			return differs("API", o.API, true, "Last", o.Last, 50, "demo", o.Source.demo, true)
		}},
		{argv: "--api --last 0", wantErr: "--last must be between 1 and 10000"},
		{argv: "a b", wantErr: "a"},
	})
}
