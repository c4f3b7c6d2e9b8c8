package triage

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

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
	writes  []incWrite
	n       int
}

// incWrite is what grouping needs of a groupable write before it fetches it: 40 bytes.
type incWrite struct {
	start, seen stamp // Start() and lastSeen()
	pos         int32
	caller      int32
}

// stamp is a time.Time without its location, compared and subtracted the same way.
type stamp struct {
	sec  int64
	nsec int32
}

func stampOf(t time.Time) stamp { return stamp{t.Unix(), int32(t.Nanosecond())} }

func (s stamp) time() time.Time { return time.Unix(s.sec, int64(s.nsec)) }

// NewIncremental returns an empty incremental triage with the given kinds (nil: by slug) and
// options.
func NewIncremental(kinds *Kinds, opt Options) *Incremental {
	return &Incremental{opt: opt.WithDefaults(), kinds: kinds, cls: NewClassifier(kinds, opt), callers: NewCallers()}
}

// Len returns how many executions were added.
func (a *Incremental) Len() int { return a.n }

// Add triages the next execution (its position is Len() before the call) and returns its
// triage without GroupID, which Groups supplies.
func (a *Incremental) Add(e *model.Execution) model.Triage {
	pos := a.n
	a.n++
	t, groupable := a.cls.Classify(e)
	if groupable && pos < 1<<31-1 {
		a.writes = append(a.writes, incWrite{start: stampOf(e.Start()), seen: stampOf(lastSeen(e)), pos: int32(pos), caller: a.callers.Of(e)})
	}
	return t
}

// Drop forgets the execution added at pos (a later Add replaced it: the same id arrived again,
// in detail or with a new status): it can no longer join a duplicate group. Its position
// stays taken.
func (a *Incremental) Drop(pos int) {
	i, ok := slices.BinarySearchFunc(a.writes, pos, func(w incWrite, p int) int { return cmp.Compare(int(w.pos), p) })
	if ok {
		a.writes[i].caller = -1
	}
}

// Groups finds the duplicate groups among the executions added so far, ordered like
// Analyze's, with the positions of each group's members (oldest first). fetch returns the
// execution added at a position, in full (from the source); an error stops the search.
func (a *Incremental) Groups(ctx context.Context, fetch func(ctx context.Context, pos int) (model.Execution, error)) ([]model.DuplicateGroup, [][]int, error) {
	// The writes of each caller and tool, by start; keep those with a neighbour in the window.
	ws := make([]incWrite, 0, len(a.writes))
	for _, w := range a.writes {
		if w.caller >= 0 { // not dropped
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(x, y incWrite) int {
		if x.caller != y.caller {
			return cmp.Compare(x.caller, y.caller)
		}
		if x.start.sec != y.start.sec {
			return cmp.Compare(x.start.sec, y.start.sec)
		}
		return cmp.Compare(x.start.nsec, y.start.nsec)
	})
	var cands []int
	for lo := 0; lo < len(ws); {
		hi := lo + 1
		for hi < len(ws) && ws[hi].caller == ws[lo].caller {
			hi++
		}
		cands = append(cands, mayRepeatStamps(ws[lo:hi], a.opt.Window)...)
		lo = hi
	}
	slices.Sort(cands) // read the source in its order
	// Their canonical arguments decide the buckets: fetch each candidate once for its key.
	buckets := map[string][]int{}
	for _, pos := range cands {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		e, err := fetch(ctx, pos)
		if err != nil {
			return nil, nil, err
		}
		if key, ok := GroupKey(&e, a.kindOf(e.ToolSlug), a.opt.VolatileKeys); ok {
			buckets[key] = append(buckets[key], pos)
		}
	}
	// Buckets of two or more: fetch the members again, split them where the window breaks.
	type found struct {
		g     model.DuplicateGroup
		first time.Time
		pos   []int
	}
	var groups []found
	for key, idx := range buckets {
		if len(idx) < 2 {
			continue
		}
		execs := make([]model.Execution, len(idx))
		outcomes := make([]model.Outcome, len(idx))
		local := make([]int, len(idx))
		for j, pos := range idx {
			e, err := fetch(ctx, pos)
			if err != nil {
				return nil, nil, err
			}
			execs[j] = e
			outcomes[j], _ = a.classifyAgain(&execs[j])
			local[j] = j
		}
		slices.SortFunc(local, func(x, y int) int {
			if c := execs[x].Start().Compare(execs[y].Start()); c != 0 {
				return c
			}
			return strings.Compare(execs[x].ID, execs[y].ID)
		})
		parts := make(map[int]effectArgs, len(local))
		for _, j := range local {
			_, parts[j], _ = effectKey(&execs[j], a.kindOf(execs[j].ToolSlug), a.opt.VolatileKeys)
		}
		gs, in := groupBucket(key, execs, outcomes, local, parts, a.opt)
		for k, g := range gs {
			f := found{g: g, first: execs[in[k][0]].Start()}
			for _, m := range in[k] {
				f.pos = append(f.pos, idx[m])
			}
			groups = append(groups, f)
		}
	}
	// Ordered as Analyze orders them: by the earliest start among the members of the groups
	// with that id (ids repeat only when execution ids do), then by id.
	first := make(map[string]time.Time, len(groups))
	for _, f := range groups {
		if t, ok := first[f.g.ID]; !ok || f.first.Before(t) {
			first[f.g.ID] = f.first
		}
	}
	slices.SortFunc(groups, func(x, y found) int {
		if c := first[x.g.ID].Compare(first[y.g.ID]); c != 0 {
			return c
		}
		return strings.Compare(x.g.ID, y.g.ID)
	})
	out := make([]model.DuplicateGroup, len(groups))
	pos := make([][]int, len(groups))
	for i, f := range groups {
		out[i], pos[i] = f.g, f.pos
	}
	return out, pos, nil
}

// kindOf is the kind Add gave the slug (the kinds may have learned more since).
func (a *Incremental) kindOf(slug string) model.ToolKind { return a.cls.slug(slug).kind }

func (a *Incremental) classifyAgain(e *model.Execution) (model.Outcome, string) {
	return classify(e, a.opt, a.cls.slug(e.ToolSlug).fx)
}

// mayRepeatStamps is mayRepeat over compact writes of one caller and tool, sorted by start.
// Without ids it keeps every member that shares its start with a neighbour (a superset of
// mayRepeat's, which changes nothing: see mayRepeat).
func mayRepeatStamps(ws []incWrite, window time.Duration) []int {
	var out []int
	var seen time.Time
	for j := range ws {
		w := &ws[j]
		start := w.start.time()
		keep := j > 0 && (start.Sub(seen) <= window || ws[j-1].start == w.start)
		if j+1 < len(ws) {
			keep = keep || ws[j+1].start.time().Sub(w.seen.time()) <= window || ws[j+1].start == w.start
		}
		if keep {
			out = append(out, int(w.pos))
		}
		if ls := w.seen.time(); j == 0 || ls.After(seen) {
			seen = ls
		}
	}
	return out
}
