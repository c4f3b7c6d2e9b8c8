package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

type showJSON struct {
	SchemaVersion  int             `json:"schema_version"`
	Source         string          `json:"source"`
	Execution      json.RawMessage `json:"execution"` // the record in the Logs API detail shape, secrets redacted
	Triage         execJSON        `json:"triage"`
	DuplicateGroup *groupJSON      `json:"duplicate_group"`
}

// ShowOptions are show's flags and argument.
type ShowOptions struct {
	Source sourceFlags
	Reveal bool
	ID     string
}

// NewCmdShow is `exectriage show ID`: one execution, its whole record and its triage.
func NewCmdShow(env *Env, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{}
	cmd := &cobra.Command{
		Use:               "show ID",
		Short:             "one execution with its triage (secrets redacted unless --reveal)",
		Example:           "  exectriage show log_a-NA1LoG7qec\n  exectriage show log_a-NA1LoG7qec --json",
		Args:              positional("show", 1, 1, wantText("want exactly one execution ID (exectriage show ID [--json] [--reveal])")),
		ValidArgsFunction: idCompletion(env, false),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "show", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return showRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("show"))
	cmd.Flags().BoolVar(&opts.Reveal, "reveal", false, "show secrets in the record (tokens, passwords, keys) instead of [REDACTED]; the API key stays hidden")
	registerFlagCompletions(cmd, env)
	return cmd
}

// showRun prints one execution, its whole record and its triage.
func showRun(ctx context.Context, env *Env, opts *ShowOptions) int {
	sf := &opts.Source
	a, l, err := sf.load(ctx, env)
	if err != nil {
		return fail(env, "show", err)
	}
	defer a.Close()
	i, err := l.Lookup(ctx, opts.ID)
	if err != nil {
		return fail(env, "show", err)
	}
	r := newReport(env, a, l)
	e, t := &l.Execs[i], &l.Result.Triage[i]
	rec, err := json.Marshal(model.ToWire(e, true))
	if err != nil {
		return fail(env, "show", err)
	}
	out := showJSON{SchemaVersion: SchemaVersion, Source: r.hide(a.SourceName()), Execution: r.policy.JSON(rec, opts.Reveal), Triage: toExecJSON(e, t, r.hide)}
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
		flag = "yes: check the provider before any retry (" + strings.Trim(r.a.Hint("verify", e.ID), "`") + ")"
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
	if t.Case != nil {
		row("journal", r.str(caseLine(t.Case)))
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

// caseLine is the journal's case in a line: what was done, and whether that settled it.
func caseLine(c *model.Case) string {
	var parts []string
	if c.RetryOf != "" {
		parts = append(parts, "exectriage's retry of "+c.RetryOf)
	}
	if c.Retry != "" {
		p := "retried (" + string(c.Retry) + ")"
		if c.RetryLog != "" {
			p += " as " + c.RetryLog
		}
		parts = append(parts, p)
	}
	if c.Verdict != "" {
		parts = append(parts, "verdict "+string(c.Verdict))
	}
	if c.Settled {
		parts = append(parts, "settled")
	}
	return strings.Join(parts, " · ")
}
