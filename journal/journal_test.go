package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
)

// backend is one journal implementation under test: fresh returns the DSN of a new, empty
// journal that every Open of it shares.
type backend struct {
	name  string
	fresh func(t *testing.T) string
}

func backends(*testing.T) []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "state", "journal.db") }},
		{"postgres", func(t *testing.T) string { return testkit.PostgresOrSkip(t, "t_") }},
	}
}

func openT(t *testing.T, dsn string, opts ...Option) Journal {
	t.Helper()
	j, err := Open(context.Background(), dsn, opts...)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

var t0 = time.Date(2026, 3, 4, 14, 2, 11, 0, time.UTC)

func attempt(exec string, at time.Time) model.RetryAttempt {
	return model.RetryAttempt{ID: uuid.NewString(), ExecutionID: exec, ToolSlug: "GMAIL_SEND_EMAIL",
		ArgumentHash: "abc", Who: "ana@host", CreatedAt: at}
}

func claim(exec string, at time.Time) Claim {
	a := attempt(exec, at)
	return Claim{Attempt: a, Deadline: at.Add(10 * time.Minute), Target: "LIVE 127.0.0.1:1", Confirmation: Confirmation{
		Who: a.Who, At: at, Reason: "customer says no email arrived",
		Outcome: model.OutcomeAmbiguous, OutcomeReason: "timeout after 60s",
		Provider: model.ProviderState{State: model.ProviderNotFound, Verifier: "gmail_sent", Reason: "no sent message matches"},
	}}
}

func mustClaim(t *testing.T, j Journal, c Claim) {
	t.Helper()
	ok, existing, err := j.ClaimAttempt(context.Background(), c)
	if err != nil || !ok {
		t.Fatalf("claim %s: ok=%v existing=%v err=%v", c.Attempt.ExecutionID, ok, existing, err)
	}
}

func TestClaimAllowsOneOpenOrSucceededAttemptPerExecution(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			j := openT(t, b.fresh(t))
			first := claim("log_A", t0)
			mustClaim(t, j, first)

			for _, st := range []struct {
				move  model.AttemptState
				again bool // may another attempt claim log_A after the first moved to st?
			}{
				{"", false}, // still intent
				{model.AttemptSent, false},
				{model.AttemptIndeterminate, false},
				{model.AttemptFailed, true},
			} {
				if st.move != "" {
					if err := j.UpdateAttempt(ctx, first.Attempt.ID, st.move, "", "", t0.Add(time.Second)); err != nil {
						t.Fatal(err)
					}
				}
				second := claim("log_A", t0.Add(2*time.Second))
				ok, existing, err := j.ClaimAttempt(ctx, second)
				if err != nil {
					t.Fatal(err)
				}
				if ok != st.again {
					t.Fatalf("first attempt %q: second claim ok=%v, want %v", st.move, ok, st.again)
				}
				if !ok && (existing == nil || existing.ID != first.Attempt.ID) {
					t.Fatalf("refused claim names holder %+v, want %s", existing, first.Attempt.ID)
				}
				if ok {
					// The new attempt succeeds: from now on nothing may claim log_A.
					id := second.Attempt.ID
					_ = j.UpdateAttempt(ctx, id, model.AttemptSent, "", "", t0.Add(3*time.Second))
					if err := j.UpdateAttempt(ctx, id, model.AttemptSucceeded, "log_NEW", "", t0.Add(4*time.Second)); err != nil {
						t.Fatal(err)
					}
					ok, existing, err := j.ClaimAttempt(ctx, claim("log_A", t0.Add(5*time.Second)))
					if err != nil || ok || existing == nil || existing.ID != id || existing.State != model.AttemptSucceeded {
						t.Fatalf("claim after success: ok=%v existing=%+v err=%v", ok, existing, err)
					}
				}
			}
			// Another execution is independent.
			mustClaim(t, j, claim("log_B", t0))
		})
	}
}

