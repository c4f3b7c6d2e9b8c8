package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// The journal commands: retry, resolve, mark and journal. Each opens the journal (--journal,
// EXECTRIAGE_JOURNAL, or the default file) and runs crash recovery before anything else.
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

// testPauseEnv names the test hook: when set to one of retry.StepBeforeIntent,
// retry.StepAfterIntent or retry.StepInFlight, `exectriage retry` prints
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
		if step == retry.StepInFlight {
			return nil // the request goes out; the test kills the process while it is held
		}
		<-ctx.Done()
		return ctx.Err()
	}
}

// guardSetup is what the journal commands share: the journal and, when the command needs the
// source, the source and the retry dependencies built on it.
type guardSetup struct {
	j         journal.Journal
	recovered int
	src       source.Source
	deps      retry.Deps
}

func (g *guardSetup) close() {
	if g.src != nil {
		g.src.Close()
	}
	if g.j != nil {
		g.j.Close()
	}
}

// openGuard opens the journal (with recovery) and, when withSource, the source with the
// write client and the Logs API; useTriage then adds the config, kinds and verifiers.
func openGuard(ctx context.Context, env *Env, cmd string, sf *sourceFlags, withSource bool) (*guardSetup, int) {
	g := &guardSetup{}
	j, n, err := openRecoveredJournal(ctx, env, sf)
	if err != nil {
		fmt.Fprintf(env.Stderr, "exectriage %s: journal: %s\n", cmd, sanitize.String(err.Error()))
		return nil, ExitFinding
	}
	g.j, g.recovered = j, n
	g.deps = retry.Deps{Journal: j, Who: journal.Who(env.Getenv), Now: env.Now}
	if !withSource {
		return g, ExitOK
	}
	src, err := sf.open(ctx, env)
	if err != nil {
		g.close()
		return nil, fail(env, cmd, err)
	}
	g.src = src
	g.deps.Target = src.Name()
	if c := src.Client(); c != nil {
		g.deps.Sender = c.WithoutRetries()
		g.deps.Logs = c
	}
	return g, ExitOK
}

// useTriage loads the config (--config, EXECTRIAGE_CONFIG or the default file), learns the
// kinds of the tools of execs, and sets the triage options and the verifiers.
func (g *guardSetup) useTriage(ctx context.Context, env *Env, sf *sourceFlags, execs []model.Execution) error {
	ts, err := sf.setup(ctx, env, g.src, execs)
	if err != nil {
		return err
	}
	g.deps.Options, g.deps.Kinds = ts.opt, ts.kinds
	if c := g.src.Client(); c != nil {
		g.deps.Verifier = triage.NewVerifiers(c, ts.cfg.Verifiers)
	}
	return nil
}

// line prints text that may carry strings from the API or the journal, with terminal control
// sequences made harmless.
func line(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, sanitize.String(fmt.Sprintf(format, a...)))
}

