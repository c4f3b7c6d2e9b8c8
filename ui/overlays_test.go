package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
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