func TestClaimWritesConfirmationOnlyWithTheAttempt(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			j := openT(t, b.fresh(t))
			c := claim("log_A", t0)
			mustClaim(t, j, c)
			lost := claim("log_A", t0.Add(time.Second))
			lost.Confirmation.Reason = "second engineer"
			if ok, _, err := j.ClaimAttempt(ctx, lost); ok || err != nil {
				t.Fatalf("second claim: ok=%v err=%v", ok, err)
			}
			// An invalid confirmation aborts the whole claim: no attempt without its confirmation.
			bad := claim("log_C", t0)
			bad.Confirmation.Reason = "  "
			if ok, _, err := j.ClaimAttempt(ctx, bad); ok || !errors.Is(err, ErrInvalidRecord) {
				t.Fatalf("claim with empty reason: ok=%v err=%v", ok, err)
			}
			if as, _ := j.Attempts(ctx, "log_C"); len(as) != 0 {
				t.Fatalf("refused claim left attempts %+v", as)
			}
			cs, err := j.Confirmations(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 1 {
				t.Fatalf("confirmations = %+v, want only the winning claim's", cs)
			}
			got := cs[0]
			if got.AttemptID != c.Attempt.ID || got.ExecutionID != "log_A" || got.Reason != c.Confirmation.Reason ||
				got.Outcome != model.OutcomeAmbiguous || got.OutcomeReason != "timeout after 60s" ||
				got.Provider.State != model.ProviderNotFound || got.Provider.Verifier != "gmail_sent" || !got.At.Equal(t0) {
				t.Fatalf("confirmation round trip: %+v", got)
			}
		})
	}
}

func TestUpdateAttemptOnlyMovesForward(t *testing.T) {
	path := map[model.AttemptState][]model.AttemptState{ // how to reach each state from intent
		model.AttemptIntent:        nil,
		model.AttemptSent:          {model.AttemptSent},
		model.AttemptIndeterminate: {model.AttemptSent, model.AttemptIndeterminate},
		model.AttemptSucceeded:     {model.AttemptSent, model.AttemptSucceeded},
		model.AttemptFailed:        {model.AttemptFailed},
	}
	all := []model.AttemptState{model.AttemptIntent, model.AttemptSent, model.AttemptIndeterminate, model.AttemptSucceeded, model.AttemptFailed}
	want := map[[2]model.AttemptState]bool{
		{model.AttemptIntent, model.AttemptSent}:             true,
		{model.AttemptIntent, model.AttemptFailed}:           true,
		{model.AttemptIntent, model.AttemptIndeterminate}:    true,
		{model.AttemptSent, model.AttemptSucceeded}:          true,
		{model.AttemptSent, model.AttemptFailed}:             true,
		{model.AttemptSent, model.AttemptIndeterminate}:      true,
		{model.AttemptIndeterminate, model.AttemptSucceeded}: true,
		{model.AttemptIndeterminate, model.AttemptFailed}:    true,
	}
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			j := openT(t, b.fresh(t))
			for _, from := range all {
				for _, to := range all {
					exec := fmt.Sprintf("log_%s_%s", from, to)
					c := claim(exec, t0)
					mustClaim(t, j, c)
					for _, s := range path[from] {
						if err := j.UpdateAttempt(ctx, c.Attempt.ID, s, "", "", t0.Add(time.Second)); err != nil {
							t.Fatalf("reach %s: %v", from, err)
						}
					}
					err := j.UpdateAttempt(ctx, c.Attempt.ID, to, "log_new", "why", t0.Add(2*time.Second))
					ok := want[[2]model.AttemptState{from, to}]
					if ok != CanTransition(from, to) {
						t.Fatalf("CanTransition(%s, %s) = %v, want %v", from, to, !ok, ok)
					}
					got, gerr := j.Attempt(ctx, c.Attempt.ID)
					if gerr != nil {
						t.Fatal(gerr)
					}
					switch {
					case ok && err != nil:
						t.Errorf("%s -> %s: %v", from, to, err)
					case ok && (got.State != to || got.Detail != "why" || got.NewLogID != "log_new"):
						t.Errorf("%s -> %s: stored %+v", from, to, got)
					case !ok && !errors.Is(err, ErrTransition):
						t.Errorf("%s -> %s: err = %v, want ErrTransition", from, to, err)
					case !ok && got.State != from:
						t.Errorf("%s -> %s refused but state is now %s", from, to, got.State)
					}
				}
			}
			if err := j.UpdateAttempt(ctx, "no-such-attempt", model.AttemptFailed, "", "", t0); !errors.Is(err, ErrNotFound) {
				t.Fatalf("update of unknown attempt: %v", err)
			}
		})
	}
}

