package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// scan is the cursor over one record. Its methods return false to give up (bad or unusual
// input); the cursor is then meaningless.
type scan struct {
	b     []byte
	i     int
	depth int
	p     *Parser
}

// maxDepth bounds nesting on the fast path; deeper input is refused by parseRecord.
const maxDepth = MaxRecordDepth

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// text returns the decoded string whose quoted form is s.b[start:s.i], shared through the
// parser's string table of class when it has one.
func (s *scan) text(start int, plain, esc bool, class int) (string, bool) {
	raw := s.b[start+1 : s.i-1]
	if !plain || esc {
		var v string
		if json.Unmarshal(s.b[start:s.i], &v) != nil {
			return "", false
		}
		return s.interned(v, class), true
	}
	if t := s.p.table(class); t != nil && len(raw) <= maxInternedLen {
		r := s.p.recent[class-1]
		slot := &r[bytesHash(raw)&uint64(len(r)-1)]
		if *slot == string(raw) {
			return *slot, true
		}
		v, ok := t[string(raw)]
		if !ok {
			v = string(raw)
			if len(t) < maxInterned {
				t[v] = v
			}
		}
		*slot = v
		return v, true
	}
	return string(raw), true
}

// bytesHash is a cheap hash of a short string's bytes for the recent caches: its length and
// its first and last eight bytes (a collision only costs a map lookup).
func bytesHash(b []byte) uint64 {
	n := len(b)
	x := uint64(n)
	if n >= 8 {
		x ^= binary.LittleEndian.Uint64(b) ^ binary.LittleEndian.Uint64(b[n-8:])*0x9e3779b97f4a7c15
	} else {
		for _, c := range b {
			x = x<<8 | uint64(c)
		}
		x ^= uint64(n) << 60
	}
	x *= 0xff51afd7ed558ccd
	return x ^ x>>29
}

func (s *scan) interned(v string, class int) string {
	t := s.p.table(class)
	if t == nil || len(v) > maxInternedLen {
		return v
	}
	if w, ok := t[v]; ok {
		return w
	}
	if len(t) < maxInterned {
		t[v] = v
	}
	return v
}

// flexString reads a string, a number or a boolean as text (see flexString.UnmarshalJSON);
// anything else leaves *dst unchanged.
func (s *scan) flexString(dst *string, class int) bool {
	start := s.i
	switch c := s.peek(); {
	case c == '"':
		plain, esc, ok := s.str()
		if !ok {
			return false
		}
		v, ok := s.text(start, plain, esc, class)
		*dst = v
		return ok
	case c == '-' || '0' <= c && c <= '9':
		if !s.num() {
			return false
		}
		*dst = string(s.b[start:s.i])
		return true
	case c == 't':
		if !s.lit("true") {
			return false
		}
		*dst = "true"
		return true
	case c == 'f':
		if !s.lit("false") {
			return false
		}
		*dst = "false"
		return true
	}
	return s.skip()
}

// flexNumber reads a number or a numeric string (see flexNumber.UnmarshalJSON).
func (s *scan) flexNumber(dst *flexNumber) bool {
	start := s.i
	var text string
	switch c := s.peek(); {
	case c == '"':
		plain, esc, ok := s.str()
		if !ok {
			return false
		}
		if text, ok = s.text(start, plain, esc, noIntern); !ok {
			return false
		}
		text = strings.TrimSpace(text)
	case c == '-' || '0' <= c && c <= '9':
		if !s.num() {
			return false
		}
		text = unsafeString(s.b[start:s.i])
	default:
		return s.skip()
	}
	if v, err := strconv.ParseFloat(text, 64); err == nil && v == v {
		dst.v, dst.ok = v, true
	}
	return true
}

