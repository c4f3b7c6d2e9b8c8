package app

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/triage"
)

// The guarded retry, as the commands and the TUI run it (package retry is the protocol;
// triage.CheckRetry the guard that decides).

// The retry protocol's defaults, and the step of its test hook at which the request goes out
// (the others block until the process is killed).
const (
	DefaultRetryTimeout = retry.DefaultTimeout
	MaxRetryTimeout     = retry.MaxTimeout
	DefaultSettle       = retry.DefaultSettle
	StepInFlight        = retry.StepInFlight
)

// Errors of Resolve that are refusals rather than failures.
var (
	ErrInFlight    = retry.ErrInFlight
	ErrOtherSource = retry.ErrOtherSource
)

// RetryDeps are the protocol's dependencies on this session: the journal, the no-retry write
// client, the Logs API, the verifiers, the kinds and triage settings, the person and the
// target the attempt is recorded against.
func (a *App) RetryDeps(j *Journal) retry.Deps {
	d := retry.Deps{Kinds: a.kinds, Options: a.topt, Who: a.Who(), Now: a.o.Now, Target: a.SourceName(), In: a.SessionArgs()}
	if j != nil {
		d.Journal = j.j
	}
	if c := a.src.Client(); c != nil {
		if !a.ReadOnly() { // a read-only session has no sender at all
			d.Sender = c.WithoutRetries()
		}
		d.Logs = c
	}
	if v := a.Verifiers(); v != nil {
		d.Verifier = v
	}
	return d
}

// RetryHooks tune one retry run by the CLI.
type RetryHooks struct {
	Timeout time.Duration                                // the retry's own request (0: DefaultRetryTimeout)
	Pause   func(ctx context.Context, step string) error // the binary's test hook
}

// Retry runs the guarded retry of req.Execution once, recorded in the session's journal
// (UseJournal: every front hands the session its journal before anything that writes to it):
// see package retry, which reads the live log again, from the API the retry would go to, and
// checks that every record on the way to the send is of req.ID.
func (a *App) Retry(ctx context.Context, req retry.Request, h RetryHooks) (retry.Result, error) {
	if err := a.CheckWrite("nothing was sent"); err != nil {
		return retry.Result{}, err
	}
	if a.j == nil {
		return retry.Result{}, a.noJournal("nothing was sent")
	}
	d := a.RetryDeps(a.j)
	d.Timeout, d.Pause = h.Timeout, h.Pause
	res, err := retry.Run(ctx, d, req)
	res.Decision = a.inSession(res.Decision)
	return res, err
}

// FindAttempt finds an attempt by its id, or the open attempt of an execution.
func FindAttempt(ctx context.Context, j *Journal, id string) (model.RetryAttempt, error) {
	return retry.FindAttempt(ctx, j.j, id)
}

// Resolve settles an indeterminate attempt from the logs and the provider of a (nil: none
// readable, so only opt.As settles it).
func Resolve(ctx context.Context, a *App, j *Journal, attemptID string, opt retry.ResolveOptions) (retry.Resolution, error) {
	if a != nil {
		if err := a.CheckWrite("nothing was resolved"); err != nil {
			return retry.Resolution{}, err
		}
	}
	d := retry.Deps{Journal: j.j}
	if a != nil {
		d = a.RetryDeps(j)
		d.Sender = nil // resolve never sends
	}
	return retry.Resolve(ctx, d, attemptID, opt)
}

// RetryEvidence is what the retry dialog shows before asking for a confirmation.
type RetryEvidence struct {
	Exec     model.Execution
	Triage   model.Triage
	Provider model.ProviderState // zero State: the provider could not be asked
	Decision triage.GuardDecision
	// Send describes the request that would go out.
	Send phrase.Send
}

// RetryOutcome is how a retry from the dialog ended.
type RetryOutcome struct {
	AttemptID string
	State     model.AttemptState
	NewLogID  string
	Detail    string
	Err       string
	// Refusal is why the guard refused to send, on the evidence fresh at the send ("" when
	// it did not), and Next the step it advises: each front words it (the TUI as its keys).
	Refusal string
	Next    triage.Step
	// Resolve is the command line that settles the attempt, in this session (when there is one).
	Resolve string
	// Journal is what the journal holds about the execution once the retry ended (nil when it
	// could not be read): the front shows it without asking again.
	Journal *JournalState
}

