package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/window"
)

// copyBundle copies the selection's support bundle, writing it first when needed.
func (m *Model) copyBundle() tea.Cmd {
	ids := m.selectionIDs()
	if m.bundleText != "" && equalIDs(ids, m.bundleIDs) {
		return m.copyOut("bundle", m.bundleText, true)
	}
	m.setInfo("writing a support bundle…")
	return bundleCmd(m.ctx, m.be, ids, m.bundleItems(ids), true)
}

// copyOut puts text on the clipboard with OSC 52; a terminal that cannot take it (TERM linux or
// dumb) gets the text in a 0600 file instead, and the status line says which.
func (m *Model) copyOut(what, text string, block bool) tea.Cmd {
	return m.copyOutBecause(what, text, block, nil)
}

// copyOutBecause is copyOut for a copy made because something else failed (why, nil for none):
// the status line says why beside where the copy went.
func (m *Model) copyOutBecause(what, text string, block bool, why error) tea.Cmd {
	if m.opt.NoOSC52 {
		m.setInfo("writing the %s to a file…", what)
		return copyFileCmd(m.be, what, text, why)
	}
	if why != nil {
		m.setError(fmt.Errorf("%w; the %s is copied instead", why, what))
		return copyText(text, block)
	}
	m.setInfo("copied the %s to the clipboard (OSC 52; nothing arrived? the terminal refuses OSC 52: set NO_OSC52=1 to get a file)", what)
	return copyText(text, block)
}

// copyFileMsg says where the copy fallback wrote what (copyFileCmd), and why the copy was made
// (nil: the person asked for it).
type copyFileMsg struct {
	what, path string
	err, why   error
}

// copyFileCmd writes text to the copy fallback's 0600 file, off the loop.
func copyFileCmd(be Backend, what, text string, why error) tea.Cmd {
	return func() tea.Msg {
		path, err := be.WriteCopy(what, text)
		return copyFileMsg{what: what, path: path, err: err, why: why}
	}
}

// copied says where a copy went when the terminal cannot take OSC 52.
func (m *Model) copied(msg copyFileMsg) {
	if msg.err != nil {
		m.setError(fmt.Errorf("this terminal cannot take OSC 52 and the fallback file failed: %w", msg.err))
		return
	}
	if msg.why != nil {
		m.setError(fmt.Errorf("%w; the %s is in %s instead", msg.why, msg.what, msg.path))
		return
	}
	m.setInfo("this terminal cannot take OSC 52 (TERM=%s): the %s is in %s", m.opt.Term, msg.what, msg.path)
}

// selectionIDs is what a bundle covers: the selected execution, or a whole duplicate group.
func (m *Model) selectionIDs() []string {
	i, it, ok := m.selected()
	if !ok {
		return nil
	}
	if it.Kind == window.ItemGroup {
		var ids []string
		for _, ei := range m.data.DS.Members[it.Group] {
			ids = append(ids, m.data.DS.ID(int(ei)))
		}
		return ids
	}
	return []string{m.data.DS.ID(i)}
}

// bundleItems gathers what the store knows about each execution for a support bundle (the
// journal's history is the app's to read and word, as for the CLI's bundle). The values are
// copies: the command that renders them runs off the loop.
func (m *Model) bundleItems(ids []string) []bundle.Item {
	var items []bundle.Item
	for _, id := range ids {
		i := m.data.DS.Index(id)
		if i < 0 {
			continue
		}
		it := bundle.Item{Exec: *m.data.Exec(i), Triage: m.data.DS.Triage(i)}
		if ps, ok := m.data.Provider[id]; ok {
			it.Provider = &ps
		}
		if g := m.data.DS.Group(i); g != nil {
			gc := *g
			it.Group = &gc
		}
		items = append(items, it)
	}
	return items
}

// copyText puts text on the clipboard (OSC 52) with every character a terminal must not be
// handed escaped: what is copied gets pasted into a shell, and an id from a hostile log could
// carry escape sequences or a newline that runs a command. A block (a bundle) keeps its
// newlines and tabs; anything else (an id) keeps none.
func copyText(text string, block bool) tea.Cmd {
	if block {
		return tea.SetClipboard(sanitize.Block(text, 0))
	}
	return tea.SetClipboard(sanitize.String(text))
}
