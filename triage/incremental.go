package triage

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/exectriage/exectriage/internal/capacity"
	"github.com/exectriage/exectriage/model"
)

// Incremental triages executions as they stream in while keeping only a few bytes of each:
// Add classifies an execution at once (everything but its duplicate group), and Groups finds
// the duplicate groups at the end, fetching again only the writes that have a neighbour of the
// same tool and caller within the window — the only ones that can be duplicates. For the same
// executions added in the same order, the triage and the groups are exactly Analyze's (a test
// holds them together). A view of a million executions keeps compact rows (ui/data.Summaries),
// an Incremental and the source, which re-reads full records on demand.
//
// An Incremental is not safe for concurrent use.
type Incremental struct {
	opt     Options
	kinds   *Kinds
	cls     *Classifier
	callers *Callers
	writes  []WriteSpan // the groupable writes, by position (ref); caller -1 once dropped
	n       int
	// Classify's: a Classifier per core, and the slices it fills.
	part      []*Classifier
	ts        []model.Triage
	groupable []bool
	// last says the next Groups is the last call (Last)
	last bool
}

// Last says nothing will be added or dropped after the next Groups (a window streamed once):
// that call takes the writes it groups rather than copying them, and the analysis is spent.
func (a *Incremental) Last() { a.last = true }

// NewIncremental returns an empty incremental triage with the given kinds (nil: by slug) and
// options.
func NewIncremental(kinds *Kinds, opt Options) *Incremental {
	opt = opt.WithDefaults()
	if opt.Deliveries == nil {
		opt.Deliveries = NewDeliveries()
	}
	if opt.MetaRuns == nil {
		opt.MetaRuns = NewMetaRuns()
	}
	return &Incremental{opt: opt, kinds: kinds, cls: NewClassifier(kinds, opt), callers: NewCallers()}
}

// Deliveries is the trigger deliveries added so far (what StartedBy reads).
func (a *Incremental) Deliveries() *Deliveries { return a.opt.Deliveries }

// Len returns how many executions were added.
func (a *Incremental) Len() int { return a.n }

// Add triages the next execution (its position is Len() before the call) and returns its
// triage without GroupID, which Groups supplies.
func (a *Incremental) Add(e *model.Execution) model.Triage {
	t, groupable := a.cls.Classify(e)
	return a.Record(e, t, groupable)
}

// Classify triages a batch on every core, for Record to add in order afterwards: what Add
// does, the costly half in parallel. The slices are the analysis's own, good until the next
// Classify. Each core's Classifier, with its memos, serves every batch: made again for each,
// the memos and the results made 200 MB of garbage over a 1M load.
func (a *Incremental) Classify(batch []model.Execution) (ts []model.Triage, groupable []bool) {
	n := len(batch)
	if cap(a.ts) < n {
		a.ts, a.groupable = make([]model.Triage, n), make([]bool, n)
	}
	ts, groupable = a.ts[:n], a.groupable[:n]
	for len(a.part) < parts(n, classifyMinBatch) {
		a.part = append(a.part, NewClassifier(a.kinds, a.opt))
	}
	parallelParts(n, classifyMinBatch, func(w, lo, hi int) {
		for i := lo; i < hi; i++ {
			ts[i], groupable[i] = a.part[w].Classify(&batch[i])
		}
	})
	return ts, groupable
}

// classifyMinBatch is the fewest executions Classify gives a goroutine of its own.
const classifyMinBatch = 512

// Reserve makes room for more executions (each may be a write to group).
func (a *Incremental) Reserve(more int) {
	a.writes = capacity.Grow(a.writes, more)
}

// Record adds the next execution (its position is Len() before the call) with the triage
// Classify gave it, and returns that triage.
func (a *Incremental) Record(e *model.Execution, t model.Triage, groupable bool) model.Triage {
	caller := int32(-1)
	if groupable {
		caller = a.callers.Of(e)
	}
	return a.RecordCaller(e, t, groupable, caller)
}

// RecordCaller is Record for a caller that numbers the callers itself, as Callers does (the
// same number for the same caller, in the order first seen): a store that has the tool, user
// and account as symbols already, rather than hashing their strings again. caller is read
// only when groupable.
func (a *Incremental) RecordCaller(e *model.Execution, t model.Triage, groupable bool, caller int32) model.Triage {
	pos := a.n
	a.n++
	a.opt.Deliveries.Add(e)          // a trigger delivery names its handler's duplicates
	a.opt.MetaRuns.Add(e, t.Outcome) // a meta tool's run names its children's
	a.cls.slug(e.ToolSlug)           // Groups regroups with the kinds known when it was added
	if groupable && pos < 1<<31-1 {
		a.writes = append(a.writes, SpanOf(e, t.Outcome, caller, int32(pos)))
	}
	return t
}

// Drop forgets the execution added at pos (a later Add replaced it: the same id arrived again,
// in detail or with a new status): it can no longer join a duplicate group. Its position
// stays taken.
func (a *Incremental) Drop(pos int) {
	i, ok := slices.BinarySearchFunc(a.writes, pos, func(w WriteSpan, p int) int { return cmp.Compare(int(w.ref), p) })
	if ok {
		a.writes[i].caller = -1
	}
}

