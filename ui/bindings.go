package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/ui/components/copymenu"
	"github.com/exectriage/exectriage/ui/components/markdialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/window"
)

// A binding is one key of the root as data, as lazygit's controllers give theirs: the key it
// answers to (from the KeyMap, so a rebinding moves it), when it applies, why the session has
// it off (the one rule the key refuses with and the help screen marks "(off)" from), and what
// it does. Dialogs, the filter prompt and the overlays take their keys before these; the
// focused pane's navigation after.
type binding struct {
	key func(*keys.KeyMap) *key.Binding
	// when says the row applies now (nil: always)
	when func(*Model) bool
	// selection says it acts on the selected execution: with none, the key says so
	selection bool
	// off says why the session has the key off ("" when it is on); it does not depend on the
	// selection
	off func(*Model) string
	do  func(*Model, pressed) tea.Cmd
}

// pressed is a key as a binding gets it: the key, whether it answers the quit question,
// and the selection (for a binding that acts on one).
type pressed struct {
	k     tea.KeyPressMsg
	asked bool
	e     *model.Execution
	t     *model.Triage
	it    window.Item
}

// rootBindings are the root's keys, in the order they are tried.
func rootBindings() []binding {
	onList := func(m *Model) bool { return m.focus == focusList }
	toggle := func(flip func(*window.View)) func(*Model, pressed) tea.Cmd {
		return func(m *Model, _ pressed) tea.Cmd {
			flip(&m.view)
			return m.reselect()
		}
	}
	return []binding{
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Quit }, do: func(m *Model, p pressed) tea.Cmd { return m.quit(p.asked) }},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Timeline }, do: (*Model).timelineKey},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Log }, do: func(m *Model, _ pressed) tea.Cmd {
			m.showLog = true
			m.msgLog.Open(m.status.Log())
			return nil
		}},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Help }, do: func(m *Model, _ pressed) tea.Cmd {
			m.showHelp = true
			m.helpView.Reset()
			return nil
		}},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Filter }, do: func(m *Model, _ pressed) tea.Cmd {
			m.setFocus(focusList)
			cmd := m.filter.Open()
			m.relayout()
			return cmd
		}},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Back }, do: func(m *Model, _ pressed) tea.Cmd {
			switch {
			case m.focus != focusList:
				m.setFocus(focusList)
			case len(m.data.Picked) > 0:
				clear(m.data.Picked)
				m.sayPicked()
			case !m.query.Empty():
				m.filter.Reset()
				return m.setQuery("")
			}
			return nil
		}},
		{
			key: func(km *keys.KeyMap) *key.Binding { return &km.Flagged },
			do:  toggle(func(v *window.View) { v.FlaggedOnly = !v.FlaggedOnly }),
		},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Writes }, do: toggle(func(v *window.View) { v.WritesOnly = !v.WritesOnly })},
		{
			key: func(km *keys.KeyMap) *key.Binding { return &km.Duplicates },
			do:  toggle(func(v *window.View) { v.Duplicates = !v.Duplicates }),
		},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.BestMatch }, do: (*Model).bestMatchKey},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.NextPane }, do: func(m *Model, _ pressed) tea.Cmd {
			m.setFocus((m.focus + 1) % 3)
			return nil
		}},
		{
			key:  func(km *keys.KeyMap) *key.Binding { return &km.NextMatch },
			when: onList,
			do:   func(m *Model, _ pressed) tea.Cmd { return m.jumpMatch(1) },
		},
		{
			key:  func(km *keys.KeyMap) *key.Binding { return &km.PrevMatch },
			when: onList,
			do:   func(m *Model, _ pressed) tea.Cmd { return m.jumpMatch(-1) },
		},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Refresh }, do: func(m *Model, _ pressed) tea.Cmd {
			if m.load.loading {
				m.setInfo("already loading")
				return nil
			}
			return m.startLoad(m.opt.Since, false)
		}},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Follow }, do: (*Model).followKey},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Views }, do: (*Model).viewsKey},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Mouse }, do: func(m *Model, _ pressed) tea.Cmd {
			m.mouse = !m.mouse
			m.updateListChrome()
			if m.mouse {
				m.setInfo("mouse capture on (%s to release it for text selection)", m.key(m.Keys.Mouse))
			} else {
				m.setInfo("mouse capture off")
			}
			return nil
		}},
		// actions on the selection
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Pick }, selection: true, when: onList, do: (*Model).pickKey},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.PickAll }, when: onList, do: (*Model).pickAllKey},
		{
			key:       func(km *keys.KeyMap) *key.Binding { return &km.Verify },
			selection: true,
			off:       func(m *Model) string { return m.readProblem },
			do:        (*Model).verifyKey,
		},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Retry }, selection: true, off: (*Model).journalOff, do: (*Model).retryKey},
		{
			key:       func(km *keys.KeyMap) *key.Binding { return &km.Mark },
			selection: true,
			off:       (*Model).journalOff,
			do: func(m *Model, p pressed) tea.Cmd {
				if len(m.data.Picked) > 0 {
					return m.markPicked()
				}
				m.mark.Open(
					p.e.ID,
					p.e.ID+" · "+p.e.ToolSlug+" · "+string(p.t.Kind)+" · "+string(p.t.Outcome),
					m.be.VerdictsFor(p.e, p.t),
					m.data.Verdicts[p.e.ID],
				)
				m.mark.SetSize(m.width, m.height)
				return nil
			},
		},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Bundle }, selection: true, do: func(m *Model, _ pressed) tea.Cmd {
			m.setInfo("writing a support bundle…")
			ids := m.selectionIDs()
			return bundleCmd(m.ctx, m.be, ids, m.bundleItems(ids), false)
		}},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.CopyID }, selection: true, do: (*Model).copyMenuKey},
		{
			key:       func(km *keys.KeyMap) *key.Binding { return &km.CopyBundle },
			selection: true,
			do:        func(m *Model, _ pressed) tea.Cmd { return m.copyBundle() },
		},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Dashboard }, selection: true, do: (*Model).dashboardKey},
		{key: func(km *keys.KeyMap) *key.Binding { return &km.Reveal }, selection: true, do: func(m *Model, p pressed) tea.Cmd {
			if m.revealID == p.e.ID {
				m.revealID = ""
				m.setInfo("secrets of %s hidden again", p.e.ID)
			} else {
				m.revealID = p.e.ID
				m.setInfo("secrets of %s shown on screen (the API key stays hidden): %s or moving the selection hides them", p.e.ID,
					m.Keys.Reveal.Help().Key)
			}
			m.refreshPanes()
			return nil
		}},
	}
}

