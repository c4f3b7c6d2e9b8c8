package ui

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/ui/components/markdialog"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
)

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
		e := *m.data.Exec(i)
		m.data.Retrying[msg.ExecID] = true
		m.retry.SetSending()
		return m, tea.Batch(retryCmd(m.ctx, m.be, e, m.data.Provider[msg.ExecID], msg.Reason), m.startSpinner())

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
		var cmds []tea.Cmd
		if st := msg.res.Journal; st != nil { // read with the retry's end: no second round trip
			m.applyJournal(msg.id, *st)
			m.refreshPanes()
			cmds = append(cmds, m.journalChanged())
		} else {
			cmds = append(cmds, journalCmd(m.ctx, m.be, msg.id))
		}
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

func (m *Model) applyJournal(id string, st app.JournalState) {
	m.data.Attempts[id] = st.Attempts
	for _, a := range st.Attempts { // link each retry's new execution to the one it retried
		if a.NewLogID != "" {
			m.data.RetryOf[a.NewLogID] = id
		}
	}
	m.data.History[id] = phrase.History(st.Confirmations, st.Attempts, st.Verdicts, m.be.Hint, m.Now())
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
	if m.sel.nextDS != nil {
		ds = m.sel.nextDS
	}
	if ds == nil || ds.Len() == 0 {
		return nil
	}
	return m.stageDataset(ds)
}