// Groups finds the duplicate groups among the executions added so far, ordered like
// Analyze's, with the positions of each group's members (oldest first). fetch returns the
// execution added at a position, in full (from the source), and is called on every core at
// once; an error stops the search. Each candidate is fetched once.
func (a *Incremental) Groups(
	ctx context.Context,
	fetch func(ctx context.Context, pos int) (model.Execution, error),
) ([]model.DuplicateGroup, [][]int, error) {
	return a.GroupsRead(ctx, func(ctx context.Context, positions []int) ([]model.Execution, error) {
		return fetchAll(ctx, positions, fetch)
	}, nil)
}

// GroupsRead is Groups for a source that reads a batch of records at once (an export read
// again at the records' places): read returns the executions at positions, in full and in
// that order. size, when not nil, is what the record at a position takes to read (its bytes
// in the file): a batch then holds at most readBytes of them. The next batch is read while
// one is grouped.
func (a *Incremental) GroupsRead(
	ctx context.Context,
	read func(ctx context.Context, positions []int) ([]model.Execution, error),
	size func(pos int) int64,
) ([]model.DuplicateGroup, [][]int, error) {
	// The writes of each caller and tool with a neighbour in the window. Without ids, every
	// member that shares its start with a neighbour is kept: a superset of Analyze's
	// candidates, which changes no group (see mayRepeat).
	var ws []WriteSpan
	if a.last { // the writes are this call's: no copy of them is made
		ws, a.writes = slices.DeleteFunc(a.writes, func(w WriteSpan) bool { return w.caller < 0 }), nil
	} else {
		ws = make([]WriteSpan, 0, len(a.writes))
		for _, w := range a.writes {
			if w.caller >= 0 { // not dropped
				ws = append(ws, w)
			}
		}
	}
	refs, ends := Candidates(ws, a.opt.Window, a.opt.RetryReach, func(int32) string { return "" })
	ws = nil
	cands := make([]int, len(refs))
	for k, r := range refs {
		cands[k] = int(r)
	}
	// Batches of whole callers' runs (callers never share a group), each read while the one
	// before is grouped.
	type batch struct {
		pos   []int
		execs []model.Execution
		err   error
	}
	var reader sync.WaitGroup
	defer reader.Wait() // after the cancel below: no read outlives the call
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reads := make(chan batch, 1)
	reader.Go(func() {
		defer close(reads)
		limit := incBatch
		var bytes []int64 // bytes[k]: what the candidates before cands[k] take to read
		if size != nil {
			limit = incBatch * 2
			bytes = make([]int64, len(cands)+1)
			for k, c := range cands {
				bytes[k+1] = bytes[k] + size(c)
			}
		}
		for lo, e := 0, 0; lo < len(cands); {
			hi := lo
			for e < len(ends) && (hi == lo || ends[e]-lo <= limit && (bytes == nil || bytes[ends[e]]-bytes[lo] <= readBytes)) {
				hi = ends[e]
				e++
			}
			b := batch{pos: cands[lo:hi]}
			lo = hi
			b.execs, b.err = read(ctx, b.pos)
			select {
			case reads <- b:
			case <-ctx.Done():
				return
			}
			if b.err != nil {
				return
			}
		}
	})
	gr := &Grouper{cls: a.cls, opt: a.opt} // the kinds Add gave (the kinds may have learned more since)
	var pos [][]int
	ids := map[int]string{} // each member's id (a re-sent meta tool's groups are joined by id)
	for b := range reads {
		if b.err != nil {
			return nil, nil, b.err
		}
		for _, in := range gr.Add(b.execs) {
			ps := make([]int, len(in))
			for k, j := range in {
				ps[k] = b.pos[j]
				ids[b.pos[j]] = b.execs[j].ID
			}
			pos = append(pos, ps)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	groups, order := gr.Groups()
	members := make([][]int, len(groups))
	joined := false
	for n, ps := range pos {
		joined = joined || members[order[n]] != nil
		members[order[n]] = append(members[order[n]], ps...)
	}
	if joined { // a re-sent meta tool's tools, one group: its members in the group's order
		for k, ms := range members {
			if len(ms) < 2 {
				continue
			}
			rank := make(map[string]int, len(groups[k].ExecutionIDs))
			for i, id := range groups[k].ExecutionIDs {
				rank[id] = i
			}
			slices.SortStableFunc(ms, func(a, b int) int { return cmp.Compare(rank[ids[a]], rank[ids[b]]) })
		}
	}
	return groups, members, nil
}

// incBatch is how many candidates Groups fetches and groups at a time (more to finish a
// caller's run), and readBytes how many bytes of a file a batch of GroupsRead may take
// (records of real projects run to kilobytes: a count alone let two batches of them hold 60
// MB); twice incBatch when the sizes are known.
const (
	incBatch  = 4096
	readBytes = 8 << 20
)

// fetchAll fetches the executions at positions, on every core; the first error stops it.
func fetchAll(
	ctx context.Context,
	positions []int,
	fetch func(ctx context.Context, pos int) (model.Execution, error),
) ([]model.Execution, error) {
	execs := make([]model.Execution, len(positions))
	errs := make([]error, len(positions))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parallel(len(positions), 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			if err := ctx.Err(); err != nil {
				errs[k] = err
				return
			}
			if execs[k], errs[k] = fetch(ctx, positions[k]); errs[k] != nil {
				cancel()
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return execs, nil
}
