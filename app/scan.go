package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/intern"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// Scanned is scan's view of a window: every execution as a compact row (what scan prints of
// it) with its triage, newest first (ties by id), and the duplicate groups. An export is
// scanned as it streams in: each record is triaged as it arrives and only its row is kept
// (80 bytes, with no pointer for the collector to follow: the ids are in an
// arena, the rest are numbers of interned strings); the groupable writes also keep where they
// are in the file, and after the load only the few that have a neighbour of the same caller
// within the window are read again, whole, a batch at a time, to find the groups. Memory grows
// with the rows, not with the records.
type Scanned struct {
	rows  rowStore
	ids   arena
	strs  []string // interned: slugs, users, accounts, statuses, reasons, notes
	enums []string // kinds and outcomes
	order []int32  // output position → row, nil when the rows came newest first
	// Groups are the duplicate groups, ordered by their oldest member's start.
	Groups []model.DuplicateGroup
	// DetailErrors and FirstDetailError are Loaded's (a live source's scan).
	DetailErrors     int
	FirstDetailError error
	// Duplicates is how many records were copies of another of the same log id (an export's
	// overlapping pages): each id is one execution, its latest copy kept (latestCopies).
	Duplicates int
	// cases are the journal's, by execution id (Triage applies them).
	cases map[string]*model.Case
}

// scanRow is one execution as scan prints it.
type scanRow struct {
	id, req                              strRef
	sec                                  int64 // timestamp, Unix seconds and nanoseconds (any year)
	dur                                  int64
	nsec                                 int32
	group                                int32 // index in Groups (while grouping, the group's number), -1 for none
	tool, toolkit, user, account, status uint32
	reason, oldSDK                       uint32
	kind, outcome                        uint8 // in Scanned.enums
	hasDur, flag, detailed               bool
}

// rowStore holds rows in blocks: appending never copies what is there.
type rowStore struct {
	blocks [][]scanRow
	n      int
}

const rowBlock = 1 << 13

func (rs *rowStore) add(r scanRow) {
	if rs.n%rowBlock == 0 {
		rs.blocks = append(rs.blocks, make([]scanRow, 0, rowBlock))
	}
	b := &rs.blocks[len(rs.blocks)-1]
	*b = append(*b, r)
	rs.n++
}

func (rs *rowStore) at(i int) *scanRow { return &rs.blocks[i/rowBlock][i%rowBlock] }

// arena keeps strings in large blocks: one allocation per megabyte, not per string. A request
// id in the canonical lowercase form of a UUID is kept as its 16 bytes.
type arena struct{ blocks [][]byte }

// strRef is a string in an arena: its block and offset (block<<20 | offset) and length, the top
// bit of n marking a packed UUID.
type strRef struct{ pos, n uint32 }

const (
	arenaShift = 20
	arenaBlock = 1 << arenaShift
	maxBlocks  = 1 << (32 - arenaShift)
	packedUUID = 1 << 31
)

// errArenaFull is a scan whose ids do not fit 4 GB.
var errArenaFull = errors.New("too many executions for one scan (their ids pass 4 GB): scan a shorter window (--since)")

func (a *arena) add(s string) (strRef, error) {
	if s == "" {
		return strRef{}, nil
	}
	var u [16]byte
	packed := parseUUID(s, &u)
	b, flag := s, uint32(0)
	if packed {
		b, flag = unsafe.String(&u[0], 16), packedUUID
	}
	if len(b) > arenaBlock/8 { // a long one gets a block of its own
		if len(a.blocks) >= maxBlocks {
			return strRef{}, errArenaFull
		}
		a.blocks = append(a.blocks, []byte(b))
		return strRef{pos: uint32(len(a.blocks)-1) << arenaShift, n: uint32(len(b))}, nil
	}
	if len(a.blocks) == 0 || cap(a.blocks[len(a.blocks)-1])-len(a.blocks[len(a.blocks)-1]) < len(b) {
		if len(a.blocks) >= maxBlocks {
			return strRef{}, errArenaFull
		}
		a.blocks = append(a.blocks, make([]byte, 0, arenaBlock))
	}
	k := len(a.blocks) - 1
	off := len(a.blocks[k])
	a.blocks[k] = append(a.blocks[k], b...)
	return strRef{pos: uint32(k)<<arenaShift | uint32(off), n: uint32(len(b)) | flag}, nil
}

