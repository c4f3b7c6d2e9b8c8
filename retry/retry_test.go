package retry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/verify"
)

const apiKey = "retry-test-key"

// world is a sandbox on loopback, a real client to it and a journal: everything the protocol
// touches is real; only the provider is simulated.
type world struct {
	t       *testing.T
	srv     *sandbox.Server
	base    string
	c       *client.Client
	j       journal.Journal
	dsn     string
	account string // a Gmail connected account of the sandbox
}

func newWorld(t *testing.T, dsn string) *world {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: apiKey, Seed: 7, Size: 40, HoldTimeout: 400 * time.Millisecond}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := client.New(client.WithAPIKey(apiKey), client.WithBaseURL(base), client.WithWriteTimeout(20*time.Second),
		client.WithBackoff(10*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if dsn == "" {
		dsn = filepath.Join(t.TempDir(), "journal.db")
	}
	j, err := journal.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	w := &world{t: t, srv: srv, base: base, c: c, j: j, dsn: dsn}
	w.account = testkit.ActiveAccount(t, ctx, c, "gmail")
	return w
}

func (w *world) deps() retry.Deps {
	return retry.Deps{Journal: w.j, Sender: w.c.WithoutRetries(), Logs: w.c, Verifier: verify.NewVerifiers(w.c, nil),
		Kinds: triage.NewKinds(), Who: "tester@host", Target: "LIVE " + strings.TrimPrefix(w.base, "http://"), Timeout: 20 * time.Second}
}

// sends counts the POSTs to tools/execute/GMAIL_SEND_EMAIL the sandbox received (faulted
// ones included), from GET /_sandbox/stats; effects lists its side effects from
// GET /_sandbox/effects. Reads the verifier runs are other tools and do not count.
func (w *world) sends() int { return w.postsOf("GMAIL_SEND_EMAIL") }

func (w *world) postsOf(tool string) int {
	w.t.Helper()
	return testkit.SandboxStats(w.t, w.base, apiKey).ByTool[tool]
}

func (w *world) effects() []sandbox.Effect {
	w.t.Helper()
	return testkit.SandboxEffects(w.t, w.base, apiKey)
}

func (w *world) effectsOf(requestID string) int {
	n := 0
	for _, e := range w.effects() {
		if e.RequestID == requestID {
			n++
		}
	}
	return n
}

// failedSend makes an execution to retry: a Gmail send answered with a fault (5xx before
// commit: nothing sent, the log says failed with an upstream 5xx, so its outcome is ambiguous).
// It returns the execution as the Logs API shows it, with its detail.
func (w *world) failedSend(mode sandbox.FaultMode, tool string, args string) model.Execution {
	w.t.Helper()
	ctx := context.Background()
	w.srv.ArmFault(sandbox.FaultRule{ToolSlug: tool, Mode: mode, Count: 1})
	rid := uuid.NewString()
	before := w.postsOf(tool)
	_, err := w.c.WithoutRetries().Execute(ctx, tool, client.ExecuteRequest{
		Arguments: json.RawMessage(args), ConnectedAccountID: w.account, UserID: "user-1", RequestID: rid})
	if w.postsOf(tool) != before+1 {
		w.t.Fatalf("setup send: %d executions, want %d (%v)", w.postsOf(tool), before+1, err)
	}
	return w.byRequestID(rid)
}

func (w *world) byRequestID(rid string) model.Execution {
	w.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for page, err := range w.c.ListLogs(ctx, client.LogQuery{Filters: []client.LogFilter{{Field: "request_id", Value: rid}}}) {
			if err != nil {
				w.t.Fatal(err)
			}
			for _, e := range page.Executions {
				full, err := w.c.GetLog(ctx, e.ID)
				if err != nil {
					w.t.Fatal(err)
				}
				if full.RequestID == rid {
					return full
				}
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("no log with request id %s", rid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sendArgs(tag string) string {
	return fmt.Sprintf(`{"recipient_email":"bob+%s@example.com","subject":"Invoice %s","body":"Please find the invoice attached."}`, tag, tag)
}

func confirmed(e model.Execution) retry.Request {
	return retry.Request{Execution: e, Confirmed: true, Reason: "customer says no email arrived"}
}

// For every fault the sandbox can inflict on the retry itself: exactly one POST, the effect
// count the fault dictates, the attempt state that follows from the answer, and no second send.
func TestRetryUnderEachFaultSendsOnce(t *testing.T) {
	cases := []struct {
		mode    sandbox.FaultMode // "" = no fault
		state   model.AttemptState
		effects int
	}{
		{"", model.AttemptSucceeded, 1},
		{sandbox.FaultLatency, model.AttemptSucceeded, 1},
		// The answer was lost, but the log of the attempt's request id, read at once after it,
		// shows success: one verdict from the send on (Run's step 5).
		{sandbox.FaultTimeoutAfterCommit, model.AttemptSucceeded, 1},
		{sandbox.FaultTimeoutBeforeCommit, model.AttemptIndeterminate, 0},
		{sandbox.Fault5xxAfterCommit, model.AttemptIndeterminate, 1},
		{sandbox.Fault5xxBeforeCommit, model.AttemptIndeterminate, 0},
		{sandbox.FaultDropAfterRead, model.AttemptIndeterminate, 0},
		{sandbox.Fault429, model.AttemptFailed, 0},
		// A 200 with successful:false and a provider timeout, the email delivered late: it
		// proves nothing, so the claim holds and a second retry is refused.
		{sandbox.Fault200FailureAfterCommit, model.AttemptIndeterminate, 1},
	}
	w := newWorld(t, "")
	ctx := context.Background()
	for i, tc := range cases {
		name := string(tc.mode)
		if name == "" {
			name = "no_fault"
		}
		t.Run(name, func(t *testing.T) {
			w.t = t
			e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs(fmt.Sprint("fault", i)))
			if tc.mode != "" {
				w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: tc.mode, Count: 1, Latency: 300 * time.Millisecond})
			}
			posts, effects := w.sends(), len(w.effects())
			res, err := retry.Run(ctx, w.deps(), confirmed(e))
			if err != nil {
				t.Fatal(err)
			}
			if res.Refused() || res.Attempt == nil {
				t.Fatalf("retry refused: %+v", res.Decision)
			}
			if got := w.sends() - posts; got != 1 {
				t.Fatalf("%d POSTs reached the sandbox, want exactly 1", got)
			}
			if got := len(w.effects()) - effects; got != tc.effects {
				t.Fatalf("%d effects, want %d", got, tc.effects)
			}
			if got := w.effectsOf(res.Attempt.ID); got != tc.effects {
				t.Fatalf("%d effects carry the attempt id as request id, want %d", got, tc.effects)
			}
			stored, err := w.j.Attempt(ctx, res.Attempt.ID)
			if err != nil {
				t.Fatal(err)
			}
			if res.State() != tc.state || stored.State != tc.state {
				t.Fatalf("attempt state %s (stored %s), want %s: %s", res.State(), stored.State, tc.state, stored.Detail)
			}
			if stored.SentAt.IsZero() || stored.FinishedAt.IsZero() || stored.ExecutionID != e.ID || stored.ToolSlug != "GMAIL_SEND_EMAIL" {
				t.Fatalf("stored attempt %+v", stored)
			}
			if tc.state == model.AttemptSucceeded && stored.NewLogID == "" {
				t.Fatalf("succeeded attempt without the new log id: %+v", stored)
			}
			cs, _ := w.j.Confirmations(ctx, e.ID)
			if len(cs) != 1 || cs[0].AttemptID != res.Attempt.ID || cs[0].Who != "tester@host" || cs[0].Outcome != model.OutcomeAmbiguous {
				t.Fatalf("confirmation %+v", cs)
			}

			// A second retry of the same execution.
			posts = w.sends()
			again, err := retry.Run(ctx, w.deps(), confirmed(e))
			if err != nil {
				t.Fatal(err)
			}
			if tc.state == model.AttemptFailed {
				// A 429 proves the first retry did nothing, but retrying at once would join the
				// burst: refused for a minute. After that a new retry goes through the guard
				// again and is allowed, and the execution's effect then exists once.
				if !again.Refused() || again.Decision.Code != triage.RefusedRateLimited || w.sends() != posts {
					t.Fatalf("retry right after a 429: %+v (%d POSTs)", again.Decision, w.sends()-posts)
				}
				later := w.deps()
				later.Now = func() time.Time { return time.Now().Add(2 * triage.RateLimitCooldown) }
				again, err = retry.Run(ctx, later, confirmed(e))
				if err != nil || again.Refused() || again.State() != model.AttemptSucceeded || w.sends()-posts != 1 {
					t.Fatalf("retry after the cool-down: %+v %v (%d POSTs)", again.Decision, err, w.sends()-posts)
				}
				third, _ := retry.Run(ctx, later, confirmed(e))
				if !third.Refused() || third.Decision.Code != triage.RefusedAttemptSucceeded {
					t.Fatalf("third retry: %+v", third.Decision)
				}
				return
			}
			want := triage.RefusedAttemptSucceeded
			if tc.state == model.AttemptIndeterminate {
				want = triage.RefusedIndeterminate
			}
			if !again.Refused() || again.Decision.Code != want || w.sends() != posts {
				t.Fatalf("second retry: %+v, %d POSTs; want refused %s and none", again.Decision, w.sends()-posts, want)
			}
		})
	}
}

func TestRetryRefusals(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()

	// The provider shows the effect: a 5xx after commit sent the email although the log says failed.
	sentAnyway := w.failedSend(sandbox.Fault5xxAfterCommit, "GMAIL_SEND_EMAIL", sendArgs("found"))
	// Nothing at the provider.
	notSent := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("notfound"))
	// A read.
	read := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_FETCH_EMAILS", `{"query":"in:inbox","max_results":5}`)

	cases := []struct {
		name string
		req  retry.Request
		code triage.RefusalCode
	}{
		{"provider shows the effect", confirmed(sentAnyway), triage.RefusedProviderFound},
		{"no confirmation", retry.Request{Execution: notSent}, triage.RefusedNotConfirmed},
		{"confirmation without a reason", retry.Request{Execution: notSent, Confirmed: true}, triage.RefusedNoReason},
		{"a read", confirmed(read), triage.RefusedNotWrite},
		{"a stale not_found given by the caller is checked again", retry.Request{Execution: sentAnyway, Confirmed: true, Reason: "r",
			Provider: &model.ProviderState{State: model.ProviderNotFound, CheckedAt: time.Now().Add(-time.Hour)}}, triage.RefusedProviderFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			posts, effects, all := w.postsOf(tc.req.Execution.ToolSlug), len(w.effects()), w.srv.ExecuteCount()
			res, err := retry.Run(ctx, w.deps(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Refused() || res.Decision.Code != tc.code {
				t.Fatalf("decision %+v, want refused %s", res.Decision, tc.code)
			}
			if res.Decision.Reason == "" || res.Decision.Next.IsZero() {
				t.Fatalf("a refusal must say why and what to do: %+v", res.Decision)
			}
			if w.postsOf(tc.req.Execution.ToolSlug) != posts || len(w.effects()) != effects || res.Sent || res.Attempt != nil {
				t.Fatalf("a refused retry sent something: %d POSTs, %d effects", w.postsOf(tc.req.Execution.ToolSlug)-posts, len(w.effects())-effects)
			}
			if tc.code == triage.RefusedNotWrite && w.srv.ExecuteCount() != all {
				t.Fatal("a read was refused only after calling the sandbox")
			}
			if as, _ := w.j.Attempts(ctx, tc.req.Execution.ID); len(as) != 0 {
				t.Fatalf("a refused retry left attempts: %+v", as)
			}
			if cs, _ := w.j.Confirmations(ctx, tc.req.Execution.ID); len(cs) != 0 {
				t.Fatalf("a refused retry left confirmations: %+v", cs)
			}
		})
	}
	t.Run("a source that cannot send records nothing", func(t *testing.T) {
		x := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("nosender"))
		d := w.deps()
		d.Sender = nil
		res, err := retry.Run(ctx, d, confirmed(x))
		if err == nil || res.Attempt != nil || res.Sent {
			t.Fatalf("%+v %v", res, err)
		}
		if as, _ := w.j.Attempts(ctx, x.ID); len(as) != 0 {
			t.Fatalf("attempts %+v", as)
		}
	})
	t.Run("interrupted after the intent: failed, nothing sent", func(t *testing.T) {
		x := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("interrupted"))
		d := w.deps()
		var steps []string
		d.Pause = func(_ context.Context, step string) error {
			steps = append(steps, step)
			if step == retry.StepAfterIntent {
				return context.Canceled
			}
			return nil
		}
		posts := w.sends()
		res, err := retry.Run(ctx, d, confirmed(x))
		if !errors.Is(err, context.Canceled) || res.State() != model.AttemptFailed || res.Sent || w.sends() != posts {
			t.Fatalf("%+v %v (%d sends)", res.Attempt, err, w.sends()-posts)
		}
		stored, _ := w.j.Attempt(ctx, res.Attempt.ID)
		if stored.State != model.AttemptFailed || !strings.Contains(stored.Detail, "nothing was sent") {
			t.Fatalf("stored %+v", stored)
		}
		if strings.Join(steps, ",") != "before-intent,after-intent" {
			t.Fatalf("steps %v", steps)
		}
		// Nothing happened, so a new confirmed retry may go ahead, and it passes every step.
		steps = nil
		d.Pause = func(_ context.Context, step string) error { steps = append(steps, step); return nil }
		if res, err := retry.Run(ctx, d, confirmed(x)); err != nil || res.State() != model.AttemptSucceeded {
			t.Fatalf("retry after the interrupted one: %+v %v", res.Decision, err)
		}
		if strings.Join(steps, ",") != "before-intent,after-intent,in-flight" {
			t.Fatalf("steps %v", steps)
		}
	})
	t.Run("a person's confirmed_succeeded verdict", func(t *testing.T) {
		if err := w.j.Mark(ctx, journal.VerdictRecord{ExecutionID: notSent.ID, Verdict: model.VerdictConfirmedSucceeded, Who: "bo", At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		posts := w.sends()
		res, err := retry.Run(ctx, w.deps(), confirmed(notSent))
		if err != nil || !res.Refused() || res.Decision.Code != triage.RefusedVerdict || w.sends() != posts {
			t.Fatalf("%+v %v", res.Decision, err)
		}
		// a stray ignored recorded afterwards does not lift it
		if err := w.j.Mark(ctx, journal.VerdictRecord{ExecutionID: notSent.ID, Verdict: model.VerdictIgnored, Who: "cy", At: time.Now().Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
		res, err = retry.Run(ctx, w.deps(), confirmed(notSent))
		if err != nil || !res.Refused() || res.Decision.Code != triage.RefusedVerdict || !strings.Contains(res.Decision.Reason, "confirmed_succeeded") || w.sends() != posts {
			t.Fatalf("after a stray ignored: %+v %v", res.Decision, err)
		}
	})
}

// Resolve settles an indeterminate attempt from the logs and the provider, and never sends.
func TestResolveSettlesIndeterminateAttempts(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	cases := []struct {
		name   string
		mode   sandbox.FaultMode
		later  time.Duration // how long after the send Resolve runs
		want   model.AttemptState
		reason string
		byRun  bool // the logs Run reads at once after the answer settle it already
	}{
		{"the log holds the request id with success", sandbox.FaultTimeoutAfterCommit, 0, model.AttemptSucceeded, "the logs show it succeeded", true},
		{"the provider has the effect", sandbox.Fault5xxAfterCommit, 0, model.AttemptSucceeded, "", false},
		{"neither has it, too soon to tell", sandbox.FaultTimeoutBeforeCommit, time.Minute, model.AttemptIndeterminate, "", false},
		{"neither has it, settled", sandbox.FaultTimeoutBeforeCommit, retry.DefaultSettle + time.Minute, model.AttemptFailed, "provider has no effect", false},
		{"dropped before running, settled", sandbox.FaultDropAfterRead, retry.DefaultSettle + time.Minute, model.AttemptFailed, "", false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.t = t
			e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs(fmt.Sprint("resolve", i)))
			w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: tc.mode, Count: 1})
			res, err := retry.Run(ctx, w.deps(), confirmed(e))
			if afterRun := map[bool]model.AttemptState{true: tc.want, false: model.AttemptIndeterminate}[tc.byRun]; err != nil || res.State() != afterRun {
				t.Fatalf("retry: %v %+v, want %s", err, res.Attempt, afterRun)
			}
			posts := w.sends()
			d := w.deps()
			d.Now = func() time.Time { return time.Now().Add(tc.later) }
			r, err := retry.Resolve(ctx, d, res.Attempt.ID, retry.ResolveOptions{Execution: &e})
			if err != nil {
				t.Fatal(err)
			}
			if w.sends() != posts {
				t.Fatal("resolve sent a request")
			}
			stored, _ := w.j.Attempt(ctx, res.Attempt.ID)
			if r.Attempt.State != tc.want || stored.State != tc.want {
				t.Fatalf("resolved to %s (stored %s), want %s; evidence %q; next %q", r.Attempt.State, stored.State, tc.want, r.Evidence, r.Next)
			}
			if !strings.Contains(stored.Detail+r.Next, tc.reason) {
				t.Fatalf("detail %q does not say %q", stored.Detail, tc.reason)
			}
			if tc.want == model.AttemptIndeterminate && !strings.Contains(r.Next, "resolve again after") {
				t.Fatalf("next %q", r.Next)
			}
			if tc.want == model.AttemptSucceeded {
				// The effect exists: no further retry.
				again, _ := retry.Run(ctx, w.deps(), confirmed(e))
				if !again.Refused() {
					t.Fatalf("retry after a resolved success: %+v", again.Decision)
				}
			}
		})
	}
	t.Run("another source's attempt is not resolved from this one", func(t *testing.T) {
		w.t = t
		e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("other-source"))
		w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.FaultTimeoutBeforeCommit, Count: 1})
		res, _ := retry.Run(ctx, w.deps(), confirmed(e))
		d := w.deps()
		d.Target = "DEMO"
		d.Now = func() time.Time { return time.Now().Add(time.Hour) }
		_, err := retry.Resolve(ctx, d, res.Attempt.ID, retry.ResolveOptions{Execution: &e})
		if !errors.Is(err, retry.ErrOtherSource) {
			t.Fatalf("resolve against another source: %v", err)
		}
		r, err := retry.Resolve(ctx, d, res.Attempt.ID, retry.ResolveOptions{Execution: &e, As: model.AttemptFailed, Reason: "checked the mailbox by hand"})
		if err != nil || r.Attempt.State != model.AttemptFailed || !strings.Contains(r.Attempt.Detail, "checked the mailbox by hand") {
			t.Fatalf("a person's decision: %+v %v", r.Attempt, err)
		}
	})
}

