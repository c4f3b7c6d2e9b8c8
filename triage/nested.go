package triage

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/exectriage/exectriage/model"
)

// A write's arguments may sit inside a wrapper: a mail API's message object (its subject, its
// body with a content type, its recipients), a database row's columns as an object or as a
// list of named values (Notion's properties: name, type, value). The names that say an
// argument's role (a subject, a body, a title, an address) are its role wherever it sits, so
// a wrapper is read as the arguments it holds (liftNested) before the split: a model that
// writes the call again rewords the subject and the text inside it as it would at the top.

// liftDepth is how many wrappers deep arguments are read.
const liftDepth = 3

// lifted is one argument after lifting: its path (wrapper names and its own, joined by "."),
// its own name and its JSON.
type lifted struct {
	path, leaf string
	raw        []byte
}

// liftNested is args with every wrapper replaced by the arguments it holds (wordedObject): an
// object member that holds words (a text or a heading among its members, or in a wrapper among
// them), or a list of named values that does. A lifted argument is named by its own name when
// no other argument has it (in any case), else by its path. Objects that hold no words
// (recipients as address objects, a start as a date and a zone) stay values, compared whole.
// Arguments with no wrapper are returned as they are.
func liftNested(args json.RawMessage) json.RawMessage {
	ms, ok := model.SplitObject(args)
	out, _ := liftMembers(args, ms, ok)
	return out
}

// liftMembers is liftNested of arguments already read by model.SplitObject (ms, quick), and
// whether it lifted any: arguments without an object or a list of objects cost no more.
func liftMembers(args json.RawMessage, ms []model.ArgMember, quick bool) (json.RawMessage, bool) {
	if quick && !mayNest(ms) {
		return args, false
	}
	if !quick {
		var ok bool
		if ms, ok = decodeMembers(args); !ok || !mayNest(ms) {
			return args, false
		}
		slices.SortFunc(ms, func(a, b model.ArgMember) int { return strings.Compare(a.Key, b.Key) })
	}
	var out []lifted
	changed := false
	for _, m := range ms {
		changed = liftMember(m.Key, m, 0, &out) || changed
	}
	if !changed {
		return args, false
	}
	count := make(map[string]int, len(out))
	for _, l := range out {
		count[strings.ToLower(l.leaf)]++
	}
	b := make([]byte, 0, len(args)+16)
	b = append(b, '{')
	for i, l := range out {
		if i > 0 {
			b = append(b, ',')
		}
		name := l.leaf
		if count[strings.ToLower(l.leaf)] > 1 {
			name = l.path
		}
		b = model.AppendKey(b, name)
		b = append(b, ':')
		b = append(b, l.raw...)
	}
	return append(b, '}'), true
}

// liftMember appends m, or the arguments it holds when it is a wrapper; it reports whether it
// lifted any.
func liftMember(path string, m model.ArgMember, depth int, out *[]lifted) bool {
	if depth < liftDepth {
		if inner, ok := wordedObject(m.Raw, depth); ok {
			for _, im := range inner {
				liftMember(path+"."+im.Key, im, depth+1, out)
			}
			return true
		}
	}
	*out = append(*out, lifted{path, m.Key, m.Raw})
	return false
}

// wordedObject is the members of a wrapper: an object, or a list of named values (namedValues),
// that holds words (holdsWords).
func wordedObject(raw []byte, depth int) ([]model.ArgMember, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) < 2 {
		return nil, false
	}
	var ms []model.ArgMember
	var ok bool
	switch t[0] {
	case '{':
		ms, ok = objectMembers(t)
	case '[':
		ms, ok = namedValues(t)
	}
	if !ok || !holdsWords(ms, depth) {
		return nil, false
	}
	return ms, true
}

// holdsWords reports whether members say something in words: a heading or a free text among
// them, or in a wrapper among them.
func holdsWords(ms []model.ArgMember, depth int) bool {
	for _, m := range ms {
		if m.IsStr && m.Str != "" {
			if _, free := freeText(m.Key, m.Str); free || headingKey(m.Key) {
				return true
			}
		}
	}
	if depth+1 >= liftDepth {
		return false
	}
	for _, m := range ms {
		if !m.IsStr && nests(m.Raw) {
			if _, ok := wordedObject(m.Raw, depth+1); ok {
				return true
			}
		}
	}
	return false
}

// namedValues reads a list of objects that each carry a name and a value (a name, key, field
// or property beside a value) as the members of the object it writes; ok is false for any
// other list.
func namedValues(raw []byte) ([]model.ArgMember, bool) {
	if !bytes.Contains(raw, []byte(`"value"`)) {
		return nil, false
	}
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, false
	}
	out := make([]model.ArgMember, 0, len(items))
	for _, it := range items {
		v, hasValue := it["value"]
		var name string
		for _, k := range [...]string{"name", "key", "field", "property"} {
			if n, ok := it[k]; ok && json.Unmarshal(n, &name) == nil && name != "" {
				break
			}
		}
		if !hasValue || name == "" {
			return nil, false
		}
		m := model.ArgMember{Key: name, Raw: v}
		if json.Unmarshal(v, &m.Str) == nil {
			m.IsStr = true
		}
		out = append(out, m)
	}
	return out, true
}

// objectMembers is an object's members: model.SplitObject, or through encoding/json where it
// cannot read them.
func objectMembers(raw []byte) ([]model.ArgMember, bool) {
	if ms, ok := model.SplitObject(raw); ok {
		return ms, true
	}
	return decodeMembers(raw)
}

// mayNest reports whether any member is an object or a list of objects: a wrapper's shape.
func mayNest(ms []model.ArgMember) bool {
	for _, m := range ms {
		if !m.IsStr && nests(m.Raw) {
			return true
		}
	}
	return false
}

// nests reports whether raw is an object or a list whose first element is one.
func nests(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return false
	}
	if t[0] == '{' {
		return true
	}
	return t[0] == '[' && len(bytes.TrimSpace(t[1:])) > 0 && bytes.TrimSpace(t[1:])[0] == '{'
}
