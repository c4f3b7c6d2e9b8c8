package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/triage"
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
	// Session shows one tool-router session's timeline instead of one execution.
	Session string
}

// NewCmdShow is `exectriage show ID`: one execution, its whole record and its triage.
func NewCmdShow(env *Env, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{}
	cmd := &cobra.Command{
		Use:     "show ID | --session ID",
		Short:   "one execution with its triage (secrets redacted unless --reveal), or a session's timeline",
		Example: "  exectriage show log_a-NA1LoG7qec\n  exectriage show log_a-NA1LoG7qec --json\n  exectriage show --session trs_7bK2xQ",
		Args: positional(
			"show",
			0,
			1,
			wantText("want exactly one execution ID (exectriage show ID [--json] [--reveal]), or --session ID"),
		),
		ValidArgsFunction: idCompletion(env, false),
		RunE: func(c *cobra.Command, args []string) error {
			switch sid := strings.TrimSpace(opts.Session); {
			case c.Flags().Changed("session") && sid == "":
				return usagef("show", "--session wants a tool-router session ID (trs_...)")
			case sid != "" && len(args) > 0:
				return usagef(
					"show",
					"--session shows a whole session: drop the execution ID %q, or drop --session",
					sanitize.String(args[0]),
				)
			case sid == "" && len(args) != 1:
				return usagef("show", "want exactly one execution ID (exectriage show ID [--json] [--reveal]), or --session ID")
			case sid == "":
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "show", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				if opts.Session != "" {
					return showSessionRun(c.Context(), env, opts)
				}
				return showRun(c.Context(), env, opts)
			}))
		},
	}
	cmd.Flags().
		StringVar(&opts.Session, "session", "", "the timeline of one tool-router session `ID`: each execution in the order it ran, a "+
			"meta tool's children under it, the gaps, the duplicates and retries marked")
	opts.Source.register(cmd.Flags(), commandFlags("show"))
	cmd.Flags().
		BoolVar(&opts.Reveal, "reveal", false,
			"show secrets in the record (tokens, passwords, keys) instead of [REDACTED]; the API key stays hidden")
	registerFlagCompletions(cmd, env)
	return cmd
}

