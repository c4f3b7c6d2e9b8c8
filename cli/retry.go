package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sanitize"
)

// testPauseEnv names the test hook: when set to one of the retry protocol's steps
// (before-intent, after-intent, in-flight), `exectriage retry` prints
// "EXECTRIAGE_TEST_PAUSE <step>" on stderr at that step of the protocol and, for the first two,
// blocks until it is killed or interrupted (an interrupt then stops the retry without sending).
// It lets the crash tests kill the binary at an exact step. Unset, it does nothing.
const testPauseEnv = "EXECTRIAGE_TEST_PAUSE"

func testPause(env *Env) func(ctx context.Context, step string) error {
	want := strings.TrimSpace(env.Getenv(testPauseEnv))
	if want == "" {
		return nil
	}
	return func(ctx context.Context, step string) error {
		if step != want {
			return nil
		}
		fmt.Fprintf(env.Stderr, "%s %s\n", testPauseEnv, step)
		if step == app.StepInFlight {
			return nil // the request goes out; the test kills the process while it is held
		}
		<-ctx.Done()
		return ctx.Err()
	}
}

type retryOutput struct {
	SchemaVersion int    `json:"schema_version"`
	ExecutionID   string `json:"execution_id"`
	Journal       string `json:"journal"`
	Recovered     int    `json:"recovered"`
	retry.Result
	State model.AttemptState `json:"state"`
	Error string             `json:"error,omitempty"`
	Exit  int                `json:"exit"`
	// resolve is the command line that settles the attempt in this session (text output)
	resolve string
}

// RetryOptions are retry's flags and argument.
type RetryOptions struct {
	Source         sourceFlags
	Confirm        bool
	Reason         string
	RequestTimeout time.Duration // 0: app.DefaultRetryTimeout
	timeoutSet     bool
	ID             string
}

// NewCmdRetry is `exectriage retry ID --confirm-failed --reason TEXT`, the guarded retry.
// Exit: 0 the retry ran and succeeded; 1 it ran and failed without effect (or a run-time
// error before anything was claimed); 2 bad usage or unknown id; 3 refused by the guard, with
// the reason and the next step on stderr; 4 sent and its outcome unknown (resolve it).
func NewCmdRetry(env *Env, runF func(context.Context, *RetryOptions) error) *cobra.Command {
	opts := &RetryOptions{}
	cmd := &cobra.Command{
		Use:               "retry ID --confirm-failed --reason TEXT",
		Short:             "the guarded retry: one send, never a duplicate",
		Example:           "  exectriage retry log_a-NA1LoG7qec --confirm-failed --reason 'customer saw no email; provider shows none'",
		Args:              positional("retry", 1, 1, wantText("want one execution id: exectriage retry ID --confirm-failed --reason TEXT")),
		ValidArgsFunction: idCompletion(env, false),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ID = args[0]
			if opts.Confirm && strings.TrimSpace(opts.Reason) == "" { // without --confirm-failed: the guard shows its evidence (exit 3)
				return usagef(
					"retry",
					"--confirm-failed needs --reason TEXT: say why you believe the first attempt failed (it goes in the journal)",
				)
			}
			if opts.timeoutSet && opts.RequestTimeout <= 0 {
				return usagef("retry", "--request-timeout must be positive")
			}
			if opts.RequestTimeout > app.MaxRetryTimeout {
				return usagef(
					"retry",
					"--request-timeout is at most %s (the write client's own limit: the request has ended by then anyway)",
					app.MaxRetryTimeout,
				)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "retry", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return retryRun(c.Context(), env, opts)
			}))
		},
	}
	fs := cmd.Flags()
	opts.Source.register(fs, commandFlags("retry"))
	fs.BoolVar(&opts.Confirm, "confirm-failed", false, "confirm that the execution failed (the guard refuses without it)")
	fs.StringVar(&opts.Reason, "reason", "", "why you believe it failed, for the journal (required)")
	// --request-timeout is the retry's own request; --timeout stays the caller's timeout that
	// classifies the original, as in every command.
	fs.Var(
		durationValue{&opts.RequestTimeout, &opts.timeoutSet},
		"request-timeout",
		"how long the retry's own request may take, a `DURATION` (default "+app.DefaultRetryTimeout.String()+")",
	)
	registerFlagCompletions(cmd, env)
	return cmd
}

