package retry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// DefaultSettle is how long after a retry was sent its absence from the logs and the provider
// still proves nothing: the server may still be running the call (real sends take up to 10
// minutes after the client gave up) and logs lag. Resolve concludes failed from absent evidence
// only once this much time has passed since the send.
const DefaultSettle = 15 * time.Minute

// LateLogsUntil is when an indeterminate attempt's silence starts to prove something: until
// then its call may still be running or its log lagging, so Resolve settles it only from its
// own log or the provider's effect; after it, from their absence too. Zero for an attempt
// never sent (its silence proves at once that nothing ran).
func LateLogsUntil(a model.RetryAttempt) time.Time {
	if a.SentAt.IsZero() {
		return time.Time{}
	}
	return a.SentAt.Add(DefaultSettle)
}

// maxCandidates bounds how many list entries a search opens for their detail (the request-id
// search, when the server ignores the filter; the same-call search, to compare arguments). A
// search that reaches it is incomplete, and an incomplete search never frees a claim.
const maxCandidates = 25

// searchBefore is how long before an attempt began its logs are looked for: clocks differ
// between this machine and the server.
const searchBefore = 10 * time.Minute

// ErrInFlight is returned by Resolve for an attempt whose request may still be in flight.
var ErrInFlight = errors.New("the attempt is still in flight")

// ErrOtherSource is returned by Resolve when the attempt was sent to another source than the
// one whose logs and provider it would read: their silence would prove nothing.
var ErrOtherSource = errors.New("the attempt was sent to another source")

// ResolveOptions tune Resolve.
type ResolveOptions struct {
	// Execution is the original execution (with its detail), for the provider check and to
	// narrow the log search to its connected account; nil skips the provider check.
	Execution *model.Execution
	// As is a person's decision (succeeded or failed) for when the witnesses say nothing
	// conclusive; it never overrides conclusive evidence. Reason is required with it.
	As     model.AttemptState
	Reason string
	// Settle overrides DefaultSettle (tests; a person who knows the provider's latency).
	Settle time.Duration
}

// Resolution is what Resolve found and did.
type Resolution struct {
	Before   model.RetryAttempt   `json:"before"`
	Attempt  model.RetryAttempt   `json:"attempt"`
	Changed  bool                 `json:"changed"`
	Evidence []string             `json:"findings"` // what the logs and the provider showed, one line each
	Provider *model.ProviderState `json:"provider"` // null when the provider was not checked
	Next     string               `json:"next"`
}

// FindAttempt returns the attempt named by id: an attempt id, or an execution id, which names
// its open attempt (indeterminate first), else its newest one.
func FindAttempt(ctx context.Context, j journal.Journal, id string) (model.RetryAttempt, error) {
	a, err := j.Attempt(ctx, id)
	if err == nil {
		return a, nil
	}
	if !errors.Is(err, journal.ErrNotFound) {
		return model.RetryAttempt{}, err
	}
	as, err := j.Attempts(ctx, id)
	if err != nil {
		return model.RetryAttempt{}, err
	}
	if len(as) == 0 {
		return model.RetryAttempt{}, fmt.Errorf("no retry attempt or execution with attempts named %s: %w", id, journal.ErrNotFound)
	}
	for _, want := range []model.AttemptState{model.AttemptIndeterminate, model.AttemptSent, model.AttemptIntent} {
		for _, a := range as {
			if a.State == want {
				return a, nil
			}
		}
	}
	return as[0], nil
}

