package ui

import (
	"context"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/window"
)

// Every asynchronous result carries the tag of the request that produced it; the root drops a
// result whose tag is no longer current (a newer load, analysis, filter or detail fetch).

// selectedMsg is the list's rows for the current dataset, toggles and filter.
type selectedMsg struct {
	tag   int
	ds    *window.Dataset
	items window.Items
	sel   int
	q     filter.Query
	v     window.View // the view the rows were selected for
	pos   []int       // the filter's matches, increasing (nil: no filter)
	// ranked says the rows are in best-match order (View.Ranks); hidden counts the matches the
	// ranking cut as scattered letters (filter.Index.Rank).
	ranked bool
	hidden int
	best   []int // the ranked matches (nil when not ranked), kept for the query's next selection
	// hint is what the filter says of a query that shows nothing or matches everything
	// (filter.Index.Hint), found here: offering values reads every row.
	hint string
}

// selectCmd filters and selects rows off the UI loop. prev, when not nil, is the match set of
// a query q refines on the same dataset, or q's own matches when exact is set. keepID is the
// execution to keep selected. When ctx ends first the command gives no message.
func selectCmd(
	ctx context.Context,
	tag int,
	ds *window.Dataset,
	v window.View,
	q filter.Query,
	from cachedMatches,
	exact bool,
	keepID string,
	keepKind window.ItemKind,
	keepAt int,
) tea.Cmd {
	return func() tea.Msg {
		// Runs at the loop's priority, its filter's goroutines too: lowered (nice 5), they lost
		// the cores to the terminal's own work and the settled list came later (1M in tmux:
		// p95 97-103 -> 85 ms; the first frame's p95 in a pty the same either way).
		var pos []int
		var items window.Items
		ranked, hidden := false, 0
		var best []int
		if q.Empty() {
			items = window.SelectItems(ds, v)
		} else {
			// A search the next key made stale stops (ctx ends when the selection is asked
			// again): its result would be dropped, and it would hold the cores from the next.
			var err error
			pos = from.pos
			if !exact || pos == nil {
				if pos, err = ds.MatchesContext(ctx, q, from.pos); err != nil {
					return nil
				}
			}
			shown := pos
			if ranked = v.Ranks(q, len(pos)); ranked {
				// the same query's matches ranked before (erasing back to it) keep their order
				if best, hidden = from.best, from.hidden; !exact || best == nil {
					if best, hidden, err = ds.Filter.RankContext(ctx, q, pos); err != nil {
						return nil
					}
				}
				shown = best
			}
			items = window.SelectMatchItems(ds, v, shown)
		}
		// A row that left the view (settled in the flagged view, say) leaves the cursor on the
		// row that came after it, as lazygit does after staging, when the rows are the same
		// query's (keepAt, its row); otherwise the top.
		sel, gone := 0, min(max(keepAt, 0), max(items.Len()-1, 0))
		want := ds.Index(keepID)
		switch {
		case want >= 0 && !v.Duplicates && !ranked:
			// One row per execution, in increasing position.
			if items.Whole() {
				sel = want
			} else if i := sort.Search(items.Len(), func(i int) bool { return int(items.At(i).Exec) >= want }); i <
				items.Len() && int(items.At(i).Exec) == want {
				sel = i
			} else if keepAt >= 0 {
				sel = min(i, max(items.Len()-1, 0)) // the next one's place
			}
		case want < 0 && keepAt >= 0:
			sel = gone
		case want >= 0:
			best := -1
			for i := range items.Len() {
				it := items.At(i)
				if int(it.Exec) == want {
					if it.Kind == keepKind {
						best = i
						break
					}
					if best < 0 {
						best = i
					}
				}
			}
			if best >= 0 {
				sel = best
			} else if keepAt >= 0 {
				sel = gone
			}
		}
		hint := ds.Filter.Hint(q, items.Len())
		return selectedMsg{tag: tag, ds: ds, items: items, sel: sel, q: q, v: v, pos: pos, ranked: ranked, hidden: hidden, best: best, hint: hint}
	}
}

// detailTickMsg fires when the selection has rested on an execution.
type detailTickMsg struct {
	tag int
	id  string
}

