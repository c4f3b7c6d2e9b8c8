package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/copymenu"
	"github.com/exectriage/exectriage/ui/components/filterbar"
	"github.com/exectriage/exectriage/ui/components/markdialog"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/ui/components/timeline"
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
			m.header.Waiting = m.be.RateWaiting()
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

	case openedMsg:
		if msg.opened {
			m.setInfo("opened %s in the browser: %s", msg.id, msg.addr)
			return m, nil
		}
		// no browser here (ssh, a container) or it failed: the address it would open, copied
		cmd := m.copyOut("dashboard URL", msg.addr, false)
		if msg.err != nil {
			m.setError(fmt.Errorf("%w; the dashboard URL is copied instead", msg.err))
		}
		return m, cmd

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
			return m, findOnServerCmd(m.ctx, m.be, reqs, sessions)
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

// updateLoad handles the load pipeline's messages (load.go's loader does the work; this words it).
func (m *Model) updateLoad(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case loadPageMsg:
		next, ok := m.load.page(msg)
		if !ok {
			return m, nil
		}
		grouping := m.header.Grouping
		shown := m.showProgress(false)
		cmd := tea.Batch(next, m.scheduleAnalyze())
		// Most pages change nothing on the screen (their counts show at most every
		// progressEvery): the frame before is drawn again rather than rendered.
		m.sameFrame = !shown && m.header.Grouping == grouping
		return m, cmd

	case loadDoneMsg:
		if !m.load.done(msg) {
			return m, nil
		}
		// The groups are found next, once the analysis under way (if any) is done: until then
		// the header says so rather than "refreshed".
		m.header.Loading, m.header.Grouping = false, true
		if m.load.failed {
			m.header.Partial = "PARTIAL: load stopped"
			switch {
			case m.load.pages == 0 && m.refreshed.IsZero(): // nothing was ever loaded
				m.header.Partial = "LOAD FAILED"
			case m.load.pages == 0: // nothing of this load arrived: the rows are the last load's
				m.header.Partial = "STALE: refresh failed"
			}
			m.setError(msg.err)
		} else {
			m.header.Partial = ""
			m.refreshed = m.Now()
			m.header.Refreshed = common.Clock(m.refreshed) + " UTC"
			if l, _ := m.status.Text(); l != statusline.Error {
				m.status.Clear()
			}
		}
		m.updateListChrome()
		return m, tea.Batch(m.scheduleAnalyze(), journalAllCmd(m.ctx, m.be))

	case analyzedMsg:
		next, again, ok := m.load.analyzed(msg)
		if !ok {
			return m, nil
		}
		m.header.Grouping = false
		if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
			m.setError(fmt.Errorf("finding duplicate groups: %w", msg.err))
			m.header.Partial = cmp.Or(m.header.Partial, "PARTIAL: groups incomplete")
		}
		cmds := []tea.Cmd{next}
		if msg.ds != nil { // an analysis between snapshots (scheduleAnalyze) gives none
			cmds = append(cmds, m.stageDataset(msg.ds))
		}
		if again {
			cmds = append(cmds, m.scheduleAnalyze())
		}
		return m, tea.Batch(cmds...)

	case foundMsg:
		if msg.err != nil {
			m.setError(msg.err)
			return m, nil
		}
		if len(msg.execs) == 0 {
			return m, nil
		}
		m.setInfo("the API found %d execution(s) of %s", len(msg.execs), strings.Join(msg.ids, ", "))
		m.load.give(msg.execs)
		return m, m.scheduleAnalyze()

	case followTickMsg:
		if msg.tag != m.followTag || !m.follow {
			return m, nil
		}
		next := followCmd(m.followTag, m.opt.FollowEvery)
		m.paused = m.list.Cursor() != 0 || m.focus != focusList
		if !m.paused {
			m.newRows = 0
		}
		m.updateListChrome()
		if m.load.loading {
			return m, next
		}
		// Paused loads too: the cursor keeps its row (selection by id), and the rows that come
		// above it are counted.
		return m, tea.Batch(next, m.startLoad(m.opt.Since, false))

	case selectedMsg:
		if msg.tag != m.selTag {
			return m, nil
		}
		if msg.ds != m.data.DS {
			m.data.DS = msg.ds
		}
		if m.nextDS == msg.ds {
			m.nextDS = nil
		}
		m.lastDS, m.lastQ, m.lastV, m.lastPos, m.doneSel = msg.ds, msg.q, msg.v, msg.pos, msg.tag
		m.ranked, m.hidden = msg.ranked, msg.hidden
		m.matches.add(msg.ds, msg.q, msg.pos)
		// A selection the rows moved by themselves (a settled row left the flagged view, a
		// load came in) keeps the status line's confirmation; one a key asked for clears it.
		m.rowsMoved = msg.tag > m.userSel
		wasTop, was := m.list.Cursor() == 0, m.list.Cursor()
		m.list.SetItems(msg.items, msg.sel)
		if m.follow && m.rowsMoved {
			// Following: a cursor on the newest row stays on the newest row as rows arrive;
			// one the person moved away stays on its row, and the rows that came above it
			// are counted ("N new") until they come back to the top.
			if wasTop {
				m.list.Top()
			} else if msg.sel > was {
				m.newRows += msg.sel - was
			}
		}
		m.updateListChrome()
		m.filter.Hint = msg.hint
		cmds := []tea.Cmd{m.selectionChanged(), m.replayDeferred()}
		m.rowsMoved = false
		if m.load.handBackNow(m.nextDS != nil) {
			// The list shows the big load's last dataset: what went before is garbage now.
			cmds = append(cmds, handBackCmd)
		}
		return m, tea.Batch(cmds...)

	}
	return m, nil
}

