package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

type resolveOutput struct {
	Journal   string `json:"journal"`
	Recovered int    `json:"recovered"`
	app.Resolution
	Error string `json:"error,omitempty"`
	Exit  int    `json:"exit"`
}

// runResolve is `exectriage resolve ID [--as succeeded|failed --reason TEXT] [--settle D]`:
// ID is an attempt id or an execution id (its open attempt). Exit: 0 settled (or already
// settled); 4 still indeterminate; 3 refused (in flight, or sent to another source); 2 bad
// usage or unknown id; 1 run-time failure.
func runResolve(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "resolve")
	as := fs.String("as", "", "your decision when the logs and the provider say nothing conclusive: `succeeded|failed`")
	reason := fs.String("reason", "", "why (required with --as)")
	settle := durationFlag(fs.FlagSet, "settle", app.DefaultSettle, "how long after the send missing evidence still proves nothing")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(env, "resolve", "want one attempt id or execution id")
	}
	if *as != "" && *as != string(model.AttemptSucceeded) && *as != string(model.AttemptFailed) {
		return usageError(env, "resolve", "--as must be succeeded or failed")
	}
	if *as != "" && strings.TrimSpace(*reason) == "" {
		return usageError(env, "resolve", "--as needs --reason TEXT")
	}
	if *settle <= 0 {
		return usageError(env, "resolve", "--settle must be positive")
	}
	if code, stop := sf.refuseIfReadOnly(env, "resolve", "nothing was resolved"); stop {
		return code
	}
	j, code := openJournalFor(ctx, env, "resolve", sf)
	if j == nil {
		return code
	}
	defer j.Close()
	at, err := app.FindAttempt(ctx, j, pos[0])
	if err != nil {
		if errors.Is(err, app.ErrNoSuchAttempt) {
			return usageError(env, "resolve", "%s", sanitize.String(err.Error()))
		}
		return fail(env, "resolve", err)
	}
	opt := app.ResolveOptions{As: model.AttemptState(*as), Reason: *reason, Settle: *settle}
	var a *app.App
	if at.State == model.AttemptIndeterminate {
		// The witnesses: the source's logs and provider. Without them only --as settles it.
		if a, err = sf.open(ctx, env); err != nil {
			line(env.Stderr, "exectriage resolve: cannot read the logs or the provider: %v", err)
			a = nil
		} else {
			defer a.Close()
			if e, gerr := a.Get(ctx, at.ExecutionID); gerr == nil {
				opt.Execution = &e
				a.Learn(ctx, []model.Execution{e})
			} else {
				line(env.Stderr, "exectriage resolve: the original execution %s could not be loaded (%v): the provider is not checked", at.ExecutionID, gerr)
			}
		}
	}
	res, rerr := app.Resolve(ctx, a, j, at.ID, opt)
	out := resolveOutput{Journal: j.Where(), Recovered: j.Recovered, Resolution: res}
	switch {
	case errors.Is(rerr, app.ErrInFlight), errors.Is(rerr, app.ErrOtherSource):
		out.Exit = ExitRefused
	case rerr != nil:
		out.Exit = ExitFinding
	case res.Attempt.State == model.AttemptIndeterminate:
		out.Exit = ExitAmbiguous
	default:
		out.Exit = ExitOK
	}
	if rerr != nil {
		out.Error = rerr.Error()
	}
	if sf.json {
		printJSON(env.Stdout, out)
	} else {
		w := env.Stdout
		line(w, "attempt %s of %s (%s, sent %s): %s", at.ID, at.ExecutionID, at.ToolSlug, utc(at.SentAt), at.State)
		for _, ev := range res.Evidence {
			line(w, "  %s", ev)
		}
		if res.Changed {
			line(w, "now %s: %s", res.Attempt.State, res.Attempt.Detail)
		}
		if res.Next != "" {
			line(w, "next: %s", res.Next)
		}
	}
	if rerr != nil {
		line(env.Stderr, "exectriage resolve: %v", rerr)
		if res.Next != "" && sf.json {
			line(env.Stderr, "  next: %s", res.Next)
		}
	}
	return out.Exit
}
