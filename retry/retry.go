// Package retry is the guarded retry protocol: it decides with the guard (triage.CheckRetry) on
// fresh evidence, commits the intent and the person's confirmation to the journal before any
// byte is sent, sends the original call exactly once through the no-retry client with
// x-request-id = the attempt id, and records what came back. An answer that does not settle
// whether the action happened leaves the attempt indeterminate; Resolve then settles it from the
// logs and the provider, and never sends anything.
package retry

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/verify"
)

// Sender sends one write; (*client.WriteClient) satisfies it and never retries.
type Sender interface {
	Execute(ctx context.Context, slug string, req client.ExecuteRequest) (model.ToolResult, error)
}

// LogReader finds executions in the Logs API; (*client.Client) satisfies it (reads may retry).
type LogReader interface {
	ListLogs(ctx context.Context, q client.LogQuery) iter.Seq2[model.LogsPage, error]
	GetLog(ctx context.Context, id string) (model.Execution, error)
}

// KindOf says whether a tool reads or writes; (*triage.Kinds) satisfies it.
type KindOf interface {
	Kind(slug string) model.ToolKind
}

// Steps of the protocol at which Deps.Pause is called (the binary's test hook).
const (
	StepBeforeIntent = "before-intent" // the guard allowed the retry; nothing is written yet
	StepAfterIntent  = "after-intent"  // the intent is committed; nothing is sent yet
	StepInFlight     = "in-flight"     // the attempt is marked sent; the request goes out next
)

// DefaultTimeout bounds one retry's request (real sends can take up to 10 minutes).
const DefaultTimeout = 10 * time.Minute

// MaxTimeout is the longest a retry's request may take: the write client's own limit, beyond
// which the request has ended anyway. A longer Timeout is cut to it, so the journal's deadline
// stays a real bound on the send.
const MaxTimeout = client.DefaultWriteTimeout

// ErrOtherRecord is wrapped by Run's error when a record on the way to the send (the record
// given, the live log, the journal's attempt) is of another execution than the one confirmed:
// nothing is sent.
var ErrOtherRecord = errors.New("a record of another execution than the one confirmed")

// DeadlineMargin is added to an attempt's timeout to get the journal deadline after which an
// attempt still in intent or sent is presumed abandoned (crash recovery, journal/owner.go). It
// covers clock skew between engineers' machines on a shared journal.
const DeadlineMargin = 2 * time.Minute

// ProviderFreshFor is how old a provider check given to Run may be; an older one is redone.
const ProviderFreshFor = time.Minute

// Deps is what the protocol works with.
type Deps struct {
	Journal  journal.Journal
	Sender   Sender          // the no-retry write client; nil means the source cannot send
	Logs     LogReader       // for Resolve; nil means the logs cannot be searched
	Verifier verify.Verifier // the provider check; nil means provider state unknown
	Kinds    KindOf
	Options  triage.Options
	Who      string
	// Target names the source requests go to and witnesses are read from (source.Name()):
	// recorded with each attempt, and Resolve refuses to read another source's witnesses.
	Target string
	Now    func() time.Time
	// Timeout bounds the retry's request (0: DefaultTimeout).
	Timeout time.Duration
	// Pause, when set, is called at each Step; an error aborts the protocol at that step.
	Pause func(ctx context.Context, step string) error
	// In are the session's flags the command lines of its messages carry (--demo, --file F).
	In []string
}

// command is an exectriage command line in the session, in backticks.
func (d *Deps) command(verb string, args ...string) string {
	return "`" + triage.CommandLine(d.In, verb, args...) + "`"
}

// journalNow is the journal's clock (journal/clock.go): a shared journal's server clock, else
// this host's (Now).
func (d *Deps) journalNow(ctx context.Context) (time.Time, error) {
	if d.Journal == nil {
		return d.now(), nil
	}
	c, err := d.Journal.Clock(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return d.clockNow(c), nil
}

// clockNow is the time a journal clock gives: the server's for a shared journal, else this
// host's (Now, which tests move).
func (d *Deps) clockNow(c journal.Clock) time.Time {
	if c.Shared {
		return c.Now
	}
	return d.now()
}

func (d *Deps) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}
	return time.Now().UTC()
}

