package window

import (
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
}

// Summary is one execution as a list row sees it. Its strings are symbols of the Summaries
// it belongs to.
type Summary struct {
	Time     int64 // Timestamp as Unix nanoseconds; 0 when unknown (or out of range)
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
	FlagOldSDK                            // the caller's SDK auto-retries writes
)

// OutcomeCode is a model.Outcome in one byte; 0 is "not triaged".
type OutcomeCode uint8

var outcomeCodes = []model.Outcome{"", model.OutcomeSucceeded, model.OutcomeFailed, model.OutcomeRejected, model.OutcomeAmbiguous}

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
	if ns := e.Timestamp.UnixNano(); !e.Timestamp.IsZero() && time.Unix(0, ns).Equal(e.Timestamp) {
		r.Time = ns
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
		if t.OldSDK != "" {
			r.Flags |= FlagOldSDK
		}
	}
	id := e.ID
	if len(id) >= 1<<24 {
		id = id[:1<<24-1] // no id is that long; the row still stands
	}
	r.id = uint64(len(s.ids))<<24 | uint64(len(id))
	s.ids = append(s.ids, id...)
	s.rows = append(s.rows, r)
}

// reserve makes room for more rows, and for their ids at the length of those so far (24
// bytes each when there are none).
func (s *Summaries) reserve(more int) {
	s.rows = capacity.Grow(s.rows, more)
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
func (s *Summaries) ID(i int) string {
	off, n := s.rows[i].id>>24, s.rows[i].id&(1<<24-1)
	if n == 0 {
		return ""
	}
	return unsafe.String(&s.ids[off], n)
}

// Str returns the string of a symbol of this list.
func (s *Summaries) Str(y Sym) string { return s.syms.String(y) }

// Timestamp returns row i's time (zero when unknown).
func (s *Summaries) Timestamp(i int) time.Time {
	if ns := s.rows[i].Time; ns != 0 {
		return time.Unix(0, ns).UTC()
	}
	return time.Time{}
}

// Size returns the bytes the list holds (rows, ids and symbols), for memory accounting.
func (s *Summaries) Size() int {
	return cap(s.rows)*int(unsafe.Sizeof(Summary{})) + cap(s.ids) + s.syms.Size()
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
		rows: s.rows[:len(s.rows):len(s.rows)],
		ids:  s.ids[:len(s.ids):len(s.ids)],
		syms: s.syms.Snapshot(),
	}
}