func TestAttemptTimesRoundTrip(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			j := openT(t, b.fresh(t))
			c := claim("log_A", t0.Add(123456789))
			mustClaim(t, j, c)
			sent, done := t0.Add(2*time.Second+7), t0.Add(9*time.Second+11)
			if err := j.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSent, "", "sending", sent); err != nil {
				t.Fatal(err)
			}
			if err := j.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSucceeded, "log_new", "", done); err != nil {
				t.Fatal(err)
			}
			as, err := j.Attempts(ctx, "log_A")
			if err != nil || len(as) != 1 {
				t.Fatalf("attempts %+v %v", as, err)
			}
			a := as[0]
			wantCreated, wantSent, wantDone, wantDeadline := c.Attempt.CreatedAt, sent, done, c.Deadline
			if b.name == "postgres" { // a shared journal's times are its server's (clock.go), to the microsecond
				near := func(x time.Time) bool { return time.Since(x).Abs() < time.Minute && x.Nanosecond()%1000 == 0 }
				if !near(a.CreatedAt) || !near(a.SentAt) || !near(a.FinishedAt) || a.SentAt.Before(a.CreatedAt) || a.FinishedAt.Before(a.SentAt) {
					t.Fatalf("the server's times: %+v", a)
				}
				wantCreated, wantSent, wantDone = a.CreatedAt, a.SentAt, a.FinishedAt
				wantDeadline = a.CreatedAt.Add(c.Deadline.Sub(c.Attempt.CreatedAt))
			}
			if !a.CreatedAt.Equal(wantCreated) || !a.SentAt.Equal(wantSent) || !a.FinishedAt.Equal(wantDone) ||
				a.NewLogID != "log_new" || a.ToolSlug != "GMAIL_SEND_EMAIL" || a.ArgumentHash != "abc" || a.Who != "ana@host" {
				t.Fatalf("round trip: %+v", a)
			}
			l, err := j.Lease(ctx, a.ID)
			if err != nil || l.Owner != CurrentOwner() || !l.Deadline.Equal(wantDeadline) || l.Target != c.Target {
				t.Fatalf("lease %+v %v, want owner %+v deadline %v", l, err, CurrentOwner(), wantDeadline)
			}
		})
	}
}

func TestListsAreNewestFirstAndFiltered(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			j := openT(t, b.fresh(t))
			for i, exec := range []string{"log_A", "log_B", "log_A"} {
				at := t0.Add(time.Duration(i) * time.Minute)
				if err := j.Mark(ctx, VerdictRecord{ExecutionID: exec, Verdict: model.VerdictDuplicate, Note: fmt.Sprint(i), Who: "ana", At: at}); err != nil {
					t.Fatal(err)
				}
				if err := j.Confirm(ctx, Confirmation{ExecutionID: exec, Who: "ana", At: at, Reason: fmt.Sprint(i)}); err != nil {
					t.Fatal(err)
				}
			}
			vs, err := j.Verdicts(ctx, "log_A")
			if err != nil || len(vs) != 2 || vs[0].Note != "2" || vs[1].Note != "0" {
				t.Fatalf("verdicts of log_A: %+v %v", vs, err)
			}
			cs, err := j.Confirmations(ctx, "")
			if err != nil || len(cs) != 3 || cs[0].Reason != "2" || cs[2].Reason != "0" {
				t.Fatalf("all confirmations: %+v %v", cs, err)
			}
			if cs[0].Provider.State != model.ProviderUnknown {
				t.Fatalf("confirmation without provider evidence stored as %q, want unknown", cs[0].Provider.State)
			}
			mustClaim(t, j, claim("log_A", t0))
			mustClaim(t, j, claim("log_B", t0.Add(time.Minute)))
			as, err := j.Attempts(ctx, "")
			if err != nil || len(as) != 2 || as[0].ExecutionID != "log_B" {
				t.Fatalf("attempts newest first: %+v %v", as, err)
			}
		})
	}
}

