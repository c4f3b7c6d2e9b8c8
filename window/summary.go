package window

import (
	"encoding/binary"
	"maps"
	"math"
	"time"
	"unsafe"

	"github.com/exectriage/exectriage/internal/capacity"
	"github.com/exectriage/exectriage/internal/intern"
	"github.com/exectriage/exectriage/model"
)

// Summaries is a compact list of executions for a view of a million of them: per execution
// a 48-byte Summary without pointers (so the garbage collector never looks inside the list)
// and the bytes of its id. Repeated strings (tools, toolkits, users, accounts, statuses) are
// stored once in a symbol table. The full record is fetched again when a row is opened (a file
// source re-reads it by offset). Rows keep the order they were appended in.
//
// A Summaries is not safe for concurrent use.
type Summaries struct {
	rows []Summary
	ids  []byte // every id, back to back; written bytes are never changed
	syms Symbols
	// exact, when set, keeps two more columns for a front that prints them (scan): each
	// row's request id and its duration to the nanosecond, made only once a duration is not
	// a whole number of milliseconds the row's Duration holds (asRow where it is)
	exact bool
	req   []reqRef
	dur   []int64
	// far holds the times Unix nanoseconds cannot (before 1678, after 2261), by row: rare
	far map[int32]time.Time
}

// asRow is a dur entry that says "the row's Duration, in whole milliseconds".
const asRow = math.MinInt64

// reqRef is a request id: a UUID in its canonical lowercase form as its 16 bytes (most are),
// else where it is in ids (first, as a row's id is), second then holding textReq.
type reqRef struct{ first, second uint64 }

// textReq, as second, marks a reqRef kept as text. A UUID whose last eight bytes are all ones
// would read as that mark: packReq keeps it as text too.
const textReq = ^uint64(0)

// Summary is one execution as a list row sees it. Its strings are symbols of the Summaries
// it belongs to.
type Summary struct {
	Time     int64 // Timestamp as Unix nanoseconds; 0 when unknown or out of range (Summaries.Timestamp has it)
	id       uint64
	Tool     Sym
	Toolkit  Sym
	User     Sym
	Account  Sym
	Status   Sym
	Session  Sym   // the tool-router session ("" when none or not known: a list entry has none)
	Duration int32 // milliseconds, rounded down; -1 when unknown, capped at MaxInt32
	Outcome  OutcomeCode
	Kind     KindCode
	Flags    SummaryFlags
}

// SummaryFlags are yes/no facts about a summarised execution.
type SummaryFlags uint8

const (
	FlagFlagged  SummaryFlags = 1 << iota // triage flagged the write
	FlagError                             // the record carries an error
	FlagDetailed                          // the record is a detail, not a list entry
)

// OutcomeCode is a model.Outcome in one byte; 0 is "not triaged".
type OutcomeCode uint8

var outcomeCodes = append([]model.Outcome{""}, model.Outcomes()...)

// CodeOfOutcome returns o's code (0 for an outcome it does not know).
func CodeOfOutcome(o model.Outcome) OutcomeCode { return OutcomeCode(codeOf(outcomeCodes, o)) }

// Outcome returns the outcome the code stands for ("" for 0).
func (c OutcomeCode) Outcome() model.Outcome { return valueOf(outcomeCodes, int(c)) }

// KindCode is a model.ToolKind in one byte; 0 is "not triaged".
type KindCode uint8

var kindCodes = []model.ToolKind{"", model.KindRead, model.KindIdempotentWrite, model.KindWrite}

// CodeOfKind returns k's code (0 for a kind it does not know).
func CodeOfKind(k model.ToolKind) KindCode { return KindCode(codeOf(kindCodes, k)) }

// Kind returns the kind the code stands for ("" for 0).
func (c KindCode) Kind() model.ToolKind { return valueOf(kindCodes, int(c)) }

// codeOf is v's position in table, 0 when it is not there.
func codeOf[T comparable](table []T, v T) int {
	for i, x := range table {
		if x == v {
			return i
		}
	}
	return 0
}

// valueOf is table[c], the zero value past its end.
func valueOf[T any](table []T, c int) T {
	var zero T
	if c < len(table) {
		return table[c]
	}
	return zero
}

// Sym is a string stored once in a Symbols table; 0 is the empty string.
type Sym uint32

