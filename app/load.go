package app

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/hugepage"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// Loaded is a window of executions, newest first (ties by id), with their triage.
type Loaded struct {
	a      *App
	Execs  []model.Execution
	Result *triage.Result
	window *window.Builder // what judged Execs (Result is its judgement, row i being Execs[i])
	pos    map[string]int  // id → index in Execs (built on demand)
	// DetailErrors counts the details that could not be fetched (the executions were triaged
	// from their list entries); FirstDetailError is the first such error.
	DetailErrors     int
	FirstDetailError error
	// Cases are the journal's cases, by execution id (nil without a journal); each
	// execution's triage carries its own (triage.ApplyCase).
	Cases map[string]*model.Case
	// Duplicates is how many records were copies of another of the same log id (an export's
	// overlapping pages): each id is one execution, its latest copy kept.
	Duplicates int
}

// Load reads every execution of the window, learns the kinds of their tools, fetches the
// details triage needs (see detailRule) and triages them.
func (a *App) Load(ctx context.Context) (*Loaded, error) {
	var l *Loaded
	if a.src.Client() != nil && a.src.Kind() != model.SourceFile {
		var err error
		if l, err = a.loadLive(ctx); err != nil {
			return nil, err
		}
	} else {
		execs, dups, err := a.loadAll(ctx)
		if err != nil {
			return nil, err
		}
		a.Learn(ctx, execs)
		l = &Loaded{a: a, Execs: execs, Duplicates: dups}
	}
	var err error
	if l.Cases, err = a.Cases(ctx); err != nil {
		return nil, err
	}
	l.analyze()
	return l, nil
}

