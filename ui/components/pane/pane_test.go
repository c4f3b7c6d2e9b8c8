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
