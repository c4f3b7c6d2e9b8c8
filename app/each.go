package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/window"
)

// Walked says what Each handed on.
type Walked struct {
	// Executions is how many executions were handed on; Duplicates how many records were
	// other copies of their log ids.
	Executions, Duplicates int
	// DetailErrors and FirstDetailError are Loaded's.
	DetailErrors     int
	FirstDetailError error
}

// errUnlocated stops a walk over an export whose records cannot be read again.
var errUnlocated = errors.New("the records cannot be read again where they are")

// Each hands every execution of the window to each, whole, newest first (ties by id), each id
// once (its latest copy, the one every front keeps), as Load holds them (export). An export is
// read twice rather than held: once for where each record is, then each again, whole, in that
// order; memory grows with the window's ids, not with its records. Another source is loaded
// whole, with every list entry's detail fetched first when details is set (Loaded.FetchAll).
func (a *App) Each(ctx context.Context, details bool, each func(*model.Execution) error) (Walked, error) {
	if loc, ok := a.src.(source.Located); ok {
		w, err := a.eachLocated(ctx, loc, each)
		if !errors.Is(err, errUnlocated) {
			return w, err
		}
	}
	l, err := a.Load(ctx)
	if err != nil {
		return Walked{}, err
	}
	w := Walked{Executions: len(l.Execs), Duplicates: l.Duplicates, DetailErrors: l.DetailErrors, FirstDetailError: l.FirstDetailError}
	if details {
		if n, first := l.FetchAll(ctx); n > 0 {
			w.DetailErrors, w.FirstDetailError = n, first
		}
	}
	for i := range l.Execs {
		if err := each(&l.Execs[i]); err != nil {
			return w, err
		}
	}
	return w, nil
}

// eachLocated is Each over an export that says where each record is.
func (a *App) eachLocated(ctx context.Context, loc source.Located, each func(*model.Execution) error) (Walked, error) {
	type at struct {
		id       string
		ts       time.Time
		ref      source.Ref
		detailed bool
	}
	var recs []at
	if n := a.SizeHint(a.Window()); n > 0 {
		recs = make([]at, 0, n)
	}
	err := loc.LoadLocated(ctx, a.Window(), func(b []model.Execution, refs []source.Ref) error {
		if refs == nil {
			return errUnlocated
		}
		for i := range b {
			// the id's own copy: a batch's strings may share its buffer
			recs = append(recs, at{id: strings.Clone(b[i].ID), ts: b[i].Timestamp, ref: refs[i], detailed: b[i].Detailed})
		}
		return nil
	})
	if err != nil {
		return Walked{}, err
	}
	dead, dups := window.LatestCopies(len(recs), func(i int) string { return recs[i].id }, func(i int) bool { return recs[i].detailed })
	keep := recs[:0]
	for i := range recs {
		if dead == nil || dead[i/64]&(1<<(i%64)) == 0 {
			keep = append(keep, recs[i])
		}
	}
	slices.SortStableFunc(keep, func(x, y at) int { return newerFirstOf(x.ts, y.ts, x.id, y.id) }) // SortNewestFirst's order
	w := Walked{Executions: len(keep), Duplicates: dups + a.repeats()}
	const chunk = 512
	refs, ids := make([]source.Ref, 0, chunk), make([]string, 0, chunk)
	for len(keep) > 0 {
		part := keep[:min(chunk, len(keep))]
		keep = keep[len(part):]
		refs, ids = refs[:0], ids[:0]
		for _, r := range part {
			refs, ids = append(refs, r.ref), append(ids, r.id)
		}
		if err := loc.ReadWhole(ctx, refs, ids, func(_ int, e model.Execution) error { return each(&e) }); err != nil {
			return w, err
		}
	}
	return w, nil
}
