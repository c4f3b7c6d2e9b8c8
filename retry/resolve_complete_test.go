package retry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
)

// logReader is a Logs API that misbehaves on demand: it lists its records as list entries
// (no request id, no arguments: the detail has them), in pages, honouring or ignoring the
// filters and the time range, and its reads may fail or answer another log.
type logReader struct {
	records       []model.Execution // the details, in list order
	ignoreFilters bool
	ignoreFrom    bool
	pageSize      int
	listErr       error
	getErr        error
	lie           bool // GetLog answers the next record instead of the one asked for
	opened        []string
}

func (r *logReader) matches(q client.LogQuery, e model.Execution) bool {
	if !r.ignoreFrom && (!q.From.IsZero() && e.Timestamp.Before(q.From) || !q.To.IsZero() && e.Timestamp.After(q.To)) {
		return false
	}
	if r.ignoreFilters {
		return true
	}
	for _, f := range q.Filters {
		var v string
		switch f.Field {
		case "request_id":
			v = e.RequestID
		case "tool_slug":
			v = e.ToolSlug
		case "connected_account_id":
			v = e.ConnectedAccountID
		case "user_id":
			v = e.UserID
		case "session_id":
			v = e.SessionID
		}
		if v != f.Value {
			return false
		}
	}
	return true
}

func (r *logReader) ListLogs(_ context.Context, q client.LogQuery) iter.Seq2[model.LogsPage, error] {
	return func(yield func(model.LogsPage, error) bool) {
		if r.listErr != nil {
			yield(model.LogsPage{}, r.listErr)
			return
		}
		var page []model.Execution
		size := r.pageSize
		if size == 0 {
			size = 10
		}
		for _, e := range r.records {
			if !r.matches(q, e) {
				continue
			}
			entry := e // a list entry: what the list endpoint carries
			entry.RequestID, entry.Arguments, entry.Detailed = "", nil, false
			page = append(page, entry)
			if len(page) == size {
				if !yield(model.LogsPage{Executions: page, NextCursor: "more"}, nil) {
					return
				}
				page = nil
			}
		}
		yield(model.LogsPage{Executions: page}, nil)
	}
}

func (r *logReader) GetLog(_ context.Context, id string) (model.Execution, error) {
	r.opened = append(r.opened, id)
	if r.getErr != nil {
		return model.Execution{}, r.getErr
	}
	for i, e := range r.records {
		if e.ID == id {
			if r.lie {
				return r.records[(i+1)%len(r.records)], nil
			}
			return e, nil
		}
	}
	return model.Execution{}, fmt.Errorf("no log %s", id)
}

// resolveWorld is an indeterminate attempt of orig, sent at sent, in a journal of its own.
type resolveWorld struct {
	j    journal.Journal
	orig model.Execution
	a    model.RetryAttempt
	sent time.Time
}

