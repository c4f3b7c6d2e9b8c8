package retry_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
)

// countingSender counts sends and keeps each send's deadline; it answers with answer.
type countingSender struct {
	mu        sync.Mutex
	n         int
	deadlines []time.Time
	answer    func() (model.ToolResult, error)
}

func (s *countingSender) Execute(ctx context.Context, _ string, _ client.ExecuteRequest) (model.ToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	d, _ := ctx.Deadline()
	s.deadlines = append(s.deadlines, d)
	if s.answer != nil {
		return s.answer()
	}
	return model.ToolResult{Successful: true, LogID: "log_retry"}, nil
}

func (s *countingSender) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func openJournal(t *testing.T) journal.Journal {
	t.Helper()
	j, err := journal.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// failedWrite is a failed Gmail send with its arguments, as its log shows it.
func failedWrite(id string) model.Execution {
	return model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", UserID: "u1", Status: "failed",
		Timestamp: time.Now().Add(-time.Hour), Arguments: json.RawMessage(resolveArgs), Detailed: true,
		Error: &model.ExecError{Kind: model.ErrTimeout, Message: "timed out"}}
}

// liveAs is a Logs API whose live log of e.ID is e (the fake API serves what the person saw);
// other reads go to the reader beneath, when there is one.
type liveAs struct {
	retry.LogReader
	e model.Execution
}

func (l liveAs) GetLog(ctx context.Context, id string) (model.Execution, error) {
	if id == l.e.ID {
		return l.e, nil
	}
	if l.LogReader == nil {
		return model.Execution{}, errors.New("no such log")
	}
	return l.LogReader.GetLog(ctx, id)
}

func (l liveAs) ListLogs(ctx context.Context, q client.LogQuery) iter.Seq2[model.LogsPage, error] {
	if l.LogReader == nil {
		return func(func(model.LogsPage, error) bool) {}
	}
	return l.LogReader.ListLogs(ctx, q)
}

// runLive is retry.Run on an API whose live log of the execution is the one given.
func runLive(ctx context.Context, d retry.Deps, req retry.Request) (retry.Result, error) {
	d.Logs = liveAs{LogReader: d.Logs, e: req.Execution}
	return retry.Run(ctx, d, req)
}

func fakeDeps(j journal.Journal, s retry.Sender) retry.Deps {
	return retry.Deps{Journal: j, Sender: s, Verifier: provider(model.ProviderNotFound), Kinds: triage.NewKinds(), Who: "t", Target: "LIVE fake"}
}

// TestNoRetryOfTheSameCallWhileAnAttemptIsOpen: when the server records no request id, a
// retry's own log, or a newer failure of the same call, looks like an execution of its own.
// An open attempt of the same tool and arguments refuses a retry of any execution of that
// call until it is resolved (2 POSTs), and once it is settled the other may go.
func TestNoRetryOfTheSameCallWhileAnAttemptIsOpen(t *testing.T) {
	ctx := context.Background()
	j := openJournal(t)
	timeout := &countingSender{answer: func() (model.ToolResult, error) {
		return model.ToolResult{}, &client.WriteError{Kind: client.WriteAmbiguous, Sent: true}
	}}
	first, err := runLive(ctx, fakeDeps(j, timeout), retry.Request{Execution: failedWrite("log_first"), Confirmed: true, Reason: "r"})
	if err != nil || first.State() != model.AttemptIndeterminate {
		t.Fatalf("first retry: %+v %v", first, err)
	}
	s := &countingSender{}
	res, err := runLive(ctx, fakeDeps(j, s), retry.Request{Execution: failedWrite("log_second"), Confirmed: true, Reason: "r"})
	if err != nil || !res.Refused() || res.Decision.Code != triage.RefusedSameCallOpen || s.count() != 0 {
		t.Fatalf("retry of the same call over an open attempt: %+v %v, %d sends", res.Decision, err, s.count())
	}
	// another call (other arguments) is not held
	other := failedWrite("log_third")
	other.Arguments = json.RawMessage(`{"recipient_email":"zed@example.com","subject":"x","body":"y"}`)
	if res, err := runLive(ctx, fakeDeps(j, s), retry.Request{Execution: other, Confirmed: true, Reason: "r"}); err != nil || res.Refused() || s.count() != 1 {
		t.Fatalf("another call was held: %+v %v", res.Decision, err)
	}
	// settled, the same call may be retried again
	if err := j.UpdateAttempt(ctx, first.Attempt.ID, model.AttemptFailed, "", "resolved", time.Now()); err != nil {
		t.Fatal(err)
	}
	if res, err := runLive(ctx, fakeDeps(j, s), retry.Request{Execution: failedWrite("log_second"), Confirmed: true, Reason: "r"}); err != nil || res.Refused() || s.count() != 2 {
		t.Fatalf("after the first was settled: %+v %v", res.Decision, err)
	}
}

