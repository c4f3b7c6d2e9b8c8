package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

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
}

// NewCmdMark is `exectriage mark ID VERDICT [--note TEXT]`.
func NewCmdMark(env *Env, runF func(context.Context, *MarkOptions) error) *cobra.Command {
	opts := &MarkOptions{}
	cmd := &cobra.Command{
		Use:     "mark ID VERDICT",
		Short:   "record a verdict: " + strings.Join(verdictNames(), ", "),
		Example: "  exectriage mark log_a-NA1LoG7qec confirmed_succeeded --note 'the customer found it in spam'",
		Args:    positional("mark", 2, 2, wantText("want an execution id and a verdict: exectriage mark ID VERDICT [--note TEXT]")),
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
			v, ok := model.ParseVerdict(args[1])
			if !ok {
				return usagef("mark", "unknown verdict %q: want one of %s", sanitize.String(args[1]), strings.Join(verdictNames(), ", "))
			}
			opts.ID, opts.Verdict = args[0], v
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "mark", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return markRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("mark"))
	cmd.Flags().StringVar(&opts.Note, "note", "", "a note for the journal")
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
		return usageError(env, "mark", "%s does not fit %s (a %s, outcome %s%s): nothing was marked; it can be marked %s",
			v, sanitize.String(id), t.Kind, t.Outcome, map[bool]string{true: ", in a duplicate group", false: ", in no duplicate group"}[t.GroupID != ""], strings.Join(names, ", "))
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
