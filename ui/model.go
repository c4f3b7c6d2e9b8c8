// Package ui is exectriage's terminal UI (Bubble Tea v2). The root Model owns the screen
// size, the data store and every asynchronous request; it routes messages to one sub-model per
// pane and dialog (header, list, detail, provider, filter prompt, status line, help, retry and
// mark dialogs, in ui/components) the way gh-dash and soft-serve do. Anything slow (loading,
// triage, filtering, fetching details, verifying, retrying, writing bundles) runs in a tea.Cmd
// through the Backend; results carry a tag so a stale one is dropped.
package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/copymenu"
	"github.com/exectriage/exectriage/ui/components/detail"
	"github.com/exectriage/exectriage/ui/components/execlist"
	"github.com/exectriage/exectriage/ui/components/filterbar"
	"github.com/exectriage/exectriage/ui/components/header"
	"github.com/exectriage/exectriage/ui/components/helpview"
	"github.com/exectriage/exectriage/ui/components/markdialog"
	"github.com/exectriage/exectriage/ui/components/msglog"
	"github.com/exectriage/exectriage/ui/components/pane"
	"github.com/exectriage/exectriage/ui/components/provider"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/ui/components/timeline"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/window"
)

// focus is which pane receives keys.
type focus int

const (
	focusList focus = iota
	focusDetail
	focusProvider
)

// Model is the root model.
type Model struct {
	common.Common
	ctx  context.Context
	be   Backend
	opt  Options
	data *data.Store
	// journalProblem is why the journal could not be opened: r and m refuse with it.
	journalProblem string
	readOnly       bool   // no retry, no verdict (--readonly)
	readProblem    string // why v may not run ("" when it may)

	width, height int
	lay           layout

	header   header.Model
	list     execlist.Model
	detail   pane.Model
	provider pane.Model
	filter   filterbar.Model
	status   statusline.Model
	help     help.Model
	helpView helpview.Model
	msgLog   msglog.Model
	showLog  bool
	timeline timeline.Model
	showTime bool
	retry    retrydialog.Model
	mark     markdialog.Model
	copyMenu copymenu.Model
	spin     spinner.Model
	spinning bool

	focus    focus
	showHelp bool
	// quitAsked: a quit key asked whether to leave while a retry is being sent; the next key
	// answers (a quit key leaves, any other stays).
	quitAsked bool
	mouse     bool
	follow    bool
	paused    bool
	newRows   int // rows that came above the cursor while follow was paused
	// confirmVerify: v was pressed once on a selection; a second v runs the checks.
	confirmVerify bool

	// bindings are the root's keys as data (bindings.go); overlays the screens over the list
	// that take the keys first, the top first (overlays.go)
	bindings []binding
	overlays []overlay
	// load is the load pipeline: pages in, the window's builder, analyses out (load.go)
	load loader
	// sameFrame says that the last Update changed nothing on the screen: Render gives frame,
	// the last one it made, again. Update clears it first, so any message it does not know
	// to be invisible renders anew.
	sameFrame bool
	frame     string
	refreshed time.Time

	// list rows: the view and query asked for, and the selection of rows for them (selector.go)
	view  window.View
	query filter.Query
	sel   selector
	// hlQuery and hlDS are what the list's Highlight was made for (updateListChrome).
	hlQuery   string
	hlDS      *window.Dataset
	rowsMoved bool // selectionChanged runs for rows that changed by themselves, not for a key
	// deferred are the keys that act on rows, kept while the selection a key asked for is
	// made (selector.pending), so that "/ id:x enter r" retries x, not whatever row 0 was
	// before the filter landed.
	deferred  []tea.KeyPressMsg
	keepID    string
	keepKind  window.ItemKind
	detailTag int
	fetching  map[string]bool

	followTag int

	// last support bundle, for Y
	bundleIDs  []string
	bundleText string

	// secrets hides secrets in the panes and the status line; detailR renders the detail pane
	// (and caches its costly bodies).
	secrets *redact.Policy
	detailR detail.Renderer
	// revealID is the execution whose secrets the person chose to see (x); "" when none. It
	// is cleared when the selection moves.
	revealID string
}

