package filter

import (
	"bytes"
	"context"
	"encoding/hex"
	"slices"
	"sync"
	"unsafe"

	"github.com/exectriage/exectriage/internal/capacity"
	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/hugepage"
)

// Index holds the folded (case-normalised) text of many rows in a byte arena, with a
// 64-bit character mask per row for a cheap pre-check, so a query over a million rows scans
// little more than the bytes it must. Rows keep the order they were appended in (newest
// first for logs) and are identified by that position.
//
// Append must not run concurrently with anything else; Filter and FilterFrom may run
// concurrently with each other (each fans out over GOMAXPROCS goroutines and returns when
// they are done).
type Index struct {
	// The arena is blocks (growing to arenaBlock bytes) that never move nor change once
	// written (a row's text never spans two): growing it copies nothing, and a view shares
	// its blocks.
	// fill is how much of the last block is written; scratch folds a row before it is copied.
	blocks  [][]byte
	fill    int
	scratch []byte
	rows    []rowMeta

	// A view (see View) sees the rows in another order and may carry the group field
	// outside the arena; nil for an index that is not a view.
	order    []int32  // position k is row order[k]
	groupOf  []int32  // the group of position k, an index into groups, -1 for none
	groups   [][]byte // folded group ids
	patterns [][]byte // folded group patterns (their cause), by group

	// settled are the positions a view marks settled (WithSettled): settled, and so not
	// flagged, whatever their rows were appended with.
	settled map[int32]bool

	mu   sync.Mutex
	last *narrowing // see FilterFrom

	pool *partPool // the parallel scan's buffers, shared by the views made of the index

	// codes are the values of the coded fields (status, outcome, kind: a handful each), kept
	// once: a row's arena holds a byte for each, not its text (some 20 bytes a row); shared
	// by the views.
	codes *valueCodes
}

// valueCodes numbers the values of the coded fields. Only the index that appends writes it
// (of, n, and text[n] for a new value); a view reads text[c] of a code its rows were appended
// with, written before.
type valueCodes struct {
	of   map[string]uint8
	n    int
	text [maxCodes][]byte
}

// maxCodes is how many values the coded fields can have in all; a row whose value comes after
// them keeps its text (flagUncoded).
const maxCodes = 256

// coded reports whether a slot's values are numbered (valueCodes) rather than written out.
func coded(slot int) bool { return slot == slotStatus || slot == slotOutcome || slot == slotKind }

// code returns the code of the folded value v, numbering it if it is new; false when every
// code is taken.
func (c *valueCodes) code(v []byte) (uint8, bool) {
	if k, ok := c.of[string(v)]; ok {
		return k, true
	}
	if c.n == maxCodes {
		return 0, false
	}
	k := uint8(c.n)
	c.text[k] = append([]byte(nil), v...)
	c.of[string(v)] = k
	c.n++
	return k, true
}

type rowMeta struct {
	mask  uint64         // maskBit of every byte of the free-text region
	start uint32         // block<<arenaShift | offset (40 bytes a row rather than 48 with an int)
	ends  [nSlots]uint16 // end of each slot, relative to start
	flags uint8
}

const (
	flagFlagged = 1 << iota
	flagSettled
	flagUncoded // the coded fields hold their text (every code was taken)
	flagPacked  // the trace id is lowercase hex packed two digits a byte (packHex)
)

const (
	arenaShift = 23 // 8 MB blocks: large enough for huge pages (hugepage.Advise)
	arenaBlock = 1 << arenaShift
	// maxBlocks is as many blocks as start can number: 4 GB of text, some 25 million rows.
	// A row past them is indexed without text (no free text or field term finds it), which
	// no memory could hold the TUI of anyway.
	maxBlocks = 1 << (32 - arenaShift)
)

// text is row m's folded text from lo to hi (relative to its start).
func (ix *Index) text(m *rowMeta, lo, hi int) []byte {
	if hi <= lo {
		return nil
	}
	off := int(m.start & (arenaBlock - 1))
	return ix.blocks[m.start>>arenaShift][off+lo : off+hi : off+hi]
}

// minChunk is the fewest rows worth a goroutine of their own.
const minChunk = 16384

// NewIndex returns an index with room for n rows.
func NewIndex(n int) *Index {
	return &Index{
		rows:   make([]rowMeta, 0, n),
		blocks: [][]byte{make([]byte, min(max(n*96, 4096), arenaBlock))},
		pool:   &partPool{},
	}
}

// Reserve makes room for more rows (their metadata: the arena grows by blocks and copies
// nothing).
func (ix *Index) Reserve(more int) {
	if ix.order != nil {
		panic("filter: Reserve on a view")
	}
	ix.rows = capacity.Grow(ix.rows, more)
}

