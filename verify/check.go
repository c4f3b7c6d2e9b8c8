package verify

import (
	"cmp"
	"encoding/json"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// check is one compiled verifier.
type check struct {
	name     string
	tool     string // write slug, upper case
	readTool string
	// args builds the read's arguments from the original arguments and the earliest time an
	// effect may carry.
	args func(orig map[string]any, since time.Time) (map[string]any, error)
	// lists are candidate paths (relative to the result's data) of the item list; when none
	// holds a list, the first list of objects found within four levels is used.
	lists []string
	// empty: a successful answer without any of lists means no items (GMAIL_FETCH_EMAILS omits
	// messages when nothing matches), not an answer that cannot be read.
	empty bool
	// bestEffort, when set, says why this check's read arguments are not known to be the real
	// tool's (its schema was not checked against Composio's definitions); it is said in the
	// evidence.
	bestEffort string
	// rules must all hold for an item to match.
	rules []rule
	times []string // candidate item paths of the effect's time
	ids   []string // candidate item paths of the object's id
	// pageSize: a page this full without a match may have cut the match off (0: not known).
	pageSize int
	// single: the read answers with the one object the write changed (not a list), and a
	// match means the change is in place (an idempotent write such as adding a label).
	single bool
	// gone: the write removes an object (goneArg names its id); a read that answers "not
	// found" is the effect, a match means it is still there.
	gone    bool
	goneArg string
	what    func(orig map[string]any) string
	// blind, when set, says why this read cannot see every effect of these arguments (""
	// when it can): a not_found is then reported as unknown.
	blind   func(orig map[string]any) string
	invalid error
}

func (c *check) verb() string {
	if v, _ := triage.SlugVerb(c.tool); v != "" {
		return v
	}
	return "write"
}

type matchMode int

const (
	matchEqual    matchMode = iota // case-insensitive, whitespace-normalised, HTML entities decoded
	matchEmail                     // the addresses in the item field include the wanted one
	matchContains                  // the item field contains the wanted text
	// matchBody: the item's text contains the wanted text, or is a preview of it (a reply's
	// text may carry the quoted thread after it; a preview is cut short).
	matchBody
	// matchAuto: matchEmail when the wanted value is an address, else matchEqual (config rules).
	matchAuto
)

// rule compares an item field with values from the original arguments: every wanted value
// must be present in the field (or, negated, none of them).
type rule struct {
	item   []string                   // candidate item paths; the first present one is compared (item[0] names it)
	get    func(item any) (any, bool) // replaces item paths when the field needs computing
	want   func(orig map[string]any) (vals []string, ok bool, err error)
	mode   matchMode
	negate bool
}

// wanted is a rule's values for one execution; skip when the call did not set the field.
type wanted struct {
	vals []string
	skip bool
}

func (c *check) wants(args map[string]any) ([]wanted, error) {
	out := make([]wanted, len(c.rules))
	for i, r := range c.rules {
		vals, ok, err := r.want(args)
		if err != nil {
			return nil, err
		}
		out[i] = wanted{vals: vals, skip: !ok || len(vals) == 0}
	}
	return out, nil
}

func (c *check) describe(args map[string]any) string {
	if c.what != nil {
		if s := c.what(args); s != "" {
			return s
		}
	}
	return "matching item"
}

func (c *check) findItems(data any) ([]any, string, bool) {
	if c.single || c.gone {
		for _, p := range c.lists {
			if o, ok := lookup(data, p).(map[string]any); ok {
				return []any{o}, p, true
			}
		}
		if o, ok := data.(map[string]any); ok {
			return []any{o}, "the top level", true
		}
		return nil, "", false
	}
	for _, p := range c.lists {
		if l, ok := lookup(data, p).([]any); ok {
			return l, p, true
		}
	}
	if l, ok := data.([]any); ok {
		return l, "the top level", true
	}
	if p, l, ok := firstObjectList(data, "", 4); ok {
		return l, p, true
	}
	return nil, "", false
}

// verdict of one item against a check's rules.
type verdict int

const (
	itemNoMatch verdict = iota
	itemMatch
	itemUnknown // the item lacks a compared field: it can be neither counted nor ruled out
)

// match compares one item with the wanted values. A field the item lacks makes the item
// unknown rather than a mismatch, so a read whose answer has another shape than expected
// cannot produce a false not_found (which would let a person retry a send that happened).
func (c *check) match(ws []wanted, item any) (model.EvidenceItem, verdict, string) {
	missing := ""
	for i, r := range c.rules {
		if ws[i].skip {
			continue // the original call did not set this field: it cannot discriminate
		}
		got, present := c.field(item, r)
		if !present {
			missing = cmp.Or(missing, r.item[0])
			continue
		}
		for _, w := range ws[i].vals {
			if valueMatches(got, w, r.mode) == r.negate {
				return model.EvidenceItem{}, itemNoMatch, ""
			}
		}
	}
	if missing != "" {
		return model.EvidenceItem{}, itemUnknown, missing
	}
	ev := model.EvidenceItem{}
	if id, ok := firstPresent(item, c.ids); ok {
		ev.ID = scalarText(id)
	}
	if t, ok := firstPresent(item, c.times); ok {
		ev.Time, _ = itemTime(t)
	}
	ev.Summary = c.summarize(item)
	return ev, itemMatch, ""
}

func (c *check) field(item any, r rule) (any, bool) {
	if r.get != nil {
		return r.get(item)
	}
	return firstPresent(item, r.item)
}

func (c *check) summarize(item any) string {
	var parts []string
	for _, r := range c.rules {
		if v, ok := c.field(item, r); ok {
			parts = append(parts, r.item[0]+"="+oneLine(scalarText(v), 60))
		}
	}
	return strings.Join(parts, " ")
}

// lookup follows a dotted path ("response_data.messages", "items.0.id") through decoded JSON.
func lookup(v any, path string) any {
	if path == "" || path == "." {
		return v
	}
	for part := range strings.SplitSeq(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			x, ok := t[part]
			if !ok {
				return nil
			}
			v = x
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(t) {
				return nil
			}
			v = t[i]
		default:
			return nil
		}
	}
	return v
}

