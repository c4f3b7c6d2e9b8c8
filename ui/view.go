package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/header"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/ui/keys"
)

// WideWidth is the width from which the detail and provider panes sit side by side; below it
// they stack.
const WideWidth = 100

// TallBody is the body height from which the panes stay visible while the list has focus; on
// shorter screens the list takes the body and the panes appear when focused (enter or tab).
const TallBody = 26

type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

type region int

const (
	regionNone region = iota
	regionList
	regionDetail
	regionProvider
)

// layout is where each pane goes for the current size and focus.
type layout struct {
	list, detail, provider rect
	panes                  bool // the detail and provider panes are shown
	wide                   bool
	bodyH                  int
}

func (l layout) regionAt(x, y int) region {
	switch {
	case l.list.contains(x, y):
		return regionList
	case l.panes && l.detail.contains(x, y):
		return regionDetail
	case l.panes && l.provider.contains(x, y):
		return regionProvider
	}
	return regionNone
}

// computeLayout splits the screen: header, list, panes, status line, help bar.
func computeLayout(w, h int, f focus) layout {
	var l layout
	top := header.Height
	l.bodyH = max(h-top-2, 3)
	l.wide = w >= WideWidth
	l.panes = f != focusList || l.bodyH >= TallBody
	listH := l.bodyH
	if l.panes {
		if f == focusList {
			listH = max(l.bodyH*45/100, 6)
		} else {
			listH = max(l.bodyH*30/100, 5)
		}
		listH = min(listH, l.bodyH-4)
	}
	l.list = rect{0, top, w, listH}
	if !l.panes {
		return l
	}
	ph := l.bodyH - listH
	py := top + listH
	if l.wide {
		dw := w * 55 / 100
		l.detail = rect{0, py, dw, ph}
		l.provider = rect{dw, py, w - dw, ph}
	} else {
		dh := max(ph*60/100, 3)
		l.detail = rect{0, py, w, dh}
		l.provider = rect{0, py + dh, w, ph - dh}
	}
	return l
}

// relayout sizes every component for the current screen and focus.
func (m *Model) relayout() {
	if m.width <= 0 || m.height <= 0 {
		return
	}
	m.lay = computeLayout(m.width, m.height, m.focus)
	m.header.SetSize(m.width, header.Height)
	m.list.SetSize(m.lay.list.w, m.lay.list.h)
	if m.lay.panes {
		m.detail.SetSize(m.lay.detail.w, m.lay.detail.h)
		m.provider.SetSize(m.lay.provider.w, m.lay.provider.h)
	}
	m.filter.SetSize(m.width, 1)
	m.status.SetSize(m.width, 1)
	m.help.SetWidth(m.width)
	m.helpView.SetSize(m.width, m.height)
	m.msgLog.SetSize(m.width, m.height)
	m.timeline.SetSize(m.width, m.height)
	m.retry.SetSize(m.width, m.height)
	m.mark.SetSize(m.width, m.height)
	m.copyMenu.SetSize(m.width, m.height)
	m.refreshPanes()
}

// View composes the screen; dialogs and the help screen are layers over it.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	// The source's name holds a file name: cleaned, so it cannot end the title sequence.
	v.WindowTitle = "exectriage · " + common.Clean(m.be.SourceName())
	if m.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.SetContent(m.Render())
	return v
}

// Render returns the screen's content (View's content, also used by the golden tests).
func (m *Model) Render() string {
	if m.sameFrame && m.frame != "" {
		return m.frame
	}
	m.frame = m.render()
	return m.frame
}

func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.width < 40 || m.height < 12 {
		return common.Lines("exectriage needs at least 40x12\n(now "+itoa(m.width)+"x"+itoa(m.height)+")", m.width, m.height)
	}
	var b strings.Builder
	b.WriteString(m.header.View())
	b.WriteString("\n")
	b.WriteString(m.list.View())
	if m.lay.panes {
		b.WriteString("\n")
		if m.lay.wide {
			b.WriteString(lipgloss.JoinHorizontal(lipgloss.Top, m.detail.View(), m.provider.View()))
		} else {
			b.WriteString(m.detail.View())
			b.WriteString("\n")
			b.WriteString(m.provider.View())
		}
	}
	b.WriteString("\n")
	if m.filter.Active() {
		b.WriteString(m.filter.View())
	} else {
		b.WriteString(m.status.View())
	}
	b.WriteString("\n")
	if rest := m.status.Overflow(); rest != "" && !m.filter.Active() {
		// a message longer than its line goes on over the help bar: an error's fix is never cut
		b.WriteString(m.overflowLine(rest))
	} else {
		b.WriteString(m.helpBar(m.withOff(m.contextHelp())))
	}
	screen := common.Lines(b.String(), m.width, m.height)

	var overlay string
	switch {
	case m.retry.IsOpen():
		overlay = m.retry.View()
	case m.mark.IsOpen():
		overlay = m.mark.View()
	case m.copyMenu.IsOpen():
		overlay = m.copyMenu.View()
	case m.showHelp:
		overlay = m.helpView.View()
	case m.showLog:
		overlay = m.msgLog.View()
	case m.showTime:
		overlay = m.timeline.View()
	default:
		return screen
	}
	ow, oh := 0, strings.Count(overlay, "\n")+1
	for l := range strings.SplitSeq(overlay, "\n") {
		ow = max(ow, common.Width(l))
	}
	x, y := max((m.width-ow)/2, 0), max((m.height-oh)/2, 0)
	// A dialog taller or wider than a tiny terminal is cut rather than pushing the screen.
	return common.Overlay(screen, overlay, x, y)
}

