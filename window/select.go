package window

import (
	"context"
	"slices"

	"github.com/exectriage/exectriage/filter"
)

// ItemKind says what a list row shows.
type ItemKind uint8

const (
	ItemExec   ItemKind = iota // one execution
	ItemGroup                  // a duplicate group's header row
	ItemMember                 // an execution inside an expanded group
)

// Item is one row of the list: 16 bytes, so a million rows stay cheap.
type Item struct {
	Kind   ItemKind
	Child  bool  // a meta tool's child, placed right under its run (ItemExec)
	Exec   int32 // position of the execution (ItemExec, ItemMember; the newest member for ItemGroup)
	Group  int32 // index into Groups, -1 for none
	Member int32 // position in the group, oldest first (ItemMember)
}

// View is the list's toggles.
type View struct {
	FlaggedOnly bool // a
	WritesOnly  bool // w
	Duplicates  bool // d: group rows with their members
	// BestMatch (s) orders a free-text filter's matches best first (filter.Index.Rank) rather
	// than newest first, when there are at most MaxRanked of them; not in the duplicates view.
	BestMatch bool
	// Collapsed groups (by id) show only their header row in the duplicates view.
	Collapsed map[string]bool
}

// MaxRanked is the most matches a best-match order ranks: ranking costs at most about
// 0.33 µs per match on the reference machine (filter BenchmarkRankMaxRanked: 34 ms for
// 103,612 matches of a scattered query, 20 ms for 150,000 of one letter; sahilm/fuzzy's
// scoring, which it replaced, took 38 ms for 20,000), so 100,000 stay within a keystroke's
// budget; beyond it the matches stay newest first until more is typed.
const MaxRanked = 100_000

// Ranks reports whether the view orders q's matches (n of them) by best match.
func (v View) Ranks(q filter.Query, n int) bool {
	return v.BestMatch && !v.Duplicates && q.Scored() && n <= MaxRanked
}

// Matches returns the executions (positions, increasing) that q keeps; prev, when not nil,
// must be the result of a query q refines on the same dataset (the search narrows it).
func (ds *Dataset) Matches(q filter.Query, prev []int) []int {
	pos, _ := ds.MatchesContext(context.Background(), q, prev)
	return pos
}

// MatchesContext is Matches that stops when ctx ends, returning its error (the TUI stops a
// key's search when the next key comes).
func (ds *Dataset) MatchesContext(ctx context.Context, q filter.Query, prev []int) ([]int, error) {
	if ds == nil || ds.Filter == nil {
		return nil, ctx.Err()
	}
	return ds.Filter.FilterContext(ctx, q, prev)
}

// keeps reports whether the toggles keep execution i.
func (ds *Dataset) keeps(v *View, i int) bool {
	if !v.FlaggedOnly && !v.WritesOnly {
		return true
	}
	s := ds.sum.Row(int(ds.order[i]))
	if v.FlaggedOnly && !ds.Flag(i) {
		return false
	}
	return !v.WritesOnly || s.Kind.Kind().IsWrite()
}

// Select returns the rows for a view. match, when not nil, keeps the executions it accepts (a
// group stays when any member matches). It is O(n) and meant to run in a tea.Cmd.
func Select(ds *Dataset, v View, match func(exec int) bool) []Item {
	if ds == nil {
		return nil
	}
	keep := func(i int) bool { return ds.keeps(&v, i) && (match == nil || match(i)) }
	if !v.Duplicates {
		items := make([]Item, 0, ds.Len())
		for i := range ds.Len() {
			if keep(i) {
				items = append(items, Item{Kind: ItemExec, Exec: int32(i), Group: ds.GroupOf[i]})
			}
		}
		return ds.nest(items)
	}
	var items []Item
	for _, gi := range ds.groupOrder {
		members := ds.Members[gi]
		hit := false
		for _, ei := range members {
			if keep(int(ei)) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		items = append(items, Item{Kind: ItemGroup, Exec: slices.Min(members), Group: gi})
		if v.Collapsed[ds.Groups[gi].ID] {
			continue
		}
		for mi, ei := range members {
			items = append(items, Item{Kind: ItemMember, Exec: ei, Group: gi, Member: int32(mi)})
		}
	}
	return items
}

// SelectMatches is Select with the executions a filter kept, given as positions (increasing,
// as Dataset.Matches returns them, or in best-match order): outside the duplicates view it
// walks only those positions, in their order, so a narrow filter costs O(matches) rather than
// O(n).
func SelectMatches(ds *Dataset, v View, pos []int) []Item {
	if ds == nil {
		return nil
	}
	if v.Duplicates {
		keep := make([]bool, ds.Len())
		for _, p := range pos {
			keep[p] = true
		}
		return Select(ds, v, func(i int) bool { return keep[i] })
	}
	items := make([]Item, 0, len(pos))
	for _, i := range pos {
		if ds.keeps(&v, i) {
			items = append(items, Item{Kind: ItemExec, Exec: int32(i), Group: ds.GroupOf[i]})
		}
	}
	return ds.nest(items)
}

// Items are the list's rows: a slice of them, or, for a view that shows executions as they
// come (no toggle, no duplicates view, no meta-tool run to nest children under), the
// dataset's executions themselves, every one in order or those a filter matched, each row
// made when it is read: a million rows of 16 bytes are then 16 MB the list does not hold, and
// a key typed over a million executions does not make them. The zero value is no rows.
type Items struct {
	list    []Item
	all     *Dataset // the executions of it (list is nil): every one in order, unless matched
	matched bool     // the rows are the executions of pos, in its order
	pos     []int
}

// ItemsOf is the rows of a slice.
func ItemsOf(list []Item) Items { return Items{list: list} }

// Len is the number of rows.
func (it Items) Len() int {
	switch {
	case it.matched:
		return len(it.pos)
	case it.all != nil:
		return it.all.Len()
	}
	return len(it.list)
}

// At is row i.
func (it Items) At(i int) Item {
	if it.all != nil {
		if it.matched {
			i = it.pos[i]
		}
		return Item{Kind: ItemExec, Exec: int32(i), Group: it.all.GroupOf[i]}
	}
	return it.list[i]
}

// Whole reports whether the rows are every execution of the dataset, in order (row i is
// execution i).
func (it Items) Whole() bool { return it.all != nil && !it.matched }

// Slice is the rows as a slice (made, for rows read from the dataset).
func (it Items) Slice() []Item {
	if it.all == nil {
		return it.list
	}
	out := make([]Item, it.Len())
	for i := range out {
		out[i] = it.At(i)
	}
	return out
}

// SelectMatchItems is SelectMatches as Items: the matched executions themselves (pos, which
// must not change afterwards) when the view shows them as they come.
func SelectMatchItems(ds *Dataset, v View, pos []int) Items {
	if ds == nil || v.FlaggedOnly || v.WritesOnly || v.Duplicates || ds.nests(pos) {
		return ItemsOf(SelectMatches(ds, v, pos))
	}
	return Items{all: ds, matched: true, pos: pos}
}

// SelectItems is Select without a filter, as Items: the whole dataset when the view shows
// every execution in order.
func SelectItems(ds *Dataset, v View) Items {
	if ds != nil && !v.FlaggedOnly && !v.WritesOnly && !v.Duplicates && len(ds.children) == 0 {
		return Items{all: ds}
	}
	return ItemsOf(Select(ds, v, nil))
}