// Goroutines with their own journal handles (as separate windows have) retry one execution at
// once: exactly one POST leaves; the others are refused naming the holder.
func TestConcurrentRetriesSendOnce(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			dsn := ""
			if name == "postgres" {
				dsn = testkit.PostgresOrSkip(t, "r_")
			}
			w := newWorld(t, dsn)
			e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("race-"+name))
			w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.FaultLatency, Count: 1, Latency: 300 * time.Millisecond})
			posts := w.sends()
			const n = 8
			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				results []retry.Result
			)
			start := make(chan struct{})
			for range n {
				wg.Go(func() {
					j, err := journal.Open(context.Background(), w.dsn)
					if err != nil {
						t.Error(err)
						return
					}
					defer j.Close()
					d := w.deps()
					d.Journal = j
					<-start
					res, err := retry.Run(context.Background(), d, confirmed(e))
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					results = append(results, res)
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
			ok := 0
			for _, r := range results {
				switch {
				case !r.Refused() && r.State() == model.AttemptSucceeded:
					ok++
				case r.Refused() && (r.Decision.Code == triage.RefusedAttemptOpen || r.Decision.Code == triage.RefusedAttemptSucceeded):
				default:
					t.Errorf("unexpected result %+v", r.Decision)
				}
			}
			if ok != 1 || w.sends()-posts != 1 || len(w.effects()) == 0 {
				t.Fatalf("%d retries succeeded, %d POSTs; want 1 and 1", ok, w.sends()-posts)
			}
		})
	}
}

