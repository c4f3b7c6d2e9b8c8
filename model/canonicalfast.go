package model

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// The quick canonical form: arguments read straight from their JSON, without decoding them
// into maps first, with the record parser's cursor (scan: its validation is encoding/json's).
// It gives exactly what DecodeArgs and CanonicalValue give, or says it cannot (ok false) and
// the caller takes the slow path, which decides: anything unusual (a key twice or escaped,
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
	s := scan{b: args}
	s.ws()
	if s.peek() != '{' {
		return nil, false
	}
	ok = s.object(nil, func(key []byte) (uint32, bool) {
		start := s.i
		m := ArgMember{Key: string(key)}
		if s.peek() == '"' {
			var ok bool
			if m.Str, ok = s.value(); !ok {
				return 0, false
			}
			m.IsStr = true
		} else if !s.skip() {
			return 0, false
		}
		m.Raw = s.b[start:s.i]
		members = append(members, m)
		return 0, true
	})
	s.ws()
	if !ok || s.i != len(s.b) || hasDuplicateKey(members) {
		return nil, false
	}
	return members, true
}

func hasDuplicateKey(ms []ArgMember) bool {
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
	return appendCanonical(dst, raw, skip, true)
}

// appendCanonical is AppendCanonical; dropNull false gives CanonicalArgs's form (null members
// kept).
func appendCanonical(dst, raw []byte, skip map[string]bool, dropNull bool) ([]byte, bool) {
	s := scan{b: raw}
	s.ws()
	out, ok := s.canonical(dst, skip, 0, dropNull)
	if !ok {
		return dst, false
	}
	s.ws()
	return out, s.i == len(s.b)
}

// AppendKey appends a key as CanonicalValue writes it (json.Marshal of the string).
func AppendKey(dst []byte, k string) []byte { return appendQuoted(dst, k) }

// value reads the string at s.i, decoded as encoding/json decodes it.
func (s *scan) value() (string, bool) {
	start := s.i
	plain, esc, ok := s.str()
	if !ok {
		return "", false
	}
	return s.text(start, plain, esc, noIntern)
}

// canonical reads one value and appends its canonical form; dropNull leaves out an object's
// members whose value is null (CanonicalValue's form; CanonicalArgs keeps them).
func (s *scan) canonical(dst []byte, skip map[string]bool, depth int, dropNull bool) ([]byte, bool) {
	if depth > quickMaxDepth {
		return dst, false
	}
	switch c := s.peek(); {
	case c == '"':
		v, ok := s.value()
		return appendQuoted(dst, v), ok
	case c == '{':
		return s.canonicalObject(dst, skip, depth, dropNull)
	case c == '[':
		s.i++
		dst = append(dst, '[')
		s.ws()
		if s.peek() == ']' {
			s.i++
			return append(dst, ']'), true
		}
		for n := 0; ; n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			s.ws()
			var ok bool
			if dst, ok = s.canonical(dst, skip, depth+1, dropNull); !ok {
				return dst, false
			}
			s.ws()
			switch s.peek() {
			case ']':
				s.i++
				return append(dst, ']'), true
			case ',':
				s.i++
			default:
				return dst, false
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		start := s.i
		if !s.num() {
			return dst, false
		}
		return append(dst, canonicalNumber(json.Number(s.b[start:s.i]))...), true
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if s.lit(lit) {
			return append(dst, lit...), true
		}
	}
	return dst, false
}

// canonicalObject reads an object and appends it with its keys sorted and the skipped ones
// dropped.
func (s *scan) canonicalObject(dst []byte, skip map[string]bool, depth int, dropNull bool) ([]byte, bool) {
	type member struct {
		key      string
		from, to int // the value's bytes in s.b
	}
	var ms []member
	ok := s.object(nil, func(key []byte) (uint32, bool) {
		from := s.i
		if !s.skip() {
			return 0, false
		}
		ms = append(ms, member{string(key), from, s.i})
		return 0, true
	})
	if !ok {
		return dst, false
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
		if Skips(skip, m.key) || (dropNull && isNull(s.b[m.from:m.to])) { // a null member is an absent one (CanonicalValue)
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = appendQuoted(dst, m.key)
		dst = append(dst, ':')
		v := scan{b: s.b[:m.to], i: m.from}
		var ok bool
		if dst, ok = v.canonical(dst, skip, depth+1, dropNull); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// isNull reports whether a value's bytes are the literal null.
func isNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

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