// runBinding runs the root's binding of k, if one applies (ok false: none does; the focused
// pane takes the key).
func (m *Model) runBinding(k tea.KeyPressMsg, asked bool) (tea.Cmd, bool) {
	for _, b := range m.bindings {
		if !key.Matches(k, *b.key(m.Keys)) || b.when != nil && !b.when(m) {
			continue
		}
		p := pressed{k: k, asked: asked}
		if b.selection {
			var ok bool
			if p.e, p.t, ok = m.selectedExec(); !ok {
				m.status.Set(statusline.Warn, "nothing selected")
				return nil, true
			}
			_, p.it, _ = m.selected()
		}
		if b.off != nil {
			if why := b.off(m); why != "" {
				m.status.Set(statusline.Warn, k.String()+" is off: "+why)
				return nil, true
			}
		}
		return b.do(m, p), true
	}
	return nil, false
}

// isOff reports a binding the session has off (the help screen's "(off)"): the rule its key
// refuses with.
func (m *Model) isOff(kb key.Binding) bool {
	for _, b := range m.bindings {
		if b.off != nil && b.key(m.Keys).Help() == kb.Help() {
			return b.off(m) != ""
		}
	}
	return false
}

// journalOff is why retry and mark are off: a read-only session, or a journal that could not
// be opened.
func (m *Model) journalOff() string {
	switch {
	case m.readOnly:
		return phrase.ReadOnlyWrites
	case m.journalProblem != "":
		return "the journal could not be opened (" + m.journalProblem + "); fix it and restart exectriage"
	}
	return ""
}

