package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

type journalAttempt struct {
	model.RetryAttempt
	Lease *app.Lease `json:"lease,omitempty"`
}

type journalOutput struct {
	Journal       string              `json:"journal"`
	Recovered     int                 `json:"recovered"`
	Confirmations []app.Confirmation  `json:"confirmations"`
	Attempts      []journalAttempt    `json:"attempts"`
	Verdicts      []app.VerdictRecord `json:"verdicts"`
}

// runJournal is `exectriage journal [ID] [--json]`: confirmations, attempts and verdicts,
// newest first, of one execution or of all.
func runJournal(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "journal")
	sf.jonly = true
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 1 {
		return usageError(env, "journal", "want at most one execution id")
	}
	exec := ""
	if len(pos) == 1 {
		exec = pos[0]
	}
	j, code := openJournalFor(ctx, env, "journal", sf)
	if j == nil {
		return code
	}
	defer j.Close()
	out := journalOutput{Journal: j.Where(), Recovered: j.Recovered,
		Confirmations: []app.Confirmation{}, Attempts: []journalAttempt{}, Verdicts: []app.VerdictRecord{}}
	en, err := j.Entries(ctx, exec)
	if err != nil {
		return fail(env, "journal", err)
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
	if sf.json {
		printJSON(env.Stdout, out)
		return ExitOK
	}
	printJournal(env.Stdout, &out)
	return ExitOK
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
		entries = append(entries, entry{v.At, fmt.Sprintf("verdict  %s %s by %s%s%s", v.ExecutionID, v.Verdict, v.Who, colon(v.Note), sourceNote(v.Source))})
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
		line(w, "INDETERMINATE attempts block retries of their execution until resolved: `exectriage resolve ID`")
	}
}
