package sanitize

import (
	"strings"
	"testing"
)

// FuzzSanitize checks the sanitiser's promises on any input: the output is valid UTF-8, holds
// no C0/C1 control, ESC, DEL, bidi or other invisible format character (Block may keep "\n"),
// has no tab left in a single line, and no line is wider than the limit.
func FuzzSanitize(f *testing.F) {
	for _, h := range loadHostile(f) {
		if len(h.s) < 4096 {
			f.Add(h.s, 0)
			f.Add(h.s, 7)
		}
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 {
			max = -(max + 1)
		}
		max %= 200
		line := Line(s, max)
		checkSafe(t, line, false, max)
		checkSafe(t, Block(s, max), true, max)
		if max == 0 && String(s) != line {
			t.Fatalf("String and Line(s, 0) differ")
		}
		// sanitising is idempotent for text that had nothing to cut: a second pass only
		// re-escapes nothing (the escapes are printable ASCII)
		if max == 0 && Line(line, 0) != line {
			t.Fatalf("second pass changed the output: %q -> %q", line, Line(line, 0))
		}
		if max > 0 && !strings.HasSuffix(line, Ellipsis) && Line(s, 0) != line && !strings.Contains(s, "\t") {
			t.Fatalf("output changed without being cut: %q vs %q", line, Line(s, 0))
		}
	})
}