// timeout is the retry's own request timeout: Timeout, at most MaxTimeout.
func (d *Deps) timeout() time.Duration {
	if d.Timeout > 0 {
		return min(d.Timeout, MaxTimeout)
	}
	return DefaultTimeout
}

func (d *Deps) pause(ctx context.Context, step string) error {
	if d.Pause == nil {
		return nil
	}
	return d.Pause(ctx, step)
}

// Request is one retry a person asked for.
type Request struct {
	// ID is the execution the person confirmed failed (the id typed, the row selected): every
	// record the protocol reads on its way to the send (the live log, the journal's claim) must
	// carry it, and nothing is sent for any other id. Empty means Execution.ID.
	ID string
	// Execution is the original execution with its detail (arguments, account, user), as the
	// person saw it. When the source can send, Run reads its live log again and sends that.
	Execution model.Execution
	// Confirmed and Reason are the person's confirmation that the execution failed.
	Confirmed bool
	Reason    string
	// Provider is a provider check made moments ago (say, the one the person just looked at);
	// used only if checked within ProviderFreshFor, else Run checks again.
	Provider *model.ProviderState
}

// Result is what Run did.
type Result struct {
	Decision      triage.GuardDecision `json:"decision"`
	Kind          model.ToolKind       `json:"kind"`
	Outcome       model.Outcome        `json:"outcome"`
	OutcomeReason string               `json:"outcome_reason"`
	Provider      model.ProviderState  `json:"provider"`
	// Attempt is the attempt as last recorded; nil when the guard refused before claiming.
	Attempt *model.RetryAttempt `json:"attempt,omitempty"`
	// Holder is the attempt that held the execution when another process claimed it first.
	Holder *model.RetryAttempt `json:"holder,omitempty"`
	// Tool is the tool's answer when one came.
	Tool *model.ToolResult `json:"tool_result,omitempty"`
	// Sent reports whether a request was handed to the network.
	Sent bool `json:"sent"`
	// Version is the tool version the retry runs: the original's (ToolVersionOf), or "latest"
	// when the original's log does not record one; VersionNote says which.
	Version     string `json:"version"`
	VersionNote string `json:"version_note"`
	// LogsAfter is what the logs showed when read at once after an answer that settled
	// nothing (Run's step 5), one line each; Attempt is then as they settled it.
	LogsAfter []string `json:"logs_after,omitempty"`
}

// ToolVersionOf is the tool version a retry of e runs, and a note that says where it comes
// from: the version the original ran, as its log records it; "latest" only when the log does
// not say, and then the note says so.
func ToolVersionOf(e *model.Execution) (version, note string) {
	if v := strings.TrimSpace(e.ToolVersion); v != "" {
		return v, v + ", the one the original ran"
	}
	return client.DefaultToolVersion, "latest (the original's log does not record its tool version, so the tool may have changed since)"
}

// Refused reports whether the retry was refused (nothing was sent).
func (r Result) Refused() bool { return !r.Decision.Allowed }

// State is the attempt's final state, "" when refused.
func (r Result) State() model.AttemptState {
	if r.Attempt == nil || r.Refused() {
		return ""
	}
	return r.Attempt.State
}

