package triage

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/exectriage/exectriage/model"
)

// effectArgs is a write's arguments split into what identifies its effect and its free text.
type effectArgs struct {
	identity []byte   // canonical JSON of the identifying arguments
	keys     []string // names of the identifying top-level arguments, sorted
	textKeys []string // names of the free-text arguments present, sorted
	rawText  string   // the free text, by key; signature(rawText) is what similarity reads
	// pinned says the identity pins the target by its own facts (pinned.go): its labels are
	// in the text, and any text joins after an attempt that did not succeed
	pinned bool
	// subject is an email's subject (an effect family's, intent.go), or any tool's heading
	// (headingKey: title, summary, name; the values in key order): outside the identity, so
	// that a heading rewritten or translated with its body stays in the bucket; compared beside
	// the text (clusterBucket) and read for facts with it
	subject string
	// headingKeys names the headings in subject, sorted, joined by "/"; "" for an effect
	// family's subject
	headingKeys string
}

// heading is one heading argument: its name and its text.
type heading struct{ key, text string }

// addHeadings sets out's subject from the headings, in key order (one, the usual case, costs
// nothing: its key and text are the arguments' own strings).
func addHeadings(out *effectArgs, hs []heading) {
	switch len(hs) {
	case 0:
		return
	case 1:
		out.headingKeys, out.subject = hs[0].key, hs[0].text
		return
	}
	slices.SortFunc(hs, func(a, b heading) int { return strings.Compare(a.key, b.key) })
	keys, texts := make([]string, len(hs)), make([]string, len(hs))
	for i, h := range hs {
		keys[i], texts[i] = h.key, h.text
	}
	out.headingKeys, out.subject = strings.Join(keys, "/"), strings.Join(texts, "\n")
}

// splitArgs splits arguments (JSON) for near-duplicate grouping; ok is false when they are
// not JSON. Arguments that are not an object are all identity.
func splitArgs(args json.RawMessage, volatile []string) (effectArgs, bool) {
	return splitArgsSkipping(args, volatile, skipSet(volatile), nil)
}

// splitArgsSkipping is splitArgs with skipSet(volatile) made already, and the roles the tool's
// definition gives its arguments (nil: none known; roles.go).
func splitArgsSkipping(args json.RawMessage, volatile []string, skip map[string]bool, roles Roles) (effectArgs, bool) {
	ms, quick := model.SplitObject(args)
	if lifted, changed := liftMembers(args, ms, quick); changed { // a wrapper's arguments read as arguments (nested.go)
		args = lifted
		ms, quick = model.SplitObject(args)
	}
	if quick && len(ms) > 0 {
		if out, ok := splitMembers(ms, len(args), skip, roles); ok {
			return out, true
		}
	}
	return splitArgsSlow(args, volatile, skip, roles)
}

// skipSet is the volatile keys in lower case, as a set.
func skipSet(volatile []string) map[string]bool {
	skip := make(map[string]bool, len(volatile))
	for _, k := range volatile {
		skip[strings.ToLower(k)] = true
	}
	return skip
}

// splitArgsQuick is splitArgs read straight from the JSON (model.SplitObject,
// model.AppendCanonical); ok is false when the quick path cannot be sure, and
// splitArgsSlow decides. TestSplitArgsQuickMatchesSlow holds the two equal.
func splitArgsQuick(args json.RawMessage, skip map[string]bool, roles Roles) (effectArgs, bool) {
	ms, ok := model.SplitObject(args)
	if !ok || len(ms) == 0 {
		return effectArgs{}, false
	}
	return splitMembers(ms, len(args), skip, roles)
}

