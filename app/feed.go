package app

import (
	"context"
	"sync"
	"time"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/heap"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/window"
)

// Feed is a window the session fills from its source for a front that shows it while it loads
// (the TUI). A record goes one way: the source's page → the feed's queue (Load, Give) → the
// window's builder and a snapshot (Analyze) → the front, which sees counts and datasets and never
// a batch. The builder keeps every record loaded across loads (a refresh adds what is newer).
type Feed struct {
	a *App
	b *window.Builder // used by one Analyze at a time

	mu       sync.Mutex
	gen      int                 // the newest Load; an older one's pages are dropped
	pending  [][]model.Execution // pages queued, not yet given to the builder
	pendingN int                 // the records in pending
	hint     int                 // how many records the newest Load may give (0: unknown)
}

// NewFeed returns an empty feed over the session's source.
func (a *App) NewFeed() *Feed { return &Feed{a: a, b: a.NewWindow()} }

// Load streams the window since into the feed, superseding the Load before it (whose pages no
// longer count). After each page is queued, onPage is told how many records it held and how
// many the whole load may give (0: unknown; asked once the first page is on its way, the
// builder making room for them after it). An error from onPage stops the load.
func (f *Feed) Load(ctx context.Context, since time.Duration, onPage func(n, hint int) error) error {
	f.mu.Lock()
	f.gen++
	gen := f.gen
	f.hint = 0
	f.mu.Unlock()
	pages, hint := 0, 0
	return f.a.Stream(ctx, since, func(b []model.Execution) error {
		if pages++; pages == 2 {
			hint = f.a.SizeHint(since)
		}
		if !f.put(gen, b, hint) {
			return nil // a newer load runs; this one is being cancelled
		}
		return onPage(len(b), hint)
	})
}

// Find asks the source's server for the executions of the window whose request id or tool-router
// session id contains one of reqs or sessions (the API lists neither) and queues them for the
// next Analyze; n is how many it found.
func (f *Feed) Find(ctx context.Context, reqs, sessions []string) (n int, err error) {
	execs, err := f.a.FindRequests(ctx, reqs)
	if err == nil {
		var more []model.Execution
		more, err = f.a.FindSessions(ctx, sessions)
		execs = append(execs, more...)
	}
	f.Give(execs)
	return len(execs), err
}

// Give queues records found outside a load for the next Analyze.
func (f *Feed) Give(execs []model.Execution) {
	if len(execs) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = append(f.pending, execs)
	f.pendingN += len(execs)
}

// put queues a page of load gen (false: a newer load has started and the page is dropped).
func (f *Feed) put(gen int, page []model.Execution, hint int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if gen != f.gen {
		return false
	}
	f.pending = append(f.pending, page)
	f.pendingN += len(page)
	f.hint = hint
	return true
}

// Pending is how many queued records wait for the builder; it never blocks on a load.
func (f *Feed) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pendingN
}

// Analyze gives the queued pages to the builder (triage and index, once per record), each page
// going back to the source once taken; with groups (a load has ended) it finds the duplicate
// groups, re-reading the few records that may repeat. It returns a snapshot when snap or groups
// (else nil: the front keeps the dataset it has). mem paces the collector meanwhile (nil: the
// runtime's defaults). One Analyze at a time.
func (f *Feed) Analyze(ctx context.Context, mem *heap.Budget, groups, snap bool) (*window.Dataset, error) {
	cores.Foreground() // after the loop, before the read and the parse, which wait for it
	done := mem.Load()
	defer done()
	f.mu.Lock()
	pages, hint := f.pending, f.hint
	f.pending, f.pendingN = nil, 0
	f.mu.Unlock()
	if f.b.Len() > 0 {
		// Room for the rest of the load, once its first rows are on screen: the first
		// analysis is the first screen's, and makes no room it can do without.
		f.b.Reserve(hint)
	}
	for i, p := range pages {
		f.b.Add(p) // the builder copies what it keeps of the records
		f.a.Recycle(p)
		pages[i] = nil
	}
	mem.Fit()
	var err error
	if groups {
		err = f.b.Groups(ctx, f.a.Record)
	}
	if !snap && !groups {
		return nil, err
	}
	return f.b.Snapshot(), err
}
