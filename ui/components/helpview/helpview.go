// Package helpview is the `?` screen: the KeyMap's full help, one titled column per group,
// laid out in as many rows of columns as the width needs, and a legend of the list's markers
// when there is room. It is drawn as a layer over the screen.
package helpview

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/keys"
)

// Model is the help screen.
type Model struct {
	common.Common
	width, height int
	last          *drawn // shared by the model's copies
}

// drawn is the screen last drawn and what it was drawn for: the size and the keys' help.
type drawn struct{ key, view string }

// New returns the help screen.
func New(c common.Common) Model { return Model{Common: c, last: &drawn{}} }

// SetSize sets the room available (the whole screen).
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

var legend = []string{
	"!          a flagged write: its outcome is ambiguous or rejected; verify before any retry",
	"AMBIGUOUS  may or may not have happened (timeout, 5xx, dropped connection)",
	"REJECTED   refused before execution (429); likely not executed",
	"DUP×n      n calls of one tool and account within the window, same arguments or the text reworded;",
	"           cause: sdk_auto_retry, session_auto_retry, framework_retry, agent_retry, app_retry, double_submit;",
	"           identical or reworded n% (text similarity); took effect n/m: members the provider showed, ? until verified",
	"RETRIED    retried once through the guard; RETRIED? means the outcome is unknown: run resolve",
	"VERIFIED:x the provider was checked: found (do not retry), not_found or unknown (FOUND, NOT FOUND,",
	"           UNKNOWN in the provider pane; the same words as scan --json and the bundles)",
	"+0.45 s    gap: the next attempt started that long after the previous ended or timed out;",
	"           overlap 0.79 s: it started while the previous was still running",
}

func (m Model) column(title string, bs []key.Binding) []string {
	st := m.Styles
	kw := 0
	for _, b := range bs {
		if b.Enabled() {
			kw = max(kw, common.Width(b.Help().Key))
		}
	}
	lines := []string{st.Pane.Section.Render(title)}
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		h := b.Help()
		lines = append(lines, st.Help.FullKey.Render(common.Fit(h.Key, kw))+"  "+st.Help.FullDesc.Render(h.Desc))
	}
	return lines
}

// View renders the help box (smaller than the screen; the root centres it).
func (m Model) View() string {
	groups := m.Keys.FullHelp()
	// The screen changes only with the size and the keys (a binding turned off, help text):
	// while it is open it is drawn again every frame, and a load draws many frames.
	var sig strings.Builder
	sig.WriteString(strconv.Itoa(m.width) + "x" + strconv.Itoa(m.height))
	for _, g := range groups {
		sig.WriteByte(0)
		for _, b := range g {
			h := b.Help()
			sig.WriteString("\x01" + strconv.FormatBool(b.Enabled()) + h.Key + "\x02" + h.Desc)
		}
	}
	if m.last != nil && m.last.key == sig.String() {
		return m.last.view
	}
	v := m.render(groups)
	if m.last != nil {
		m.last.key, m.last.view = sig.String(), v
	}
	return v
}

func (m Model) render(groups [][]key.Binding) string {
	titles := keys.GroupTitles()
	var cols [][]string
	for i, g := range groups {
		t := ""
		if i < len(titles) {
			t = titles[i]
		}
		cols = append(cols, m.column(t, g))
	}
	avail := max(m.width-6, 20)
	const gap = 4
	var blocks []string
	for i := 0; i < len(cols); {
		// as many columns as fit side by side
		widths := []int{}
		total := 0
		j := i
		for ; j < len(cols); j++ {
			w := 0
			for _, l := range cols[j] {
				w = max(w, common.Width(l))
			}
			if j > i && total+gap+w > avail {
				break
			}
			if j > i {
				total += gap
			}
			total += w
			widths = append(widths, w)
		}
		rows := 0
		for k := i; k < j; k++ {
			rows = max(rows, len(cols[k]))
		}
		var b strings.Builder
		for r := 0; r < rows; r++ {
			var line strings.Builder
			for k := i; k < j; k++ {
				cell := ""
				if r < len(cols[k]) {
					cell = cols[k][r]
				}
				line.WriteString(common.Fit(cell, widths[k-i]))
				if k < j-1 {
					line.WriteString(strings.Repeat(" ", gap))
				}
			}
			if r > 0 {
				b.WriteString("\n")
			}
			b.WriteString(strings.TrimRight(line.String(), " "))
		}
		blocks = append(blocks, b.String())
		i = j
	}
	body := strings.Join(blocks, "\n\n")
	used := strings.Count(body, "\n") + 1
	// The box is the body plus 6 lines (border, title, hint); the legend needs its own 2 more.
	if used+len(legend)+3+6 <= m.height {
		var lg []string
		for _, l := range legend {
			lg = append(lg, m.Styles.Muted.Render(common.Truncate(l, avail)))
		}
		body += "\n\n" + m.Styles.Pane.Section.Render("Markers") + "\n" + strings.Join(lg, "\n")
	}
	// On a short screen show what fits, and say so.
	if room := m.height - 7; strings.Count(body, "\n")+1 > room && room > 0 {
		lines := strings.Split(body, "\n")
		body = strings.Join(lines[:max(room-1, 0)], "\n") + "\n" + m.Styles.Dialog.Hint.Render("… (a taller terminal shows all keys)")
	}
	body += "\n\n" + m.Styles.Dialog.Hint.Render("q, ? or esc to close")
	return m.Styles.Dialog.Box.Render(m.Styles.Dialog.Title.Render("Keys") + "\n\n" + body)
}
