// Package statusline is the line above the help bar: the latest message (an error always says
// what to do next), and on the right the active toggles, so the state of the view reads at a
// glance.
package statusline

import (
	"strings"

	"github.com/exectriage/exectriage/ui/common"
)

// Level is how a message is shown.
type Level int

const (
	Info Level = iota
	Warn
	Error
)

// Model is the status line.
type Model struct {
	common.Common
	width int
	level Level
	text  string
	// Modes are short words shown on the right ("flagged", "writes", "dups", "follow", "mouse").
	Modes []string
	// Hint is shown, muted, when there is no message: what to do with the selection.
	Hint string
	// Hide, when set, removes secrets from a message before it is shown (a message may quote
	// data or an error).
	Hide func(string) string
}

// New returns an empty status line.
func New(c common.Common) Model { return Model{Common: c} }

// SetSize sets the width.
func (m *Model) SetSize(w, _ int) { m.width = w }

// Set shows a message.
func (m *Model) Set(l Level, text string) { m.level, m.text = l, text }

// Clear removes the message.
func (m *Model) Clear() { m.text = "" }

// Text returns the message and its level.
func (m Model) Text() (Level, string) { return m.level, m.text }

// View renders one line of exactly the width.
func (m Model) View() string {
	st := m.Styles.Status
	right := ""
	if len(m.Modes) > 0 {
		right = st.Mode.Render("[" + strings.Join(m.Modes, "] [") + "]")
	}
	style := st.Info
	prefix := ""
	switch m.level {
	case Warn:
		style, prefix = st.Warn, "! "
	case Error:
		style, prefix = st.Error, "✗ "
	}
	left := ""
	switch {
	case m.text != "":
		text := m.text
		if m.Hide != nil {
			text = m.Hide(text)
		}
		left = style.Render(prefix + common.Clean(text))
	case m.Hint != "":
		left = st.Mode.Render(m.Hint)
	}
	lw, rw := common.Width(left), common.Width(right)
	if lw+rw+1 > m.width {
		left = common.Truncate(left, max(m.width-rw-1, 0))
		lw = common.Width(left)
		if lw+rw+1 > m.width {
			right, rw = "", 0
		}
	}
	return left + strings.Repeat(" ", max(m.width-lw-rw, 0)) + right
}
