package cli

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/sanitize"
)

// appendJSONString writes what json.Marshal and sanitize.JSON write, for every byte at every
// place of a word, and for random mixes of plain and special bytes.
func TestAppendJSONStringMatchesMarshal(t *testing.T) {
	want := func(s string) string {
		q, _ := json.Marshal(s)
		return string(sanitize.JSON(q))
	}
	for c := range 256 {
		for at := range 9 {
			s := strings.Repeat("a", at) + string([]byte{byte(c)}) + strings.Repeat("b", 16-at)
			if got := string(appendJSONString(nil, s)); got != want(s) {
				t.Fatalf("byte %#x at %d: %s, want %s", c, at, got, want(s))
			}
		}
	}
	alphabet := []string{"a", "Z", "0", "_", "-", "\"", "\\", "<", ">", "&", "\x00", "\x1f", " ", "\x7f", "é", "\xff", "\u2028", "~", "!", "="}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			if r.IntN(4) == 0 {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			} else {
				b.WriteString("log_")
			}
		}
		s := b.String()
		if got := string(appendJSONString([]byte("x"), s)); got != "x"+want(s) {
			t.Fatalf("%q: %s, want %s", s, got, want(s))
		}
	}
}
