package journal

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
)

// shifted is a clock d away from the real one.
func shifted(d time.Duration) func() time.Time { return func() time.Time { return time.Now().Add(d) } }

// liveClaim claims exec as if a retry with a 30-second request began now on the clock now,
// and marks it sent: a request in flight.
func liveClaim(t *testing.T, j Journal, exec string, now time.Time) Claim {
	t.Helper()
	c := claim(exec, now)
	c.Deadline = now.Add(30*time.Second + 2*time.Minute)
	mustClaim(t, j, c)
	if err := j.UpdateAttempt(context.Background(), c.Attempt.ID, model.AttemptSent, "", "request in flight", now); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSharedJournalTimesAreTheServers: two hosts on one PostgreSQL journal whose clocks differ
// from the server's by 10 minutes. Before, each stamped deadlines and compared them on its own
// clock: the host behind wrote a deadline already past for everyone else, the host ahead saw
// every live send as abandoned and recovered it (then a plain resolve settled it and a retry
// sent again: 2 POSTs). Now the deadline is the server's, and a host off by more than the
// margin is told so and recovers none of another host's attempts.
func TestSharedJournalTimesAreTheServers(t *testing.T) {
	dsn := testkit.PostgresOrSkip(t, "c_")
	ctx := context.Background()
	behind := openT(t, dsn, WithClock(shifted(-10*time.Minute)), WithOwner(Owner{Host: "host-behind", PID: 11}))
	ahead := openT(t, dsn, WithClock(shifted(10*time.Minute)), WithOwner(Owner{Host: "host-ahead", PID: 12}))
	right := openT(t, dsn, WithOwner(Owner{Host: "host-right", PID: 13}))

	if c, _ := behind.Clock(ctx); !c.Shared || c.Skew > -9*time.Minute || c.Skew < -11*time.Minute || !errors.Is(c.SkewError(), ErrClockSkew) {
		t.Fatalf("the host 10 minutes behind measured %+v", c)
	}
	if c, _ := right.Clock(ctx); !c.Shared || c.Skewed() || c.SkewError() != nil {
		t.Fatalf("the host on time measured %+v", c)
	}

	// The host behind sends: its lease is the server's now plus its length, not its own clock's.
	c := liveClaim(t, behind, "log_live", time.Now().Add(-10*time.Minute))
	l, err := right.Lease(ctx, c.Attempt.ID)
	if err != nil {
		t.Fatal(err)
	}
	if until := time.Until(l.Deadline); until < 2*time.Minute || until > 3*time.Minute {
		t.Fatalf("the deadline is %s from now on the server's clock, want the lease's 2m30s", until)
	}
	// Neither the host on time nor the host ahead takes the live send.
	if n, err := right.RecoverOpen(ctx); n != 0 || err != nil {
		t.Fatalf("the host on time recovered %d (%v)", n, err)
	}
	n, err := ahead.RecoverOpen(ctx)
	if n != 0 || !errors.Is(err, ErrClockSkew) {
		t.Fatalf("the host ahead recovered %d (%v), want none and a word about its clock", n, err)
	}
	if a, _ := right.Attempt(ctx, c.Attempt.ID); a.State != model.AttemptSent {
		t.Fatalf("the live send is %s", a.State)
	}
	// Its send's time is the server's too.
	if a, _ := right.Attempt(ctx, c.Attempt.ID); time.Since(a.SentAt).Abs() > time.Minute {
		t.Fatalf("sent_at is %s, not the server's now", a.SentAt)
	}
	// Past the server's deadline, the host on time recovers it.
	late := openT(t, dsn, WithOwner(Owner{Host: "host-late", PID: 14}))
	late.(*store).opt.now = shifted(time.Hour) // only the host's view moves; the server's decides
	if n, err := late.RecoverOpen(ctx); n != 0 || !errors.Is(err, ErrClockSkew) {
		t.Fatalf("a host whose clock jumped after it opened: %d %v", n, err)
	}
}

// TestOneHostsClockMovingDoesNotTakeALiveSend: on a SQLite journal the clock is the host's; when
// it jumps forward an hour while this process's send is in flight, the send is not recovered
// (its process still runs), and once the process is gone it is.
func TestOneHostsClockMovingDoesNotTakeALiveSend(t *testing.T) {
	ctx := context.Background()
	dsn := t.TempDir() + "/j.db"
	now := time.Now()
	j := openT(t, dsn, WithClock(func() time.Time { return now }))
	c := liveClaim(t, j, "log_live", now)
	now = now.Add(time.Hour) // the host's clock jumps
	if n, err := j.RecoverOpen(ctx); n != 0 || err != nil {
		t.Fatalf("recovered %d attempts of a process that still runs (%v)", n, err)
	}
	j.(*store).opt.alive = func(Owner) (bool, bool) { return false, true } // the process is gone
	if n, err := j.RecoverOpen(ctx); n != 1 || err != nil {
		t.Fatalf("recovered %d after its process ended (%v)", n, err)
	}
	if a, _ := j.Attempt(ctx, c.Attempt.ID); a.State != model.AttemptIndeterminate {
		t.Fatalf("state %s", a.State)
	}
}

// TestAnOverflowingDeadlineIsRefused: a request timeout of 2,500,000 hours once stored its
// deadline as the year 1727, and the next run recovered the live attempt as long abandoned.
func TestAnOverflowingDeadlineIsRefused(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			j := openT(t, b.fresh(t))
			c := claim("log_far", time.Now())
			c.Deadline = model.AddSaturated(c.Attempt.CreatedAt, 2500000*time.Hour)
			if ok, _, err := j.ClaimAttempt(context.Background(), c); ok || !errors.Is(err, ErrInvalidRecord) {
				t.Fatalf("a deadline of 2,500,000 hours: ok=%v %v", ok, err)
			}
			c.Deadline = c.Attempt.CreatedAt.Add(MaxLease)
			mustClaim(t, j, c)
		})
	}
}

// TestTimesBeyondTheNanosecondsSaturate: a time past 2262 (a clock gone wrong, a deadline from
// a huge timeout) is stored as the largest time, never wrapped round into the past.
func TestTimesBeyondTheNanosecondsSaturate(t *testing.T) {
	ctx := context.Background()
	j := openT(t, t.TempDir()+"/j.db")
	c := claim("log_far", t0)
	mustClaim(t, j, c)
	far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := j.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSent, "", "", far); err != nil {
		t.Fatal(err)
	}
	a, err := j.Attempt(ctx, c.Attempt.ID)
	if err != nil || !a.SentAt.Equal(model.MaxTime) {
		t.Fatalf("sent at %s stored as %s (%v)", far, a.SentAt, err)
	}
}