// overflowLine is the rest of a long status message, in its style; what does not fit either
// ends with where to read it whole.
func (m *Model) overflowLine(rest string) string {
	st := m.Styles.Status
	style := st.Info
	switch lvl, _ := m.status.Text(); lvl {
	case statusline.Warn:
		style = st.Warn
	case statusline.Error:
		style = st.Error
	}
	if common.Width(rest) > m.width {
		more := " (" + m.Keys.Log.Help().Key + ": the whole message)"
		rest = common.Truncate(rest, max(m.width-common.Width(more), 1)) + more
	}
	return style.Render(rest)
}

// helpBar renders the help bar in the terminal's width; ? and q, when the bar has them, stay
// at its end whatever is cut before them (as k9s and lazygit keep theirs).
func (m *Model) helpBar(bs []key.Binding) string {
	var head, tail []key.Binding
	for _, b := range bs {
		if b.Help() == m.Keys.Help.Help() || b.Help() == m.Keys.Quit.Help() {
			tail = append(tail, b)
		} else {
			head = append(head, b)
		}
	}
	h := m.help
	if len(tail) == 0 || len(head) == 0 {
		h.SetWidth(m.width)
		return common.Fit(h.ShortHelpView(bs), m.width)
	}
	end := h.ShortHelpView(tail)
	sep := h.Styles.ShortSeparator.Inline(true).Render(h.ShortSeparator)
	room := m.width - lipgloss.Width(end) - lipgloss.Width(sep)
	if room < 8 {
		return common.Fit(end, m.width)
	}
	// Item by item: bubbles/help adds an item that overflows when its ellipsis would not fit.
	var b strings.Builder
	used := 0
	for _, kb := range head {
		if !kb.Enabled() {
			continue
		}
		item := h.ShortHelpView([]key.Binding{kb})
		w := lipgloss.Width(item)
		if used > 0 {
			w += lipgloss.Width(sep)
		}
		if used+w > room-2 { // leave room for the ellipsis
			b.WriteString(" " + h.Styles.Ellipsis.Inline(true).Render(h.Ellipsis))
			break
		}
		if used > 0 {
			b.WriteString(sep)
		}
		b.WriteString(item)
		used += w
	}
	return common.Fit(b.String()+sep+end, m.width)
}

// contextHelp is the help bar for what has focus.
func (m *Model) contextHelp() []key.Binding {
	k := m.Keys
	switch {
	case m.retry.Confirming():
		return keys.Bindings{k.Switch, k.Confirm, k.Cancel}
	case m.retry.IsOpen():
		return keys.Bindings{key.NewBinding(key.WithKeys("enter", "esc"), key.WithHelp("enter/esc", "close"))}
	case m.mark.IsOpen(), m.copyMenu.IsOpen():
		return keys.Bindings{k.Up, k.Down, k.Confirm, k.Cancel}
	case m.filter.Active():
		return keys.Bindings{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
			key.NewBinding(key.WithKeys("tool:"), key.WithHelp("tool: user: outcome: pattern: flagged:", "fields")),
			key.NewBinding(key.WithKeys("-"), key.WithHelp("-term", "exclude")),
		}
	case m.showHelp:
		return keys.Bindings{k.Help, k.Quit}
	case m.showLog:
		return keys.Bindings{k.Up, k.Down, k.Log, k.Back}
	case m.showTime:
		return keys.Bindings{k.Up, k.Down, k.Timeline, k.Back}
	case m.focus != focusList:
		return keys.Bindings{k.Up, k.Down, k.PageDown, k.NextPane, k.Back, k.Reveal, k.Verify, k.Retry, k.Mark, k.Help, k.Quit}
	}
	return k.ShortHelp()
}

func itoa(n int) string { return common.Count(n) }