// detailMsg carries an execution's full record.
type detailMsg struct {
	id   string
	exec model.Execution
	err  error
}

func detailCmd(ctx context.Context, be Backend, id string) tea.Cmd {
	return func() tea.Msg {
		e, err := be.Get(ctx, id)
		return detailMsg{id: id, exec: e, err: err}
	}
}

// journalMsg carries the journal's state of one execution.
type journalMsg struct {
	id    string
	state app.JournalState
	err   error
}

func journalCmd(ctx context.Context, be Backend, id string) tea.Cmd {
	return func() tea.Msg {
		st, err := be.JournalStateOf(ctx, id)
		return journalMsg{id: id, state: st, err: err}
	}
}

// journalAllMsg carries the journal's state of every execution it knows.
type journalAllMsg struct {
	states map[string]app.JournalState
	err    error
}

func journalAllCmd(ctx context.Context, be Backend) tea.Cmd {
	return func() tea.Msg {
		st, err := be.JournalStates(ctx)
		return journalAllMsg{states: st, err: err}
	}
}

// verifiedMsg is a provider check's answer; exec is the full record when it had to be fetched.
type verifiedMsg struct {
	id    string
	exec  *model.Execution
	state model.ProviderState
	err   error
}

// fullRecord returns e when it is a full record, else fetches it (fetched is then the new
// record, for the store): a row of the list holds only what the list shows.
func fullRecord(ctx context.Context, be Backend, e model.Execution) (rec model.Execution, fetched *model.Execution, err error) {
	if e.Detailed {
		return e, nil, nil
	}
	d, err := be.Get(ctx, e.ID)
	if err != nil {
		return e, nil, err
	}
	return d, &d, nil
}

func verifyCmd(ctx context.Context, be Backend, e model.Execution) tea.Cmd {
	return func() tea.Msg {
		e, fetched, err := fullRecord(ctx, be, e)
		if err != nil {
			return verifiedMsg{id: e.ID, err: err}
		}
		ps := be.Verify(ctx, &e)
		return verifiedMsg{id: e.ID, exec: fetched, state: ps}
	}
}

// evidenceMsg is what the retry dialog shows, gathered fresh.
type evidenceMsg struct {
	id    string
	exec  *model.Execution
	state model.ProviderState
	ev    app.RetryEvidence
	err   error
}

// evidenceCmd fetches the full record, checks the provider afresh (the guard wants a check
// made now, not one from minutes ago) and asks the guard.
func evidenceCmd(ctx context.Context, be Backend, e model.Execution, t model.Triage) tea.Cmd {
	return func() tea.Msg {
		e, fetched, err := fullRecord(ctx, be, e)
		if err != nil {
			return evidenceMsg{id: e.ID, err: err}
		}
		var ps model.ProviderState
		if t.Kind.IsWrite() {
			ps = be.Verify(ctx, &e)
		}
		ev, err := be.Evidence(ctx, e, t, ps)
		return evidenceMsg{id: e.ID, exec: fetched, state: ps, ev: ev, err: err}
	}
}

// retriedMsg is how a guarded retry ended.
type retriedMsg struct {
	id  string
	res app.RetryOutcome
}

// retryCmd runs the guarded retry of e, as the person saw it (its record and the provider's
// state), with their confirmation of failure (reason): retry.Run reads the live log again and
// decides.
func retryCmd(ctx context.Context, be Backend, e model.Execution, ps model.ProviderState, reason string) tea.Cmd {
	return func() tea.Msg {
		e, _, err := fullRecord(ctx, be, e) // the retry sends the record's arguments
		if err != nil {
			return retriedMsg{id: e.ID, res: app.RetryOutcome{Err: "fetching the record to send: " + err.Error() + " (nothing was sent)"}}
		}
		return retriedMsg{id: e.ID, res: be.RetryConfirmed(ctx, e, ps, reason)}
	}
}

// copyReadyMsg carries a copy menu text made off the loop.
type copyReadyMsg struct {
	what, text string
	block      bool
}

// openedMsg says whether the dashboard address was opened in a browser.
type openedMsg struct {
	id, addr string
	opened   bool
	err      error
}

