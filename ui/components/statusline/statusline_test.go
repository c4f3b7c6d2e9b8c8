package statusline

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
)

// TestALongMessageNeverBreaksAPath: a message longer than its line goes
// on over the help bar; the two were made by wrapping and joining the pieces with spaces, so a
// path hard-wrapped inside read "…-20261 204T…" and did not work when copied. The line and its
// overflow are now the message cut once between two words: together they are the message as
// written, and a path that fits a line is whole on one of them.
func TestALongMessageNeverBreaksAPath(t *testing.T) {
	path := "/tmp/exectriage-bundle-20261204T083412Z-log_AbCdEf123456.md"
	msgs := []string{
		"bundle written to " + path + " (c copies it)",
		"bundle written to " + path + " and copied to the clipboard (OSC 52)",
		"the journal at " + path + " could not be opened: permission denied: check its mode",
	}
	m := New(common.Common{Styles: styles.New(theme.Default()), Keys: &keys.KeyMap{}, Now: time.Now})
	for _, msg := range msgs {
		for w := 40; w <= 140; w++ {
			m.SetSize(w, 1)
			m.Set(Info, msg)
			line := strings.TrimRight(ansi.Strip(m.View()), " ")
			rest := m.Overflow()
			if common.Width(line) > w {
				t.Fatalf("at %d columns the line is %d wide", w, common.Width(line))
			}
			joined := line
			if rest != "" {
				joined += " " + rest
			}
			if joined != msg {
				t.Fatalf("at %d columns the line and its overflow say\n%q\nnot\n%q", w, joined, msg)
			}
			if common.Width(path) < w-1 && !strings.Contains(line, path) && !strings.Contains(rest, path) {
				t.Fatalf("at %d columns the path is broken: %q | %q", w, line, rest)
			}
		}
	}
}
