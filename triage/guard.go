package triage

import (
	"bytes"
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// The retry guard decides whether a guarded retry of an execution may start. It is pure: the
// caller gathers the evidence (a fresh provider check, the journal's attempts and verdicts, the
// person's confirmation) and the guard answers, always with the reason and the next step.
// Rules, first refusal wins:
//
//  1. only writes are retried (a read changes nothing);
//  2. only an outcome of failed, rejected or ambiguous, and never an execution whose log
//     records success (a success past the caller's timeout happened; the caller only missed it);
//  3. no retry of an execution whose arguments are not known (it could not be repeated);
//  4. no retry after one of its retries succeeded, and none while one is intent, sent or
//     indeterminate (resolve it first); nor while an attempt of the same call (tool and
//     arguments) on another execution is (a server that records no request id lets a retry's
//     own log, or a newer failure of the same call, look like an execution of its own);
//  5. no retry of an execution a person marked confirmed_succeeded or duplicate;
//  6. no retry when the provider shows the effect; nothing overrides that but a fresh check;
//     the provider must have been checked (found, not_found or unknown with its reason);
//  7. no retry without a person's confirmation of failure, with a reason.

// RefusalCode names the rule that refused a retry; "" when the retry is allowed.
type RefusalCode string

const (
	RefusedNotWrite         RefusalCode = "not_write"
	RefusedOutcome          RefusalCode = "outcome"
	RefusedLogSuccess       RefusalCode = "log_success"
	RefusedNoArguments      RefusalCode = "no_arguments"
	RefusedAttemptSucceeded RefusalCode = "attempt_succeeded"
	RefusedAttemptOpen      RefusalCode = "attempt_open"
	RefusedIndeterminate    RefusalCode = "attempt_indeterminate"
	RefusedVerdict          RefusalCode = "verdict"
	RefusedProviderFound    RefusalCode = "provider_found"
	RefusedProviderNotRun   RefusalCode = "provider_unchecked"
	RefusedNotConfirmed     RefusalCode = "not_confirmed"
	RefusedNoReason         RefusalCode = "no_reason"
	RefusedIsRetry          RefusalCode = "is_retry"          // the execution is itself a retry made by exectriage
	RefusedRateLimited      RefusalCode = "rate_limited"      // a retry of it was rate limited moments ago
	RefusedRetriedElsewhere RefusalCode = "retried_elsewhere" // a retry of it by another exectriage is in the logs
	RefusedSameCallOpen     RefusalCode = "same_call_open"    // an attempt of the same call on another execution is open
	RefusedMetaTool         RefusalCode = "meta_tool"         // a meta tool runs other tools: retry its failed children instead
	// Refusals of the retry protocol rather than of the evidence (package retry decides them).
	RefusedNoJournal  RefusalCode = "no_journal"  // no journal is open: an intent could not be recorded
	RefusedCannotSend RefusalCode = "no_api"      // the source has no API behind it (a file export)
	RefusedNoLiveLog  RefusalCode = "no_live_log" // the live log could not be read: a file alone never allows a send
	RefusedNotAsSeen  RefusalCode = "not_as_seen" // the live log's call is not the one the person saw and confirmed
)

// GuardInput is the evidence the guard decides on.
type GuardInput struct {
	Execution     *model.Execution // the original execution (id, tool, log status)
	Kind          model.ToolKind
	Outcome       model.Outcome
	OutcomeReason string
	// Provider is the result of a fresh provider check; a zero State means none was run.
	Provider model.ProviderState
	// Attempts are the journal's retry attempts of this execution, any order.
	Attempts []model.RetryAttempt
	// SameCall are the journal's attempts of other executions that run the same call (the same
	// tool and canonical arguments).
	SameCall []model.RetryAttempt
	// Children are the runs a meta tool execution made (their logs name it as parent), with
	// their outcomes; ChildrenRead says the logs were searched for them completely.
	Children     []ChildRun
	ChildrenRead bool
	// Verdict is the newest verdict a person recorded for the execution ("" when none).
	Verdict   model.Verdict
	VerdictBy string
	VerdictAt time.Time
	// MadeBy is the retry attempt that created this execution (its log carries the attempt's
	// id as request id, or is the attempt's new log), when the journal knows one; MadeByShape
	// says its request id has the shape of an exectriage attempt id although no journal entry
	// here knows it (a retry recorded in another journal).
	MadeBy      *model.RetryAttempt
	MadeByShape bool
	// RetriedIn is a later log of the same call (tool, account, arguments) whose request id has
	// the shape of an exectriage attempt id that this journal does not know: another exectriage,
	// on another journal, retried it already.
	RetriedIn string
	// Now is when the guard decides (the rate-limit cool-down counts from the last 429); zero
	// skips the cool-down.
	Now time.Time
	// Confirmed is the person's explicit confirmation that the execution failed, Reason theirs.
	Confirmed bool
	Reason    string
}

// GuardDecision is the guard's answer: whether the retry may start, why, and what to do next.
type GuardDecision struct {
	Allowed bool        `json:"allowed"`
	Code    RefusalCode `json:"code,omitempty"`
	Reason  string      `json:"reason"`
	Next    Step        `json:"next"`
}

// CheckRetry applies the guard's rules to in.
func CheckRetry(in GuardInput) GuardDecision {
	var e model.Execution
	if in.Execution != nil {
		e = *in.Execution
	}
	id := e.ID
	id = cmp.Or(id, "ID")
	refuse := func(code RefusalCode, reason string, next Step) GuardDecision {
		return GuardDecision{Code: code, Reason: reason, Next: next}
	}

	if !in.Kind.IsWrite() {
		kind := in.Kind
		kind = cmp.Or(kind, "of unknown kind")
		return refuse(
			RefusedNotWrite,
			fmt.Sprintf(
				"%s is %s, not a write: running it again changes nothing, so there is nothing to guard",
				toolName(e),
				article(string(kind)),
			),
			Say("run the read again directly; the guarded retry is only for writes"),
		)
	}

	switch in.Outcome {
	case model.OutcomeFailed, model.OutcomeRejected, model.OutcomeAmbiguous:
	case model.OutcomeWaiting:
		return refuse(
			RefusedOutcome,
			"the execution waits for a person's approval"+because(in.OutcomeReason)+": a retry here would run it without that approval",
			Say("approve or deny it in the app that asked; the app's re-call with the approval runs it"),
		)
	case model.OutcomeSucceeded:
		return refuse(RefusedOutcome, "the execution succeeded"+because(in.OutcomeReason),
			Step{Say: "nothing to retry; if the effect seems missing, check the provider: {1}", Do: []Command{{Verb: VerbVerify, ID: id}}})
	default:
		return refuse(RefusedOutcome, "the execution's outcome is not known",
			Step{Say: "look at it first: {1}", Do: []Command{{Verb: VerbShow, ID: id}}})
	}
	if LogTookEffect(&e) {
		return refuse(RefusedLogSuccess,
			"the execution log records success"+paren(in.OutcomeReason)+": the action happened, whatever the caller saw",
			Step{Say: "do not retry; record it: {1}", Do: []Command{{Verb: VerbMark, ID: id, Verdict: model.VerdictConfirmedSucceeded}}})
	}

	if args := bytes.TrimSpace(e.Arguments); len(args) == 0 || string(args) == "null" {
		if e.Detailed {
			return refuse(RefusedNoArguments, NoStoredData+": a retry could not repeat the same call",
				Say("repeat the call from its source (your application has its arguments), after checking the provider by hand"))
		}
		return refuse(RefusedNoArguments,
			"the execution's arguments are not loaded: a retry could not repeat the same call",
			Step{Say: "load the execution's detail ({1}), then retry", Do: []Command{{Verb: VerbShow, ID: id}}})
	}

	switch {
	case in.MadeBy != nil:
		return refuse(
			RefusedIsRetry,
			fmt.Sprintf(
				"this execution is retry attempt %s of %s, made by exectriage: retrying a retry would send the action again",
				in.MadeBy.ID,
				in.MadeBy.ExecutionID,
			),
			Step{
				Say: "settle the original instead: {1} (and {2} if it is indeterminate)",
				Do:  []Command{{Verb: VerbJournal, ID: in.MadeBy.ExecutionID}, {Verb: VerbResolve, ID: in.MadeBy.ID}},
			},
		)
	case in.MadeByShape:
		return refuse(
			RefusedIsRetry,
			"this execution's request id "+e.RequestID+" has the shape of an exectriage retry attempt, one this journal does not know: "+
				"it was made by another exectriage, on another journal",
			Say(
				"find the original and the journal that retried it; a team triaging together needs one PostgreSQL journal (--journal "+
					"postgres://...)",
			),
		)
	case in.RetriedIn != "":
		return refuse(
			RefusedRetriedElsewhere,
			"log "+in.RetriedIn+" repeats this call (same tool, account and arguments) with an exectriage attempt id this journal does "+
				"not know: another exectriage, on another journal, already retried it",
			Step{
				Say: "do not retry; look at " + in.RetriedIn + " ({1}); a team triaging together needs one PostgreSQL journal (--journal " +
					"postgres://...)",
				Do: []Command{{Verb: VerbShow, ID: in.RetriedIn}},
			},
		)
	}

	if d, stop := checkAttempts(id, in.Attempts); stop {
		return d
	}
	if IsMetaTool(e.ToolSlug) {
		return refuseMeta(id, in)
	}
	if a := OpenSameCall(in.SameCall, ""); a != nil {
		return refuse(
			RefusedSameCallOpen,
			fmt.Sprintf(
				"retry attempt %s of %s runs the same call (same tool and arguments) and is %s: it may have taken effect, and this "+
					"execution may even be its own log",
				a.ID,
				a.ExecutionID,
				a.State,
			),
			Step{Say: "settle that attempt first: {1}; never retry the same call over it", Do: []Command{{Verb: VerbResolve, ID: a.ID}}},
		)
	}
	if a := RateLimitedRecently(in.Attempts, in.Now, ""); a != nil {
		wait := a.FinishedAt.Add(RateLimitCooldown)
		return refuse(
			RefusedRateLimited,
			fmt.Sprintf(
				"retry attempt %s was rate limited (429)%s: retrying at once would only be refused again, by everyone at once",
				a.ID,
				guardAt(a.FinishedAt),
			),
			Say("wait until "+model.When(wait)+", then retry"),
		)
	}

	switch in.Verdict {
	case model.VerdictConfirmedSucceeded, model.VerdictDuplicate:
		return refuse(
			RefusedVerdict,
			fmt.Sprintf("%s marked this execution %s%s", orSomeone(in.VerdictBy), in.Verdict, guardAt(in.VerdictAt)),
			Step{
				Say: "do not retry; if that verdict is wrong, record the correction first: {1}",
				Do:  []Command{{Verb: VerbMark, ID: id, Verdict: model.VerdictConfirmedFailed, Note: true}},
			},
		)
	}

	switch in.Provider.State {
	case model.ProviderFound:
		return refuse(
			RefusedProviderFound,
			"provider shows the effect"+evidence(in.Provider)+because(in.Provider.Reason),
			Step{
				Say: "do not retry; mark it: {1} (only {2} that no longer finds it changes this)",
				Do:  []Command{{Verb: VerbMark, ID: id, Verdict: model.VerdictConfirmedSucceeded}, {Verb: VerbVerify, ID: id, Again: true}},
			},
		)
	case model.ProviderNotFound, model.ProviderUnknown:
	default:
		return refuse(RefusedProviderNotRun, "the provider has not been checked for this execution's effect",
			Step{Say: "check it first: {1}", Do: []Command{{Verb: VerbVerify, ID: id}}})
	}

	if !in.Confirmed {
		return refuse(RefusedNotConfirmed,
			"no one has confirmed that the first attempt failed (outcome "+string(in.Outcome)+because(in.OutcomeReason)+
				"; provider "+string(in.Provider.State)+because(in.Provider.Reason)+")",
			Step{Say: "check the evidence, then confirm: {1}", Do: []Command{{Verb: VerbRetry, ID: id, Confirm: true}}})
	}
	if strings.TrimSpace(in.Reason) == "" {
		return refuse(RefusedNoReason, "a confirmation of failure needs a reason for the journal",
			Step{Say: "say why you believe it failed: {1}", Do: []Command{{Verb: VerbRetry, ID: id, Confirm: true}}})
	}

	reason := fmt.Sprintf(
		"%s %s with outcome %s; provider %s; failure confirmed",
		toolName(e),
		article(string(in.Kind)),
		in.Outcome,
		in.Provider.State,
	)
	if in.Provider.State == model.ProviderUnknown {
		reason += " (the provider could not be checked: the confirmation is the only evidence it did not happen)"
	}
	return GuardDecision{Allowed: true, Reason: reason,
		Next: Say("record the intent, then send once through the no-retry client with x-request-id = the attempt id")}
}

// ChildRun is one run a meta tool execution made.
type ChildRun struct {
	ID      string
	Tool    string
	Kind    model.ToolKind
	Outcome model.Outcome
}

// metaTools are Composio's meta tools that run other tools (a session's multi-execute, the
// remote workbench and bash, which call tools from code).
var metaTools = map[string]bool{"COMPOSIO_MULTI_EXECUTE_TOOL": true, "COMPOSIO_REMOTE_WORKBENCH": true, "COMPOSIO_REMOTE_BASH_TOOL": true}

// IsMetaTool reports whether slug is a meta tool that runs other tools in one call.
func IsMetaTool(slug string) bool {
	slug = strings.TrimSpace(slug)
	if len(slug) < len("COMPOSIO_") || !strings.EqualFold(slug[:len("COMPOSIO_")], "COMPOSIO_") {
		return false // nearly every slug: decided without a copy
	}
	return metaTools[strings.ToUpper(slug)]
}

// refuseMeta refuses the retry of a meta tool execution: sent again as one write it would run
// every child again, those that took effect included. Its failed write children may each be
// retried through the guard.
func refuseMeta(id string, in GuardInput) GuardDecision {
	var took, unknown, failed []string
	for _, c := range in.Children {
		switch {
		case !c.Kind.IsWrite():
		case c.Outcome == model.OutcomeSucceeded:
			took = append(took, c.ID+" ("+c.Tool+")")
		case c.Outcome == model.OutcomeFailed || c.Outcome == model.OutcomeRejected:
			failed = append(failed, c.ID)
		default:
			unknown = append(unknown, c.ID+" ("+c.Tool+")")
		}
	}
	reason := "this is a meta tool run (" + toolName(*in.Execution) + "): retried as one write it would run every child again"
	switch {
	case !in.ChildrenRead:
		reason += ", and its children's logs could not be read completely: some may have taken effect"
	case len(took) > 0:
		reason += ", and " + strings.Join(took, ", ") + " took effect"
	case len(unknown) > 0:
		reason += ", and the outcome of " + strings.Join(unknown, ", ") + " is unknown"
	case len(in.Children) == 0:
		reason += "; no child run was found in the logs"
	}
	next := Say("look at its children first: the logs whose parent is " + id)
	if in.ChildrenRead && len(failed) > 0 {
		next = Step{Say: "retry only the children that failed, each through the guard: "}
		for i, c := range failed {
			if i > 0 {
				next.Say += ", "
			}
			next.Say += "{" + strconv.Itoa(i+1) + "}"
			next.Do = append(next.Do, Command{Verb: VerbRetry, ID: c})
		}
	}
	return GuardDecision{Code: RefusedMetaTool, Reason: reason, Next: next}
}

// NoStoredData says why a detailed log without arguments allows neither a provider check nor a
// retry: the project keeps no arguments and no responses in its logs.
const NoStoredData = "this log keeps no arguments (the project has \"Don't store data\" on, or the tool took none)"

// OpenSameCall returns an open attempt (intent, sent or indeterminate) among attempts of the
// same call, other than except; nil when none.
func OpenSameCall(attempts []model.RetryAttempt, except string) *model.RetryAttempt {
	for i := range attempts {
		if a := &attempts[i]; a.ID != except && a.State.Open() {
			return a
		}
	}
	return nil
}

// RateLimitCooldown is how long after a retry was rate limited (429) another retry of the same
// execution waits: without it, every racer waiting on the claim would send at once.
const RateLimitCooldown = time.Minute

// RateLimitedRecently returns the attempt (other than except) that was rate limited less than
// RateLimitCooldown before now, nil when none (or when now is zero).
func RateLimitedRecently(attempts []model.RetryAttempt, now time.Time, except string) *model.RetryAttempt {
	if now.IsZero() {
		return nil
	}
	for i := range attempts {
		a := &attempts[i]
		if a.ID != except && a.State == model.AttemptFailed && !a.FinishedAt.IsZero() && now.Sub(a.FinishedAt) < RateLimitCooldown &&
			(strings.Contains(strings.ToLower(a.Detail), "rate limit") || strings.Contains(a.Detail, "429")) {
			return a
		}
	}
	return nil
}

// checkAttempts refuses while an attempt is open, or after one succeeded.
func checkAttempts(id string, attempts []model.RetryAttempt) (GuardDecision, bool) {
	var open *model.RetryAttempt
	for i := range attempts {
		a := &attempts[i]
		if a.State == model.AttemptSucceeded {
			reason := fmt.Sprintf("retry attempt %s already succeeded%s", a.ID, guardAt(a.FinishedAt))
			if a.NewLogID != "" {
				reason += " (new log " + a.NewLogID + ")"
			}
			return GuardDecision{Code: RefusedAttemptSucceeded, Reason: reason,
				Next: Step{Say: "do not retry: the effect exists; see {1}", Do: []Command{{Verb: VerbJournal, ID: id}}}}, true
		}
		if a.State.Open() && open == nil {
			open = a
		}
	}
	if open == nil {
		return GuardDecision{}, false
	}
	if open.State == model.AttemptIndeterminate {
		reason := "retry attempt " + open.ID + " is indeterminate: it may have taken effect"
		if open.Detail != "" {
			reason += " (" + open.Detail + ")"
		}
		return GuardDecision{Code: RefusedIndeterminate, Reason: reason,
			Next: Step{
				Say: "settle it from the logs and the provider first: {1}; never retry over it",
				Do:  []Command{{Verb: VerbResolve, ID: open.ID}},
			}}, true
	}
	since := open.CreatedAt
	if !open.SentAt.IsZero() {
		since = open.SentAt
	}
	return GuardDecision{Code: RefusedAttemptOpen,
		Reason: fmt.Sprintf("retry attempt %s is in flight (%s%s by %s)", open.ID, open.State, guardAt(since), orSomeone(open.Who)),
		Next: Step{Say: "wait for it to finish and check {1}; if its process died, it shows as indeterminate and {2} settles it",
			Do: []Command{{Verb: VerbJournal, ID: id}, {Verb: VerbResolve, ID: open.ID}}}}, true
}

// evidence names the first provider object that matched: " (message 18c2f… at 14:02:11)".
func evidence(p model.ProviderState) string {
	if len(p.Matches) == 0 {
		return ""
	}
	m := p.Matches[0]
	s := " (" + shortID(m.ID)
	if !m.Time.IsZero() {
		s += " at " + model.When(m.Time)
	}
	if len(p.Matches) > 1 {
		s += fmt.Sprintf(", and %d more", len(p.Matches)-1)
	}
	return s + ")"
}

func shortID(id string) string {
	r := []rune(id)
	if len(r) > 12 {
		return string(r[:10]) + "…"
	}
	return id
}

func paren(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return " (" + s + ")"
}

func because(reason string) string {
	if reason = strings.TrimSpace(reason); reason == "" {
		return ""
	}
	return ": " + reason
}

func orSomeone(who string) string {
	if who == "" {
		return "someone"
	}
	return who
}

func toolName(e model.Execution) string {
	if e.ToolSlug == "" {
		return "the tool"
	}
	return e.ToolSlug
}

func article(kind string) string {
	if kind == "" {
		return "a tool"
	}
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// guardAt formats when something happened for a refusal: " at 2026-03-04 14:02:11Z", or "".
func guardAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " at " + model.When(t)
}