func newResolveWorld(t *testing.T, newLog string) *resolveWorld {
	t.Helper()
	ctx := context.Background()
	sent := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	orig := model.Execution{ID: "log_orig", ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", UserID: "u1",
		Timestamp: sent.Add(-time.Hour), Status: "failed", Arguments: json.RawMessage(resolveArgs), Detailed: true}
	a := model.RetryAttempt{ID: retry.NewAttemptID(), ExecutionID: orig.ID, ToolSlug: orig.ToolSlug,
		ArgumentHash: model.ArgumentHash(orig.Arguments, model.DefaultVolatileKeys()), State: model.AttemptIntent, Who: "t", CreatedAt: sent}
	if ok, _, err := j.ClaimAttempt(ctx, journal.Claim{Attempt: a, Deadline: sent.Add(time.Minute), Target: "LIVE fake",
		Confirmation: journal.Confirmation{Who: "t", At: sent, Reason: "r", Outcome: model.OutcomeAmbiguous}}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := j.UpdateAttempt(ctx, a.ID, model.AttemptSent, "", "", sent); err != nil {
		t.Fatal(err)
	}
	if err := j.UpdateAttempt(ctx, a.ID, model.AttemptIndeterminate, newLog, "timed out", sent.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	a, _ = j.Attempt(ctx, a.ID)
	return &resolveWorld{j: j, orig: orig, a: a, sent: sent}
}

// rec is a log detail of the same tool and account as the original.
func (w *resolveWorld) rec(id, status string, at time.Duration, requestID, args string) model.Execution {
	return model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", UserID: "u1", Status: status,
		Timestamp: w.sent.Add(at), RequestID: requestID, Arguments: json.RawMessage(args), Detailed: true}
}

func (w *resolveWorld) resolve(t *testing.T, logs retry.LogReader, prov model.ProviderStateKind, elapsed time.Duration) retry.Resolution {
	t.Helper()
	now := w.sent.Add(elapsed)
	d := retry.Deps{Journal: w.j, Logs: logs, Verifier: provider(prov), Target: "LIVE fake", Now: func() time.Time { return now }}
	if logs == nil {
		d.Logs = nil
	}
	e := w.orig
	res, err := retry.Resolve(context.Background(), d, w.a.ID, retry.ResolveOptions{Execution: &e, Settle: 15 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestResolveFreesOnlyFromACompleteSearch: "failed" frees the claim, so it needs the logs
// searched completely: a search that failed, was capped or was answered with other logs than
// asked is unknown and keeps the attempt indeterminate, saying what to check (with
// a server that ignores filters and lists the attempt's own success 26th, the attempt was
// settled failed and the retry sent again).
func TestResolveFreesOnlyFromACompleteSearch(t *testing.T) {
	const other = `{"recipient_email":"zed@example.com","subject":"other","body":"x"}`
	hour := time.Hour
	tests := []struct {
		name    string
		reader  func(w *resolveWorld) *logReader
		prov    model.ProviderStateKind
		elapsed time.Duration
		want    model.AttemptState
		says    string
	}{
		{"the logs cannot be searched", func(w *resolveWorld) *logReader {
			return &logReader{listErr: errors.New("503 from the logs API")}
		}, model.ProviderNotFound, hour, model.AttemptIndeterminate, "could not be searched"},
		{"the detail cannot be read", func(w *resolveWorld) *logReader {
			return &logReader{records: []model.Execution{w.rec("log_x", "failed", time.Second, "", other)}, ignoreFilters: true, getErr: errors.New("500")}
		}, model.ProviderNotFound, hour, model.AttemptIndeterminate, "could not be searched"},
		{"filters ignored, its own success listed 26th", func(w *resolveWorld) *logReader {
			var recs []model.Execution
			for i := range 25 {
				recs = append(recs, w.rec(fmt.Sprintf("log_noise%02d", i), "failed", time.Duration(i)*time.Second, "", other))
			}
			recs = append(recs, w.rec("log_mine", "success", 30*time.Second, w.a.ID, resolveArgs))
			return &logReader{records: recs, ignoreFilters: true}
		}, model.ProviderNotFound, hour, model.AttemptIndeterminate, "incomplete"},
		{"filters ignored, its own failure found but 30 more unopened", func(w *resolveWorld) *logReader {
			recs := []model.Execution{w.rec("log_mine", "failed", time.Second, w.a.ID, resolveArgs)}
			for i := range 30 {
				recs = append(recs, w.rec(fmt.Sprintf("log_noise%02d", i), "failed", time.Duration(i)*time.Second, "", other))
			}
			return &logReader{records: recs, ignoreFilters: true}
		}, model.ProviderNotFound, hour, model.AttemptIndeterminate, "incomplete"},
		{"the server answers other logs than asked", func(w *resolveWorld) *logReader {
			return &logReader{records: []model.Execution{w.rec("log_a", "failed", time.Second, "", other), w.rec("log_b", "failed", 2*time.Second, "", other)},
				ignoreFilters: true, lie: true}
		}, model.ProviderNotFound, hour, model.AttemptIndeterminate, "answered"},
		{"the same calls past the cap", func(w *resolveWorld) *logReader {
			var recs []model.Execution
			for i := range 30 { // same tool and account, other arguments: each opened to compare
				recs = append(recs, w.rec(fmt.Sprintf("log_same%02d", i), "success", time.Duration(i+1)*time.Second, "", other))
			}
			return &logReader{records: recs}
		}, model.ProviderNotFound, hour, model.AttemptIndeterminate, "incomplete"},
		// the complete searches settle it, every branch
		{"its own success, paged, list entries opened", func(w *resolveWorld) *logReader {
			recs := []model.Execution{w.rec("log_a", "failed", time.Second, "", other), w.rec("log_mine", "success", 3*time.Second, w.a.ID, resolveArgs)}
			return &logReader{records: recs, ignoreFilters: true, pageSize: 1}
		}, model.ProviderUnknown, time.Minute, model.AttemptSucceeded, "carries request id"},
		{"its own log stamped before its start (clocks differ)", func(w *resolveWorld) *logReader {
			return &logReader{records: []model.Execution{w.rec("log_mine", "success", -5*time.Minute, w.a.ID, resolveArgs)}}
		}, model.ProviderUnknown, time.Minute, model.AttemptSucceeded, "carries request id"},
		{"its own definite failure, complete, settled", func(w *resolveWorld) *logReader {
			r := w.rec("log_mine", "failed", time.Second, w.a.ID, resolveArgs)
			r.Error = &model.ExecError{Kind: model.ErrValidation, Message: "invalid recipient"} // a refusal: nothing was sent
			return &logReader{records: []model.Execution{r}}
		}, model.ProviderNotFound, hour, model.AttemptFailed, "the logs show the request failed"},
		{"its own definite failure a minute after the send: failed at once, not after the settle time", func(w *resolveWorld) *logReader {
			r := w.rec("log_mine", "failed", time.Second, w.a.ID, resolveArgs)
			r.Error = &model.ExecError{HTTPStatus: 404, Message: "channel_not_found"} // the provider refused: not posted
			return &logReader{records: []model.Execution{r}}
		}, model.ProviderNotFound, time.Minute, model.AttemptFailed, "the logs show the request failed"},
		{"its own failure with no error a minute after the send: not proof, waits for the settle time", func(w *resolveWorld) *logReader {
			return &logReader{records: []model.Execution{w.rec("log_mine", "failed", time.Second, w.a.ID, resolveArgs)}}
		}, model.ProviderNotFound, time.Minute, model.AttemptIndeterminate, "resolve again after 2026-03-02 10:15:00Z"},
		{"its own failure with no error: not proof, settled by the complete search", func(w *resolveWorld) *logReader {
			return &logReader{records: []model.Execution{w.rec("log_mine", "failed", time.Second, w.a.ID, resolveArgs)}}
		}, model.ProviderNotFound, hour, model.AttemptFailed, "which does not prove"},
		{"nothing anywhere, complete, settled", func(w *resolveWorld) *logReader {
			return &logReader{records: []model.Execution{w.rec("log_a", "failed", time.Second, "", other)}}
		}, model.ProviderNotFound, hour, model.AttemptFailed, "no log carries its request id"},
		{"nothing anywhere, complete, not settled", func(w *resolveWorld) *logReader {
			return &logReader{}
		}, model.ProviderNotFound, time.Minute, model.AttemptIndeterminate, "resolve again after"},
		{"the provider shows the effect", func(w *resolveWorld) *logReader {
			return &logReader{listErr: errors.New("down")}
		}, model.ProviderFound, time.Minute, model.AttemptSucceeded, "the provider shows the effect"},
		{"the same call succeeded after the attempt, no request id", func(w *resolveWorld) *logReader {
			return &logReader{records: []model.Execution{w.rec("log_same", "success", 2*time.Second, "", resolveArgs)}}
		}, model.ProviderUnknown, time.Minute, model.AttemptSucceeded, "same account and arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newResolveWorld(t, "")
			res := w.resolve(t, tt.reader(w), tt.prov, tt.elapsed)
			all := strings.Join(append(res.Evidence, res.Attempt.Detail, res.Next), "\n")
			if res.Attempt.State != tt.want || !strings.Contains(all, tt.says) {
				t.Errorf("state %s, want %s and %q in:\n%s", res.Attempt.State, tt.want, tt.says, all)
			}
			if got, _ := w.j.Attempt(context.Background(), w.a.ID); got.State != tt.want {
				t.Errorf("the journal holds %s, want %s", got.State, tt.want)
			}
		})
	}
}

// TestResolveTrustsTheAnswersLogOnlyWhenItIsTheAttempts: the log the execute answer named is
// read first, but a log whose detail carries another request id is not the attempt's: its
// success proves nothing about this attempt (a mutant that trusted it survived).
func TestResolveTrustsTheAnswersLogOnlyWhenItIsTheAttempts(t *testing.T) {
	w := newResolveWorld(t, "log_answer")
	logs := &logReader{records: []model.Execution{w.rec("log_answer", "success", time.Second, "another-request-id", `{"x":1}`)}}
	if res := w.resolve(t, logs, model.ProviderUnknown, time.Minute); res.Attempt.State != model.AttemptIndeterminate {
		t.Fatalf("a log of another request settled the attempt %s: %v", res.Attempt.State, res.Evidence)
	}
	w = newResolveWorld(t, "log_answer")
	logs = &logReader{records: []model.Execution{w.rec("log_answer", "success", time.Second, "", `{"x":1}`)}}
	if res := w.resolve(t, logs, model.ProviderUnknown, time.Minute); res.Attempt.State != model.AttemptSucceeded {
		t.Fatalf("the answer's own log (no request id recorded) did not settle it: %s %v", res.Attempt.State, res.Evidence)
	}
}

// TestResolveRefusesAnAttemptInFlight: an attempt still in intent or sent may be sending right
// now: resolve refuses it and changes nothing (a mutant that resolved it sent twice).
func TestResolveRefusesAnAttemptInFlight(t *testing.T) {
	ctx := context.Background()
	for _, st := range []model.AttemptState{model.AttemptIntent, model.AttemptSent} {
		j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
		if err != nil {
			t.Fatal(err)
		}
		sent := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
		a := model.RetryAttempt{ID: retry.NewAttemptID(), ExecutionID: "log_orig", ToolSlug: "GMAIL_SEND_EMAIL", ArgumentHash: "h", State: model.AttemptIntent, Who: "t", CreatedAt: sent}
		if ok, _, err := j.ClaimAttempt(ctx, journal.Claim{Attempt: a, Deadline: sent.Add(time.Hour), Target: "LIVE fake",
			Confirmation: journal.Confirmation{Who: "t", At: sent, Reason: "r"}}); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if st == model.AttemptSent {
			if err := j.UpdateAttempt(ctx, a.ID, model.AttemptSent, "", "", sent); err != nil {
				t.Fatal(err)
			}
		}
		now := sent.Add(2 * time.Hour)
		d := retry.Deps{Journal: j, Logs: &logReader{}, Verifier: provider(model.ProviderNotFound), Target: "LIVE fake", Now: func() time.Time { return now }}
		for _, as := range []model.AttemptState{"", model.AttemptFailed} {
			_, err := retry.Resolve(ctx, d, a.ID, retry.ResolveOptions{As: as, Reason: "sure", Settle: time.Minute})
			if !errors.Is(err, retry.ErrInFlight) {
				t.Errorf("resolve of an attempt in %s (--as %q): %v, want ErrInFlight", st, as, err)
			}
		}
		if got, _ := j.Attempt(ctx, a.ID); got.State != st {
			t.Errorf("the attempt in %s became %s", st, got.State)
		}
		j.Close()
	}
}
