// Package timeline is the story of a session (or a trace): every execution of it in the order
// it ran, a meta-tool's children under their parent, the gap before each step, its outcome, and
// what triage and the person found (a duplicate group and its cause, a retry, the provider's
// answer), in a box over the screen that scrolls. Opened with t on a row.
package timeline

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/common"
)

// Step is one execution of the timeline.
type Step struct {
	Exec   model.Execution
	Triage *model.Triage // nil: outside the loaded window (not triaged here)
	Child  bool          // a meta-tool's child, shown under its parent
	Gap    time.Duration // from the end of the steps before it to its start (triage.Timeline)
	HasGap bool          // false for the first step
	// Continues is the call that asked for approval this approved re-call continues
	// (triage.Timeline), "" for any other step.
	Continues string
	Marks     []string // DUP×3 sdk_auto_retry, RETRIED, VERIFIED:found...
	Current   bool     // the row t was pressed on
}

// Model is the timeline's box.
type Model struct {
	common.Common
	width, height int
	title         string
	steps         []Step
	note          string
	scroll        common.Scroll
}

// New returns an empty timeline.
func New(c common.Common) Model { return Model{Common: c} }

// SetSize sets the room (the whole screen).
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Open shows steps (in the order they ran) under title; note says what the list may lack.
func (m *Model) Open(title string, steps []Step, note string) {
	m.title, m.steps, m.note, m.scroll = title, steps, note, common.Scroll{}
	for i, s := range steps { // start with the row t was pressed on in view
		if s.Current {
			m.scroll.Offset = max(i-2, 0)
		}
	}
}

// Len is how many steps the timeline holds.
func (m Model) Len() int { return len(m.steps) }

// Update scrolls on the navigation keys; it reports whether the key was one of them.
func (m *Model) Update(k tea.KeyPressMsg) bool { return m.scroll.Update(k, m.Keys, max(m.room()-2, 1)) }

// room is the lines of steps the box shows: the screen less its border, title, note, hint and
// the screen's last line.
func (m Model) room() int { return m.height - 8 }

// lines renders the steps, each wrapped to w under its tool.
func (m Model) lines(w int) []string {
	st := m.Styles
	var out []string
	// Steps on more than one day carry their date, in the list's format (01-02 15:04:05):
	// times of day alone across days read as out of order.
	layout := "15:04:05.000"
	if len(m.steps) > 1 {
		first, last := m.steps[0].Exec.Start().UTC(), m.steps[len(m.steps)-1].Exec.Start().UTC()
		if first.YearDay() != last.YearDay() || first.Year() != last.Year() {
			layout = "01-02 15:04:05.000"
		}
	}
	for _, s := range m.steps {
		e := &s.Exec
		gap := ""
		if s.HasGap {
			gap = model.GapText(s.Gap)
		}
		mark, tree := "  ", ""
		if s.Current {
			mark = "› "
		}
		if s.Child {
			tree = "└ "
		}
		flag := " "
		outcome := common.Clean(e.Status)
		if t := s.Triage; t != nil {
			outcome = strings.ToUpper(string(t.Outcome))
			if t.Flagged {
				flag = st.List.Marker.Render("!")
			}
		}
		dur := "?"
		if e.HasDuration {
			dur = common.Duration(e.Duration)
		}
		head := fmt.Sprintf("%s%s %s %s", mark, flag, e.Start().UTC().Format(layout), tree)
		var text strings.Builder
		text.WriteString(common.Clean(e.ToolSlug) + "  " + outcome + "  " + dur)
		if gap != "" {
			text.WriteString("  " + gap)
		}
		if s.Continues != "" {
			text.WriteString("  ↳ approved re-call of " + common.Clean(s.Continues))
		}
		for _, mk := range s.Marks {
			text.WriteString("  " + mk)
		}
		text.WriteString("  " + st.Muted.Render(common.Clean(e.ID)))
		indent := common.Width(head)
		for i, l := range strings.Split(common.Wrap(text.String(), max(w-indent, 10)), "\n") {
			if i == 0 {
				out = append(out, head+l)
			} else {
				out = append(out, strings.Repeat(" ", indent)+l)
			}
		}
	}
	return out
}

// View renders the box.
func (m Model) View() string {
	w := max(min(m.width-4, 140), 30)
	return common.ListBox(m.Styles, m.scroll, w, m.room(), m.title, m.lines(w-4), "no executions",
		"esc, q or "+m.Keys.Timeline.Help().Key+" to close · oldest first · › the row you were on", m.note)
}