// Run performs one guarded retry. It returns a Result in every case it got far enough to
// decide; the error is for what went wrong around the protocol (journal, source), and a Result
// with an attempt is returned along with it when one was claimed.
func Run(ctx context.Context, d Deps, req Request) (Result, error) {
	if d.Journal == nil {
		return Result{}, errors.New("retry: no journal: a retry is never sent without recording its intent")
	}
	id := req.ID
	id = cmp.Or(id, req.Execution.ID)
	if id == "" {
		return Result{}, errors.New("retry: no execution id: nothing recorded, nothing sent")
	}
	if req.Execution.ID != id {
		return Result{}, fmt.Errorf(
			"retry %s: %w: the record given is %q (nothing recorded, nothing sent)",
			id,
			ErrOtherRecord,
			req.Execution.ID,
		)
	}
	e := req.Execution
	if d.Sender != nil {
		live, refusal, err := liveLog(ctx, &d, id, &req.Execution)
		if err != nil || refusal != nil {
			res := Result{}
			if refusal != nil {
				res.Decision = *refusal
			}
			return res, err
		}
		e = live
	}
	hash := callHash(&d, &e) // the call's identity, canonicalised once (a large document is costly)
	res, in, err := gather(ctx, &d, &e, hash)
	if err != nil {
		return res, err
	}
	res.Version, res.VersionNote = ToolVersionOf(&e)
	in.Confirmed, in.Reason = req.Confirmed, req.Reason
	// Refuse on what is already known before asking the provider: a read, a succeeded
	// execution or an open attempt needs no provider call.
	in.Provider = model.ProviderState{State: model.ProviderUnknown}
	if dec := triage.CheckRetry(in); !dec.Allowed && dec.Code != triage.RefusedNotConfirmed && dec.Code != triage.RefusedNoReason {
		res.Decision = dec
		res.Provider = model.ProviderState{}
		return res, nil
	}
	res.Provider = freshProvider(ctx, &d, &e, req.Provider)
	in.Provider = res.Provider
	res.Decision = triage.CheckRetry(in)
	if !res.Decision.Allowed {
		return res, nil
	}

	if d.Sender == nil {
		return res, errors.New("retry: this source cannot send (a file export has no API behind it): nothing recorded, nothing sent")
	}
	if err := d.pause(ctx, StepBeforeIntent); err != nil {
		return res, fmt.Errorf("retry: stopped before the intent was recorded (nothing sent): %w", err)
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("retry: stopped before the intent was recorded (nothing sent): %w", err)
	}

	// 1. The durable intent, with the confirmation, in one transaction.
	now := d.now()
	a := model.RetryAttempt{ID: NewAttemptID(), ExecutionID: id, ToolSlug: e.ToolSlug,
		ArgumentHash: hash, State: model.AttemptIntent, Who: d.Who, CreatedAt: now}
	claim := journal.Claim{
		Attempt:  a,
		Deadline: model.AddSaturated(now, d.timeout()+DeadlineMargin),
		Target:   d.Target,
		Confirmation: journal.Confirmation{
			Who: d.Who, At: now, Reason: strings.TrimSpace(req.Reason),
			Outcome: res.Outcome, OutcomeReason: res.OutcomeReason, Provider: res.Provider, Source: d.Target,
		},
	}
	claimed := time.Now() // real time: the send's deadline must not follow an injected clock
	ok, holder, err := d.Journal.ClaimAttempt(ctx, claim)
	if err != nil {
		return res, fmt.Errorf("retry: record the intent (nothing sent): %w", err)
	}
	if !ok {
		res.Holder = holder
		res.Decision, _ = refuseForHolder(&e, holder)
		return res, nil
	}
	res.Attempt = &a

	// From here on the attempt exists; every exit records where it stands. Records are
	// written with a context that a canceled command cannot abort halfway.
	record := func(state model.AttemptState, logID, detail string) error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		at := d.now()
		if err := d.Journal.UpdateAttempt(rctx, a.ID, state, logID, detail, at); err != nil {
			return err
		}
		a.State, a.Detail = state, detail
		if logID != "" {
			a.NewLogID = logID
		}
		if state == model.AttemptSent {
			a.SentAt = at
		} else {
			a.FinishedAt = at
		}
		return nil
	}
	notSent := func(why error) (Result, error) {
		detail := fmt.Sprintf("stopped before sending (%v): nothing was sent", why)
		if err := record(model.AttemptFailed, "", detail); err != nil {
			return res, fmt.Errorf(
				"retry: %v: nothing was sent; recording that failed too (the attempt shows as indeterminate after recovery, and "+
					"`exectriage resolve` settles it as never sent): %w",
				why,
				err,
			)
		}
		return res, fmt.Errorf("retry: %w", why)
	}

	if err := d.pause(ctx, StepAfterIntent); err != nil {
		return notSent(err)
	}
	// The claim is read back. It must be ours, of this execution and this call; no other attempt
	// of the execution may be open or succeeded (a journal whose one-claim index was lost would
	// let two claims in: of two such claims, each sees the other and neither sends); and a
	// racer's retry may have been rate limited between our guard's look and our claim: then we
	// do not add our request to the burst.
	if all, err := d.Journal.Attempts(ctx, id); err != nil {
		return notSent(fmt.Errorf("re-read the attempts: %w", err))
	} else if err := checkClaim(all, a); err != nil {
		return notSent(err)
	} else if now, err := d.journalNow(ctx); err != nil {
		return notSent(err)
	} else if other := triage.RateLimitedRecently(all, now, a.ID); other != nil {
		return notSent(fmt.Errorf("retry attempt %s of this execution was rate limited (429) moments ago: wait a minute", other.ID))
	}
	// Another process may have claimed the same call on another execution between our guard's
	// look and our claim: of two such claims, the later one sees the earlier and stops.
	if all, err := d.Journal.Attempts(ctx, ""); err != nil {
		return notSent(fmt.Errorf("re-read the attempts: %w", err))
	} else if other := triage.OpenSameCall(sameCall(&e, hash, all), a.ID); other != nil {
		return notSent(fmt.Errorf("retry attempt %s of %s runs the same call and is %s: resolve it first", other.ID, other.ExecutionID,
			other.State))
	}
	if err := ctx.Err(); err != nil {
		return notSent(err)
	}
	// 2. Sent is committed before the request leaves, so a crash from here on is indeterminate.
	if err := record(model.AttemptSent, "", "request in flight"); err != nil {
		if errors.Is(err, journal.ErrTransition) {
			return res, fmt.Errorf("retry: the attempt changed under us before sending (nothing sent): %w", err)
		}
		return notSent(fmt.Errorf("record sent: %w", err))
	}
	if err := d.pause(ctx, StepInFlight); err != nil {
		return notSent(err)
	}
	// The attempt as the journal holds it names the execution and the call about to be sent.
	if got, err := d.Journal.Attempt(ctx, a.ID); err != nil {
		return notSent(fmt.Errorf("re-read attempt %s: %w", a.ID, err))
	} else if got.ExecutionID != id || got.ArgumentHash != a.ArgumentHash || !strings.EqualFold(got.ToolSlug,
		e.ToolSlug) || got.State != model.AttemptSent {
		return notSent(fmt.Errorf("%w: the journal's attempt %s is of %s (%s, %s), not of %s: nothing was sent", ErrOtherRecord, a.ID,
			got.ExecutionID, got.ToolSlug, got.State, id))
	}

	// 3. One send. Its deadline counts from the claim, so the request has certainly ended
	// (from this process's side) a margin before the journal deadline recovery relies on.
	sctx, cancel := context.WithDeadline(ctx, claimed.Add(d.timeout()))
	tr, sendErr := d.Sender.Execute(sctx, e.ToolSlug, client.ExecuteRequest{
		Arguments: e.Arguments, ConnectedAccountID: e.ConnectedAccountID, UserID: e.UserID, RequestID: a.ID, Version: res.Version,
	})
	cancel()
	res.Sent = true
	state, logID, detail := settle(e.ToolSlug, res.Kind, tr, sendErr)
	detail += " [tool version " + res.Version + "]"
	if state == model.AttemptFailed && isNotSent(sendErr) {
		res.Sent = false
	}
	if tr.LogID != "" || tr.Data != nil || tr.Error != "" || tr.Successful {
		t := tr
		res.Tool = &t
	}

	// 4. The outcome.
	if err := record(state, logID, detail); err != nil {
		return res, fmt.Errorf("retry: the retry ended %s (%s) but the journal could not record it: "+
			"it shows as indeterminate after recovery; run %s: %w", state, detail, d.command("resolve", a.ID), err)
	}
	// 5. An answer that settles nothing is followed at once by the witness that runs no tool:
	// the logs, read by resolve's own rules (its log, or its request id's, showing success or a
	// refusal settles it), so that the answer, the attempt's row and resolve give one verdict.
	// The provider's check (a read tool) is left to resolve, which also waits for late logs.
	if state == model.AttemptIndeterminate && d.Logs != nil && d.Journal != nil {
		rd := d
		rd.Sender, rd.Verifier = nil, nil
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookAfterTimeout)
		r, err := Resolve(rctx, rd, a.ID, ResolveOptions{Execution: &e})
		cancel()
		res.LogsAfter = r.Evidence
		if err == nil && r.Changed {
			settled := r.Attempt
			res.Attempt = &settled
		}
	}
	return res, nil
}