// splitMembers is splitArgsQuick of an object's members (model.SplitObject); size is the
// arguments' length, a bound on the identity's.
func splitMembers(ms []model.ArgMember, size int, skip map[string]bool, roles Roles) (effectArgs, bool) {
	var out effectArgs
	var ok bool
	var texts []string
	var headBuf [4]heading
	headings := headBuf[:0]
	var label []bool
	worded := madeOfWords(ms, skip)
	out.pinned, label, ms = pinnedMembers(ms, skip, roles)
	ident := make([]model.ArgMember, 0, len(ms))
	for i, m := range ms {
		if model.Skips(skip, m.Key) || emptyRaw(m.Raw) || worded && attributeKey(m.Key) {
			continue // a null or empty argument is an absent one: a rebuilt payload may send either
		}
		if m.IsStr && headingKey(m.Key) && !(out.pinned && label[i]) {
			headings = append(headings, heading{m.Key, m.Str})
			continue
		}
		if m.IsStr {
			if text, free := freeText(m.Key, m.Str); free || out.pinned && label[i] {
				out.textKeys = append(out.textKeys, m.Key)
				texts = append(texts, m.Key+"\x00"+cmp.Or(text, m.Str))
				continue
			}
		}
		if rows, ok := rowsOf(m); ok { // records appended: content, by their facts (rows.go)
			out.textKeys = append(out.textKeys, m.Key)
			texts = append(texts, m.Key+"\x00"+rows)
			continue
		}
		if doc, ok := documentValue(m.Key, m.IsStr, m.Raw); ok { // a text sent as a document
			out.textKeys = append(out.textKeys, m.Key)
			texts = append(texts, m.Key+"\x00"+doc)
			continue
		}
		ident = append(ident, m)
		out.keys = append(out.keys, m.Key)
	}
	if names, ok := namesByWords(len(ident), func(i int) string { return ident[i].Key }); ok {
		for i := range ident {
			ident[i].Key = names[i]
		}
	}
	slices.SortFunc(ident, func(a, b model.ArgMember) int { return strings.Compare(a.Key, b.Key) })
	id := make([]byte, 0, size)
	id = append(id, '{')
	for i, m := range ident {
		if i > 0 {
			id = append(id, ',')
		}
		id = model.AppendKey(id, m.Key)
		id = append(id, ':')
		switch {
		case m.IsStr: // a string as the fact it states (identityvalue.go)
			id, ok = appendIdentityString(id, m)
		case len(m.Raw) > 0 && (m.Raw[0] == '{' || m.Raw[0] == '['): // and the strings a wrapper holds
			id, ok = appendIdentityNested(id, m.Key, m.Raw, skip)
		default:
			if fact, read := keyedDigits(m.Key, string(m.Raw)); read { // seconds since 1970 as the instant, a number dialed
				id, ok = model.AppendKey(id, fact), true
				break
			}
			id, ok = model.AppendCanonical(id, m.Raw, skip)
		}
		if !ok {
			return out, false
		}
	}
	out.identity = append(id, '}')
	slices.Sort(out.keys)
	slices.Sort(out.textKeys)
	slices.Sort(texts)
	var all strings.Builder
	for _, t := range texts {
		_, s, _ := strings.Cut(t, "\x00")
		all.WriteString(s)
		all.WriteByte('\n')
	}
	out.rawText = all.String()
	addHeadings(&out, headings)
	return out, true
}

// splitArgsSlow is splitArgs through encoding/json, the reference; skip is volatile in lower
// case.
func splitArgsSlow(args json.RawMessage, volatile []string, skip map[string]bool, roles Roles) (effectArgs, bool) {
	var out effectArgs
	v, err := model.DecodeArgs(args)
	if err != nil {
		return out, false
	}
	m, isObject := v.(map[string]any)
	if !isObject {
		if out.identity, err = model.CanonicalValue(v, volatile); err != nil {
			return out, false
		}
		return out, true
	}
	var texts []string
	var headings []heading
	// pinning, read from the same members as the quick path reads (pinned.go)
	members, _ := decodeMembers(args)
	worded := madeOfWords(members, skip)
	pinned, label, pm := pinnedMembers(members, skip, roles)
	out.pinned = pinned
	isLabel := map[string]bool{}
	for i, mb := range pm {
		if pinned && label[i] {
			isLabel[mb.Key] = true
		} else if pinned && string(mb.Raw) != string(members[i].Raw) {
			m[mb.Key] = mb.Str // a pinning value in its normal form
		}
	}
	ident := make(map[string]any, len(m))
	for k, val := range m {
		if model.Skips(skip, k) || emptyValue(val) || worded && attributeKey(k) {
			continue // null and empty are absent; a worded thing's attributes are no identity
		}
		if s, ok := val.(string); ok && headingKey(k) && !isLabel[k] {
			headings = append(headings, heading{k, s})
			continue
		}
		if s, ok := val.(string); ok {
			if text, free := freeText(k, s); free || isLabel[k] {
				out.textKeys = append(out.textKeys, k)
				texts = append(texts, k+"\x00"+cmp.Or(text, s))
				continue
			}
		}
		if rows, ok := rowsText(val); ok && rowsKey(k) {
			out.textKeys = append(out.textKeys, k)
			texts = append(texts, k+"\x00"+rows)
			continue
		}
		if _, isStr := val.(string); !isStr {
			if raw, err := json.Marshal(val); err == nil {
				if doc, ok := documentValue(k, false, raw); ok {
					out.textKeys = append(out.textKeys, k)
					texts = append(texts, k+"\x00"+doc)
					continue
				}
			}
		}
		ident[k] = identityDeep(k, val) // every string as the fact it states, at any depth (identityvalue.go)
		out.keys = append(out.keys, k)
	}
	keys := slices.Collect(maps.Keys(ident))
	if names, ok := namesByWords(len(keys), func(i int) string { return keys[i] }); ok {
		named := make(map[string]any, len(ident))
		for i, k := range keys {
			named[names[i]] = ident[k]
		}
		ident = named
	}
	if out.identity, err = model.CanonicalValue(ident, volatile); err != nil {
		return out, false
	}
	slices.Sort(out.keys)
	slices.Sort(out.textKeys)
	slices.Sort(texts) // by key, so the text does not depend on map order
	var all strings.Builder
	for _, t := range texts {
		_, s, _ := strings.Cut(t, "\x00")
		all.WriteString(s)
		all.WriteByte('\n')
	}
	out.rawText = all.String() // tokenised only when the bucket has company (textOf)
	addHeadings(&out, headings)
	return out, true
}

