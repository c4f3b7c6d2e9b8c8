package retry_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/triage"
)

// lyingLogs answers every GetLog with the record it holds, whatever id was asked for: a
// caching proxy mixing answers, an id normalisation, a hostile endpoint.
type lyingLogs struct{ liveAs }

func (l lyingLogs) GetLog(context.Context, string) (model.Execution, error) { return l.e, nil }

// TestTheIDConfirmedIsTheIDSent: whatever record comes back on the way to the send, the retry
// sends only the call of the id the person confirmed, or nothing (attack 1 of the round-4
// pass: `retry ID` claimed and sent another execution's call when the API answered with it).
func TestTheIDConfirmedIsTheIDSent(t *testing.T) {
	ctx := context.Background()
	asked, other := failedWrite("log_asked"), failedWrite("log_other")
	other.Arguments = json.RawMessage(`{"recipient_email":"someone-else@example.com","subject":"other","body":"b"}`)
	moved := asked
	moved.Arguments = other.Arguments
	for name, tt := range map[string]struct {
		req     retry.Request
		logs    retry.LogReader
		refused bool // a refusal (the same id, another call), else an error (another id)
	}{
		"the live log is another id's":         {retry.Request{ID: "log_asked", Execution: asked}, lyingLogs{liveAs{e: other}}, false},
		"the record given is another id's":     {retry.Request{ID: "log_asked", Execution: other}, liveAs{e: other}, false},
		"the live log's call is not the seen":  {retry.Request{ID: "log_asked", Execution: asked}, liveAs{e: moved}, true},
		"the live log's tool is not the seen":  {retry.Request{ID: "log_asked", Execution: asked}, liveAs{e: withTool(asked, "SLACK_SEND_MESSAGE")}, true},
		"the live log is of no id at all":      {retry.Request{ID: "log_asked", Execution: asked}, lyingLogs{liveAs{e: model.Execution{ToolSlug: asked.ToolSlug}}}, false},
		"an empty id and an empty record":      {retry.Request{}, liveAs{e: asked}, false},
		"the id typed, the record of its copy": {retry.Request{ID: "LOG_ASKED", Execution: asked}, liveAs{e: asked}, false},
	} {
		t.Run(name, func(t *testing.T) {
			j := openJournal(t)
			s := &countingSender{}
			d := fakeDeps(j, s)
			d.Logs = tt.logs
			tt.req.Confirmed, tt.req.Reason = true, "the customer saw nothing"
			res, err := retry.Run(ctx, d, tt.req)
			if res.Sent || s.count() != 0 {
				t.Fatalf("%d sends, %+v, %v", s.count(), res.Decision, err)
			}
			switch {
			case tt.refused && (err != nil || res.Decision.Code != triage.RefusedNotAsSeen):
				t.Fatalf("want a refusal naming the call the person did not see, got %+v %v", res.Decision, err)
			case !tt.refused && err == nil:
				t.Fatalf("want an error, got %+v", res.Decision)
			case !tt.refused && tt.req.ID != "" && !errors.Is(err, retry.ErrOtherRecord):
				t.Fatalf("the error does not say the record is another's: %v", err)
			}
			if as, _ := j.Attempts(ctx, ""); len(as) != 0 {
				t.Fatalf("claimed %d attempts for a record of another id", len(as))
			}
		})
	}
	t.Run("the same id and call goes", func(t *testing.T) { // the check can pass
		j := openJournal(t)
		s := &countingSender{}
		d := fakeDeps(j, s)
		d.Logs = liveAs{e: asked}
		res, err := retry.Run(ctx, d, retry.Request{ID: "log_asked", Execution: asked, Confirmed: true, Reason: "r"})
		if err != nil || s.count() != 1 || res.Attempt == nil || res.Attempt.ExecutionID != "log_asked" {
			t.Fatalf("the confirmed call was not sent once: %d sends, %+v, %v", s.count(), res, err)
		}
	})
}

func withTool(e model.Execution, slug string) model.Execution {
	e.ToolSlug = slug
	return e
}

