// Package filter is the query language shared by `exectriage list --filter` and the TUI's
// filter box, and a fast matcher for it over up to millions of rows.
//
// A query is a list of whitespace-separated terms, all of which must match (AND):
//
//	gmsend                free text: a case-insensitive fuzzy (subsequence) match over the
//	                      row's haystack (tool, toolkit, user, account, log id, request id,
//	                      error text), the same notion of a match as github.com/sahilm/fuzzy
//	user:user_1           an identifier term: the whole value, case-insensitively (never user_10)
//	tool:GMAIL_*          a trailing '*' is a prefix, a leading one a suffix, both a substring
//	error:timeout         another field term: a case-insensitive substring of that field
//	"timed out"           quotes keep spaces inside one term (also tool:"two words")
//	-status:success       a leading '-' negates a term (free text or field)
//
// Fields: tool, toolkit, user, account, id (log id), request (request id), session, trace,
// error, status (the log's status), outcome, kind (read, write, idempotent_write; delivery for
// a trigger delivery and event for an account event, rows of their own kind that triage counts
// as reads), group (duplicate group id; group:yes / group:no test
// membership), flagged:yes|no (what still needs a person) and settled:yes|no (a verdict or a
// retry in the journal closed it). Identifier fields (tool, user, account, id, request,
// session, trace) match whole values, since triaging one customer must not pull in another;
// the others (toolkit, error, status, outcome, kind, group, pattern) match substrings. Field
// terms are never fuzzy: "user:42" should not match "user_4_2". An empty
// value ("tool:") matches every row, so a query being typed never flickers to nothing; a
// lone "-" is ignored for the same reason. An unknown field name is an error; quote a term
// containing ':' to search for it as text ("http://x").
//
// Matching order is the input order (newest first for logs), in every front. The TUI shows a
// free-text filter's matches best first (Index.Rank), which also hides the rows that only
// scatter a term's letters when other rows hold it as a run, and says how many it hid.
package filter

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sahilm/fuzzy"

	"github.com/exectriage/exectriage/model"
)

// field names a term's target.
type field int

const (
	fieldText field = iota // free text over the haystack
	fieldTool
	fieldToolkit
	fieldUser
	fieldAccount
	fieldID
	fieldRequest
	fieldError
	fieldStatus
	fieldOutcome
	fieldKind
	fieldGroup
	fieldPattern
	fieldFlagged
	fieldSettled
	fieldSession
	fieldTrace
)

// fieldNames lists the field terms in the order the error message offers them.
var fieldNames = []struct {
	name string
	f    field
	slot int
}{
	{"tool", fieldTool, slotTool},
	{"toolkit", fieldToolkit, slotToolkit},
	{"user", fieldUser, slotUser},
	{"account", fieldAccount, slotAccount},
	{"id", fieldID, slotID},
	{"request", fieldRequest, slotRequest},
	{"error", fieldError, slotError},
	{"status", fieldStatus, slotStatus},
	{"outcome", fieldOutcome, slotOutcome},
	{"kind", fieldKind, slotKind},
	{"group", fieldGroup, slotGroup},
	{"pattern", fieldPattern, slotPattern},
	{"flagged", fieldFlagged, -1},
	{"settled", fieldSettled, -1},
	{"session", fieldSession, slotSession},
	{"trace", fieldTrace, slotTrace},
}

// identifier says a field holds identifiers, whose terms match the whole value ("user:user_1"
// is user_1, never user_10); a "*" at the end or the start makes a prefix or a suffix
// ("user:user_1*"), at both ends a substring.
func identifier(f field) bool {
	switch f {
	case fieldTool, fieldUser, fieldAccount, fieldID, fieldRequest, fieldSession, fieldTrace:
		return true
	}
	return false
}

// how is how a field term's pattern must sit in the value.
type how uint8

const (
	contains how = iota
	whole
	prefix
	suffix
)

