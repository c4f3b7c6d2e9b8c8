// Package copymenu is the `y` menu: what of the selected execution to put on the clipboard
// (log id, request id, the record as JSON, a curl reproduction, the support bundle), as a layer
// over the screen.
package copymenu

import (
	"cmp"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/ui/common"
)

// Item is one thing to copy: Text known when the menu opens (an id), or made when chosen, off
// the loop, by Make (a record as redacted JSON can be large); Deferred marks the bundle, which
// has its own path.
type Item struct {
	Label    string
	Text     string
	Make     func() string
	Block    bool // keeps newlines (JSON, a command, a bundle)
	Deferred bool
	// Choose, when set, is the item's own action (a menu that is not the copy menu: the saved
	// views): its message goes to the root instead of ChosenMsg.
	Choose func() tea.Msg
}

// ChosenMsg says which item to copy.
type ChosenMsg struct{ Item Item }

// Model is the menu.
type Model struct {
	common.Common
	width, height int
	open          bool
	items         []Item
	cursor        int
	title, enter  string // the box's title and what enter does ("" : the copy menu's)
}

// New returns a closed menu.
func New(c common.Common) Model { return Model{Common: c} }

// Open shows the items to copy.
func (m *Model) Open(items []Item) { m.OpenMenu("", "", items) }

// OpenMenu shows items under another title, enter saying what it does ("shows the view").
func (m *Model) OpenMenu(title, enter string, items []Item) {
	m.open, m.items, m.cursor, m.title, m.enter = true, items, 0, title, enter
}

// IsOpen reports whether the menu is shown.
func (m Model) IsOpen() bool { return m.open }

// SetSize sets the screen size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Update: j/k or a digit choose, enter copies, esc or q closes: as every menu does (the
// mark dialog too), so the Enter after a digit is never left over for the screen below.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !m.open || !ok {
		return m, nil
	}
	choose := func(i int) (Model, tea.Cmd) {
		m.open = false
		it := m.items[i]
		if it.Choose != nil {
			return m, it.Choose
		}
		return m, func() tea.Msg { return ChosenMsg{Item: it} }
	}
	switch {
	case key.Matches(k, m.Keys.Cancel) || k.String() == "q":
		m.open = false
	case key.Matches(k, m.Keys.Up):
		m.cursor = (m.cursor + len(m.items) - 1) % len(m.items)
	case key.Matches(k, m.Keys.Down):
		m.cursor = (m.cursor + 1) % len(m.items)
	case key.Matches(k, m.Keys.Confirm):
		return choose(m.cursor)
	case len(k.Text) == 1 && k.Text[0] >= '1' && int(k.Text[0]-'1') < len(m.items):
		m.cursor = int(k.Text[0] - '1')
	}
	return m, nil
}

// View renders the box.
func (m Model) View() string {
	st := m.Styles
	w := min(max(m.width-4, 30), 76)
	inner := w - 4
	var b strings.Builder
	title, enter := cmp.Or(m.title, "Copy to the clipboard"), cmp.Or(m.enter, "copies (OSC 52)")
	b.WriteString(st.Dialog.Title.Render(title) + "\n\n")
	lw := 0 // labels padded alike, so the previews line up
	for _, it := range m.items {
		lw = max(lw, common.Width(it.Label))
	}
	for i, it := range m.items {
		cur, label := "  ", " "+common.Fit(it.Label, lw)+" " // the active one's padding
		if i == m.cursor {
			cur, label = "› ", st.Dialog.ButtonActive.Render(common.Fit(it.Label, lw))
		}
		preview := ""
		if !it.Deferred && it.Make == nil {
			preview = strings.Join(strings.Fields(it.Text), " ")
		}
		b.WriteString(common.Truncate(cur+string(rune('1'+i))+" "+label+"  "+st.Muted.Render(common.Clean(preview)), inner) + "\n")
	}
	b.WriteString(
		"\n" + st.Dialog.Hint.Render(
			common.Truncate("j/k or 1-"+string(rune('0'+len(m.items)))+" choose · enter "+enter+" · esc or q closes", inner),
		),
	)
	return st.Dialog.Box.Width(w).Render(b.String())
}
