package cli

import (
	"testing"
	"time"

	"github.com/exectriage/exectriage/app"
)

// TestNewCmdResolve: resolve's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdResolve(t *testing.T) {
	newCmdTable(t, NewCmdResolve, []argvCase[ResolveOptions]{
		{argv: "att_1", want: func(o *ResolveOptions) string {
			return differs("ID", o.ID, "att_1", "As", o.As, "", "Settle", o.Settle, app.DefaultSettle)
		}},
		{argv: "att_1 --as failed --reason 'none in the mailbox' --settle 1m", want: func(o *ResolveOptions) string {
			return differs("As", o.As, "failed", "Reason", o.Reason, "none in the mailbox", "Settle", o.Settle, time.Minute)
		}},
		{argv: "att_1 --as succeeded", wantErr: "--as needs --reason"},
		{argv: "", wantErr: "want one attempt id or execution id"},
	})
}
