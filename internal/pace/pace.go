// Package pace lets an interactive loop hold back the background work it started (a load's
// read, parse and analysis) for a moment after each key, so that the key's frame gets the
// cores. On two cores, niced threads alone still leave the loop waiting behind a load's
// half-dozen busy threads and the collector they keep running; held work stops allocating
// and computing until the frame is out.
package pace

import (
	"context"
	"sync/atomic"
	"time"
)

// Gate is where background work waits while an interactive loop holds it. The zero value is
// open; a nil *Gate is always open, so work that may run without a loop waits at it for free.
// It is safe for concurrent use.
type Gate struct {
	until atomic.Int64 // unix nanoseconds the hold lasts until (0: not held)
}

// Hold keeps the gate shut for d from now, or for longer when an earlier hold lasts longer.
func (g *Gate) Hold(d time.Duration) {
	if g == nil || d <= 0 {
		return
	}
	t := time.Now().Add(d).UnixNano()
	for {
		old := g.until.Load()
		if old >= t || g.until.CompareAndSwap(old, t) {
			return
		}
	}
}

// Release opens the gate at once.
func (g *Gate) Release() {
	if g != nil {
		g.until.Store(0)
	}
}

// Wait returns once the gate is open, or with ctx's error when ctx ends first. It costs one
// atomic load when the gate is open.
func (g *Gate) Wait(ctx context.Context) error {
	if g == nil {
		return nil
	}
	for {
		u := g.until.Load()
		if u == 0 {
			return nil
		}
		d := time.Duration(u - time.Now().UnixNano())
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(min(d, maxNap))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// maxNap bounds one sleep in Wait, so that a Release (or a hold cut short) is seen soon.
const maxNap = 5 * time.Millisecond
