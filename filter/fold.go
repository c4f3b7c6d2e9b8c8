package filter

import (
	"unicode"
	"unicode/utf8"
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
	for i := 0; i < len(s); {
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

func maskOf(b []byte) uint64 {
	var m uint64
	for _, c := range b {
		m |= maskBit(c)
	}
	return m
}