func TestInvalidRecordsAreRefused(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			j := openT(t, b.fresh(t))
			noID := claim("log_A", t0)
			noID.Attempt.ID = ""
			badState := claim("log_A", t0)
			badState.Attempt.State = model.AttemptSent
			early := claim("log_A", t0)
			early.Deadline = t0.Add(-time.Second)
			for name, c := range map[string]Claim{"no id": noID, "not intent": badState, "deadline before creation": early} {
				if ok, _, err := j.ClaimAttempt(ctx, c); ok || !errors.Is(err, ErrInvalidRecord) {
					t.Errorf("%s: ok=%v err=%v", name, ok, err)
				}
			}
			if err := j.Mark(ctx, VerdictRecord{ExecutionID: "log_A", Verdict: "maybe", Who: "ana", At: t0}); !errors.Is(err, ErrInvalidRecord) {
				t.Errorf("unknown verdict: %v", err)
			}
			if err := j.Confirm(ctx, Confirmation{ExecutionID: "log_A", Who: "ana", At: t0}); !errors.Is(err, ErrInvalidRecord) {
				t.Errorf("confirmation without reason: %v", err)
			}
			if err := j.UpdateAttempt(ctx, "x", "done", "", "", t0); !errors.Is(err, ErrTransition) {
				t.Errorf("unknown state: %v", err)
			}
			if as, _ := j.Attempts(ctx, ""); len(as) != 0 {
				t.Errorf("refused records left attempts: %+v", as)
			}
		})
	}
}

// Many handles on one journal (separate connections, as separate processes have) claim the
// same execution at once: the database lets exactly one through.
func TestConcurrentClaimsHaveOneWinner(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.fresh(t)
			openT(t, dsn) // create the schema first, as the first window would
			const n = 8
			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				winners []string
				errs    []error
			)
			start := make(chan struct{})
			for range n {
				wg.Go(func() {
					j, err := Open(context.Background(), dsn)
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					defer j.Close()
					<-start
					c := claim("log_RACE", time.Now())
					ok, existing, err := j.ClaimAttempt(context.Background(), c)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						errs = append(errs, err)
					case ok:
						winners = append(winners, c.Attempt.ID)
					case existing == nil:
						errs = append(errs, errors.New("refused without naming the holder"))
					}
				})
			}
			close(start)
			wg.Wait()
			if len(errs) > 0 || len(winners) != 1 {
				t.Fatalf("winners=%v errs=%v", winners, errs)
			}
			j := openT(t, dsn)
			as, _ := j.Attempts(context.Background(), "log_RACE")
			cs, _ := j.Confirmations(context.Background(), "log_RACE")
			if len(as) != 1 || as[0].ID != winners[0] || len(cs) != 1 || cs[0].AttemptID != winners[0] {
				t.Fatalf("journal after race: attempts %+v confirmations %+v", as, cs)
			}
		})
	}
}

