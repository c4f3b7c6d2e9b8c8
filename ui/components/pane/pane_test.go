package pane

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapKeepsLabelledRowsUnderTheirValue(t *testing.T) {
	got := wrap("outcome   AMBIGUOUS timed out after 60 s: the email may have been sent", 30)
	for i, l := range got {
		if ansi.StringWidth(l) > 30 {
			t.Errorf("line %d is too wide: %q", i, l)
		}
		if i > 0 && !strings.HasPrefix(l, strings.Repeat(" ", LabelWidth)) {
			t.Errorf("continuation %q is not under the value", l)
		}
	}
	if len(got) < 3 || !strings.HasPrefix(got[0], "outcome   AMBIGUOUS") {
		t.Errorf("wrap = %q", got)
	}
	plain := wrap(`  "body": "a long JSON string value that must wrap somewhere sensible"`, 30)
	for _, l := range plain {
		if ansi.StringWidth(l) > 30 {
			t.Errorf("too wide: %q", l)
		}
	}
}

// JSON in a pane wraps between members, never inside a token ("limit":20 / 0);
// an evidence bullet wraps under its text, not at column 0.
func TestWrapBreaksJSONBetweenMembersAndHangsBullets(t *testing.T) {
	args := `read args {"channel":"C0123ABC","limit":200,"oldest":"1772450000.000000","inclusive":true,"query":"in:sent to:a@b.example"}`
	for _, w := range []int{52, 64, 80} { // every member fits a line
		got := hang(args, w, LabelWidth)
		if len(got) < 2 {
			t.Fatalf("w=%d: not wrapped: %q", w, got)
		}
		var joined strings.Builder
		for i, l := range got {
			if ansi.StringWidth(l) > w {
				t.Errorf("w=%d: too wide: %q", w, l)
			}
			if i > 0 && !strings.HasPrefix(l, strings.Repeat(" ", LabelWidth)) {
				t.Errorf("w=%d: continuation %q is not under the value", w, l)
			}
			v := strings.TrimSpace(l[min(len(l), LabelWidth):])
			if i < len(got)-1 && !strings.HasSuffix(v, ",") {
				t.Errorf("w=%d: line %d breaks inside a token: %q", w, i, l)
			}
			joined.WriteString(v)
		}
		if !strings.Contains(joined.String(), `"limit":200,`) {
			t.Errorf("w=%d: the members do not come back whole: %q", w, joined.String())
		}
	}
	bullet := "  • 19e280b9af767020 2026-12-03 04:08:34 to hannah.larsen@yahoo.com \"Meeting notes: renewal\" ← the retry's own"
	got := wrap(bullet, 40)
	if len(got) < 3 {
		t.Fatalf("bullet not wrapped: %q", got)
	}
	for _, l := range got[1:] {
		if !strings.HasPrefix(l, "    ") || ansi.StringWidth(l) > 40 {
			t.Errorf("a bullet's continuation is not under its text: %q", l)
		}
	}
}
