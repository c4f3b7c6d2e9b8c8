package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/components/copymenu"
	"github.com/exectriage/exectriage/ui/components/filterbar"
	"github.com/exectriage/exectriage/ui/components/markdialog"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/window"
)

// Update routes a message: results of commands first, then keys by focus (a dialog, then the
// filter prompt, then the help screen, then global keys, then the focused pane), as gh-dash does.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.sameFrame = false
	switch msg.(type) {
	case loadPageMsg, loadDoneMsg, analyzedMsg, foundMsg, followTickMsg, selectedMsg:
		return m.updateLoad(msg)
	case evidenceMsg, retrydialog.ArmedMsg, retrydialog.SendMsg, retriedMsg, retrydialog.CloseMsg:
		return m.updateRetry(msg)
	case journalMsg, journalAllMsg, verifiedMsg, markdialog.MarkMsg, markdialog.CloseMsg, markedMsg, markedManyMsg:
		return m.updateJournal(msg)
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.relayout()
		return m, nil

	case spinner.TickMsg:
		if !m.busy() {
			m.spinning = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		m.refreshSpinnerViews()
		if m.load.loading {
			m.header.Waiting = waitForms(m.be)
		}
		m.showProgress(true)
		return m, cmd

	case detailTickMsg:
		if msg.tag != m.detailTag || msg.id != m.keepID {
			return m, nil
		}
		return m, m.fetchDetail(msg.id)

	case detailMsg:
		delete(m.fetching, msg.id)
		if msg.err != nil {
			m.setError(fmt.Errorf("fetching %s: %w", msg.id, msg.err))
		} else {
			m.data.PutDetail(msg.id, msg.exec)
		}
		m.refreshPanes()
		return m, nil

	case viewChosenMsg:
		return m, m.applyView(msg.name)

	case copymenu.ChosenMsg:
		if msg.Item.Deferred { // the bundle: Y's path
			return m, m.copyBundle()
		}
		what, _, _ := strings.Cut(msg.Item.Label, " (") // "curl reproduction", "record"
		if mk := msg.Item.Make; mk != nil {             // redacting a large record is no work for Update
			block := msg.Item.Block
			return m, func() tea.Msg { return copyReadyMsg{what: what, text: mk(), block: block} }
		}
		return m, m.copyOut(what, msg.Item.Text, msg.Item.Block)

	case copyReadyMsg:
		return m, m.copyOut(msg.what, msg.text, msg.block)

	case copyFileMsg:
		m.copied(msg)
		return m, nil

	case openedMsg:
		if msg.opened {
			m.setInfo("opened %s in the browser: %s", msg.id, msg.addr)
			return m, nil
		}
		// no browser here (ssh, a container) or it failed: the address it would open, copied
		return m, m.copyOutBecause("dashboard URL", msg.addr, false, msg.err)

	case bundledMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("writing the bundle: %w", msg.err))
			return m, nil
		}
		m.bundleIDs, m.bundleText = msg.ids, msg.text
		if msg.copy {
			m.setInfo("bundle written to %s and copied to the clipboard (OSC 52)", msg.path)
			return m, copyText(msg.text, true)
		}
		m.setInfo("bundle written to %s (%s copies it)", msg.path, m.key(m.Keys.CopyBundle))
		return m, nil

	case filterbar.ChangedMsg:
		return m, m.setQuery(msg.Query)

	case filterbar.ClosedMsg:
		m.relayout()
		reqs, sessions := m.query.Values("request"), m.query.Values("session")
		if !msg.Cleared && len(reqs)+len(sessions) > 0 {
			// the API lists no request or session ids: its server finds the executions the
			// filter names
			return m, findOnServerCmd(m.ctx, m.load.feed, reqs, sessions)
		}
		return m, nil

	case timelineMsg:
		return m, m.openTimeline(msg)

	case tea.KeyPressMsg:
		if m.load.working() {
			// The load's read, parse and analysis pause while this key's frame is made and
			// drawn: on two cores they would otherwise hold both.
			m.be.Hold(keyHold)
		}
		return m, m.personKey(msg)

	case tea.PasteMsg:
		switch {
		case m.retry.IsOpen():
			var cmd tea.Cmd
			m.retry, cmd = m.retry.Update(msg)
			return m, cmd
		case m.mark.IsOpen():
			var cmd tea.Cmd
			m.mark, cmd = m.mark.Update(msg)
			return m, cmd
		case m.filter.Active():
			return m, m.editFilter(msg)
		}
		return m, nil

	case tea.MouseMsg:
		return m, m.handleMouse(msg)
	}
	return m, nil
}

// setQuery parses the filter text and starts a filter command; a parse error is shown under
// the prompt and the previous rows stay.
func (m *Model) setQuery(text string) tea.Cmd {
	q, err := filter.Parse(text)
	if err != nil {
		m.filter.Err = err.Error()
		return nil
	}
	m.filter.Err = ""
	m.query = q
	return m.reselect()
}

// editFilter gives a key or a paste to the filter prompt and, when the text changed, starts
// the filter command in the same Update (one frame per keystroke).
func (m *Model) editFilter(msg tea.Msg) tea.Cmd {
	before := m.filter.Value()
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(msg)
	if m.filter.Active() && m.filter.Value() != before {
		return tea.Batch(cmd, m.setQuery(m.filter.Value()))
	}
	return cmd
}

