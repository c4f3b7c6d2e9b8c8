package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/sanitize"
)

// runList prints executions newest first, one line each, optionally filtered.
func runList(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "list")
	query := fs.String("filter", "", "filter `QUERY`: fuzzy text plus field terms ("+strings.Join(filter.FieldNames(), ":, ")+":)")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		*query = strings.TrimSpace(*query + " " + strings.Join(pos, " "))
	}
	q, err := filter.Parse(*query)
	if err != nil {
		return usageError(env, "list", "--filter: %s", sanitize.String(err.Error()))
	}
	a, l, err := sf.load(ctx, env)
	if err != nil {
		return fail(env, "list", err)
	}
	defer a.Close()
	r := newReport(a, l)
	ix := filter.NewIndex(len(l.Execs))
	for i := range l.Execs {
		ix.Append(filter.Row{Exec: &l.Execs[i], Triage: &l.Result.Triage[i]})
	}
	// a view that knows the groups answers pattern: (a group's cause)
	order, groupOf := make([]int32, len(l.Execs)), make([]int32, len(l.Execs))
	ids, patterns := make([]string, len(l.Result.Groups)), make([]string, len(l.Result.Groups))
	for gi, g := range l.Result.Groups {
		ids[gi], patterns[gi] = g.ID, string(g.Pattern)
	}
	for i := range l.Execs {
		order[i], groupOf[i] = int32(i), -1
		if gid := l.Result.Triage[i].GroupID; gid != "" {
			if gi, ok := l.Result.GroupIndex(gid); ok {
				groupOf[i] = int32(gi)
			}
		}
	}
	match := ix.View(order, groupOf, ids, patterns).Filter(q)
	w := bufio.NewWriterSize(env.Stdout, 64<<10)
	if sf.json {
		name, _ := marshalSafe(r.hide(a.SourceName()))
		fmt.Fprintf(w, "{\n  \"source\": %s,\n  \"executions\": [", name)
		if err = writeArrayLines(w, len(match), func(buf []byte, k int) []byte {
			return r.appendExec(buf, match[k])
		}); err == nil {
			_, err = io.WriteString(w, "]\n}\n")
		}
	} else {
		fmt.Fprintf(env.Stderr, "source: %s · %d of %d executions\n", r.str(a.SourceName()), len(match), len(l.Execs))
		r.listLines(w, match)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "list", err)
	}
	return ExitOK
}

// listLines writes one aligned line per execution: time, tool, toolkit, user/account,
// status, duration, badges.
func (r *report) listLines(w io.Writer, match []int) {
	const toolMax, kitMax, whoMax = 40, 16, 48
	type line struct{ tool, kit, who string }
	lines := make([]line, len(match))
	var tw, kw, ww int
	for k, i := range match {
		e := &r.l.Execs[i]
		l := line{r.line(e.ToolSlug, toolMax), r.line(e.ToolkitSlug, kitMax), r.line(who(e), whoMax)}
		tw, kw, ww = max(tw, width(l.tool)), max(kw, width(l.kit)), max(ww, width(l.who))
		lines[k] = l
	}
	groupSize := map[string]int{}
	for i := range r.l.Result.Groups {
		groupSize[r.l.Result.Groups[i].ID] = len(r.l.Result.Groups[i].ExecutionIDs)
	}
	for k, i := range match {
		e, t, l := &r.l.Execs[i], &r.l.Result.Triage[i], lines[k]
		status := e.Status
		if status == "" {
			status = "none"
		}
		fmt.Fprintf(w, "%s  %s  %s  %s  %-7s  %7s", stamp(e.Timestamp), pad(l.tool, tw), pad(l.kit, kw), pad(l.who, ww),
			r.line(status, 7), duration(e))
		if t.Flagged {
			fmt.Fprintf(w, "  %s", strings.ToUpper(string(t.Outcome)))
		}
		if n := groupSize[t.GroupID]; n > 0 {
			fmt.Fprintf(w, "  DUP×%d", n)
		}
		fmt.Fprintf(w, "  %s\n", r.line(e.ID, 40))
	}
}