// Resolve settles an indeterminate attempt from the two witnesses, and never sends anything:
//
//   - a log carrying the attempt's request id with status success, a log of the same tool,
//     account and arguments that succeeded after the attempt began, or the provider showing
//     the effect → succeeded (the effect exists, whichever call made it: no further retry);
//   - a log carrying the request id whose failure is definite (refused, not executed) →
//     failed at once, however recently it was sent: that log is the call's end;
//   - no such log and the provider checked and found nothing → failed, provided the request was
//     never sent, or was sent longer ago than the settle time;
//   - otherwise it stays indeterminate, unless a person decides with As.
func Resolve(ctx context.Context, d Deps, id string, opt ResolveOptions) (Resolution, error) {
	a, err := d.Journal.Attempt(ctx, id)
	if err != nil {
		return Resolution{}, fmt.Errorf("resolve: %w", err)
	}
	r := Resolution{Before: a, Attempt: a}
	switch a.State {
	case model.AttemptSucceeded, model.AttemptFailed:
		r.Next = fmt.Sprintf("attempt %s has already settled (%s); nothing to resolve", a.ID, a.State)
		return r, nil
	case model.AttemptIntent, model.AttemptSent:
		r.Next = fmt.Sprintf("attempt %s is %s and its process may still be sending: wait until it ends "+
			"(or until its deadline passes, when it shows as indeterminate), then resolve it", a.ID, a.State)
		if l, err := d.Journal.Lease(ctx, a.ID); err == nil {
			r.Next += fmt.Sprintf("; held by %s until %s", l.Owner, model.When(l.Deadline))
		}
		return r, fmt.Errorf("resolve %s: %w", a.ID, ErrInFlight)
	}
	if opt.As != "" && opt.As != model.AttemptSucceeded && opt.As != model.AttemptFailed {
		return r, fmt.Errorf("resolve: --as must be succeeded or failed, not %q", opt.As)
	}
	if opt.As != "" && strings.TrimSpace(opt.Reason) == "" {
		return r, errors.New("resolve: a person's decision (--as) needs a reason")
	}
	if l, err := d.Journal.Lease(ctx, a.ID); err == nil && l.Target != "" && l.Target != d.Target {
		if opt.As == "" {
			r.Next = fmt.Sprintf("attempt %s was sent to %s, not %s: resolve it against the same source "+
				"(--base-url / COMPOSIO_API_KEY), or decide yourself with --as failed|succeeded --reason TEXT", a.ID, l.Target,
				orNoSource(d.Target))
			return r, fmt.Errorf("resolve %s: %w (%s)", a.ID, ErrOtherSource, l.Target)
		}
		d.Logs, d.Verifier = nil, nil // witnesses of another source would say nothing
		opt.Execution = nil
		r.Evidence = append(r.Evidence, "witnesses not read: the attempt went to "+l.Target)
	}
	settleFor := opt.Settle
	if settleFor <= 0 {
		settleFor = DefaultSettle
	}
	clock, err := d.Journal.Clock(ctx)
	if err != nil {
		return r, fmt.Errorf("resolve: %w", err)
	}
	now := d.clockNow(clock)
	// A host whose clock is off the shared journal's settles no other host's attempt as
	// failed: its idea of "long enough ago" is not to be trusted (journal/clock.go).
	var skewed error
	if err := clock.SkewError(); err != nil {
		if l, lerr := d.Journal.Lease(ctx, a.ID); lerr != nil || l.Owner.Host != thisHost() {
			skewed = err
		}
	}
	ev := &r.Evidence

	// Witness 1: the logs.
	var (
		logSuccess, logFailed string // log ids
		logsSeen              int    // logs carrying the request id
		logsChecked           bool
	)
	if d.Logs != nil {
		var err error
		var complete bool
		logSuccess, logFailed, logsSeen, complete, err = searchLogs(ctx, &d, a, opt.Execution, ev)
		switch {
		case err != nil:
			*ev = append(*ev, "logs: could not be searched: "+err.Error())
		case !complete:
			*ev = append(*ev, "logs: searched only in part: their silence proves nothing")
		default:
			logsChecked = true
		}
	} else {
		*ev = append(*ev, "logs: not searched (this source has no Logs API)")
	}

	// Witness 2: the provider.
	prov := model.ProviderState{State: model.ProviderUnknown, Reason: "not checked"}
	switch {
	case opt.Execution == nil:
		prov.Reason = "not checked: the original execution could not be loaded"
	case d.Verifier == nil:
		prov.Reason = "not checked: no provider check for this source"
	default:
		prov = d.Verifier.Verify(ctx, opt.Execution)
		prov.State = cmp.Or(prov.State, model.ProviderUnknown)
	}
	r.Provider = &prov
	*ev = append(*ev, fmt.Sprintf("provider: %s%s", prov.State, because(prov.Reason)))

	neverSent := a.SentAt.IsZero()
	settled := neverSent || now.Sub(a.SentAt) >= settleFor
	var (
		state  model.AttemptState
		logID  string
		detail string
	)
	switch {
	case logSuccess != "":
		state, logID, detail = model.AttemptSucceeded, logSuccess, "the logs show it succeeded (log "+logSuccess+")"
	case prov.State == model.ProviderFound:
		state, detail = model.AttemptSucceeded, "the provider shows the effect"+because(prov.Reason)+
			" (made by this retry or by the original: either way it exists)"
	case logFailed != "" && logsChecked && prov.State != model.ProviderFound:
		// its own log, ended in a refusal: the call is over and took no effect, so no later log
		// of it can come (exectriage's client sends a request once); waiting would only give
		// the dialog, the log's row and resolve three verdicts for one attempt
		state, logID, detail = model.AttemptFailed, logFailed, "the logs show the request failed without effect (log "+logFailed+")"
	case neverSent && logsSeen == 0:
		state, detail = model.AttemptFailed, "the attempt never reached sent: its request was never sent"
	case prov.State == model.ProviderNotFound && logsChecked && settled:
		state, detail = model.AttemptFailed, fmt.Sprintf("no log carries its request id and the provider has no effect, %s after the send",
			now.Sub(a.SentAt).Round(time.Second))
	}

	if state == "" {
		switch {
		case opt.As != "":
			state, detail = opt.As, "decided by a person: "+strings.TrimSpace(opt.Reason)+" (the logs and the provider were not conclusive)"
		case (prov.State == model.ProviderNotFound || logFailed != "") && logsChecked && !settled:
			wait := a.SentAt.Add(settleFor)
			r.Next = fmt.Sprintf("still indeterminate: it was sent %s ago and the call may still be running or its log "+
				"lagging; resolve again after %s", now.Sub(a.SentAt).Round(time.Second), model.When(wait))
			return r, nil
		case !logsChecked && d.Logs != nil:
			r.Next = "still indeterminate: the logs could not be searched completely, so nothing proves it did not run; look for request " +
				"id " +
				a.ID + " (or the same call after " + model.When(a.CreatedAt) + ") in the logs and check the provider by hand, then " +
				strings.TrimSuffix(
					d.command("resolve", a.ID),
					"`",
				) + " --as failed|succeeded --reason TEXT`"
			return r, nil
		default:
			r.Next = "still indeterminate: the logs and the provider are not conclusive; check the provider by hand, then " +
				strings.TrimSuffix(d.command("resolve", a.ID), "`") + " --as failed|succeeded --reason TEXT`"
			return r, nil
		}
	} else if opt.As != "" && opt.As != state {
		return r, fmt.Errorf("resolve: the evidence says %s (%s): --as %s refused", state, detail, opt.As)
	}
	if skewed != nil && state == model.AttemptFailed && opt.As == "" {
		r.Next = "still indeterminate: this host's clock is off the journal's, so it settles no other host's attempt as failed; resolve " +
			"it from a host whose clock is right, or decide yourself with --as failed|succeeded --reason TEXT"
		return r, fmt.Errorf("resolve %s: %w", a.ID, skewed)
	}

	if d.Who != "" {
		detail = "resolved by " + d.Who + ": " + detail
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := d.Journal.UpdateAttempt(rctx, a.ID, state, logID, detail, now); err != nil {
		return r, fmt.Errorf("resolve: record %s: %w", state, err)
	}
	r.Attempt.State, r.Attempt.Detail, r.Attempt.FinishedAt, r.Changed = state, detail, now, true
	if logID != "" {
		r.Attempt.NewLogID = logID
	}
	if state == model.AttemptSucceeded {
		r.Next = "the effect exists: do not retry " + a.ExecutionID
	} else {
		r.Next = "the retry did not take effect: " + a.ExecutionID + " may be retried again (a new confirmation is needed)"
	}
	return r, nil
}

// clockSkew is how far a log's time may precede the attempt's start (clocks differ) and still
// be a log of the attempt.
const clockSkew = 2 * time.Second

// searchLogs looks for the attempt's execution, trusting nothing a server may get wrong: first
// the logs whose detail carries the attempt's request id (a list entry without one is opened:
// a server that ignores the request_id filter answers with anything), then, when none does, a
// successful log of the same tool, the same account (else user) and the same canonical
// arguments that started after the attempt did (checked here, not left to the filters). It
// returns the id of a log showing success, and of one showing a definite failure of this very
// request (its request id).
func searchLogs(
	ctx context.Context,
	d *Deps,
	a model.RetryAttempt,
	orig *model.Execution,
	ev *[]string,
) (success, failed string, seen int, complete bool, err error) {
	var byRequest []model.Execution
	// First the log the execute answer named (its log_id, recorded with the attempt): it is
	// this attempt's own, unless it says it carries another request id.
	if a.NewLogID != "" {
		if e, err := d.Logs.GetLog(ctx, a.NewLogID); err == nil && e.ID == a.NewLogID && (e.RequestID == "" || e.RequestID == a.ID) {
			*ev = append(*ev, "logs: "+e.ID+" is the log the execute answer returned")
			e.RequestID = a.ID
			byRequest = append(byRequest, e)
		}
	}
	from := a.CreatedAt.Add(-searchBefore)
	q := client.LogQuery{Filters: []client.LogFilter{{Field: "request_id", Value: a.ID}}, From: from}
	opened := 0
	complete = true
pages:
	for page, err := range d.Logs.ListLogs(ctx, q) {
		if err != nil {
			return "", "", 0, false, err
		}
		for _, e := range page.Executions {
			if e.RequestID == "" && !e.Detailed {
				if opened >= maxCandidates {
					*ev = append(*ev, fmt.Sprintf("logs: stopped opening logs after %d (the request_id filter seems ignored): the search "+
						"is incomplete", maxCandidates))
					complete = false
					break pages
				}
				opened++
				full, err := d.Logs.GetLog(ctx, e.ID)
				if err != nil {
					return "", "", 0, false, err
				}
				if full.ID != e.ID { // a server that answers another log than the one asked for proves nothing
					*ev = append(*ev, fmt.Sprintf("logs: asked for %s, the server answered %s: the search is incomplete", e.ID, full.ID))
					complete = false
					continue
				}
				e = full
			}
			if e.RequestID == a.ID && (a.NewLogID == "" || e.ID != a.NewLogID) {
				byRequest = append(byRequest, e)
			}
		}
	}
	opts := d.Options
	for _, e := range byRequest {
		kind := model.KindWrite
		if d.Kinds != nil {
			kind = d.Kinds.Kind(e.ToolSlug)
		}
		outcome, why := triage.Classify(&e, kind, opts)
		*ev = append(
			*ev,
			fmt.Sprintf("logs: %s carries request id %s: %s, outcome %s%s", e.ID, a.ID, orStatus(e.Status), outcome, because(why)),
		)
		switch {
		case outcome == model.OutcomeSucceeded || triage.LogTookEffect(&e):
			success = e.ID
		case outcome == model.OutcomeFailed || outcome == model.OutcomeRejected:
			failed = cmp.Or(failed, e.ID)
		}
	}
	if len(byRequest) > 0 {
		return success, failed, len(byRequest), complete, nil
	}
	if !complete {
		return "", "", 0, false, nil
	}
	*ev = append(*ev, "logs: no log carries request id "+a.ID)

	// The server may not record x-request-id: look for the same call made after the attempt.
	whoField, who := callerOf(orig)
	if who == "" || a.ArgumentHash == "" {
		*ev = append(*ev, "logs: the same call cannot be looked for (the original's account and arguments are unknown)")
		return "", "", 0, true, nil
	}
	origID := ""
	if orig != nil {
		origID = orig.ID
	}
	complete, err = sameCalls(ctx, d, a.ToolSlug, whoField, who, a.ArgumentHash, a.CreatedAt.Add(-clockSkew), origID, ev,
		func(e model.Execution) bool {
			if !triage.LogTookEffect(&e) {
				return true
			}
			*ev = append(*ev, fmt.Sprintf("logs: %s ran %s with the same account and arguments after the attempt began and succeeded at %s",
				e.ID, e.ToolSlug, model.When(e.Timestamp)))
			success = e.ID
			return false
		})
	if err != nil || success != "" {
		return success, "", 0, err == nil, err
	}
	if complete {
		*ev = append(*ev, "logs: no successful "+a.ToolSlug+" with the same account and arguments since the attempt began")
	}
	return "", "", 0, complete, nil
}

// callerOf names who made a call: its connected account, else its user ("" when neither).
func callerOf(e *model.Execution) (field, who string) {
	switch {
	case e == nil:
	case e.ConnectedAccountID != "":
		return "connected_account_id", e.ConnectedAccountID
	case e.UserID != "":
		return "user_id", e.UserID
	}
	return "", ""
}

// sameCalls visits the logs of tool by the same caller (whoField = who) that started at or after
// start and ran arguments whose canonical hash is hash, except the log skip. The filters are
// checked here too (a server may ignore them); at most maxCandidates list entries are opened
// for their arguments. visit returns false to stop. complete is false when the walk stopped
// before the end without visit asking it to (the cap, a server answering other logs): what it
// did not see may be there.
func sameCalls(ctx context.Context, d *Deps, tool, whoField, who, hash string, start time.Time, skip string, ev *[]string,
	visit func(model.Execution) bool) (complete bool, err error) {
	filters := []client.LogFilter{{Field: "tool_slug", Value: tool}, {Field: whoField, Value: who}}
	volatile := d.Options.WithDefaults().VolatileKeys
	opened := 0
	complete = true
	for page, err := range d.Logs.ListLogs(ctx, client.LogQuery{Filters: filters, From: start}) {
		if err != nil {
			return false, err
		}
		for _, e := range page.Executions {
			if e.ID == skip || !strings.EqualFold(e.ToolSlug, tool) || e.Timestamp.Before(start) {
				continue
			}
			if !e.Detailed || len(e.Arguments) == 0 {
				if opened >= maxCandidates {
					*ev = append(
						*ev,
						fmt.Sprintf("logs: stopped comparing arguments after %d logs: the search is incomplete", maxCandidates),
					)
					return false, nil
				}
				opened++
				full, err := d.Logs.GetLog(ctx, e.ID)
				if err != nil {
					return false, err
				}
				if full.ID != e.ID {
					*ev = append(*ev, fmt.Sprintf("logs: asked for %s, the server answered %s: the search is incomplete", e.ID, full.ID))
					complete = false
					continue
				}
				e = full
			}
			sameWho := e.ConnectedAccountID == who
			if whoField == "user_id" {
				sameWho = e.UserID == who
			}
			if sameWho && !e.Timestamp.Before(start) && model.ArgumentHash(e.Arguments, volatile) == hash && !visit(e) {
				return true, nil
			}
		}
	}
	return complete, nil
}

// thisHost is this machine's name, as journal owners record it.
func thisHost() string {
	h, _ := os.Hostname()
	return h
}

func orNoSource(s string) string {
	if s == "" {
		return "this source"
	}
	return s
}

func orStatus(s string) string {
	if s == "" {
		return "no terminal status"
	}
	return "status " + s
}

func because(reason string) string {
	if reason = strings.TrimSpace(reason); reason == "" {
		return ""
	}
	return ": " + reason
}