// str is the string at r; it shares the arena's memory, which is never written again (a packed
// UUID is spelled out again).
func (a *arena) str(r strRef) string {
	if r.n == 0 {
		return ""
	}
	blk, off := r.pos>>arenaShift, r.pos&(arenaBlock-1)
	if r.n&packedUUID != 0 {
		return formatUUID(a.blocks[blk][off : off+16])
	}
	return unsafe.String(&a.blocks[blk][off], int(r.n))
}

// parseUUID reads s as a UUID in canonical lowercase form (8-4-4-4-12 hex digits) into u:
// exactly the strings formatUUID gives back.
func parseUUID(s string, u *[16]byte) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	k := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := lowerHex(s[i])
		lo, ok2 := lowerHex(s[i+1])
		if !ok1 || !ok2 {
			return false
		}
		u[k] = hi<<4 | lo
		k++
		i += 2
	}
	return true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func formatUUID(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// Len is the number of executions.
func (s *Scanned) Len() int {
	if s.order != nil {
		return len(s.order)
	}
	return s.rows.n
}

// row is the i-th execution's row, newest first.
func (s *Scanned) row(i int) *scanRow {
	if s.order != nil {
		return s.rows.at(int(s.order[i]))
	}
	return s.rows.at(i)
}

// Exec is execution i as scan prints it: id, timestamp (UTC), tool, toolkit, user, connected
// account, status, duration and request id; nothing else of the record is kept.
func (s *Scanned) Exec(i int) model.Execution {
	r := s.row(i)
	return model.Execution{
		ID: s.ids.str(r.id), RequestID: s.ids.str(r.req), Timestamp: time.Unix(r.sec, int64(r.nsec)).UTC(),
		ToolSlug: s.strs[r.tool], ToolkitSlug: s.strs[r.toolkit], UserID: s.strs[r.user],
		ConnectedAccountID: s.strs[r.account], Status: s.strs[r.status], Duration: time.Duration(r.dur), HasDuration: r.hasDur,
	}
}

// Triage is execution i's triage.
func (s *Scanned) Triage(i int) model.Triage {
	r := s.row(i)
	t := model.Triage{Kind: model.ToolKind(s.enums[r.kind]), Outcome: model.Outcome(s.enums[r.outcome]), Flagged: r.flag,
		Reason: s.strs[r.reason], OldSDK: s.strs[r.oldSDK]}
	if r.group >= 0 {
		t.GroupID = s.Groups[r.group].ID
	}
	if len(s.cases) > 0 {
		if c := s.cases[s.ids.str(r.id)]; c != nil {
			triage.ApplyCase(&t, c)
		}
	}
	return t
}

// ID is execution i's id.
func (s *Scanned) ID(i int) string { return s.ids.str(s.row(i).id) }

// Tool is execution i's tool slug.
func (s *Scanned) Tool(i int) string { return s.strs[s.row(i).tool] }

// Timestamp is execution i's timestamp (UTC).
func (s *Scanned) Timestamp(i int) time.Time {
	r := s.row(i)
	return time.Unix(r.sec, int64(r.nsec)).UTC()
}

// Scan reads every execution of the window and triages it for scan. An export file is
// streamed (see Scanned); any other source is loaded whole (Load) and then made rows.
func (a *App) Scan(ctx context.Context) (*Scanned, error) {
	loc, ok := a.src.(source.Located)
	if !ok {
		l, err := a.Load(ctx)
		if err != nil {
			return nil, err
		}
		return ScannedOf(l)
	}
	opt := a.topt.WithDefaults()
	opt.Deliveries = triage.NewDeliveries() // filled as the records stream in, read when grouping
	opt.MetaRuns = triage.NewMetaRuns()
	st := newScanState(a.kinds)
	st.cls = triage.NewClassifier(a.kinds, opt)
	st.deliveries, st.runs = opt.Deliveries, opt.MetaRuns
	err := loc.LoadLocated(ctx, a.Window(), func(b []model.Execution, refs []source.Ref) error {
		a.Learn(ctx, b) // an export with an API key: the kinds of new tools first
		for i := range b {
			var ref *source.Ref
			if refs != nil {
				ref = &refs[i]
			}
			st.add(&b[i], ref)
		}
		return st.err
	})
	if err != nil {
		return nil, err
	}
	dead := st.dedupe() // before grouping: a copy never joins a group with itself
	if err := st.group(ctx, loc, opt); err != nil {
		return nil, err
	}
	st.s.strs, st.s.enums = st.in.Strings(), st.small.Strings()
	st.s.order = newestFirst(&st.s.rows, &st.s.ids)
	if dead != nil { // the replaced copies leave the order (which is now always given)
		if st.s.order == nil {
			st.s.order = make([]int32, st.s.rows.n)
			for i := range st.s.order {
				st.s.order[i] = int32(i)
			}
		}
		st.s.order = slices.DeleteFunc(st.s.order, func(r int32) bool { return isDead(dead, int(r)) })
	}
	if st.s.cases, err = a.Cases(ctx); err != nil {
		return nil, err
	}
	return st.s, nil
}

func newScanState(kinds *triage.Kinds) *scanState {
	return &scanState{s: &Scanned{}, in: intern.New(intern.Many), small: intern.New(intern.Few), kinds: kinds}
}

// scanState is a streaming scan under way.
type scanState struct {
	s     *Scanned
	in    *intern.Table
	kinds *triage.Kinds
	cls   *triage.Classifier
	// the callers of triage.Callers, numbered from the row's symbols: a tool's upper case or
	// effect family (triage.CallerTool; upper, by the tool's symbol, shifted left with the
	// family's bit; 0 until known) and the account, else the user (the user first for a family)
	callers map[uint64]int32
	upper   []uint32
	uppers  *intern.Table
	// the groupable writes: their spans, their rows, and where to read them again (or, from
	// an export that cannot be read again, the records themselves)
	spans []triage.WriteSpan
	wrRow []int32
	wrRef []source.Ref
	kept  map[int32]model.Execution
	small *intern.Table // kinds and outcomes (a handful)
	err   error         // the first error (the ids pass what an arena holds)
	// deliveries are the trigger deliveries seen, which name a redelivery's duplicates, and
	// runs the meta-tool runs, which name their children's
	deliveries *triage.Deliveries
	runs       *triage.MetaRuns
}

func (st *scanState) add(e *model.Execution, ref *source.Ref) {
	t, groupable := st.cls.Classify(e)
	// after the classifier, which read the record's fields: each index's own test is then a
	// comparison (before it, a cache miss a record)
	st.deliveries.Add(e)
	st.runs.Add(e, t.Outcome)
	r := st.row(e, &t)
	st.s.rows.add(r)
	if !groupable {
		return
	}
	k := int32(len(st.wrRow))
	st.spans = append(st.spans, triage.SpanOf(e, st.caller(&r, e.ToolSlug), k))
	st.wrRow = append(st.wrRow, int32(st.s.rows.n-1))
	if ref != nil {
		st.wrRef = append(st.wrRef, *ref)
		return
	}
	st.wrRef = append(st.wrRef, source.Ref{})
	if st.kept == nil {
		st.kept = map[int32]model.Execution{}
	}
	st.kept[k] = *e // the batch is reused: the copy's strings and slices are its own
}

// dedupe marks the rows a later copy of the same log id replaces (latestCopies) and takes their
// writes out of the candidates; it returns the marks (nil: none).
func (st *scanState) dedupe() []uint64 {
	rows := &st.s.rows
	dead, n := latestCopies(rows.n, func(i int) string { return st.s.ids.str(rows.at(i).id) }, func(i int) bool { return rows.at(i).detailed })
	if n == 0 {
		return nil
	}
	st.s.Duplicates = n
	st.spans = slices.DeleteFunc(st.spans, func(w triage.WriteSpan) bool { return isDead(dead, int(st.wrRow[w.Ref()])) })
	return dead
}

// caller is the number triage.Callers gives r's execution (whose tool is tool): the same
// callers in the same order, from the symbols r has already rather than from two string
// hashes a write.
func (st *scanState) caller(r *scanRow, tool string) int32 {
	if int(r.tool) >= len(st.upper) {
		st.upper = append(st.upper, make([]uint32, int(r.tool)+1-len(st.upper))...)
	}
	up := st.upper[r.tool]
	if up == 0 {
		if st.uppers == nil {
			st.uppers = intern.New(intern.Few)
		}
		ct, family := triage.CallerTool(tool)
		up = st.uppers.Of(ct) << 1 // a table of its own: st.in's numbering is the report's
		if family {
			up |= 1
		}
		st.upper[r.tool] = up
	}
	who, account := uint64(r.account), uint64(1)
	if r.account == 0 || up&1 == 1 && r.user != 0 { // no account, or a family's tool: the user
		who, account = uint64(r.user), 0
	}
	key := uint64(up>>1)<<33 | account<<32 | who
	id, ok := st.callers[key]
	if !ok {
		if st.callers == nil {
			st.callers = map[uint64]int32{}
		}
		id = int32(len(st.callers))
		st.callers[key] = id
	}
	return id
}

func (st *scanState) row(e *model.Execution, t *model.Triage) scanRow {
	id, err1 := st.s.ids.add(e.ID)
	req, err2 := st.s.ids.add(e.RequestID)
	kind, outcome := st.small.Of(string(t.Kind)), st.small.Of(string(t.Outcome))
	if st.err == nil {
		if st.err = errors.Join(err1, err2); kind > math.MaxUint8 || outcome > math.MaxUint8 {
			st.err = fmt.Errorf("more than %d kinds and outcomes", math.MaxUint8) // there are seven
		}
	}
	r := scanRow{id: id, req: req, dur: int64(e.Duration), group: -1,
		tool: st.in.Of(e.ToolSlug), toolkit: st.in.Of(e.ToolkitSlug), user: st.in.Of(e.UserID), account: st.in.Of(e.ConnectedAccountID),
		status: st.in.Of(e.Status), kind: uint8(kind), outcome: uint8(outcome), reason: st.in.Of(t.Reason),
		oldSDK: st.in.Of(t.OldSDK), hasDur: e.HasDuration, flag: t.Flagged, detailed: e.Detailed}
	if !e.Timestamp.IsZero() {
		r.sec, r.nsec = e.Timestamp.Unix(), int32(e.Timestamp.Nanosecond())
	} else {
		r.sec = time.Time{}.Unix()
	}
	return r
}

// groupBatch is how many candidates are read again and grouped at a time, and groupBytes how
// many bytes of the file they may take (records of real projects run to kilobytes: a count
// alone let two batches of them hold 60 MB): a batch ends at a caller's end, since callers
// never share a group.
const (
	groupBatch = 8192
	groupBytes = 8 << 20
)

// group reads the candidates again, whole, a batch at a time, and finds the groups among them.
func (st *scanState) group(ctx context.Context, loc source.Located, opt triage.Options) error {
	cand, ends := triage.Candidates(st.spans, opt.Window, func(k int32) string { return st.s.ids.str(st.s.rows.at(int(st.wrRow[k])).id) })
	st.spans = nil
	gr := triage.NewGrouper(st.kinds, opt)
	// Batches of whole callers' runs; the next batch is read while this one is grouped.
	type read struct {
		batch []int32
		full  []model.Execution
		err   error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reads := make(chan read, 1)
	go func() {
		defer close(reads)
		// bytes[k] is what the candidates before cand[k] take of the file
		bytes := make([]int64, len(cand)+1)
		for k, c := range cand {
			bytes[k+1] = bytes[k] + int64(st.wrRef[c].Size())
		}
		for lo, e := 0, 0; lo < len(cand); {
			hi := lo
			for e < len(ends) && (hi == lo || ends[e]-lo <= groupBatch && bytes[ends[e]]-bytes[lo] <= groupBytes) {
				hi = ends[e]
				e++
			}
			batch := cand[lo:hi]
			lo = hi
			full, err := st.readBack(ctx, loc, batch)
			select {
			case reads <- read{batch, full, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	n := int32(0) // the number of the next group found
	for r := range reads {
		if r.err != nil {
			return r.err
		}
		for _, in := range gr.Add(r.full) {
			for _, j := range in {
				st.s.rows.at(int(st.wrRow[r.batch[j]])).group = n
			}
			n++
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	groups, order := gr.Groups()
	st.s.Groups = groups
	for _, k := range cand { // rows hold a group's number; make it its place in Groups
		if r := st.s.rows.at(int(st.wrRow[k])); r.group >= 0 {
			r.group = int32(order[r.group])
		}
	}
	return nil
}

// readBack returns the full records of a batch of candidates: kept whole, or read again at
// their refs in file order, on every core.
func (st *scanState) readBack(ctx context.Context, loc source.Located, batch []int32) ([]model.Execution, error) {
	full := make([]model.Execution, len(batch))
	var at []int
	for j, k := range batch {
		if e, ok := st.kept[k]; ok {
			full[j] = e
			continue
		}
		at = append(at, j)
	}
	if len(at) == 0 {
		return full, nil
	}
	slices.SortFunc(at, func(a, b int) int { return cmp.Compare(st.wrRow[batch[a]], st.wrRow[batch[b]]) })
	workers := max(1, min(cores.N(), len(at)/512))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		part := at[len(at)*w/workers : len(at)*(w+1)/workers]
		wg.Go(func() {
			refs := make([]source.Ref, len(part))
			ids := make([]string, len(part))
			for i, j := range part {
				refs[i], ids[i] = st.wrRef[batch[j]], st.s.ids.str(st.s.rows.at(int(st.wrRow[batch[j]])).id)
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

// newestFirst is the order that shows rows newest first, then by id, keeping the order of
// equal ones (as SortNewestFirst orders executions): nil when they are in it already.
func newestFirst(rows *rowStore, ids *arena) []int32 {
	newer := func(a, b *scanRow) int {
		if c := cmp.Compare(b.sec, a.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(b.nsec, a.nsec); c != 0 {
			return c
		}
		return strings.Compare(ids.str(a.id), ids.str(b.id))
	}
	sorted, reversed := true, true
	for i := 1; i < rows.n && (sorted || reversed); i++ {
		c := newer(rows.at(i-1), rows.at(i))
		sorted = sorted && c <= 0
		reversed = reversed && c > 0
	}
	if sorted {
		return nil
	}
	order := make([]int32, rows.n)
	for i := range order {
		order[i] = int32(i)
	}
	if reversed {
		slices.Reverse(order)
		return order
	}
	slices.SortStableFunc(order, func(a, b int32) int { return newer(rows.at(int(a)), rows.at(int(b))) })
	return order
}

// ScannedOf makes rows of a loaded window.
func ScannedOf(l *Loaded) (*Scanned, error) {
	st := newScanState(nil)
	st.s.Groups, st.s.DetailErrors, st.s.FirstDetailError, st.s.cases = l.Result.Groups, l.DetailErrors, l.FirstDetailError, l.Cases
	st.s.Duplicates = l.Duplicates
	index := make(map[string]int32, len(l.Result.Groups))
	for g := range l.Result.Groups {
		index[l.Result.Groups[g].ID] = int32(g)
	}
	for i := range l.Execs {
		t := &l.Result.Triage[i]
		r := st.row(&l.Execs[i], t)
		if t.GroupID != "" {
			r.group = index[t.GroupID]
		}
		st.s.rows.add(r)
	}
	st.s.strs, st.s.enums = st.in.Strings(), st.small.Strings()
	return st.s, st.err
}
