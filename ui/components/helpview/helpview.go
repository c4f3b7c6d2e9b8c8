// Package helpview is the `?` screen: the KeyMap's full help, one titled column per group,
// laid out in as many rows of columns as the width needs, then the legend of every badge of the
// list and mark of the header. What does not fit scrolls (↑/↓, pgup/pgdn, g/G), and the last
// line says where it is. It is drawn as a layer over the screen.
package helpview

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/keys"
)

// Model is the help screen.
type Model struct {
	common.Common
	width, height int
	scroll        common.Scroll
	last          *drawn // shared by the model's copies
	// Off reports a binding the session has turned off (read-only: retry, mark): it is listed
	// with "(off)". Nil: none is.
	Off func(key.Binding) bool
}

// drawn is the screen last drawn and what it was drawn for: the size and the keys' help.
type drawn struct{ key, view string }

// New returns the help screen.
func New(c common.Common) Model { return Model{Common: c, last: &drawn{}} }

// SetSize sets the room available (the whole screen).
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Reset scrolls back to the top (the screen is opened again).
func (m *Model) Reset() { m.scroll = common.Scroll{} }

// Update scrolls on the navigation keys; it reports whether the key was one of them.
func (m *Model) Update(k tea.KeyPressMsg) bool { return m.scroll.Update(k, m.Keys, max(m.room()-2, 1)) }

// room is how many body lines the box shows: the screen less the border, title and hint.
func (m Model) room() int { return m.height - 7 }

// legend explains every badge of the list's FLAGS column, then every mark of the header.
var legend = [][2]string{
	{"!", "a flagged write: its outcome is ambiguous or rejected; verify before any retry"},
	{"AMBIGUOUS", "may or may not have happened (timeout, 5xx, dropped connection)"},
	{"REJECTED", "refused before execution (429, a rate limit); likely not executed"},
	{
		"DUP×n cause",
		"n calls of one tool and account within the window, the same arguments or the text reworded; cause: sdk_auto_retry, " +
			"session_auto_retry, framework_retry, trigger_redelivery, agent_retry, app_retry, double_submit, exectriage_retry (a retry " +
			"made here); identical or reworded n% (text similarity); took effect n/m: members the provider showed, ? until verified",
	},
	{
		"+0.45 s",
		"gap: the next attempt started that long after the previous ended or timed out; overlap 0.79 s: it started while the previous " +
			"was still running",
	},
	{"RETRYING", "a guarded retry of it is being sent now"},
	{"RETRIED", "retried once through the guard, and the retry took effect"},
	{"RETRIED?", "a retry was sent and its outcome is unknown: run resolve before anything else"},
	{"RETRY FAILED", "the retry certainly did not take effect"},
	{"RETRY OF id", "this execution is exectriage's guarded retry of id"},
	{
		"VERIFIED:x",
		"the provider was checked: found (do not retry), not_found or unknown (FOUND, NOT FOUND, UNKNOWN in the provider pane; the same " +
			"words as scan --json and the bundles)",
	},
	{"MARKED:v", "a person recorded verdict v in the journal: confirmed_failed, confirmed_succeeded, duplicate or ignored"},
}

// headerLegend explains the header's marks.
var headerLegend = [][2]string{
	{"[DEMO] [LIVE] [FILE f]", "the source: the embedded demo, the API, an export file (or the API's address)"},
	{"PRODUCTION: p", "the profile p is marked production = true"},
	{"READ-ONLY", "this session cannot retry, mark or write the journal (--readonly)"},
	{"NO JOURNAL: r/m off", "the journal could not be opened: retry and verdicts are off"},
	{"n flagged", "writes whose outcome is ambiguous or rejected and not yet settled"},
	{"✓n settled", "flagged writes a person closed: a verdict that ends them, or a retry that took effect"},
	{"PARTIAL: …", "the counts are not the whole window (the load stopped, or the groups are incomplete): R loads again"},
	{"STALE: …", "the last refresh failed: the rows are those of the load before"},
	{"LOAD FAILED", "the first load failed: nothing was read (the status line says why)"},
	{"follow", "the list refreshes while it is at the top (F); paused when you scroll down"},
}

// legend lays a legend out as two columns: the mark, and what it means wrapped beside it.
func (m Model) legend(title string, rows [][2]string, avail int) string {
	kw := 0
	for _, r := range rows {
		kw = max(kw, common.Width(r[0]))
	}
	kw = min(kw, 22)
	dw := max(avail-kw-2, 20)
	out := []string{m.Styles.Pane.Section.Render(title)}
	for _, r := range rows {
		mark := r[0]
		if common.Width(mark) > kw { // a long mark has a line of its own
			out = append(out, m.Styles.Help.FullKey.Render(mark))
			mark = ""
		}
		for i, l := range strings.Split(common.Wrap(r[1], dw), "\n") {
			k := ""
			if i == 0 {
				k = mark
			}
			out = append(out, m.Styles.Help.FullKey.Render(common.Fit(k, kw))+"  "+m.Styles.Muted.Render(strings.TrimRight(l, " ")))
		}
	}
	return strings.Join(out, "\n")
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
		if m.Off != nil && m.Off(b) {
			h.Desc += " (off)"
		}
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
			sig.WriteString(
				"\x01" + strconv.FormatBool(b.Enabled()) + strconv.FormatBool(m.Off != nil && m.Off(b)) + h.Key + "\x02" + h.Desc,
			)
		}
	}
	sig.WriteString("\x03" + strconv.Itoa(m.scroll.Offset))
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
	body += "\n\n" + m.legend("Markers in the list", legend, avail) + "\n\n" + m.legend("Marks in the header", headerLegend, avail)
	lines := strings.Split(body, "\n")
	hint := m.Keys.Quit.Help().Key + ", " + m.Keys.Help.Help().Key + " or esc to close"
	// What does not fit scrolls; the last line says which lines show and how to see the rest.
	if room := m.room(); room > 1 {
		body = strings.Join(m.scroll.Window(lines, room, avail, m.Styles.Dialog.Hint.Render), "\n")
	}
	body += "\n\n" + m.Styles.Dialog.Hint.Render(hint)
	return m.Styles.Dialog.Box.Render(m.Styles.Dialog.Title.Render("Keys") + "\n\n" + body)
}
