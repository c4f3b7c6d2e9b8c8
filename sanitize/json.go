package sanitize

import (
	"fmt"
	"unicode/utf8"
)

// JSON escapes, in encoded JSON, every character that must not reach a terminal as itself
// (C1 controls, DEL, bidi overrides and isolates, zero-width and other format characters, the
// line separators: unsafeRune) as \uXXXX, which encoding/json leaves raw. Such characters can
// only stand inside JSON strings (outside them JSON is ASCII), so the document keeps its
// meaning: a parser reads the same values. b is returned as is when it holds none (the common
// case, checked without allocating).
func JSON(b []byte) []byte {
	i := firstUnsafe(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				out = append(out, `\u007f`...)
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && unsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// firstUnsafe is the offset of the first byte JSON must escape, -1 when none.
func firstUnsafe(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}