// New returns the root model over a backend. ctx bounds every request it starts.
func New(ctx context.Context, be Backend, opt Options) *Model {
	opt = opt.withDefaults()
	st := styles.New(*opt.Theme)
	c := common.Common{Styles: st, Keys: opt.Keys, Now: opt.Now}
	store := data.NewStore()
	m := &Model{
		Common:   c,
		ctx:      ctx,
		be:       be,
		opt:      opt,
		data:     store,
		header:   header.New(c, store),
		list:     execlist.New(c, store),
		detail:   pane.New(c, "Detail"),
		provider: pane.New(c, "Provider state"),
		filter:   filterbar.New(c),
		status:   statusline.New(c),
		help:     help.New(),
		helpView: helpview.New(c),
		msgLog:   msglog.New(c),
		timeline: timeline.New(c),
		retry:    retrydialog.New(c),
		mark:     markdialog.New(c),
		copyMenu: copymenu.New(c),
		spin:     spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Info)),
		mouse:    opt.Mouse,
		follow:   opt.Follow,
		fetching: map[string]bool{},
		secrets:  be.Policy(),
		load:     newLoader(be.NewFeed(), opt.Memory, opt.IdleGC),
		sel:      selector{ctx: ctx},
		bindings: rootBindings(),
		overlays: rootOverlays(),
		// a free-text filter's matches best first, time order a key away (s)
		view: window.View{BestMatch: true},
	}
	m.detailR.Secrets = m.secrets
	m.list.Secrets = m.secrets
	m.status.Hide = func(s string) string { return m.secrets.Text(s, false) }
	m.help.Styles = st.Help
	m.header.Source = be.SourceName()
	m.journalProblem = be.JournalProblem()
	m.readOnly = be.ReadOnly()
	if err := be.CheckRead(); err != nil {
		m.readProblem = err.Error()
	}
	m.header.ReadOnly = m.readOnly
	m.helpView.Off = m.isOff
	p := be.Profile()
	m.header.Profile, m.header.Production, m.header.ProfileColour = p.Name, p.Production, p.Colour
	m.header.NoJournal = m.journalProblem != "" && !m.readOnly
	switch be.SourceKind() {
	case model.SourceLive:
		m.header.Kind = header.KindLive
	case model.SourceFile:
		m.header.Kind = header.KindFile
	}
	m.list.SetFocused(true)
	m.list.Empty = "loading…"
	if opt.Notice != "" {
		m.status.Set(statusline.Warn, opt.Notice)
	}
	return m
}

// Init starts the first load and reads the journal.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.startLoad(m.opt.Since, true), journalAllCmd(m.ctx, m.be)}
	if m.opt.View != "" {
		cmds = append(cmds, m.applyView(m.opt.View))
	}
	if m.follow {
		m.followTag++
		cmds = append(cmds, followCmd(m.followTag, m.opt.FollowEvery))
	}
	return tea.Batch(cmds...)
}

// startLoad begins a streaming load. A refresh (full false) loads only what is newer than the
// newest record (with an overlap for records that changed status) and merges it.
func (m *Model) startLoad(since time.Duration, full bool) tea.Cmd {
	if !full && m.data.DS.Len() > 0 {
		// Everything since the newest record, plus ten minutes: long calls finish late.
		newest := m.data.DS.Timestamp(0)
		inc := m.Now().Sub(newest) + 10*time.Minute
		if since <= 0 || inc < since {
			since = inc
		}
	}
	m.header.Loading, m.header.Loaded, m.header.Pages = true, 0, 0
	return tea.Batch(m.load.start(m.ctx, since), m.startSpinner())
}

// scheduleAnalyze has the loader analyse the pages received (loader.analyze); the header says
// when that analysis finds the groups.
func (m *Model) scheduleAnalyze() tea.Cmd {
	cmd := m.load.analyze(m.ctx, m.data.DS.Len())
	if cmd == nil {
		return nil
	}
	m.header.Grouping = m.load.grouping
	if m.load.grouping {
		return tea.Batch(cmd, m.startSpinner())
	}
	return cmd
}

// reselect rebuilds the list's rows off the loop, keeping the selected execution (the top
// when it is not among them).
func (m *Model) reselect() tea.Cmd { return m.reselectAt(-1) }

