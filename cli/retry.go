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
	ExecutionID string `json:"execution_id"`
	Journal     string `json:"journal"`
	Recovered   int    `json:"recovered"`
	app.RetryResult
	State model.AttemptState `json:"state"`
	Error string             `json:"error,omitempty"`
	Exit  int                `json:"exit"`
}

// runRetry is `exectriage retry ID --confirm-failed --reason TEXT [--request-timeout D] [--json]`.
// Exit: 0 the retry ran and succeeded; 1 it ran and failed without effect (or a run-time
// error before anything was claimed); 2 bad usage or unknown id; 3 refused by the guard, with
// the reason and the next step on stderr; 4 sent and its outcome unknown (resolve it).
func runRetry(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "retry")
	confirm := fs.Bool("confirm-failed", false, "confirm that the execution failed (the guard refuses without it)")
	reason := fs.String("reason", "", "why you believe it failed, for the journal (required)")
	// --request-timeout is the retry's own request; --timeout stays the caller's timeout that
	// classifies the original, as in every command.
	var requestTimeout time.Duration
	var timeSet bool
	fs.Var(durationValue{&requestTimeout, &timeSet}, "request-timeout", "how long the retry's own request may take, a `DURATION` (default "+app.DefaultRetryTimeout.String()+")")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(env, "retry", "want one execution id: exectriage retry ID --confirm-failed --reason TEXT")
	}
	id := pos[0]
	if *confirm && strings.TrimSpace(*reason) == "" { // without --confirm-failed: the guard shows its evidence (exit 3)
		return usageError(env, "retry", "--confirm-failed needs --reason TEXT: say why you believe the first attempt failed (it goes in the journal)")
	}
	if timeSet && requestTimeout <= 0 {
		return usageError(env, "retry", "--request-timeout must be positive")
	}
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
		return usageError(env, "retry", "%s cannot send: a retry needs the API (--base-url, COMPOSIO_API_KEY or --demo)", sanitize.String(a.SourceName()))
	}
	e, err := a.Get(ctx, id)
	if err != nil {
		return fail(env, "retry", fmt.Errorf("load %s: %w", id, err))
	}
	a.Learn(ctx, []model.Execution{e})
	h := app.RetryHooks{Pause: testPause(env)}
	if timeSet {
		h.Timeout = requestTimeout
	}
	res, runErr := a.Retry(ctx, j, app.RetryRequest{Execution: e, Confirmed: *confirm, Reason: *reason}, h)
	out := retryOutput{ExecutionID: id, Journal: j.Where(), Recovered: j.Recovered, RetryResult: res, State: res.State(), Exit: retryExit(res, runErr)}
	if runErr != nil {
		out.Error = runErr.Error()
	}
	if sf.json {
		printJSON(env.Stdout, out)
	} else {
		line(env.Stdout, "guarded by the %s", j.Guards())
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
func retryExit(res app.RetryResult, runErr error) int {
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
	r := &out.RetryResult
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
		line(w, "retry outcome unknown: it may have taken effect. Do not retry; settle it with `exectriage resolve %s`", a.ID)
	}
}