func (m *Model) timelineKey(pressed) tea.Cmd {
	e, _, ok := m.selectedExec()
	if !ok {
		return nil
	}
	switch {
	case e.SessionID != "":
		m.setInfo("lining up session %s…", e.SessionID)
		return timelineCmd(m.ctx, m.be, m.data.DS, "session", e.SessionID, e.ID)
	case e.TraceID != "":
		m.setInfo("lining up trace %s…", e.TraceID)
		return timelineCmd(m.ctx, m.be, m.data.DS, "trace", e.TraceID, e.ID)
	case !m.data.Full(e.ID):
		m.setInfo("the full record of %s is still coming: %s again in a moment", e.ID, m.key(m.Keys.Timeline))
		return m.fetchDetail(e.ID)
	}
	m.setInfo("%s has no session or trace id: nothing to line up", e.ID)
	return nil
}

func (m *Model) bestMatchKey(pressed) tea.Cmd {
	m.view.BestMatch = !m.view.BestMatch
	if m.view.BestMatch && !m.query.Scored() {
		m.setInfo("best match orders a filter's matches: type / and some text")
	}
	if m.view.BestMatch && m.query.Scored() {
		m.keepID = "" // the cursor goes to the best match, not along with the row it was on
	}
	return m.reselect()
}

func (m *Model) followKey(pressed) tea.Cmd {
	m.follow = !m.follow
	m.paused, m.newRows = false, 0
	m.updateListChrome()
	if !m.follow {
		m.setInfo("follow off")
		return nil
	}
	m.setInfo("follow on: refreshing every %s; the cursor on the newest row stays on the newest", m.opt.FollowEvery)
	m.followTag++
	return followCmd(m.followTag, m.opt.FollowEvery)
}

func (m *Model) verifyKey(p pressed) tea.Cmd {
	if len(m.data.Picked) > 0 {
		return m.verifyPicked(p.asked)
	}
	if m.data.Verifying[p.e.ID] {
		return nil
	}
	m.data.Verifying[p.e.ID] = true
	m.setInfo("checking the provider for %s…", p.e.ID)
	m.refreshPanes()
	return tea.Batch(verifyCmd(m.ctx, m.be, *p.e), m.startSpinner())
}

func (m *Model) retryKey(p pressed) tea.Cmd {
	if len(m.data.Picked) > 0 {
		m.status.Set(
			statusline.Warn,
			"a retry is one execution at a time, each after its own confirmation: clear the selection (esc) and retry one row",
		)
		return nil
	}
	if p.it.Kind == window.ItemGroup {
		m.status.Set(statusline.Warn, "select one member of the group to retry (a retry is for one execution)")
		return nil
	}
	if m.data.Retrying[p.e.ID] {
		m.status.Set(statusline.Warn, "a retry of "+p.e.ID+" is already running")
		return nil
	}
	m.retry.Open(p.e.ID)
	m.retry.SetSize(m.width, m.height)
	return tea.Batch(evidenceCmd(m.ctx, m.be, *p.e, *p.t), m.startSpinner())
}

func (m *Model) copyMenuKey(p pressed) tea.Cmd {
	e := p.e
	rec := *e // the texts are made off the loop, from this copy
	items := []copymenu.Item{{Label: "log id", Text: e.ID}}
	if e.RequestID != "" {
		items = append(items, copymenu.Item{Label: "request id", Text: e.RequestID})
	}
	items = append(
		items,
		copymenu.Item{Label: "record (JSON, secrets redacted)", Make: func() string { return m.be.RecordJSON(&rec) }, Block: true},
		copymenu.Item{
			Label: "curl reproduction (no key: $COMPOSIO_API_KEY)",
			Make:  func() string { return m.be.CurlFor(&rec).String() },
			Block: true,
		},
		copymenu.Item{Label: "support bundle", Deferred: true},
	)
	if addr, err := m.be.DashboardURL(e.ID); err == nil {
		items = append(items, copymenu.Item{Label: "dashboard URL", Text: addr})
	}
	m.copyMenu.Open(items)
	m.copyMenu.SetSize(m.width, m.height)
	return nil
}

