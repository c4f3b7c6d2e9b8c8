package cli

import (
	"testing"
	"time"
)

// TestNewCmdRetry: retry's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdRetry(t *testing.T) {
	newCmdTable(t, NewCmdRetry, []argvCase[RetryOptions]{
		{argv: "--readonly --demo log_1 --confirm-failed --reason gone --request-timeout 2m", want: func(o *RetryOptions) string {
			return differs("ID", o.ID, "log_1", "Confirm", o.Confirm, true, "Reason", o.Reason, "gone", "RequestTimeout", o.RequestTimeout, 2*time.Minute,
				"readonly", o.Source.readonly, true, "demo", o.Source.demo, true, "json", o.Source.json, false)
		}},
		{argv: "log_1 --reason gone --confirm-failed --demo --request-timeout=2m --readonly", want: func(o *RetryOptions) string {
			return differs("ID", o.ID, "log_1", "Confirm", o.Confirm, true, "RequestTimeout", o.RequestTimeout, 2*time.Minute, "readonly", o.Source.readonly, true)
		}},
		{argv: "log_1", want: func(o *RetryOptions) string {
			return differs("ID", o.ID, "log_1", "Confirm", o.Confirm, false, "Reason", o.Reason, "")
		}},
		{argv: "log_1 --confirm-failed", wantErr: "--confirm-failed needs --reason"},
		{argv: "", wantErr: "ID"},
	})
}
