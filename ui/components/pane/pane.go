// Package pane is a titled, bordered, scrollable box (a bubbles viewport inside common.Box),
// the frame of the detail and provider panes. Content is set as lines already cut to the
// pane's width; the scroll position survives a content update for the same subject and resets
// when the subject changes.
package pane

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/ui/common"
)

// Model is one pane.
type Model struct {
	common.Common
	Title   string
	vp      viewport.Model
	width   int
	height  int
	focused bool
	subject string
	raw     string
}

// New returns an empty pane.
func New(c common.Common, title string) Model {
	vp := viewport.New()
	vp.MouseWheelEnabled = true
	return Model{Common: c, Title: title, vp: vp}
}

// SetSize sets the outer size and re-wraps the content.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.vp.SetWidth(max(w-2, 1))
	m.vp.SetHeight(max(h-2, 1))
	m.apply()
}

// InnerWidth is the width content may use.
func (m Model) InnerWidth() int { return max(m.width-2, 1) }

// SetFocused says whether keys scroll this pane.
func (m *Model) SetFocused(f bool) { m.focused = f }

// Focused reports focus.
func (m Model) Focused() bool { return m.focused }

// SetContent shows content about subject (an execution id). Long lines are wrapped to the
// pane's width. The scroll position is kept when the subject is unchanged.
func (m *Model) SetContent(subject, content string) {
	if subject != m.subject {
		m.vp.GotoTop()
	}
	m.subject, m.raw = subject, content
	m.apply()
}

func (m *Model) apply() {
	w := m.InnerWidth()
	var lines []string
	for l := range strings.SplitSeq(m.raw, "\n") {
		marked := strings.HasPrefix(l, common.LabelMark)
		l = strings.TrimPrefix(l, common.LabelMark)
		switch {
		case ansi.StringWidth(l) <= w:
			lines = append(lines, l)
		case marked:
			lines = append(lines, hang(l, w, LabelWidth)...)
		default:
			lines = append(lines, wrap(l, w)...)
		}
	}
	off := m.vp.YOffset()
	m.vp.SetContentLines(lines)
	m.vp.SetYOffset(off)
}

// Content returns the content last set, whole (not only the part scrolled into view).
func (m Model) Content() string { return strings.ReplaceAll(m.raw, common.LabelMark, "") }

// Lines is how many lines the content takes once wrapped to the pane's width.
func (m Model) Lines() int { return m.vp.TotalLineCount() }

// Update scrolls with the navigation keys (when focused) and the mouse wheel.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k := m.Keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if !m.focused {
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Up):
			m.vp.ScrollUp(1)
		case key.Matches(msg, k.Down):
			m.vp.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			m.vp.PageUp()
		case key.Matches(msg, k.PageDown):
			m.vp.PageDown()
		case key.Matches(msg, k.HalfUp):
			m.vp.HalfPageUp()
		case key.Matches(msg, k.HalfDown):
			m.vp.HalfPageDown()
		case key.Matches(msg, k.Top):
			m.vp.GotoTop()
		case key.Matches(msg, k.Bottom):
			m.vp.GotoBottom()
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.vp.ScrollUp(3)
		case tea.MouseWheelDown:
			m.vp.ScrollDown(3)
		}
	}
	return m, nil
}

// View renders the box.
func (m Model) View() string {
	st := m.Styles.Pane
	right := ""
	if total := m.vp.TotalLineCount(); total > m.vp.Height() {
		right = fmt.Sprintf("%d%%", int(m.vp.ScrollPercent()*100+0.5))
	}
	return common.Box(common.BoxStyles{Border: st.Border, BorderFocus: st.BorderFocus, Title: st.Title, TitleFocus: st.TitleFocus},
		m.Title, right, m.vp.View(), m.width, m.height, m.focused)
}

// wrap breaks a long line at spaces (hard-breaking words longer than the width). A "label
// value" row (a label padded to LabelWidth) continues under its value, not under its label.
func wrap(l string, w int) []string {
	plain := ansi.Strip(l)
	// "label     value", or a value row under an empty label (LabelWidth spaces, then text)
	labelled := len(plain) > LabelWidth && plain[LabelWidth-1] == ' ' && plain[LabelWidth] != ' ' &&
		!strings.Contains(strings.TrimRight(plain[:LabelWidth], " "), " ")
	indent := LabelWidth
	if !labelled { // "  • item": the item's text hangs under its first word
		body := strings.TrimLeft(plain, " ")
		if strings.HasPrefix(body, "• ") {
			indent, labelled = len(plain)-len(body)+2, true
		}
	}
	if !labelled || w <= indent+10 {
		return strings.Split(common.Wrap(l, w), "\n")
	}
	return hang(l, w, indent)
}

// hang wraps l to width w with its first indent cells (a label, a bullet) kept on the first
// line and the rest under them; JSON wraps between its members.
func hang(l string, w, indent int) []string {
	if w <= indent+10 {
		return strings.Split(common.Wrap(l, w), "\n")
	}
	label := ansi.Cut(l, 0, indent)
	value := ansi.Cut(l, indent, ansi.StringWidth(l))
	pad := strings.Repeat(" ", indent)
	wrapped := common.Wrap(value, w-indent)
	if v := strings.TrimSpace(ansi.Strip(value)); strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		wrapped = common.WrapJSON(value, w-indent) // between members, not inside a token
	}
	var out []string
	for i, v := range strings.Split(wrapped, "\n") {
		if i == 0 {
			out = append(out, label+v)
		} else {
			out = append(out, pad+v)
		}
	}
	return out
}

// LabelWidth is the width of "label    " columns in pane content (a 9-cell label and a space).
const LabelWidth = 10