// lookAfterTimeout bounds the logs' reading after an indeterminate answer (step 5 of Run): a
// slow or misbehaving Logs API leaves the attempt indeterminate, for resolve.
const lookAfterTimeout = 20 * time.Second

// attemptMark is the last group's start in every attempt id exectriage makes: a UUID v4
// otherwise random (106 random bits), whose shape another exectriage can recognise in the
// logs (IsAttemptID) without sharing a journal.
const attemptMark = "e7a9"

// NewAttemptID returns a new attempt id, sent as x-request-id.
func NewAttemptID() string {
	u := uuid.New()
	u[10], u[11] = 0xe7, 0xa9
	return u.String()
}

// IsAttemptID reports whether s has the shape of an attempt id NewAttemptID makes
// (model.IsAttemptID: triage names the groups such a retry joins by it too).
func IsAttemptID(s string) bool { return model.IsAttemptID(s) }

// Precheck asks the guard, on the same evidence Run gathers and the provider state given,
// whether a retry could go ahead once a person confirms: the retry dialog shows its answer
// before asking for the confirmation. A refusal for any reason but the missing confirmation is
// final. Without a journal, or with a source that cannot send, the answer is a refusal that
// says so (Run refuses those too, before anything is recorded).
func Precheck(ctx context.Context, d Deps, e model.Execution, provider model.ProviderState) (Result, error) {
	if d.Journal == nil {
		return Result{Provider: provider, Decision: triage.GuardDecision{Code: triage.RefusedNoJournal,
			Reason: "no journal is open: a retry is never sent without recording its intent first",
			Next:   triage.Say("fix the journal's location (--journal PATH or EXECTRIAGE_JOURNAL), then retry")}}, nil
	}
	res, in, err := gather(ctx, &d, &e, callHash(&d, &e))
	if err != nil {
		return res, err
	}
	in.Provider, res.Provider = provider, provider
	res.Decision = triage.CheckRetry(in)
	if d.Sender == nil && (res.Decision.Allowed || res.Decision.Code == triage.RefusedNotConfirmed) {
		res.Decision = triage.GuardDecision{Code: triage.RefusedCannotSend,
			Reason: "this source cannot send: a file export has no API behind it",
			Next:   triage.Say("open the live API (COMPOSIO_API_KEY) or --base-url, then retry")}
	}
	return res, nil
}