func TestRecoverOpenOnlyTakesAbandonedAttempts(t *testing.T) {
	host, _ := os.Hostname()
	me := CurrentOwner()
	dead := Owner{Host: host, PID: me.PID, Start: me.Start[:strings.LastIndexByte(me.Start, '|')+1] + "1"} // the pid was reused
	elsewhere := Owner{Host: "other-host", PID: 42, Start: "x"}
	now := t0.Add(time.Hour)
	cases := []struct {
		name     string
		owner    Owner
		deadline time.Time
		state    model.AttemptState // state before recovery
		want     model.AttemptState
	}{
		{"intent of a dead process", dead, now.Add(time.Hour), model.AttemptIntent, model.AttemptIndeterminate},
		{"sent by a dead process", dead, now.Add(time.Hour), model.AttemptSent, model.AttemptIndeterminate},
		{"sent by this live process", me, now.Add(time.Hour), model.AttemptSent, model.AttemptSent},
		{"intent of this live process", me, now.Add(time.Hour), model.AttemptIntent, model.AttemptIntent},
		{"sent on another host, within its deadline", elsewhere, now.Add(time.Minute), model.AttemptSent, model.AttemptSent},
		{"sent on another host, past its deadline", elsewhere, now.Add(-time.Minute), model.AttemptSent, model.AttemptIndeterminate},
		// Its process runs, so its send may be in flight whatever a clock says (this host's
		// clock may have jumped): it is never taken from a live process.
		{"live process past its deadline", me, now.Add(-time.Minute), model.AttemptSent, model.AttemptSent},
		{"failed stays failed", dead, now.Add(-time.Minute), model.AttemptFailed, model.AttemptFailed},
		{"succeeded stays succeeded", dead, now.Add(-time.Minute), model.AttemptSucceeded, model.AttemptSucceeded},
	}
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			ids := make([]string, len(cases))
			wantN := 0
			for i, tc := range cases {
				j := openT(t, dsn, WithOwner(tc.owner))
				c := claim(fmt.Sprintf("log_%d", i), t0)
				c.Deadline = tc.deadline
				mustClaim(t, j, c)
				ids[i] = c.Attempt.ID
				if b.name == "postgres" { // the server's clock decides: its deadline is as far from the server's now
					if _, err := j.(*store).db.ExecContext(ctx, `UPDATE attempts SET deadline = (extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1000 + $1 WHERE id = $2`,
						tc.deadline.Sub(now).Nanoseconds(), c.Attempt.ID); err != nil {
						t.Fatal(err)
					}
				}
				steps := map[model.AttemptState][]model.AttemptState{
					model.AttemptSent: {model.AttemptSent}, model.AttemptFailed: {model.AttemptFailed},
					model.AttemptSucceeded: {model.AttemptSent, model.AttemptSucceeded},
				}[tc.state]
				for _, s := range steps {
					if err := j.UpdateAttempt(ctx, c.Attempt.ID, s, "", "", t0.Add(time.Second)); err != nil {
						t.Fatal(err)
					}
				}
				if tc.want != tc.state {
					wantN++
				}
			}
			clock := WithClock(func() time.Time { return now })
			if b.name == "postgres" {
				clock = WithClock(time.Now)
			}
			j := openT(t, dsn, clock)
			n, err := j.RecoverOpen(ctx)
			if err != nil || n != wantN {
				t.Fatalf("RecoverOpen = %d, %v; want %d", n, err, wantN)
			}
			for i, tc := range cases {
				a, err := j.Attempt(ctx, ids[i])
				if err != nil {
					t.Fatal(err)
				}
				if a.State != tc.want {
					t.Errorf("%s: state %s, want %s", tc.name, a.State, tc.want)
				}
				if tc.want == model.AttemptIndeterminate && !strings.Contains(a.Detail, "exectriage resolve "+a.ID) {
					t.Errorf("%s: detail %q does not say how to resolve", tc.name, a.Detail)
				}
			}
			if n, err := j.RecoverOpen(ctx); n != 0 || err != nil {
				t.Fatalf("second RecoverOpen = %d, %v", n, err)
			}
		})
	}
}

