package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// ListOptions are list's flags and arguments.
type ListOptions struct {
	Source sourceFlags
	Filter string
	Query  []string // words after the flags, added to the filter
	Limit  int      // at most this many executions (0: all)
	// Session lists one tool-router session's executions, oldest first: its timeline.
	Session string
	// NoPager writes to a terminal directly, however long the list.
	NoPager bool
}

// NewCmdList is `exectriage list [QUERY...]`: executions newest first, one line each.
func NewCmdList(env *Env, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{}
	cmd := &cobra.Command{
		Use:   "list [QUERY...]",
		Short: "executions newest first, one line each",
		Example: "  exectriage list --filter 'gmsend flagged:yes'\n  exectriage list --filter pattern:agent_retry --json\n  exectriage " +
			"list --demo --limit 5 --jq '.executions[].id'",
		Args: positional("list", 0, -1, wantText("")),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Query = args
			if opts.Limit < 0 {
				return usagef("list", "--limit must not be negative")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "list", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return listRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("list"))
	cmd.Flags().
		StringVar(&opts.Filter, "filter", "", "filter `QUERY`: fuzzy text plus field terms ("+strings.Join(filter.FieldNames(), ":, ")+":)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "print at most `N` executions, the newest (0: all)")
	cmd.Flags().
		BoolVar(&opts.NoPager, "no-pager", false,
			"on a terminal, write every line directly instead of through $PAGER (less -FRX when unset)")
	cmd.Flags().
		StringVar(&opts.Session, "session", "",
			"the timeline of one tool-router session `ID`: its executions oldest first (session:ID, in the order they ran)")
	registerFlagCompletions(cmd, env)
	return cmd
}

// listRun prints executions newest first, one line each, optionally filtered.
func listRun(ctx context.Context, env *Env, opts *ListOptions) int {
	sf := &opts.Source
	own := opts.Filter + " " + strings.Join(opts.Query, " ")
	if s := strings.TrimSpace(opts.Session); s != "" {
		own += " session:" + s
	}
	q, _, show, err := sf.viewQuery(ctx, env, own)
	if err != nil {
		return fail(env, "list", err)
	}
	a, ls, err := sf.listing(ctx, env, q)
	if err != nil {
		return fail(env, "list", err)
	}
	defer a.Close()
	ls.keepShown(show)
	r := newReport(env, a)
	match := ls.match
	if opts.Session != "" {
		slices.Reverse(match) // a session reads in the order it ran
	}
	total := len(match)
	if hint := ls.hint(total); hint != "" {
		fmt.Fprintf(env.Stderr, "exectriage list: %s\n", sanitize.String(hint))
	}
	if opts.Limit > 0 && len(match) > opts.Limit {
		match = match[:opts.Limit]
	}
	if !sf.json { // said before a pager takes the terminal
		fmt.Fprintf(env.Stderr, "source: %s · %d of %d executions", r.str(a.SourceName()), total, ls.n)
		if v := strings.TrimSpace(sf.view); v != "" {
			fmt.Fprintf(env.Stderr, " · view %s", sanitize.String(v))
		}
		if len(match) < total {
			fmt.Fprintf(env.Stderr, " (the newest %d shown: --limit)", len(match))
		}
		fmt.Fprintln(env.Stderr)
	}
	out := io.Writer(env.Stdout)
	pg := startPager(env, opts.NoPager, len(match)+1)
	if pg != nil {
		out = pg
	}
	w := bufio.NewWriterSize(out, 64<<10)
	if sf.json {
		name, _ := marshalSafe(r.hide(a.SourceName()))
		fmt.Fprintf(
			w,
			"{\n  \"schema_version\": %d,\n  \"source\": %s,\n  \"matched\": %d,\n  \"executions\": [",
			SchemaVersion,
			name,
			total,
		)
		if err = writeArrayLines(w, len(match), func(buf []byte, k int) []byte {
			e, t := ls.exec(match[k]), ls.triage(match[k])
			return r.appendExecOf(buf, &e, &t)
		}); err == nil {
			_, err = io.WriteString(w, "]\n}\n")
		}
	} else {
		r.listLines(w, ls, match, terminalWidth(env.Stdout))
	}
	if err == nil {
		err = w.Flush()
	}
	if pg != nil {
		if cerr := pg.Close(); err == nil && cerr != nil && !quitEarly(cerr) {
			var ee *exec.ExitError
			if !errors.As(cerr, &ee) { // the pager's own exit status is the person's business
				err = cerr
			}
		}
		if quitEarly(err) {
			err = nil // the person quit the pager before the end
		}
	}
	if err != nil {
		return fail(env, "list", err)
	}
	return ExitOK
}

// listing is what list prints from: the window's executions (n of them) by position, newest
// first, with their triage and groups, and the positions a query keeps.
type listing struct {
	n      int
	exec   func(i int) model.Execution
	triage func(i int) model.Triage
	groups []model.DuplicateGroup
	match  []int
	hint   func(matched int) string // filter.Index.Hint of the query
}

// viewQuery is the filter a command shows: its --view's filter before its own (own), parsed,
// with the view's show (all, flagged or duplicates). text is the whole filter as typed.
func (s *sourceFlags) viewQuery(ctx context.Context, env *Env, own string) (q filter.Query, text, show string, err error) {
	vf, show, err := s.savedView(ctx, env)
	if err != nil {
		return q, "", "", err
	}
	text = strings.TrimSpace(vf + " " + own)
	if q, err = filter.Parse(text); err != nil {
		return q, "", "", app.Usagef("--filter: %s", sanitize.String(err.Error()))
	}
	return q, text, cmp.Or(show, config.ShowAll), nil
}

// keepShown keeps the matches a view's show keeps (app.ViewKeeps).
func (l *listing) keepShown(show string) {
	if show != "" && show != config.ShowAll {
		l.match = slices.DeleteFunc(l.match, func(i int) bool { t := l.triage(i); return !app.ViewKeeps(show, &t) })
	}
}

// listing reads the window for list and filters it by q. An export is streamed into rows with
// the filter's index, as scan reads it (memory grows with the rows, not with the records);
// another source is loaded whole, and the records a request: or session: term names are asked
// of its server first (the API lists no request or session ids).
func (s *sourceFlags) listing(ctx context.Context, env *Env, q filter.Query) (*app.App, *listing, error) {
	defer s.streamExport(env)()
	var l *app.Loaded
	var sc *app.Scanned
	a, err := s.loadWith(ctx, env, func(a *app.App) (err error) {
		if a.Streams() {
			sc, err = a.ScanIndexed(ctx)
			return err
		}
		l, err = a.Load(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if sc != nil {
		copiesOnce(env, sc.Duplicates)
		match, _ := sc.Filter(q)
		return a, &listing{
			n:      sc.Len(),
			exec:   sc.Exec,
			triage: sc.Triage,
			groups: sc.Groups,
			match:  match,
			hint:   func(m int) string { return sc.Hint(q, m) },
		}, nil
	}
	s.detailErrors(env, a, l.DetailErrors, l.FirstDetailError)
	copiesOnce(env, l.Duplicates)
	for _, find := range []struct {
		f   func(context.Context, []string) ([]model.Execution, error)
		ids []string
	}{{a.FindRequests, q.Values("request")}, {a.FindSessions, q.Values("session")}} {
		found, err := find.f(ctx, find.ids)
		if err != nil {
			a.Close()
			return nil, nil, err
		}
		l.Put(found)
	}
	return a, &listing{
		n:      len(l.Execs),
		exec:   func(i int) model.Execution { return l.Execs[i] },
		triage: func(i int) model.Triage { return l.Result.Triage[i] },
		groups: l.Result.Groups,
		match:  l.Filter(q),
		hint:   func(m int) string { return l.Hint(q, m) },
	}, nil
}

// listLines writes one aligned line per execution: time, tool, toolkit, user/account,
// status, duration, badges, log id. In a pipe (cols 0) every line is whole. On a terminal of
// cols columns the lines fit it, as gh's tables do: the user/account and the tool narrow first,
// then the toolkit and the duration go, the time loses its year, the user/account goes, and
// the tool narrows again; the log id is never the part cut (it is what a person copies).
func (r *report) listLines(w io.Writer, ls *listing, match []int, cols int) {
	groupSize := map[string]int{}
	for i := range ls.groups {
		groupSize[ls.groups[i].ID] = len(ls.groups[i].ExecutionIDs)
	}
	const (
		cWhen = iota
		cTool
		cKit
		cWho
		cStatus
		cDur
		cBadges
		cID
		nCols
	)
	rows := make([][nCols]string, len(match))
	times := make([]time.Time, len(match))
	var wide [nCols]int
	for k, i := range match {
		ex, t := ls.exec(i), ls.triage(i)
		e := &ex
		status := e.Status
		status = cmp.Or(status, "none")
		var badges []string
		if t.Flagged {
			badges = append(badges, strings.ToUpper(string(t.Outcome)))
		}
		if t.Case != nil && t.Case.Settled {
			badges = append(badges, "SETTLED")
		}
		if n := groupSize[t.GroupID]; n > 0 {
			badges = append(badges, fmt.Sprintf("DUP×%d", n))
		}
		row := [nCols]string{stamp(e.Timestamp), r.line(e.ToolSlug, 40), r.line(e.ToolkitSlug, 16), r.line(who(e), 48),
			r.line(status, 7), duration(e), strings.Join(badges, "  "), r.line(e.ID, 40)}
		for c := range row {
			wide[c] = max(wide[c], width(row[c]))
		}
		rows[k], times[k] = row, e.Timestamp
	}
	if cols <= 0 { // a pipe: whole lines, as they always were
		for _, row := range rows {
			fmt.Fprintf(w, "%s  %s  %s  %s  %-7s  %7s", row[cWhen], pad(row[cTool], wide[cTool]), pad(row[cKit], wide[cKit]),
				pad(row[cWho], wide[cWho]), row[cStatus], row[cDur])
			if row[cBadges] != "" {
				fmt.Fprintf(w, "  %s", row[cBadges])
			}
			fmt.Fprintf(w, "  %s\n", row[cID])
		}
		return
	}
	wide[cStatus], wide[cDur] = max(wide[cStatus], 7), max(wide[cDur], 7)
	on := [nCols]bool{true, true, true, true, true, true, wide[cBadges] > 0, true}
	short := false // the time without its year and zone
	total := func() int {
		n := -2
		for c := range nCols {
			if on[c] {
				n += wide[c] + 2
			}
		}
		return n
	}
	narrow := func(c, least int) { wide[c] = max(min(wide[c], least), wide[c]-(total()-cols)) }
	for _, step := range []func(){
		func() { narrow(cWho, 12) },
		func() { narrow(cTool, 20) },
		func() { on[cKit] = false },
		func() { on[cDur] = false },
		func() { short, wide[cWhen] = true, 14 },
		func() { on[cWho] = false },
		func() { narrow(cTool, 10) },
	} {
		if total() <= cols {
			break
		}
		step()
	}
	right := [nCols]bool{cDur: true}
	var b strings.Builder
	for k, row := range rows {
		if short && !times[k].IsZero() {
			row[cWhen] = times[k].UTC().Format("01-02 15:04:05")
		}
		b.Reset()
		for c := range nCols {
			if !on[c] {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("  ")
			}
			cell := row[c]
			if width(cell) > wide[c] {
				cell = sanitize.Line(cell, wide[c])
			}
			switch {
			case c == cID:
				b.WriteString(cell) // last: never padded, never cut
			case right[c]:
				b.WriteString(strings.Repeat(" ", max(0, wide[c]-width(cell))) + cell)
			default:
				b.WriteString(pad(cell, wide[c]))
			}
		}
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}
