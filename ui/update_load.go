package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/statusline"
)

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
		if msg.n == 0 {
			return m, nil
		}
		m.setInfo("the API found %d execution(s) of %s", msg.n, strings.Join(msg.ids, ", "))
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
		ok, byKey := m.sel.take(msg)
		if !ok {
			return m, nil
		}
		if msg.ds != m.data.DS {
			m.data.DS = msg.ds
		}
		// A selection the rows moved by themselves (a settled row left the flagged view, a
		// load came in) keeps the status line's confirmation; one a key asked for clears it.
		m.rowsMoved = !byKey
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
		if m.load.handBackNow(m.sel.nextDS != nil) {
			// The list shows the big load's last dataset: what went before is garbage now.
			cmds = append(cmds, handBackCmd(m.load.mem, m.load.idleGC))
		}
		return m, tea.Batch(cmds...)

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
