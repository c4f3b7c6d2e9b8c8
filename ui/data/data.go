// Package data is the TUI's read model: an immutable Dataset of executions (newest first) with
// their triage and duplicate groups, a histogram for the header's sparkline, and Select, which
// turns a dataset plus the view toggles and a filter into the rows the list shows. Building a
// dataset and selecting rows are O(n) and run in tea.Cmds, never in Update or View; everything
// View reads from here is O(1) or O(visible rows).
package data

import (
	"cmp"
	"slices"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
)

// Analysis is triage's answer for a slice of executions: Triage aligned with the input.
type Analysis struct {
	Triage []model.Triage
	Groups []model.DuplicateGroup
}

// Analyzer runs triage over executions (triage.Analyze behind the ui's Backend).
type Analyzer func(execs []model.Execution) Analysis

// HistBuckets is the histogram's resolution; the header resamples it to its width.
const HistBuckets = 512

// Histogram counts executions and flagged writes over [From, To].
type Histogram struct {
	From, To time.Time
	Execs    [HistBuckets]int32
	Flagged  [HistBuckets]int32
}

// Dataset is one immutable snapshot. Never modify it after Build: the UI reads it while the
// next one is being built.
type Dataset struct {
	Execs  []model.Execution // newest first, unique ids
	Triage []model.Triage    // aligned with Execs
	Groups []model.DuplicateGroup
	// GroupOf is the index in Groups of each execution's duplicate group, -1 for none.
	GroupOf []int32
	// Members are each group's executions as indices into Execs, oldest first.
	Members [][]int32
	Flagged int
	Writes  int
	Hist    Histogram
	// Filter is the filter package's index over Execs (same positions); read-only once built,
	// so concurrent filter commands may share it.
	Filter *filter.Index

	index      map[string]int32
	groupIndex map[string]int32
	groupOrder []int32 // groups, newest last member first
}

// Build merges base and more (a record in more replaces one with the same id in base), sorts
// newest first, runs the analyzer and indexes the result. base and more are not modified.
func Build(base, more []model.Execution, analyze Analyzer) *Dataset {
	seen := make(map[string]int, len(base)+len(more))
	execs := make([]model.Execution, 0, len(base)+len(more))
	add := func(e model.Execution) {
		if e.ID == "" {
			return
		}
		if i, ok := seen[e.ID]; ok {
			// Keep the detailed copy when the newer one is only a list entry.
			if execs[i].Detailed && !e.Detailed {
				return
			}
			execs[i] = e
			return
		}
		seen[e.ID] = len(execs)
		execs = append(execs, e)
	}
	for _, e := range base {
		add(e)
	}
	for _, e := range more {
		add(e)
	}
	newestFirst := func(a, b model.Execution) int {
		if c := b.Timestamp.Compare(a.Timestamp); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	}
	// The API pages newest first, so a refresh usually arrives sorted: check before sorting.
	if !slices.IsSortedFunc(execs, newestFirst) {
		slices.SortStableFunc(execs, newestFirst)
	}
	var an Analysis
	if analyze != nil {
		an = analyze(execs)
	}
	return index(execs, an)
}

func index(execs []model.Execution, an Analysis) *Dataset {
	ds := &Dataset{
		Execs:      execs,
		Triage:     an.Triage,
		Groups:     an.Groups,
		GroupOf:    make([]int32, len(execs)),
		index:      make(map[string]int32, len(execs)),
		groupIndex: make(map[string]int32, len(an.Groups)),
	}
	if len(ds.Triage) != len(execs) {
		ds.Triage = make([]model.Triage, len(execs))
	}
	for i := range execs {
		ds.index[execs[i].ID] = int32(i)
		ds.GroupOf[i] = -1
		if ds.Triage[i].Flagged {
			ds.Flagged++
		}
		if ds.Triage[i].Kind.IsWrite() {
			ds.Writes++
		}
	}
	ds.Members = make([][]int32, len(ds.Groups))
	for gi, g := range ds.Groups {
		ds.groupIndex[g.ID] = int32(gi)
		for _, id := range g.ExecutionIDs {
			if ei, ok := ds.index[id]; ok {
				ds.Members[gi] = append(ds.Members[gi], ei)
				ds.GroupOf[ei] = int32(gi)
			}
		}
	}
	ds.groupOrder = make([]int32, 0, len(ds.Groups))
	for gi := range ds.Groups {
		if len(ds.Members[gi]) > 0 {
			ds.groupOrder = append(ds.groupOrder, int32(gi))
		}
	}
	// Newest group first: the smallest index of a member is its newest execution.
	newest := func(gi int32) int32 { return slices.Min(ds.Members[gi]) }
	slices.SortStableFunc(ds.groupOrder, func(a, b int32) int { return cmp.Compare(newest(a), newest(b)) })
	ds.Hist = histogram(execs, ds.Triage)
	ds.Filter = filter.NewIndex(len(execs))
	for i := range execs {
		ds.Filter.Append(filter.Row{Exec: &execs[i], Triage: &ds.Triage[i]})
	}
	return ds
}

