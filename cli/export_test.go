package cli

import (
	"testing"
	"time"
)

// TestNewCmdExport: export's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdExport(t *testing.T) {
	newCmdTable(t, NewCmdExport, []argvCase[ExportOptions]{
		{argv: "--since 2h --details -o w.jsonl", want: func(o *ExportOptions) string {
			return differs("Out", o.Out, "w.jsonl", "Details", o.Details, true, "since", o.Source.since, 2*time.Hour)
		}},
		{argv: "--file in.jsonl", want: func(o *ExportOptions) string { return differs("file", o.Source.file, "in.jsonl", "Out", o.Out, "") }},
		{argv: "extra", wantErr: "unexpected argument"},
		{argv: "--json", wantErr: "unknown flag: --json"},
	})
}
