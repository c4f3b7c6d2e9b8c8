package model

import (
	"encoding/json"
	"slices"
	"strings"
)

// The quick canonical form: arguments read straight from their JSON, without decoding them
// into maps first. It gives exactly what DecodeArgs and CanonicalValue give, or says it cannot
// (ok false) and the caller takes the slow path, which decides: anything unusual (a key twice,
// trailing bytes, deep nesting, a syntax error) is left to it. A fuzz test holds the two equal.

// ArgMember is one top-level argument as SplitObject reads it.
type ArgMember struct {
	Key string
	Raw []byte // the value's JSON as written (aliasing the input)
	// Str is the value decoded, when it is a string (IsStr).
	Str   string
	IsStr bool
}

// quickMaxDepth is the nesting the quick path reads; deeper arguments take the slow path.
const quickMaxDepth = 32

// SplitObject reads arguments that are one JSON object into its members, in the order
// written; ok is false when they are anything else, hold a key twice, or have anything the
// quick path leaves to DecodeArgs.
func SplitObject(args []byte) (members []ArgMember, ok bool) {
	r := quick{b: args}
	r.ws()
	if r.i >= len(r.b) || r.b[r.i] != '{' {
		return nil, false
	}
	ok = r.members(true, func(key string) bool {
		start := r.i
		m := ArgMember{Key: key}
		if r.i < len(r.b) && r.b[r.i] == '"' {
			var ok bool
			if m.Str, ok = r.str(); !ok {
				return false
			}
			m.IsStr = true
		} else if !r.skip(1) {
			return false
		}
		m.Raw = r.b[start:r.i]
		members = append(members, m)
		return true
	})
	r.ws()
	if !ok || r.i != len(r.b) || hasDuplicateKey(members) {
		return nil, false
	}
	return members, true
}

// members steps over the object at r.i ('{'), calling value for each member with its key
// (decoded when keys is set, else "") and r at the member's value, which value steps over;
// ok is false for anything encoding/json would not read.
func (r *quick) members(keys bool, value func(key string) bool) bool {
	r.i++ // {
	r.ws()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return true
	}
	for {
		r.ws()
		var k string
		if keys {
			var ok bool
			if k, ok = r.str(); !ok {
				return false
			}
		} else if r.i >= len(r.b) || r.b[r.i] != '"' {
			return false
		} else if at := r.i; !r.plainStr() {
			r.i = at
			if _, ok := r.str(); !ok {
				return false
			}
		}
		r.ws()
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return false
		}
		r.i++
		r.ws()
		if !value(k) {
			return false
		}
		r.ws()
		if r.i >= len(r.b) {
			return false
		}
		if r.b[r.i] == '}' {
			r.i++
			return true
		}
		if r.b[r.i] != ',' {
			return false
		}
		r.i++
	}
}

func hasDuplicateKey(ms []ArgMember) bool {
	if len(ms) < 2 {
		return false
	}
	if len(ms) <= 8 {
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				if ms[i].Key == ms[j].Key {
					return true
				}
			}
		}
		return false
	}
	keys := make([]string, len(ms))
	for i := range ms {
		keys[i] = ms[i].Key
	}
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return true
		}
	}
	return false
}

// AppendCanonical appends the canonical JSON of one value (raw, as SplitObject gives it)
// that CanonicalValue gives of it decoded, the keys in skip (lower case) dropped at any
// depth; ok is false when the quick path leaves it to the slow one.
func AppendCanonical(dst, raw []byte, skip map[string]bool) ([]byte, bool) {
	r := quick{b: raw}
	r.ws()
	out, ok := r.canonical(dst, skip, 0)
	if !ok {
		return dst, false
	}
	r.ws()
	return out, r.i == len(r.b)
}

// AppendKey appends a key as CanonicalValue writes it (json.Marshal of the string).
func AppendKey(dst []byte, k string) []byte { return appendQuoted(dst, k) }

type quick struct {
	b     []byte
	i     int
	check bool // only step over the value, appending nothing
}

func (r *quick) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// str reads a string and decodes it as encoding/json does (escapes, and invalid UTF-8 made
// U+FFFD, by encoding/json itself when the text is not plain ASCII).
func (r *quick) str() (string, bool) {
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return "", false
	}
	start := r.i
	plain := true
	for j := r.i + 1; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			if plain {
				return string(r.b[start+1 : j]), true
			}
			var s string
			if json.Unmarshal(r.b[start:r.i], &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			return "", false
		case c >= 0x80:
			plain = false
		}
	}
	return "", false
}

