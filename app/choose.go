package app

import (
	"context"
	"slices"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// Chosen is what show and bundle read of a window: the executions they name, whole, each
// judged in its window (the journal's case applied), with the groups they belong to and the
// window's trigger deliveries (which say the delivery that started an execution).
type Chosen struct {
	Execs  []model.Execution
	Triage []model.Triage
	groups map[string]model.DuplicateGroup
	tools  map[string]string // each group's first member's tool, by group id
	// Deliveries are the window's trigger deliveries.
	Deliveries *triage.Deliveries
	// DetailErrors, FirstDetailError and Duplicates are Loaded's.
	DetailErrors     int
	FirstDetailError error
	Duplicates       int
}

// Group is the duplicate group id of a chosen execution.
func (c *Chosen) Group(id string) (model.DuplicateGroup, bool) {
	g, ok := c.groups[id]
	return g, ok
}

// GroupTool is the tool of a chosen execution's group's first member.
func (c *Chosen) GroupTool(id string) string { return c.tools[id] }

// Choose reads the window and returns the executions ids names (each once, in that order),
// whole. An export is streamed into the window as scan reads it, and only the records named
// are read again, whole, from where they are: memory grows with the window's rows, not with
// its records. Another source is loaded whole (Load), and an id it lacks is asked of it
// (Loaded.Lookup: outside the window, or known only as a list entry), as is an id outside an
// export's window.
func (a *App) Choose(ctx context.Context, ids []string) (*Chosen, error) {
	if c, ok, err := a.chooseStreamed(ctx, func(e *model.Execution) bool { return slices.Contains(ids, e.ID) }, ids); ok || err != nil {
		return c, err
	}
	l, err := a.Load(ctx)
	if err != nil {
		return nil, err
	}
	// Lookup may add an execution and re-sort, so positions are read only once all are in.
	for _, id := range ids {
		if _, err := l.Lookup(ctx, id); err != nil {
			return nil, err
		}
	}
	pos := make([]int, len(ids))
	for k, id := range ids {
		pos[k], _ = l.Position(id)
		if a.o.Lean { // the load dropped what triage never reads: the record whole, as Get gives it
			e, err := a.Get(ctx, id)
			if err != nil {
				return nil, lookupErr(err)
			}
			l.Execs[pos[k]] = e
		}
	}
	return l.chosen(pos), nil
}

// ChooseSession is Choose for the executions of one tool-router session: those of the window
// and those the source's server finds by its id (the API's list entries carry none), in the
// window's order (newest first).
func (a *App) ChooseSession(ctx context.Context, sid string) (*Chosen, error) {
	if c, ok, err := a.chooseStreamed(ctx, func(e *model.Execution) bool { return e.SessionID == sid }, nil); ok || err != nil {
		return c, err
	}
	l, err := a.Load(ctx)
	if err != nil {
		return nil, err
	}
	found, err := a.FindSessions(ctx, []string{sid})
	if err != nil {
		return nil, err
	}
	l.Put(found)
	var pos []int
	for i := range l.Execs {
		if l.Execs[i].SessionID == sid {
			pos = append(pos, i)
		}
	}
	return l.chosen(pos), nil
}

// chosen is the executions at pos of a loaded window, with what Chosen keeps of the window.
func (l *Loaded) chosen(pos []int) *Chosen {
	c := &Chosen{groups: map[string]model.DuplicateGroup{}, tools: map[string]string{}, Deliveries: triage.NewDeliveries(),
		DetailErrors: l.DetailErrors, FirstDetailError: l.FirstDetailError, Duplicates: l.Duplicates}
	for i := range l.Execs {
		c.Deliveries.Add(&l.Execs[i])
	}
	for _, i := range pos {
		t := l.Result.Triage[i]
		c.Execs, c.Triage = append(c.Execs, l.Execs[i]), append(c.Triage, t)
		if g, ok := l.Result.Group(t.GroupID); ok && t.GroupID != "" {
			c.groups[g.ID] = g
			if j, ok := l.Position(g.ExecutionIDs[0]); ok {
				c.tools[g.ID] = l.Execs[j].ToolSlug
			}
		}
	}
	return c
}

// chooseStreamed is Choose over an export streamed into rows: the records pick keeps are
// remembered where they are as they stream by, and those the window keeps (the latest copy of
// each id, model.KeepsEarlierCopy) read again whole. ok is false for a source that is not
// streamed, and for ids the window does not hold (the caller loads it whole then).
func (a *App) chooseStreamed(ctx context.Context, pick func(*model.Execution) bool, ids []string) (*Chosen, bool, error) {
	loc, ok := a.src.(source.Located)
	if !ok {
		return nil, false, nil
	}
	type copyAt struct {
		ref      source.Ref
		located  bool // else the source cannot read it again where it is (refs nil): Get does
		detailed bool
	}
	kept := map[string]copyAt{}
	sc, err := a.scan(ctx, loc, window.NewStream(a.kinds, a.topt), func(batch []model.Execution, refs []source.Ref) {
		for i := range batch {
			e := &batch[i]
			if !pick(e) {
				continue
			}
			if old, seen := kept[e.ID]; seen && model.KeepsEarlierCopy(old.detailed, e.Detailed) {
				continue // the window keeps the earlier, whole copy
			}
			c := copyAt{detailed: e.Detailed, located: refs != nil}
			if c.located {
				c.ref = refs[i]
			}
			kept[e.ID] = c
		}
	})
	if err != nil {
		return nil, true, err
	}
	// The positions of the records chosen, and of the groups' first members.
	want := map[string]int{}
	for id := range kept {
		want[id] = -1
	}
	for _, g := range sc.Groups {
		if _, ok := want[g.ExecutionIDs[0]]; !ok {
			want[g.ExecutionIDs[0]] = -1
		}
	}
	for i := range sc.Len() {
		if _, ok := want[sc.ID(i)]; ok {
			want[sc.ID(i)] = i
		}
	}
	order := ids // the ids chosen: as asked, or the rows pick keeps, newest first
	if ids == nil {
		for i := range sc.Len() {
			if _, ok := kept[sc.ID(i)]; !ok {
				continue
			}
			if row := sc.Exec(i); pick(&row) { // the copy the window kept
				order = append(order, sc.ID(i))
			}
		}
	}
	c := &Chosen{groups: map[string]model.DuplicateGroup{}, tools: map[string]string{}, Deliveries: sc.ds.Deliveries,
		Duplicates: sc.Duplicates}
	if c.Deliveries == nil {
		c.Deliveries = triage.NewDeliveries()
	}
	groupAt := make(map[string]int, len(sc.Groups))
	for gi, g := range sc.Groups {
		groupAt[g.ID] = gi
	}
	var refs []source.Ref
	var refIDs []string
	at := map[string]int{} // chosen id → its place in c.Execs
	for _, id := range order {
		i, in := want[id]
		if !in || i < 0 {
			// Not in this window: outside it (--since), the whole load finds it and judges
			// the window with it, as for any source; not in the file, the source says so.
			if _, err := a.Get(ctx, id); err != nil {
				return nil, true, lookupErr(err)
			}
			return nil, false, nil
		}
		if _, twice := at[id]; twice {
			continue
		}
		at[id] = len(c.Execs)
		t := sc.Triage(i)
		// the record whole, with every field (a lean load dropped what triage never reads)
		var e model.Execution
		if cp := kept[id]; cp.located {
			refs, refIDs = append(refs, cp.ref), append(refIDs, id)
		} else if e, err = a.Get(ctx, id); err != nil {
			return nil, true, err
		}
		c.Execs, c.Triage = append(c.Execs, e), append(c.Triage, t)
		if gi, ok := groupAt[t.GroupID]; ok && t.GroupID != "" {
			g := sc.Groups[gi]
			c.groups[g.ID] = g
			if j := want[g.ExecutionIDs[0]]; j >= 0 {
				c.tools[g.ID] = sc.Tool(j)
			}
		}
	}
	if len(refs) > 0 {
		if err := loc.ReadWhole(ctx, refs, refIDs, func(k int, e model.Execution) error {
			c.Execs[at[refIDs[k]]] = e
			return nil
		}); err != nil {
			return nil, true, err
		}
	}
	return c, true, nil
}
