package window

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sync"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/capacity"
	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/intern"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// Builder makes datasets from executions that arrive in batches (pages of an API, chunks of a
// file): Add triages and indexes each record once, Groups finds the duplicate groups (at the
// end of a load: it fetches the few records that may repeat), Snapshot returns a Dataset of
// everything so far. A record whose id arrived before replaces it, unless the earlier one was a
// detail and the new one only a list entry, or the two are the same (a refresh's overlap, a
// reloaded file): rows are never freed, so only a record that changed may take a new one.
//
// A Builder is not safe for concurrent use, but the datasets it returned may be read while it
// goes on (they share its append-only rows).
type Builder struct {
	inc *triage.Incremental // nil when the caller gives the triage (Build)

	sum    Summaries
	idx    *filter.Index
	reason []Sym // the triage's reason of each row, in reasons
	note   []Sym // the old-SDK note of each row, in notes
	// noteShared says a dataset reads note as it is: a note rewritten later goes into a copy
	noteShared bool
	// langs names a list entry's SDK language from its installation's records (the rows'
	// notes it rewrites when one comes)
	langs   triage.Languages
	reasons Symbols
	notes   Symbols
	ids     *idIndex
	sig     []uint64 // each row's record's fingerprint, to skip a copy that arrives unchanged
	dead    []uint64 // rows a later record replaced

	order   []int32 // the last snapshot's positions
	snapped int     // the rows there were at the last snapshot: those after are new to it

	groups  []model.DuplicateGroup
	members [][]int32 // rows, oldest first

	// parentOf is the meta tool run (its log id) each child row ran under: the list shows
	// children under their parent. Few rows have one.
	parentOf map[int32]string
	// approvals are the request_state of each row that asked for approval or answered one
	// (triage.AwaitsApproval, Execution.Approval): what a session's timeline links. Few rows
	// have one.
	approvals map[int32]approvalRole

	gate *pace.Gate // where Add waits while the loop holds the load (nil: never)
	o    Options
	// callers numbers the writes' callers from their rows' symbols
	callers callerNums
	// copies counts the records that came again under an id already added
	copies int
	// settled is how many rows the copies were looked for among (Options.Once)
	settled int
	// the groupable writes of a located load (AddLocated): their rows, increasing, and where
	// to read them again (or, from an export that cannot be read again, the records themselves)
	wrRow []int32
	wrRef []source.Ref
	kept  map[int32]model.Execution
}

// Options say what a builder keeps beside the judgement: each front asks for what it shows.
type Options struct {
	// Index keeps the filter's index (a front that filters the window: the TUI).
	Index bool
	// Fingerprints tells an unchanged copy of a record (a refresh's overlap, a reloaded file):
	// it takes no row. Without it a later copy replaces the row all the same.
	Fingerprints bool
	// Unique says each id is added once (a loaded window, deduplicated already): row r is the
	// r-th record added.
	Unique bool
	// Exact keeps each execution's request id and its duration to the nanosecond (scan
	// prints them).
	Exact bool
	// Once says the window is streamed once, then read (scan): the copies of an id are found
	// when the load is in (LatestCopies, the rule a row is replaced by on arrival), so no
	// index of the ids is kept while loading; its datasets find no id (Dataset.Index).
	Once bool
}

// New returns an empty builder that triages with the given kinds (nil: by slug) and options,
// keeping what o asks for.
func New(kinds *triage.Kinds, opt triage.Options, o Options) *Builder {
	b := newBuilder(0, o)
	b.inc = triage.NewIncremental(kinds, opt)
	return b
}

// NewWhole returns an empty builder for a window whose records are loaded whole and each id
// once (app.Load's: list, show, bundle, verify, scan of the API): without the filter's index
// (such a front filters the records themselves). Judged gives the result.
func NewWhole(kinds *triage.Kinds, opt triage.Options) *Builder {
	return New(kinds, opt, Options{Unique: true, Exact: true})
}

