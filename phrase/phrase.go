// Package phrase words what the journal keeps of an execution (confirmations, retry attempts,
// verdicts) for a person: once, for the TUI's panes, the CLI and the support bundle. The
// application layer returns the records; the fronts phrase them here.
package phrase

import (
	"cmp"
	"fmt"
	"sort"
	"time"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/triage"
)

// Line is one entry of an execution's journal history, phrased for a person.
type Line struct {
	Time time.Time
	Text string
}

// History phrases an execution's journal records, oldest first: the one wording the TUI's
// detail pane and the bundles share. hint words a command line of the session (app.App.Hint:
// in backticks, with the session's flags).
func History(confirmations []journal.Confirmation, attempts []model.RetryAttempt, verdicts []journal.VerdictRecord, hint Hint,
	now time.Time) []Line {
	var out []Line
	for _, c := range confirmations {
		out = append(out, Line{Time: c.At, Text: ConfirmationText(c)})
	}
	for _, a := range attempts {
		at := a.CreatedAt
		if !a.FinishedAt.IsZero() {
			at = a.FinishedAt
		}
		out = append(out, Line{Time: at, Text: AttemptText(a, hint, now)})
	}
	for _, v := range verdicts {
		out = append(out, Line{Time: v.At, Text: VerdictText(v)})
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Time.Before(out[k].Time) })
	return out
}

// ConfirmationText phrases a confirmation of failure.
func ConfirmationText(c journal.Confirmation) string {
	return fmt.Sprintf(
		"confirmed failed by %s: %q (outcome %s, provider %s)",
		c.Who,
		c.Reason,
		c.Outcome,
		cmp.Or(string(c.Provider.State), "unchecked"),
	) + onSource(c.Source)
}

// onSource names the source a record was made against ("" for records older than that).
func onSource(s string) string {
	if s == "" {
		return ""
	}
	return " on " + s
}

// Hint words a command line of the session: verb and its arguments with the session's flags, in
// backticks.
type Hint func(verb string, args ...string) string

// AttemptText phrases a retry attempt and, when it is indeterminate, how to settle it (a
// command line of the session, hint). What happened comes first, the attempt's id (a long uuid)
// last.
func AttemptText(a model.RetryAttempt, hint Hint, now time.Time) string {
	t := fmt.Sprintf("retry %s", a.State)
	if a.NewLogID != "" {
		t += " → new log " + a.NewLogID
	}
	if a.Detail != "" && a.State != model.AttemptSucceeded {
		t += " (" + a.Detail + ")"
	}
	if a.State == model.AttemptIndeterminate {
		if hint == nil {
			hint = func(verb string, args ...string) string { return "`" + triage.CommandLine(nil, verb, args...) + "`" }
		}
		t += ": run " + hint("resolve", a.ID) + LateLogsText(a, now)
	}
	return t + " · by " + a.Who + " · attempt " + a.ID
}

// LateLogsText says, of an indeterminate attempt, until when its log may still come, seen at
// now: resolve settles it before then only from its own log or the provider's effect, after
// it from their silence too (retry.LateLogsUntil); "" for an attempt never sent or settled.
func LateLogsText(a model.RetryAttempt, now time.Time) string {
	until := retry.LateLogsUntil(a)
	switch {
	case a.State != model.AttemptIndeterminate || until.IsZero():
		return ""
	case !now.IsZero() && !now.Before(until):
		return " (its log could come until " + model.When(until) + ": from now on the logs' and the provider's silence settles it too)"
	}
	return " (its log may still come until " + model.When(until) + ": before then only its own log or the provider's effect settles it)"
}

// VerdictText phrases a verdict.
func VerdictText(v journal.VerdictRecord) string {
	t := fmt.Sprintf("verdict %s by %s", v.Verdict, v.Who)
	if v.Note != "" {
		t += ": " + v.Note
	}
	return t + onSource(v.Source)
}