// loadLive reads an API's window as Stream does: the details triage needs are fetched while
// the pages come (lazyDetails), not after the last one, and each takes its list entry's place.
func (a *App) loadLive(ctx context.Context) (*Loaded, error) {
	var pages batches // the callback owns each batch: kept, and copied once at the end
	detail := map[string]model.Execution{}
	missed, err := a.stream(ctx, a.Window(), false, func(b []model.Execution) error {
		pages.add(b)
		return nil
	}, func(d []model.Execution) error {
		for _, e := range d {
			detail[e.ID] = e
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	execs, dups := window.KeepLatest(pages.join()) // copies the API listed twice; the details are not copies
	for i := range execs {
		if d, ok := detail[execs[i].ID]; ok && !execs[i].Detailed {
			execs[i] = d
		}
	}
	SortNewestFirst(execs)
	return &Loaded{a: a, Execs: execs, Duplicates: dups, DetailErrors: missed.n, FirstDetailError: missed.first}, nil
}

// analyze triages the window, each execution with its journal case.
func (l *Loaded) analyze() {
	l.window, l.Result = l.a.judge(l.Execs, l.Cases)
}

// LoadAll reads every execution of the window, newest first (ties by id, so the order is
// stable), one copy of each log id (window.KeepLatest).
func (a *App) LoadAll(ctx context.Context) ([]model.Execution, error) {
	execs, _, err := a.loadAll(ctx)
	return execs, err
}

// loadAll is LoadAll, and how many copies of an id it dropped.
func (a *App) loadAll(ctx context.Context) ([]model.Execution, int, error) {
	// Growing one slice of a million executions by append copies it over and over, and holds
	// two copies at the end. A file source guesses its size (a slice that is a little too
	// big costs address space, not memory, until it is written); otherwise batches are kept
	// as they come and copied once into a slice of the right size.
	var execs []model.Execution
	if n := a.SizeHint(0); n > 0 {
		execs = make([]model.Execution, 0, n)
		hugepage.Advise(execs)
	}
	var pages batches
	err := a.src.Load(ctx, a.Window(), func(b []model.Execution) error {
		if a.o.Lean {
			for i := range b {
				leanen(&b[i])
			}
		}
		if cap(execs) > 0 {
			execs = append(execs, b...)
		} else {
			if a.o.Lean {
				b = slices.Clone(b) // the source reuses b (ReuseBatches)
			}
			pages.add(b)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if cap(execs) == 0 {
		execs = pages.join()
	}
	execs, dups := window.KeepLatest(execs) // before the sort: the later copy is the one kept
	SortNewestFirst(execs)
	return execs, dups + a.repeats(), nil
}

// batches are a load's batches kept as they come, to be copied once into a slice of the
// right size: growing one slice by append copies it over and over, each time into memory
// never touched (on some machines a page fault for every 4 KiB: 3 ms a megabyte).
type batches struct {
	kept [][]model.Execution
	n    int
}

func (b *batches) add(batch []model.Execution) {
	if len(batch) > 0 {
		b.kept = append(b.kept, batch)
		b.n += len(batch)
	}
}

// join returns every batch in one slice (the one batch itself when there is one), and lets
// go of the batches.
func (b *batches) join() []model.Execution {
	defer func() { *b = batches{} }()
	if len(b.kept) == 1 {
		return b.kept[0]
	}
	out := make([]model.Execution, 0, b.n)
	for i, batch := range b.kept {
		out = append(out, batch...)
		b.kept[i] = nil
	}
	return out
}

// leanen drops from an execution what scan never reads, so that a million of them fit in
// memory: the trace id, and a response that cannot say successful:false (the only thing
// triage reads of it).
func leanen(e *model.Execution) {
	e.TraceID = ""
	if len(e.Response) > 0 && !triage.ResponseMayFail(e.Response) {
		e.Response = nil
	}
}

func newerFirst(a, b *model.Execution) int { return newerFirstOf(a.Timestamp, b.Timestamp, a.ID, b.ID) }

// newerFirstOf is the window's order of two records by their times and ids: newest first,
// then by id.
func newerFirstOf(ta, tb time.Time, ida, idb string) int {
	if c := tb.Compare(ta); c != 0 {
		return c
	}
	return strings.Compare(ida, idb)
}

// SortNewestFirst is a stable sort, newest first then by id. Exports usually come newest
// first (nothing to do) or oldest first (reversed); otherwise positions are sorted and each
// record is moved once, not the records themselves over and over.
func SortNewestFirst(execs []model.Execution) {
	sorted, reversed := true, true
	for i := 1; i < len(execs) && (sorted || reversed); i++ {
		c := newerFirst(&execs[i-1], &execs[i])
		sorted = sorted && c <= 0
		reversed = reversed && c > 0 // strictly: reversing equal records would reorder them
	}
	switch {
	case sorted:
		return
	case reversed:
		slices.Reverse(execs)
		return
	case len(execs) > math.MaxInt32:
		slices.SortStableFunc(execs, func(a, b model.Execution) int { return newerFirst(&a, &b) })
		return
	}
	perm := make([]int32, len(execs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return newerFirst(&execs[a], &execs[b]) })
	// execs[k] becomes the old execs[perm[k]], cycle by cycle.
	for k := range perm {
		if perm[k] < 0 {
			continue
		}
		tmp := execs[k]
		j := k
		for {
			next := int(perm[j])
			perm[j] = -1
			if next == k {
				execs[j] = tmp
				break
			}
			execs[j] = execs[next]
			j = next
		}
	}
}

// detailRule is the one rule for which list entries need their full record (the Logs API
// lists entries without arguments or error kinds): writes that did not succeed (the error
// decides ambiguous or failed), and writes with a neighbour of the same caller
// (triage.CallerOf: the tool and account, else user; an email family's tools and user) within
// the duplicate window (arguments decide duplicates), and, for the writes whose SDK re-sends
// writes in one language only (the old-SDK note needs the language, which only a detail
// records), one write of each installation (triage.InstallationOf): the window names the others'
// language from it (triage.Languages). Nothing else: a read never needs its detail to be listed
// (and gets no old-SDK note). It sees the executions
// batch by batch, in any order: a neighbour seen in an earlier batch that turns out to need
// its detail is returned to fetch again (the CLI sees one sorted batch; the TUI pages as they
// stream in).
type detailRule struct {
	kinds  *triage.Kinds
	window int64 // nanoseconds
	last   map[detailKey]*detailSeen
	kindOf map[string]model.ToolKind
	// lang holds the installations whose language a detail asked for, or a record that came
	// whole, will tell
	lang map[triage.Installation]bool
	memo triage.LanguageMemo
}

type detailKey struct{ tool, who string }

type detailSeen struct {
	e        model.Execution
	batch    int // the batch it came in; its index there is idx
	idx      int
	hydrated bool
}

func newDetailRule(kinds *triage.Kinds, window interface{ Nanoseconds() int64 }) *detailRule {
	return &detailRule{
		kinds: kinds, window: window.Nanoseconds(), last: map[detailKey]*detailSeen{},
		kindOf: map[string]model.ToolKind{}, lang: map[triage.Installation]bool{},
	}
}

// needBatch returns the positions in batch whose detail is needed, and the entries of
// earlier batches that now need theirs. n numbers the batch.
func (r *detailRule) needBatch(batch []model.Execution, n int) (need []int, again []model.Execution) {
	mark := make(map[int]bool)
	for i := range batch {
		e := &batch[i]
		k, ok := r.kindOf[e.ToolSlug]
		if !ok {
			k = r.kinds.Kind(e.ToolSlug)
			r.kindOf[e.ToolSlug] = k
		}
		if !k.IsWrite() {
			continue
		}
		// A record that came whole (a cache keeps the details it was given) needs nothing, but
		// a neighbour of it needs its own detail, to be compared with it.
		whole := e.Detailed
		if !whole && !triage.LogSucceeded(e.Status) {
			mark[i] = true // and, below, its neighbours: a failed attempt's neighbour is a group's member too
		}
		if !whole && r.memo.Needs(e) {
			// its SDK re-sends writes in one language only: one detail of its installation says which
			// (its own when it names no caller: it is no installation's)
			if in, ok := triage.InstallationOf(e); !ok || !r.lang[in] {
				r.lang[in] = ok
				mark[i] = true
			}
		} else if whole && e.SDKVersion != "" && r.memo.Depends(strings.TrimSpace(e.SDKVersion)) && r.memo.NamesSDK(e) {
			if in, ok := triage.InstallationOf(e); ok {
				r.lang[in] = true // a record that came whole tells its installation's
			}
		}
		tool, who := triage.CallerOf(e) // the callers duplicates are found among
		key := detailKey{tool, who}
		if prev := r.last[key]; prev != nil {
			if d := prev.e.Timestamp.Sub(e.Timestamp).Nanoseconds(); d <= r.window && d >= -r.window {
				if !whole {
					mark[i] = true
				}
				if !prev.hydrated {
					prev.hydrated = true
					if prev.batch == n {
						mark[prev.idx] = true
					} else {
						again = append(again, prev.e)
					}
				}
			}
		}
		r.last[key] = &detailSeen{e: *e, batch: n, idx: i, hydrated: whole || mark[i]}
	}
	for i := range batch {
		if mark[i] {
			need = append(need, i)
		}
	}
	return need, again
}

// detailWorkers bounds concurrent detail requests when the API does not say where its
// rate-limit budget stands (detailConcurrency).
const detailWorkers = 16

// FetchAll fetches the detail of every execution of the window that has none (export
// --details), keeping the window's judgement; it returns how many could not be fetched and
// the first error.
func (l *Loaded) FetchAll(ctx context.Context) (int, error) {
	lazy := newLazyDetails(ctx, l.a, maxDetailWorkers, false)
	pos := map[string]int{} // the window holds one copy of each id
	var want []model.Execution
	for i := range l.Execs {
		if !l.Execs[i].Detailed {
			pos[l.Execs[i].ID] = i
			want = append(want, l.Execs[i])
		}
	}
	lazy.want(want)
	got, failed, first := lazy.finish()
	for _, d := range got {
		l.Execs[pos[d.ID]] = d
	}
	return failed, first
}

// lookupErr is the error of an id a command was given that the source could not get: a usage
// error when the id is at fault (not found, malformed).
func lookupErr(err error) error {
	if IsUsage(err) {
		return &UsageError{Msg: err.Error(), Err: err}
	}
	return err
}

// Index maps each id to its first position (Lookup needs it; scan, which looks up only the
// first members of groups, does without).
func (l *Loaded) Index() {
	l.pos = make(map[string]int, len(l.Execs))
	for i := range l.Execs {
		if _, dup := l.pos[l.Execs[i].ID]; !dup {
			l.pos[l.Execs[i].ID] = i
		}
	}
}

// Position is id's index in Execs.
func (l *Loaded) Position(id string) (int, bool) {
	if l.pos == nil {
		l.Index()
	}
	i, ok := l.pos[id]
	return i, ok
}

// Lookup finds id among the loaded executions, else asks the source (the id may be outside
// the window), and makes sure it carries its full detail. An execution of the window keeps
// the window's judgement (the detail only shows more of the record), so show and bundle say
// of it what scan, list and the TUI say; one from outside the window is added and the window
// triaged again.
func (l *Loaded) Lookup(ctx context.Context, id string) (int, error) {
	i, ok := l.Position(id)
	if ok && l.Execs[i].Detailed {
		return i, nil
	}
	d, err := l.a.Get(ctx, id)
	if err != nil {
		return 0, lookupErr(err)
	}
	if ok {
		l.Execs[i] = d
		return i, nil
	}
	l.Execs = append(l.Execs, d)
	SortNewestFirst(l.Execs)
	l.Index()
	l.a.Learn(ctx, []model.Execution{d})
	l.analyze()
	return l.pos[id], nil
}

// Filter returns the positions of l's executions that q keeps, through an index of
// their records (a view that knows the groups answers pattern:, a group's cause).
func (l *Loaded) Filter(q filter.Query) []int { return l.index().Filter(q) }

// Hint is what the filter's index says of q keeping matched rows (filter.Index.Hint): the
// values that start as a whole identifier term that matched nothing, a field with no value.
func (l *Loaded) Hint(q filter.Query, matched int) string {
	if matched > 0 {
		return (*filter.Index)(nil).Hint(q, matched) // it needs no values
	}
	return l.index().Hint(q, matched)
}

// index is the filter's index of the window, newest first, with its groups.
func (l *Loaded) index() *filter.Index {
	ix := filter.NewIndex(len(l.Execs))
	for i := range l.Execs {
		ix.Append(filter.Row{Exec: &l.Execs[i], Triage: &l.Result.Triage[i]})
	}
	order, groupOf := make([]int32, len(l.Execs)), make([]int32, len(l.Execs))
	ids, patterns := make([]string, len(l.Result.Groups)), make([]string, len(l.Result.Groups))
	for gi, g := range l.Result.Groups {
		ids[gi], patterns[gi] = g.ID, string(g.Pattern)
	}
	for i := range l.Execs {
		order[i], groupOf[i] = int32(i), -1
		if gid := l.Result.Triage[i].GroupID; gid != "" {
			if gi, ok := l.Result.GroupIndex(gid); ok {
				groupOf[i] = int32(gi)
			}
		}
	}
	return ix.View(order, groupOf, ids, patterns)
}