// namesByWords is the identifying arguments' names by their words (keyWords, joined by '_'): a
// model may write an argument's name in any case style (spreadsheetId, spreadsheet_id,
// SpreadsheetID), which names the same argument. ok is false when two of the names would be
// one (both spellings sent at once): then each keeps its own.
func namesByWords(n int, key func(int) string) ([]string, bool) {
	names := make([]string, n)
	for i := range n {
		names[i] = nameByWords(key(i))
		for j := range i {
			if names[j] == names[i] {
				return nil, false
			}
		}
	}
	return names, true
}

// nameByWords is a name's words joined by '_' (keyWords); a name already so written (most are)
// is itself, read without allocating.
func nameByWords(k string) string {
	plain := k != "" && k[0] != '_' && k[len(k)-1] != '_'
	for i := 0; plain && i < len(k); i++ {
		c := k[i]
		plain = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' && k[i-1] != '_'
	}
	if plain {
		return k
	}
	return strings.Join(keyWords(k), "_")
}

// documentText is a free text's words: a text that is a JSON document (Slack's blocks, a rich
// text's nodes, an adaptive card, sent as a string) says them in its text leaves (under a name a
// message body has: text, markdown, content...), which are what a person reads; its other
// strings are its structure (section, mrkdwn). Any other text is itself.
func documentText(s string) string {
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '[' && t[0] != '{' {
		return s
	}
	var v any
	if json.Unmarshal([]byte(t), &v) != nil {
		return s
	}
	if words := textLeaves(v); len(words) > 0 {
		return strings.Join(words, "\n")
	}
	return s
}

// textLeaves is a decoded document's text leaves: its strings under a name a message body has
// (textKey), in the order of their names.
func textLeaves(v any) []string {
	var words []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(k, x[k])
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			if textKey(key) {
				words = append(words, x)
			}
		}
	}
	walk("", v)
	return words
}

// documentValue is the text of an argument whose value is a document itself, not a string
// holding one: its text leaves, as documentText reads them, when the argument is named for a
// text (textKey: Atlassian's document format as a description, a rich text's nodes as a body),
// or whatever its name when it holds texts and their presentation only (presented: a message's
// embed, its attachment, its card). A text is free text whichever way it is sent; ok is false
// for a string, a value that is not an object or a list, or one with no text leaf.
func documentValue(k string, isStr bool, raw []byte) (string, bool) {
	if isStr || len(raw) == 0 || raw[0] != '{' && raw[0] != '[' {
		return "", false
	}
	named := textKey(k)
	if !named && !namesAText(raw) {
		return "", false // (most objects: read without decoding them)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	words := textLeaves(v)
	if len(words) == 0 || !named && !presented("", v) {
		return "", false
	}
	return strings.Join(words, "\n"), true
}

// namesAText reports whether a JSON value may have a member named for a text (textKey): a
// string followed by a colon that is such a name. It reads the bytes only, so that a value with
// none is never decoded; an escaped name may be missed (no document is read then).
func namesAText(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(raw) && raw[j] != '"' && raw[j] != '\\' {
			j++
		}
		if j >= len(raw) || raw[j] == '\\' {
			return j < len(raw) // an escape: let the decoder say
		}
		k := j + 1
		for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r') {
			k++
		}
		if k < len(raw) && raw[k] == ':' && textKey(string(raw[i+1:j])) {
			return true
		}
		i = j
	}
	return false
}