// flexTime reads an RFC 3339 string or an epoch number (see flexTime.UnmarshalJSON). The
// usual shapes (a UTC time to the millisecond, epoch milliseconds) are read directly, the
// rest by ParseTime.
func (s *scan) flexTime(dst *time.Time) bool {
	start := s.i
	var text string
	switch c := s.peek(); {
	case c == '"':
		plain, esc, ok := s.str()
		if !ok {
			return false
		}
		if plain && !esc {
			if t, ok := utcTime(s.b[start+1 : s.i-1]); ok {
				*dst = t
				return true
			}
		}
		if text, ok = s.text(start, plain, esc, noIntern); !ok {
			return false
		}
	case c == '-' || '0' <= c && c <= '9':
		if !s.num() {
			return false
		}
		if x, ok := digits(s.b[start:s.i]); ok {
			if t, ok := epochTime(float64(x)); ok {
				*dst = t
			}
			return true
		}
		text = unsafeString(s.b[start:s.i])
	default:
		return s.skip()
	}
	if t, ok := ParseTime(text); ok {
		*dst = t
	}
	return true
}

// digits reads a run of at most 15 decimal digits (exact as a float64, as ParseFloat reads it).
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var x int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	return x, true
}

// utcTime reads YYYY-MM-DDTHH:MM:SS[.fraction]Z, what ParseTime makes of it, when the
// fields are in range; ok is false for anything else (ParseTime then decides).
func utcTime(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	y, mo, d, h, mi, sec := num(b[0:4]), num(b[5:7]), num(b[8:10]), num(b[11:13]), num(b[14:16]), num(b[17:19])
	ns := 0
	switch frac := b[19 : len(b)-1]; {
	case len(frac) == 0:
	case frac[0] != '.' || len(frac) < 2 || len(frac) > 10:
		return time.Time{}, false
	default:
		if ns = num(frac[1:]); ns < 0 {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			ns *= 10
		}
	}
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC)
	if t.Day() != d { // day 31 of a 30-day month, and the like
		return time.Time{}, false
	}
	return t, true
}

// skip validates and passes over any value.
func (s *scan) skip() bool {
	switch c := s.peek(); {
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '{':
		return s.object(nil, func([]byte) (uint32, bool) { return 0, s.skip() })
	case c == '[':
		return s.array()
	case c == '-' || '0' <= c && c <= '9':
		return s.num()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	}
	return false
}

func (s *scan) array() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // '['
	s.ws()
	if s.peek() == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.skip() {
			return false
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

func (s *scan) lit(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// num passes over a number in JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scan) num() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == d {
			return false
		}
	}
	s.i = i
	return true
}

// SWAR constants: a byte repeated in every lane.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// special returns a mask with the high bit set in each lane holding '"', '\\' or a control
// byte (< 0x20), and possibly (never alone) in lanes after one of those; bytes >= 0x80 are
// reported separately by the caller.
func special(x uint64) uint64 {
	q := x ^ (lanes01 * '"')
	bs := x ^ (lanes01 * '\\')
	return ((q-lanes01)&^q | (bs-lanes01)&^bs | (x-lanes01*0x20)&^x) & lanes80
}

// str passes over the string at s.i ('"'), validating it as encoding/json does (no control
// bytes, only valid escapes). plain is false when the bytes are not valid UTF-8 (decoding
// would replace them); esc is true when there are escapes.
func (s *scan) str() (plain, esc, ok bool) {
	b := s.b
	i := s.i + 1
	high := false
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if x&lanes80 != 0 {
				high = true
			}
			m := special(x)
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
			break
		}
		if i >= len(b) {
			return false, false, false
		}
		c := b[i]
		switch {
		case c == '"':
			plain = !high || utf8.Valid(b[s.i+1:i])
			s.i = i + 1
			return plain, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return false, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false, false, false
				}
				i += 6
			default:
				return false, false, false
			}
		case c < 0x20:
			return false, false, false
		default:
			if c >= utf8.RuneSelf {
				high = true
			}
			i++ // a lane flagged after the real match, or the tail
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unsafeString views b as a string for a moment (a number handed to strconv); the string
// must not outlive b.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// MaxRecordDepth is how deeply a record's JSON may nest (objects and arrays); a deeper record
// is refused rather than parsed, so hostile input cannot make the parser or the views dig.
const MaxRecordDepth = 128

// ErrTooDeep is returned for a record nested deeper than MaxRecordDepth.
var ErrTooDeep = errors.New("record nested too deeply")

// nestedDeeper reports whether the JSON text b nests objects/arrays deeper than max
// (brackets inside strings do not count). It does not validate the JSON.
func nestedDeeper(b []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}