// NewStream returns an empty builder for a window streamed once from an export (scan --file):
// the rows scan prints, the writes that may repeat read again from the file (AddLocated,
// GroupsFrom).
func NewStream(kinds *triage.Kinds, opt triage.Options) *Builder {
	return New(kinds, opt, Options{Exact: true, Once: true})
}

// NewStreamIndexed is NewStream with the filter's index over the rows (list of an export):
// its datasets' Filter answers a query over every execution, each record's error text
// included, without the records being kept.
func NewStreamIndexed(kinds *triage.Kinds, opt triage.Options) *Builder {
	return New(kinds, opt, Options{Exact: true, Once: true, Index: true})
}

// NewBuilder returns an empty builder that triages with the given kinds (nil: by slug) and
// options.
func NewBuilder(kinds *triage.Kinds, opt triage.Options) *Builder {
	return New(kinds, opt, Options{Index: true, Fingerprints: true})
}

func newBuilder(n int, o Options) *Builder {
	b := &Builder{ids: newIDIndex(n), o: o}
	if o.Index {
		b.idx = filter.NewIndex(n)
	}
	b.sum.exact = o.Exact
	b.sum.syms = NewSymbols(intern.Many)                                // users and accounts: tens of thousands
	b.reasons, b.notes = NewSymbols(intern.Few), NewSymbols(intern.Few) // a few each, shared by the classifier
	return b
}

// Reserve makes room for n rows in all, for a load that knows about how many records it will
// add (a file's SizeHint): growing by append copies each per-row array over and over (by a
// quarter at a time once it is big: about four times its final size in garbage, which the
// collector then chases while a person types) and holds two copies at the end. A guess a
// little high costs address space, not memory, until the rows are written.
func (b *Builder) Reserve(n int) {
	more := n - b.sum.Len()
	if more <= 0 {
		return
	}
	b.sum.reserve(more)
	if b.idx != nil {
		b.idx.Reserve(more)
	}
	b.reason = capacity.Grow(b.reason, more)
	b.note = capacity.Grow(b.note, more)
	if b.o.Fingerprints {
		b.sig = capacity.Grow(b.sig, more)
	}
	if !b.o.Once { // a window streamed once keeps no index of its ids
		b.ids.reserve(n)
	}
	if b.inc != nil && b.o.Index {
		b.inc.Reserve(more)
	}
}

// Len returns how many executions the builder holds (replaced records not counted).
func (b *Builder) Len() int {
	n := b.sum.Len()
	for _, w := range b.dead {
		n -= bits.OnesCount64(w)
	}
	return n
}

// WaitAt makes Add wait at g, between slices of a batch, while an interactive loop holds it
// (nil: never).
func (b *Builder) WaitAt(g *pace.Gate) { b.gate = g }

// addSlice is how many records Add takes between two looks at its gate: about a millisecond
// of work, far less than a frame.
const addSlice = 2048

// Add triages and indexes a batch (which it does not keep).
func (b *Builder) Add(batch []model.Execution) {
	b.addBatch(batch, nil, false)
}

// AddLocated is Add for a load that reads the writes that may repeat again from where they
// are (GroupsFrom): refs[i] is where batch[i] is in its file; nil refs (an export that cannot
// be read again) make the builder keep those writes whole.
func (b *Builder) AddLocated(batch []model.Execution, refs []source.Ref) {
	b.addBatch(batch, refs, true)
}

// addBatch triages and indexes a batch (Add, AddLocated) addSlice records at a time
// (addSome).
func (b *Builder) addBatch(batch []model.Execution, refs []source.Ref, located bool) {
	for len(batch) > addSlice {
		var rs []source.Ref
		if refs != nil {
			rs, refs = refs[:addSlice], refs[addSlice:]
		}
		b.addSome(batch[:addSlice], rs, located)
		batch = batch[addSlice:]
	}
	b.addSome(batch, refs, located)
}