// FieldNames returns the field names a query may use, for help text and completion.
func FieldNames() []string {
	out := make([]string, len(fieldNames))
	for i, f := range fieldNames {
		out[i] = f.name
	}
	return out
}

// presence is the value of flagged:yes|no and group:yes|no.
type presence int

const (
	presenceAny presence = iota
	presenceYes
	presenceNo
)

type term struct {
	field field
	slot  int  // arena slot of a field term
	neg   bool // the term must not match
	value string
	// pat is the folded value; ascii says every byte of it is ASCII (byte-wise search).
	pat   []byte
	ascii bool
	// mask is the pre-check bits of a free-text pattern; exact says the mask alone decides.
	mask  uint64
	exact bool
	// has is the wanted presence for flagged and group:yes|no.
	has presence
	// how the pattern sits in the value of a field term (contains unless an identifier's).
	how how
}

// Query is a parsed filter. The zero Query matches every row.
type Query struct {
	raw   string
	terms []term
	// mask is the union of the positive free-text terms' masks.
	mask uint64
	// bare are the fields named with no value ("user:"), which match every row.
	bare []string
}

// String returns the query as typed.
func (q Query) String() string { return q.raw }

// Empty reports whether the query matches every row.
func (q Query) Empty() bool { return len(q.terms) == 0 }

// Values are the values of the query's positive terms on field name ("request": the request
// ids it looks for), without the '*' of a prefix or a suffix; nil when it has none.
func (q Query) Values(name string) []string {
	var out []string
	for k := range q.terms {
		t := &q.terms[k]
		if !t.neg && t.value != "" && t.has == presenceAny && t.field != fieldText && fieldName(t.field) == name {
			out = append(out, strings.Trim(t.value, "*"))
		}
	}
	return out
}

// fieldName is f's name in queries.
func fieldName(f field) string {
	for _, n := range fieldNames {
		if n.f == f {
			return n.name
		}
	}
	return ""
}

// Scored reports whether the query has positive free-text terms, the ones Rank scores.
func (q Query) Scored() bool {
	for k := range q.terms {
		if q.terms[k].field == fieldText && !q.terms[k].neg {
			return true
		}
	}
	return false
}

// Parse parses a filter query.
func Parse(q string) (Query, error) {
	out := Query{raw: q}
	for _, tok := range tokenize(q) {
		t, skip, err := parseTerm(tok)
		if err != nil {
			return Query{}, err
		}
		if skip {
			if name, ok := strings.CutSuffix(strings.TrimPrefix(tok.text, "-"), ":"); ok && name != "" {
				out.bare = append(out.bare, name) // a field term with no value yet (Hint)
			}
			continue
		}
		if t.field == fieldText && !t.neg {
			out.mask |= t.mask
		}
		out.terms = append(out.terms, t)
	}
	return out, nil
}

// token is one whitespace-separated piece: raw as typed (quotes included) and text unquoted.
type token struct{ raw, text string }

// tokenize splits on unquoted whitespace. Inside double quotes, \" and \\ are escapes; an
// unterminated quote runs to the end (the query may still be being typed).
func tokenize(q string) []token {
	var (
		toks     []token
		raw, txt strings.Builder
		inQuote  bool
		started  bool
	)
	flush := func() {
		if started {
			toks = append(toks, token{raw.String(), txt.String()})
		}
		raw.Reset()
		txt.Reset()
		started = false
	}
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case inQuote && r == '\\' && i+1 < len(q) && (q[i+1] == '"' || q[i+1] == '\\'):
			raw.WriteString(q[i : i+2])
			txt.WriteByte(q[i+1])
			i += 2
			continue
		case r == '"':
			inQuote = !inQuote
			raw.WriteByte('"')
			started = true
		case !inQuote && isSpace(r):
			flush()
		default:
			raw.WriteString(q[i : i+size])
			txt.WriteString(q[i : i+size])
			started = true
		}
		i += size
	}
	flush()
	return toks
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0xA0 || r == 0x3000
}

