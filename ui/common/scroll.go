package common

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
)

// Scroll is the position of a box of lines that may not fit (the help, the message log, a
// timeline): the navigation keys move it, Window shows the part in view and says where it is.
type Scroll struct {
	// Offset is the first line in view; FromEnd counts it back from the last line instead (a
	// log opens at its newest).
	Offset  int
	FromEnd bool
}

// Update moves the view on a navigation key (page: lines a page moves); it reports whether the
// key was one of them. The upper bound needs the lines: Window clamps it.
func (s *Scroll) Update(k tea.KeyPressMsg, km *keys.KeyMap, page int) bool {
	d := 0
	switch {
	case key.Matches(k, km.Down):
		d = 1
	case key.Matches(k, km.Up):
		d = -1
	case key.Matches(k, km.PageDown), key.Matches(k, km.HalfDown), k.String() == "space":
		d = page
	case key.Matches(k, km.PageUp), key.Matches(k, km.HalfUp):
		d = -page
	case key.Matches(k, km.Top):
		d = -(1 << 30)
	case key.Matches(k, km.Bottom):
		d = 1 << 30
	default:
		return false
	}
	if s.FromEnd {
		d = -d
	}
	s.Offset = min(max(s.Offset+d, 0), 1<<30)
	return true
}

// Window is the lines in view when at most room fit: all of them, or room-1 of them and a last
// line, styled by hint, that says which they are and how to scroll (cut to width).
func (s Scroll) Window(lines []string, room, width int, hint func(...string) string) []string {
	if len(lines) <= room || room <= 1 {
		return lines
	}
	show := room - 1
	off := min(s.Offset, len(lines)-show)
	if s.FromEnd {
		off = len(lines) - show - min(s.Offset, len(lines)-show)
	}
	out := append(lines[off:off+show:off+show], hint(Truncate(
		fmt.Sprintf("lines %d–%d of %d · ↑/↓ pgup/pgdn g/G scroll", off+1, off+show, len(lines)), width)))
	return out
}

// ListBox is a scrolling overlay of lines (the message log, a timeline): the title, the lines
// in view (empty says so), any notes, and the hint, in the dialog box of width w; room is how
// many lines of the list fit.
func ListBox(st *styles.Styles, s Scroll, w, room int, title string, lines []string, empty, hint string, notes ...string) string {
	inner := w - 4 // border and padding
	if len(lines) == 0 {
		lines = []string{st.Muted.Render(empty)}
	}
	var body strings.Builder
	body.WriteString(strings.Join(s.Window(lines, room, inner, st.Dialog.Hint.Render), "\n"))
	for _, n := range notes {
		if n != "" {
			body.WriteString("\n" + st.Muted.Render(Truncate(n, inner)))
		}
	}
	body.WriteString("\n\n" + st.Dialog.Hint.Render(Truncate(hint, inner)))
	return st.Dialog.Box.Width(w).Render(st.Dialog.Title.Render(Truncate(title, inner)) + "\n\n" + body.String())
}
