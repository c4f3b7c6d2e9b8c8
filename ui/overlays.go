package ui

import (
	tea "charm.land/bubbletea/v2"

	"charm.land/bubbles/v2/key"
)

// overlay is a screen over the list (a dialog, a menu, the filter prompt, a full-screen view)
// that takes every key first while it is open. The overlays are a stack read top down: the
// first open one in rootOverlays gets the key, and the list's bindings (bindings.go) only the
// keys no overlay took.
type overlay struct {
	name string
	open func(*Model) bool
	key  func(*Model, tea.KeyPressMsg) tea.Cmd
}

// rootOverlays are the root's overlays, the top first.
func rootOverlays() []overlay {
	// closing is a full-screen view's key handler: its own key, esc or q closes it (q as in
	// less, k9s and lazygit: quitting the program from a screen one only wanted to leave
	// surprised people); the other keys scroll it.
	closing := func(
		shown func(*Model) *bool,
		own func(*Model) key.Binding,
		scroll func(*Model, tea.KeyPressMsg),
	) func(*Model, tea.KeyPressMsg) tea.Cmd {
		return func(m *Model, k tea.KeyPressMsg) tea.Cmd {
			if key.Matches(k, own(m), m.Keys.Back, m.Keys.Quit) && k.String() != "ctrl+c" {
				*shown(m) = false
				return nil
			}
			scroll(m, k)
			return nil
		}
	}
	return []overlay{
		{name: "retry dialog", open: func(m *Model) bool { return m.retry.IsOpen() }, key: func(m *Model, k tea.KeyPressMsg) tea.Cmd {
			var cmd tea.Cmd
			m.retry, cmd = m.retry.Update(k)
			return cmd
		}},
		{name: "mark dialog", open: func(m *Model) bool { return m.mark.IsOpen() }, key: func(m *Model, k tea.KeyPressMsg) tea.Cmd {
			var cmd tea.Cmd
			m.mark, cmd = m.mark.Update(k)
			return cmd
		}},
		{name: "copy menu", open: func(m *Model) bool { return m.copyMenu.IsOpen() }, key: func(m *Model, k tea.KeyPressMsg) tea.Cmd {
			var cmd tea.Cmd
			m.copyMenu, cmd = m.copyMenu.Update(k)
			return cmd
		}},
		{name: "filter prompt", open: func(m *Model) bool { return m.filter.Active() }, key: func(m *Model, k tea.KeyPressMsg) tea.Cmd {
			return m.editFilter(k)
		}},
		{name: "timeline", open: func(m *Model) bool { return m.showTime }, key: closing(
			func(m *Model) *bool { return &m.showTime }, func(m *Model) key.Binding { return m.Keys.Timeline },
			func(m *Model, k tea.KeyPressMsg) { m.timeline.Update(k) })},
		{name: "message log", open: func(m *Model) bool { return m.showLog }, key: closing(
			func(m *Model) *bool { return &m.showLog }, func(m *Model) key.Binding { return m.Keys.Log },
			func(m *Model, k tea.KeyPressMsg) { m.msgLog.Update(k) })},
		{name: "help", open: func(m *Model) bool { return m.showHelp }, key: closing(
			func(m *Model) *bool { return &m.showHelp }, func(m *Model) key.Binding { return m.Keys.Help },
			func(m *Model, k tea.KeyPressMsg) { m.helpView.Update(k) })},
	}
}

// topOverlay is the open overlay that takes the keys (ok false: none is open).
func (m *Model) topOverlay() (overlay, bool) {
	for _, o := range m.overlays {
		if o.open(m) {
			return o, true
		}
	}
	return overlay{}, false
}
