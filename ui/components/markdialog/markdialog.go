// Package markdialog records a person's verdict about an execution (confirmed_failed,
// confirmed_succeeded, duplicate, ignored) with an optional note, as a layer over the screen.
package markdialog

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/common"
)

// MarkMsg asks the root to record a verdict.
type MarkMsg struct {
	ExecID  string
	Verdict model.Verdict
	Note    string
}

// Many is the ExecID of a dialog opened for the rows selected together (the root knows them).
const Many = ""

// CloseMsg says the dialog closed without recording.
type CloseMsg struct{}

var meaning = map[model.Verdict]string{
	model.VerdictConfirmedFailed:    "the action did not happen",
	model.VerdictConfirmedSucceeded: "the action happened (blocks any retry)",
	model.VerdictDuplicate:          "a duplicate of another execution (blocks any retry)",
	model.VerdictIgnored:            "not worth acting on (changes nothing the guard allows)",
}

// Meaning is what a verdict does, as the dialog says it.
func Meaning(v model.Verdict) string { return meaning[v] }

// Model is the dialog.
type Model struct {
	common.Common
	width, height int
	open          bool
	execID, title string
	choices       []model.Verdict // what makes sense for the execution
	current       model.Verdict   // the verdict the guard goes by now, "" for none
	choice        int             // index in choices, -1 while none is chosen
	nudge         bool            // enter was pressed with no verdict chosen
	note          textinput.Model
	noteFocus     bool
}

// New returns a closed dialog.
func New(c common.Common) Model {
	return Model{Common: c, note: common.TextInput(c, "note> ", "optional, recorded in the journal", 500)}
}

// Open shows the dialog for an execution; title describes it, choices are the verdicts that
// make sense for it (all of them when nil), current the verdict the guard goes by now.
func (m *Model) Open(execID, title string, choices []model.Verdict, current model.Verdict) {
	// No verdict is preselected: one stray Enter must not record "confirmed_failed", the
	// verdict that lets a write be sent again.
	if len(choices) == 0 {
		choices = model.Verdicts()
	}
	m.open, m.execID, m.title, m.choice, m.noteFocus, m.nudge = true, execID, title, -1, false, false
	m.choices, m.current = choices, current
	m.note.SetValue("")
	m.note.Blur()
}

// IsOpen reports whether the dialog is shown.
func (m Model) IsOpen() bool { return m.open }

// SetSize sets the screen size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Update handles keys: j/k or 1-4 choose, tab moves to the note, enter records, esc cancels.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.open {
		return m, nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if m.noteFocus {
			var cmd tea.Cmd
			m.note, cmd = m.note.Update(msg)
			return m, cmd
		}
		return m, nil
	}
	switch {
	case key.Matches(k, m.Keys.Cancel) || k.String() == "q" && !m.noteFocus:
		m.open = false
		return m, func() tea.Msg { return CloseMsg{} }
	case key.Matches(k, m.Keys.Confirm):
		if m.choice < 0 {
			m.nudge = true
			return m, nil
		}
		m.open = false
		msg := MarkMsg{ExecID: m.execID, Verdict: m.choices[m.choice], Note: strings.TrimSpace(m.note.Value())}
		return m, func() tea.Msg { return msg }
	case k.String() == "tab" || k.String() == "shift+tab":
		m.noteFocus = !m.noteFocus
		if m.noteFocus {
			return m, m.note.Focus()
		}
		m.note.Blur()
		return m, nil
	}
	if m.noteFocus {
		var cmd tea.Cmd
		m.note, cmd = m.note.Update(msg)
		return m, cmd
	}
	switch {
	case key.Matches(k, m.Keys.Up):
		m.choice = (max(m.choice, 0) + len(m.choices) - 1) % len(m.choices)
	case key.Matches(k, m.Keys.Down):
		m.choice = (m.choice + 1) % len(m.choices)
	case len(k.Text) == 1 && k.Text[0] >= '1' && int(k.Text[0]-'1') < len(m.choices):
		m.choice = int(k.Text[0] - '1')
	}
	return m, nil
}

// numbers is the digits that choose: "1-4", "1-2", "1".
func (m Model) numbers() string {
	if len(m.choices) == 1 {
		return "1"
	}
	return "1-" + string(rune('0'+len(m.choices)))
}

// View renders the dialog box.
func (m Model) View() string {
	st := m.Styles
	w := min(max(m.width-4, 30), 70)
	inner := w - 4
	m.note.SetWidth(inner - 8)
	var b strings.Builder
	b.WriteString(st.Dialog.Title.Render("Mark a verdict") + "\n")
	b.WriteString(common.Truncate(st.Dialog.Label.Render(common.Clean(m.title)), inner) + "\n\n")
	if m.current != "" {
		b.WriteString(common.Truncate(st.Muted.Render("now marked "+string(m.current)+": "+meaning[m.current]), inner) + "\n")
	}
	lw := 0 // verdicts padded alike, so their meanings line up
	for _, v := range m.choices {
		lw = max(lw, len(v))
	}
	for i, v := range m.choices {
		cur := "  "
		label := " " + common.Fit(string(v), lw) + " " // the active one's padding
		if i == m.choice {
			cur = "› "
			label = st.Dialog.ButtonActive.Render(common.Fit(string(v), lw))
		}
		head := cur + string(rune('1'+i)) + " " + label + "  "
		hw := common.Width(head)
		// the meaning wraps under itself, never cut: it is what the verdict does
		for k, l := range strings.Split(common.Wrap(meaning[v], max(inner-hw, 10)), "\n") {
			if k > 0 {
				head = strings.Repeat(" ", hw)
			}
			b.WriteString(head + st.Muted.Render(l) + "\n")
		}
	}
	b.WriteString("\n" + m.note.View() + "\n\n")
	if m.nudge && m.choice < 0 {
		b.WriteString(st.Status.Error.Render(common.Truncate("choose a verdict first ("+m.numbers()+" or j/k)", inner)) + "\n")
	}
	if len(m.choices) < len(model.Verdicts()) {
		b.WriteString(st.Muted.Render(common.Truncate("only the verdicts that fit this execution are offered", inner)) + "\n")
	}
	b.WriteString(
		st.Dialog.Hint.Render(common.Truncate("j/k or "+m.numbers()+" choose · tab note · enter record · esc or q cancel", inner)),
	)
	return st.Dialog.Box.Width(w).Render(b.String())
}
