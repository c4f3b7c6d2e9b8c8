package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/triage"
)

type journalAttempt struct {
	model.RetryAttempt
	Lease *journal.Lease `json:"lease,omitempty"`
}

type journalOutput struct {
	SchemaVersion int                     `json:"schema_version"`
	Journal       string                  `json:"journal"`
	Recovered     int                     `json:"recovered"`
	Confirmations []journal.Confirmation  `json:"confirmations"`
	Attempts      []journalAttempt        `json:"attempts"`
	Verdicts      []journal.VerdictRecord `json:"verdicts"`
	in            []string                // the session's flags, for the hints (app.SessionArgsOf)
}

// JournalOptions are journal's flags and argument.
type JournalOptions struct {
	Source sourceFlags
	Limit  int    // the newest this many entries, of any kind (0: all)
	ID     string // one execution's records ("": all)
}

// NewCmdJournal is `exectriage journal [ID]`: confirmations, attempts and verdicts, newest
// first, of one execution or of all.
func NewCmdJournal(env *Env, runF func(context.Context, *JournalOptions) error) *cobra.Command {
	opts := &JournalOptions{}
	cmd := &cobra.Command{
		Use:   "journal [ID]",
		Short: "the audit trail of confirmations, retries and verdicts (of one execution with ID)",
		Long: "The audit trail of confirmations, retries and verdicts, newest first: of every execution, or of\n" +
			"one with ID (an execution's log id, or a retry attempt's id as hints and `resolve` name it).\n" +
			"An ID the journal has nothing for is exit 2. --demo reads the demo's own journal.",
		Example:           "  exectriage journal\n  exectriage journal log_a-NA1LoG7qec\n  exectriage journal --demo --json",
		Args:              positional("journal", 0, 1, wantText("want at most one execution or attempt id")),
		ValidArgsFunction: idCompletion(env, false),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if opts.Limit < 0 {
				return usagef("journal", "--limit must not be negative")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "journal", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return journalRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("journal"))
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "show the newest `N` entries, of any kind (0: all)")
	registerFlagCompletions(cmd, env)
	return cmd
}

// journalRun prints the journal.
func journalRun(ctx context.Context, env *Env, opts *JournalOptions) int {
	sf := &opts.Source
	sf.jonly = true
	exec := opts.ID
	j, err := sf.openExistingJournal(ctx, env)
	if errors.Is(err, app.ErrNoJournal) { // there is none, and a read makes none
		line(env.Stderr, "exectriage journal: %s", app.HideKnown(err.Error(), env.Getenv("COMPOSIO_API_KEY")))
		if exec != "" {
			return ExitUsage
		}
		if sf.json {
			printJSON(
				env.Stdout,
				journalOutput{
					SchemaVersion: SchemaVersion,
					Confirmations: []journal.Confirmation{},
					Attempts:      []journalAttempt{},
					Verdicts:      []journal.VerdictRecord{},
				},
			)
		}
		return ExitOK
	}
	if err != nil {
		return journalOpenFailed(env, "journal", err)
	}
	defer j.Close()
	out := journalOutput{SchemaVersion: SchemaVersion, Journal: j.Where(), Recovered: j.Recovered,
		Confirmations: []journal.Confirmation{}, Attempts: []journalAttempt{}, Verdicts: []journal.VerdictRecord{},
		in: app.SessionArgsOf(sf.options(env))}
	en, err := j.Entries(ctx, exec)
	if err != nil {
		return fail(env, "journal", err)
	}
	if exec != "" && len(en.Confirmations)+len(en.Attempts)+len(en.Verdicts) == 0 {
		// an attempt's id (what resolve takes, what hints name) shows its execution's records
		if at, err := app.FindAttempt(ctx, j, exec); err == nil && at.ID == exec {
			if en, err = j.Entries(ctx, at.ExecutionID); err != nil {
				return fail(env, "journal", err)
			}
		}
	}
	if exec != "" && len(en.Confirmations)+len(en.Attempts)+len(en.Verdicts) == 0 {
		return usageError(
			env,
			"journal",
			"the journal %s has nothing for %s: no confirmation, retry or verdict (check the id with `%s`)",
			sanitize.String(
				app.HideKnown(j.Where(), env.Getenv("COMPOSIO_API_KEY")),
			),
			sanitize.String(exec),
			triage.CommandLine(out.in, "show", exec),
		)
	}
	out.Confirmations = append(out.Confirmations, en.Confirmations...)
	for _, a := range en.Attempts {
		ja := journalAttempt{RetryAttempt: a}
		if l, err := j.Lease(ctx, a.ID); err == nil {
			ja.Lease = &l
		}
		out.Attempts = append(out.Attempts, ja)
	}
	out.Verdicts = append(out.Verdicts, en.Verdicts...)
	if n := opts.Limit; n > 0 {
		out.keepNewest(n)
	}
	if sf.json {
		printJSON(env.Stdout, out)
		return ExitOK
	}
	printJournal(env.Stdout, &out)
	return ExitOK
}