// freshProvider uses a provider check made within ProviderFreshFor, else checks again.
func freshProvider(ctx context.Context, d *Deps, e *model.Execution, given *model.ProviderState) model.ProviderState {
	if given != nil && given.State != "" && !given.CheckedAt.IsZero() && d.now().Sub(given.CheckedAt) <= ProviderFreshFor {
		return *given
	}
	if d.Verifier == nil {
		return model.ProviderState{State: model.ProviderUnknown, Reason: "no provider check available for this source", CheckedAt: d.now()}
	}
	st := d.Verifier.Verify(ctx, e)
	st.State = cmp.Or(st.State, model.ProviderUnknown)
	return st
}

// refuseForHolder explains a claim lost to another attempt (a race the guard could not see).
func refuseForHolder(e *model.Execution, holder *model.RetryAttempt) (triage.GuardDecision, bool) {
	if holder == nil {
		return triage.GuardDecision{Code: triage.RefusedAttemptOpen, Reason: "another retry of this execution holds it",
			Next: triage.Step{Say: "see {1}", Do: []triage.Command{{Verb: triage.VerbJournal, ID: e.ID}}}}, true
	}
	return triage.CheckRetry(triage.GuardInput{Execution: e, Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous,
		Attempts: []model.RetryAttempt{*holder}}), true
}

