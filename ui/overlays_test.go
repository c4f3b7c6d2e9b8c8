package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/exectriage/exectriage/model"
)

// The overlays are a stack read top down: with several open, a key goes to the top one only
// (esc closes the timeline, not the help under it), the next esc to the one below, and only
// then do keys reach the list.
func TestOverlaysTakeKeysTopDown(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	var names []string
	for _, o := range h.m.overlays {
		names = append(names, o.name)
	}
	if len(names) != 7 || names[0] != "retry dialog" || names[len(names)-1] != "help" {
		t.Fatalf("overlays %q", names)
	}
	h.m.showTime, h.m.showHelp = true, true
	if o, ok := h.m.topOverlay(); !ok || o.name != "timeline" {
		t.Fatalf("the top overlay is %q, want the timeline", o.name)
	}
	h.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if h.m.showTime == h.m.showHelp || h.m.showTime {
		t.Fatalf("esc: timeline %v, help %v; want the timeline closed, the help open", h.m.showTime, h.m.showHelp)
	}
	cursor := h.m.list.Cursor()
	h.send(tea.KeyPressMsg{Code: 'j', Text: "j"}) // the help scrolls; the list does not move
	if h.m.list.Cursor() != cursor || !h.m.showHelp {
		t.Fatalf("j under the help moved the list (%d -> %d) or closed the help", cursor, h.m.list.Cursor())
	}
	h.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if _, ok := h.m.topOverlay(); ok || h.m.showHelp {
		t.Fatal("the second esc did not close the help")
	}
	h.send(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if h.m.list.Len() > 1 && h.m.list.Cursor() == cursor {
		t.Error("with no overlay open, j did not reach the list")
	}
}

// q, ? and esc each close the help overlay; none of them quits from it.
func TestHelpOverlayClosesOnQ(t *testing.T) {
	e := newEnv(t)
	for k, press := range map[string]tea.KeyPressMsg{
		"q":   {Code: 'q', Text: "q"},
		"?":   {Code: '?', Text: "?"},
		"esc": {Code: tea.KeyEscape},
	} {
		h := newHarness(t, e, 80, 24)
		h.keys("?")
		if !h.m.showHelp {
			t.Fatal("? did not open the help")
		}
		_, cmd := h.m.Update(press)
		if h.m.showHelp {
			t.Errorf("%s left the help open", k)
		}
		if cmd != nil {
			if _, quit := cmd().(tea.QuitMsg); quit {
				t.Errorf("%s on the help screen quit the program", k)
			}
		}
	}
}

// The copy menu and the mark dialog behave alike: a digit chooses and Enter acts
// (a digit used to copy at once, and the Enter after it opened the detail); esc and q close;
// the rows' second column lines up.
func TestMenusBehaveAlike(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged && t.Kind.IsWrite() })
	if !ok {
		t.Fatal("no flagged write")
	}
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	column := func(s string, labels ...string) {
		t.Helper()
		at := -1
		for l := range strings.SplitSeq(ansi.Strip(s), "\n") {
			for _, lb := range labels {
				j := strings.Index(l, " "+lb+" ")
				if j < 0 {
					continue
				}
				rest, _, _ := strings.Cut(l[j+len(lb)+2:], "│") // to the box's edge
				if strings.TrimSpace(rest) == "" {
					continue // no second column in this row
				}
				col := ansi.StringWidth(l[:j+len(lb)+2]) + len(rest) - len(strings.TrimLeft(rest, " "))
				if at >= 0 && col != at {
					t.Errorf("%q's second column is at %d, the first row's at %d:\n%s", lb, col, at, s)
				}
				at = col
			}
		}
		if at < 0 {
			t.Fatalf("none of %v on the screen:\n%s", labels, s)
		}
	}
	for _, menu := range []struct {
		open   string
		labels []string
	}{
		{"y", []string{"log id", "request id"}},
		{"m", []string{"confirmed_failed", "duplicate", "ignored"}},
	} {
		isOpen := func() bool {
			if menu.open == "y" {
				return h.m.copyMenu.IsOpen()
			}
			return h.m.mark.IsOpen()
		}
		for _, closer := range []string{"esc", "q"} {
			h.keys(menu.open)
			if !isOpen() {
				t.Fatalf("%s did not open its menu", menu.open)
			}
			column(h.screen(), menu.labels...)
			h.keys("2")
			if !isOpen() {
				t.Fatalf("%s menu: a digit acted at once", menu.open)
			}
			h.keys(closer)
			if isOpen() || h.m.focus != focusList {
				t.Fatalf("%s menu: %s did not close it (or went on to the screen below)", menu.open, closer)
			}
		}
	}
	// Enter acts on what the digit chose, and nothing is left for the list.
	h.keys("m", "2", "enter")
	if h.m.mark.IsOpen() || h.m.focus != focusList {
		t.Fatal("enter did not record the verdict, or went on to the list")
	}
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 1 || vs[0].Verdict != model.VerdictConfirmedSucceeded {
		t.Fatalf("verdicts after m 2 enter: %+v %v", vs, err)
	}
}