// showRun prints one execution, its whole record and its triage.
func showRun(ctx context.Context, env *Env, opts *ShowOptions) int {
	sf := &opts.Source
	a, c, err := sf.choose(ctx, env, []string{opts.ID}, "")
	if err != nil {
		return fail(env, "show", err)
	}
	defer a.Close()
	r := newReport(env, a)
	r.c = c
	e, t := &c.Execs[0], &c.Triage[0]
	rec, err := json.Marshal(model.ToWire(e, true))
	if err != nil {
		return fail(env, "show", err)
	}
	out := showJSON{
		SchemaVersion: SchemaVersion,
		Source:        r.hide(a.SourceName()),
		Execution:     r.policy.JSON(rec, opts.Reveal),
		Triage:        toExecJSON(e, t, r.hide),
	}
	if g, ok := c.Group(t.GroupID); ok && t.GroupID != "" {
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
		if len(g.Deliveries) > 0 {
			ds := make([]string, len(g.Deliveries))
			for k, d := range g.Deliveries {
				ds[k] = sanitize.String(d)
			}
			row("", "trigger deliveries: "+strings.Join(ds, " → "))
		}
	}
	if sd, ok := r.deliveries().StartedBy(e); ok { // the trigger delivery whose handler made it
		how := "the same user and account, seconds before"
		if sd.ByID {
			how = "its trace names the event"
		}
		row("trigger", fmt.Sprintf("started by delivery %s (event %s, attempt %d; %s)", r.str(sd.ID), r.str(sd.EventID), sd.Attempt, how))
	}
	if d := e.Delivery; d != nil { // a trigger delivery: what identifies it
		what := "event " + r.str(orNone(d.EventID))
		if d.Attempt > 0 {
			what += fmt.Sprintf(", attempt %d", d.Attempt)
		}
		if d.TriggerID != "" {
			what += ", trigger " + r.str(d.TriggerID)
		}
		if d.Error != "" {
			what += "; the handler failed: " + r.str(d.Error)
		}
		row("delivery", what)
		if sub, ok := r.deliveries().SubscriptionOf(e.ID); ok {
			row("", r.str(sub.Line()))
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
	fmt.Fprint(w, "record:\n")
	if err := writeIndented(w, out.Execution, "  ", blockSafe); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
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

// sessionJSON is show --session's answer: the session's executions in the order they ran.
type sessionJSON struct {
	SchemaVersion int           `json:"schema_version"`
	Source        string        `json:"source"`
	Session       string        `json:"session"`
	Steps         []sessionStep `json:"steps"`
	Groups        []groupJSON   `json:"duplicate_groups"`
}

// sessionStep is one execution of a session's timeline.
type sessionStep struct {
	execJSON
	Child  bool   `json:"child"`                   // a meta tool's child, under its parent
	Parent string `json:"parent_log_id,omitempty"` // the meta tool execution that ran it
	GapMS  *int64 `json:"gap_ms,omitempty"`        // from the end of the steps before it to its start
	// Continues is the call that asked for approval this approved re-call continues.
	Continues string `json:"continues,omitempty"`
}

// showSessionRun prints one tool-router session's timeline: its executions in the window and
// those the source finds by the session's id, in the order they ran (triage.Timeline).
func showSessionRun(ctx context.Context, env *Env, opts *ShowOptions) int {
	sf := &opts.Source
	sid := strings.TrimSpace(opts.Session)
	a, c, err := sf.choose(ctx, env, nil, sid)
	if err != nil {
		return fail(env, "show", err)
	}
	defer a.Close()
	r := newReport(env, a)
	r.c = c
	if len(c.Execs) == 0 {
		return fail(
			env,
			"show",
			fmt.Errorf(
				"session %s: no execution of it in the window or at the source "+
					"(a list entry carries no session id: widen --since, or load an export): %w",
				sanitize.String(sid),
				app.ErrNotFound,
			),
		)
	}
	out := sessionJSON{
		SchemaVersion: SchemaVersion,
		Source:        r.hide(a.SourceName()),
		Session:       sid,
		Steps:         []sessionStep{},
		Groups:        []groupJSON{},
	}
	seen := map[string]bool{}
	for _, ts := range triage.Timeline(c.Execs) {
		e, t := &c.Execs[ts.Index], &c.Triage[ts.Index]
		st := sessionStep{execJSON: toExecJSON(e, t, r.hide), Child: ts.Child}
		if ts.Continues != "" {
			st.Continues = r.hide(ts.Continues)
		}
		if e.Parent != nil {
			st.Parent = r.hide(e.Parent.LogID)
		}
		if ts.HasGap {
			ms := ts.Gap.Milliseconds()
			st.GapMS = &ms
		}
		out.Steps = append(out.Steps, st)
		if g, ok := c.Group(t.GroupID); ok && t.GroupID != "" && !seen[t.GroupID] {
			seen[t.GroupID] = true
			out.Groups = append(out.Groups, r.toGroupJSON(&g))
		}
	}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, out)
	} else {
		err = r.sessionReport(w, out)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "show", err)
	}
	return ExitOK
}

// sessionReport writes a session's timeline for a person: one line per execution, a meta
// tool's children indented under it, then the duplicate groups among them.
func (r *report) sessionReport(w io.Writer, out sessionJSON) error {
	fmt.Fprintf(w, "source: %s\n", r.str(r.a.SourceName()))
	fmt.Fprintf(w, "session %s · %d executions, oldest first\n", sanitize.String(out.Session), len(out.Steps))
	for _, s := range out.Steps {
		flag, tree, gap := " ", "", ""
		if s.Flagged {
			flag = "!"
		}
		if s.Child {
			tree = "└ "
		}
		if s.GapMS != nil {
			gap = "  " + model.GapText(time.Duration(*s.GapMS)*time.Millisecond)
		}
		marks := ""
		if s.Continues != "" {
			marks += "  approved re-call of " + sanitize.String(s.Continues)
		}
		if s.DuplicateGroup != nil {
			marks += "  in " + sanitize.String(*s.DuplicateGroup)
		}
		if s.Journal != nil {
			marks += "  " + r.str(caseLine(s.Journal))
		}
		fmt.Fprintf(
			w,
			"%s %s  %s%s  %s  %s%s%s\n",
			flag,
			s.Timestamp,
			tree,
			sanitize.String(s.ToolSlug),
			strings.ToUpper(s.Outcome),
			sanitize.String(s.ID),
			gap,
			marks,
		)
	}
	for _, g := range out.Groups {
		ids := make([]string, len(g.ExecutionIDs))
		for k, id := range g.ExecutionIDs {
			ids[k] = sanitize.String(id)
		}
		fmt.Fprintf(w, "\ngroup %s %s: %s\n  %s\n", sanitize.String(g.ID), g.Pattern, strings.Join(ids, " → "), sanitize.String(g.Reason))
	}
	return nil
}

// deliveries indexes the window's trigger deliveries (for StartedBy).
func (r *report) deliveries() *triage.Deliveries {
	if r.c != nil {
		return r.c.Deliveries
	}
	return triage.NewDeliveries()
}