func TestSchemaVersioning(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			j := openT(t, dsn)
			mustClaim(t, j, claim("log_A", t0))
			s := j.(*store)
			var v int
			if err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion() {
				t.Fatalf("schema version %d (%v), want %d", v, err, SchemaVersion())
			}
			// Reopening keeps the data and does not re-run migrations.
			j2 := openT(t, dsn)
			if as, err := j2.Attempts(ctx, "log_A"); err != nil || len(as) != 1 {
				t.Fatalf("after reopen: %+v %v", as, err)
			}
			// A journal written by a newer exectriage is refused, not misread.
			if _, err := s.db.ExecContext(ctx, s.q(`UPDATE schema_version SET version = ?`), SchemaVersion()+1); err != nil {
				t.Fatal(err)
			}
			_, err := Open(ctx, dsn)
			if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "upgrade exectriage") {
				t.Fatalf("open of a newer schema: %v", err)
			}
		})
	}
}

func TestSQLiteDurabilitySettingsAreReadBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "journal.db")
	j := openT(t, path)
	s := j.(*store)
	var mode string
	var sync, busy int
	ctx := context.Background()
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q %v", mode, err)
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil || sync != 2 {
		t.Fatalf("synchronous %d %v", sync, err)
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy); err != nil || busy != int(busyTimeout.Milliseconds()) {
		t.Fatalf("busy_timeout %d %v", busy, err)
	}
	for _, p := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "a", "b")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want mode 0700", p, fi.Mode(), err)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal file mode %v %v, want 0600", fi.Mode(), err)
	}
	// The durability check refuses a connection that lost synchronous=FULL.
	if _, err := s.db.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		t.Fatal(err)
	}
	if err := s.checkSQLite(ctx); !errors.Is(err, ErrNotDurable) {
		t.Fatalf("checkSQLite with synchronous=NORMAL: %v", err)
	}
}