// reselectAt is reselect for the same query over a new dataset: when the selected execution
// left the rows, the cursor stays where it was (at, its row), on the row that came next.
func (m *Model) reselectAt(at int) tea.Cmd {
	cmd := m.sel.request(m.data.DS, m.view, m.query, m.keepID, m.keepKind, at)
	m.updateListChrome() // says "matching…" until the rows come
	return cmd
}

// lastSelTag is the tag of the last selection result installed (tests wait on it).
func (m *Model) lastSelTag() int { return m.sel.done }

// rowsBehind says the installed rows were selected for another query or view than the one
// the title and the prompt name: a selection for them is on its way.
func (m *Model) rowsBehind() bool { return m.sel.behind(m.query, m.view) }

func (m *Model) busy() bool {
	return m.load.busy() || len(m.data.Verifying) > 0 || len(m.data.Retrying) > 0 || m.retry.Busy()
}

func (m *Model) startSpinner() tea.Cmd {
	if m.spinning {
		return nil
	}
	m.spinning = true
	return m.spin.Tick
}

// selected returns the selected list row's execution index (-1 when none) and the row.
func (m *Model) selected() (int, window.Item, bool) {
	it, ok := m.list.Selected()
	if !ok || int(it.Exec) >= m.data.DS.Len() {
		return -1, window.Item{}, false
	}
	return int(it.Exec), it, true
}

func (m *Model) selectedExec() (*model.Execution, *model.Triage, bool) {
	i, _, ok := m.selected()
	if !ok {
		return nil, nil, false
	}
	t := m.data.DS.Triage(i)
	return m.data.Exec(i), &t, true
}

// selectionChanged records the selection, refreshes the panes and, once the selection rests,
// fetches the full record and the journal history.
func (m *Model) selectionChanged() tea.Cmd {
	i, it, ok := m.selected()
	if !ok || m.data.DS.ID(i) != m.revealID {
		m.revealID = "" // revealed secrets hide again as soon as the selection moves
	}
	m.refreshPanes()
	if !ok {
		return nil
	}
	id := m.data.DS.ID(i)
	if id == m.keepID && it.Kind == m.keepKind {
		return nil
	}
	if l, _ := m.status.Text(); l == statusline.Info && !m.rowsMoved {
		m.status.Clear() // a message about the previous selection
		m.updateListChrome()
	}
	m.keepID, m.keepKind = id, it.Kind
	m.detailTag++
	tag := m.detailTag
	return tea.Tick(m.opt.DetailDelay, func(time.Time) tea.Msg { return detailTickMsg{tag: tag, id: id} })
}

func (m *Model) fetchDetail(id string) tea.Cmd {
	var cmds []tea.Cmd
	i := m.data.DS.Index(id)
	if i >= 0 && !m.data.Full(id) && !m.fetching[id] {
		m.fetching[id] = true
		cmds = append(cmds, detailCmd(m.ctx, m.be, id))
	}
	cmds = append(cmds, journalCmd(m.ctx, m.be, id))
	m.refreshPanes()
	return tea.Batch(cmds...)
}

// refreshPanes rebuilds the detail and provider panes' content for the selection.
func (m *Model) refreshPanes() {
	i, _, ok := m.selected()
	id := ""
	if ok {
		id = m.data.DS.ID(i)
	} else {
		i = -1
	}
	reveal := m.revealed(id)
	m.detail.Title = "Detail"
	if reveal {
		m.detail.Title = "Detail · secrets shown: " + m.Keys.Reveal.Help().Key + " hides"
	}
	m.detail.SetContent(id, m.detailR.Content(m.Styles, m.data, i, m.fetching[id], reveal))
	m.provider.SetContent(id, provider.Content(m.Styles, m.data, i, m.spin.View(), m.secrets, reveal, m.key(m.Keys.Verify)))
	m.updateListChrome()
}

// revealed reports whether the person chose to see the secrets of execution id.
func (m *Model) revealed(id string) bool { return id != "" && id == m.revealID }

