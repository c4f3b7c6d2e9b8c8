package cli

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sanitize"
)

type resolveOutput struct {
	SchemaVersion int    `json:"schema_version"`
	Journal       string `json:"journal"`
	Recovered     int    `json:"recovered"`
	retry.Resolution
	Error string `json:"error,omitempty"`
	Exit  int    `json:"exit"`
}

// ResolveOptions are resolve's flags and argument.
type ResolveOptions struct {
	Source sourceFlags
	As     string
	Reason string
	Settle time.Duration
	ID     string
}

// NewCmdResolve is `exectriage resolve ID [--as succeeded|failed --reason TEXT] [--settle D]`:
// ID is an attempt id or an execution id (its open attempt). Exit: 0 settled (or already
// settled); 4 still indeterminate; 3 refused (in flight, or sent to another source); 2 bad
// usage or unknown id; 1 run-time failure.
func NewCmdResolve(env *Env, runF func(context.Context, *ResolveOptions) error) *cobra.Command {
	opts := &ResolveOptions{Settle: app.DefaultSettle}
	cmd := &cobra.Command{
		Use:   "resolve ID",
		Short: "settle an indeterminate retry from the logs and the provider",
		Example: "  exectriage resolve 58d9c377-02a2-4e36-bbf0-e7a96fec6de9\n  exectriage resolve 58d9c377-02a2-4e36-bbf0-e7a96fec6de9 " +
			"--as failed --reason 'bounce seen'",
		Args: positional("resolve", 1, 1, wantText("want one attempt id or execution id")),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ID = args[0]
			if opts.As != "" && opts.As != string(model.AttemptSucceeded) && opts.As != string(model.AttemptFailed) {
				return usagef("resolve", "--as must be succeeded or failed")
			}
			if opts.As != "" && strings.TrimSpace(opts.Reason) == "" {
				return usagef("resolve", "--as needs --reason TEXT")
			}
			if opts.Settle <= 0 {
				return usagef("resolve", "--settle must be positive")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "resolve", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return resolveRun(c.Context(), env, opts)
			}))
		},
	}
	fs := cmd.Flags()
	opts.Source.register(fs, commandFlags("resolve"))
	fs.StringVar(&opts.As, "as", "", "your decision when the logs and the provider say nothing conclusive: `succeeded|failed`")
	fs.StringVar(&opts.Reason, "reason", "", "why (required with --as)")
	fs.Var(durationValue{d: &opts.Settle}, "settle", "how long after the send missing evidence still proves nothing, a `DURATION`")
	registerFlagCompletions(cmd, env)
	return cmd
}

// resolveRun settles one attempt.
func resolveRun(ctx context.Context, env *Env, opts *ResolveOptions) int {
	sf := &opts.Source
	if code, stop := sf.refuseIfReadOnly(env, "resolve", "nothing was resolved"); stop {
		return code
	}
	j, code := openJournalFor(ctx, env, "resolve", sf)
	if j == nil {
		return code
	}
	defer j.Close()
	at, err := app.FindAttempt(ctx, j, opts.ID)
	if err != nil {
		if errors.Is(err, app.ErrNoSuchAttempt) {
			return usageError(env, "resolve", "%s", sanitize.String(err.Error()))
		}
		return fail(env, "resolve", err)
	}
	opt := retry.ResolveOptions{As: model.AttemptState(opts.As), Reason: opts.Reason, Settle: opts.Settle}
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
				line(env.Stderr, "exectriage resolve: the original execution %s could not be loaded (%v): the provider is not checked",
					at.ExecutionID, gerr)
			}
		}
	}
	res, rerr := app.Resolve(ctx, a, j, at.ID, opt)
	out := resolveOutput{SchemaVersion: SchemaVersion, Journal: j.Where(), Recovered: j.Recovered, Resolution: res}
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
