package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/internal/heap"
	"github.com/exectriage/exectriage/window"
)

// The load pipeline, a sub-model of the root: a load streams the source into the session's
// feed (app.Feed; loadCmd), the root tells the loader how many records each page held, and the
// loader paces the feed's analyses (analyzeCmd: the queued pages to the window's builder, a
// snapshot now and then, the duplicate groups once the load is in) and reports what the root is
// to show. Records never cross into the TUI: source → app.Feed → window.Builder → Dataset →
// analyzedMsg → the root's list (stageDataset).

// snapshotEvery is how often at most a running load's analysis gives the list a new dataset
// while the list holds up to snapshotRows rows; past that, snapshotInterval spaces them out.
const (
	snapshotEvery = 300 * time.Millisecond
	snapshotRows  = 250_000
	snapshotMost  = 2 * time.Second
)

// snapshotInterval is how long a running load waits between datasets for a list of n rows.
// Each costs a pass over every row so far and a selection of them (24 bytes a row of arrays,
// garbage by the next): at a fixed pace their cost would grow with the square of the export,
// half the garbage of a 1M load. Spaced out with the rows, it grows with the export.
func snapshotInterval(n int) time.Duration {
	return min(snapshotEvery*time.Duration(max(1, n/snapshotRows)), snapshotMost)
}

// maxPending is how many received records may wait for the builder before the load pauses.
const maxPending = 50_000

// loader is the state of the current load and of the analyses of its pages. The root owns it,
// routes the load's messages to it and words what it reports (the header, the status line).
type loader struct {
	feed   *app.Feed // the window being loaded: its queue and builder
	mem    *heap.Budget
	idleGC int // the collector's percent once a big load is handed back (Options.IdleGC)

	tag             int
	loading         bool
	cancel          context.CancelFunc
	held            tea.Cmd // the load's next page, held while the feed's queue is full
	received, pages int     // records and pages the current load gave
	failed          bool    // the current load stopped on an error
	progressAt      time.Time
	// handBack says a big load is in: its memory is handed back once the list shows it.
	handBack bool

	analyzeTag int
	analyzing  bool
	dirty      bool      // pages came while an analysis ran: another follows it
	grouping   bool      // the running analysis finds the duplicate groups
	snapAt     time.Time // when an analysis last took a snapshot for the list
}

func newLoader(feed *app.Feed, mem *heap.Budget, idleGC int) loader {
	return loader{feed: feed, mem: mem, idleGC: idleGC}
}

// start begins a load of the window since (a refresh gives what is newer than the newest
// record), cancelling the one under way.
func (l *loader) start(ctx context.Context, since time.Duration) tea.Cmd {
	l.stop()
	ctx, l.cancel = context.WithCancel(ctx)
	l.tag++
	l.loading, l.pages, l.failed = true, 0, false
	l.received, l.held = 0, nil
	return loadCmd(ctx, l.feed, l.mem, l.tag, since)
}

// stop cancels the load under way (quit).
func (l *loader) stop() {
	if l.cancel != nil {
		l.cancel()
	}
}

// busy says a load or its final analysis (the groups) runs: the spinner turns.
func (l *loader) busy() bool { return l.loading || l.grouping }

// working says a load or an analysis runs: a key's frame holds them (Backend.Hold).
func (l *loader) working() bool { return l.loading || l.analyzing }

// page takes a page of the current load (ok false: of an older one). next reads the
// following page, or nil while the builder is behind (the page is held until it catches up).
func (l *loader) page(msg loadPageMsg) (next tea.Cmd, ok bool) {
	if msg.tag != l.tag {
		return nil, false
	}
	l.received += msg.n
	l.pages++
	next = msg.next
	if l.analyzing && l.feed.Pending() >= maxPending {
		// The builder is behind: read on when it has taken these pages, so a fast source
		// does not pile up full records in memory.
		l.held, next = next, nil
	}
	return next, true
}

// done ends the current load (ok false: an older one's end).
func (l *loader) done(msg loadDoneMsg) (ok bool) {
	if msg.tag != l.tag {
		return false
	}
	l.loading = false
	l.failed = msg.err != nil && !errors.Is(msg.err, context.Canceled)
	return true
}

// analyzed ends the running analysis (ok false: an older one's result). held is the page the
// builder held back, to read now; again says pages came meanwhile (analyze again).
func (l *loader) analyzed(msg analyzedMsg) (held tea.Cmd, again, ok bool) {
	if msg.tag != l.analyzeTag {
		return nil, false, false
	}
	l.analyzing, l.grouping = false, false
	held, l.held = l.held, nil
	l.handBack = l.handBack || msg.big
	return held, l.dirty, true
}