func parseTerm(tok token) (t term, skip bool, err error) {
	raw, text := tok.raw, tok.text
	if strings.HasPrefix(raw, "-") {
		if raw == "-" {
			return term{}, true, nil
		}
		t.neg = true
		raw, text = raw[1:], text[1:]
	}
	name, value, isField := splitField(raw, text)
	if !isField {
		if text == "" {
			return term{}, true, nil
		}
		t.field = fieldText
		t.value = text
		t.pat = appendFoldedPattern(nil, text)
		t.ascii = isASCII(t.pat)
		t.mask = maskOf(t.pat)
		t.exact = len(t.pat) == 1 && exactBit(t.pat[0])
		return t, false, nil
	}
	lname := strings.ToLower(name)
	i := slices.IndexFunc(fieldNames, func(f struct {
		name string
		f    field
		slot int
	}) bool {
		return f.name == lname
	})
	if i < 0 {
		return term{}, false, fmt.Errorf(
			"unknown field %q: use %s (or quote the term to search for it as text)",
			name,
			strings.Join(FieldNames(), ", "),
		)
	}
	t.field, t.slot, t.value = fieldNames[i].f, fieldNames[i].slot, value
	switch t.field {
	case fieldFlagged, fieldSettled:
		if value == "" {
			return term{}, true, nil
		}
		if t.has = parsePresence(value); t.has == presenceAny {
			return term{}, false, fmt.Errorf("%s:%s: want %s:yes or %s:no", lname, value, lname, lname)
		}
		return t, false, nil
	case fieldGroup:
		t.has = parsePresence(value)
	}
	if value == "" && t.has == presenceAny {
		return term{}, true, nil
	}
	if err := checkVocabulary(t.field, name, value); err != nil {
		return term{}, false, err
	}
	pat := value
	if identifier(t.field) && t.has == presenceAny {
		lead, trail := strings.HasPrefix(pat, "*"), strings.HasSuffix(pat, "*")
		pat = strings.Trim(pat, "*")
		switch {
		case lead && trail:
			t.how = contains
		case trail:
			t.how = prefix
		case lead:
			t.how = suffix
		default:
			t.how = whole
		}
		if pat == "" { // "user:*": any value, as an empty one
			return term{}, true, nil
		}
	}
	t.pat = appendFoldedPattern(nil, pat)
	t.ascii = isASCII(t.pat)
	return t, false, nil
}

// splitField recognises name:value where name is unquoted letters; value is unquoted.
func splitField(raw, text string) (name, value string, ok bool) {
	i := strings.IndexByte(raw, ':')
	if i <= 0 {
		return "", "", false
	}
	for _, c := range []byte(raw[:i]) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_') {
			return "", "", false
		}
	}
	// The name has no quotes or escapes, so it is the same length in raw and text.
	return raw[:i], text[i+1:], true
}

