package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// MarkOptions are mark's flags and arguments.
type MarkOptions struct {
	Source  sourceFlags
	Note    string
	ID      string
	Verdict model.Verdict
	// Filter marks every execution it keeps (mark --filter EXPR VERDICT); DryRun says which
	// would be, and marks none.
	Filter string
	DryRun bool
}

// NewCmdMark is `exectriage mark ID VERDICT [--note TEXT]`.
func NewCmdMark(env *Env, runF func(context.Context, *MarkOptions) error) *cobra.Command {
	opts := &MarkOptions{}
	cmd := &cobra.Command{
		Use:   "mark ID VERDICT | mark --filter EXPR|--view NAME VERDICT",
		Short: "record a verdict: " + strings.Join(verdictNames(), ", "),
		Example: "  exectriage mark log_a-NA1LoG7qec confirmed_succeeded --note 'the customer found it in spam'\n" +
			"  exectriage mark --filter 'toolkit:github outcome:failed' ignored --dry-run",
		Args: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("filter") || c.Flags().Changed("view") {
				return positional(
					"mark",
					1,
					1,
					wantText("with --filter or --view, want one verdict: exectriage mark --filter EXPR VERDICT [--dry-run]"),
				)(
					c,
					args,
				)
			}
			if opts.DryRun {
				return usagef("mark", "--dry-run goes with --filter or --view (one execution is marked or not)")
			}
			return positional(
				"mark",
				2,
				2,
				wantText("want an execution id and a verdict: exectriage mark ID VERDICT [--note TEXT]"),
			)(
				c,
				args,
			)
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			switch len(args) {
			case 0:
				return completeIDs(env, c, toComplete)
			case 1:
				return verdictNames(), cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			many := c.Flags().Changed("filter") || c.Flags().Changed("view")
			v, ok := model.ParseVerdict(args[len(args)-1])
			if !ok {
				return usagef(
					"mark",
					"unknown verdict %q: want one of %s",
					sanitize.String(args[len(args)-1]),
					strings.Join(verdictNames(), ", "),
				)
			}
			opts.Verdict = v
			if !many {
				opts.ID = args[0]
			} else if strings.TrimSpace(opts.Filter) == "" && !c.Flags().Changed("view") {
				return usagef("mark", "--filter is empty: it would mark every execution; name the ones to mark")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "mark", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				if many {
					return markManyRun(c.Context(), env, opts)
				}
				return markRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("mark"))
	cmd.Flags().StringVar(&opts.Note, "note", "", "a note for the journal")
	cmd.Flags().StringVar(&opts.Filter, "filter", "", "mark every execution the filter `QUERY` keeps (the list's filter language)")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "with --filter: print how many and which executions would be marked, and mark none")
	registerFlagCompletions(cmd, env)
	return cmd
}

func verdictNames() []string {
	out := make([]string, len(model.Verdicts()))
	for i, v := range model.Verdicts() {
		out[i] = string(v)
	}
	return out
}

// markRun records one verdict.
func markRun(ctx context.Context, env *Env, opts *MarkOptions) int {
	sf := &opts.Source
	v, id := opts.Verdict, opts.ID
	if code, stop := sf.refuseIfReadOnly(env, "mark", "nothing was marked"); stop {
		return code
	}
	j, code := openJournalFor(ctx, env, "mark", sf)
	if j == nil {
		return code
	}
	defer j.Close()
	// A verdict on an execution the source does not have (a typo, another project's id) would
	// sit in the journal and decide a later retry of nothing anyone checked: refuse it. So is
	// one that does not fit the execution (confirmed_failed on a read, duplicate outside a
	// group).
	a, c, err := sf.choose(ctx, env, []string{id}, "")
	if err != nil {
		return fail(env, "mark", fmt.Errorf("nothing was marked: %w", err))
	}
	defer a.Close()
	fits := a.VerdictsFor(&c.Execs[0], &c.Triage[0])
	if !slices.Contains(fits, v) {
		names := make([]string, len(fits))
		for k, f := range fits {
			names[k] = string(f)
		}
		t := &c.Triage[0]
		return usageError(
			env,
			"mark",
			"%s does not fit %s (a %s, outcome %s%s): nothing was marked; it can be marked %s",
			v,
			sanitize.String(id),
			t.Kind,
			t.Outcome,
			map[bool]string{true: ", in a duplicate group", false: ", in no duplicate group"}[t.GroupID != ""],
			strings.Join(names, ", "),
		)
	}
	a.UseJournal(j)
	res, err := a.Mark(ctx, id, v, opts.Note)
	if err != nil {
		return fail(env, "mark", err)
	}
	rec := res.Record
	if sf.json {
		printJSON(env.Stdout, struct {
			SchemaVersion int                   `json:"schema_version"`
			ExecutionID   string                `json:"execution_id"`
			Journal       string                `json:"journal"`
			Verdict       journal.VerdictRecord `json:"verdict"`
			Deciding      model.Verdict         `json:"guard_goes_by"`
			Effect        string                `json:"effect"`
		}{SchemaVersion, rec.ExecutionID, j.Where(), rec, res.Deciding, res.Effect})
		return ExitOK
	}
	line(env.Stdout, "marked %s %s (by %s): %s", rec.ExecutionID, rec.Verdict, rec.Who, res.Effect)
	return ExitOK
}

// markManyRun marks every execution a filter keeps with one verdict, each journalled as if
// marked one by one; executions the verdict does not fit are skipped and named. --dry-run says
// what would be marked and marks nothing.
func markManyRun(ctx context.Context, env *Env, opts *MarkOptions) int {
	sf := &opts.Source
	q, text, show, err := sf.viewQuery(ctx, env, opts.Filter)
	if err != nil {
		return fail(env, "mark", err)
	}
	if q.Empty() && show == config.ShowAll {
		return usageError(env, "mark", "the view %q keeps every execution: name the ones to mark (--filter)", sanitize.String(sf.view))
	}
	if !opts.DryRun {
		if code, stop := sf.refuseIfReadOnly(env, "mark", "nothing was marked"); stop {
			return code
		}
	}
	a, ls, err := sf.listing(ctx, env, q)
	if err != nil {
		return fail(env, "mark", fmt.Errorf("nothing was marked: %w", err))
	}
	defer a.Close()
	ls.keepShown(show)
	type skip struct {
		ID  string `json:"id"`
		Why string `json:"why"`
	}
	var ids []string
	skipped := []skip{}
	for _, i := range ls.match {
		e, t := ls.exec(i), ls.triage(i)
		if !e.IsToolExecution() {
			continue // a delivery or an account event takes no verdict
		}
		if fits := a.VerdictsFor(&e, &t); !slices.Contains(fits, opts.Verdict) {
			skipped = append(skipped, skip{e.ID, fmt.Sprintf("a %s, outcome %s: %s does not fit it", t.Kind, t.Outcome, opts.Verdict)})
			continue
		}
		ids = append(ids, e.ID)
	}
	marked := []string{}
	if !opts.DryRun && len(ids) > 0 {
		j, code := openJournalFor(ctx, env, "mark", sf)
		if j == nil {
			return code
		}
		defer j.Close()
		a.UseJournal(j)
		for k, id := range ids {
			if _, err := a.Mark(ctx, id, opts.Verdict, opts.Note); err != nil {
				fmt.Fprintf(env.Stderr, "exectriage mark: %d of %d marked before this failed\n", len(marked), len(ids))
				return fail(env, "mark", err)
			}
			marked = append(marked, id)
			if !sf.json && (k+1)%100 == 0 {
				fmt.Fprintf(env.Stderr, "exectriage mark: %d of %d marked\n", k+1, len(ids))
			}
		}
	}
	if sf.json {
		printJSON(env.Stdout, struct {
			SchemaVersion int           `json:"schema_version"`
			Verdict       model.Verdict `json:"verdict"`
			Filter        string        `json:"filter"`
			DryRun        bool          `json:"dry_run"`
			Matched       int           `json:"matched"`
			Chosen        []string      `json:"chosen"`
			Marked        []string      `json:"marked"`
			Skipped       []skip        `json:"skipped"`
		}{SchemaVersion, opts.Verdict, text, opts.DryRun, len(ls.match), append([]string{}, ids...), marked, skipped})
		return ExitOK
	}
	verb := "marked"
	if opts.DryRun {
		verb = "would mark"
	}
	line(
		env.Stdout,
		"%s %d execution(s) %s (of %d the filter kept; %d skipped: the verdict does not fit them)",
		verb,
		len(ids),
		opts.Verdict,
		len(ls.match),
		len(skipped),
	)
	if opts.DryRun {
		for _, id := range ids {
			line(env.Stdout, "  %s", id)
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(env.Stderr, "exectriage mark: skipped %s: %s\n", sanitize.String(s.ID), s.Why)
	}
	return ExitOK
}
