package cli

import (
	"errors"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/triage"
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

// The exit status of a retry follows from whether anything was sent.
func TestRetryExit(t *testing.T) {
	att := func(st model.AttemptState) *model.RetryAttempt { return &model.RetryAttempt{State: st} }
	allowed := triage.GuardDecision{Allowed: true}
	boom := errors.New("journal: disk full")
	for _, tt := range []struct {
		name string
		res  retry.Result
		err  error
		want int
	}{
		{"error before the claim", retry.Result{Decision: allowed}, boom, ExitFinding},
		{"journal failed before the send", retry.Result{Decision: allowed, Attempt: att(model.AttemptIntent)}, boom, ExitFinding},
		{"journal failed after the send", retry.Result{Decision: allowed, Attempt: att(model.AttemptSent), Sent: true}, boom, ExitAmbiguous},
		{"refused", retry.Result{}, nil, ExitRefused},
		{"succeeded", retry.Result{Decision: allowed, Attempt: att(model.AttemptSucceeded), Sent: true}, nil, ExitOK},
		{"failed", retry.Result{Decision: allowed, Attempt: att(model.AttemptFailed), Sent: true}, nil, ExitFinding},
		{"indeterminate", retry.Result{Decision: allowed, Attempt: att(model.AttemptIndeterminate), Sent: true}, nil, ExitAmbiguous},
	} {
		if got := retryExit(tt.res, tt.err); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}