// gateRecords is how many records addSome adds between waits at the gate: about half a
// millisecond of work, so that a key's hold stops it at once rather than after a batch.
const gateRecords = 256

func (b *Builder) addSome(batch []model.Execution, refs []source.Ref, located bool) {
	// Held by the loop: a hold is a few frames long, so the wait needs no context of its own.
	_ = b.gate.Wait(context.Background())
	// What needs only the record is worked out on every core (fingerprints, triage); the
	// rest goes in record by record, in order.
	fps := make([]uint64, len(batch))
	workers := min(cores.N(), max(1, len(batch)/512))
	var wg sync.WaitGroup
	for w := range workers {
		if !b.o.Fingerprints {
			break
		}
		wg.Go(func() {
			for i := len(batch) * w / workers; i < len(batch)*(w+1)/workers; i++ {
				fps[i] = batch[i].Fingerprint(b.ids.seed)
			}
		})
	}
	var ts []model.Triage
	var groupable []bool
	if b.inc != nil {
		ts, groupable = b.inc.Classify(batch)
	}
	wg.Wait()
	for i := range batch {
		if i%gateRecords == gateRecords-1 {
			_ = b.gate.Wait(context.Background())
		}
		e := &batch[i]
		old, ok := b.replaces(e, fps[i])
		if !ok {
			continue
		}
		var t model.Triage
		if b.inc != nil {
			t = ts[i]
		}
		b.add(e, t, old, fps[i])
		if b.inc != nil {
			caller := int32(-1)
			if groupable[i] {
				caller = b.callers.of(b.sum.Row(b.sum.Len()-1), e.ToolSlug)
			}
			b.inc.RecordCaller(e, t, groupable[i], caller)
		}
		if located && groupable[i] {
			b.locate(e, refs, i)
		}
	}
}

// replaces reports whether e (whose fingerprint is fp) is to be added, retiring the row it
// replaces (old, -1 for none).
func (b *Builder) replaces(e *model.Execution, fp uint64) (old int32, ok bool) {
	if e.ID == "" {
		return -1, false
	}
	if b.o.Unique || b.o.Once {
		return -1, true // each id once (row r is the r-th record added), or copies found later (settle)
	}
	r := b.ids.find(e.ID, &b.sum)
	if r < 0 {
		return -1, true
	}
	b.copies++
	if b.o.Fingerprints && b.sig[r] == fp {
		return -1, false // the same record again
	}
	if model.KeepsEarlierCopy(b.sum.Row(r).Flags&FlagDetailed != 0, e.Detailed) {
		return -1, false // keep the detailed copy when the newer one is only a list entry
	}
	for len(b.dead) <= r/64 {
		b.dead = append(b.dead, 0)
	}
	b.dead[r/64] |= 1 << (r % 64)
	if b.inc != nil {
		b.inc.Drop(r)
	}
	delete(b.kept, int32(r))
	return int32(r), true
}

// locate keeps where the groupable write e (batch[i], just added) can be read again.
func (b *Builder) locate(e *model.Execution, refs []source.Ref, i int) {
	r := int32(b.sum.Len() - 1)
	b.wrRow = append(b.wrRow, r)
	if refs != nil {
		b.wrRef = append(b.wrRef, refs[i])
		return
	}
	b.wrRef = append(b.wrRef, source.Ref{})
	if b.kept == nil {
		b.kept = map[int32]model.Execution{}
	}
	b.kept[r] = *e // the batch is reused: the copy's strings and slices are its own
}

// callerNums numbers callers as triage.Callers does (the same callers in the same order),
// from a row's symbols rather than from two string hashes a write.
type callerNums struct {
	// a tool's CallerTool (its upper case or effect family) by the tool's symbol: its number
	// in uppers shifted left, with the family's bit; 0 until known
	upper  []uint32
	uppers *intern.Table
	ids    map[uint64]int32
}