// Len returns the number of rows (of positions, for a view).
func (ix *Index) Len() int {
	if ix.order != nil {
		return len(ix.order)
	}
	return len(ix.rows)
}

// row returns the row at position k.
func (ix *Index) row(k int) *rowMeta {
	if ix.order != nil {
		return &ix.rows[ix.order[k]]
	}
	return &ix.rows[k]
}

// View returns a read-only index over the rows appended so far whose position k is row
// order[k] (rows left out of order are not searched), so results come in the caller's order
// (newest first) whatever order the rows were appended in. When groupOf is not nil, the group
// field of position k is groupIDs[groupOf[k]] (none when negative) instead of what the row was
// appended with: a streaming load learns the duplicate groups only at its end. The index may
// go on growing while its views are searched: a view sees only the rows it was made over.
// order and groupOf must not change afterwards. groupPatterns, by group like groupIDs, answers
// the pattern field (nil: no row has one).
func (ix *Index) View(order, groupOf []int32, groupIDs, groupPatterns []string) *Index {
	v := &Index{
		blocks: ix.blocks[:len(ix.blocks):len(ix.blocks)],
		rows:   ix.rows[:len(ix.rows):len(ix.rows)],
		order:  order,
		pool:   ix.pool,
		codes:  ix.codes,
	}
	if order == nil {
		v.order = []int32{}
	}
	if groupOf != nil {
		v.groupOf = groupOf
		v.groups = make([][]byte, len(groupIDs))
		for i, g := range groupIDs {
			v.groups[i] = appendFolded(nil, clip(g, slotCap(slotGroup)))
		}
		v.patterns = make([][]byte, len(groupIDs))
		for i := range groupPatterns {
			v.patterns[i] = appendFolded(nil, clip(groupPatterns[i], maxEnumLen))
		}
	}
	return v
}

// WithSettled returns a copy of the view in which the positions given are settled and not
// flagged (the journal's cases, which change while the rows do not); it replaces any earlier
// such positions. The view is not changed.
func (ix *Index) WithSettled(positions []int32) *Index {
	v := &Index{
		blocks:   ix.blocks,
		rows:     ix.rows,
		order:    ix.order,
		groupOf:  ix.groupOf,
		groups:   ix.groups,
		patterns: ix.patterns,
		pool:     ix.pool,
		codes:    ix.codes,
	}
	if v.order == nil {
		v.order = make([]int32, len(ix.rows))
		for k := range v.order {
			v.order[k] = int32(k)
		}
	}
	if len(positions) > 0 {
		v.settled = make(map[int32]bool, len(positions))
		for _, p := range positions {
			v.settled[p] = true
		}
	}
	return v
}

// flags are position k's flags, with the view's settled positions applied.
func (ix *Index) flags(k int, m *rowMeta) uint8 {
	if ix.settled != nil && ix.settled[int32(k)] {
		return m.flags&^flagFlagged | flagSettled
	}
	return m.flags
}

// Append adds rows at the end of the index. A view cannot grow.
func (ix *Index) Append(rows ...Row) {
	ix.last = nil
	for i := range rows {
		ix.AppendFields(FieldsOf(&rows[i]))
	}
}

// AppendFields adds one row given by its fields.
func (ix *Index) AppendFields(f Fields) {
	if ix.order != nil {
		panic("filter: Append on a view")
	}
	ix.last = nil
	var m rowMeta
	t := ix.scratch[:0]
	s := f.slots()
	codes, uncoded := ix.codesOf(s)
	for slot := range nSlots {
		if slot > 0 && slot < nHaySlots {
			t = append(t, ' ')
		}
		if coded(slot) && !uncoded {
			if s[slot] != "" {
				t = append(t, codes[slot-slotStatus])
			}
		} else {
			from := len(t)
			t = appendFolded(t, clip(s[slot], slotCap(slot)))
			if slot == slotTrace && packHex(t[from:]) {
				t = t[:from+(len(t)-from)/2]
				m.flags |= flagPacked
			}
		}
		m.ends[slot] = uint16(len(t))
		if slot == slotError {
			m.mask = maskOf(t)
		}
	}
	if uncoded {
		m.flags |= flagUncoded
	}
	ix.scratch = t
	full := len(ix.blocks) == 0 || ix.fill+len(t) > len(ix.blocks[len(ix.blocks)-1])
	if full && len(ix.blocks) >= maxBlocks {
		m = rowMeta{} // start 0, every slot empty
		t = t[:0]
		full = false
	}
	if full {
		size := 4096 // small indexes stay small; big ones get blocks of arenaBlock
		if k := len(ix.blocks); k > 0 {
			size = min(2*len(ix.blocks[k-1]), arenaBlock)
		}
		b := make([]byte, max(size, len(t)))
		hugepage.Advise(b) // a 1M load writes some 170 MB here: a fault per 2 MB, not per 4 KB
		ix.blocks = append(ix.blocks, b)
		ix.fill = 0
	}
	if len(t) > 0 {
		k := len(ix.blocks) - 1
		m.start = uint32(k<<arenaShift | ix.fill)
		copy(ix.blocks[k][ix.fill:], t)
		ix.fill += len(t)
	}
	if f.Flagged {
		m.flags |= flagFlagged
	}
	if f.Settled {
		m.flags |= flagSettled
	}
	ix.rows = append(ix.rows, m)
}