// TestTheRealClientRefusesAnotherIDsRecord: the client itself refuses a GET /logs/{ID} answer
// that carries another id, so no caller can act on it; a retry through it sends nothing.
func TestTheRealClientRefusesAnotherIDsRecord(t *testing.T) {
	var posts atomic.Int32
	other := `{"id":"log_other","tool_slug":"GMAIL_SEND_EMAIL","status":"failed","connected_account_id":"ca_1","user_id":"u1",
		"created_at":1764600000000,"request":{"arguments":{"recipient_email":"x@y.z"}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/tools/execute/"):
			posts.Add(1)
			_, _ = w.Write([]byte(`{"data":{},"error":null,"successful":true,"log_id":"log_new"}`))
		case strings.Contains(r.URL.Path, "/logs/tool_execution/"):
			_, _ = w.Write([]byte(other))
		default:
			_, _ = w.Write([]byte(`{"items":[],"next_cursor":null}`))
		}
	}))
	defer srv.Close()
	c, err := client.New(client.WithAPIKey("k"), client.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.GetLog(ctx, "log_asked"); !errors.Is(err, client.ErrOtherRecord) || !strings.Contains(err.Error(), "log_other") {
		t.Fatalf("GetLog of log_asked answered with log_other: %v", err)
	}
	j := openJournal(t)
	d := fakeDeps(j, c.WithoutRetries())
	d.Logs = c
	res, err := retry.Run(ctx, d, retry.Request{ID: "log_asked", Execution: failedWrite("log_asked"), Confirmed: true, Reason: "r"})
	if !errors.Is(err, retry.ErrOtherRecord) || posts.Load() != 0 || res.Sent {
		t.Fatalf("%d POSTs, %v", posts.Load(), err)
	}
}

// alteredJournal is a journal whose reads of attempts answer otherwise than what was claimed.
type alteredJournal struct {
	journal.Journal
	attempt  func(model.RetryAttempt) model.RetryAttempt // applied to Attempt's answer
	attempts func([]model.RetryAttempt) []model.RetryAttempt
}

func (a alteredJournal) Attempt(ctx context.Context, id string) (model.RetryAttempt, error) {
	x, err := a.Journal.Attempt(ctx, id)
	if err == nil && a.attempt != nil {
		x = a.attempt(x)
	}
	return x, err
}

func (a alteredJournal) Attempts(ctx context.Context, executionID string) ([]model.RetryAttempt, error) {
	xs, err := a.Journal.Attempts(ctx, executionID)
	if err == nil && a.attempts != nil && executionID != "" {
		xs = a.attempts(xs)
	}
	return xs, err
}

// TestTheJournalsAttemptIsCheckedBeforeTheSend: the attempt read back after the claim and
// before the send must be the one claimed, of the confirmed execution and call, and the only
// one holding it; otherwise nothing is sent and the attempt is recorded as never sent.
func TestTheJournalsAttemptIsCheckedBeforeTheSend(t *testing.T) {
	ctx := context.Background()
	for name, j := range map[string]func(journal.Journal) journal.Journal{
		"the attempt names another execution": func(j journal.Journal) journal.Journal {
			return alteredJournal{Journal: j, attempt: func(a model.RetryAttempt) model.RetryAttempt { a.ExecutionID = "log_other"; return a }}
		},
		"the attempt names another call": func(j journal.Journal) journal.Journal {
			return alteredJournal{Journal: j, attempt: func(a model.RetryAttempt) model.RetryAttempt { a.ArgumentHash = "x"; return a }}
		},
		"another attempt holds the execution too": func(j journal.Journal) journal.Journal {
			return alteredJournal{Journal: j, attempts: func(as []model.RetryAttempt) []model.RetryAttempt {
				if len(as) == 0 {
					return as
				}
				o := as[0]
				o.ID, o.State = "other-attempt", model.AttemptSent
				return append(as, o)
			}}
		},
		"the claim is not read back": func(j journal.Journal) journal.Journal {
			return alteredJournal{Journal: j, attempts: func(as []model.RetryAttempt) []model.RetryAttempt { return nil }}
		},
	} {
		t.Run(name, func(t *testing.T) {
			real := openJournal(t)
			s := &countingSender{}
			d := fakeDeps(j(real), s)
			res, err := runLive(ctx, d, retry.Request{ID: "log_x", Execution: failedWrite("log_x"), Confirmed: true, Reason: "r"})
			if err == nil || s.count() != 0 || res.Sent {
				t.Fatalf("%d sends, %v", s.count(), err)
			}
			as, _ := real.Attempts(ctx, "log_x")
			if len(as) != 1 || as[0].State != model.AttemptFailed || !strings.Contains(as[0].Detail, "nothing was sent") {
				t.Fatalf("the attempt is not recorded as never sent: %+v", as)
			}
		})
	}
}

// TestRacersOnAJournalWithoutItsIndexSendAtMostOnce: 8 racers retry one execution on a journal
// whose one-claim index was dropped (a restore that skipped post-data): on the code before
// this round they sent 6, 4 and 1 times on SQLite, 1, 2, 1 on PostgreSQL. The claim refuses
// without the index, and a send needs a claim.
func TestRacersOnAJournalWithoutItsIndexSendAtMostOnce(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "j.db") },
		"postgres": func(t *testing.T) string { return testkit.PostgresOrSkip(t, "r_") },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			where := dsn(t)
			j, err := journal.Open(ctx, where)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			driver := "sqlite"
			if journal.IsPostgres(where) {
				driver = "pgx"
			}
			db, err := sql.Open(driver, where)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, `DROP INDEX attempts_one_claim`); err != nil {
				t.Fatal(err)
			}
			s := &countingSender{}
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() {
					_, err := runLive(ctx, fakeDeps(j, s), retry.Request{ID: "log_race", Execution: failedWrite("log_race"), Confirmed: true, Reason: "r"})
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			if s.count() != 0 {
				t.Fatalf("%d sends from 8 racers on a journal without its index", s.count())
			}
			for err := range errs {
				if !errors.Is(err, journal.ErrUnguarded) {
					t.Fatalf("a racer's error does not say the guarantee is missing: %v", err)
				}
			}
		})
	}
}