// updateRetry handles the retry dialog's messages: evidence, arming, the send and its outcome.
func (m *Model) updateRetry(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case evidenceMsg:
		if !m.retry.IsOpen() || m.retry.ExecID() != msg.id {
			return m, nil
		}
		if msg.err != nil {
			m.retry.Close()
			m.setError(fmt.Errorf("preparing the retry of %s: %w", msg.id, msg.err))
			return m, nil
		}
		if msg.exec != nil {
			m.data.PutDetail(msg.id, *msg.exec)
		}
		if msg.state.State != "" {
			m.data.Provider[msg.id] = msg.state
			m.data.DS = withEffective(m.data.DS, m.data.Provider)
		}
		m.retry.SetEvidence(msg.ev)
		m.refreshPanes()
		// one frame when the key delay ends, so its notice goes away without a key press
		return m, tea.Tick(retrydialog.KeyDelay+10*time.Millisecond, func(time.Time) tea.Msg { return retrydialog.ArmedMsg{} })

	case retrydialog.ArmedMsg:
		return m, nil // the frame after it redraws the dialog without the notice

	case retrydialog.SendMsg:
		i := m.data.DS.Index(msg.ExecID)
		if i < 0 {
			m.retry.SetResult(app.RetryOutcome{Err: "the execution is no longer loaded"})
			return m, nil
		}
		e, t := *m.data.Exec(i), m.data.DS.Triage(i)
		m.data.Retrying[msg.ExecID] = true
		m.retry.SetSending()
		return m, tea.Batch(retryCmd(m.ctx, m.be, e, t, m.data.Provider[msg.ExecID], msg.Reason), m.startSpinner())

	case retriedMsg:
		delete(m.data.Retrying, msg.id)
		m.quitAsked = m.quitAsked && len(m.data.Retrying) > 0
		if m.retry.IsOpen() && m.retry.ExecID() == msg.id {
			m.retry.SetResult(msg.res)
		}
		switch {
		case msg.res.State == model.AttemptSucceeded:
			m.setInfo("%s retried: new log %s", msg.id, msg.res.NewLogID)
		case msg.res.NotSent():
			m.status.Set(statusline.Error, "retry of "+msg.id+" not sent: "+retrydialog.NotSentWhy(msg.res, *m.Keys))
		case msg.res.State == model.AttemptFailed:
			m.status.Set(statusline.Warn, "retry of "+msg.id+" failed: "+firstNonEmpty(msg.res.Detail, msg.res.Err))
		default:
			m.status.Set(statusline.Warn, "retry of "+msg.id+" is ambiguous: settle it with "+msg.res.Resolve)
		}
		cmds := []tea.Cmd{journalCmd(m.ctx, m.be, msg.id)}
		if msg.res.NewLogID != "" {
			cmds = append(cmds, m.startLoad(m.opt.Since, false))
		}
		return m, tea.Batch(cmds...)

	case retrydialog.CloseMsg:
		return m, nil

	}
	return m, nil
}