// An injected clock (tests, replays) sets the journal's times, never the send's real deadline:
// a clock far in the past must not make the one send expire before it leaves.
func TestRetryDeadlineFollowsRealTimeNotTheInjectedClock(t *testing.T) {
	w := newWorld(t, "")
	e := w.failedSend(sandbox.FaultTimeoutBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("clock"))
	d := w.deps()
	past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	d.Now = func() time.Time { return past }
	before := w.sends()
	res, err := retry.Run(context.Background(), d, confirmed(e))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempt == nil || res.Attempt.State != model.AttemptSucceeded {
		t.Fatalf("attempt %+v, want succeeded", res.Attempt)
	}
	if w.sends() != before+1 {
		t.Fatalf("%d sends, want exactly 1", w.sends()-before)
	}
}

// A retry of a retry: the log a retry made (its request id is the attempt's id) cannot itself
// be confirmed and retried, in this journal or in another one; and a journal that does not
// know a retry of the original still sees it in the logs (another exectriage retried it).
func TestNoRetryOfARetryAndNoRetryBehindAnotherJournal(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	other, err := journal.Open(ctx, filepath.Join(t.TempDir(), "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	onOther := func() retry.Deps { d := w.deps(); d.Journal = other; return d }

	// The retry itself is answered 5xx before commit: nothing sent, its own log is ambiguous.
	e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("rr"))
	w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault5xxBeforeCommit, Count: 1})
	first, err := retry.Run(ctx, w.deps(), confirmed(e))
	if err != nil || first.Attempt == nil || first.State() != model.AttemptIndeterminate {
		t.Fatalf("first retry: %+v %v", first, err)
	}
	if !retry.IsAttemptID(first.Attempt.ID) {
		t.Fatalf("attempt id %s does not have exectriage's shape", first.Attempt.ID)
	}
	made := w.byRequestID(first.Attempt.ID)
	posts := w.sends()
	for name, d := range map[string]retry.Deps{"same journal": w.deps(), "another journal": onOther()} {
		res, err := retry.Run(ctx, d, confirmed(made))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Refused() || res.Decision.Code != triage.RefusedIsRetry {
			t.Errorf("%s: retry of the retry's log: %+v", name, res.Decision)
		}
	}
	// The original, seen from a journal that never heard of the first retry.
	res, err := retry.Run(ctx, onOther(), confirmed(e))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Refused() || res.Decision.Code != triage.RefusedRetriedElsewhere || !strings.Contains(res.Decision.Reason, made.ID) {
		t.Errorf("retry of the original on another journal: %+v", res.Decision)
	}
	if got := w.sends() - posts; got != 0 {
		t.Fatalf("%d POSTs sent, want none", got)
	}
	if n := retry.NewAttemptID(); !retry.IsAttemptID(n) || retry.IsAttemptID("0b6f3b0e-6d1c-4c1e-9a52-3c1f7c1d2e01") {
		t.Errorf("attempt id shape: %s", n)
	}
}