// updateListChrome sets the list's title and the status line's modes from the toggles.
func (m *Model) updateListChrome() {
	title := "Executions"
	if m.view.Duplicates {
		title = "Duplicate groups"
	}
	var notes []string
	if m.view.FlaggedOnly {
		notes = append(notes, "flagged")
	}
	if m.view.WritesOnly {
		notes = append(notes, "writes")
	}
	if q := m.query.String(); q != "" {
		notes = append(notes, "/"+q)
	}
	if n := len(m.data.Picked); n > 0 {
		notes = append(notes, fmt.Sprintf("%d selected", n))
	}
	if m.rowsBehind() {
		notes = append(notes, "matching…") // the rows below are still the previous query's or view's
	}
	switch {
	case !m.view.BestMatch || m.view.Duplicates || !m.query.Scored():
	case m.sel.ranked && m.sel.hidden > 0:
		notes = append(notes, fmt.Sprintf("best match first · %s matching only scattered letters hidden (%s: all, newest first)",
			common.Count(m.sel.hidden), m.Keys.BestMatch.Help().Key))
	case m.sel.ranked:
		notes = append(notes, "best match first")
	case len(m.sel.lastPos) > window.MaxRanked:
		notes = append(notes, fmt.Sprintf("newest first: over %s matches to rank", common.Count(window.MaxRanked)))
	}
	m.list.Title = title
	m.list.Note = strings.Join(notes, " ")
	switch {
	case m.load.failed && m.data.DS.Len() == 0:
		m.list.Empty = "nothing loaded: the status line says why; R tries again"
	case m.load.loading && m.data.DS.Len() == 0:
		m.list.Empty = "loading…"
	case m.view.Duplicates:
		m.list.Empty = "no duplicate groups match"
	case m.filter.Hint != "":
		m.list.Empty = "no executions match: " + m.filter.Hint
	default:
		m.list.Empty = "no executions match"
	}
	var modes []string
	if m.view.FlaggedOnly {
		modes = append(modes, "a flagged")
	}
	if m.view.WritesOnly {
		modes = append(modes, "w writes")
	}
	if m.view.Duplicates {
		modes = append(modes, "d dups")
	}
	if m.view.BestMatch && m.query.Scored() { // in effect only while free text orders the matches
		modes = append(modes, m.Keys.BestMatch.Help().Key+" best match")
	}
	if m.follow {
		if m.paused {
			modes = append(modes, "F paused")
		} else {
			modes = append(modes, "F follow")
		}
	}
	if m.mouse {
		modes = append(modes, "M mouse")
	}
	if m.revealID != "" {
		modes = append(modes, m.Keys.Reveal.Help().Key+" secrets shown")
	}
	m.status.Modes = modes
	m.status.Hint = m.hint()
	m.header.Follow, m.header.Paused, m.header.NewRows = m.follow, m.paused, m.newRows
	m.header.Spinner = m.spin.View()
	m.list.Spinner = m.spin.View()
	m.retry.Spinner = m.spin.View()
	switch {
	case m.query.Empty():
		m.list.Highlight, m.hlQuery, m.hlDS = nil, "", nil
	case m.query.String() != m.hlQuery || m.data.DS != m.hlDS:
		// A row's marks are worked out once per query and dataset (and again when its full
		// record arrives), not in every frame: View draws the visible rows at each key.
		m.hlQuery, m.hlDS = m.query.String(), m.data.DS
		q := m.query
		type marks struct {
			full bool
			at   map[string][]int
		}
		memo := map[int]marks{}
		m.list.Highlight = func(i int) map[string][]int {
			full := m.data.Full(m.data.DS.ID(i))
			if mk, ok := memo[i]; ok && mk.full == full {
				return mk.at
			}
			if len(memo) >= maxHighlightMemo {
				clear(memo)
			}
			at := q.HighlightRow(filter.FieldsOf(&filter.Row{Exec: m.data.Exec(i)}))
			memo[i] = marks{full, at}
			return at
		}
	}
}

// maxHighlightMemo bounds the rows whose filter marks are kept (a screen shows a few dozen).
const maxHighlightMemo = 4096

// key is the key a binding's help names: hints follow the config's [keys].
func (m *Model) key(b key.Binding) string { return b.Help().Key }

// offNote says why retry and mark are off in this session ("" when they are on).
func (m *Model) offNote() string {
	switch {
	case m.readOnly:
		return "retry and verdicts are off: read-only"
	case m.journalProblem != "":
		return "retry and verdicts are off: no journal"
	}
	return ""
}

// withOff marks the help bar's bindings this session has turned off: "r retry (off)".
func (m *Model) withOff(bs []key.Binding) []key.Binding {
	out := make([]key.Binding, len(bs))
	for i, b := range bs {
		if m.isOff(b) {
			h := b.Help()
			b.SetHelp(h.Key, h.Desc+" (off)")
		}
		out[i] = b
	}
	return out
}

