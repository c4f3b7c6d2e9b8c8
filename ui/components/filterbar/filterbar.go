// Package filterbar is the `/` prompt: a one-line text input for the filter package's query
// language (fuzzy free text plus field:value terms). It reports every change so the root can
// start a filter command; it never filters itself.
package filterbar

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/ui/common"
)

// ChangedMsg says the query text was cleared (esc); text edits are read from Value by the root.
type ChangedMsg struct{ Query string }

// ClosedMsg says the prompt closed: Cleared when esc dropped the query, else it was applied.
type ClosedMsg struct{ Cleared bool }

// Model is the prompt.
type Model struct {
	common.Common
	input  textinput.Model
	width  int
	active bool
	// Err is the parse error of the current text, shown after the input.
	Err string
	// Hint says what the query's rows may not show (filter.Index.Hint), muted after the
	// input when there is no error.
	Hint string
}

// New returns a closed prompt.
func New(c common.Common) Model {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "gmail send  tool:send  outcome:ambiguous  -status:success  (" + strings.Join(filter.FieldNames(), " ") + ")"
	in.CharLimit = 512
	s := textinput.DefaultDarkStyles()
	s.Cursor.Blink = false
	s.Focused.Prompt = c.Styles.Status.Key
	s.Focused.Placeholder = c.Styles.Muted
	s.Blurred.Placeholder = c.Styles.Muted
	in.SetStyles(s)
	return Model{Common: c, input: in}
}

// Active reports whether the prompt has focus.
func (m Model) Active() bool { return m.active }

// Value is the query text.
func (m Model) Value() string { return m.input.Value() }

// Open focuses the prompt, keeping the current query for editing.
func (m *Model) Open() tea.Cmd {
	m.active = true
	m.input.CursorEnd()
	return m.input.Focus()
}

// SetText puts text in the prompt, closed (a saved view's filter).
func (m *Model) SetText(text string) {
	m.input.SetValue(text)
	m.input.Blur()
	m.active, m.Err, m.Hint = false, "", ""
}

// Reset clears the text and closes.
func (m *Model) Reset() {
	m.input.SetValue("")
	m.input.Blur()
	m.active, m.Err, m.Hint = false, "", ""
}

// SetSize sets the width.
func (m *Model) SetSize(w, _ int) {
	m.width = w
	m.input.SetWidth(max(w-4, 8))
}

// Update edits the text; enter applies, esc clears.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.active {
		return m, nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, m.Keys.Confirm):
			if m.Err != "" {
				// an invalid filter is never applied quietly (its last valid prefix would be):
				// the prompt stays open with the error until it is fixed or esc drops it
				return m, nil
			}
			m.active = false
			m.input.Blur()
			return m, func() tea.Msg { return ClosedMsg{} }
		case key.Matches(k, m.Keys.Cancel):
			m.Reset()
			return m, tea.Batch(
				func() tea.Msg { return ChangedMsg{} },
				func() tea.Msg { return ClosedMsg{Cleared: true} })
		}
	}
	// A text edit sends no ChangedMsg: the root compares Value before and after and starts
	// the filter in the same Update, so a keystroke costs one frame, not two.
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// View renders the prompt line (exactly the width).
// A parse error takes the room the input does not need: the input shrinks to its text (at
// least a few cells, so the cursor stays visible) and the error starts right after it, so
// its first words are never cut away even at 40 columns.
func (m Model) View() string {
	if m.Err == "" && m.Hint == "" {
		return common.Fit(m.input.View(), m.width)
	}
	msg := m.Styles.Status.Error.Render("✗ " + common.Clean(m.Err))
	if m.Err == "" {
		msg = m.Styles.Status.Mode.Render(common.Clean(m.Hint))
	}
	in := m.input
	text := lipgloss.Width(in.Value()) + 1
	room := m.width - lipgloss.Width(in.Prompt) - 2 - min(lipgloss.Width(msg), m.width/2)
	in.SetWidth(max(min(text, room), 8))
	return common.Fit(in.View()+"  "+msg, m.width)
}