// failingJournal is a journal whose updates fail from the nth on (a full disk between the
// intent and "sent").
type failingJournal struct {
	journal.Journal
	mu    sync.Mutex
	calls int
	from  int
}

func (f *failingJournal) UpdateAttempt(ctx context.Context, id string, st model.AttemptState, logID, detail string, at time.Time) error {
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	if n >= f.from {
		return errors.New("disk full")
	}
	return f.Journal.UpdateAttempt(ctx, id, st, logID, detail, at)
}

// A journal that cannot record "sent" stops the retry before the request leaves: nothing is
// sent, and the result says so (the command exits 1, not 4).
func TestJournalFailureBeforeSendSendsNothing(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("disk"))
	d := w.deps()
	d.Journal = &failingJournal{Journal: w.j, from: 1}
	posts := w.sends()
	res, err := retry.Run(ctx, d, confirmed(e))
	if err == nil || !strings.Contains(err.Error(), "nothing was sent") || res.Sent || res.Attempt == nil {
		t.Fatalf("result %+v, err %v", res, err)
	}
	if got := w.sends() - posts; got != 0 {
		t.Fatalf("%d POSTs, want none", got)
	}
}

// Twelve racers on one journal retry an execution while every send is rate limited: the first
// 429 does not release the claim to all of them at once (one POST, not one per racer).
func TestRateLimitedRetryDoesNotReleaseEveryRacer(t *testing.T) {
	w := newWorld(t, "")
	e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("429race"))
	w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault429, Count: 100})
	posts := w.sends()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 12 {
		wg.Go(func() {
			<-start
			for range 3 { // each racer tries again when refused, as an impatient person would
				res, _ := retry.Run(context.Background(), w.deps(), confirmed(e))
				if !res.Refused() && res.Attempt != nil {
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if got := w.sends() - posts; got != 1 {
		t.Fatalf("%d POSTs from 12 racers, want 1", got)
	}
}

// A retry runs the tool version the original ran (its log records it), and says so; without a
// recorded version it runs latest and says that.
func TestRetryRunsTheOriginalsToolVersion(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("ver"))
	if e.ToolVersion == "" {
		t.Fatal("the sandbox's log does not record the tool version")
	}
	e.ToolVersion = "20240101_00" // an older version than the tool's current one, as the live log says
	res, err := runLive(ctx, w.deps(), confirmed(e))
	if err != nil || res.Refused() || res.Version != "20240101_00" || res.VersionNote != "20240101_00, the one the original ran" {
		t.Fatalf("retry: %+v %v", res, err)
	}
	found := false
	for _, x := range w.effects() {
		if x.RequestID == res.Attempt.ID {
			found = x.Version == "20240101_00"
		}
	}
	if !found {
		t.Errorf("the retry's effect did not run version 20240101_00: %+v", w.effects()[len(w.effects())-1])
	}
	stored, _ := w.j.Attempt(ctx, res.Attempt.ID)
	if !strings.Contains(stored.Detail, "tool version 20240101_00") {
		t.Errorf("the journal does not say the version: %q", stored.Detail)
	}
	e2 := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("ver2"))
	e2.ToolVersion = ""
	res, err = runLive(ctx, w.deps(), confirmed(e2))
	if err != nil || res.Version != "latest" || !strings.Contains(res.VersionNote, "does not record") {
		t.Fatalf("retry without a recorded version: %+v %v", res, err)
	}
}
