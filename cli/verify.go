package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// verifyJSON is verify's answer. The provider's evidence is "provider", a PROVIDER_STATE, as
// in retry's and resolve's answers (docs/json.md).
type verifyJSON struct {
	SchemaVersion int                 `json:"schema_version"`
	Source        string              `json:"source"`
	ID            string              `json:"id"`
	ToolSlug      string              `json:"tool_slug"`
	State         string              `json:"state"`
	Provider      model.ProviderState `json:"provider"`
}

// VerifyOptions are verify's flags and argument.
type VerifyOptions struct {
	Source sourceFlags
	ID     string
	// Filter verifies every write it keeps; DryRun says which would be, and checks none.
	Filter string
	DryRun bool
}

// NewCmdVerify is `exectriage verify ID`: the provider's state for one execution's effect.
func NewCmdVerify(env *Env, runF func(context.Context, *VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{}
	cmd := &cobra.Command{
		Use:     "verify ID | verify --filter EXPR|--view NAME",
		Short:   "check the provider's state for one execution, or every write a filter keeps (runs read tools)",
		Example: "  exectriage verify log_a-NA1LoG7qec\n  exectriage verify --filter 'flagged:yes toolkit:gmail' --dry-run",
		Args: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("filter") || c.Flags().Changed("view") {
				if strings.TrimSpace(opts.Filter) == "" && !c.Flags().Changed("view") {
					return usagef("verify", "--filter is empty: name the executions to check")
				}
				return positional(
					"verify",
					0,
					0,
					wantText("with --filter or --view, no execution ID: exectriage verify --filter EXPR [--dry-run]"),
				)(
					c,
					args,
				)
			}
			if opts.DryRun {
				return usagef("verify", "--dry-run goes with --filter or --view")
			}
			return positional("verify", 1, 1, wantText("want exactly one execution ID (exectriage verify ID [--json])"))(c, args)
		},
		ValidArgsFunction: idCompletion(env, false),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "verify", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				if opts.ID == "" {
					return verifyManyRun(c.Context(), env, opts)
				}
				return verifyRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("verify"))
	cmd.Flags().
		StringVar(&opts.Filter, "filter", "", "check every write the filter `QUERY` keeps (one read tool each, within the rate limit)")
	cmd.Flags().
		BoolVar(&opts.DryRun, "dry-run", false, "with --filter: print how many and which executions would be checked, and check none")
	registerFlagCompletions(cmd, env)
	return cmd
}

// verifyRun checks the provider for one execution's effect.
func verifyRun(ctx context.Context, env *Env, opts *VerifyOptions) int {
	sf := &opts.Source
	if code, stop := sf.refuseIfNoReads(env, "verify"); stop {
		return code
	}
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "verify", err)
	}
	defer a.Close()
	if err := a.CheckRead(); err != nil {
		return fail(env, "verify", err)
	}
	// the journal's retries of this execution tell their own effects apart from the original's
	if err := a.ViewJournal(ctx); err != nil && !errors.Is(err, journal.ErrNoJournal) {
		fmt.Fprintf(env.Stderr, "exectriage: %s\n", sanitize.String(err.Error()))
	}
	r := newReport(env, a)
	out, err := r.verifyOne(ctx, a, opts.ID)
	if err != nil {
		return fail(env, "verify", err)
	}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, out)
	} else {
		r.verifyReport(w, out)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "verify", err)
	}
	return ExitOK
}

// verifyOne reads one execution whole and asks the provider for its effect, its secrets hidden.
func (r *report) verifyOne(ctx context.Context, a *app.App, id string) (verifyJSON, error) {
	e, err := a.Get(ctx, id)
	if err != nil {
		return verifyJSON{}, err
	}
	a.Learn(ctx, []model.Execution{e})
	st := a.Verify(ctx, &e)
	st.Reason = r.hide(st.Reason)
	st.ReadArgs = r.policy.JSON(st.ReadArgs, true)
	for i := range st.Matches {
		st.Matches[i].ID, st.Matches[i].Summary = r.hide(st.Matches[i].ID), r.hide(st.Matches[i].Summary)
	}
	return verifyJSON{
		SchemaVersion: SchemaVersion,
		Source:        r.hide(a.SourceName()),
		ID:            r.hide(e.ID),
		ToolSlug:      r.hide(e.ToolSlug),
		State:         string(st.State),
		Provider:      st,
	}, nil
}