// retryRun runs the guarded retry of one execution.
func retryRun(ctx context.Context, env *Env, opts *RetryOptions) int {
	sf := &opts.Source
	id := opts.ID
	if code, stop := sf.refuseIfReadOnly(env, "retry", "nothing was sent"); stop {
		return code
	}
	j, code := openJournalFor(ctx, env, "retry", sf)
	if j == nil {
		return code
	}
	defer j.Close()
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "retry", err)
	}
	defer a.Close()
	if !a.CanSend() {
		return usageError(
			env,
			"retry",
			"%s cannot send: a retry needs the API (--base-url, COMPOSIO_API_KEY or --demo)",
			sanitize.String(a.SourceName()),
		)
	}
	e, err := a.Get(ctx, id)
	if err != nil {
		return fail(env, "retry", fmt.Errorf("load %s: %w", id, err))
	}
	a.Learn(ctx, []model.Execution{e})
	// The retry reads the live log again and decides on it; of the record loaded here it needs
	// only the call's identity (a large one is not held twice).
	seen := model.Execution{ID: e.ID, ToolSlug: e.ToolSlug, ConnectedAccountID: e.ConnectedAccountID, UserID: e.UserID}
	h := app.RetryHooks{Pause: testPause(env), Timeout: opts.RequestTimeout}
	a.UseJournal(j)
	res, runErr := a.Retry(ctx, retry.Request{ID: id, Execution: seen, Confirmed: opts.Confirm, Reason: opts.Reason}, h)
	out := retryOutput{
		SchemaVersion: SchemaVersion,
		ExecutionID:   id,
		Journal:       j.Where(),
		Recovered:     j.Recovered,
		Result:        res,
		State:         res.State(),
		Exit:          retryExit(res, runErr),
	}
	if runErr != nil {
		out.Error = runErr.Error()
	}
	if res.Attempt != nil {
		out.resolve = a.Hint("resolve", res.Attempt.ID)
	}
	if sf.json {
		printJSON(env.Stdout, out)
	} else {
		line(env.Stdout, "guarded by the %s %s: %s", j.Kind(), j.Where(), j.Guards().Sentence())
		printRetry(env.Stdout, &out)
	}
	if out.Exit == ExitRefused {
		line(env.Stderr, "exectriage retry: refused: %s", res.Decision.Reason)
		line(env.Stderr, "  next: %s", res.Decision.Next)
	}
	if runErr != nil {
		line(env.Stderr, "exectriage retry: %v", runErr)
	}
	return out.Exit
}

// retryExit is the exit status of a retry: 0 it ran and succeeded; 1 it failed without effect,
// or went wrong before anything was sent (an error before the claim, a journal that could not
// record "sent"); 3 the guard refused; 4 it was sent and its outcome is unknown, or the journal
// could not record the outcome of a send.
func retryExit(res retry.Result, runErr error) int {
	switch {
	case runErr != nil && (res.Attempt == nil || !res.Sent):
		return ExitFinding
	case res.Refused():
		return ExitRefused
	case res.State() == model.AttemptSucceeded && runErr == nil:
		return ExitOK
	case res.State() == model.AttemptFailed && runErr == nil:
		return ExitFinding
	}
	return ExitAmbiguous // indeterminate, or an outcome the journal could not record
}

func printRetry(w io.Writer, out *retryOutput) {
	r := &out.Result
	if r.Outcome != "" {
		line(w, "execution %s: %s, outcome %s%s", out.ExecutionID, r.Kind, r.Outcome, paren(r.OutcomeReason))
	}
	if r.Provider.State != "" {
		line(w, "provider: %s%s", r.Provider.State, paren(r.Provider.Reason))
	}
	a := r.Attempt
	if r.Refused() {
		return // the refusal and the next step go to stderr
	}
	if a == nil {
		return
	}
	line(w, "attempt %s (the x-request-id sent) by %s: %s; tool version %s", a.ID, a.Who, a.State, r.VersionNote)
	if a.Detail != "" {
		line(w, "  %s", a.Detail)
	}
	if len(r.LogsAfter) > 0 {
		line(w, "the answer settled nothing; its logs, read at once:")
		for _, ev := range r.LogsAfter {
			line(w, "  %s", ev)
		}
	}
	switch a.State {
	case model.AttemptSucceeded:
		if a.NewLogID != "" {
			line(w, "retry succeeded: new log %s", a.NewLogID)
		} else {
			line(w, "retry succeeded")
		}
	case model.AttemptFailed:
		line(w, "retry failed without effect; %s may be retried again after a new check and confirmation", out.ExecutionID)
	case model.AttemptIndeterminate:
		line(
			w,
			"retry outcome unknown: it may have taken effect. Do not retry; settle it with %s%s",
			out.resolve,
			phrase.LateLogsText(*a, a.FinishedAt),
		)
	}
}