// TestTwoClaimsOfTheSameCallSendOnce: two processes pass the guard for two executions of the
// same call before either claims; both claims succeed (they are on different executions), and
// the later one sees the earlier one after its claim and stops before sending.
func TestTwoClaimsOfTheSameCallSendOnce(t *testing.T) {
	ctx := context.Background()
	j := openJournal(t)
	s := &countingSender{answer: func() (model.ToolResult, error) {
		return model.ToolResult{}, &client.WriteError{Kind: client.WriteAmbiguous, Sent: true}
	}}
	guarded, goOn := make(chan struct{}), make(chan struct{})
	late := fakeDeps(j, s)
	late.Pause = func(_ context.Context, step string) error {
		if step == retry.StepBeforeIntent { // its guard allowed it; nothing claimed yet
			close(guarded)
			<-goOn
		}
		return nil
	}
	inFlight, release := make(chan struct{}), make(chan struct{})
	early := fakeDeps(j, s)
	early.Pause = func(_ context.Context, step string) error {
		if step == retry.StepInFlight {
			close(inFlight)
			<-release
		}
		return nil
	}
	var lateRes retry.Result
	var lateErr error
	lateDone := make(chan struct{})
	go func() {
		defer close(lateDone)
		lateRes, lateErr = runLive(ctx, late, retry.Request{Execution: failedWrite("log_b"), Confirmed: true, Reason: "r"})
	}()
	<-guarded
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = runLive(ctx, early, retry.Request{Execution: failedWrite("log_a"), Confirmed: true, Reason: "r"})
	})
	<-inFlight // the early one claimed and is about to send
	close(goOn)
	<-lateDone
	close(release)
	wg.Wait()
	if s.count() != 1 || lateRes.Sent {
		t.Fatalf("two claims of the same call: %d sends (the late one: %+v, %v), want 1", s.count(), lateRes.Decision, lateErr)
	}
}

// TestARetrysNewLogIsARetry: the log a retry made is itself never retried, found by its
// request id or, where the server records none, as the attempt's new log (a mutant that
// dropped the new-log check survived).
func TestARetrysNewLogIsARetry(t *testing.T) {
	ctx := context.Background()
	j := openJournal(t)
	rejected := &countingSender{answer: func() (model.ToolResult, error) {
		return model.ToolResult{LogID: "log_made"}, &client.WriteError{Kind: client.WriteRejected, Sent: true, StatusCode: 429}
	}}
	first, err := runLive(ctx, fakeDeps(j, rejected), retry.Request{Execution: failedWrite("log_orig"), Confirmed: true, Reason: "r"})
	if err != nil || first.Attempt == nil || first.Attempt.NewLogID != "log_made" {
		t.Fatalf("first retry: %+v %v", first, err)
	}
	made := failedWrite("log_made") // its log: no request id recorded, other arguments order
	made.Arguments = json.RawMessage(`{"body":"attached","subject":"Invoice 7","recipient_email":"bob@example.com"}`)
	s := &countingSender{}
	d := fakeDeps(j, s)
	d.Now = func() time.Time { return time.Now().Add(2 * time.Minute) } // past the rate-limit cool-down
	res, err := runLive(ctx, d, retry.Request{Execution: made, Confirmed: true, Reason: "r"})
	if err != nil || res.Decision.Code != triage.RefusedIsRetry || s.count() != 0 {
		t.Fatalf("retry of the retry's own log: %+v %v, %d sends", res.Decision, err, s.count())
	}
}

