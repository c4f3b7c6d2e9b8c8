package retry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
)

// A success whose data is the provider's failure (Composio's 200, successful:true, around
// Slack's {"ok": false, "error": "channel_not_found"}, as a proxy passes it through) is no
// success on any path: the retry's own answer, the log that resolve reads right after it,
// Classify of that log and the guard asked about it agree, and the retry sends once.
func TestASuccessWhoseDataIsTheProvidersFailureIsNoSuccess(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()

	t.Run("the retry's own answer", func(t *testing.T) {
		w.t = t
		e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("datafail-answer"))
		w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault200ProviderError, Count: 1})
		posts, effects := w.sends(), len(w.effects())
		res, err := retry.Run(ctx, w.deps(), confirmed(e))
		if err != nil || res.Refused() || res.Attempt == nil {
			t.Fatalf("retry: %v %+v", err, res.Decision)
		}
		if w.sends()-posts != 1 || len(w.effects()) != effects {
			t.Fatalf("%d POSTs, %d effects; want 1 and none", w.sends()-posts, len(w.effects())-effects)
		}
		stored, err := w.j.Attempt(ctx, res.Attempt.ID)
		if err != nil {
			t.Fatal(err)
		}
		logged := w.byRequestID(res.Attempt.ID)
		if logged.Status != model.StatusSuccess {
			t.Fatalf("the sandbox logged %q, want a success (what Composio records)", logged.Status)
		}
		outcome, why := triage.Classify(&logged, model.KindWrite, triage.Options{})
		// one verdict: the log's outcome (a refusal by its words: not found) and the attempt's
		if outcome != model.OutcomeFailed || stored.State != model.AttemptFailed || triage.LogTookEffect(&logged) {
			t.Fatalf("log %s (%s), took effect %v; attempt %s (%s): want failed on every path",
				outcome, why, triage.LogTookEffect(&logged), stored.State, stored.Detail)
		}
		if !strings.Contains(why, "provider's failure") || !strings.Contains(strings.Join(res.LogsAfter, "\n"), "channel_not_found") {
			t.Fatalf("the reasons should say what the data said: %q; %q", why, res.LogsAfter)
		}
	})

	t.Run("an original whose log says success and whose data says it failed", func(t *testing.T) {
		w.t = t
		e := w.failedSend(sandbox.Fault200ProviderError, "GMAIL_SEND_EMAIL", sendArgs("datafail-original"))
		outcome, why := triage.Classify(&e, model.KindWrite, triage.Options{})
		d := triage.CheckRetry(triage.GuardInput{Execution: &e, Kind: model.KindWrite, Outcome: outcome, OutcomeReason: why})
		if outcome == model.OutcomeSucceeded || d.Code == triage.RefusedLogSuccess {
			t.Fatalf("outcome %s (%s), guard %s: the log's success is no effect", outcome, why, d.Code)
		}
		posts, effects := w.sends(), len(w.effects())
		res, err := retry.Run(ctx, w.deps(), confirmed(e))
		if err != nil || res.Refused() || res.State() != model.AttemptSucceeded {
			t.Fatalf("retry: %v %+v %s", err, res.Decision, res.State())
		}
		if w.sends()-posts != 1 || len(w.effects())-effects != 1 || w.effectsOf(res.Attempt.ID) != 1 {
			t.Fatalf("%d POSTs, %d effects; want one of each", w.sends()-posts, len(w.effects())-effects)
		}
		again, _ := retry.Run(ctx, w.deps(), confirmed(e))
		if !again.Refused() || again.Decision.Code != triage.RefusedAttemptSucceeded || w.sends()-posts != 1 {
			t.Fatalf("a second retry: %+v", again.Decision)
		}
	})
}