// codesOf returns the codes of a row's coded fields (status, outcome, kind, in that order),
// numbering new values; uncoded when one of them finds every code taken (the row then keeps
// their text).
func (ix *Index) codesOf(s [nSlots]string) (codes [3]uint8, uncoded bool) {
	if ix.codes == nil {
		ix.codes = &valueCodes{of: map[string]uint8{}}
	}
	var buf [maxEnumLen]byte
	for slot := slotStatus; slot <= slotKind; slot++ {
		if s[slot] == "" {
			continue
		}
		c, ok := ix.codes.code(appendFolded(buf[:0], clip(s[slot], slotCap(slot))))
		if !ok {
			return codes, true
		}
		codes[slot-slotStatus] = c
	}
	return codes, false
}

// Size returns the bytes the index holds (its arena and per-row metadata), for memory
// accounting.
func (ix *Index) Size() int {
	n := 0
	for _, b := range ix.blocks {
		n += len(b)
	}
	return n + cap(ix.rows)*int(unsafe.Sizeof(rowMeta{}))
}

// field returns the folded text of one field of position k (row m).
func (ix *Index) field(k int, m *rowMeta, slot int) []byte {
	if slot == slotPattern {
		if ix.groupOf != nil && ix.groupOf[k] >= 0 {
			return ix.patterns[ix.groupOf[k]]
		}
		return nil
	}
	if slot == slotGroup && ix.groupOf != nil {
		if g := ix.groupOf[k]; g >= 0 {
			return ix.groups[g]
		}
		return nil
	}
	return ix.slot(m, slot)
}

// slot returns the folded text of one field of row m, as appended.
func (ix *Index) slot(m *rowMeta, slot int) []byte {
	var lo uint16
	switch {
	case slot == 0:
	case slot < nHaySlots:
		lo = m.ends[slot-1] + 1
	default:
		lo = m.ends[slot-1]
	}
	v := ix.text(m, int(lo), int(m.ends[slot]))
	if coded(slot) && len(v) == 1 && m.flags&flagUncoded == 0 {
		return ix.codes.text[v[0]]
	}
	if slot == slotTrace && m.flags&flagPacked != 0 {
		return hex.AppendEncode(nil, v) // only a trace: term or its hint reads it
	}
	return v
}

// packHex packs v in place, two digits a byte, when it is lowercase hexadecimal of an even
// length (a trace id: 32 digits, on every record of some exports), and reports whether it did.
func packHex(v []byte) bool {
	if len(v) < 2 || len(v)%2 != 0 || len(v) > 2*maxFieldLen {
		return false
	}
	var buf [maxFieldLen]byte
	n, err := hex.Decode(buf[:], v) // the text is folded: no upper-case digit reaches here
	if err != nil {
		return false
	}
	copy(v, buf[:n])
	return true
}

// Filter returns the positions of the rows that match q, in index order.
func (ix *Index) Filter(q Query) []int {
	rows, _ := ix.run(context.Background(), &q, nil)
	return rows
}

// FilterContext is FilterFrom (Filter when prev is nil) that stops when ctx ends, as the TUI
// stops a key's filter when the next key comes: it then returns ctx's error, and what it had
// found is dropped (the narrowing FilterFrom resumes from is the last finished one's).
func (ix *Index) FilterContext(ctx context.Context, q Query, prev []int) ([]int, error) {
	if prev == nil {
		return ix.run(ctx, &q, nil)
	}
	return ix.filterFrom(ctx, prev, q)
}

