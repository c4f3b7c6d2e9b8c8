package helpview

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
)

// The help screen is drawn once per size and keys, and again whenever either changes: a
// binding turned off (or back on) and a new size show at once.
func TestViewFollowsSizeAndKeys(t *testing.T) {
	k := keys.Default()
	m := New(common.Common{Styles: styles.New(theme.Default()), Keys: &k, Now: time.Now})
	m.SetSize(120, 40)
	first := m.View()
	if again := m.View(); again != first {
		t.Fatal("the same size and keys drew a different screen")
	}
	k.Retry.SetEnabled(false)
	if off := m.View(); off == first {
		t.Fatal("retry turned off is still listed")
	}
	k.Retry.SetEnabled(true)
	if on := m.View(); on != first {
		t.Fatal("retry turned back on did not give the first screen back")
	}
	m.SetSize(80, 24)
	if small := m.View(); small == first || common.Width(strings.Split(small, "\n")[0]) > 80 {
		t.Fatalf("the new size was not drawn:\n%s", small)
	}
}

// The help explains every badge and header mark, and what does not fit scrolls: at 80x24 the
// last line says which lines show, G reaches the end of the legend, g the keys again; on a
// screen tall enough everything shows and nothing says to scroll.
func TestHelpScrollsToEveryMark(t *testing.T) {
	k := keys.Default()
	m := New(common.Common{Styles: styles.New(theme.Default()), Keys: &k, Now: time.Now})
	all := func(s string) string { return ansi.Strip(s) }
	m.SetSize(200, 80)
	whole := all(m.View())
	for _, mark := range []string{"MARKED:v", "RETRY OF id", "RETRIED?", "RETRY FAILED", "RETRYING", "VERIFIED:x", "DUP×n", "✓n settled", "STALE:", "PARTIAL:", "READ-ONLY", "PRODUCTION:", "NO JOURNAL"} {
		if !strings.Contains(whole, mark) {
			t.Errorf("the help does not explain %s", mark)
		}
	}
	if strings.Contains(whole, "lines 1–") {
		t.Error("a help that fits says to scroll")
	}

	m.SetSize(80, 24)
	top := all(m.View())
	if !strings.Contains(top, "Navigate") || !strings.Contains(top, "lines 1–") || strings.Contains(top, "STALE:") {
		t.Fatalf("the top of the help at 80x24:\n%s", top)
	}
	press := func(s string) {
		kp := tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
		if s == "down" {
			kp = tea.KeyPressMsg{Code: tea.KeyDown}
		}
		if !m.Update(kp) {
			t.Fatalf("%s did not scroll", s)
		}
	}
	press("down")
	if one := all(m.View()); !strings.Contains(one, "lines 2–") {
		t.Errorf("down did not move one line:\n%s", one)
	}
	press("G")
	end := all(m.View())
	if !strings.Contains(end, "STALE:") || !strings.Contains(end, "follow") || strings.Contains(end, "Navigate") {
		t.Errorf("G did not reach the end of the legend:\n%s", end)
	}
	for l := range strings.SplitSeq(end, "\n") {
		if common.Width(l) > 80 {
			t.Errorf("a line is wider than the screen: %q", l)
		}
	}
	if n := strings.Count(end, "\n") + 1; n > 24 {
		t.Errorf("the help is %d lines on a 24-line screen", n)
	}
	press("g")
	if again := all(m.View()); again != top {
		t.Errorf("g did not go back to the top:\n%s", again)
	}
	if m.Update(tea.KeyPressMsg{Code: 'z', Text: "z"}) {
		t.Error("z scrolled the help")
	}
}