// retryHint says where a retried execution stands, by its newest attempt's state.
func (m *Model) retryHint(id string, st model.AttemptState) string {
	switch st {
	case model.AttemptSucceeded:
		return "retried: the retry took effect · settled (the journal is in the provider pane)"
	case model.AttemptFailed:
		return "the retry failed and certainly did not take effect " +
			"· " + m.key(m.Keys.Verify) + " checks again, " + m.key(m.Keys.Retry) + " may retry once more"
	case model.AttemptIndeterminate:
		attempt, late := "ATTEMPT", ""
		if as := m.data.Attempts[id]; len(as) > 0 {
			attempt, late = as[0].ID, phrase.LateLogsText(as[0], m.Now()) // newest first: the attempt the case goes by
		}
		return "the retry's outcome is unknown: " + m.be.Hint("resolve", attempt) + " settles it before anything else" + late
	default:
		return "a retry is in flight (" + string(st) + "): wait for it; nothing else may be sent"
	}
}

// hint says what can be done with the selection, for the status line.
func (m *Model) hint() string {
	i, it, ok := m.selected()
	if !ok || m.retry.IsOpen() || m.mark.IsOpen() || m.copyMenu.IsOpen() {
		return "" // a dialog says it all; the row's hint would repeat it
	}
	if it.Kind == window.ItemGroup {
		return m.key(m.Keys.Open) + " folds the group · " + m.key(m.Keys.Bundle) + " bundles every member · select a member to verify or " +
			"retry it"
	}
	id, t := m.data.DS.ID(i), m.data.DS.Triage(i)
	ps, checked := m.data.Provider[id]
	switch {
	case t.Case != nil && t.Case.Retry != "":
		return m.retryHint(id, t.Case.Retry)
	case t.Case != nil && t.Case.Settled:
		return "settled: marked " + string(t.Case.Verdict) + " (the journal is in the provider pane)"
	case !t.Flagged:
		return ""
	case !checked:
		off := m.offNote()
		switch {
		case m.readProblem != "" && off != "":
			return "flagged write: provider checks are off (" + m.readProblem + "); " + off
		case m.readProblem != "":
			return "flagged write: provider checks are off (" + m.readProblem + ")"
		case off != "":
			return "flagged write: " + m.key(m.Keys.Verify) + " checks the provider (" + off + ")"
		}
		return "flagged write: " + m.key(m.Keys.Verify) + " checks the provider before any " +
			"retry (" + m.key(m.Keys.Retry) + ") or verdict (" + m.key(m.Keys.Mark) + ")"
	case m.offNote() != "":
		return "provider: " + string(ps.State) + " · " + m.offNote()
	case ps.State == model.ProviderFound:
		return "the provider shows the effect: do not retry; " + m.key(m.Keys.Mark) + " marks it confirmed_succeeded"
	default:
		return "provider: " + string(ps.State) + " · " + m.key(m.Keys.Retry) + " opens the guarded retry · " +
			m.key(m.Keys.Mark) + " records a verdict"
	}
}

// stageDataset makes ds the next dataset: its rows are selected off the loop and the two are
// installed together, so the list never indexes one dataset with another's rows.
func (m *Model) stageDataset(ds *window.Dataset) tea.Cmd {
	if len(m.data.Provider) > 0 && len(ds.Groups) > 0 {
		ds = withEffective(ds, m.data.Provider)
	}
	ds = ds.WithCases(m.data.Cases()) // the journal's cases, as every front shows them
	m.sel.nextDS = ds
	return m.reselectAt(m.list.Cursor())
}

// withEffective returns a shallow copy of ds whose groups count the effects the provider
// confirmed (the dataset itself is shared with running commands and never modified).
func withEffective(ds *window.Dataset, states map[string]model.ProviderState) *window.Dataset {
	cp := *ds
	cp.Groups = slices.Clone(ds.Groups)
	triage.FillEffective(cp.Groups, states)
	return &cp
}

func (m *Model) setError(err error) {
	m.status.Set(statusline.Error, Explain(err))
}

func (m *Model) setInfo(format string, a ...any) {
	m.status.Set(statusline.Info, fmt.Sprintf(format, a...))
}