func TestOpenRefusesPathsItCannotMakeDurable(t *testing.T) {
	for _, p := range []string{":memory:", "file:x.db?mode=memory", filepath.Join(t.TempDir(), "j.db?cache=shared")} {
		if j, err := Open(context.Background(), p); err == nil {
			j.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

func TestDefaultPathFollowsXDG(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/exectriage/journal.db"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/exectriage/journal.db"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/h"}, "/h/.local/state/exectriage/journal.db"},
	}
	for _, tc := range cases {
		got, err := DefaultPath(env(tc.env))
		if err != nil || got != tc.want {
			t.Errorf("DefaultPath(%v) = %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
	host, _ := os.Hostname()
	if got := Who(env(map[string]string{"USER": "ana"})); got != "ana@"+host {
		t.Errorf("Who = %q", got)
	}
	if got := Who(env(map[string]string{"USER": "ana", "EXECTRIAGE_WHO": "Ana (support)"})); got != "Ana (support)" {
		t.Errorf("Who with EXECTRIAGE_WHO = %q", got)
	}
}

func TestAliveTellsLiveFromGoneProcesses(t *testing.T) {
	me := CurrentOwner()
	if alive, known := Alive(me); !alive || !known {
		t.Fatalf("this process: alive=%v known=%v", alive, known)
	}
	cmd := exec.Command("sleep", "0")
	if err := cmd.Run(); err != nil {
		t.Skip("no sleep binary:", err)
	}
	gone := Owner{Host: me.Host, PID: cmd.Process.Pid, Start: me.Start}
	if alive, known := Alive(gone); alive || !known {
		t.Fatalf("finished child: alive=%v known=%v", alive, known)
	}
	reused := Owner{Host: me.Host, PID: me.PID, Start: me.Start[:strings.LastIndexByte(me.Start, '|')+1] + "1"}
	if alive, known := Alive(reused); alive || !known {
		t.Fatalf("reused pid: alive=%v known=%v", alive, known)
	}
	// Two containers with the same host name: a pid of another PID namespace (or boot), or an
	// owner recorded without its namespace, is never proven gone here, even when no process of
	// this namespace has that pid.
	boot, _ := namespace("self")
	for _, start := range []string{boot + "|pid:[1]|" + "123", "otherboot|" + strings.Split(me.Start, "|")[1] + "|123", boot + ":123", ""} {
		if alive, known := Alive(Owner{Host: me.Host, PID: cmd.Process.Pid, Start: start}); alive || known {
			t.Errorf("owner %q: alive=%v known=%v, want unknown", start, alive, known)
		}
	}
	if _, known := Alive(Owner{Host: "elsewhere", PID: me.PID}); known {
		t.Fatal("another host's process cannot be known from here")
	}
}

func TestRedactDSNHidesPassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db?sslmode=disable": "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgresql://h/db?password=secret":             "postgresql://h/db?password=xxxxx",
		"postgres://u@h/db":                             "postgres://u@h/db",
	} {
		if got := redactDSN(in); got != want || strings.Contains(got, "secret") {
			t.Errorf("redactDSN(%q) = %q, want %q", in, got, want)
		}
	}
	if !IsPostgres("PostgreSQL://x") || IsPostgres("/tmp/postgres://x") {
		t.Error("IsPostgres")
	}
}

// A write transaction takes the write lock when it begins (BEGIN IMMEDIATE), so it never
// fails halfway for want of the lock: while one is open, another writer cannot begin.
func TestSQLiteWriteTransactionsBeginImmediate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	s := openT(t, path).(*store)
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil) // as store.write begins them
	if err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err == nil {
		t.Fatal("another writer began while a journal write transaction was open: it was not begun IMMEDIATE")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatalf("after the journal's transaction ended: %v", err)
	}
	_, _ = conn.ExecContext(ctx, `ROLLBACK`)
}

// A journal location is a PostgreSQL URL, a keyword DSN, or a plain path; anything else is
// refused (never a SQLite file named after it), and no message shows a password.
func TestJournalLocations(t *testing.T) {
	for _, tt := range []struct {
		dsn      string
		postgres bool
		bad      bool
	}{
		{"postgres://u:pw@localhost/db", true, false},
		{"postgresql://u@localhost/db?sslmode=disable", true, false},
		{"host=localhost port=5432 dbname=x user=u password=s3cret", true, false},
		{"dbname=x sslmode=disable", true, false},
		{"/var/lib/exectriage/journal.db", false, false},
		{"journal.db", false, false},
		{"postgre://u:s3cret@localhost/db", false, true},
		{"postgres:u:s3cret@localhost/db", false, true},
		{"sqlite:///tmp/j.db", false, true},
		{"hots=localhost passwrd=s3cret", false, true},
		{"a=b", false, true},
	} {
		if got := IsPostgres(tt.dsn); got != tt.postgres {
			t.Errorf("IsPostgres(%q) = %v", tt.dsn, got)
		}
		if tt.postgres {
			continue
		}
		err := checkPath(tt.dsn)
		if (err != nil) != tt.bad {
			t.Errorf("checkPath(%q) = %v, want error %v", tt.dsn, err, tt.bad)
		}
		if err != nil && (!errors.Is(err, ErrBadLocation) || strings.Contains(err.Error(), "s3cret")) {
			t.Errorf("checkPath(%q): %v", tt.dsn, err)
		}
	}
	for _, dsn := range []string{"host=localhost password=s3cret dbname=x", "host=h password='s 3cret' dbname=x", "postgres://u:s3cret@h/db", "postgres://u@h/db?password=s3cret"} {
		if r := redactDSN(dsn); strings.Contains(r, "s3cret") || strings.Contains(r, "3cret") {
			t.Errorf("redactDSN(%q) = %q", dsn, r)
		}
		if s := scrubPassword("failed to connect to "+dsn, dsn); strings.Contains(s, "3cret") {
			t.Errorf("scrubPassword(%q) = %q", dsn, s)
		}
	}
}

// A journal file others can read or write is narrowed to 0600; a directory others can write
// to (not sticky) is refused.
func TestJournalPermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.db")
	if err := os.WriteFile(path, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o666)
	j, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v, want 0600", st.Mode().Perm())
	}
	open := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if _, err := Open(context.Background(), filepath.Join(open, "j.db")); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("world-writable directory: %v", err)
	}
	sticky := filepath.Join(t.TempDir(), "sticky")
	os.Mkdir(sticky, 0o777)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	j, err = Open(context.Background(), filepath.Join(sticky, "j.db"))
	if err != nil {
		t.Errorf("sticky directory refused: %v", err)
	} else {
		j.Close()
	}
}

