package app

import (
	"context"
	"sync"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// lazyDetails fetches, off a stream's path, the details its list entries need (detailRule),
// most telling first: a write that did not succeed (its error decides ambiguous or failed, so
// flagged or not) before a neighbour's (which only decides a group), each class in the order the
// pages came (newest first). Pages go on to the screen at once, as list entries; the detailed
// copies follow with the next page (ready) or at the end (finish), and the dataset keeps a
// detailed copy over a list entry. Paging and fetching overlap rather than take turns.
type lazyDetails struct {
	a    *App
	ctx  context.Context
	keep bool // remember each detail for Record (a dataset's groups read them again)

	mu     sync.Mutex
	wake   *sync.Cond
	urgent []model.Execution // writes that did not succeed
	rest   []model.Execution // their neighbours
	done   []model.Execution // fetched, not yet handed on
	closed bool
	active int // fetches under way (at most concurrency())
	failed int
	first  error
	wg     sync.WaitGroup
	stop   func() bool // ends the wake-up on the load's cancellation
}

func newLazyDetails(ctx context.Context, a *App, workers int, keep bool) *lazyDetails {
	l := &lazyDetails{a: a, ctx: ctx, keep: keep}
	l.wake = sync.NewCond(&l.mu)
	for range workers {
		l.wg.Go(l.work)
	}
	// a cancelled load stops the workers that wait for more
	l.stop = context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		l.wake.Broadcast()
	})
	return l
}

// Details are fetched as many at once as the API's rate-limit budget leaves room for: half of
// what the window has left (the pages, and the organisation's other callers, share the rest),
// at least minDetailWorkers and at most maxDetailWorkers; detailWorkers when the API does not
// say where its budget stands. A budget that runs low slows the fetches before the client's
// gate must hold them back, and a window that turns lets them go again.
const (
	minDetailWorkers = 4
	maxDetailWorkers = 64
)

// detailConcurrency is how many detail fetches may be under way at once with budget b.
func detailConcurrency(b client.Budget) int {
	if !b.Known {
		return detailWorkers
	}
	return min(max(b.Left/2, minDetailWorkers), maxDetailWorkers)
}

// concurrency is detailConcurrency of the session's client now (l.mu held).
func (l *lazyDetails) concurrency() int {
	if l.a == nil || l.a.src.Client() == nil {
		return detailWorkers
	}
	return detailConcurrency(l.a.src.Client().Budget())
}

// want queues the list entries to fetch.
func (l *lazyDetails) want(es []model.Execution) {
	if len(es) == 0 {
		return
	}
	l.mu.Lock()
	for _, e := range es {
		if triage.LogSucceeded(e.Status) {
			l.rest = append(l.rest, e)
		} else {
			l.urgent = append(l.urgent, e)
		}
	}
	l.mu.Unlock()
	l.wake.Broadcast()
}

// next is the most telling entry still to fetch; ok is false once the queue is closed and
// empty.
func (l *lazyDetails) next() (model.Execution, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		switch {
		case l.ctx.Err() != nil:
			return model.Execution{}, false
		case (len(l.urgent) > 0 || len(l.rest) > 0) && l.active >= l.concurrency():
			// as many at once as the budget leaves room for: a fetch that ends wakes the rest
		case len(l.urgent) > 0:
			e := l.urgent[0]
			l.urgent = l.urgent[1:]
			l.active++
			return e, true
		case len(l.rest) > 0:
			e := l.rest[0]
			l.rest = l.rest[1:]
			l.active++
			return e, true
		case l.closed:
			return model.Execution{}, false
		}
		l.wake.Wait()
	}
}

func (l *lazyDetails) work() {
	for {
		e, ok := l.next()
		if !ok {
			return
		}
		d, err := l.a.src.Get(l.ctx, e.ID)
		l.mu.Lock()
		l.active--
		l.wake.Broadcast()
		switch {
		case err != nil:
			if l.failed++; l.first == nil {
				l.first = err
			}
		case d.ID == e.ID:
			l.done = append(l.done, d)
		}
		l.mu.Unlock()
		if l.keep && err == nil && d.ID == e.ID {
			l.a.keepHydrated(d)
		}
	}
}

// ready takes the details fetched since the last call.
func (l *lazyDetails) ready() []model.Execution {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.done
	l.done = nil
	return out
}

// finish waits for every queued detail (or the load's end) and takes the rest, with how many
// could not be fetched and the first error.
func (l *lazyDetails) finish() ([]model.Execution, int, error) {
	l.stop()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.wake.Broadcast()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done, l.failed, l.first
}
