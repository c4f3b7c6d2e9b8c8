package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// The journal commands: retry, resolve, mark and journal (one file each). Each opens the
// journal (--journal, EXECTRIAGE_JOURNAL, or the default file) and runs crash recovery
// before anything else.
//
// JSON output (--json), one object on stdout:
//
//	retry:   {"execution_id", "journal", "recovered", "decision": {"allowed", "code", "reason", "next"},
//	          "kind", "outcome", "outcome_reason", "provider": ProviderState, "attempt": RetryAttempt|absent,
//	          "holder": RetryAttempt|absent, "tool_result": {...}|absent, "sent", "state", "error"?, "exit"}
//	resolve: {"journal", "recovered", "before": RetryAttempt, "attempt": RetryAttempt, "changed",
//	          "evidence": [string], "provider": ProviderState|absent, "next", "error"?, "exit"}
//	mark:    {"journal", "verdict": VerdictRecord}
//	journal: {"journal", "recovered", "confirmations": [...], "attempts": [RetryAttempt + "lease"], "verdicts": [...]}
//
// Lists are newest first. Times are RFC 3339 in UTC.

// openJournalFor opens the journal for cmd, printing why it could not be opened.
func openJournalFor(ctx context.Context, env *Env, cmd string, sf *sourceFlags) (*app.Journal, int) {
	j, err := sf.openJournal(ctx, env)
	if err != nil {
		return nil, journalOpenFailed(env, cmd, err)
	}
	return j, ExitOK
}

// journalOpenFailed says why the journal could not be opened and returns the exit status.
func journalOpenFailed(env *Env, cmd string, err error) int {
	fmt.Fprintf(env.Stderr, "%s: journal: %s\n", progName(cmd), sanitize.String(app.HideKnown(err.Error(), env.Getenv("COMPOSIO_API_KEY"))))
	if app.IsUsage(err) {
		return ExitUsage
	}
	return ExitFinding
}

// line prints text that may carry strings from the API or the journal, with terminal control
// sequences made harmless.
func line(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, sanitize.String(fmt.Sprintf(format, a...)))
}

func printJSON(w io.Writer, v any) { _ = writeJSON(w, v) }

func utc(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return model.When(t)
}

func paren(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return " (" + s + ")"
}

func colon(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return ": " + s
}
