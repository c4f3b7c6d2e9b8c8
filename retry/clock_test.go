package retry_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
)

// TestAHostOffTheJournalsClockSettlesNoOtherHostsSend: two hosts on one PostgreSQL journal, one
// 20 minutes ahead. Host A's retry was sent moments ago and its outcome is unknown. Before,
// host B read "sent 20 minutes ago" on its own clock, past the 15-minute settle time, and a
// plain resolve settled it failed: its next retry sent again. Now the journal's clock decides
// (sent moments ago: not settled), and a host whose clock is off the journal's settles no
// other host's attempt as failed even when enough time has passed.
func TestAHostOffTheJournalsClockSettlesNoOtherHostsSend(t *testing.T) {
	dsn := testkit.PostgresOrSkip(t, "rc_")
	ctx := context.Background()
	ahead := func() time.Time { return time.Now().Add(20 * time.Minute) }
	a, err := journal.Open(ctx, dsn, journal.WithOwner(journal.Owner{Host: "host-a", PID: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := journal.Open(ctx, dsn, journal.WithOwner(journal.Owner{Host: "host-b", PID: 2}), journal.WithClock(ahead))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	orig := failedWrite("log_orig")
	s := &countingSender{answer: func() (model.ToolResult, error) { return model.ToolResult{}, context.DeadlineExceeded }}
	res, err := runLive(ctx, fakeDeps(a, s), retry.Request{ID: orig.ID, Execution: orig, Confirmed: true, Reason: "r"})
	if err != nil || res.State() != model.AttemptIndeterminate {
		t.Fatalf("host A's retry: %+v %v", res, err)
	}
	onB := retry.Deps{Journal: b, Logs: &logReader{}, Verifier: provider(model.ProviderNotFound), Target: "LIVE fake", Now: ahead}
	r, err := retry.Resolve(ctx, onB, res.Attempt.ID, retry.ResolveOptions{Execution: &orig, Settle: 15 * time.Minute})
	if r.Changed || r.Attempt.State != model.AttemptIndeterminate {
		t.Fatalf("host B settled a send made moments ago: %+v %v", r.Attempt, err)
	}
	// Enough time passes on the journal's clock (the send is moved 20 minutes back).
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE attempts SET sent_at = sent_at - $1 WHERE id = $2`, (20 * time.Minute).Nanoseconds(), res.Attempt.ID); err != nil {
		t.Fatal(err)
	}
	r, err = retry.Resolve(ctx, onB, res.Attempt.ID, retry.ResolveOptions{Execution: &orig, Settle: 15 * time.Minute})
	if r.Changed || !errors.Is(err, journal.ErrClockSkew) {
		t.Fatalf("the host whose clock is off settled another host's attempt: %+v %v", r.Attempt, err)
	}
	onA := onB
	onA.Journal, onA.Now = a, nil
	r, err = retry.Resolve(ctx, onA, res.Attempt.ID, retry.ResolveOptions{Execution: &orig, Settle: 15 * time.Minute})
	if err != nil || r.Attempt.State != model.AttemptFailed {
		t.Fatalf("a host on time could not settle it: %+v %v", r.Attempt, err)
	}
	if s.count() != 1 {
		t.Fatalf("%d sends", s.count())
	}
}

// TestAHugeTimeoutIsCutToTheWriteClients: --request-timeout 2500000h once stored the attempt's
// deadline as the year 1727 (any other run then recovered the live send as crashed, and after
// resolve --as failed a second retry sent). The protocol cuts the timeout to the write client's
// own limit: the journal's deadline and the send's are real bounds.
func TestAHugeTimeoutIsCutToTheWriteClients(t *testing.T) {
	ctx := context.Background()
	j := openJournal(t)
	s := &countingSender{}
	d := fakeDeps(j, s)
	d.Timeout = 2500000 * time.Hour
	start := time.Now()
	res, err := runLive(ctx, d, retry.Request{ID: "log_t", Execution: failedWrite("log_t"), Confirmed: true, Reason: "r"})
	if err != nil || res.Attempt == nil || s.count() != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	l, err := j.Lease(ctx, res.Attempt.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The lease covers the whole send and its margin (a deadline that ignored the send's timeout
	// let recovery take a live send), and no more than that.
	if l.Deadline.Before(start.Add(retry.MaxTimeout+retry.DeadlineMargin)) || l.Deadline.After(time.Now().Add(retry.MaxTimeout+retry.DeadlineMargin)) {
		t.Fatalf("the journal's deadline is %s", l.Deadline)
	}
	if sd := s.deadlines[0]; sd.IsZero() || sd.After(time.Now().Add(retry.MaxTimeout)) || !sd.Before(l.Deadline) {
		t.Fatalf("the send's deadline %s, the journal's %s", sd, l.Deadline)
	}
}

// TestACancelledRetryStillRecordsItsOutcome: the person presses ctrl-c while the request is in
// flight; the send ends, and its outcome (unknown: indeterminate) is still written, with a
// context the cancellation cannot abort (a record written with the cancellable context failed
// and left the attempt "sent" until recovery).
func TestACancelledRetryStillRecordsItsOutcome(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := openJournal(t)
	s := &countingSender{answer: func() (model.ToolResult, error) {
		cancel() // ctrl-c while the request is out
		return model.ToolResult{}, context.Canceled
	}}
	res, err := runLive(ctx, fakeDeps(j, s), retry.Request{ID: "log_c", Execution: failedWrite("log_c"), Confirmed: true, Reason: "r"})
	if res.Attempt == nil || s.count() != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	a, rerr := j.Attempt(context.Background(), res.Attempt.ID)
	if rerr != nil || a.State != model.AttemptIndeterminate {
		t.Fatalf("after ctrl-c during the send the journal holds %s (%v; run: %v), want indeterminate", a.State, rerr, err)
	}
}