// Symbols interns strings: each distinct string is stored once and named by a Sym. The zero
// value interns without a cache; NewSymbols gives one (intern.Table) for the many users and
// accounts of a load.
type Symbols struct {
	tab  *intern.Table
	strs []string // a snapshot's strings (tab nil)
}

// NewSymbols returns an empty table with a cache of places places (see intern.New).
func NewSymbols(places int) Symbols { return Symbols{tab: intern.New(places)} }

// Intern returns the symbol of s, adding it when new.
func (t *Symbols) Intern(s string) Sym {
	if s == "" {
		return 0
	}
	if t.tab == nil {
		t.tab = intern.New(0)
	}
	return Sym(t.tab.Of(s))
}

// DropCache frees the table's cache until the next Intern (intern.Table.DropCache).
func (t *Symbols) DropCache() {
	if t.tab != nil {
		t.tab.DropCache()
	}
}

func (t *Symbols) all() []string {
	if t.tab != nil {
		return t.tab.Strings()
	}
	return t.strs
}

// String returns the string of y ("" for a symbol the table does not have).
func (t *Symbols) String(y Sym) string {
	if strs := t.all(); int(y) < len(strs) {
		return strs[y]
	}
	return ""
}

// Len returns how many distinct strings the table holds.
func (t *Symbols) Len() int { return max(len(t.all())-1, 0) }

// Snapshot returns a read-only copy of the table as it is now (String only), for readers on
// other goroutines while the table goes on interning.
func (t *Symbols) Snapshot() Symbols {
	strs := t.all()
	return Symbols{strs: strs[:len(strs):len(strs)]}
}

// Append adds a summary of e, with its triage when t is not nil (its duplicate group is the
// caller's to keep: groups are found after the rows are in).
func (s *Summaries) Append(e *model.Execution, t *model.Triage) {
	r := Summary{
		Tool:     s.syms.Intern(e.ToolSlug),
		Toolkit:  s.syms.Intern(e.ToolkitSlug),
		User:     s.syms.Intern(e.UserID),
		Account:  s.syms.Intern(e.ConnectedAccountID),
		Status:   s.syms.Intern(e.Status),
		Session:  s.syms.Intern(e.SessionID),
		Duration: -1,
	}
	if ns := e.Timestamp.UnixNano(); ns != 0 && !e.Timestamp.IsZero() && time.Unix(0, ns).Equal(e.Timestamp) {
		r.Time = ns
	} else if !e.Timestamp.IsZero() { // out of range, or the Unix epoch itself
		if s.far == nil {
			s.far = map[int32]time.Time{}
		}
		s.far[int32(len(s.rows))] = e.Timestamp.UTC()
	}
	if e.HasDuration {
		r.Duration = int32(min(max(e.Duration.Milliseconds(), 0), math.MaxInt32))
	}
	if e.Error != nil {
		r.Flags |= FlagError
	}
	if e.Detailed {
		r.Flags |= FlagDetailed
	}
	if t != nil {
		r.Outcome, r.Kind = CodeOfOutcome(t.Outcome), CodeOfKind(t.Kind)
		if t.Flagged {
			r.Flags |= FlagFlagged
		}
	}
	r.id = s.addString(e.ID)
	s.rows = append(s.rows, r)
	if s.exact {
		s.req = append(s.req, s.packReq(e.RequestID))
		d := int64(asRow)
		if back, _ := r.duration(); e.HasDuration && back != e.Duration { // the row knows whether there is one
			d = int64(e.Duration)
		}
		if d != asRow && s.dur == nil {
			s.dur = make([]int64, len(s.rows)-1, cap(s.rows))
			for i := range s.dur {
				s.dur[i] = asRow
			}
		}
		if s.dur != nil {
			s.dur = append(s.dur, d)
		}
	}
}

// duration is the duration a row holds (whole milliseconds), and whether it has one.
func (r *Summary) duration() (time.Duration, bool) {
	if r.Duration < 0 {
		return 0, false
	}
	return time.Duration(r.Duration) * time.Millisecond, true
}

// packReq keeps a request id: a canonical UUID as its bytes, anything else as text. A UUID
// whose last eight bytes are all ones (…-ffff-ffffffffffff) is kept as text, so that
// textReq says text only.
func (s *Summaries) packReq(id string) reqRef {
	var u [16]byte
	if parseUUID(id, &u) {
		ref := reqRef{binary.BigEndian.Uint64(u[:8]), binary.BigEndian.Uint64(u[8:])}
		if ref.second != textReq {
			return ref
		}
	}
	return reqRef{s.addString(id), textReq}
}