// handleKey routes a key press by focus.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.Keys
	asked := m.quitAsked // a quit key now confirms; any other key withdraws the question
	m.quitAsked = false
	if k.String() == "ctrl+c" {
		return m.quit(asked)
	}
	if m.retry.IsOpen() && m.retry.Sending() && key.Matches(k, keys.Quit) && k.Text != "" {
		return m.quit(asked) // q over a send in flight asks, as ctrl+c does
	}
	if o, ok := m.topOverlay(); ok {
		return o.key(m, k)
	}
	if len(m.deferred) > 0 || m.sel.pending() {
		// The rows the person asked for are still being made: the key waits for them (in
		// order with the keys before it) rather than act on the rows on screen before.
		if len(m.deferred) < maxDeferred {
			m.deferred = append(m.deferred, k)
		}
		m.quitAsked = asked // a deferred q still confirms the question
		return nil
	}

	if !key.Matches(k, keys.Verify) {
		m.confirmVerify = false // a second v confirms the selection's checks only right after the first
	}
	if cmd, ok := m.runBinding(k, asked); ok {
		return cmd
	}

	// navigation goes to the focused pane
	switch m.focus {
	case focusDetail:
		m.detail, _ = m.detail.Update(k)
		return nil
	case focusProvider:
		m.provider, _ = m.provider.Update(k)
		return nil
	}
	if key.Matches(k, keys.Open) {
		_, it, ok := m.selected()
		if !ok {
			return nil
		}
		if it.Kind == window.ItemGroup {
			g := m.data.DS.Groups[it.Group].ID
			if m.view.Collapsed == nil {
				m.view.Collapsed = map[string]bool{}
			}
			m.view.Collapsed[g] = !m.view.Collapsed[g]
			return m.reselect()
		}
		m.setFocus(focusDetail)
		return m.fetchDetail(m.keepID)
	}
	before := m.list.Cursor()
	m.list, _ = m.list.Update(k)
	if m.list.Cursor() != before {
		return m.selectionChanged()
	}
	return nil
}

// maxDeferred bounds the keys kept while a selection is made (a held key repeats).
const maxDeferred = 16

// replayDeferred runs the keys that waited for the selection now installed, in order, until
// one of them asks for another selection (the rest wait for that one).
func (m *Model) replayDeferred() tea.Cmd {
	queue := m.deferred
	m.deferred = nil
	var cmds []tea.Cmd
	for i, k := range queue {
		if m.sel.pending() {
			m.deferred = append(queue[i:len(queue):len(queue)], m.deferred...)
			break
		}
		cmds = append(cmds, m.personKey(k))
	}
	return tea.Batch(cmds...)
}

// personKey runs a key the person pressed and, when it asked for other rows (a filter typed,
// a view toggled), records that selection as the one later keys wait for.
func (m *Model) personKey(k tea.KeyPressMsg) tea.Cmd {
	before := m.sel.tag
	cmd := m.handleKey(k)
	if m.sel.tag != before {
		m.sel.asked()
	}
	return cmd
}

func (m *Model) setFocus(f focus) {
	m.focus = f
	m.list.SetFocused(f == focusList)
	m.detail.SetFocused(f == focusDetail)
	m.provider.SetFocused(f == focusProvider)
	m.relayout()
}

// quit ends the program, but asks first while a retry is being sent (unless confirmed is set:
// the key before was a quit key that asked): leaving then cuts the send off, and whether it
// took effect is unknown until `exectriage resolve`.
func (m *Model) quit(confirmed bool) tea.Cmd {
	if len(m.data.Retrying) > 0 && !confirmed {
		ids := make([]string, 0, len(m.data.Retrying))
		for id := range m.data.Retrying {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		q := "q"
		if ks := m.Keys.Quit.Keys(); len(ks) > 0 {
			q = ks[0]
		}
		msg := fmt.Sprintf(
			"a retry of %s is being sent: quitting now leaves its outcome unknown (exectriage resolve). %s again quits anyway; any other "+
				"key waits",
			strings.Join(ids, ", "),
			q,
		)
		m.quitAsked = true
		m.status.Set(statusline.Warn, msg)
		if m.retry.IsOpen() {
			m.retry.SetHint(msg)
		}
		return nil
	}
	m.load.stop()
	return tea.Quit
}

// handleMouse scrolls or selects in the region under the pointer.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if !m.mouse || m.retry.IsOpen() || m.mark.IsOpen() || m.showHelp || m.showLog || m.showTime {
		return nil
	}
	mo := msg.Mouse()
	region := m.lay.regionAt(mo.X, mo.Y)
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch region {
		case regionList:
			before := m.list.Cursor()
			m.list, _ = m.list.Update(msg)
			if m.list.Cursor() != before {
				return m.selectionChanged()
			}
		case regionDetail:
			m.detail, _ = m.detail.Update(msg)
		case regionProvider:
			m.provider, _ = m.provider.Update(msg)
		}
	case tea.MouseClickMsg:
		if msg.Button != tea.MouseLeft {
			return nil
		}
		switch region {
		case regionList:
			m.setFocus(focusList)
			if m.list.Click(mo.Y - m.lay.list.y) {
				return m.selectionChanged()
			}
		case regionDetail:
			m.setFocus(focusDetail)
		case regionProvider:
			m.setFocus(focusProvider)
		}
	}
	return nil
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func equalIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameCase reports whether two cases say the same.
func sameCase(a, b *model.Case) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