func (m *Model) dashboardKey(p pressed) tea.Cmd {
	if p.it.Kind == window.ItemGroup {
		m.status.Set(statusline.Warn, "select one member of the group to open it in the dashboard")
		return nil
	}
	addr, err := m.be.DashboardURL(p.e.ID)
	if err != nil {
		m.status.Set(statusline.Warn, p.k.String()+": "+err.Error())
		return nil
	}
	m.setInfo("opening %s in the dashboard…", p.e.ID)
	return openCmd(m.ctx, m.be, p.e.ID, addr)
}

// pickKey adds the selected execution to the rows marked or verified at once, or takes it out,
// and moves to the next row (as space does in file managers).
func (m *Model) pickKey(p pressed) tea.Cmd {
	if p.it.Kind == window.ItemGroup {
		for _, id := range m.selectionIDs() {
			m.togglePick(id)
		}
	} else {
		m.togglePick(p.e.ID)
	}
	m.list.Move(1)
	m.sayPicked()
	return m.selectionChanged()
}

func (m *Model) togglePick(id string) {
	if m.data.Picked[id] {
		delete(m.data.Picked, id)
	} else {
		m.data.Picked[id] = true
	}
}

// pickAllKey selects every execution shown, or clears the selection when all are selected.
func (m *Model) pickAllKey(pressed) tea.Cmd {
	items := m.list.Items()
	var ids []string
	for i := range items.Len() {
		if it := items.At(i); it.Kind != window.ItemGroup {
			ids = append(ids, m.data.DS.ID(int(it.Exec)))
		}
	}
	all := len(ids) > 0
	for _, id := range ids {
		all = all && m.data.Picked[id]
	}
	for _, id := range ids {
		if all {
			delete(m.data.Picked, id)
		} else {
			m.data.Picked[id] = true
		}
	}
	m.sayPicked()
	return nil
}

func (m *Model) sayPicked() {
	m.updateListChrome()
	if n := len(m.data.Picked); n > 0 {
		m.setInfo("%d selected: %s marks them, %s checks their provider (esc clears)", n, m.key(m.Keys.Mark), m.key(m.Keys.Verify))
	} else {
		m.setInfo("selection cleared")
	}
}

// pickedRows are the selected executions with their triage, newest first: looked up by id
// (the selection is small; the dataset may hold a million rows).
func (m *Model) pickedRows() (execs []model.Execution, triages []model.Triage) {
	ds := m.data.DS
	pos := make([]int, 0, len(m.data.Picked))
	for id := range m.data.Picked {
		if i := ds.Index(id); i >= 0 {
			pos = append(pos, i)
		}
	}
	slices.Sort(pos)
	for _, i := range pos {
		execs, triages = append(execs, ds.Exec(i)), append(triages, ds.Triage(i))
	}
	return execs, triages
}

// markPicked opens the mark dialog for the selection: the verdicts that fit at least one row;
// each row the chosen verdict fits is marked (journalled one by one), the others are skipped,
// and the dialog says how many of each before anything is recorded.
func (m *Model) markPicked() tea.Cmd {
	execs, triages := m.pickedRows()
	fits := map[model.Verdict]int{}
	for i := range execs {
		for _, v := range m.be.VerdictsFor(&execs[i], &triages[i]) {
			fits[v]++
		}
	}
	var choices []model.Verdict
	for _, v := range model.Verdicts() {
		if fits[v] > 0 {
			choices = append(choices, v)
		}
	}
	if len(choices) == 0 {
		m.status.Set(statusline.Warn, "no verdict fits the selected rows")
		return nil
	}
	title := fmt.Sprintf("%d selected executions: the verdict is recorded on each it fits, one by one", len(execs))
	var parts []string
	for _, v := range choices {
		if fits[v] < len(execs) {
			parts = append(parts, fmt.Sprintf("%s fits %d", v, fits[v]))
		}
	}
	if len(parts) > 0 {
		title += " (" + strings.Join(parts, ", ") + "; the others are skipped)"
	}
	m.mark.Open(markdialog.Many, title, choices, "")
	m.mark.SetSize(m.width, m.height)
	return nil
}