func parsePresence(v string) presence {
	v = strings.ToLower(v)
	for _, y := range []string{"yes", "true", "1"} {
		if strings.HasPrefix(y, v) {
			return presenceYes
		}
	}
	for _, n := range []string{"no", "false", "0"} {
		if strings.HasPrefix(n, v) {
			return presenceNo
		}
	}
	return presenceAny
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// subsequence reports whether pat (folded) is a subsequence of hay (folded), rune by rune.
func subsequence(hay, pat []byte, ascii bool) bool { return subsequenceEnd(hay, pat, ascii) >= 0 }

// subsequenceEnd returns where the leftmost match of pat in hay ends (exclusive), or -1.
// UTF-8 is self-synchronising, so finding a whole rune's encoding finds exactly that rune.
func subsequenceEnd(hay, pat []byte, ascii bool) int {
	pos := 0
	if ascii {
		for _, c := range pat {
			i := bytes.IndexByte(hay[pos:], c)
			if i < 0 {
				return -1
			}
			pos += i + 1
		}
		return pos
	}
	for k := 0; k < len(pat); {
		size := 1
		if pat[k] >= utf8.RuneSelf {
			_, size = utf8.DecodeRune(pat[k:])
		}
		var i int
		if size == 1 {
			i = bytes.IndexByte(hay[pos:], pat[k])
		} else {
			i = bytes.Index(hay[pos:], pat[k:k+size])
		}
		if i < 0 {
			return -1
		}
		pos += i + size
		k += size
	}
	return pos
}

// Refines reports whether every row q matches is also matched by prev, so that q can be
// evaluated on prev's result alone (Index.FilterFrom): true when each term of prev is
// implied by a term of q, as when a query only grew by typing.
func (q Query) Refines(prev Query) bool {
	for _, p := range prev.terms {
		if !slices.ContainsFunc(q.terms, func(t term) bool { return t.implies(&p) }) {
			return false
		}
	}
	return true
}

// implies reports whether every row matching t matches p.
func (t *term) implies(p *term) bool {
	if t.field != p.field || t.neg != p.neg {
		return false
	}
	if t.has != presenceAny || p.has != presenceAny {
		return t.has == p.has
	}
	if t.field == fieldText {
		narrow, wide := t.pat, p.pat // positive: t's pattern must contain p's
		if t.neg {
			narrow, wide = wide, narrow // negative: excluding more is stricter
		}
		return subsequence(narrow, wide, false)
	}
	if t.neg { // excluding what p excludes, at least: a value p matches t matches
		return narrows(p, t)
	}
	return narrows(t, p)
}

// narrows reports whether every value field term t matches, p matches too.
func narrows(t, p *term) bool {
	switch p.how {
	case contains:
		return bytes.Contains(t.pat, p.pat)
	case whole:
		return t.how == whole && bytes.Equal(t.pat, p.pat)
	case prefix:
		return (t.how == whole || t.how == prefix) && bytes.HasPrefix(t.pat, p.pat)
	case suffix:
		return (t.how == whole || t.how == suffix) && bytes.HasSuffix(t.pat, p.pat)
	}
	return false
}

// fits reports whether the folded value v holds t's pattern as t.how says.
func (t *term) fits(v []byte) bool {
	switch t.how {
	case whole:
		return bytes.Equal(v, t.pat)
	case prefix:
		return bytes.HasPrefix(v, t.pat)
	case suffix:
		return bytes.HasSuffix(v, t.pat)
	}
	return bytes.Contains(v, t.pat)
}

// Highlight returns the byte offsets in s of the runes the query's positive free-text terms
// match (sahilm/fuzzy's choice of positions), sorted; terms that do not match s add nothing.
// It is meant for the few strings on screen, not for filtering.
func (q Query) Highlight(s string) []int {
	var pos []int
	for i := range q.terms {
		t := &q.terms[i]
		if t.field != fieldText || t.neg {
			continue
		}
		if m := fuzzy.Find(t.value, []string{s}); len(m) == 1 {
			pos = append(pos, m[0].MatchedIndexes...)
		}
	}
	slices.Sort(pos)
	return slices.Compact(pos)
}

// Columns are the row columns HighlightRow marks, by name (as the list names them).
var Columns = []string{"tool", "toolkit", "user", "account"}

// HighlightRow returns, for each of Columns, the byte offsets of its text that made the row
// match: the positive free-text terms matched fuzzily over the whole row (Haystack: the way the
// filter matched it, so "gmuser2" marks g and m in the tool and user2 in the user), each
// position given to the column it falls in; and the positive field terms' matches in their own
// column (a whole identifier all of it, a prefix its start). Sorted, without repeats.
func (q Query) HighlightRow(f Fields) map[string][]int {
	out := map[string][]int{}
	slots := f.slots()
	cols := [...]struct {
		name  string
		slot  int
		field field
	}{{"tool", slotTool, fieldTool}, {"toolkit", slotToolkit, fieldToolkit}, {"user", slotUser, fieldUser}, {"account", slotAccount,
		fieldAccount}}
	var hay string
	for i := range q.terms {
		t := &q.terms[i]
		if t.neg {
			continue
		}
		if t.field == fieldText {
			if hay == "" {
				hay = Haystack(f)
			}
			m := fuzzy.Find(t.value, []string{hay})
			if len(m) != 1 {
				continue
			}
			for _, p := range m[0].MatchedIndexes {
				start := 0 // the column p falls in: slots are joined by one space, in order
				for k := range nHaySlots {
					n := len(clip(slots[k], slotCap(k)))
					if p < start+n {
						for _, c := range cols {
							if c.slot == k {
								out[c.name] = append(out[c.name], p-start)
							}
						}
						break
					}
					start += n + 1
				}
			}
			continue
		}
		for _, c := range cols {
			if t.field != c.field || len(t.pat) == 0 {
				continue
			}
			v := slots[c.slot]
			folded := appendFolded(nil, v)
			if len(folded) != len(v) || !t.fits(folded) {
				continue // a value whose folding changes its length is not marked
			}
			from, to := 0, len(v)
			switch t.how {
			case prefix:
				to = len(t.pat)
			case suffix:
				from = len(v) - len(t.pat)
			case contains:
				from = bytes.Index(folded, t.pat)
				to = from + len(t.pat)
			}
			for b := from; b < to; b++ {
				out[c.name] = append(out[c.name], b)
			}
		}
	}
	for k, v := range out {
		slices.Sort(v)
		out[k] = slices.Compact(v)
	}
	return out
}

// Match reports whether row matches the query, and the highlight positions of its positive
// free-text terms in Haystack(FieldsOf(row)). For one row at a time; use an Index for many.
func (q Query) Match(row *Row) (bool, []int) {
	var ix Index
	f := FieldsOf(row)
	ix.AppendFields(f)
	if ok, _ := ix.match(&q, 0); !ok {
		return false, nil
	}
	return true, q.Highlight(Haystack(f))
}

// vocabulary is the fixed value set of the outcome and kind fields. A value there must be
// part of one of them (field terms match substrings, so "outcome:amb" is a query being typed);
// anything else is a typo that would silently match nothing, the worst answer for a triager.
// status is left open: it is the log's own word, and sources differ ("success", "Completed").
func vocabulary(f field) []string {
	switch f {
	case fieldOutcome:
		var out []string
		for _, o := range model.Outcomes() {
			out = append(out, string(o))
		}
		return out
	case fieldKind:
		return []string{string(model.KindRead), string(model.KindIdempotentWrite), string(model.KindWrite), "delivery", "event"}
	case fieldPattern:
		out := make([]string, len(model.Patterns()))
		for i, p := range model.Patterns() {
			out[i] = string(p)
		}
		return out
	}
	return nil
}

// checkVocabulary refuses a value of a fixed-vocabulary field that no value contains, naming
// the closest one.
func checkVocabulary(f field, name, value string) error {
	words := vocabulary(f)
	if words == nil {
		return nil
	}
	v := strings.ToLower(value)
	for _, w := range words {
		if strings.Contains(w, v) {
			return nil
		}
	}
	best, bestD := "", -1
	for _, w := range words {
		if d := editDistance(v, w); bestD < 0 || d < bestD {
			best, bestD = w, d
		}
	}
	lname := strings.ToLower(name)
	if bestD <= max(2, len(best)/3) {
		return fmt.Errorf("%s:%s: did you mean %s:%s? (%s is one of %s)", name, value, lname, best, lname, strings.Join(words, ", "))
	}
	return fmt.Errorf("%s:%s: no such %s (%s is one of %s)", name, value, lname, lname, strings.Join(words, ", "))
}

// editDistance is the Levenshtein distance between a and b, by bytes (the vocabularies are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