// TestSendDeadlineCountsFromTheClaim: the send's deadline counts from the claim, not from the
// send, so that a slow step between them cannot make the request outlive the journal deadline
// recovery trusts (a mutant that counted from the send survived).
func TestSendDeadlineCountsFromTheClaim(t *testing.T) {
	ctx := context.Background()
	j := openJournal(t)
	s := &countingSender{}
	d := fakeDeps(j, s)
	d.Timeout = 2 * time.Second
	d.Pause = func(_ context.Context, step string) error {
		if step == retry.StepAfterIntent {
			time.Sleep(400 * time.Millisecond)
		}
		return nil
	}
	start := time.Now()
	if _, err := runLive(ctx, d, retry.Request{Execution: failedWrite("log_slow"), Confirmed: true, Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	if s.count() != 1 {
		t.Fatalf("%d sends", s.count())
	}
	// the claim comes a few milliseconds after the start; the 400 ms pause after it must not
	// move the deadline
	if dl := s.deadlines[0]; dl.IsZero() || dl.After(start.Add(d.Timeout+200*time.Millisecond)) {
		t.Fatalf("the send's deadline is %v after the start: it does not count from the claim (timeout %v)", dl.Sub(start), d.Timeout)
	}
}

// TestA429SeenAfterTheClaimStopsTheSend: a racer that passed the guard before another's retry
// was rate limited, and claims after it, stops before sending: under a standing 429 the
// racers do not each send in turn (a mutant without the re-check after the claim sent twice).
func TestA429SeenAfterTheClaimStopsTheSend(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	e := w.failedSend(sandbox.Fault5xxBeforeCommit, "GMAIL_SEND_EMAIL", sendArgs("r03"))
	w.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault429, Count: 10})
	posts := w.sends()
	passed, release := make(chan struct{}), make(chan struct{})
	late := w.deps()
	late.Pause = func(_ context.Context, step string) error {
		if step == retry.StepBeforeIntent { // its guard allowed it; nothing claimed yet
			close(passed)
			<-release
		}
		return nil
	}
	var lateRes retry.Result
	var wg sync.WaitGroup
	wg.Go(func() { lateRes, _ = runLive(ctx, late, confirmed(e)) })
	<-passed
	first, err := runLive(ctx, w.deps(), confirmed(e))
	if err != nil || first.State() != model.AttemptFailed {
		t.Fatalf("the first retry under a 429: %+v %v", first, err)
	}
	close(release)
	wg.Wait()
	if got := w.sends() - posts; got != 1 {
		t.Fatalf("%d POSTs, want 1 (the late racer: %+v, sent %v)", got, lateRes.Decision, lateRes.Sent)
	}
}

