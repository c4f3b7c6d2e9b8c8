package filter

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// foldedRef is appendFolded rune by rune, as it is specified: every rune folded, control runes
// (C0, DEL) a space, invalid bytes U+FFFD.
func foldedRef(s string) []byte {
	var out []byte
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		out = utf8.AppendRune(out, fold(r))
	}
	return out
}

// appendFolded's eight-bytes-at-a-time path folds as the reference does, whatever sits where:
// both ends of the letter ranges, the bytes around them, control bytes, DEL, multi-byte and
// invalid UTF-8, at every offset.
func TestAppendFoldedMatchesTheReference(t *testing.T) {
	alphabet := []string{"A", "Z", "a", "z", "@", "[", "`", "{", "0", "9", " ", "_", "\x00", "\x1f", "\x7f", "~",
		"é", "É", "K", "\u212a", "ß", "\xff", "\xc3", "日本", "ſ"}
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		var s []byte
		for range r.IntN(40) {
			s = append(s, alphabet[r.IntN(len(alphabet))]...)
		}
		prefix := []byte("x:")
		got := appendFolded(prefix, string(s))
		want := append([]byte("x:"), foldedRef(string(s))...)
		if string(got) != string(want) {
			t.Fatalf("appendFolded(%q) = %q, want %q", s, got[2:], want[2:])
		}
	}
	for c := range 256 { // every byte, alone in a word of letters
		s := "ABCDEFG" + string([]byte{byte(c)}) + "HIJKLMNOP"
		if got, want := string(appendFolded(nil, s)), string(foldedRef(s)); got != want {
			t.Fatalf("byte %#x: %q, want %q", c, got, want)
		}
	}
}

func TestMaskOfIsEveryBytesBit(t *testing.T) {
	for c := range 256 {
		if got := maskOf([]byte{byte(c)}); got != maskBit(byte(c)) {
			t.Fatalf("maskOf(%#x) = %x, want %x", c, got, maskBit(byte(c)))
		}
	}
}
