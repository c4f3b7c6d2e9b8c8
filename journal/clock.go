package journal

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// One clock for the journal
//
// Every time the recovery rule and Resolve compare (an attempt's deadline, when it was sent,
// how long ago that was) is read on one clock. A SQLite journal is one machine's, and its
// clock is that machine's (WithClock in tests). A PostgreSQL journal is shared by hosts whose
// clocks differ, so its times are the database's: the claim's creation and deadline, the
// send's and the end's times are taken from the server's clock_timestamp() in the transaction
// that records them, and recovery compares deadlines with it. A host whose own clock differs
// from the server's by more than ClockMargin is told so (Clock().Skew, ErrClockSkew) and
// recovers or settles no attempt of another host: what it would write could be hours off.

// ClockMargin is how far a host's clock may differ from a shared journal's before it stops
// recovering and settling other hosts' attempts.
const ClockMargin = 2 * time.Minute

// ErrClockSkew is wrapped by the errors of RecoverOpen (which still recovers this host's own
// dead attempts) when this host's clock differs from the shared journal's by more than
// ClockMargin.
var ErrClockSkew = errors.New("journal: this host's clock differs from the journal's")

// Clock is what a journal says of its clock.
type Clock struct {
	// Now is the journal's time when asked: the server's on PostgreSQL, this host's (WithClock)
	// on SQLite.
	Now time.Time `json:"now"`
	// Shared: the journal's times are the database server's (PostgreSQL), not this host's.
	Shared bool `json:"shared"`
	// Skew is this host's clock minus the journal's, measured when asked (0 when not Shared).
	Skew time.Duration `json:"skew"`
}

// Skewed reports whether the skew is beyond ClockMargin.
func (c Clock) Skewed() bool { return c.Shared && (c.Skew > ClockMargin || c.Skew < -ClockMargin) }

// SkewError is the error that says so, nil when the clock is within the margin.
func (c Clock) SkewError() error {
	if !c.Skewed() {
		return nil
	}
	return fmt.Errorf(
		"%w by %s (more than the %s margin): this host recovers and settles none of other hosts' attempts; set its clock right (NTP)",
		ErrClockSkew,
		c.Skew.Round(time.Second),
		ClockMargin,
	)
}

// Clock reads the journal's clock and measures this host's (WithClock) against it, each time
// it is asked: a host's clock can jump while a session runs.
func (s *store) Clock(ctx context.Context) (Clock, error) {
	before := s.opt.now()
	now, err := s.nowOn(ctx, s.db)
	if err != nil {
		return Clock{}, err
	}
	if s.dialect != postgres {
		return Clock{Now: now}, nil
	}
	after := s.opt.now()
	return Clock{Now: now, Shared: true, Skew: before.Add(after.Sub(before) / 2).Sub(now)}, nil
}

// nowOn reads the journal's clock through q (a transaction, to stamp what it writes).
func (s *store) nowOn(ctx context.Context, q queryer) (time.Time, error) {
	if s.dialect != postgres {
		return s.opt.now().UTC(), nil
	}
	var micros int64
	if err := q.QueryRowContext(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint`).Scan(&micros); err != nil {
		return time.Time{}, fmt.Errorf("journal %s: read the server's clock: %w", s.where, err)
	}
	return time.UnixMicro(micros).UTC(), nil
}