// TestAMetaToolIsNeverRetriedAsOneWrite: a COMPOSIO_MULTI_EXECUTE_TOOL run that timed out is
// never sent again as one write (its children would all run again, those that took effect
// included): the guard reads its children's logs and offers to retry only the children that
// failed, each through the guard; unreadable logs refuse it too.
func TestAMetaToolIsNeverRetriedAsOneWrite(t *testing.T) {
	ctx := context.Background()
	at := time.Now().Add(-time.Hour)
	parent := model.Execution{ID: "log_meta", ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL", UserID: "u1", SessionID: "trs_1", Status: "failed",
		Timestamp: at, Arguments: json.RawMessage(`{"tools":[{"tool_slug":"GMAIL_SEND_EMAIL"},{"tool_slug":"SLACK_SEND_MESSAGE"}]}`), Detailed: true,
		Error: &model.ExecError{Kind: model.ErrTimeout, Message: "timed out after 60 s"}}
	child := func(id, tool, status string, kind model.ErrorKind) model.Execution {
		c := model.Execution{ID: id, ToolSlug: tool, UserID: "u1", SessionID: "trs_1", Status: status, Timestamp: at.Add(2 * time.Second),
			Parent: &model.Parent{LogID: "log_meta", ToolSlug: parent.ToolSlug}, Detailed: true, Arguments: json.RawMessage(`{}`)}
		if kind != "" {
			c.Error = &model.ExecError{Kind: kind, Message: string(kind)}
		}
		return c
	}
	for _, tt := range []struct {
		name  string
		logs  *logReader
		words []string
	}{
		{"one child took effect, one failed", &logReader{records: []model.Execution{
			child("log_c1", "GMAIL_SEND_EMAIL", "success", ""), child("log_c2", "SLACK_SEND_MESSAGE", "failed", model.ErrValidation)}},
			[]string{"log_c1 (GMAIL_SEND_EMAIL) took effect", "exectriage retry log_c2"}},
		{"a child's outcome is unknown", &logReader{records: []model.Execution{
			child("log_c1", "GMAIL_SEND_EMAIL", "failed", model.ErrTimeout), child("log_c2", "SLACK_SEND_MESSAGE", "failed", model.ErrValidation)}},
			[]string{"log_c1 (GMAIL_SEND_EMAIL) is unknown"}},
		{"every child failed", &logReader{records: []model.Execution{
			child("log_c1", "GMAIL_SEND_EMAIL", "failed", model.ErrValidation), child("log_c2", "SLACK_SEND_MESSAGE", "failed", model.ErrAuth)}},
			[]string{"run every child again", "exectriage retry log_c1`, `exectriage retry log_c2"}},
		{"the logs cannot be read", &logReader{listErr: context.DeadlineExceeded},
			[]string{"could not be read completely"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := openJournal(t)
			s := &countingSender{}
			d := fakeDeps(j, s)
			d.Logs = tt.logs
			res, err := runLive(ctx, d, retry.Request{Execution: parent, Confirmed: true, Reason: "r"})
			if err != nil || res.Decision.Code != triage.RefusedMetaTool || s.count() != 0 {
				t.Fatalf("retry of a meta tool run: %+v %v, %d sends", res.Decision, err, s.count())
			}
			text := res.Decision.Reason + " | " + res.Decision.Next.Shell()
			for _, w := range tt.words {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
}

// TestFindAttemptAndPrecheck: an attempt is found by its id, or by its execution (the open one
// first); the dialog's precheck answers as the guard would, and says so when no journal is
// open or the source cannot send.
func TestFindAttemptAndPrecheck(t *testing.T) {
	ctx := context.Background()
	j := openJournal(t)
	s := &countingSender{answer: func() (model.ToolResult, error) {
		return model.ToolResult{}, &client.WriteError{Kind: client.WriteAmbiguous, Sent: true}
	}}
	e := failedWrite("log_find")
	res, err := runLive(ctx, fakeDeps(j, s), retry.Request{Execution: e, Confirmed: true, Reason: "r"})
	if err != nil || res.Attempt == nil {
		t.Fatal(res, err)
	}
	for _, id := range []string{res.Attempt.ID, "log_find"} {
		if a, err := retry.FindAttempt(ctx, j, id); err != nil || a.ID != res.Attempt.ID {
			t.Errorf("FindAttempt(%s) = %+v %v", id, a, err)
		}
	}
	if _, err := retry.FindAttempt(ctx, j, "log_nothing"); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("FindAttempt of nothing: %v", err)
	}
	notFound := model.ProviderState{State: model.ProviderNotFound, CheckedAt: time.Now()}
	for name, tt := range map[string]struct {
		d    retry.Deps
		e    model.Execution
		code triage.RefusalCode
	}{
		"no journal":           {retry.Deps{}, failedWrite("log_p1"), triage.RefusedNoJournal},
		"no sender":            {fakeDeps(j, nil), otherCall("log_p2"), triage.RefusedCannotSend},
		"needs a confirmation": {fakeDeps(j, s), otherCall("log_p3"), triage.RefusedNotConfirmed},
		"held by its attempt":  {fakeDeps(j, s), e, triage.RefusedIndeterminate},
	} {
		if name == "no sender" {
			tt.d.Sender = nil
		}
		r, err := retry.Precheck(ctx, tt.d, tt.e, notFound)
		if err != nil || r.Decision.Code != tt.code {
			t.Errorf("%s: %+v %v, want %s", name, r.Decision, err, tt.code)
		}
	}
	if s.count() != 1 {
		t.Errorf("%d sends, want the one retry", s.count())
	}
}

// otherCall is failedWrite with arguments of its own.
func otherCall(id string) model.Execution {
	e := failedWrite(id)
	e.Arguments = json.RawMessage(`{"recipient_email":"` + id + `@example.com","subject":"s","body":"b"}`)
	return e
}

// TestAFreshProviderCheckIsReused: a check the person just saw is used as it is; an old one,
// or none, is made again (with no verifier: unknown, with the reason).
func TestAFreshProviderCheckIsReused(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		given *model.ProviderState
		ver   bool
		want  model.ProviderStateKind
	}{
		{"fresh, reused", &model.ProviderState{State: model.ProviderNotFound, CheckedAt: time.Now(), Reason: "looked"}, true, model.ProviderNotFound},
		{"old, checked again", &model.ProviderState{State: model.ProviderNotFound, CheckedAt: time.Now().Add(-time.Hour)}, true, model.ProviderFound},
		{"none, no verifier", nil, false, model.ProviderUnknown},
	} {
		j := openJournal(t)
		s := &countingSender{}
		d := fakeDeps(j, s)
		d.Verifier = provider(model.ProviderFound)
		if !tt.ver {
			d.Verifier = nil
		}
		res, err := runLive(ctx, d, retry.Request{Execution: failedWrite("log_fresh"), Confirmed: true, Reason: "r", Provider: tt.given})
		if err != nil || res.Provider.State != tt.want {
			t.Errorf("%s: provider %s %v, want %s", tt.name, res.Provider.State, err, tt.want)
		}
	}
}

// stoppedJournal fails reads of attempts (a database gone between two statements).
type stoppedJournal struct {
	journal.Journal
	failAttempts bool
}

func (s *stoppedJournal) Attempts(ctx context.Context, id string) ([]model.RetryAttempt, error) {
	if s.failAttempts {
		return nil, errors.New("database is closed")
	}
	return s.Journal.Attempts(ctx, id)
}

// TestEveryWayOutOfRunRecordsWhereItStands: stopping before the intent records nothing and
// sends nothing; stopping after it records the attempt failed, not sent; a request that never
// left is failed and not sent; a journal that cannot be read refuses before anything.
func TestEveryWayOutOfRunRecordsWhereItStands(t *testing.T) {
	ctx := context.Background()
	stop := errors.New("interrupted")
	for _, tt := range []struct {
		name      string
		step      string
		notSent   bool // the sender answers "not sent"
		broken    bool
		wantState model.AttemptState // "" = no attempt
		wantSends int
	}{
		{"stopped before the intent", retry.StepBeforeIntent, false, false, "", 0},
		{"stopped after the intent", retry.StepAfterIntent, false, false, model.AttemptFailed, 0},
		{"stopped in flight, before the request", retry.StepInFlight, false, false, model.AttemptFailed, 0},
		{"the request never left", "", true, false, model.AttemptFailed, 1},
		{"the journal cannot be read", "", false, true, "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := openJournal(t)
			s := &countingSender{}
			if tt.notSent {
				s.answer = func() (model.ToolResult, error) {
					return model.ToolResult{}, &client.WriteError{Kind: client.WriteNotSent}
				}
			}
			d := fakeDeps(j, s)
			if tt.broken {
				d.Journal = &stoppedJournal{Journal: j, failAttempts: true}
			}
			d.Pause = func(_ context.Context, step string) error {
				if step == tt.step {
					return stop
				}
				return nil
			}
			e := otherCall("log_out")
			res, err := runLive(ctx, d, retry.Request{Execution: e, Confirmed: true, Reason: "r"})
			if tt.wantState != model.AttemptSucceeded && err == nil && !tt.notSent {
				t.Errorf("no error for %s", tt.name)
			}
			if s.count() != tt.wantSends || tt.notSent && res.Sent {
				t.Errorf("%d sends (sent %v), want %d", s.count(), res.Sent, tt.wantSends)
			}
			as, _ := j.Attempts(ctx, e.ID)
			switch {
			case tt.wantState == "" && len(as) != 0:
				t.Errorf("an attempt was recorded: %+v", as)
			case tt.wantState != "" && (len(as) != 1 || as[0].State != tt.wantState):
				t.Errorf("attempts %+v, want one %s", as, tt.wantState)
			}
		})
	}
}

// TestResolveRefusesWhatItCannotDo: an unknown attempt, an already settled one, a decision
// that is neither succeeded nor failed or has no reason; an attempt that never reached sent is
// failed without any witness.
func TestResolveRefusesWhatItCannotDo(t *testing.T) {
	ctx := context.Background()
	w := newResolveWorld(t, "")
	d := retry.Deps{Journal: w.j, Target: "LIVE fake"}
	if _, err := retry.Resolve(ctx, d, "nope", retry.ResolveOptions{}); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("unknown attempt: %v", err)
	}
	for _, opt := range []retry.ResolveOptions{{As: "maybe", Reason: "r"}, {As: model.AttemptFailed}} {
		if _, err := retry.Resolve(ctx, d, w.a.ID, opt); err == nil {
			t.Errorf("resolve with %+v: no error", opt)
		}
	}
	res, err := retry.Resolve(ctx, d, w.a.ID, retry.ResolveOptions{As: model.AttemptFailed, Reason: "bounce seen"})
	if err != nil || res.Attempt.State != model.AttemptFailed || !strings.Contains(res.Attempt.Detail, "decided by a person") {
		t.Fatalf("a person's decision without witnesses: %+v %v", res, err)
	}
	if res, err := retry.Resolve(ctx, d, w.a.ID, retry.ResolveOptions{}); err != nil || res.Changed || !strings.Contains(res.Next, "has already settled (failed); nothing to resolve") {
		t.Errorf("an attempt already settled: %+v %v", res, err)
	}
	// an intent left by a process that is gone, never sent: failed with no witness at all
	j := openJournal(t)
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	a := model.RetryAttempt{ID: retry.NewAttemptID(), ExecutionID: "log_x", ToolSlug: "GMAIL_SEND_EMAIL", ArgumentHash: "h", State: model.AttemptIntent, Who: "t", CreatedAt: at}
	if ok, _, err := j.ClaimAttempt(ctx, journal.Claim{Attempt: a, Deadline: at.Add(time.Minute), Confirmation: journal.Confirmation{Who: "t", At: at, Reason: "r"}}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := j.UpdateAttempt(ctx, a.ID, model.AttemptIndeterminate, "", "its process is gone", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	res, err = retry.Resolve(ctx, retry.Deps{Journal: j}, a.ID, retry.ResolveOptions{})
	if err != nil || res.Attempt.State != model.AttemptFailed || !strings.Contains(res.Attempt.Detail, "never sent") {
		t.Errorf("a never-sent attempt: %+v %v", res.Attempt, err)
	}
}

// ownLog is a Logs API that answers the log an execute answer named (its id) with what the
// test says it shows; the live log of the original comes from liveAs above it.
type ownLog struct {
	id string
	e  func() model.Execution
}

func (o ownLog) GetLog(_ context.Context, id string) (model.Execution, error) {
	if id == o.id {
		return o.e(), nil
	}
	return model.Execution{}, errors.New("no such log")
}

func (o ownLog) ListLogs(context.Context, client.LogQuery) iter.Seq2[model.LogsPage, error] {
	return func(func(model.LogsPage, error) bool) {}
}

// TestAnAnswerThatSettlesNothingReadsItsOwnLogAtOnce: an execute answer
// that proves nothing (the connection dropped after it was sent) left the attempt
// indeterminate while the log that answer named already showed a refusal (the dialog said
// unknown, the attempt's row failed, resolve indeterminate beside it). Run now reads that log at
// once, by resolve's rules: a refusal or a success of its own log settles it; a failure that
// proves nothing leaves it indeterminate, for resolve after late logs. Nothing is sent again and
// no read tool runs.
func TestAnAnswerThatSettlesNothingReadsItsOwnLogAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  model.Execution
		want model.AttemptState
	}{
		{"its log is a refusal", model.Execution{Status: "failed", Error: &model.ExecError{Kind: model.ErrValidation, Message: "invalid recipient", HTTPStatus: 400}}, model.AttemptFailed},
		{"its log is a success", model.Execution{Status: "success"}, model.AttemptSucceeded},
		{"its log is a timeout", model.Execution{Status: "failed", Error: &model.ExecError{Kind: model.ErrTimeout, Message: "upstream timed out", HTTPStatus: 504}}, model.AttemptIndeterminate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			j := openJournal(t)
			s := &countingSender{answer: func() (model.ToolResult, error) {
				return model.ToolResult{LogID: "log_new"}, &client.WriteError{Kind: client.WriteAmbiguous, Sent: true}
			}}
			d := fakeDeps(j, s)
			reads := 0
			d.Verifier = verifierFunc(func(context.Context, *model.Execution) model.ProviderState {
				reads++
				return model.ProviderState{State: model.ProviderNotFound, CheckedAt: time.Now()}
			})
			d.Logs = ownLog{id: "log_new", e: func() model.Execution {
				e := tc.log
				e.ID, e.ToolSlug, e.ConnectedAccountID, e.UserID, e.Timestamp, e.Detailed = "log_new", "GMAIL_SEND_EMAIL", "ca_1", "u1", time.Now(), true
				return e
			}}
			orig := failedWrite("log_orig")
			res, err := runLive(ctx, d, retry.Request{Execution: orig, Confirmed: true, Reason: "r"})
			if err != nil || res.Attempt == nil {
				t.Fatalf("retry: %+v %v", res, err)
			}
			stored, _ := j.Attempt(ctx, res.Attempt.ID)
			if res.State() != tc.want || stored.State != tc.want {
				t.Fatalf("the retry ended %s (stored %s), want %s: %s; logs %q", res.State(), stored.State, tc.want, stored.Detail, res.LogsAfter)
			}
			if s.count() != 1 {
				t.Fatalf("%d sends, want 1", s.count())
			}
			if len(res.LogsAfter) == 0 {
				t.Error("the logs read after the answer are not said")
			}
			if reads > 1 { // the guard's own check before the send is the only read tool run
				t.Errorf("%d provider checks: the look after the answer ran a read tool", reads)
			}
			// resolve afterwards says the same
			r, err := retry.Resolve(ctx, fakeDeps(j, nil), res.Attempt.ID, retry.ResolveOptions{})
			if tc.want != model.AttemptIndeterminate && (err != nil || r.Changed || r.Attempt.State != tc.want) {
				t.Errorf("resolve after the retry: %+v %v", r.Attempt, err)
			}
		})
	}
}

// verifierFunc is a provider check made of a function.
type verifierFunc func(context.Context, *model.Execution) model.ProviderState

func (f verifierFunc) Verify(ctx context.Context, e *model.Execution) model.ProviderState {
	return f(ctx, e)
}