// updateJournal handles the journal's and the provider's answers, and verdicts.
func (m *Model) updateJournal(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case journalMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("reading the journal: %w", msg.err))
			return m, nil
		}
		before := m.data.Case(msg.id)
		m.applyJournal(msg.id, msg.state)
		m.refreshPanes()
		if sameCase(before, m.data.Case(msg.id)) { // the usual answer to a selection resting
			return m, nil
		}
		return m, m.journalChanged()

	case journalAllMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("reading the journal: %w", msg.err))
			return m, nil
		}
		for id, st := range msg.states {
			m.applyJournal(id, st)
		}
		m.refreshPanes()
		if len(msg.states) == 0 {
			return m, nil
		}
		return m, m.journalChanged()

	case verifiedMsg:
		delete(m.data.Verifying, msg.id)
		if msg.err != nil {
			m.setError(fmt.Errorf("verifying %s: %w", msg.id, msg.err))
			m.refreshPanes()
			return m, nil
		}
		if msg.exec != nil {
			m.data.PutDetail(msg.id, *msg.exec)
		}
		m.data.Provider[msg.id] = msg.state
		m.data.DS = withEffective(m.data.DS, m.data.Provider)
		m.setInfo("%s: provider %s%s", msg.id, msg.state.State, reasonSuffix(msg.state.Reason))
		m.refreshPanes()
		return m, nil

	case markdialog.MarkMsg:
		if msg.ExecID == markdialog.Many {
			execs, triages := m.pickedRows()
			var ids []string
			for i := range execs {
				if slices.Contains(m.be.VerdictsFor(&execs[i], &triages[i]), msg.Verdict) {
					ids = append(ids, execs[i].ID)
				}
			}
			m.setInfo("marking %d selected execution(s) %s…", len(ids), msg.Verdict)
			return m, markManyCmd(m.ctx, m.be, ids, len(execs)-len(ids), msg.Verdict, msg.Note)
		}
		return m, markCmd(m.ctx, m.be, msg.ExecID, msg.Verdict, msg.Note)

	case markedManyMsg:
		for _, r := range msg.done {
			m.data.Verdicts[r.id] = r.res.Deciding
		}
		clear(m.data.Picked)
		m.updateListChrome()
		if msg.err != nil {
			m.setError(fmt.Errorf("recording the verdicts (%d of %d recorded): %w", len(msg.done), msg.want, msg.err))
		} else {
			m.setInfo("%d execution(s) marked %s (%d skipped: the verdict does not fit them)", len(msg.done), msg.verdict, msg.skipped)
		}
		cmds := []tea.Cmd{m.journalChanged()}
		for _, r := range msg.done {
			cmds = append(cmds, journalCmd(m.ctx, m.be, r.id))
		}
		return m, tea.Batch(cmds...)

	case markdialog.CloseMsg:
		return m, nil

	case markedMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("recording the verdict: %w", msg.err))
			return m, nil
		}
		m.data.Verdicts[msg.id] = msg.res.Deciding
		m.setInfo("%s marked %s: %s", msg.id, msg.verdict, msg.res.Effect)
		return m, tea.Batch(m.journalChanged(), journalCmd(m.ctx, m.be, msg.id))

	}
	return m, nil
}

// showProgress puts the load's counts in the header: the first page's at once, then at most
// every progressEvery (or with a spinner frame, tick), so that a fast load does not redraw the
// whole screen for every page it reads (View, and the renderer's parse and diff of the frame,
// about 0.75 ms on a free core and more while the load takes the cores).
// It reports whether the header changed.
func (m *Model) showProgress(tick bool) bool {
	loaded, pages, show := m.load.progress(m.header.Loaded, m.header.Pages, tick)
	if show {
		m.header.Loaded, m.header.Pages = loaded, pages
	}
	return show
}

// progressEvery is how often the header's load counts change at most.
const progressEvery = 100 * time.Millisecond

func (m *Model) refreshSpinnerViews() {
	v := m.spin.View()
	m.header.Spinner, m.list.Spinner, m.retry.Spinner = v, v, v
	if i, _, ok := m.selected(); ok && m.data.Verifying[m.data.DS.ID(i)] {
		m.refreshPanes()
	}
}