// presented reports whether a decoded value is texts and their presentation only: every leaf
// under a name for a text (textKey), a heading (headingKey), or one that says how it is shown
// (shownAs). Such an argument is a document whatever its name, as a document sent as a string
// is; a record with any other value (an amount, an id, a file's name) is none.
func presented(key string, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !presented(k, e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !presented(key, e) {
				return false
			}
		}
		return true
	case nil:
		return true
	case string:
		if textKey(key) {
			return true
		}
	}
	return headingKey(key) || shownAs(key)
}

// shownAs is a name that says how a text is shown, not what it says: its type, colour,
// style, format, weight, wrapping, size, spacing, a version of its schema, a fallback for a
// client that cannot show it.
func shownAs(k string) bool {
	switch strings.ToLower(k) {
	case "type", "color", "colour", "style", "version", "weight", "wrap", "size", "contenttype", "content_type", "fallback",
		"format", "emoji", "schema", "$schema", "mrkdwn_in", "spacing", "separator":
		return true
	}
	return false
}

// placeName is a string of a write's identity as a name is compared: without case, and without
// the sign a name may carry (#general and General are one channel, @dana and dana one user).
// Ids differ in more than case.
func placeName(s string) string {
	if len(s) > 1 && (s[0] == '#' || s[0] == '@') {
		s = s[1:]
	}
	return strings.ToLower(s)
}

// madeOfWords reports whether a write makes a thing out of words: a heading or a free text among
// its arguments (an issue, a task, a message), not an action on a thing named by ids (a label
// added to a message).
func madeOfWords(ms []model.ArgMember, skip map[string]bool) bool {
	for _, m := range ms {
		if !m.IsStr || m.Str == "" || model.Skips(skip, m.Key) {
			continue
		}
		if _, free := freeText(m.Key, m.Str); free || headingKey(m.Key) {
			return true
		}
	}
	return false
}

// attributeKey: an argument that tags, assigns or ranks what a write makes (labels, assignees,
// reviewers, watchers, a priority, a milestone, a colour), or says how it is shown or announced
// (link previews, markup, an icon, its visibility, a conference, reminders, whether and how
// people are notified), by its name's words. Of a thing made of words it is an attribute, not
// where the thing goes: a model writing the call again adds or drops them. Of an action on a
// thing named by ids (a label added to a message) it is the action, and stays its identity.
func attributeKey(k string) bool {
	ws := keyWords(k)
	for i, w := range ws {
		switch w {
		case "label", "labels", "assignee", "assignees", "reviewer", "reviewers", "watcher", "watchers", "priority",
			"milestone", "color", "colour",
			"unfurl", "mrkdwn", "parse", "preview", "icon", "emoji", "visibility", "transparency", "conference",
			"reminder", "reminders", "notify", "notification", "notifications", "silent":
			return true
		case "updates":
			if i > 0 && ws[i-1] == "send" { // send_updates: whether the people are told
				return true
			}
		}
	}
	return false
}

// freeText is a string argument's text when it is free text: a document with text leaves (its
// leaves: documentText), or a text named for a body, long, or on several lines (itself).
func freeText(k, s string) (string, bool) {
	if identityKey(k) {
		return "", false
	}
	if doc := documentText(s); doc != s {
		return doc, true
	}
	if textKey(k) || utf8.RuneCountInString(s) > longTextChars || strings.Contains(s, "\n") {
		return s, true
	}
	return "", false
}

// emptyRaw reports whether an argument's JSON says nothing: null, "", [] or {} (spaces inside
// allowed). An empty value is an absent one: a rebuilt payload or a model filling every field
// sends "cc": [] where the first attempt left cc out, and the effect is the same.
func emptyRaw(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	switch {
	case string(t) == "null", string(t) == `""`:
		return true
	case len(t) >= 2 && (t[0] == '[' && t[len(t)-1] == ']' || t[0] == '{' && t[len(t)-1] == '}'):
		return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
	}
	return false
}

// emptyValue is emptyRaw of a decoded value.
func emptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
