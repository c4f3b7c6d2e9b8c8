package cli

import (
	"context"
	"fmt"
	"slices"
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
	a, l, err := sf.load(ctx, env)
	if err != nil {
		return fail(env, "mark", err)
	}
	defer a.Close()
	i, err := l.Lookup(ctx, pos[0])
	if err != nil {
		return fail(env, "mark", fmt.Errorf("nothing was marked: %w", err))
	}
	fits := a.VerdictsFor(&l.Execs[i], &l.Result.Triage[i])
	if !slices.Contains(fits, v) {
		names := make([]string, len(fits))
		for k, f := range fits {
			names[k] = string(f)
		}
		t := &l.Result.Triage[i]
		return usageError(env, "mark", "%s does not fit %s (a %s, outcome %s%s): nothing was marked; it can be marked %s",
			v, sanitize.String(pos[0]), t.Kind, t.Outcome, map[bool]string{true: ", in a duplicate group", false: ", in no duplicate group"}[t.GroupID != ""], strings.Join(names, ", "))
	}
	a.UseJournal(j)
	res, err := a.Mark(ctx, pos[0], v, *note)
	if err != nil {
		return fail(env, "mark", err)
	}
	rec := res.Record
	if sf.json {
		printJSON(env.Stdout, struct {
			Journal  string            `json:"journal"`
			Verdict  app.VerdictRecord `json:"verdict"`
			Deciding model.Verdict     `json:"guard_goes_by"`
			Effect   string            `json:"effect"`
		}{j.Where(), rec, res.Deciding, res.Effect})
		return ExitOK
	}
	line(env.Stdout, "marked %s %s (by %s): %s", rec.ExecutionID, rec.Verdict, rec.Who, res.Effect)
	return ExitOK
}