// of is the caller's number of the row s, whose tool is tool: the tool's CallerTool and the
// account, else the user (the user first for a family's tool).
func (c *callerNums) of(s *Summary, tool string) int32 {
	if int(s.Tool) >= len(c.upper) {
		c.upper = append(c.upper, make([]uint32, int(s.Tool)+1-len(c.upper))...)
	}
	up := c.upper[s.Tool]
	if up == 0 {
		if c.uppers == nil {
			c.uppers = intern.New(intern.Few)
		}
		ct, family := triage.CallerTool(tool)
		up = c.uppers.Of(ct) << 1
		if family {
			up |= 1
		}
		c.upper[s.Tool] = up
	}
	who, account := uint64(s.Account), uint64(1)
	if s.Account == 0 || up&1 == 1 && s.User != 0 { // no account, or a family's tool: the user
		who, account = uint64(s.User), 0
	}
	key := uint64(up>>1)<<33 | account<<32 | who
	id, ok := c.ids[key]
	if !ok {
		if c.ids == nil {
			c.ids = map[uint64]int32{}
		}
		id = int32(len(c.ids))
		c.ids[key] = id
	}
	return id
}

// settle finds, in a window streamed once, the rows a later copy of their id replaces (the
// rule Add applies on arrival otherwise) and takes their writes out of the groups' candidates;
// it runs again only when rows were added since.
func (b *Builder) settle() {
	if !b.o.Once || b.settled == b.sum.Len() {
		return
	}
	b.settled = b.sum.Len()
	dead, n := LatestCopies(b.sum.Len(), b.sum.ID, func(r int) bool { return b.sum.Row(r).Flags&FlagDetailed != 0 })
	b.dead, b.copies = dead, n
	for r := range b.sum.Len() {
		if bit(dead, int32(r)) {
			if b.inc != nil {
				b.inc.Drop(r)
			}
			delete(b.kept, int32(r))
		}
	}
}

// Copies returns how many records came again under an id already added (an export's
// overlapping pages, a detail after its list entry): each id is one execution.
func (b *Builder) Copies() int {
	b.settle()
	return b.copies
}

func (b *Builder) isDead(r int32) bool { return bit(b.dead, r) }

func (b *Builder) add(e *model.Execution, t model.Triage, old int32, fp uint64) {
	r := int32(b.sum.Len())
	if role, ok := approvalRoleOf(e); ok {
		if b.approvals == nil {
			b.approvals = map[int32]approvalRole{}
		}
		b.approvals[r] = role
	}
	if e.Parent != nil && e.Parent.LogID != "" && e.Parent.LogID != e.ID {
		if b.parentOf == nil {
			b.parentOf = map[int32]string{}
		}
		b.parentOf[r] = e.Parent.LogID
	}
	if b.o.Fingerprints {
		b.sig = append(b.sig, fp)
	}
	b.sum.Append(e, &t)
	// The group field stays empty in the index: a dataset's view gives it (groups are found
	// after the rows are in).
	if b.idx != nil {
		b.idx.AppendFields(filter.FieldsOf(&filter.Row{Exec: e, Triage: &model.Triage{
			Kind: t.Kind, Outcome: t.Outcome, Flagged: t.Flagged}}))
	}
	b.reason = append(b.reason, b.reasons.Intern(t.Reason))
	note, renotes := b.langs.Add(e, r, t.OldSDK)
	b.note = append(b.note, b.notes.Intern(note))
	if len(renotes) > 0 {
		if b.noteShared { // the datasets made so far keep the notes they were given
			b.note, b.noteShared = slices.Clone(b.note), false
		}
		for _, n := range renotes {
			b.note[n.Row] = b.notes.Intern(n.Note)
		}
	}
	if !b.o.Once {
		b.ids.set(b.sum.ID(int(r)), r, old, &b.sum)
	}
}