// analyze gives the pages queued in the feed to the builder and makes a new dataset unless an
// analysis runs, in which case the next one starts when it ends (the builder is used by one
// analysis at a time). Once the load has ended, the analysis also finds the duplicate groups.
// shown is how many rows the list shows: the list gets a new dataset at most every
// snapshotInterval(shown) while a load runs (the first at once, for the first screen, and the
// one with the groups at the end).
func (l *loader) analyze(ctx context.Context, shown int) tea.Cmd {
	if l.analyzing {
		l.dirty = true
		return nil
	}
	l.analyzing, l.dirty = true, false
	l.analyzeTag++
	l.grouping = !l.loading
	snap := l.grouping || shown == 0 || time.Since(l.snapAt) >= snapshotInterval(shown)
	if snap {
		l.snapAt = time.Now()
	}
	return analyzeCmd(ctx, l.feed, l.mem, l.analyzeTag, l.grouping, snap)
}

// progress reports the load's counts when the header should show new ones: the first page's
// at once, then at most every progressEvery (or with a spinner frame, tick), so that a fast
// load does not redraw the whole screen for every page it reads.
func (l *loader) progress(shownLoaded, shownPages int, tick bool) (loaded, pages int, show bool) {
	if !l.loading || shownLoaded == l.received && shownPages == l.pages {
		return 0, 0, false
	}
	if now := time.Now(); tick || shownPages == 0 || now.Sub(l.progressAt) >= progressEvery {
		l.progressAt = now
		return l.received, l.pages, true
	}
	return 0, 0, false
}

// handBackNow says the list shows a big load's last dataset: what went before is garbage,
// to hand back to the system (handBackCmd), once.
func (l *loader) handBackNow(staged bool) bool {
	if l.handBack && !staged && !l.analyzing {
		l.handBack = false
		return true
	}
	return false
}

// loadPageMsg says a page of a streaming load is queued in the feed (n records); next waits for
// the following one.
type loadPageMsg struct {
	tag  int
	n    int
	next tea.Cmd
}

// loadDoneMsg ends a load.
type loadDoneMsg struct {
	tag int
	err error
}

type loadEvent struct {
	n    int
	done bool
	err  error
}

// loadCmd starts a streaming load and returns its first event. The goroutine feeding the
// channel stops when ctx is cancelled (a newer load, or quit).
func loadCmd(ctx context.Context, feed *app.Feed, mem *heap.Budget, tag int, since time.Duration) tea.Cmd {
	return func() tea.Msg {
		ch := make(chan loadEvent, 2)
		go func() {
			defer close(ch)
			defer mem.Load()()
			send := func(ev loadEvent) error {
				select {
				case ch <- ev:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("the source failed: %v", r)
					}
				}()
				err = feed.Load(ctx, since, func(n, _ int) error { return send(loadEvent{n: n}) })
			}()
			_ = send(loadEvent{done: true, err: err})
		}()
		return waitLoad(tag, ch)()
	}
}

func waitLoad(tag int, ch <-chan loadEvent) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		switch {
		case !ok:
			return loadDoneMsg{tag: tag}
		case ev.done:
			return loadDoneMsg{tag: tag, err: ev.err}
		}
		return loadPageMsg{tag: tag, n: ev.n, next: waitLoad(tag, ch)}
	}
}

// analyzedMsg is a dataset of everything loaded so far (nil when the analysis took none); err
// says why the duplicate groups could not be found (the dataset keeps the previous ones). big
// says a big load is in, groups and all: once the list shows it, its memory is handed back
// (handBackCmd).
type analyzedMsg struct {
	tag int
	ds  *window.Dataset
	err error
	big bool
}

// bigLoad is the size of a dataset after whose load the memory is handed back at once.
const bigLoad = 100_000

// analyzeCmd has the feed give its queued pages to the builder and snapshot it (app.Feed.Analyze);
// groups, at the end of a load, also finds the duplicate groups. mem paces the collector
// meanwhile (see heap.Budget). Without snap the analysis gives no dataset (analyzedMsg.ds is
// nil): the list keeps the one it has.
func analyzeCmd(ctx context.Context, feed *app.Feed, mem *heap.Budget, tag int, groups, snap bool) tea.Cmd {
	return func() tea.Msg {
		ds, err := feed.Analyze(ctx, mem, groups, snap)
		return analyzedMsg{tag: tag, ds: ds, err: err, big: groups && ds.Len() >= bigLoad}
	}
}

// handBackCmd hands the memory a big load no longer needs back to the system, now rather than
// keep the load's peak resident while the person reads the list, and from then on paces the
// collector at idleGC between loads (heap.Budget.Idle): the dataset is in, and what allocates
// now is the person's keys. It runs a collection: off the loop.
func handBackCmd(mem *heap.Budget, idleGC int) tea.Cmd {
	return func() tea.Msg {
		debug.FreeOSMemory()
		if idleGC > 0 {
			mem.Idle(idleGC)
		}
		return nil
	}
}