func firstPresent(item any, paths []string) (any, bool) {
	for _, p := range paths {
		if v := lookup(item, p); v != nil {
			return v, true
		}
	}
	return nil, false
}

// firstObjectList finds, breadth first, a list whose first element is an object.
func firstObjectList(v any, at string, depth int) (string, []any, bool) {
	type node struct {
		v    any
		path string
		d    int
	}
	queue := []node{{v, at, 0}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		switch t := n.v.(type) {
		case []any:
			if len(t) > 0 {
				if _, ok := t[0].(map[string]any); ok && n.path != "" {
					return n.path, t, true
				}
			}
		case map[string]any:
			if n.d >= depth {
				continue
			}
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				p := k
				if n.path != "" {
					p = n.path + "." + k
				}
				queue = append(queue, node{t[k], p, n.d + 1})
			}
		}
	}
	return "", nil, false
}

func valueMatches(got any, want string, mode matchMode) bool {
	if l, ok := got.([]any); ok {
		for _, x := range l {
			if valueMatches(x, want, mode) {
				return true
			}
		}
		return false
	}
	if m, ok := got.(map[string]any); ok { // {"email": "..."} / {"value": "..."} / {"name": ...}
		for _, k := range []string{"email", "address", "value", "plain_text", "content", "name", "text"} {
			if x, ok := m[k]; ok && valueMatches(x, want, mode) {
				return true
			}
		}
		return false
	}
	g := normText(scalarText(got))
	w := normText(want)
	if mode == matchAuto {
		mode = matchEqual
		if isEmail(want) {
			mode = matchEmail
		}
	}
	switch mode {
	case matchEmail:
		w = strings.ToLower(strings.TrimSpace(want))
		return slices.Contains(emailsIn(g), w)
	case matchContains:
		return w == "" || strings.Contains(g, w)
	case matchBody:
		if strings.Contains(g, w) {
			return true
		}
		p := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(g, "…"), "..."), " ")
		return len(p) >= 20 && strings.HasPrefix(w, p)
	}
	return g == w
}

// normText folds case, decodes HTML entities (Slack escapes &, <, >) and collapses whitespace.
func normText(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(html.UnescapeString(s)), " "))
}

func isEmail(s string) bool {
	s = strings.TrimSpace(s)
	at := strings.IndexByte(s, '@')
	return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " <>,;\"")
}

// emailsIn pulls the addresses out of "Alice <a@x.com>, b@y.com".
func emailsIn(s string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '<' || r == '>' || r == '"' || r == '\t'
	}) {
		if strings.Contains(f, "@") {
			out = append(out, strings.ToLower(strings.Trim(f, "'()[]")))
		}
	}
	return out
}

func scalarText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// itemTime reads RFC 3339, epoch seconds or milliseconds (numbers or strings) and Slack's ts.
func itemTime(v any) (time.Time, bool) {
	if m, ok := v.(map[string]any); ok { // Google Calendar {"dateTime": ...}
		for _, k := range []string{"dateTime", "date_time", "date", "value"} {
			if x, ok := m[k]; ok {
				return itemTime(x)
			}
		}
		return time.Time{}, false
	}
	return model.ParseTime(scalarText(v))
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
