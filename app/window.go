package app

import (
	"context"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// The window of a session: the streamed load every front reads, and the builder that judges it
// (the window package).

// maxHydrated bounds the full records a streaming load keeps for finding duplicate groups.
const maxHydrated = 100_000

// Stream streams the source in pages, learning the kinds of tools it has not seen. The list
// entries whose full record triage needs (detailRule) are fetched meanwhile, not before the page
// goes on (lazyDetails): their detailed copies come with a later page, or after the last, and
// the dataset keeps a detailed copy over a list entry. A neighbour seen in an earlier page that
// turns out to need its detail is fetched then.
func (a *App) Stream(ctx context.Context, since time.Duration, page func([]model.Execution) error) error {
	_, err := a.stream(ctx, since, true, page, page)
	return err
}

// SizeHint guesses how many executions a Stream of since will give, a little high, so that a
// caller keeping a row for each can make room for them at once: a whole export file's (from
// the length of its first lines); 0 for a window, which may cut the file anywhere, and for
// the API, which does not say.
func (a *App) SizeHint(since time.Duration) int {
	if since != 0 {
		return 0
	}
	if h, ok := a.src.(interface{ SizeHint() int }); ok {
		return h.SizeHint()
	}
	return 0
}

// repeats is how many records the source's last load dropped as repeats of a copy it kept
// (source.Repeater): copies of an id all the same, counted with the others.
func (a *App) repeats() int {
	if r, ok := a.src.(source.Repeater); ok {
		return r.Repeats()
	}
	return 0
}

// Recycle hands a batch of Stream back once the caller has taken what it keeps of its records
// and keeps no slice of it: a file source fills the array again (source.Recycler). Other
// sources leave it to the collector.
func (a *App) Recycle(batch []model.Execution) {
	if r, ok := a.src.(source.Recycler); ok {
		r.Recycle(batch)
	}
}

// NewWindow returns the builder of a streamed window (the TUI's): it triages with the
// session's kinds and options and yields to the interactive loop's gate.
func (a *App) NewWindow() *window.Builder {
	b := window.NewBuilder(a.kinds, a.topt)
	b.WaitAt(a.o.Gate)
	return b
}

// judge triages a loaded window (each id once) through the builder every front reads, given
// the records whole (window.NewWhole), each with its journal case.
func (a *App) judge(execs []model.Execution, cases map[string]*model.Case) (*window.Builder, *triage.Result) {
	b := window.NewWhole(a.kinds, a.topt)
	b.Reserve(len(execs)) // the rows at once, not grown by append batch by batch
	b.Add(execs)
	// The records are at hand: finding the groups cannot fail.
	_ = b.GroupsAt(context.Background(), func(_ context.Context, r int) (model.Execution, error) { return execs[r], nil })
	ts, groups := b.Judged(cases)
	return b, triage.NewResult(ts, groups)
}

// unfetched counts the details a load could not fetch (their list entries stand for them), with
// the first error.
type unfetched struct {
	n     int
	first error
}

// stream is Stream with the detailed copies handed to details (keep: remembered for Record)
// and the details that could not be fetched.
func (a *App) stream(ctx context.Context, since time.Duration, keep bool, page, details func([]model.Execution) error) (unfetched, error) {
	if a.src.Client() == nil {
		return unfetched{}, a.src.Load(ctx, since, func(batch []model.Execution) error {
			a.Learn(ctx, batch)
			return page(batch)
		})
	}
	rule := newDetailRule(a.kinds, a.topt.Window)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lazy := newLazyDetails(ctx, a, maxDetailWorkers, keep)
	n := 0
	err := a.src.Load(ctx, since, func(batch []model.Execution) error {
		a.Learn(ctx, batch)
		a.listed.Add(int64(len(batch)))
		n++
		need, again := rule.needBatch(batch, n)
		want := make([]model.Execution, 0, len(need)+len(again))
		for _, i := range need {
			want = append(want, batch[i])
		}
		lazy.want(append(want, again...))
		if err := page(batch); err != nil {
			return err
		}
		if d := lazy.ready(); len(d) > 0 {
			return details(d)
		}
		return nil
	})
	if err != nil {
		cancel()
		lazy.finish()
		return unfetched{}, err
	}
	rest, failed, first := lazy.finish() // a detail that could not be fetched leaves its list entry
	missed := unfetched{failed, first}
	if err := ctx.Err(); err != nil {
		return missed, err
	}
	for len(rest) > 0 {
		k := min(len(rest), 1000)
		if err := details(rest[:k:k]); err != nil {
			return missed, err
		}
		rest = rest[k:]
	}
	return missed, nil
}

// keepHydrated remembers a full record fetched while loading (Record reads it back).
func (a *App) keepHydrated(e model.Execution) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hydrated == nil {
		a.hydrated = map[string]model.Execution{}
	}
	if len(a.hydrated) >= maxHydrated {
		clear(a.hydrated) // Record falls back to Get
	}
	a.hydrated[e.ID] = e
}

// Record returns an execution's full record for finding duplicate groups: the copy fetched
// while loading when there is one, else the source's.
func (a *App) Record(ctx context.Context, id string) (model.Execution, error) {
	a.mu.Lock()
	e, ok := a.hydrated[id]
	a.mu.Unlock()
	if ok {
		return e, nil
	}
	return a.src.Get(ctx, id)
}
