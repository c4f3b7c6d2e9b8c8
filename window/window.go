// Package window is the triaged window every front reads: executions arrive in batches (pages
// of the API, chunks of a file), each is triaged once, on arrival, and kept as a compact row;
// the few writes that may repeat are read again, whole, and grouped; a Dataset is an immutable
// snapshot of it all, newest first, with the duplicate groups, a histogram and the filter's
// index, and Select turns a dataset plus the view toggles and a filter into the rows a list
// shows.
//
// A Dataset keeps a compact row per execution (Summaries: time, tool, toolkit, user,
// account, status, duration and the triage's codes), the triage's reason, the filter's index
// and the duplicate groups — a few hundred bytes per execution, so a million stay cheap. The
// full record (arguments, response, error text) is fetched from the source when it is needed.
// A Builder makes datasets as pages stream in, and each Snapshot costs O(n) without touching
// the records again. In the TUI, building and selecting run in tea.Cmds, never in Update or
// View; everything View reads from here is O(1) or O(visible rows).
package window

import (
	"context"
	"encoding/json"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// Analysis is triage's answer for a slice of executions: Triage aligned with the input.
type Analysis struct {
	Triage []model.Triage
	Groups []model.DuplicateGroup
}

// Analyzer runs triage over executions (triage.Analyze).
type Analyzer func(execs []model.Execution) Analysis

// Fetcher returns the full record of an execution from the source.
// It is called from several goroutines at once.
type Fetcher func(ctx context.Context, id string) (model.Execution, error)

// HistBuckets is the histogram's resolution; the header resamples it to its width.
const HistBuckets = 512

// Histogram counts executions and flagged writes over [From, To].
type Histogram struct {
	From, To time.Time
	Execs    [HistBuckets]int32
	Flagged  [HistBuckets]int32
}

// Dataset is one immutable snapshot, with executions at positions 0..Len()-1, newest first.
// Never modify it: the UI reads it while the next one is being built.
type Dataset struct {
	Groups []model.DuplicateGroup
	// GroupOf is the index in Groups of each execution's duplicate group, -1 for none.
	GroupOf []int32
	// Members are each group's executions as positions, oldest first.
	Members [][]int32
	// Flagged counts the flagged executions that still need a person; Settled those the
	// journal's cases closed (WithCases), which are no longer flagged.
	Flagged int
	Settled int
	Writes  int
	Hist    Histogram
	// Filter is the filter package's index over the executions (same positions); read-only,
	// so concurrent filter commands may share it.
	Filter *filter.Index
	// Deliveries are the trigger deliveries read so far, which say the delivery that started an
	// execution (triage.Deliveries.StartedBy); nil when the caller gave the triage (Build).
	Deliveries *triage.Deliveries

	sum     *Summaries // the builder's rows, in arrival order
	order   []int32    // position → row
	rank    []int32    // row → position, -1 when the row is not in the dataset
	reason  []Sym      // row → reasons
	note    []Sym      // row → notes
	reasons Symbols
	notes   Symbols
	ids     *idIndex // shared with the builder

	groupOrder []int32 // groups, newest last member first

	cases map[int32]*model.Case // the journal's case of each position that has one (WithCases)

	// children are each meta tool run's children (positions, in the order they ran) by the
	// run's position, parentOf the run of each such child; the list nests them. The bit sets
	// say which positions are runs and which children, so that placing them costs a bit test
	// a row.
	children  map[int32][]int32
	parentOf  map[int32]int32
	runBits   []uint64
	childBits []uint64

	approvals map[int32]approvalRole // by row (Builder.approvals)
}

// approvalRole is what a row says of an approval: the request_state it asked with (asked) or
// answered.
type approvalRole struct {
	state string
	asked bool
}

// approvalRoleOf is e's part in an approval, false when it has none.
func approvalRoleOf(e *model.Execution) (approvalRole, bool) {
	if st, ok := triage.AwaitsApproval(e); ok {
		return approvalRole{state: st, asked: true}, true
	}
	if a := e.Approval; a != nil && a.RequestState != "" {
		return approvalRole{state: a.RequestState}, true
	}
	return approvalRole{}, false
}

// Children are the positions of the executions that ran under execution i (a meta tool's
// run), in the order they ran; nil for most.
func (ds *Dataset) Children(i int) []int32 {
	if ds == nil {
		return nil
	}
	return ds.children[int32(i)]
}

func bit(bits []uint64, i int32) bool { return int(i/64) < len(bits) && bits[i/64]&(1<<(i%64)) != 0 }

// nests reports whether nest would move any of the executions of pos: one of them is a
// meta-tool run's child and another a run.
func (ds *Dataset) nests(pos []int) bool {
	if len(ds.children) == 0 {
		return false
	}
	kid, run := false, false
	for _, p := range pos {
		kid = kid || bit(ds.childBits, int32(p))
		run = run || bit(ds.runBits, int32(p))
		if kid && run {
			return true
		}
	}
	return false
}

// nest puts each listed child right under its listed run (the items are ItemExec, in list
// order); a child whose run is not listed stays where it is.
func (ds *Dataset) nest(items []Item) []Item {
	if len(ds.children) == 0 {
		return items
	}
	runs, kids := map[int32]bool{}, map[int32]bool{}
	for _, it := range items {
		if bit(ds.runBits, it.Exec) {
			runs[it.Exec] = true
		}
		if bit(ds.childBits, it.Exec) {
			kids[it.Exec] = true
		}
	}
	if len(kids) == 0 || len(runs) == 0 {
		return items
	}
	out := make([]Item, 0, len(items))
	placed := map[int32]bool{}
	var place func(it Item, depth int)
	place = func(it Item, depth int) {
		out = append(out, it)
		placed[it.Exec] = true
		if depth > 8 { // runs nested deeper than any meta tool does
			return
		}
		for _, c := range ds.children[it.Exec] {
			if kids[c] && !placed[c] {
				place(Item{Kind: ItemExec, Exec: c, Group: ds.GroupOf[c], Child: true}, depth+1)
			}
		}
	}
	for _, it := range items {
		if placed[it.Exec] {
			continue
		}
		if bit(ds.childBits, it.Exec) && runs[ds.parentOf[it.Exec]] && ds.parentOf[it.Exec] != it.Exec {
			continue // placed under its run
		}
		place(it, 0)
	}
	for _, it := range items { // a cycle of runs: what is left, where it was
		if !placed[it.Exec] {
			place(it, 0)
		}
	}
	return out
}

// WithCases returns a copy of the dataset in which each execution carries the journal's case
// (by id: cases of executions not in it are left out), replacing any earlier ones: a settled
// execution is no longer flagged, in the counts, the histogram, the toggles and the filter
// (flagged:, settled:), as in every other front (triage.ApplyCase). It costs O(n) for the
// histogram and O(cases) for the rest; the dataset is not changed.
func (ds *Dataset) WithCases(cases map[string]*model.Case) *Dataset {
	if ds == nil || ds.sum == nil || len(cases) == 0 && ds.cases == nil {
		return ds // nothing to apply, nothing to take back
	}
	cp := *ds
	cp.cases = nil
	cp.Flagged, cp.Settled = 0, 0
	var settled []int32
	put := func(i int, c *model.Case) {
		if i < 0 || c == nil {
			return
		}
		if cp.cases == nil {
			cp.cases = map[int32]*model.Case{}
		}
		cp.cases[int32(i)] = c
		if c.Settled {
			settled = append(settled, int32(i))
		}
	}
	if ds.ids != nil {
		for id, c := range cases {
			put(ds.Index(id), c)
		}
	} else if len(cases) > 0 { // a window streamed once keeps no index of its ids
		for i := range ds.Len() {
			put(i, cases[ds.ID(i)])
		}
	}
	for i := range cp.Len() {
		if cp.Flag(i) {
			cp.Flagged++
		}
	}
	cp.Settled = len(settled)
	if ds.Filter != nil {
		cp.Filter = ds.Filter.WithSettled(settled)
	}
	cp.Hist = histogram(&cp)
	return &cp
}

// Case is the journal's case of execution i (nil: none).
func (ds *Dataset) Case(i int) *model.Case { return ds.cases[int32(i)] }

// Len is the number of executions.
func (ds *Dataset) Len() int {
	if ds == nil {
		return 0
	}
	return len(ds.order)
}

// Index returns the position of an execution id, or -1.
func (ds *Dataset) Index(id string) int {
	if ds == nil || ds.ids == nil {
		return -1
	}
	r := ds.ids.find(id, ds.sum)
	if r < 0 || r >= len(ds.rank) {
		return -1
	}
	return int(ds.rank[r])
}

// ID returns the id of execution i.
func (ds *Dataset) ID(i int) string { return ds.sum.ID(int(ds.order[i])) }

// Timestamp returns the time of execution i.
func (ds *Dataset) Timestamp(i int) time.Time { return ds.sum.Timestamp(int(ds.order[i])) }

// Flag reports whether execution i still needs a person: triage flagged it and the journal
// has not settled it.
func (ds *Dataset) Flag(i int) bool {
	if c := ds.cases[int32(i)]; c != nil && c.Settled {
		return false
	}
	return ds.sum.Row(int(ds.order[i])).Flags&FlagFlagged != 0
}

// Exec returns execution i as the list knows it: its id, time, tool, toolkit, user, account,
// status, session and duration (and its request id, with the duration to the nanosecond, from
// a builder that keeps them: Options.Exact). It is not Detailed: the full record comes from the source (see Store).
func (ds *Dataset) Exec(i int) model.Execution {
	r := int(ds.order[i])
	s := ds.sum.Row(r)
	e := model.Execution{
		ID: ds.sum.ID(r), Timestamp: ds.sum.Timestamp(r),
		ToolSlug: ds.sum.Str(s.Tool), ToolkitSlug: ds.sum.Str(s.Toolkit), UserID: ds.sum.Str(s.User),
		ConnectedAccountID: ds.sum.Str(s.Account), Status: ds.sum.Str(s.Status), SessionID: ds.sum.Str(s.Session), RetryCount: -1,
	}
	if s.Duration >= 0 {
		e.Duration, e.HasDuration = time.Duration(s.Duration)*time.Millisecond, true
	}
	if d, known, kept := ds.sum.ExactDuration(r); kept {
		e.Duration, e.HasDuration = d, known
		e.RequestID = ds.sum.RequestID(r)
	}
	if d, ok := ds.Deliveries.Delivery(e.ID); ok { // a trigger delivery: what the index keeps of it
		e.Type, e.Delivery = model.TypeTriggerMessage, &d
	}
	if role, ok := ds.approvals[int32(r)]; ok { // what the row keeps of its approval
		if role.asked {
			e.Response, _ = json.Marshal(map[string]string{"result_type": "input_required", "request_state": role.state})
		} else {
			e.Approval = &model.Approval{RequestState: role.state}
		}
	}
	return e
}

// Row is what the list prints of an execution: its own strings, read off the compact row
// (Dataset.Row) or a full record (RowOf), never a record rebuilt for a frame.
type Row struct {
	ID                                            string
	Timestamp                                     time.Time
	Tool, Toolkit, User, Account, Session, Status string
	Duration                                      time.Duration // HasDuration false when unknown
	HasDuration                                   bool
}

// Row returns what the list prints of execution i.
func (ds *Dataset) Row(i int) Row {
	r := int(ds.order[i])
	s := ds.sum.Row(r)
	row := Row{
		ID: ds.sum.ID(r), Timestamp: ds.sum.Timestamp(r),
		Tool: ds.sum.Str(s.Tool), Toolkit: ds.sum.Str(s.Toolkit), User: ds.sum.Str(s.User),
		Account: ds.sum.Str(s.Account), Status: ds.sum.Str(s.Status), Session: ds.sum.Str(s.Session),
	}
	if s.Duration >= 0 {
		row.Duration, row.HasDuration = time.Duration(s.Duration)*time.Millisecond, true
	}
	return row
}

// RowOf is what the list prints of a full record (a detail fetched for the selection).
func RowOf(e *model.Execution) Row {
	return Row{
		ID: e.ID, Timestamp: e.Timestamp, Tool: e.ToolSlug, Toolkit: e.ToolkitSlug, User: e.UserID,
		Account: e.ConnectedAccountID, Session: e.SessionID, Status: e.Status,
		Duration: e.Duration, HasDuration: e.HasDuration,
	}
}

// Tool returns execution i's tool slug.
func (ds *Dataset) Tool(i int) string { return ds.sum.Str(ds.sum.Row(int(ds.order[i])).Tool) }

// Triage returns the triage of execution i.
func (ds *Dataset) Triage(i int) model.Triage {
	r := int(ds.order[i])
	s := ds.sum.Row(r)
	t := classified(s, ds.reasons.String(ds.reason[r]), ds.notes.String(ds.note[r]))
	if g := ds.GroupOf[i]; g >= 0 {
		t.GroupID = ds.Groups[g].ID
	}
	if c := ds.cases[int32(i)]; c != nil {
		triage.ApplyCase(&t, c)
	}
	return t
}

// classified is the triage a row was added with (without its group or journal case), its
// reason and old-SDK note given.
func classified(s *Summary, reason, note string) model.Triage {
	return model.Triage{Kind: s.Kind.Kind(), Outcome: s.Outcome.Outcome(), Flagged: s.Flags&FlagFlagged != 0, Reason: reason, OldSDK: note}
}

// Group returns the duplicate group an execution belongs to, or nil.
func (ds *Dataset) Group(exec int) *model.DuplicateGroup {
	if ds == nil || exec < 0 || exec >= len(ds.GroupOf) || ds.GroupOf[exec] < 0 {
		return nil
	}
	return &ds.Groups[ds.GroupOf[exec]]
}

// Size returns the bytes the dataset's own per-execution arrays hold (positions, groups), not
// counting what it shares with its builder (see Builder.Size).
func (ds *Dataset) Size() int {
	return 4 * (cap(ds.order) + cap(ds.rank) + cap(ds.GroupOf))
}

func histogram(ds *Dataset) Histogram {
	var h Histogram
	if ds.Len() == 0 {
		return h
	}
	h.To, h.From = ds.Timestamp(0), ds.Timestamp(ds.Len()-1)
	span := h.To.Sub(h.From)
	from := h.From.UnixNano()
	for k, r := range ds.order {
		s := ds.sum.Row(int(r))
		b := 0
		if span > 0 {
			b = int((s.Time - from) * (HistBuckets - 1) / int64(span))
		}
		b = min(max(b, 0), HistBuckets-1)
		h.Execs[b]++
		if ds.Flag(k) {
			h.Flagged[b]++
		}
	}
	return h
}

// Build makes a dataset from base and more (a record in more replaces one with the same id in
// base; a detail is kept over a later list entry), triaged by analyze (nil: no triage). It is
// for tests and small inputs; a streaming load uses a Builder. base and more are not modified.
func Build(base, more []model.Execution, analyze Analyzer) *Dataset {
	seen := make(map[string]int, len(base)+len(more))
	execs := make([]model.Execution, 0, len(base)+len(more))
	add := func(e model.Execution) {
		if e.ID == "" {
			return
		}
		if i, ok := seen[e.ID]; ok {
			if model.KeepsEarlierCopy(execs[i].Detailed, e.Detailed) {
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
	var an Analysis
	if analyze != nil {
		an = analyze(execs)
	}
	if len(an.Triage) != len(execs) {
		an.Triage = make([]model.Triage, len(execs))
	}
	b := newBuilder(len(execs), Options{Index: true, Fingerprints: true})
	for i := range execs {
		b.add(&execs[i], an.Triage[i], -1, execs[i].Fingerprint(b.ids.seed))
	}
	b.setGroups(an.Groups)
	return b.Snapshot()
}
