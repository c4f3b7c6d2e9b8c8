package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// runMark is `exectriage mark ID VERDICT [--note TEXT]`.
func runMark(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "mark")
	note := fs.String("note", "", "a note for the journal")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) != 2 {
		return usageError(env, "mark", "want an execution id and a verdict: exectriage mark ID VERDICT [--note TEXT]")
	}
	v, ok := model.ParseVerdict(pos[1])
	if !ok {
		names := make([]string, len(model.Verdicts()))
		for i, x := range model.Verdicts() {
			names[i] = string(x)
		}
		return usageError(env, "mark", "unknown verdict %q: want one of %s", sanitize.String(pos[1]), strings.Join(names, ", "))
	}
	j, code := openJournalFor(ctx, env, "mark", sf)
	if j == nil {
		return code
	}
	defer j.Close()
	// A verdict on an execution the source does not have (a typo, another project's id) would
	// sit in the journal and decide a later retry of nothing anyone checked: refuse it.
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "mark", err)
	}
	defer a.Close()
	if _, err := a.Get(ctx, pos[0]); err != nil {
		return fail(env, "mark", fmt.Errorf("nothing was marked: %w", err))
	}
	rec := app.VerdictRecord{ExecutionID: pos[0], Verdict: v, Note: *note, Who: app.Who(env.Getenv), At: env.Now().UTC(), Source: a.SourceName()}
	if err := j.Mark(ctx, rec); err != nil {
		return fail(env, "mark", err)
	}
	if sf.json {
		printJSON(env.Stdout, struct {
			Journal string            `json:"journal"`
			Verdict app.VerdictRecord `json:"verdict"`
		}{j.Where(), rec})
		return ExitOK
	}
	line(env.Stdout, "marked %s %s (by %s)", rec.ExecutionID, rec.Verdict, rec.Who)
	return ExitOK
}