// settle maps the send's answer to the attempt's state. Only proof that the request did not
// take effect makes it failed; anything unclear is indeterminate.
//
//   - success → succeeded, with the new log id, unless its data is the provider's failure
//     (triage.ReadDataFailure), read as the tool's reported failure is, below; errors beside
//     results → indeterminate;
//   - not sent (the request never fully left) → failed;
//   - a status that proves a refusal (model.ProvesNoEffect) → failed;
//   - 429 → failed: Composio (or the provider behind it) refused the call before executing it,
//     as rate limiting does; the attempt no longer blocks a retry, and the next retry goes
//     through the guard again (a fresh provider check and a new confirmation);
//   - a 200 with successful:false → triage.ClassifyAnswer: only a structured upstream status
//     that proves a refusal (400, 401, 403, 404, 422, or 429) makes it failed, and only when
//     no word of its text names a timeout, a gateway error, a dropped connection or an unknown
//     state; free text alone (refused, rate limited, never sent...) leaves it indeterminate;
//   - timeout, dropped connection, 5xx, 3xx, 409 and every other status, an unreadable answer,
//     any other error → indeterminate.
func settle(slug string, kind model.ToolKind, tr model.ToolResult, err error) (model.AttemptState, string, string) {
	if err == nil {
		if f, ok := triage.ReadDataFailure(tr.Data); ok && tr.Successful {
			// a success whose data is the provider's failure (a proxy's 200 around Slack's
			// ok: false) is read as the tool's own failure is; errors beside results settle
			// nothing
			said := "the answer said success, but its data is the provider's failure (" + f.Marker + "): "
			if f.Partial {
				return model.AttemptIndeterminate, tr.LogID, said + "errors beside results " + strconv.Quote(f.Text) +
					": part of it may have taken effect"
			}
			o, reason := triage.ClassifyAnswer(slug, kind, 200, f.Code, f.Text)
			if o == model.OutcomeFailed || o == model.OutcomeRejected {
				return model.AttemptFailed, tr.LogID, said + reason
			}
			return model.AttemptIndeterminate, tr.LogID, said + reason
		}
		if tr.Successful {
			return model.AttemptSucceeded, tr.LogID, "succeeded" + logNote(tr.LogID)
		}
		return model.AttemptIndeterminate, tr.LogID, "the answer said neither success nor failure"
	}
	var we *client.WriteError
	if !errors.As(err, &we) {
		return model.AttemptIndeterminate, tr.LogID, err.Error()
	}
	if we.ToolError != "" {
		switch o, reason := triage.ClassifyAnswer(slug, kind, we.StatusCode, upstreamStatus(tr.Data), we.ToolError); o {
		case model.OutcomeFailed, model.OutcomeRejected:
			return model.AttemptFailed, tr.LogID, "the tool reported failure: " + reason
		default:
			return model.AttemptIndeterminate, tr.LogID, "the tool reported failure: " + reason
		}
	}
	switch we.Kind {
	case client.WriteNotSent:
		return model.AttemptFailed, "", we.Error()
	case client.WriteFailed, client.WriteRejected:
		return model.AttemptFailed, tr.LogID, we.Error()
	default:
		return model.AttemptIndeterminate, tr.LogID, we.Error()
	}
}

// upstreamStatus is the provider's HTTP status a tool answer's data carries (status,
// status_code or http_status, a number), 0 when it carries none.
func upstreamStatus(data json.RawMessage) int {
	var d map[string]json.RawMessage
	if json.Unmarshal(data, &d) != nil {
		return 0
	}
	for _, k := range []string{"status", "status_code", "http_status", "statusCode"} {
		var n int
		if v, ok := d[k]; ok && json.Unmarshal(v, &n) == nil && n >= 100 && n <= 599 {
			return n
		}
	}
	return 0
}

func isNotSent(err error) bool {
	var we *client.WriteError
	return errors.As(err, &we) && we.Kind == client.WriteNotSent
}

func logNote(id string) string {
	if id == "" {
		return ""
	}
	return " (new log " + id + ")"
}
