// Package statusline is the line above the help bar: the latest message (an error always says
// what to do next), and on the right the active toggles, so the state of the view reads at a
// glance.
package statusline

import (
	"strings"
	"time"

	"github.com/exectriage/exectriage/ui/common"
)

// Level is how a message is shown.
type Level int

const (
	Info Level = iota
	Warn
	Error
)

// Entry is one message as the log keeps it: whole, with its time.
type Entry struct {
	At    time.Time
	Level Level
	Text  string
}

// MaxLog bounds the messages kept (the oldest go first).
const MaxLog = 500

// Model is the status line.
type Model struct {
	common.Common
	width int
	level Level
	text  string
	log   []Entry
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

// Set shows a message and keeps it in the log (a message repeated at once is kept once).
func (m *Model) Set(l Level, text string) {
	m.level, m.text = l, text
	if n := len(m.log); n > 0 && m.log[n-1].Text == text && m.log[n-1].Level == l {
		m.log[n-1].At = m.Now()
		return
	}
	if len(m.log) == MaxLog {
		m.log = append(m.log[:0], m.log[1:]...)
	}
	m.log = append(m.log, Entry{At: m.Now(), Level: l, Text: text})
}

// Log is every message kept, oldest first, secrets hidden as the line hides them.
func (m Model) Log() []Entry {
	out := make([]Entry, len(m.log))
	for i, e := range m.log {
		if m.Hide != nil {
			e.Text = m.Hide(e.Text)
		}
		out[i] = e
	}
	return out
}

// Prefix is the mark of a level: "! " for a warning, "✗ " for an error, "" for information.
func Prefix(l Level) string {
	switch l {
	case Warn:
		return "! "
	case Error:
		return "✗ "
	}
	return ""
}

// Overflow is the part of the message the line could not show ("" when it fits): the root
// shows it on the help bar's line, so that an error's fix is never cut.
func (m Model) Overflow() string {
	if m.text == "" || m.width <= 0 {
		return ""
	}
	text := m.text
	if m.Hide != nil {
		text = m.Hide(text)
	}
	full := Prefix(m.level) + common.Clean(text)
	room := m.width - m.rightWidth() - 1
	if common.Width(full) <= room || room < 10 {
		return ""
	}
	_, rest := split(full, room)
	return rest
}

// split cuts a message that does not fit its line of room columns between two words: first
// is as many whole words as fit, rest is the remainder exactly as written (a path or an id is
// never broken, nor a space put inside it: text copied off the screen must work). Only a first
// word wider than the line is cut inside.
func split(full string, room int) (first, rest string) {
	if common.Width(full) <= room {
		return full, ""
	}
	words := strings.Split(full, " ")
	k, w := 0, 0
	for k < len(words) {
		add := common.Width(words[k])
		if k > 0 {
			add++
		}
		if w+add > room {
			break
		}
		w += add
		k++
	}
	if k == 0 { // one word wider than the line
		runes := []rune(words[0])
		n := 0
		for n < len(runes) && common.Width(string(runes[:n+1])) <= room {
			n++
		}
		return string(runes[:n]), strings.TrimPrefix(full, string(runes[:n]))
	}
	return strings.Join(words[:k], " "), strings.Join(words[k:], " ")
}

func (m Model) rightWidth() int {
	if len(m.Modes) == 0 {
		return 0
	}
	return common.Width("[" + strings.Join(m.Modes, "] [") + "]")
}

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
		full := prefix + common.Clean(text)
		if room := m.width - common.Width(right) - 1; common.Width(full) > room && room >= 10 {
			full, _ = split(full, room) // the rest: Overflow
		}
		left = style.Render(full)
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