// keepNewest keeps the n newest records of the trail, of whatever kind (each kind in its own
// order), as the README says of --limit: one of each kind was not the newest n.
func (out *journalOutput) keepNewest(n int) {
	var at []time.Time
	for _, c := range out.Confirmations {
		at = append(at, c.At)
	}
	for _, a := range out.Attempts {
		at = append(at, a.CreatedAt)
	}
	for _, v := range out.Verdicts {
		at = append(at, v.At)
	}
	if len(at) <= n {
		return
	}
	order := make([]int, len(at))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return at[order[i]].After(at[order[j]]) })
	keep := make([]bool, len(at))
	for _, i := range order[:n] {
		keep[i] = true
	}
	k := 0
	out.Confirmations = slices.DeleteFunc(out.Confirmations, func(journal.Confirmation) bool { k++; return !keep[k-1] })
	out.Attempts = slices.DeleteFunc(out.Attempts, func(journalAttempt) bool { k++; return !keep[k-1] })
	out.Verdicts = slices.DeleteFunc(out.Verdicts, func(journal.VerdictRecord) bool { k++; return !keep[k-1] })
}

// sourceNote names the source a record was made against; older records have none.
func sourceNote(s string) string {
	if s == "" {
		return ""
	}
	return "; on " + sanitize.String(s)
}

// printJournal prints one timeline, newest first.
func printJournal(w io.Writer, out *journalOutput) {
	type entry struct {
		at   time.Time
		text string
	}
	var entries []entry
	for _, c := range out.Confirmations {
		text := fmt.Sprintf("confirm  %s by %s: %q (evidence: outcome %s%s; provider %s%s)",
			c.ExecutionID, c.Who, c.Reason, c.Outcome, colon(c.OutcomeReason), c.Provider.State, colon(c.Provider.Reason))
		if c.AttemptID != "" {
			text += " -> attempt " + c.AttemptID
		}
		text += sourceNote(c.Source)
		entries = append(entries, entry{c.At, text})
	}
	indeterminate := false
	for _, a := range out.Attempts {
		state := string(a.State)
		if (a.State == model.AttemptIntent || a.State == model.AttemptSent) && a.Lease != nil {
			state += fmt.Sprintf(" (in flight: %s, until %s)", a.Lease.Owner, utc(a.Lease.Deadline))
		}
		indeterminate = indeterminate || a.State == model.AttemptIndeterminate
		text := fmt.Sprintf("attempt  %s %s %s by %s: %s", a.ExecutionID, a.ID, a.ToolSlug, a.Who, strings.ToUpper(state))
		if a.NewLogID != "" {
			text += ", new log " + a.NewLogID
		}
		if a.Detail != "" {
			text += "; " + a.Detail
		}
		if !a.SentAt.IsZero() {
			text += "; sent " + utc(a.SentAt)
		}
		if !a.FinishedAt.IsZero() {
			text += "; ended " + utc(a.FinishedAt)
		}
		if a.Lease != nil && a.Lease.Target != "" {
			text += "; to " + a.Lease.Target
		}
		entries = append(entries, entry{a.CreatedAt, text})
	}
	for _, v := range out.Verdicts {
		entries = append(
			entries,
			entry{v.At, fmt.Sprintf("verdict  %s %s by %s%s%s", v.ExecutionID, v.Verdict, v.Who, colon(v.Note), sourceNote(v.Source))},
		)
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].at.After(entries[j].at) })
	line(w, "journal %s", out.Journal)
	if len(entries) == 0 {
		line(w, "(empty)")
		return
	}
	for _, e := range entries {
		line(w, "%s  %s", utc(e.at), e.text)
	}
	if indeterminate {
		line(
			w,
			"INDETERMINATE attempts block retries of their execution until resolved: `%s`",
			triage.CommandLine(out.in, "resolve", "ATTEMPT"),
		)
	}
}