// NotSent reports whether nothing was sent: an error before the send, or a refusal.
func (o RetryOutcome) NotSent() bool { return o.State == "" && (o.Err != "" || o.Refusal != "") }

// Evidence asks the guard on what is known now, without a confirmation (retry.Precheck): a
// refusal for any other reason than the missing confirmation is final.
func (a *App) Evidence(ctx context.Context, e model.Execution, t model.Triage, ps model.ProviderState) (RetryEvidence, error) {
	ev := RetryEvidence{Exec: e, Triage: t, Provider: ps}
	res, err := retry.Precheck(ctx, a.RetryDeps(a.j), e, ps)
	if err != nil {
		return ev, err
	}
	ev.Decision = a.inSession(res.Decision)
	r := a.policy.Redactor()
	ev.Send = sendPreview(&e, r)
	if a.j != nil {
		ev.Send.Journal, ev.Send.Guards = a.j.Kind(), a.j.Guards()
	}
	ev.Provider = hideState(ev.Provider, r)
	return ev, nil
}

// RetryConfirmed runs the guarded retry of e whose failure the person confirmed (with reason), on
// the provider state ps they saw; a refusal at the send comes back typed (Refusal, Next).
func (a *App) RetryConfirmed(ctx context.Context, e model.Execution, ps model.ProviderState, reason string) RetryOutcome {
	req := retry.Request{ID: e.ID, Execution: e, Confirmed: true, Reason: reason}
	if ps.State != "" {
		p := ps
		req.Provider = &p
	}
	res, err := a.Retry(ctx, req, RetryHooks{})
	out := RetryOutcome{}
	if res.Attempt != nil {
		out.AttemptID, out.State, out.NewLogID, out.Detail = res.Attempt.ID, res.Attempt.State, res.Attempt.NewLogID, res.Attempt.Detail
		out.Resolve = a.Hint("resolve", res.Attempt.ID)
	}
	switch {
	case err != nil:
		out.Err = err.Error()
	case res.Refused():
		out.Refusal, out.Next = res.Decision.Reason, res.Decision.Next
		out.State = ""
	}
	if st, err := a.JournalStateOf(context.WithoutCancel(ctx), e.ID); err == nil {
		out.Journal = &st
	}
	return out
}

// maxPreviewArgs bounds the arguments the retry dialog shows (it scrolls them).
const maxPreviewArgs = 4096

// maxPreviewParse bounds the arguments parsed for the preview (the panes' common.MaxParse).
const maxPreviewParse = 512 << 10

// hideState returns a copy of ps whose free text (reason, read arguments, evidence) has its
// secrets redacted, for the retry dialog (which has no reveal).
func hideState(ps model.ProviderState, r *redact.Redactor) model.ProviderState {
	ps.Reason = r.String(ps.Reason)
	if len(ps.ReadArgs) > 0 && len(ps.ReadArgs) <= maxPreviewParse {
		ps.ReadArgs = r.JSON(ps.ReadArgs)
	}
	if len(ps.Matches) > 0 {
		ms := make([]model.EvidenceItem, len(ps.Matches))
		for i, m := range ps.Matches {
			m.ID, m.Summary = r.String(m.ID), r.String(m.Summary)
			ms[i] = m
		}
		ps.Matches = ms
	}
	return ps
}

// sendPreview is what a retry would send: the arguments with their secrets redacted (the
// retry sends the original bytes), cut to a bound.
func sendPreview(e *model.Execution, r *redact.Redactor) phrase.Send {
	args := "{}"
	var buf bytes.Buffer
	if len(e.Arguments) <= maxPreviewParse {
		if err := json.Compact(&buf, r.JSON(e.Arguments)); err == nil && buf.Len() > 0 {
			args = buf.String()
		}
	} else {
		args = r.String(string(e.Arguments[:1024]))
	}
	more := 0
	if len(args) > maxPreviewArgs { // the dialog scrolls: all of it up to a bound, cut on a rune
		cut := maxPreviewArgs
		for cut > 0 && !utf8.RuneStart(args[cut]) {
			cut--
		}
		args, more = args[:cut], len(args)-cut
	}
	_, versionNote := retry.ToolVersionOf(e)
	return phrase.Send{Slug: e.ToolSlug, VersionNote: versionNote, Account: e.ConnectedAccountID, User: e.UserID, Args: args, More: more}
}
