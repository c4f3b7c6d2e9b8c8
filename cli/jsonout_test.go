package cli

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// appendStamp writes what AppendFormat writes, in every year it handles itself and beyond.
func TestAppendStampMatchesAppendFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 3, 4, 5, 6, 7, 8e6, time.UTC), time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.FixedZone("x", 5*3600+1800))}
	for range 20000 {
		times = append(times, time.Unix(r.Int64N(1<<38)-1<<37, r.Int64N(1e9)))
	}
	for _, tm := range times {
		if got, want := string(appendStamp([]byte("x"), tm)), "x"+tm.UTC().Format(model.WireTime); got != want {
			t.Fatalf("%v: %q, AppendFormat %q", tm, got, want)
		}
	}
}

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