func (m *Model) applyJournal(id string, st app.JournalState) {
	m.data.Attempts[id] = st.Attempts
	for _, a := range st.Attempts { // link each retry's new execution to the one it retried
		if a.NewLogID != "" {
			m.data.RetryOf[a.NewLogID] = id
		}
	}
	m.data.History[id] = st.History
	if st.Verdict != "" {
		m.data.Verdicts[id] = st.Verdict
	} else {
		delete(m.data.Verdicts, id)
	}
}

// journalChanged stages the dataset again with the journal's cases as they are now, so the
// counts, the toggles and the filter follow a verdict or a retry at once: after
// the dataset or the journal's state changed, never in View.
func (m *Model) journalChanged() tea.Cmd {
	ds := m.data.DS
	if m.nextDS != nil {
		ds = m.nextDS
	}
	if ds == nil || ds.Len() == 0 {
		return nil
	}
	return m.stageDataset(ds)
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
	switch {
	case m.retry.IsOpen() && m.retry.Sending() && key.Matches(k, keys.Quit) && k.Text != "":
		return m.quit(asked) // q over a send in flight asks, as ctrl+c does
	case m.retry.IsOpen():
		var cmd tea.Cmd
		m.retry, cmd = m.retry.Update(k)
		return cmd
	case m.mark.IsOpen():
		var cmd tea.Cmd
		m.mark, cmd = m.mark.Update(k)
		return cmd
	case m.copyMenu.IsOpen():
		var cmd tea.Cmd
		m.copyMenu, cmd = m.copyMenu.Update(k)
		return cmd
	case m.filter.Active():
		return m.editFilter(k)
	case m.showTime:
		if key.Matches(k, keys.Timeline, keys.Back, keys.Quit) {
			m.showTime = false
			return nil
		}
		m.timeline.Update(k)
		return nil
	case m.showLog:
		if key.Matches(k, keys.Log, keys.Back, keys.Quit) && k.String() != "ctrl+c" {
			m.showLog = false
			return nil
		}
		m.msgLog.Update(k)
		return nil
	case m.showHelp:
		// q closes the overlay as in less, k9s and lazygit: quitting the program from the
		// screen that explains the keys surprised people who only wanted to leave it.
		if key.Matches(k, keys.Help, keys.Back, keys.Quit) {
			m.showHelp = false
			return nil
		}
		m.helpView.Update(k) // the navigation keys scroll it
		return nil
	}
	if len(m.deferred) > 0 || m.doneSel < m.userSel {
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
		if m.doneSel < m.userSel {
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
	before := m.selTag
	cmd := m.handleKey(k)
	if m.selTag != before {
		m.userSel = m.selTag
	}
	return cmd
}

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
	if m.opt.NoOSC52 {
		path, err := m.be.WriteCopy(what, text)
		if err != nil {
			m.setError(fmt.Errorf("this terminal cannot take OSC 52 and the fallback file failed: %w", err))
			return nil
		}
		m.setInfo("this terminal cannot take OSC 52 (TERM=%s): the %s is in %s", m.opt.Term, what, path)
		return nil
	}
	m.setInfo("copied the %s to the clipboard (OSC 52; nothing arrived? the terminal refuses OSC 52: set NO_OSC52=1 to get a file)", what)
	return copyText(text, block)
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

// bundleItems gathers what the store knows about each execution for a support bundle. The
// values are copies: the command that renders them runs off the loop.
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
		for _, h := range m.data.History[id] {
			it.History = append(it.History, h.Time.UTC().Format(time.RFC3339)+" "+h.Text)
		}
		items = append(items, it)
	}
	return items
}

func (m *Model) setFocus(f focus) {
	m.focus = f
	m.list.SetFocused(f == focusList)
	m.detail.SetFocused(f == focusDetail)
	m.provider.SetFocused(f == focusProvider)
	m.relayout()
}

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
	if m.view.Duplicates && m.lastDS == m.data.DS && m.lastQ.String() == m.query.String() {
		pos := m.lastPos // increasing: the duplicates view is never ranked (View.Ranks)
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
			"a retry of %s is being sent: quitting now leaves its outcome unknown (exectriage resolve). %s again quits anyway; any other key waits",
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

// sameCase reports whether two cases say the same.
func sameCase(a, b *model.Case) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
