package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/ui/keys"
)

// TestEveryScreenFitsEverySize renders every state at many sizes: no line is wider than the
// terminal and the screen has exactly its height, so nothing wraps or scrolls.
func TestEveryScreenFitsEverySize(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	flagged, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged })
	if !ok {
		t.Fatal("no flagged execution")
	}
	h.selectRow(flagged)
	states := []struct {
		name string
		in   func()
		out  func()
	}{
		{"list", func() {}, func() {}},
		{"detail", func() { h.keys("enter") }, func() { h.keys("esc") }},
		{"provider", func() { h.keys("tab", "tab") }, func() { h.keys("esc") }},
		{"duplicates", func() { h.keys("d") }, func() { h.keys("d") }},
		{"help", func() { h.keys("?") }, func() { h.keys("?") }},
		{"filter", func() { h.keys("/", "gmail") }, func() { h.keys("esc") }},
		{"best match", func() { h.keys("/", "gmail send", "enter", "s") }, func() { h.keys("s", "esc") }},
		{"mark", func() { h.keys("m") }, func() { h.keys("esc") }},
		{"retry", func() { h.keys("r") }, func() { h.keys("esc") }},
	}
	for _, st := range states {
		st.in()
		for w := 40; w <= 220; w += 20 {
			for _, ht := range []int{12, 17, 24, 40, 50} {
				h.send(tea.WindowSizeMsg{Width: w, Height: ht})
				s := ansi.Strip(h.m.Render())
				lines := strings.Split(s, "\n")
				if len(lines) != ht {
					t.Fatalf("%s at %dx%d: %d lines", st.name, w, ht, len(lines))
				}
				for i, l := range lines {
					if n := ansi.StringWidth(l); n > w {
						t.Fatalf("%s at %dx%d: line %d is %d wide: %q", st.name, w, ht, i, n, l)
					}
				}
			}
		}
		h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
		st.out()
	}
	if h.m.retry.IsOpen() || h.m.mark.IsOpen() || h.m.showHelp || h.m.filter.Active() {
		t.Error("a dialog stayed open")
	}
}

func TestPanesStackUnderWideWidthAndSitSideBySideAbove(t *testing.T) {
	for _, tt := range []struct {
		w, h int
		f    focus
		wide bool
		show bool
	}{
		{80, 24, focusList, false, false},
		{80, 24, focusDetail, false, true},
		{99, 50, focusList, false, true},
		{100, 40, focusList, true, true},
		{200, 50, focusProvider, true, true},
	} {
		l := computeLayout(tt.w, tt.h, tt.f)
		if l.wide != tt.wide || l.panes != tt.show {
			t.Errorf("%dx%d focus %d: wide %v panes %v, want %v %v", tt.w, tt.h, tt.f, l.wide, l.panes, tt.wide, tt.show)
		}
		if l.panes && !tt.wide && (l.detail.x != 0 || l.provider.y <= l.detail.y) {
			t.Errorf("%dx%d: panes not stacked: %+v %+v", tt.w, tt.h, l.detail, l.provider)
		}
		if l.panes && tt.wide && (l.provider.x <= l.detail.x || l.provider.y != l.detail.y) {
			t.Errorf("%dx%d: panes not side by side: %+v %+v", tt.w, tt.h, l.detail, l.provider)
		}
	}
}