// newer orders rows newest first, then by id, as every front lists a window
// (app.SortNewestFirst).
func (b *Builder) newer(x, y int32) int {
	rx, ry := b.sum.Row(int(x)), b.sum.Row(int(y))
	if rx.Time == 0 || ry.Time == 0 { // unknown, or beyond Unix nanoseconds
		if c := b.sum.Timestamp(int(y)).Compare(b.sum.Timestamp(int(x))); c != 0 {
			return c
		}
	} else if c := cmp.Compare(ry.Time, rx.Time); c != 0 {
		return c
	}
	return cmp.Compare(b.sum.ID(int(x)), b.sum.ID(int(y)))
}

// freshRows gives the rows added since the last snapshot (b.snapped up to n) newest first:
// fresh(j) is the j-th. They are in that order already, or in the reverse one, as exports
// and pages mostly come; otherwise they are sorted, stably.
func (b *Builder) freshRows(n int) (fresh func(j int) int32) {
	from := int32(b.snapped)
	sorted, reversed := true, true
	for r := from + 1; r < int32(n) && (sorted || reversed); r++ {
		c := b.newer(r-1, r)
		sorted = sorted && c <= 0
		reversed = reversed && c > 0 // strictly: reversing equal rows would reorder them
	}
	switch {
	case sorted:
		return func(j int) int32 { return from + int32(j) }
	case reversed:
		last := int32(n) - 1
		return func(j int) int32 { return last - int32(j) }
	}
	rows := make([]int32, n-b.snapped)
	for j := range rows {
		rows[j] = from + int32(j)
	}
	slices.SortStableFunc(rows, b.newer)
	return func(j int) int32 { return rows[j] }
}

// Snapshot returns a dataset of everything added so far, with the groups of the last Groups
// (members replaced since are left out). It costs O(n) and does not change what earlier
// snapshots see.
func (b *Builder) Snapshot() *Dataset {
	b.settle()
	n := b.sum.Len()
	fresh := b.freshRows(n)
	nf := n - b.snapped
	// Merge the last order with the new rows, leaving out the replaced ones.
	order := make([]int32, 0, len(b.order)+nf)
	i, j := 0, 0
	for i < len(b.order) || j < nf {
		var r int32
		if j >= nf || i < len(b.order) && b.newer(b.order[i], fresh(j)) <= 0 {
			r = b.order[i]
			i++
		} else {
			r = fresh(j)
			j++
		}
		if !b.isDead(r) {
			order = append(order, r)
		}
	}
	b.order, b.snapped = order, n

	b.noteShared = true
	ds := &Dataset{
		sum: b.sum.Snapshot(), order: order, rank: make([]int32, n),
		reason: b.reason[:n:n], note: b.note[:n:n], reasons: b.reasons.Snapshot(), notes: b.notes.Snapshot(),
		GroupOf: make([]int32, len(order)),
	}
	if !b.o.Once {
		ds.ids = b.ids
	}
	for r, role := range b.approvals { // the dataset's own copy: the builder goes on adding
		if int(r) < n && !b.isDead(r) {
			if ds.approvals == nil {
				ds.approvals = map[int32]approvalRole{}
			}
			ds.approvals[r] = role
		}
	}
	if b.inc != nil {
		ds.Deliveries = b.inc.Deliveries()
	}
	for r := range ds.rank {
		ds.rank[r] = -1
	}
	for k, r := range order {
		ds.rank[r] = int32(k)
		ds.GroupOf[k] = -1
		s := ds.sum.Row(int(r))
		if s.Flags&FlagFlagged != 0 {
			ds.Flagged++
		}
		if s.Kind.Kind().IsWrite() {
			ds.Writes++
		}
	}
	// Meta tools' children, as positions: each under its parent when both are in.
	for r, pid := range b.parentOf {
		if int(r) >= n || ds.rank[r] < 0 {
			continue
		}
		if pr := b.ids.find(pid, &b.sum); pr >= 0 && pr < n && ds.rank[pr] >= 0 {
			if ds.children == nil {
				ds.children, ds.parentOf = map[int32][]int32{}, map[int32]int32{}
				ds.runBits, ds.childBits = make([]uint64, (len(order)+63)/64), make([]uint64, (len(order)+63)/64)
			}
			pp, cp := ds.rank[pr], ds.rank[r]
			ds.children[pp] = append(ds.children[pp], cp)
			ds.parentOf[cp] = pp
			ds.runBits[pp/64] |= 1 << (pp % 64)
			ds.childBits[cp/64] |= 1 << (cp % 64)
		}
	}
	for _, cs := range ds.children { // in the order they ran: oldest (largest position) first
		slices.SortFunc(cs, func(a, b int32) int { return cmp.Compare(b, a) })
	}
	// Groups, as positions; a group left with fewer than two members (a member was replaced
	// since the groups were found) is dropped until the next Groups.
	ids := make([]string, 0, len(b.groups))
	patterns := make([]string, 0, len(b.groups))
	for gi, g := range b.groups {
		var ms []int32
		for _, r := range b.members[gi] {
			if int(r) < n && ds.rank[r] >= 0 {
				ms = append(ms, ds.rank[r])
			}
		}
		if len(ms) < 2 {
			continue
		}
		gk := int32(len(ds.Groups))
		ds.Groups = append(ds.Groups, g)
		ds.Members = append(ds.Members, ms)
		ids = append(ids, g.ID)
		patterns = append(patterns, string(g.Pattern))
		for _, k := range ms {
			ds.GroupOf[k] = gk
		}
	}
	ds.groupOrder = make([]int32, len(ds.Groups))
	for gi := range ds.groupOrder {
		ds.groupOrder[gi] = int32(gi)
	}
	// Newest group first: the smallest position of a member is its newest execution.
	newest := func(gi int32) int32 { return slices.Min(ds.Members[gi]) }
	slices.SortStableFunc(ds.groupOrder, func(a, b int32) int { return cmp.Compare(newest(a), newest(b)) })
	ds.Hist = histogram(ds)
	if b.idx != nil {
		ds.Filter = b.idx.View(order, ds.GroupOf, ids, patterns)
	}
	return ds
}