// skip steps over one value, checking its syntax as canonical does (at most depth levels).
func (r *quick) skip(depth int) bool {
	v := quick{b: r.b, i: r.i, check: true}
	_, ok := v.canonical(nil, nil, depth)
	r.i = v.i
	return ok
}

// plainStr steps over a string that needs no decoding (ASCII, no escapes); ok false for any
// other string, which str reads.
func (r *quick) plainStr() bool {
	for j := r.i + 1; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return false
		}
	}
	return false
}

// canonical reads one value and appends its canonical form (nil dst: checks only).
func (r *quick) canonical(dst []byte, skip map[string]bool, depth int) ([]byte, bool) {
	if depth > quickMaxDepth || r.i >= len(r.b) {
		return dst, false
	}
	switch c := r.b[r.i]; {
	case c == '"':
		if r.check {
			at := r.i
			if r.plainStr() {
				return dst, true
			}
			r.i = at
			_, ok := r.str()
			return dst, ok
		}
		s, ok := r.str()
		if !ok {
			return dst, false
		}
		return appendQuoted(dst, s), true
	case c == '{':
		return r.object(dst, skip, depth)
	case c == '[':
		r.i++
		dst = r.put(dst, '[')
		r.ws()
		if r.i < len(r.b) && r.b[r.i] == ']' {
			r.i++
			return r.put(dst, ']'), true
		}
		for n := 0; ; n++ {
			if n > 0 {
				dst = r.put(dst, ',')
			}
			r.ws()
			var ok bool
			if dst, ok = r.canonical(dst, skip, depth+1); !ok {
				return dst, false
			}
			r.ws()
			if r.i >= len(r.b) {
				return dst, false
			}
			if r.b[r.i] == ']' {
				r.i++
				return r.put(dst, ']'), true
			}
			if r.b[r.i] != ',' {
				return dst, false
			}
			r.i++
		}
	case c == '-' || '0' <= c && c <= '9':
		start := r.i
		if !r.number() {
			return dst, false
		}
		if r.check {
			return dst, true
		}
		return append(dst, canonicalNumber(json.Number(r.b[start:r.i]))...), true
	case c == 't':
		return r.literal(dst, "true")
	case c == 'f':
		return r.literal(dst, "false")
	case c == 'n':
		return r.literal(dst, "null")
	}
	return dst, false
}

// put appends c unless the reader only checks.
func (r *quick) put(dst []byte, c byte) []byte {
	if r.check {
		return dst
	}
	return append(dst, c)
}

func (r *quick) literal(dst []byte, lit string) ([]byte, bool) {
	if len(r.b)-r.i < len(lit) || string(r.b[r.i:r.i+len(lit)]) != lit {
		return dst, false
	}
	r.i += len(lit)
	if r.check {
		return dst, true
	}
	return append(dst, lit...), true
}

// number reads a JSON number.
func (r *quick) number() bool {
	b, i := r.b, r.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	r.i = i
	return true
}

// object reads an object and appends it with its keys sorted and the skipped ones dropped.
func (r *quick) object(dst []byte, skip map[string]bool, depth int) ([]byte, bool) {
	type member struct {
		key      string
		from, to int // the value's bytes in r.b
	}
	var ms []member
	ok := r.members(!r.check, func(k string) bool {
		from := r.i
		if !r.skip(depth + 1) {
			return false
		}
		if !r.check {
			ms = append(ms, member{k, from, r.i})
		}
		return true
	})
	if !ok {
		return dst, false
	}
	if r.check {
		return dst, true
	}
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(ms); i++ {
		if ms[i].key == ms[i-1].key {
			return dst, false // encoding/json keeps the last: the slow path decides
		}
	}
	dst = append(dst, '{')
	n := 0
	for _, m := range ms {
		if skip[strings.ToLower(m.key)] {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendQuoted(dst, m.key)
		dst = append(dst, ':')
		v := quick{b: r.b[:m.to], i: m.from}
		var ok bool
		if dst, ok = v.canonical(dst, skip, depth+1); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendQuoted appends json.Marshal(s).
func appendQuoted(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
