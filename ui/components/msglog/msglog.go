// Package msglog is the message log (as lazygit's command log and k9s's flash history): every
// status message of the session, whole, with its time, newest last, in a box over the screen
// that scrolls. Opened with L; esc, q or L close it.
package msglog

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/statusline"
)

// Model is the log's box.
type Model struct {
	common.Common
	width, height int
	entries       []statusline.Entry
	scroll        common.Scroll // from the newest
}

// New returns an empty log.
func New(c common.Common) Model { return Model{Common: c} }

// SetSize sets the room (the whole screen).
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Open shows entries, scrolled to the newest.
func (m *Model) Open(entries []statusline.Entry) {
	m.entries, m.scroll = entries, common.Scroll{FromEnd: true}
}

// Update scrolls on the navigation keys; it reports whether the key was one of them.
func (m *Model) Update(k tea.KeyPressMsg) bool { return m.scroll.Update(k, m.Keys, max(m.room()-2, 1)) }

// room is the lines of log the box shows: the screen less its border, title, hint and the
// screen's last line.
func (m Model) room() int { return m.height - 7 }

// lines are the entries, each "15:04:05  ✗ text" wrapped under its text.
func (m Model) lines(w int) []string {
	st := m.Styles
	var out []string
	const stamp = len("15:04:05  ")
	for _, e := range m.entries {
		style := st.Status.Info
		switch e.Level {
		case statusline.Warn:
			style = st.Status.Warn
		case statusline.Error:
			style = st.Status.Error
		}
		text := statusline.Prefix(e.Level) + common.Clean(e.Text)
		for i, l := range strings.Split(common.Wrap(text, max(w-stamp, 10)), "\n") {
			head := strings.Repeat(" ", stamp)
			if i == 0 {
				head = st.Muted.Render(e.At.Local().Format("15:04:05")) + "  "
			}
			out = append(out, head+style.Render(l))
		}
	}
	return out
}

// View renders the box.
func (m Model) View() string {
	w := max(min(m.width-4, 120), 30)
	return common.ListBox(m.Styles, m.scroll, w, m.room(), fmt.Sprintf("Messages (%d)", len(m.entries)), m.lines(w-4),
		"no messages yet", "esc, q or "+m.Keys.Log.Help().Key+" to close · newest last")
}
