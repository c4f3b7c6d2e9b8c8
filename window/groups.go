package window

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
)

// Groups finds the duplicate groups among everything added so far, fetching the records that
// may repeat (writes with a neighbour of the same tool and caller within the window) by id.
// On error the previous groups stay.
func (b *Builder) Groups(ctx context.Context, fetch Fetcher) error {
	return b.GroupsAt(ctx, func(ctx context.Context, r int) (model.Execution, error) {
		return fetch(ctx, b.sum.ID(r))
	})
}

// GroupsFrom is Groups for a window added with AddLocated: the writes that may repeat are
// read again from loc where they are (a batch at a time, in file order, on every core, the
// next while one is grouped), or taken from those kept whole.
func (b *Builder) GroupsFrom(ctx context.Context, loc source.Located) error {
	b.settle() // a copy never joins a group with itself
	if b.inc == nil {
		return nil
	}
	if b.o.Once {
		b.inc.Last()
	}
	at := func(row int) int { // row's place among the located writes
		k, _ := slices.BinarySearch(b.wrRow, int32(row))
		return k
	}
	groups, pos, err := b.inc.GroupsRead(ctx, func(ctx context.Context, rows []int) ([]model.Execution, error) {
		return b.readBack(ctx, loc, rows, at)
	}, func(row int) int64 { return int64(b.wrRef[at(row)].Size()) })
	if err != nil {
		return err
	}
	b.setFound(groups, pos)
	b.kept = nil
	return nil
}

// readBack returns the records at rows, whole: kept, or read again at their refs in file
// order, on every core.
func (b *Builder) readBack(ctx context.Context, loc source.Located, rows []int, at func(int) int) ([]model.Execution, error) {
	full := make([]model.Execution, len(rows))
	var todo []int
	for j, r := range rows {
		if e, ok := b.kept[int32(r)]; ok {
			full[j] = e
			continue
		}
		todo = append(todo, j)
	}
	if len(todo) == 0 {
		return full, nil
	}
	slices.SortFunc(todo, func(x, y int) int { return cmp.Compare(rows[x], rows[y]) })
	workers := max(1, min(cores.N(), len(todo)/512))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		part := todo[len(todo)*w/workers : len(todo)*(w+1)/workers]
		wg.Go(func() {
			refs := make([]source.Ref, len(part))
			ids := make([]string, len(part))
			for i, j := range part {
				refs[i], ids[i] = b.wrRef[at(rows[j])], b.sum.ID(rows[j])
			}
			errs[w] = loc.ReadRefs(ctx, refs, ids, func(i int, e model.Execution) error {
				full[part[i]] = e
				return nil
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("reading the possible duplicates again: %w", err)
	}
	return full, nil
}

// GroupsAt is Groups for a caller that has the records by row (the order they were added in,
// replaced ones included): a loaded window gives its own.
func (b *Builder) GroupsAt(ctx context.Context, fetch func(ctx context.Context, row int) (model.Execution, error)) error {
	b.settle()
	if b.inc == nil {
		return nil
	}
	groups, pos, err := b.inc.Groups(ctx, fetch)
	if err != nil {
		return err
	}
	b.setFound(groups, pos)
	return nil
}

// setFound keeps the groups Incremental found, with their members' rows.
func (b *Builder) setFound(groups []model.DuplicateGroup, pos [][]int) {
	b.trim()
	b.groups = groups
	b.members = make([][]int32, len(pos))
	for gi, ps := range pos {
		b.members[gi] = make([]int32, len(ps))
		for j, p := range ps {
			b.members[gi][j] = int32(p)
		}
	}
}

// trim gives back, once a load is in, what the builder grew into only while loading: the
// symbols' cache (1.5 MB and the string copies it holds). The arrays keep the room they grew into: a copy of each would add its size
// to the load's peak (measured: 21 MB for the groupable writes alone, the peak within 1 MB of
// its target). The next load makes a cache again.
func (b *Builder) trim() {
	b.sum.syms.DropCache()
}

// setGroups takes groups made elsewhere (Build's analyzer), finding their members by id.
func (b *Builder) setGroups(groups []model.DuplicateGroup) {
	b.groups = groups
	b.members = make([][]int32, len(groups))
	for gi, g := range groups {
		for _, id := range g.ExecutionIDs {
			if r := b.ids.find(id, &b.sum); r >= 0 {
				b.members[gi] = append(b.members[gi], int32(r))
			}
		}
	}
}