func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func utc(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// ---- retry ----

type retryOutput struct {
	ExecutionID string `json:"execution_id"`
	Journal     string `json:"journal"`
	Recovered   int    `json:"recovered"`
	retry.Result
	State model.AttemptState `json:"state"`
	Error string             `json:"error,omitempty"`
	Exit  int                `json:"exit"`
}

// runRetry is `exectriage retry ID --confirm-failed --reason TEXT [--timeout D] [--json]`.
// Exit: 0 the retry ran and succeeded; 1 it ran and failed without effect (or a run-time
// error before anything was claimed); 2 bad usage or unknown id; 3 refused by the guard, with
// the reason and the next step on stderr; 4 sent and its outcome unknown (resolve it).
func runRetry(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "retry")
	var sf sourceFlags
	sf.register(fs)
	confirm := fs.Bool("confirm-failed", false, "confirm that the execution failed (the guard refuses without it)")
	reason := fs.String("reason", "", "why you believe it failed, for the journal (required)")
	// --timeout (registered by the source flags) is, for retry, how long the retry's own
	// request may take; it does not change how the original execution is classified.
	if f := fs.Lookup("timeout"); f != nil {
		f.Usage = "how long the retry's own request may take, a `DURATION`"
		f.DefValue = retry.DefaultTimeout.String()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		return usageError(env, "retry", "want one execution id: exectriage retry ID --confirm-failed --reason TEXT")
	}
	id := pos[0]
	if sf.timeSet && sf.timeout <= 0 {
		return usageError(env, "retry", "--timeout must be positive")
	}
	g, code := openGuard(ctx, env, "retry", &sf, true)
	if g == nil {
		return code
	}
	defer g.close()
	if g.src.Client() == nil {
		return usageError(env, "retry", "%s cannot send: a retry needs the API (--base-url, COMPOSIO_API_KEY or --demo)", sanitize.String(g.src.Name()))
	}
	e, err := g.src.Get(ctx, id)
	if err != nil {
		return fail(env, "retry", fmt.Errorf("load %s: %w", id, err))
	}
	callerTimeout, timeSet := sf.timeout, sf.timeSet
	sf.timeSet = false // classify with the configured caller timeout, not the retry's
	if err := g.useTriage(ctx, env, &sf, []model.Execution{e}); err != nil {
		return fail(env, "retry", err)
	}
	d := g.deps
	if timeSet {
		d.Timeout = callerTimeout
	}
	d.Pause = testPause(env)

	res, runErr := retry.Run(ctx, d, retry.Request{Execution: e, Confirmed: *confirm, Reason: *reason})
	out := retryOutput{ExecutionID: id, Journal: g.j.Where(), Recovered: g.recovered, Result: res, State: res.State()}
	switch {
	case runErr != nil && res.Attempt == nil:
		out.Exit = ExitFinding
	case res.Refused():
		out.Exit = ExitRefused
	case res.State() == model.AttemptSucceeded && runErr == nil:
		out.Exit = ExitOK
	case res.State() == model.AttemptFailed:
		out.Exit = ExitFinding
	default: // indeterminate, or an outcome the journal could not record
		out.Exit = ExitAmbiguous
	}
	if runErr != nil {
		out.Error = runErr.Error()
	}
	if sf.json {
		printJSON(env.Stdout, out)
	} else {
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
	line(w, "attempt %s (the x-request-id sent) by %s: %s", a.ID, a.Who, a.State)
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

func paren(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return " (" + s + ")"
}

// ---- resolve ----

type resolveOutput struct {
	Journal   string `json:"journal"`
	Recovered int    `json:"recovered"`
	retry.Resolution
	Error string `json:"error,omitempty"`
	Exit  int    `json:"exit"`
}

// runResolve is `exectriage resolve ID [--as succeeded|failed --reason TEXT] [--settle D]`:
// ID is an attempt id or an execution id (its open attempt). Exit: 0 settled (or already
// settled); 4 still indeterminate; 3 refused (in flight, or sent to another source); 2 bad
// usage or unknown id; 1 run-time failure.
func runResolve(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "resolve")
	var sf sourceFlags
	sf.register(fs)
	as := fs.String("as", "", "your decision when the logs and the provider say nothing conclusive: `succeeded|failed`")
	reason := fs.String("reason", "", "why (required with --as)")
	settle := fs.Duration("settle", retry.DefaultSettle, "how long after the send missing evidence still proves nothing")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
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
	g, code := openGuard(ctx, env, "resolve", &sf, false)
	if g == nil {
		return code
	}
	defer g.close()
	a, err := retry.FindAttempt(ctx, g.j, pos[0])
	if err != nil {
		if errors.Is(err, journal.ErrNotFound) {
			return usageError(env, "resolve", "%s", sanitize.String(err.Error()))
		}
		return fail(env, "resolve", err)
	}
	opt := retry.ResolveOptions{As: model.AttemptState(*as), Reason: *reason, Settle: *settle}
	d := g.deps
	if a.State == model.AttemptIndeterminate {
		// The witnesses: the source's logs and provider. Without them only --as settles it.
		if src, err := sf.open(ctx, env); err != nil {
			line(env.Stderr, "exectriage resolve: cannot read the logs or the provider: %v", err)
		} else {
			g.src = src
			d.Target = src.Name()
			e, gerr := src.Get(ctx, a.ExecutionID)
			var execs []model.Execution
			if gerr == nil {
				opt.Execution = &e
				execs = append(execs, e)
			} else {
				line(env.Stderr, "exectriage resolve: the original execution %s could not be loaded (%v): the provider is not checked", a.ExecutionID, gerr)
			}
			if err := g.useTriage(ctx, env, &sf, execs); err != nil {
				return fail(env, "resolve", err)
			}
			d.Options, d.Kinds, d.Verifier = g.deps.Options, g.deps.Kinds, g.deps.Verifier
			if c := src.Client(); c != nil {
				d.Logs = c
			}
		}
	}
	res, rerr := retry.Resolve(ctx, d, a.ID, opt)
	out := resolveOutput{Journal: g.j.Where(), Recovered: g.recovered, Resolution: res}
	switch {
	case errors.Is(rerr, retry.ErrInFlight), errors.Is(rerr, retry.ErrOtherSource):
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
		line(w, "attempt %s of %s (%s, sent %s): %s", a.ID, a.ExecutionID, a.ToolSlug, utc(a.SentAt), a.State)
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

// ---- mark ----

// runMark is `exectriage mark ID VERDICT [--note TEXT]`.
func runMark(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "mark")
	var sf sourceFlags
	sf.register(fs)
	note := fs.String("note", "", "a note for the journal")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
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
	g, code := openGuard(ctx, env, "mark", &sf, false)
	if g == nil {
		return code
	}
	defer g.close()
	rec := journal.VerdictRecord{ExecutionID: pos[0], Verdict: v, Note: *note, Who: g.deps.Who, At: env.Now().UTC()}
	if err := g.j.Mark(ctx, rec); err != nil {
		return fail(env, "mark", err)
	}
	if sf.json {
		printJSON(env.Stdout, struct {
			Journal string                `json:"journal"`
			Verdict journal.VerdictRecord `json:"verdict"`
		}{g.j.Where(), rec})
		return ExitOK
	}
	line(env.Stdout, "marked %s %s (by %s)", rec.ExecutionID, rec.Verdict, rec.Who)
	return ExitOK
}

// ---- journal ----

type journalAttempt struct {
	model.RetryAttempt
	Lease *journal.Lease `json:"lease,omitempty"`
}

type journalOutput struct {
	Journal       string                  `json:"journal"`
	Recovered     int                     `json:"recovered"`
	Confirmations []journal.Confirmation  `json:"confirmations"`
	Attempts      []journalAttempt        `json:"attempts"`
	Verdicts      []journal.VerdictRecord `json:"verdicts"`
}

// runJournal is `exectriage journal [ID] [--json]`: confirmations, attempts and verdicts,
// newest first, of one execution or of all.
func runJournal(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "journal")
	var sf sourceFlags
	sf.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 1 {
		return usageError(env, "journal", "want at most one execution id")
	}
	exec := ""
	if len(pos) == 1 {
		exec = pos[0]
	}
	g, code := openGuard(ctx, env, "journal", &sf, false)
	if g == nil {
		return code
	}
	defer g.close()
	out := journalOutput{Journal: g.j.Where(), Recovered: g.recovered,
		Confirmations: []journal.Confirmation{}, Attempts: []journalAttempt{}, Verdicts: []journal.VerdictRecord{}}
	cs, err := g.j.Confirmations(ctx, exec)
	if err != nil {
		return fail(env, "journal", err)
	}
	out.Confirmations = append(out.Confirmations, cs...)
	as, err := g.j.Attempts(ctx, exec)
	if err != nil {
		return fail(env, "journal", err)
	}
	for _, a := range as {
		ja := journalAttempt{RetryAttempt: a}
		if l, err := g.j.Lease(ctx, a.ID); err == nil {
			ja.Lease = &l
		}
		out.Attempts = append(out.Attempts, ja)
	}
	vs, err := g.j.Verdicts(ctx, exec)
	if err != nil {
		return fail(env, "journal", err)
	}
	out.Verdicts = append(out.Verdicts, vs...)
	if sf.json {
		printJSON(env.Stdout, out)
		return ExitOK
	}
	printJournal(env.Stdout, &out)
	return ExitOK
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
		entries = append(entries, entry{v.At, fmt.Sprintf("verdict  %s %s by %s%s", v.ExecutionID, v.Verdict, v.Who, colon(v.Note))})
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

func colon(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return ": " + s
}
