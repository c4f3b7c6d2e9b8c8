package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
)

// TestEveryStateFitsAndKeepsHelpAndQuit: from 40x12 to 220x50, every state's
// screen fits the terminal, the help bar keeps `? help` and `q quit` visible whatever it cuts,
// and from 70 columns the list shows the date (a 36-hour window spans days) and who called.
func TestEveryStateFitsAndKeepsHelpAndQuit(t *testing.T) {
	sizes := [][2]int{{40, 12}, {60, 20}, {80, 24}, {100, 30}, {120, 40}, {220, 50}}
	states := []struct {
		name     string
		setup    func(h *harness)
		helpQuit bool // the help bar must end with ? help • q quit
	}{
		{"list", func(h *harness) {}, true},
		{"duplicates", func(h *harness) { h.keys("d") }, true},
		{"detail focus", func(h *harness) {
			h.selectRow(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound))
			h.keys("enter")
		}, true},
		{"help overlay", func(h *harness) { h.keys("?") }, true},
		{"filter typing", func(h *harness) { h.keys("/", "gmsend") }, false},
		{"retry dialog", func(h *harness) {
			h.selectRow(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound))
			h.keys("r")
			h.e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
		}, false},
		{"mark dialog", func(h *harness) {
			h.selectRow(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound))
			h.keys("m")
		}, false},
	}
	date := regexp.MustCompile(`\b\d\d-\d\d \d\d:\d\d`)
	for _, st := range states {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", st.name, sz[0], sz[1]), func(t *testing.T) {
				h := newHarness(t, newEnv(t), sz[0], sz[1])
				st.setup(h)
				s := h.screen()
				checkFits(t, s, sz[0], sz[1])
				lines := strings.Split(s, "\n")
				bar := lines[len(lines)-1]
				if st.helpQuit && (!strings.Contains(bar, "? help") || !strings.HasSuffix(strings.TrimRight(bar, " "), "q quit")) {
					t.Errorf("help bar %q lost ? help or q quit", bar)
				}
				if st.name == "list" && sz[0] >= 80 {
					if !date.MatchString(lines[5]) {
						t.Errorf("no date in the first row %q", lines[5])
					}
					if !strings.Contains(lines[4], "USER") {
						t.Errorf("no USER column: %q", lines[4])
					}
				}
			})
		}
	}
}