func histogram(execs []model.Execution, tr []model.Triage) Histogram {
	var h Histogram
	if len(execs) == 0 {
		return h
	}
	h.To, h.From = execs[0].Timestamp, execs[len(execs)-1].Timestamp
	span := h.To.Sub(h.From)
	for i := range execs {
		b := 0
		if span > 0 {
			b = int(int64(execs[i].Timestamp.Sub(h.From)) * (HistBuckets - 1) / int64(span))
		}
		b = min(max(b, 0), HistBuckets-1)
		h.Execs[b]++
		if tr[i].Flagged {
			h.Flagged[b]++
		}
	}
	return h
}

// Len is the number of executions.
func (ds *Dataset) Len() int {
	if ds == nil {
		return 0
	}
	return len(ds.Execs)
}

// Index returns the position of an execution id, or -1.
func (ds *Dataset) Index(id string) int {
	if ds == nil {
		return -1
	}
	if i, ok := ds.index[id]; ok {
		return int(i)
	}
	return -1
}

// Group returns the duplicate group an execution belongs to, or nil.
func (ds *Dataset) Group(exec int) *model.DuplicateGroup {
	if ds == nil || exec < 0 || exec >= len(ds.GroupOf) || ds.GroupOf[exec] < 0 {
		return nil
	}
	return &ds.Groups[ds.GroupOf[exec]]
}

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
	Exec   int32 // index into Execs (ItemExec, ItemMember; the newest member for ItemGroup)
	Group  int32 // index into Groups, -1 for none
	Member int32 // position in the group, oldest first (ItemMember)
}

// View is the list's toggles.
type View struct {
	FlaggedOnly bool // a
	WritesOnly  bool // w
	Duplicates  bool // d: group rows with their members
	// Collapsed groups (by id) show only their header row in the duplicates view.
	Collapsed map[string]bool
}

// Matches returns the executions (positions in Execs, increasing) that q keeps; prev, when not
// nil, must be the result of a query q refines on the same dataset (the search narrows it).
func (ds *Dataset) Matches(q filter.Query, prev []int) []int {
	if ds == nil || ds.Filter == nil {
		return nil
	}
	if prev != nil {
		return ds.Filter.FilterFrom(prev, q)
	}
	return ds.Filter.Filter(q)
}

// Select returns the rows for a view. match, when not nil, keeps the executions it accepts (a
// group stays when any member matches). It is O(n) and meant to run in a tea.Cmd.
func Select(ds *Dataset, v View, match func(exec int) bool) []Item {
	if ds == nil {
		return nil
	}
	keep := func(i int) bool {
		t := &ds.Triage[i]
		if v.FlaggedOnly && !t.Flagged {
			return false
		}
		if v.WritesOnly && !t.Kind.IsWrite() {
			return false
		}
		return match == nil || match(i)
	}
	if !v.Duplicates {
		items := make([]Item, 0, len(ds.Execs))
		for i := range ds.Execs {
			if keep(i) {
				items = append(items, Item{Kind: ItemExec, Exec: int32(i), Group: ds.GroupOf[i]})
			}
		}
		return items
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

// SelectMatches is Select with the executions a filter kept, given as increasing positions
// (Dataset.Matches): outside the duplicates view it walks only those positions, so a narrow
// filter costs O(matches) rather than O(n).
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
		t := &ds.Triage[i]
		if v.FlaggedOnly && !t.Flagged || v.WritesOnly && !t.Kind.IsWrite() {
			continue
		}
		items = append(items, Item{Kind: ItemExec, Exec: int32(i), Group: ds.GroupOf[i]})
	}
	return items
}