// verifyPicked checks the provider for every selected write: the first press says how many
// read tools it will run, a second one runs them.
func (m *Model) verifyPicked(again bool) tea.Cmd {
	execs, triages := m.pickedRows()
	var writes []model.Execution
	for i := range execs {
		if triages[i].Kind != model.KindRead && !m.data.Verifying[execs[i].ID] {
			writes = append(writes, execs[i])
		}
	}
	if len(writes) == 0 {
		m.status.Set(statusline.Warn, "the selection has no write to check (a read has no effect)")
		return nil
	}
	if !m.confirmVerify {
		m.confirmVerify = true
		m.status.Set(
			statusline.Warn,
			fmt.Sprintf("check %d selected write(s) with their provider (%d read tool runs, within the rate limit)? press %s again",
				len(writes), len(writes), m.key(m.Keys.Verify)),
		)
		return nil
	}
	m.confirmVerify = false
	cmds := make([]tea.Cmd, 0, len(writes))
	for _, e := range writes {
		m.data.Verifying[e.ID] = true
		cmds = append(cmds, verifyCmd(m.ctx, m.be, e))
	}
	m.setInfo("checking the provider for %d selected write(s)…", len(writes))
	m.refreshPanes()
	// One after another (within the rate limit), each answer shown as the single check's is.
	all := func() tea.Msg {
		out := make(tea.BatchMsg, len(cmds))
		for i, c := range cmds {
			msg := c()
			out[i] = func() tea.Msg { return msg }
		}
		return out
	}
	return tea.Batch(all, m.startSpinner())
}

// viewsKey opens the menu of the saved views (the config's, then the team's) (and "no view", which clears one).
func (m *Model) viewsKey(pressed) tea.Cmd {
	if len(m.opt.Views) == 0 {
		m.status.Set(
			statusline.Warn,
			"no saved views: add [views.NAME] with filter = \"…\" and show = \"all|flagged|duplicates\" to the config, or keep one for "+
				"the team: exectriage view save NAME --filter …",
		)
		return nil
	}
	items := make([]copymenu.Item, 0, len(m.opt.Views)+1)
	for _, v := range m.opt.Views {
		items = append(items, copymenu.Item{Label: v.Name, Text: cmpShow(v), Choose: func() tea.Msg { return viewChosenMsg{name: v.Name} }})
	}
	items = append(items, copymenu.Item{Label: "no view", Text: "every row, no filter", Choose: func() tea.Msg { return viewChosenMsg{} }})
	m.copyMenu.OpenMenu("Saved views", "shows the view", items)
	m.copyMenu.SetSize(m.width, m.height)
	return nil
}

func cmpShow(v SavedView) string {
	show := cmp.Or(v.Show, "all")
	if v.Team {
		show = "team's · " + show
	}
	return show + "  " + v.Filter
}

// viewChosenMsg asks for a saved view ("" : none).
type viewChosenMsg struct{ name string }

// applyView shows a saved view: its filter in the prompt and its rows (flagged writes or
// duplicate groups); the header names it. "" clears the view.
func (m *Model) applyView(name string) tea.Cmd {
	v := SavedView{}
	if name != "" {
		i := slices.IndexFunc(m.opt.Views, func(v SavedView) bool { return v.Name == name })
		if i < 0 {
			m.status.Set(statusline.Warn, "no saved view "+name)
			return nil
		}
		v = m.opt.Views[i]
	}
	m.header.SavedView = v.Name
	m.view.FlaggedOnly, m.view.Duplicates = v.Show == "flagged", v.Show == "duplicates"
	m.filter.SetText(v.Filter)
	if name == "" {
		m.setInfo("no saved view: every row")
	} else {
		m.setInfo("view %s: %s", v.Name, cmpShow(v))
	}
	return m.setQuery(v.Filter)
}