// openCmd opens the dashboard address off the loop (starting a browser takes a moment).
func openCmd(ctx context.Context, be Backend, id, addr string) tea.Cmd {
	return func() tea.Msg {
		opened, err := be.OpenURL(ctx, addr)
		return openedMsg{id: id, addr: addr, opened: opened, err: err}
	}
}

// markedMsg says a verdict was recorded (or not).
type markedMsg struct {
	id      string
	verdict model.Verdict
	res     app.MarkResult
	err     error
}

func markCmd(ctx context.Context, be Backend, id string, v model.Verdict, note string) tea.Cmd {
	return func() tea.Msg {
		res, err := be.Mark(ctx, id, v, note)
		return markedMsg{id: id, verdict: v, res: res, err: err}
	}
}

// markedManyMsg says the verdicts of a selection were recorded, as far as they were.
type markedManyMsg struct {
	done    []markedMsg
	want    int
	skipped int
	verdict model.Verdict
	err     error
}

// markManyCmd records v on each of ids, one by one (each journalled as if marked alone), and
// stops at the first that fails.
func markManyCmd(ctx context.Context, be Backend, ids []string, skipped int, v model.Verdict, note string) tea.Cmd {
	return func() tea.Msg {
		out := markedManyMsg{want: len(ids), skipped: skipped, verdict: v}
		for _, id := range ids {
			res, err := be.Mark(ctx, id, v, note)
			if err != nil {
				out.err = err
				break
			}
			out.done = append(out.done, markedMsg{id: id, verdict: v, res: res})
		}
		return out
	}
}

// bundledMsg says where a support bundle was written; copy asks for it on the clipboard too.
type bundledMsg struct {
	ids  []string
	path string
	text string
	copy bool
	err  error
}

func bundleCmd(ctx context.Context, be Backend, ids []string, items []bundle.Item, copyIt bool) tea.Cmd {
	return func() tea.Msg {
		for k := range items { // a record that cannot be fetched is bundled as the list shows it
			if d, _, err := fullRecord(ctx, be, items[k].Exec); err == nil {
				items[k].Exec = d
			}
		}
		path, text, err := be.WriteBundle(ctx, items)
		return bundledMsg{ids: ids, path: path, text: text, copy: copyIt, err: err}
	}
}

// followTickMsg drives follow mode.
type followTickMsg struct{ tag int }

func followCmd(tag int, every time.Duration) tea.Cmd {
	return tea.Tick(every, func(time.Time) tea.Msg { return followTickMsg{tag: tag} })
}

// foundMsg says the API found n executions for a request: or session: filter, queued in the
// feed for the next analysis (app.Feed.Find).
type foundMsg struct {
	ids []string
	n   int
	err error
}

// findOnServerCmd asks the source's server for the executions of the request and session ids
// a filter names, and queues what it finds in the feed.
func findOnServerCmd(ctx context.Context, feed *app.Feed, reqs, sessions []string) tea.Cmd {
	return func() tea.Msg {
		n, err := feed.Find(ctx, reqs, sessions)
		var ids []string
		for _, r := range reqs {
			ids = append(ids, "request "+r)
		}
		for _, s := range sessions {
			ids = append(ids, "session "+s)
		}
		return foundMsg{ids: ids, n: n, err: err}
	}
}

// timelineMsg brings the executions of one session (or trace): positions in the dataset the
// filter index knows, and the records the API found.
type timelineMsg struct {
	field, id, current string
	ds                 *window.Dataset
	pos                []int
	found              []model.Execution
	err                error
}

// timelineCmd gathers a session's (field "session") or a trace's executions: the window's, by
// the filter index (a file's records carry the ids), and, for a session, the API's (its list
// entries do not carry them).
func timelineCmd(ctx context.Context, be Backend, ds *window.Dataset, field, id, current string) tea.Cmd {
	return func() tea.Msg {
		msg := timelineMsg{field: field, id: id, current: current, ds: ds}
		if q, err := filter.Parse(field + ":" + id); err == nil {
			msg.pos = ds.Matches(q, nil)
		}
		if field == "session" {
			msg.found, msg.err = be.FindSessions(ctx, []string{id})
		}
		return msg
	}
}