// Size returns the bytes the builder holds for its executions (rows, ids, symbols, filter
// index, triage, id map), for memory accounting; the datasets it returned add Dataset.Size.
func (b *Builder) Size() int {
	n := b.sum.Size() + 4*cap(b.reason) + 4*cap(b.note) + 8*cap(b.sig) + 8*cap(b.dead) + 4*cap(b.order)
	n += b.reasons.Size() + b.notes.Size()
	if b.idx != nil {
		n += b.idx.Size()
	}
	return n + 12*b.ids.byH.Slots() // key and row of every slot
}

// Judged returns the triage of every row, in the order the records were added (a replaced
// record's row keeps the triage it had, without a group), with the journal's case of its
// execution (cases, by id) applied as a Dataset applies it (WithCases), and the duplicate
// groups of the last Groups, ordered as triage.Analyze orders them. It is what a front that
// keeps the records whole reads (see NewWhole).
func (b *Builder) Judged(cases map[string]*model.Case) ([]model.Triage, []model.DuplicateGroup) {
	b.settle()
	ts := make([]model.Triage, b.sum.Len())
	for r := range ts {
		ts[r] = classified(b.sum.Row(r), b.reasons.String(b.reason[r]), b.notes.String(b.note[r]))
	}
	var groups []model.DuplicateGroup
	for gi, g := range b.groups {
		live := 0
		for _, r := range b.members[gi] {
			if !b.isDead(r) {
				live++
			}
		}
		if live < 2 {
			continue
		}
		for _, r := range b.members[gi] {
			if !b.isDead(r) {
				ts[r].GroupID = g.ID
			}
		}
		groups = append(groups, g)
	}
	if len(cases) > 0 {
		for r := range ts {
			if c := cases[b.sum.ID(r)]; c != nil {
				triage.ApplyCase(&ts[r], c)
			}
		}
	}
	return ts, groups
}