// The help bar shows what a read-only session has turned off as off, and the hints say so
// instead of offering r and m; with [keys] remapped, the hints and the provider pane name the
// keys that work.
func TestHelpBarAndHintsFollowTheSession(t *testing.T) {
	flaggedUnchecked := func(h *harness) {
		t.Helper()
		i, ok := h.find(func(e *model.Execution, t *model.Triage) bool {
			_, checked := h.m.data.Provider[e.ID]
			return t.Flagged && t.Kind.IsWrite() && t.Case == nil && !checked
		})
		if !ok {
			t.Fatal("no flagged write")
		}
		h.selectRow(i)
	}
	lastLine := func(s string) string { ls := strings.Split(s, "\n"); return ls[len(ls)-1] }

	e := newEnv(t)
	e.parts.Config.Defaults.ReadOnly = true
	h := newHarness(t, e, 200, 40)
	flaggedUnchecked(h)
	s := h.screen()
	for _, off := range []string{"v verify (off)", "r retry (off)", "m mark verdict (off)"} {
		if bar := lastLine(s); !strings.Contains(bar, off) {
			t.Errorf("the read-only help bar lacks %q: %q", off, bar)
		}
	}
	if !strings.Contains(s, "flagged write: provider checks are off (") || !strings.Contains(s, "retry and verdicts are off: read-only") {
		t.Errorf("the read-only hint offers what is off:\n%s", s)
	}
	h.keys("?")
	if help := h.screen(); !strings.Contains(help, "retry (off)") || !strings.Contains(help, "mark verdict (off)") {
		t.Errorf("the read-only help screen lists retry and mark as on:\n%s", help)
	}
	h.keys("?")
	// --allow-reads: v works, r and m stay off
	e.parts.Config.Defaults.AllowReads = true
	h = newHarness(t, e, 200, 40)
	flaggedUnchecked(h)
	s = h.screen()
	if bar := lastLine(s); strings.Contains(bar, "v verify (off)") || !strings.Contains(bar, "r retry (off)") {
		t.Errorf("the read-only help bar with reads allowed: %q", bar)
	}
	if !strings.Contains(s, "flagged write: v checks the provider (retry and verdicts are off: read-only)") {
		t.Errorf("the read-only hint with reads allowed:\n%s", s)
	}

	e2 := newEnv(t)
	km, err := keys.Default().Rebind(map[string][]string{"verify": {"c"}, "retry": {"e"}, "mark": {"u"}})
	if err != nil {
		t.Fatal(err)
	}
	e2.ui.Keys = &km
	h2 := newHarness(t, e2, 200, 40)
	flaggedUnchecked(h2)
	s = h2.screen()
	for _, want := range []string{"flagged write: c checks the provider before any retry (e) or verdict (u)", "press c to ask the provider"} {
		if !strings.Contains(s, want) {
			t.Errorf("with [keys] remapped the screen lacks %q:\n%s", want, s)
		}
	}
	if bar := lastLine(s); strings.Contains(bar, "(off)") {
		t.Errorf("a writable session's help bar shows keys off: %q", bar)
	}
}

// A message longer than the status line goes on over the help bar, so an error's fix is not
// cut; L opens the log of every message, whole, with its time; esc closes it.
func TestTheMessageLogKeepsMessagesWhole(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 80, 24)
	h.m.setInfo("first message")
	e.breakAuth()
	h.keys("R")
	lvl, msg := h.m.status.Text()
	if lvl != statusline.Error || len(msg) <= 80 {
		t.Fatalf("the refresh error: %v %q", lvl, msg)
	}
	s := h.screen()
	lines := strings.Split(s, "\n")
	two := flat(lines[len(lines)-2] + " " + lines[len(lines)-1])
	end := strings.Fields(msg)
	if !strings.Contains(two, end[len(end)-1]) && !strings.Contains(two, "L: the whole message") {
		t.Errorf("the end of the error (%q) is cut and nothing says where it is:\n%s", end[len(end)-1], two)
	}
	h.keys("L")
	if !h.m.showLog {
		t.Fatal("L did not open the message log")
	}
	box := flat(h.m.msgLog.View())
	for _, want := range []string{"first message", strings.Join(strings.Fields(msg), " "), e.clock.Now().Local().Format("15:04:05"), "Messages (2)"} {
		if !strings.Contains(box, want) {
			t.Errorf("the log lacks %q:\n%s", want, box)
		}
	}
	if strings.Index(box, "first message") > strings.Index(box, "HTTP 401") {
		t.Error("the log is not oldest first")
	}
	h.keys("esc")
	if h.m.showLog {
		t.Fatal("esc did not close the log")
	}
}

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
