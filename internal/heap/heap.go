// Package heap paces the collector of an interactive process that loads a large dataset while
// a person uses it. Two things go wrong with the default pacing (a cycle whenever the heap has
// doubled since the last one) while the load runs: it allocates quickly from a small heap, so
// it runs a cycle every few megabytes at its start and a dozen in all, each of whose mark
// phases takes the cores from the frames of keys pressed meanwhile; and near its end the heap
// may reach twice the dataset, far past what the dataset needs.
//
// While a load runs a Budget turns the proportional trigger off and sets a soft memory limit
// of max(floor, 1.5 × the live heap): a cycle starts only when the heap reaches the limit. A
// small load then runs no cycle at all, a big one a few, and the heap stays within the limit
// or half again the live heap, whichever is more (never so tight that the collector runs back
// to back). When no load runs the proportional pacing is back, and no limit: a person typing
// filters over the dataset allocates a selection a key, which under a limit close to the
// dataset's size would run a cycle every few keys.
//
// Between loads a Budget may pace at its own percent (Idle) rather than the process's: the
// default lets the heap double past the dataset before a cycle, and every byte of that growth
// is memory the process never touched, which costs a page fault every 4 KiB (on a virtual
// machine some 12-16 µs each: 3 ms a megabyte, so that the 10 MB a key's filter makes over a
// million rows cost it 30 ms more than the filter). A cycle over a dataset made of few,
// pointer-free blocks costs 15-40 ms of one core's time in all; at a quarter of the live heap
// a person's keys reuse memory the last cycle freed.
package heap

import (
	"cmp"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Budget is a process's memory budget. A nil *Budget does nothing. Its methods may block for
// the length of a collector cycle: call them off an interactive loop.
type Budget struct {
	floor int64

	mu      sync.Mutex
	loads   int   // loads under way
	gcPct   int   // the GOGC to restore when the last load ends
	idle    int   // the GOGC between loads (Idle), 0 for the process's own
	own     int   // the process's own GOGC, to put back when Idle ends
	prevLim int64 // the limit to restore then
	limit   int64 // the limit set while loads run, 0 when none runs
	sample  []metrics.Sample
}

// New returns a budget whose limit is never below floor bytes.
func New(floor int64) *Budget {
	return &Budget{floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// Load marks the start of a load (of its read or its analysis) and returns the function that
// marks its end; loads may overlap. While any runs, a collector cycle starts only at the limit.
func (b *Budget) Load() (done func()) {
	if b == nil {
		return func() {}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.loads == 0 {
		b.gcPct = debug.SetGCPercent(-1)
		b.prevLim = debug.SetMemoryLimit(math.MaxInt64)
	}
	b.loads++
	b.fit()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.loads--; b.loads > 0 {
				b.fit()
				return
			}
			debug.SetMemoryLimit(b.prevLim)
			debug.SetGCPercent(cmp.Or(b.idle, b.gcPct))
			b.limit = 0
		})
	}
}

// Idle paces the collector at percent (as GOGC) whenever no load runs, from now on; 0 puts
// the process's own percent back. Call it once the dataset is in (the TUI does once a big
// load's memory is handed back), not before: a load's phases have gaps between them, and a
// tight percent there starts a cycle over the load's garbage while the person presses keys.
// Use it when the process was not given GOGC: see the package's comment.
func (b *Budget) Idle(percent int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case percent > 0 && b.idle == 0: // the process's own, to put back
		b.own = b.gcPct
		if b.loads == 0 {
			b.own = debug.SetGCPercent(percent)
		}
	case percent <= 0 && b.idle == 0:
		return
	}
	b.idle = max(percent, 0)
	if b.loads > 0 {
		b.gcPct = b.own // restored when the loads end: the idle percent, or the process's
		return
	}
	debug.SetGCPercent(cmp.Or(b.idle, b.own))
}

// Fit sets the limit again for the heap as it is now: a load calls it as its dataset grows.
// With no load under way it does nothing.
func (b *Budget) Fit() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.loads > 0 {
		b.fit()
	}
}

func (b *Budget) fit() {
	metrics.Read(b.sample)
	var live int64
	if b.sample[0].Value.Kind() == metrics.KindUint64 {
		live = int64(min(b.sample[0].Value.Uint64(), math.MaxInt64/2))
	}
	if limit := max(b.floor, live+live/2); limit != b.limit {
		debug.SetMemoryLimit(limit)
		b.limit = limit
	}
}

// Limit returns the limit set while loads run (0 when none runs).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit
}
