package filter

import (
	"encoding/binary"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/exectriage/exectriage/internal/swar"
)

// Case-insensitivity follows github.com/sahilm/fuzzy (and strings.EqualFold): two runes are
// equal when they lie in the same unicode.SimpleFold orbit. fold maps every rune to one
// representative of its orbit, so that equal-fold runes become byte-identical once encoded:
// the representative is the ASCII lower-case letter when the orbit holds an ASCII letter
// ('K', 'k' and the Kelvin sign all become 'k'), else the smallest rune of the orbit.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	best := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf {
			if 'A' <= f && f <= 'Z' {
				f += 'a' - 'A'
			}
			return f
		}
		if f < best {
			best = f
		}
	}
	return best
}

// appendFolded appends s to dst with every rune folded and every control rune (C0, DEL)
// turned into a space; invalid UTF-8 bytes become U+FFFD, as a range over s sees them.
func appendFolded(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s))
	i := 0
	// Eight bytes at a time while they are ASCII without control bytes: upper-case letters
	// get the 0x20 bit (each byte is below 0x80, so no sum carries into the next byte).
	for ; i+8 <= len(s); i += 8 {
		x := swar.Load(s, i)
		if swar.High(x)|swar.Below(x, 0x20)|swar.Has(x, 0x7f) != 0 {
			break // a byte past ASCII, a control byte or DEL: rune by rune from here
		}
		upper := (x + swar.Lanes01*(0x80-'A')) &^ (x + swar.Lanes01*(0x80-'Z'-1)) & swar.Lanes80
		x |= upper >> 2
		dst = binary.LittleEndian.AppendUint64(dst, x)
	}
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			case c < 0x20 || c == 0x7f:
				c = ' '
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, fold(r))
		i += size
	}
	return dst
}

// appendFoldedPattern folds a query term like appendFolded but keeps control runes, which
// then match nothing (a haystack holds none), as in sahilm/fuzzy.
func appendFoldedPattern(dst []byte, s string) []byte {
	for _, r := range s {
		dst = utf8.AppendRune(dst, fold(r))
	}
	return dst
}

// maskBit returns the pre-check bit of a folded byte: one bit per ASCII letter and digit
// (exact), the other bytes share the remaining bits (a necessary condition only).
func maskBit(c byte) uint64 {
	switch {
	case 'a' <= c && c <= 'z':
		return 1 << (c - 'a')
	case '0' <= c && c <= '9':
		return 1 << (26 + c - '0')
	default:
		return 1 << (36 + c%28)
	}
}

// exactBit reports whether maskBit(c) is set by c alone, so that the bit answers "does the
// text contain c" without a scan.
func exactBit(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// maskOf is the maskBit of every byte of b.
func maskOf(b []byte) uint64 {
	var m uint64
	for _, c := range b {
		m |= maskBits[c]
	}
	return m
}

// maskBits is maskBit of every byte, looked up rather than worked out (maskOf runs over the
// text of every row a load adds). It is never written after it is made.
var maskBits = func() (t [256]uint64) {
	for c := range t {
		t[c] = maskBit(byte(c))
	}
	return t
}()