// A SQLite journal deleted while in use is noticed: no claim or update is written to the
// unlinked file.
func TestDeletedJournalIsNoticed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	j := openT(t, path)
	c := claim("log_del", t0)
	mustClaim(t, j, c)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := j.UpdateAttempt(context.Background(), c.Attempt.ID, model.AttemptSent, "", "", t0); err == nil || !strings.Contains(err.Error(), "deleted or replaced") {
		t.Errorf("update after delete: %v", err)
	}
	if ok, _, err := j.ClaimAttempt(context.Background(), claim("log_del2", t0)); ok || err == nil {
		t.Errorf("claim after delete: %v %v", ok, err)
	}
}

// The PostgreSQL journal reads synchronous_commit back and refuses a server (or a DSN) that
// turned it off, as the SQLite journal refuses synchronous below FULL.
func TestPostgresSynchronousCommitIsReadBack(t *testing.T) {
	dsn := testkit.PostgresOrSkip(t, "sc_")
	off := dsn + "&options=-c%20synchronous_commit%3Doff"
	if _, err := Open(context.Background(), off); !errors.Is(err, ErrNotDurable) {
		t.Fatalf("synchronous_commit=off: err = %v, want ErrNotDurable", err)
	}
	openT(t, dsn)
}

// TestVersion1JournalGainsSources: a journal written before records named their source
// (schema 1) is upgraded in place: its records stay, with no source, and new confirmations
// and verdicts carry theirs ("DEMO", "LIVE host"), so a demo verdict is never taken for one
// made against the real API.
func TestVersion1JournalGainsSources(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			driver, conn := "pgx", dsn
			if b.name == "sqlite" {
				if err := os.MkdirAll(filepath.Dir(dsn), 0o700); err != nil {
					t.Fatal(err)
				}
				driver = "sqlite"
			}
			raw, err := sql.Open(driver, conn)
			if err != nil {
				t.Fatal(err)
			}
			stmts := append([]string{`CREATE TABLE schema_version (version BIGINT NOT NULL)`, `INSERT INTO schema_version (version) VALUES (1)`}, migrations[0]...)
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO verdicts (id, execution_id, verdict, note, who, at) VALUES ('v-old', 'log_old', 'duplicate', '', 'ana@host', %d)`, t0.UnixNano()))
			for _, s := range stmts {
				if _, err := raw.ExecContext(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			raw.Close()

			j := openT(t, dsn)
			old, err := j.Verdicts(ctx, "log_old")
			if err != nil || len(old) != 1 || old[0].Source != "" {
				t.Fatalf("the schema-1 verdict after the upgrade: %+v %v", old, err)
			}
			if err := j.Mark(ctx, VerdictRecord{ExecutionID: "log_new", Verdict: model.VerdictIgnored, Who: "ana@host", At: t0, Source: "DEMO"}); err != nil {
				t.Fatal(err)
			}
			c := claim("log_new", t0)
			c.Confirmation.Source = "LIVE backend.composio.dev"
			mustClaim(t, j, c)
			vs, err := j.Verdicts(ctx, "log_new")
			if err != nil || len(vs) != 1 || vs[0].Source != "DEMO" {
				t.Fatalf("verdict source: %+v %v", vs, err)
			}
			cs, err := j.Confirmations(ctx, "log_new")
			if err != nil || len(cs) != 1 || cs[0].Source != "LIVE backend.composio.dev" {
				t.Fatalf("confirmation source: %+v %v", cs, err)
			}
		})
	}
}