// verifyManyRun checks the provider for every write a filter keeps, one read tool each within
// the rate limit, with progress on stderr; reads are skipped (nothing to check). --dry-run says
// which would be checked and checks none.
func verifyManyRun(ctx context.Context, env *Env, opts *VerifyOptions) int {
	sf := &opts.Source
	q, text, show, err := sf.viewQuery(ctx, env, opts.Filter)
	if err != nil {
		return fail(env, "verify", err)
	}
	if q.Empty() && show == config.ShowAll {
		return usageError(env, "verify", "the view %q keeps every execution: name the ones to check (--filter)", sanitize.String(sf.view))
	}
	if !opts.DryRun {
		if code, stop := sf.refuseIfNoReads(env, "verify"); stop {
			return code
		}
	}
	a, ls, err := sf.listing(ctx, env, q)
	if err != nil {
		return fail(env, "verify", err)
	}
	defer a.Close()
	ls.keepShown(show)
	if !opts.DryRun {
		if err := a.CheckRead(); err != nil {
			return fail(env, "verify", err)
		}
	}
	var ids []string
	for _, i := range ls.match {
		e, t := ls.exec(i), ls.triage(i)
		if e.IsToolExecution() && t.Kind != model.KindRead {
			ids = append(ids, e.ID)
		}
	}
	r := newReport(env, a)
	results := []verifyJSON{}
	if !opts.DryRun {
		for k, id := range ids {
			v, err := r.verifyOne(ctx, a, id)
			if err != nil {
				fmt.Fprintf(env.Stderr, "exectriage verify: %d of %d checked before this failed\n", k, len(ids))
				return fail(env, "verify", err)
			}
			results = append(results, v)
			if !sf.json {
				fmt.Fprintf(env.Stderr, "exectriage verify: %d of %d checked\r", k+1, len(ids))
			}
		}
		if !sf.json && len(ids) > 0 {
			fmt.Fprintln(env.Stderr)
		}
	}
	if sf.json {
		printJSON(env.Stdout, struct {
			SchemaVersion int          `json:"schema_version"`
			Source        string       `json:"source"`
			Filter        string       `json:"filter"`
			DryRun        bool         `json:"dry_run"`
			Matched       int          `json:"matched"`
			Chosen        []string     `json:"chosen"`
			Results       []verifyJSON `json:"results"`
		}{SchemaVersion, r.hide(a.SourceName()), text, opts.DryRun, len(ls.match), append([]string{}, ids...), results})
		return ExitOK
	}
	w := bufio.NewWriter(env.Stdout)
	if opts.DryRun {
		fmt.Fprintf(
			w,
			"would check %d write(s) with the provider (of %d the filter kept; reads have nothing to check)\n",
			len(ids),
			len(ls.match),
		)
		for _, id := range ids {
			fmt.Fprintf(w, "  %s\n", id)
		}
	} else {
		counts := map[string]int{}
		for _, v := range results {
			counts[v.State]++
			fmt.Fprintf(w, "%s  %s  %s  %s\n", sanitize.String(v.ID), sanitize.String(v.ToolSlug), strings.ToUpper(v.State),
				r.line(v.Provider.Reason, 120))
		}
		fmt.Fprintf(w, "checked %d write(s): %s\n", len(results), stateCounts(counts))
	}
	if err := w.Flush(); err != nil {
		return fail(env, "verify", err)
	}
	return ExitOK
}

// stateCounts says counts by state, most first ("3 not_found, 1 found").
func stateCounts(n map[string]int) string {
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(n[b]-n[a], strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func (r *report) verifyReport(w io.Writer, v verifyJSON) {
	fmt.Fprintf(w, "source: %s\n", sanitize.String(v.Source))
	fmt.Fprintf(w, "%s  %s  %s\n", sanitize.String(v.ID), sanitize.String(v.ToolSlug), strings.ToUpper(v.State))
	st := v.Provider
	fmt.Fprintf(w, "  %s\n", sanitize.String(st.Reason))
	if st.ReadTool != "" {
		fmt.Fprintf(w, "  checked with %s %s\n", sanitize.String(st.ReadTool), r.line(string(st.ReadArgs), 200))
	}
	for _, m := range st.Matches {
		line := sanitize.String(m.ID)
		if !m.Time.IsZero() {
			line += "  " + stamp(m.Time)
		}
		if m.Summary != "" {
			line += "  " + r.line(m.Summary, 120)
		}
		if n := m.RetryNote(); n != "" {
			line += "  ← " + sanitize.String(n)
		}
		fmt.Fprintf(w, "  match %s\n", line)
	}
	switch model.ProviderStateKind(v.State) {
	case model.ProviderFound:
		fmt.Fprintln(w, "  the effect exists: do not retry")
	case model.ProviderNotFound:
		fmt.Fprintln(w, "  no effect found: a guarded retry may be offered after confirmation")
	}
}