// addString keeps id in ids and returns where (offset<<24 | length).
func (s *Summaries) addString(id string) uint64 {
	if len(id) >= 1<<24 {
		id = id[:1<<24-1] // no id is that long; the row still stands
	}
	at := uint64(len(s.ids))<<24 | uint64(len(id))
	s.ids = append(s.ids, id...)
	return at
}

// str is the string kept at at (addString).
func (s *Summaries) str(at uint64) string {
	off, n := at>>24, at&(1<<24-1)
	if n == 0 {
		return ""
	}
	return unsafe.String(&s.ids[off], n)
}

// RequestID returns row i's request id ("" when the list keeps none: see exact).
func (s *Summaries) RequestID(i int) string {
	if i >= len(s.req) {
		return ""
	}
	ref := s.req[i]
	if ref.second == textReq {
		return s.str(ref.first)
	}
	var u [16]byte
	binary.BigEndian.PutUint64(u[:8], ref.first)
	binary.BigEndian.PutUint64(u[8:], ref.second)
	return formatUUID(u[:])
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

// ExactDuration returns row i's duration to the nanosecond, when the list keeps it (exact).
func (s *Summaries) ExactDuration(i int) (d time.Duration, known, kept bool) {
	if !s.exact {
		return 0, false, false
	}
	if i < len(s.dur) && s.dur[i] != asRow {
		return time.Duration(s.dur[i]), true, true
	}
	d, known = s.rows[i].duration()
	return d, known, true
}

// reserve makes room for more rows, and for their ids at the length of those so far (24
// bytes each when there are none).
func (s *Summaries) reserve(more int) {
	s.rows = capacity.Grow(s.rows, more)
	if s.exact {
		s.req = capacity.Grow(s.req, more)
		if s.dur != nil {
			s.dur = capacity.Grow(s.dur, more)
		}
	}
	idLen := 24
	if len(s.rows) > 0 {
		idLen = len(s.ids)/len(s.rows) + 1
	}
	s.ids = capacity.Grow(s.ids, more*idLen)
}

// Len returns the number of rows.
func (s *Summaries) Len() int { return len(s.rows) }

// Row returns row i; it stays valid until the next Append.
func (s *Summaries) Row(i int) *Summary { return &s.rows[i] }

// ID returns the id of row i. It shares the list's memory (no copy is made).
func (s *Summaries) ID(i int) string { return s.str(s.rows[i].id) }

// Str returns the string of a symbol of this list.
func (s *Summaries) Str(y Sym) string { return s.syms.String(y) }

// Timestamp returns row i's time (zero when unknown).
func (s *Summaries) Timestamp(i int) time.Time {
	if ns := s.rows[i].Time; ns != 0 {
		return time.Unix(0, ns).UTC()
	}
	return s.far[int32(i)] // the zero time when unknown
}

// Size returns the bytes the list holds (rows, ids and symbols), for memory accounting.
func (s *Summaries) Size() int {
	return cap(s.rows)*int(unsafe.Sizeof(Summary{})) + cap(s.ids) + 16*cap(s.req) + 8*cap(s.dur) + s.syms.Size()
}

// Size returns the bytes the table holds, for memory accounting.
func (t *Symbols) Size() int {
	n := 0
	for _, x := range t.all() {
		n += len(x) + 16 + 24 // the string, its header in strs, and its map entry
	}
	return n
}

// Snapshot returns a read-only copy of the list as it is now, for readers on other goroutines
// while the list goes on growing: Append never changes a row or id already written, and the
// copy sees only the rows, ids and symbols there were. Only Len, Row, ID, Str, Timestamp and
// Size may be used on the copy.
func (s *Summaries) Snapshot() *Summaries {
	return &Summaries{
		rows:  s.rows[:len(s.rows):len(s.rows)],
		ids:   s.ids[:len(s.ids):len(s.ids)],
		syms:  s.syms.Snapshot(),
		exact: s.exact,
		far:   maps.Clone(s.far), // the list goes on writing its own
		req:   s.req[:len(s.req):len(s.req)],
		dur:   s.dur[:len(s.dur):len(s.dur)],
	}
}
