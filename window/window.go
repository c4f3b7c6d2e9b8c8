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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/capacity"
	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/hashtab"
	"github.com/exectriage/exectriage/internal/intern"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
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

// idIndex finds an id's row: a table (hashtab) from the id's hash to its newest row, checked against the
// row's id (the rows hold the ids; the table holds 12 bytes per id), with the rare ids whose
// hash another id took in a map of their own, and for each row that replaced another the row
// it replaced (so a dataset made before the replacement still finds its own row). The builder
// writes it while datasets read it, hence the lock.
type idIndex struct {
	mu    sync.RWMutex
	seed  maphash.Seed
	byH   hashtab.Table[int32]
	other map[string]int32
	prev  map[int32]int32
}

func newIDIndex(n int) *idIndex {
	x := &idIndex{seed: maphash.MakeSeed()}
	x.byH.Reserve(n)
	return x
}

// reserve makes room for n ids.
func (x *idIndex) reserve(n int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.byH.Reserve(n)
}

// hash is id's key in byH.
func (x *idIndex) hash(id string) uint64 { return hashtab.Key(x.seed, id) }

// find returns the newest row with the id among sum's rows, or -1.
func (x *idIndex) find(id string, sum *Summaries) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	// The newest row sum holds on the chain of rows that replaced one another.
	visible := func(r int32, ok bool) (int32, bool) {
		for ok && int(r) >= sum.Len() {
			r, ok = x.prev[r]
		}
		return r, ok
	}
	r, ok := x.byH.Get(x.hash(id))
	if r, ok = visible(r, ok); ok && sum.ID(int(r)) == id {
		return int(r)
	}
	r, ok = x.other[id]
	if r, ok = visible(r, ok); ok && sum.ID(int(r)) == id {
		return int(r)
	}
	return -1
}

// set records that id's newest row is r, which replaces row old (-1: none); sum holds both.
func (x *idIndex) set(id string, r, old int32, sum *Summaries) {
	h := x.hash(id)
	x.mu.Lock()
	defer x.mu.Unlock()
	if old >= 0 {
		if x.prev == nil {
			x.prev = map[int32]int32{}
		}
		x.prev[r] = old
	}
	if cur, ok := x.byH.Get(h); ok && sum.ID(int(cur)) != id {
		if x.other == nil {
			x.other = map[string]int32{}
		}
		x.other[string([]byte(id))] = r
		return
	}
	x.byH.Put(h, r)
}

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

	sum     Summaries
	idx     *filter.Index
	reason  []Sym // the triage's reason of each row, in reasons
	note    []Sym // the old-SDK note of each row, in notes
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
		// The TUI filters off its loop on every core: those goroutines come after the loop and
		// the renderer (each ends with its thread, which cores.Foreground keeps).
		b.idx.SetWorkerSetup(cores.Foreground)
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
	b.note = append(b.note, b.notes.Intern(t.OldSDK))
	if !b.o.Once {
		b.ids.set(b.sum.ID(int(r)), r, old, &b.sum)
	}
}

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
	if ds == nil || ds.Filter == nil {
		return nil
	}
	if prev != nil {
		return ds.Filter.FilterFrom(prev, q)
	}
	return ds.Filter.Filter(q)
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

// Items are the list's rows: a slice of them, or, for the view of every execution in order
// (no toggle, no duplicates view, no meta-tool run to nest children under), the dataset itself,
// each row made when it is read: a million rows of 16 bytes are then 16 MB the list does not
// hold while a person reads the unfiltered list. The zero value is no rows.
type Items struct {
	list []Item
	all  *Dataset // every execution of it, in order (list is nil)
}

// ItemsOf is the rows of a slice.
func ItemsOf(list []Item) Items { return Items{list: list} }

// Len is the number of rows.
func (it Items) Len() int {
	if it.all != nil {
		return it.all.Len()
	}
	return len(it.list)
}

// At is row i.
func (it Items) At(i int) Item {
	if it.all != nil {
		return Item{Kind: ItemExec, Exec: int32(i), Group: it.all.GroupOf[i]}
	}
	return it.list[i]
}

// Whole reports whether the rows are every execution of the dataset, in order (row i is
// execution i).
func (it Items) Whole() bool { return it.all != nil }

// Slice is the rows as a slice (made, for the whole dataset).
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

// SelectItems is Select without a filter, as Items: the whole dataset when the view shows
// every execution in order.
func SelectItems(ds *Dataset, v View) Items {
	if ds != nil && !v.FlaggedOnly && !v.WritesOnly && !v.Duplicates && len(ds.children) == 0 {
		return Items{all: ds}
	}
	return ItemsOf(Select(ds, v, nil))
}
