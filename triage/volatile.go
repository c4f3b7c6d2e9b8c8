package triage

import (
	"strings"
)

// maskVolatile replaces what an application regenerates each time it builds a message again
// with a word that is the same in every copy: a time of day to the second (a footer's "Sent
// 21:26:46"), a date and time with seconds, a UUID, a long run of hex (a request or attachment
// id; a hex-looking word shorter than 16 without ':' or '-', such as a version, "3d" or "ab12",
// stays). Masked before comparing, so a rebuilt payload reads as the message it is; a meeting's
// "10:00" (no seconds) and every other number still count.
//
// It is the regular expression volatilePattern (kept in the tests as the oracle) applied as
// ReplaceAllStringFunc would, written out: each alternative starts with a word boundary and a
// word character, so only word starts are tried, in order, each alternative in the order and
// with the preferences of the expression's. On a production email's kilobytes of text the
// expression's backtracking took a quarter of a scan's time.
func maskVolatile(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is in b, or nothing was replaced
	for p := 0; p < len(s); {
		if !isWordByte(s[p]) || p > 0 && isWordByte(s[p-1]) {
			p++
			continue
		}
		end := volatileAt(s, p)
		if end < 0 {
			for p < len(s) && isWordByte(s[p]) { // the next word start is after this word
				p++
			}
			continue
		}
		if m := s[p:end]; strings.ContainsAny(m, ":-") || len(m) >= 16 {
			if b.Len() == 0 && last == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:p])
			b.WriteString(" volatile ")
			last = end
		}
		p = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func isHexByte(c byte) bool { return isDigitByte(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// byteAt is s[i], or 0 past its end.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// run reports whether s[i:i+n] are n bytes that ok accepts.
func run(s string, i, n int, ok func(byte) bool) bool {
	if i+n > len(s) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !ok(s[k]) {
			return false
		}
	}
	return true
}

// wordBoundary reports whether i is a word boundary of s (\b).
func wordBoundary(s string, i int) bool {
	return (i > 0 && isWordByte(s[i-1])) != (i < len(s) && isWordByte(s[i]))
}

// volatileAt is the end of the volatile value starting at the word start p, -1 for none: the
// expression's alternatives in its order (a date and time, a time, a UUID, a hex word).
func volatileAt(s string, p int) int {
	if e := dateTimeAt(s, p); e >= 0 {
		return e
	}
	if e := timeAt(s, p); e >= 0 {
		return e
	}
	if run(s, p, 8, isHexByte) && byteAt(s, p+8) == '-' && run(s, p+9, 4, isHexByte) && byteAt(s, p+13) == '-' && run(s, p+14, 4,
		isHexByte) &&
		byteAt(s, p+18) == '-' && run(s, p+19, 4, isHexByte) && byteAt(s, p+23) == '-' && run(s, p+24, 12, isHexByte) &&
		wordBoundary(s, p+36) {
		return p + 36
	}
	// a hex word (the whole word: a boundary inside it is impossible) with a digit before a
	// letter
	q, digit, ok := p, false, false
	for ; q < len(s) && isWordByte(s[q]); q++ {
		c := s[q]
		switch {
		case isDigitByte(c):
			digit = true
		case isHexByte(c):
			ok = ok || digit
		default:
			return -1
		}
	}
	if ok {
		return q
	}
	return -1
}

// fractions are the ends of (?:\.\d+)? at i, in the expression's order of preference.
func fractions(s string, i int) []int {
	if byteAt(s, i) != '.' || !isDigitByte(byteAt(s, i+1)) {
		return []int{i}
	}
	j := i + 1
	for j < len(s) && isDigitByte(s[j]) {
		j++
	}
	out := make([]int, 0, j-i)
	for k := j; k > i+1; k-- {
		out = append(out, k)
	}
	return append(out, i)
}

// dateTimeAt matches \d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:z|[+-]\d{2}:?\d{2})?\b at p.
func dateTimeAt(s string, p int) int {
	if !run(s, p, 4, isDigitByte) || byteAt(s, p+4) != '-' || !run(s, p+5, 2, isDigitByte) || byteAt(s, p+7) != '-' ||
		!run(s, p+8, 2, isDigitByte) {
		return -1
	}
	if c := byteAt(s, p+10); c != 't' && c != 'T' && c != ' ' {
		return -1
	}
	i := p + 11
	if !run(s, i, 2, isDigitByte) || byteAt(s, i+2) != ':' || !run(s, i+3, 2, isDigitByte) || byteAt(s, i+5) != ':' ||
		!run(s, i+6, 2, isDigitByte) {
		return -1
	}
	for _, f := range fractions(s, i+8) {
		var zones [4]int
		zs := zones[:0]
		switch c := byteAt(s, f); {
		case c == 'z' || c == 'Z':
			zs = append(zs, f+1)
		case (c == '+' || c == '-') && run(s, f+1, 2, isDigitByte):
			if byteAt(s, f+3) == ':' && run(s, f+4, 2, isDigitByte) {
				zs = append(zs, f+6)
			}
			if run(s, f+3, 2, isDigitByte) {
				zs = append(zs, f+5)
			}
		}
		for _, z := range append(zs, f) {
			if wordBoundary(s, z) {
				return z
			}
		}
	}
	return -1
}

// timeAt matches \d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b at p.
func timeAt(s string, p int) int {
	for _, n := range [2]int{2, 1} {
		if !run(s, p, n, isDigitByte) {
			continue
		}
		i := p + n
		if byteAt(s, i) != ':' || !run(s, i+1, 2, isDigitByte) || byteAt(s, i+3) != ':' || !run(s, i+4, 2, isDigitByte) {
			continue
		}
		for _, f := range fractions(s, i+6) {
			if wordBoundary(s, f) {
				return f
			}
		}
	}
	return -1
}