// FilterFrom is Filter restricted to the positions in prev (which must be in increasing
// order): use it with prev = the result of a query q refines (q.Refines(prevQuery)), e.g. the
// same query before the last keystroke. prev is not modified.
//
// When prev is the slice this index returned last and q only extends that query's last
// free-text term (typing at the end), each row's match resumes where the shorter pattern's
// leftmost match ended, so a keystroke costs one search for the new characters per row. The
// result is the same either way: the leftmost match ends earliest, so the longer pattern
// matches exactly when its new characters follow that end.
func (ix *Index) FilterFrom(prev []int, q Query) []int {
	rows, _ := ix.filterFrom(context.Background(), prev, q)
	return rows
}

func (ix *Index) filterFrom(ctx context.Context, prev []int, q Query) ([]int, error) {
	ix.mu.Lock()
	last := ix.last
	ix.mu.Unlock()
	if last != nil && last.ends != nil && sameSlice(last.rows, prev) {
		if suffix, ok := extends(&last.q, &q); ok {
			return ix.resume(ctx, &q, last, suffix)
		}
	}
	return ix.run(ctx, &q, prev)
}

// narrowing remembers the last result whose query ends in a positive free-text term, with
// the end of that term's leftmost match in each row (nil when it was not computed).
type narrowing struct {
	q    Query
	rows []int
	ends []uint16
}

func sameSlice(a, b []int) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// extends reports whether q is prev with its last (positive free-text) term's pattern
// extended, and returns the added bytes.
func extends(prev, q *Query) ([]byte, bool) {
	n := len(q.terms)
	if n == 0 || n != len(prev.terms) || !resumable(q) {
		return nil, false
	}
	for k := 0; k < n-1; k++ {
		a, b := &prev.terms[k], &q.terms[k]
		if a.field != b.field || a.neg != b.neg || a.has != b.has || !bytes.Equal(a.pat, b.pat) {
			return nil, false
		}
	}
	a, b := &prev.terms[n-1], &q.terms[n-1]
	if a.field != fieldText || a.neg || !bytes.HasPrefix(b.pat, a.pat) {
		return nil, false
	}
	return b.pat[len(a.pat):], true
}

// resumable reports whether q's last term is a positive free-text term, whose match end is
// worth remembering.
func resumable(q *Query) bool {
	n := len(q.terms)
	return n > 0 && q.terms[n-1].field == fieldText && !q.terms[n-1].neg
}

