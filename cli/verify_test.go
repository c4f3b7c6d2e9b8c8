package cli

import (
	"testing"
)

// TestNewCmdVerify: verify's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdVerify(t *testing.T) {
	newCmdTable(t, NewCmdVerify, []argvCase[VerifyOptions]{
		{argv: "log_1 --json", want: func(o *VerifyOptions) string {
			return differs("ID", o.ID, "log_1", "json", o.Source.json, true, "Filter", o.Filter, "")
		}},
		{argv: "--filter flagged:yes --dry-run", want: func(o *VerifyOptions) string {
			return differs("Filter", o.Filter, "flagged:yes", "DryRun", o.DryRun, true, "ID", o.ID, "")
		}},
		{argv: "--view team", want: func(o *VerifyOptions) string { return differs("view", o.Source.view, "team", "ID", o.ID, "") }},
		{argv: "", wantErr: "verify"},
	})
}
