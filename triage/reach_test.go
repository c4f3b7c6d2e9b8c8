package triage

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestARetryHoursLaterAfterAnUnclearAttempt: a queue redelivers a message after its visibility
// timeout, a scheduler runs a failed job again at its next run: the same write, sent with the
// same bytes minutes to hours after an attempt whose outcome is unclear, is its retry (issue
// 40: such retries were never grouped). A success is not retried (the same write an hour later
// is the schedule's next run), a definite failure took no effect, a text regenerated hours
// later is a new message, and past a day nothing joins. Analyze and the streaming path agree.
func TestARetryHoursLaterAfterAnUnclearAttempt(t *testing.T) {
	base := time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)
	const timedOut, refused, ok = 0, 1, 2
	send := func(id, subject string, at time.Duration, how int) model.Execution {
		args, _ := json.Marshal(map[string]string{"recipient_email": "ops@example.com", "subject": subject, "body": "The nightly export finished with 1,204 rows."})
		start := base.Add(at)
		e := model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", ConnectedAccountID: "ca_1", UserID: "u1",
			Status: "success", Timestamp: start, StartTime: start, EndTime: start.Add(time.Second), Duration: time.Second, HasDuration: true,
			Source: model.Source{Host: "sdk", Language: "python"}, SDKVersion: "0.30.0", Arguments: args, Detailed: true, RetryCount: -1}
		switch how {
		case timedOut:
			e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrTimeout, Message: "Read timed out"}
			e.EndTime, e.Duration = start.Add(60*time.Second), 60*time.Second
		case refused:
			e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrValidation, Message: "Invalid To header"}
		}
		return e
	}
	other := func(e model.Execution, at time.Duration) model.Execution { // another write between, of the same caller
		o := send("x"+e.ID, "Weekly digest", at, ok)
		return o
	}
	a := send("a", "Export done", 0, timedOut)
	tests := []struct {
		name  string
		execs []model.Execution
		want  int // members grouped
	}{
		{"redelivered 45 min after a timeout", []model.Execution{a, send("b", "Export done", 45*time.Minute, ok)}, 2},
		{"the next nightly run, 23 h later, other writes between", []model.Execution{a, other(a, 3*time.Hour), other(a, 9*time.Hour), send("b", "Export done", 23*time.Hour, ok)}, 2},
		{"the schedule's next run after a success", []model.Execution{send("a", "Export done", 0, ok), send("b", "Export done", time.Hour, ok)}, 0},
		{"after a refusal, nothing to duplicate", []model.Execution{send("a", "Export done", 0, refused), send("b", "Export done", time.Hour, ok)}, 0},
		{"regenerated text 3 h after a timeout", []model.Execution{a, send("b", "Nightly export: finished", 3*time.Hour, ok)}, 0},
		{"past a day", []model.Execution{a, send("b", "Export done", 25*time.Hour, ok)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Analyze(tt.execs, nil, Options{})
			got := 0
			for _, g := range res.Groups {
				got += len(g.ExecutionIDs)
			}
			if got != tt.want {
				t.Fatalf("%d members grouped, want %d: %+v", got, tt.want, res.Groups)
			}
			if got > 0 && res.Groups[0].Pattern != model.PatternAppRetry {
				t.Errorf("named %s (%s), want app_retry: the application's retry (its queue, its scheduler)", res.Groups[0].Pattern, res.Groups[0].Reason)
			}
			inc := NewIncremental(nil, Options{})
			for i := range tt.execs {
				inc.Add(&tt.execs[i])
			}
			groups, _, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return tt.execs[pos], nil })
			if err != nil || len(groups) != len(res.Groups) || len(groups) > 0 && groups[0].ID != res.Groups[0].ID {
				t.Errorf("Incremental: %d groups (%v), Analyze %d", len(groups), err, len(res.Groups))
			}
		})
	}
}