// run filters rows 0..len-1, or the positions in prev when it is not nil.
func (ix *Index) run(ctx context.Context, q *Query, prev []int) ([]int, error) {
	n := ix.Len()
	if prev != nil {
		n = len(prev)
	}
	if q.Empty() {
		if prev != nil {
			return slices.Clone(prev), nil
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	wantEnds := resumable(q)
	rows, ends, err := ix.parallel(ctx, n, wantEnds, func(lo, hi int, rows []int, ends []uint16) ([]int, []uint16) {
		for k := lo; k < hi; k++ {
			i := k
			if prev != nil {
				i = prev[k]
			}
			if ok, end := ix.match(q, i); ok {
				rows = append(rows, i)
				if wantEnds {
					ends = append(ends, uint16(end))
				}
			}
		}
		return rows, ends
	})
	if err != nil {
		return nil, err
	}
	ix.remember(q, rows, ends, wantEnds)
	return rows, nil
}

// resume continues last's matches with the added suffix.
func (ix *Index) resume(ctx context.Context, q *Query, last *narrowing, suffix []byte) ([]int, error) {
	ascii := isASCII(suffix)
	smask := maskOf(suffix)
	rows, ends, err := ix.parallel(ctx, len(last.rows), true, func(lo, hi int, rows []int, ends []uint16) ([]int, []uint16) {
		for k := lo; k < hi; k++ {
			i, from := last.rows[k], int(last.ends[k])
			m := ix.row(i)
			if smask&^m.mask != 0 {
				continue
			}
			hay := ix.text(m, from, int(m.ends[slotError]))
			if end := subsequenceEnd(hay, suffix, ascii); end >= 0 {
				rows = append(rows, i)
				ends = append(ends, uint16(from+end))
			}
		}
		return rows, ends
	})
	if err != nil {
		return nil, err
	}
	ix.remember(q, rows, ends, true)
	return rows, nil
}

func (ix *Index) remember(q *Query, rows []int, ends []uint16, wantEnds bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !wantEnds || len(rows) == 0 {
		ix.last = nil
		return
	}
	ix.last = &narrowing{q: *q, rows: rows, ends: ends}
}

// parallel runs scan over [0, n) split across GOMAXPROCS goroutines (one when n is small)
// and concatenates the parts in order. Each goroutine appends to a buffer kept from the scans
// before (see partPool), and the result is made once, at its size. Each goroutine scans its
// part a block at a time and stops when ctx ends (then it returns ctx's error, no rows).
func (ix *Index) parallel(ctx context.Context, n int, wantEnds bool,
	scan func(lo, hi int, rows []int, ends []uint16) ([]int, []uint16)) ([]int, []uint16, error) {
	parts := ix.pool.get(cores.Parts(n, minChunk))
	defer ix.pool.put(parts)
	cores.Split(len(parts), n, func(w, lo, hi int) {
		p := &parts[w]
		// room for every row of the part at once: grown by doubling, a first scan matching most
		// rows made and copied twice what it kept (at 1M, the first key after a load: 220 ms)
		p.rows = slices.Grow(p.rows, hi-lo)
		if wantEnds {
			p.ends = slices.Grow(p.ends, hi-lo)
		}
		for at := lo; at < hi && ctx.Err() == nil; at += scanBlock {
			p.rows, p.ends = scan(at, min(at+scanBlock, hi), p.rows, p.ends)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	at := make([]int, len(parts)+1) // where each part goes in the result
	for w, p := range parts {
		at[w+1] = at[w] + len(p.rows)
	}
	total := at[len(parts)]
	rows := make([]int, total)
	var ends []uint16
	if wantEnds {
		ends = make([]uint16, total)
	}
	// Each part is copied by its own goroutine: the result is often fresh memory, whose page
	// faults (and the copy) then take both cores' time rather than one's.
	cores.Split(len(parts), len(parts), func(_, lo, hi int) {
		for w := lo; w < hi; w++ {
			copy(rows[at[w]:], parts[w].rows)
			if wantEnds {
				copy(ends[at[w]:], parts[w].ends)
			}
		}
	})
	return rows, ends, nil
}

// scanBlock is how many rows a scan's goroutine searches between two looks at whether its
// context ended: at 1M rows some 2 ms of work on the slowest queries.
const scanBlock = 1 << 14

// part is one goroutine's share of a parallel scan: the rows it matched and, when asked,
// where each match ended.
type part struct {
	rows []int
	ends []uint16
}

// partPool keeps the parallel scan's buffers from one scan to the next. A key typed over a
// million rows would otherwise have its scan grow some 20 MB of fresh buffers, and fresh
// memory costs a page fault every 4 KiB: on a virtual machine, 16 µs each, more than the
// scan itself (a key whose scan took 35 ms on memory the process held took 150-220 ms on
// fresh). What it keeps is bounded by the biggest scan: a row and an end per row searched.
type partPool struct {
	mu    sync.Mutex
	parts []part
}

// get returns n empty buffers (made when the pool has too few; a nil pool makes them all).
func (p *partPool) get(n int) []part {
	out := make([]part, n)
	if p == nil {
		return out
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := min(n, len(p.parts))
	copy(out, p.parts[len(p.parts)-k:])
	clear(p.parts[len(p.parts)-k:])
	p.parts = p.parts[:len(p.parts)-k]
	for i := range out {
		out[i].rows, out[i].ends = out[i].rows[:0], out[i].ends[:0]
	}
	return out
}

// put gives buffers back for the next scan, keeping as many as two scans at once use.
func (p *partPool) put(parts []part) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range parts {
		if len(p.parts) < 2*cores.N() {
			p.parts = append(p.parts, b)
		}
	}
}

// match is the hot path: the mask pre-check, then each term. end is where the last term's
// leftmost match ends in the free-text region when that term is positive free text and was
// searched (0 when the mask alone decided it).
func (ix *Index) match(q *Query, i int) (ok bool, end int) {
	m := ix.row(i)
	if q.mask&^m.mask != 0 {
		return false, 0
	}
	for k := range q.terms {
		t := &q.terms[k]
		var hit bool
		switch t.field {
		case fieldText:
			switch {
			case t.mask&^m.mask != 0:
				hit = false
			case t.exact && (t.neg || k < len(q.terms)-1):
				hit = true
			default:
				end = subsequenceEnd(ix.text(m, 0, int(m.ends[slotError])), t.pat, t.ascii)
				hit = end >= 0
			}
		case fieldFlagged:
			hit = (ix.flags(i, m)&flagFlagged != 0) == (t.has == presenceYes)
		case fieldSettled:
			hit = (ix.flags(i, m)&flagSettled != 0) == (t.has == presenceYes)
		default:
			v := ix.field(i, m, t.slot)
			switch t.has {
			case presenceYes:
				hit = len(v) > 0
			case presenceNo:
				hit = len(v) == 0
			default:
				hit = t.fits(v)
			}
		}
		if hit == t.neg {
			return false, 0
		}
	}
	return true, end
}
