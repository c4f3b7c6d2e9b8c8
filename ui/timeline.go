package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/timeline"
	"github.com/exectriage/exectriage/window"
)

// openTimeline shows a session's (or trace's) executions in the order they ran: the window's
// with their triage, the records only the API had without.
func (m *Model) openTimeline(msg timelineMsg) tea.Cmd {
	if msg.err != nil {
		m.setError(msg.err)
	}
	ds := m.data.DS
	byID := map[string]timeline.Step{}
	add := func(e model.Execution) {
		s := timeline.Step{Exec: e, Current: e.ID == msg.current}
		if i := ds.Index(e.ID); i >= 0 {
			t := ds.Triage(i)
			s.Triage = &t
			if g := ds.Group(i); g != nil {
				s.Marks = append(s.Marks, "DUP×"+common.Count(len(g.ExecutionIDs))+" "+string(g.Pattern))
			}
		}
		if orig, ok := m.data.RetryOf[e.ID]; ok {
			s.Marks = append(s.Marks, "RETRY OF "+orig)
		}
		if st := m.data.RetryState(e.ID); st != "" {
			s.Marks = append(s.Marks, "RETRY "+strings.ToUpper(string(st)))
		}
		if ps, ok := m.data.Provider[e.ID]; ok {
			s.Marks = append(s.Marks, "VERIFIED:"+string(ps.State))
		}
		if v, ok := m.data.Verdicts[e.ID]; ok {
			s.Marks = append(s.Marks, "MARKED:"+string(v))
		}
		byID[e.ID] = s
	}
	if msg.ds == ds {
		for _, i := range msg.pos {
			add(*m.data.Exec(i))
		}
	}
	for _, e := range msg.found {
		add(e)
	}
	for _, e := range m.data.Details { // full records fetched so far carry the ids the list lacks
		if msg.field == "session" && e.SessionID == msg.id || msg.field == "trace" && e.TraceID == msg.id {
			if _, ok := byID[e.ID]; !ok {
				add(e)
			}
		}
	}
	// the order, the meta tools' children under their parents and the gaps: triage.Timeline,
	// as the bundle and show --session have them
	execs := make([]model.Execution, 0, len(byID))
	for _, s := range byID {
		execs = append(execs, s.Exec)
	}
	ordered := make([]timeline.Step, 0, len(execs))
	for _, ts := range triage.Timeline(execs) {
		s := byID[execs[ts.Index].ID]
		s.Child, s.Gap, s.HasGap, s.Continues = ts.Child, ts.Gap, ts.HasGap, ts.Continues
		ordered = append(ordered, s)
	}
	what := "Session " + msg.id
	if msg.field == "trace" {
		what = "Trace " + msg.id
	}
	note := ""
	if msg.field == "trace" && m.be.SourceKind() != model.SourceFile {
		note = "a trace's executions are those of the loaded window whose full record is at hand"
	}
	m.timeline.Open(fmt.Sprintf("%s · %d executions", what, len(ordered)), ordered, note)
	m.showTime = true
	m.setInfo("%s: %d executions, oldest first", strings.ToLower(what), len(ordered))
	return nil
}

// jumpMatch moves the cursor to the next (dir 1) or previous (-1) row whose execution the
// filter matched, past group headers and the members a group shows beside its matches; at an
// end it wraps and says so.
func (m *Model) jumpMatch(dir int) tea.Cmd {
	if m.query.Empty() {
		m.setInfo(
			"%s and %s move between a filter's matches: type %s first",
			m.key(m.Keys.NextMatch),
			m.key(m.Keys.PrevMatch),
			m.key(m.Keys.Filter),
		)
		return nil
	}
	items := m.list.Items()
	if items.Len() == 0 {
		return nil
	}
	matched := func(it window.Item) bool { return it.Kind != window.ItemGroup }
	if m.view.Duplicates && m.sel.lastDS == m.data.DS && m.sel.lastQ.String() == m.query.String() {
		pos := m.sel.lastPos // increasing: the duplicates view is never ranked (View.Ranks)
		matched = func(it window.Item) bool {
			_, ok := slices.BinarySearch(pos, int(it.Exec))
			return it.Kind != window.ItemGroup && ok
		}
	}
	cur, n := m.list.Cursor(), items.Len()
	for step := 1; step < n; step++ {
		i := ((cur+dir*step)%n + n) % n
		if !matched(items.At(i)) {
			continue
		}
		m.list.Move(i - cur)
		cmd := m.selectionChanged()
		if dir > 0 && i < cur || dir < 0 && i > cur {
			m.setInfo("wrapped to the %s", map[bool]string{true: "top", false: "bottom"}[dir > 0])
		}
		return cmd
	}
	m.setInfo("no other match")
	return nil
}
