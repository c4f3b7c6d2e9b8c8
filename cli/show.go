package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

type showJSON struct {
	Source         string          `json:"source"`
	Execution      json.RawMessage `json:"execution"` // the record in the Logs API detail shape, secrets redacted
	Triage         execJSON        `json:"triage"`
	DuplicateGroup *groupJSON      `json:"duplicate_group"`
}

// runShow prints one execution, its whole record and its triage.
func runShow(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "show")
	reveal := fs.Bool("reveal", false, "show secrets in the record (tokens, passwords, keys) instead of [REDACTED]; the API key stays hidden")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(env, "show", "want exactly one execution ID (exectriage show ID [--json] [--reveal])")
	}
	a, l, err := sf.load(ctx, env)
	if err != nil {
		return fail(env, "show", err)
	}
	defer a.Close()
	i, err := l.Lookup(ctx, pos[0])
	if err != nil {
		return fail(env, "show", err)
	}
	r := newReport(a, l)
	e, t := &l.Execs[i], &l.Result.Triage[i]
	rec, err := json.Marshal(model.ToWire(e, true))
	if err != nil {
		return fail(env, "show", err)
	}
	out := showJSON{Source: r.hide(a.SourceName()), Execution: r.policy.JSON(rec, *reveal), Triage: toExecJSON(e, t, r.hide)}
	if g, ok := l.Result.Group(t.GroupID); ok && t.GroupID != "" {
		gj := r.toGroupJSON(&g)
		out.DuplicateGroup = &gj
	}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, out)
	} else {
		err = r.showReport(w, out, e, t)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "show", err)
	}
	return ExitOK
}

func (r *report) showReport(w io.Writer, out showJSON, e *model.Execution, t *model.Triage) error {
	fmt.Fprintf(w, "source: %s\n", r.str(r.a.SourceName()))
	fmt.Fprintf(w, "execution %s\n", r.str(e.ID))
	row := func(k, v string) { fmt.Fprintf(w, "  %-9s %s\n", k, v) }
	row("time", stamp(e.Timestamp))
	row("tool", fmt.Sprintf("%s (%s) · %s", r.str(e.ToolSlug), r.str(e.ToolkitSlug), t.Kind))
	row("who", r.str(who(e)))
	row("status", fmt.Sprintf("%s · %s", r.str(orNone(e.Status)), duration(e)))
	row("outcome", fmt.Sprintf("%s: %s", t.Outcome, r.str(t.Reason)))
	flag := "no"
	if t.Flagged {
		flag = "yes: check the provider before any retry (exectriage verify " + r.str(e.ID) + ")"
	}
	row("flagged", flag)
	if g := out.DuplicateGroup; g != nil {
		ids := make([]string, len(g.ExecutionIDs))
		for k, id := range g.ExecutionIDs {
			ids[k] = sanitize.String(id)
		}
		row("group", fmt.Sprintf("%s %s: %s", sanitize.String(g.ID), g.Pattern, strings.Join(ids, " → ")))
		if g.Match != "" {
			row("", sanitize.String(g.Match))
		}
		if g.Reason != "" {
			row("", sanitize.String(g.Reason))
		}
	}
	if t.OldSDK != "" {
		row("old SDK", r.str(t.OldSDK))
	}
	if e.RequestID != "" {
		row("request", r.str(e.RequestID))
	}
	var rec bytes.Buffer
	if err := json.Indent(&rec, out.Execution, "", "  "); err != nil {
		return err
	}
	fmt.Fprintf(w, "record:\n%s\n", sanitize.Block(rec.String(), 0))
	return nil
}
