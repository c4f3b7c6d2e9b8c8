// Package model holds the plain data every layer of exectriage shares: one tool execution as
// the Logs API describes it, the triage words (tool kind, outcome, provider state, verdict) and
// the retry attempt the journal records. It does no I/O; parsing of the wire shape lives in
// wire.go next to the types it fills.
package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// SourceKind is what a session's source reads: the live API, the embedded demo, or an export
// file.
type SourceKind string

// The source kinds.
const (
	SourceLive SourceKind = "live" // the Composio API (or any --base-url)
	SourceDemo SourceKind = "demo" // the embedded demo sandbox
	SourceFile SourceKind = "file" // an export file (with an API client for verify when --base-url is given)
)

// ToolKind says whether running a tool again can change the world again.
type ToolKind string

const (
	KindRead            ToolKind = "read"             // readOnlyHint: safe to repeat
	KindIdempotentWrite ToolKind = "idempotent_write" // idempotentHint: repeating converges
	KindWrite           ToolKind = "write"            // anything else, or unknown
)

// IsWrite reports whether the kind changes provider state (idempotent or not).
func (k ToolKind) IsWrite() bool { return k == KindWrite || k == KindIdempotentWrite }

// Outcome is what triage concluded about one execution.
type Outcome string

const (
	OutcomeSucceeded Outcome = "succeeded" // success and nothing suspicious
	OutcomeFailed    Outcome = "failed"    // definite failure; the action cannot have happened
	OutcomeRejected  Outcome = "rejected"  // rate limited or refused before execution
	OutcomeAmbiguous Outcome = "ambiguous" // the action may or may not have happened
	// OutcomeWaiting: a session call that waits for a person's approval (result_type
	// input_required with a request_state): nothing ran; the app's re-call with the approval
	// runs it.
	OutcomeWaiting Outcome = "waiting"
)

// Outcomes lists every outcome, in the order reports and filters name them.
func Outcomes() []Outcome {
	return []Outcome{OutcomeSucceeded, OutcomeFailed, OutcomeRejected, OutcomeAmbiguous, OutcomeWaiting}
}

// ErrorKind is the class of failure recorded in a log's data.error.kind.
type ErrorKind string

const (
	ErrTimeout     ErrorKind = "timeout"
	ErrUpstream5xx ErrorKind = "upstream_5xx"
	ErrRateLimited ErrorKind = "rate_limited"
	ErrAuth        ErrorKind = "auth"
	ErrValidation  ErrorKind = "validation"
	ErrConnection  ErrorKind = "connection"
)

// Log status values as the Logs API reports them.
const (
	StatusSuccess = "success"
	StatusFailed  = "failed"
)

// ExecError is the error a log records for a failed execution.
type ExecError struct {
	Message    string    `json:"message,omitempty"`
	HTTPStatus int       `json:"http_status,omitempty"` // upstream (provider) HTTP status, 0 when unknown
	Kind       ErrorKind `json:"kind,omitempty"`        // empty when the log does not say
}

// Source says where an execution came from (source.host: mcp|sdk|api).
type Source struct {
	Host      string `json:"host,omitempty"`
	Framework string `json:"framework,omitempty"`
	Language  string `json:"language,omitempty"`
}

// Parent links an execution to the log that caused it.
type Parent struct {
	LogID    string `json:"log_id,omitempty"`
	ToolSlug string `json:"tool_slug,omitempty"`
}

// Delivery is what identifies one delivery of a trigger's event to the app (Composio's trigger
// logs: meta.triggerClientPayload, triggerNanoId, triggerClientError; the webhook headers
// webhook-id and x-composio-delivery-attempt). Delivery is at least once: a redelivery of an
// event carries the same EventID with the next Attempt.
type Delivery struct {
	// EventID is the delivered payload's id, which the webhook-id header repeats: the same on
	// every delivery of one event.
	EventID string `json:"event_id,omitempty"`
	// Attempt is the delivery attempt (1 the first), 0 when not recorded.
	Attempt int `json:"attempt,omitempty"`
	// TriggerID is the trigger instance that fired (triggerNanoId, else triggerId).
	TriggerID string `json:"trigger_id,omitempty"`
	// Error is what the app's handler answered when the delivery failed (triggerClientError):
	// why Composio delivered again.
	Error string `json:"error,omitempty"`
	// EndpointID is the webhook endpoint (or subscription) the delivery went to, "" when the
	// record does not say: one event delivered to two endpoints of one project comes twice,
	// each as attempt 1.
	EndpointID string `json:"endpoint_id,omitempty"`
}

// Execution is one tool execution as recorded by Composio's Logs API (or an export of it).
// Zero values mean "not recorded": a zero StartTime/EndTime is unknown, Duration 0 with
// HasDuration false is unknown, RetryCount -1 is unknown.
type Execution struct {
	ID                 string        `json:"id"`
	Timestamp          time.Time     `json:"timestamp"`
	ToolSlug           string        `json:"tool_slug"`
	ToolkitSlug        string        `json:"toolkit_slug"`
	UserID             string        `json:"user_id,omitempty"`
	ConnectedAccountID string        `json:"connected_account_id,omitempty"`
	Status             string        `json:"status,omitempty"` // success|failed|"" (no terminal status)
	Level              string        `json:"level,omitempty"`
	Message            string        `json:"message,omitempty"`
	StartTime          time.Time     `json:"start_time,omitzero"`
	EndTime            time.Time     `json:"end_time,omitzero"`
	Duration           time.Duration `json:"duration_ns,omitempty"`
	HasDuration        bool          `json:"has_duration,omitempty"`
	// Detailed is true when the record came from a detail (timings, context, data), false for
	// a list entry whose data may be fetched later. (Beside HasDuration: the two bools share
	// one word, which keeps a million records 8 MB smaller.)
	Detailed bool `json:"detailed,omitempty"`
	// ArgsSum is a checksum of the arguments' bytes as the record carried them (ArgsSumOf),
	// kept when a parse skips the arguments themselves: two writes whose sums differ were not
	// sent with the same bytes. 0 when the record carried none. (In the word of the two bools.)
	ArgsSum    uint32          `json:"-"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Response   json.RawMessage `json:"response,omitempty"` // data.response: {data, error, successful}
	Error      *ExecError      `json:"error,omitempty"`
	RequestID  string          `json:"request_id,omitempty"`
	SessionID  string          `json:"session_id,omitempty"`
	TraceID    string          `json:"trace_id,omitempty"`
	Source     Source          `json:"source,omitzero"`
	SDKVersion string          `json:"sdk_version,omitempty"`
	// ToolVersion is the tool version the execution ran (metadata.tool_version, or
	// metadata.version), "" when the log does not say.
	ToolVersion string  `json:"tool_version,omitempty"`
	RetryCount  int     `json:"retry_count"` // x-stainless-retry-count when recorded, else -1
	Parent      *Parent `json:"parent,omitempty"`
	// Type is the record's type when it is not a tool execution (TypeTriggerMessage,
	// TypeAccountCreated, ...); "" for a tool execution.
	Type string `json:"type,omitempty"`
	// Delivery is a trigger delivery's identity (a trigger.message record read from the
	// trigger logs, or an export of them); nil for anything else.
	Delivery *Delivery `json:"delivery,omitempty"`
	// Approval is what a session call sent with an approval (data.request.request_state and
	// input_responses): the call re-made after a person answered the input_required of an
	// earlier one, which it continues; nil for any other call.
	Approval *Approval `json:"approval,omitempty"`
}

// Approval is the answer to a session's request for approval (@composio/core 0.25.0, Python
// 0.28.0) that a re-made call carries: the request_state of the call that asked, and the
// person's input_responses as sent.
type Approval struct {
	RequestState string          `json:"request_state,omitempty"`
	Responses    json.RawMessage `json:"input_responses,omitempty"`
}

// The record types of the Logs API (docs/platform.md, "Logs API").
const (
	TypeToolExecution  = "tool.execution"
	TypeTriggerMessage = "trigger.message"
	TypeAccountCreated = "connected_account.created"
)

// KeepsEarlierCopy is the rule every front applies to two records of one log id (an export's
// overlapping pages, a detail after its list entry, a refresh): the later copy replaces the
// earlier one, unless the earlier is whole (Detailed) and the later only a list entry.
func KeepsEarlierCopy(earlierDetailed, laterDetailed bool) bool {
	return earlierDetailed && !laterDetailed
}

// IsToolExecution reports whether the record is a tool execution (not a trigger delivery or an
// account event), the only kind of record that can be a write.
func (e *Execution) IsToolExecution() bool { return e.Type == "" || e.Type == TypeToolExecution }

// ErrorText is the error a record carries, as a person searches for it: the recorded error's
// message (or its kind when it has none), else, for a failed log, the log's message, which is
// all a list entry of the Logs API carries of its error. The same text whether the record is a
// list entry or its detail, so `error:` finds it from any source.
func (e *Execution) ErrorText() string {
	if e.Error != nil {
		if e.Error.Message != "" {
			return e.Error.Message
		}
		if e.Error.Kind != "" {
			return string(e.Error.Kind)
		}
	}
	if strings.EqualFold(e.Status, StatusFailed) {
		return e.Message
	}
	return ""
}

// End returns the best known end of the execution: end time, else start+duration, else the
// timestamp+duration, else the timestamp. ok is false when only the timestamp was known.
func (e *Execution) End() (t time.Time, ok bool) {
	switch {
	case !e.EndTime.IsZero():
		return e.EndTime, true
	case !e.StartTime.IsZero() && e.HasDuration:
		return e.StartTime.Add(e.Duration), true
	case e.HasDuration:
		return e.Timestamp.Add(e.Duration), true
	}
	return e.Timestamp, false
}

// Start returns the start time when recorded, else the timestamp.
func (e *Execution) Start() time.Time {
	if !e.StartTime.IsZero() {
		return e.StartTime
	}
	return e.Timestamp
}

// ProviderStateKind is what a verifier found at the provider.
type ProviderStateKind string

const (
	ProviderFound    ProviderStateKind = "found"     // the effect exists: do not retry
	ProviderNotFound ProviderStateKind = "not_found" // checked, absent
	ProviderUnknown  ProviderStateKind = "unknown"   // no verifier, or the check failed
)

// EvidenceItem is one provider object a verifier matched.
type EvidenceItem struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time,omitzero"`
	Summary string    `json:"summary,omitempty"`
	// RetryAttempt names the guarded retry (its attempt id) this object is the effect of, when
	// it was found checking the execution that retry repeated.
	RetryAttempt string `json:"retry_attempt,omitempty"`
}

// RetryNote says whose effect the object is, when it is a guarded retry's ("" otherwise): the
// one wording of every front.
func (m EvidenceItem) RetryNote() string {
	if m.RetryAttempt == "" {
		return ""
	}
	return "the retry's own (attempt " + m.RetryAttempt + ")"
}

// ProviderState is the result of checking the provider for an execution's effect.
type ProviderState struct {
	State     ProviderStateKind `json:"state"`
	Verifier  string            `json:"verifier,omitempty"`  // name of the verifier used
	ReadTool  string            `json:"read_tool,omitempty"` // read tool slug run
	ReadArgs  json.RawMessage   `json:"read_arguments,omitempty"`
	Matches   []EvidenceItem    `json:"matches,omitempty"`
	Reason    string            `json:"reason"` // one line a person reads
	CheckedAt time.Time         `json:"checked_at,omitzero"`
}

// Verdict is a person's conclusion about an execution, recorded in the journal.
type Verdict string

const (
	VerdictConfirmedFailed    Verdict = "confirmed_failed"
	VerdictConfirmedSucceeded Verdict = "confirmed_succeeded"
	VerdictDuplicate          Verdict = "duplicate"
	VerdictIgnored            Verdict = "ignored"
)

// Verdicts lists every valid verdict, in the order they are offered.
func Verdicts() []Verdict {
	return []Verdict{VerdictConfirmedFailed, VerdictConfirmedSucceeded, VerdictDuplicate, VerdictIgnored}
}

// ParseVerdict validates a verdict given by a person.
func ParseVerdict(s string) (Verdict, bool) {
	for _, v := range Verdicts() {
		if string(v) == s {
			return v, true
		}
	}
	return "", false
}

// AttemptState is where a guarded retry stands.
type AttemptState string

const (
	AttemptIntent        AttemptState = "intent"        // committed, nothing sent yet
	AttemptSent          AttemptState = "sent"          // the request is (or was) in flight
	AttemptSucceeded     AttemptState = "succeeded"     // the retry took effect
	AttemptFailed        AttemptState = "failed"        // the retry certainly did not take effect
	AttemptIndeterminate AttemptState = "indeterminate" // unknown: resolve before anything else
)

// Open reports whether the attempt still blocks another retry of its execution.
func (s AttemptState) Open() bool {
	return s == AttemptIntent || s == AttemptSent || s == AttemptIndeterminate
}

// RetryAttempt is one guarded retry of an execution; its ID is the x-request-id sent.
type RetryAttempt struct {
	ID           string       `json:"id"`
	ExecutionID  string       `json:"execution_id"`
	ToolSlug     string       `json:"tool_slug"`
	ArgumentHash string       `json:"argument_hash"`
	State        AttemptState `json:"state"`
	NewLogID     string       `json:"new_log_id,omitempty"`
	Who          string       `json:"who"`
	Detail       string       `json:"detail,omitempty"` // error or resolution note
	CreatedAt    time.Time    `json:"created_at"`
	SentAt       time.Time    `json:"sent_at,omitzero"`
	FinishedAt   time.Time    `json:"finished_at,omitzero"`
}

// Tool is a tool's definition as the tools endpoint returns it (the parts triage needs).
type Tool struct {
	Slug             string          `json:"slug"`
	Name             string          `json:"name,omitempty"`
	Description      string          `json:"description,omitempty"`
	ToolkitSlug      string          `json:"toolkit_slug,omitempty"`
	Version          string          `json:"version,omitempty"`
	Tags             []string        `json:"tags,omitempty"`
	InputParameters  json.RawMessage `json:"input_parameters,omitempty"`
	OutputParameters json.RawMessage `json:"output_parameters,omitempty"`
}

// HasTag reports whether the tool carries tag (exact match).
func (t Tool) HasTag(tag string) bool {
	return slices.Contains(t.Tags, tag)
}

// ToolCall is what is needed to run a tool: the request body of tools/execute.
type ToolCall struct {
	Slug               string          `json:"tool_slug"`
	Arguments          json.RawMessage `json:"arguments,omitempty"`
	ConnectedAccountID string          `json:"connected_account_id,omitempty"`
	UserID             string          `json:"user_id,omitempty"`
	Version            string          `json:"version,omitempty"`
}

// ToolResult is the 200 body of tools/execute.
type ToolResult struct {
	Data       json.RawMessage `json:"data,omitempty"`
	Error      string          `json:"error,omitempty"`
	Successful bool            `json:"successful"`
	LogID      string          `json:"log_id,omitempty"`
	// ResultType is the answer's result_type when it has one (completed, failed,
	// input_required, blocked); InputRequests and RequestState are an input_required
	// answer's: a call that waits for a person's approval, which ran nothing.
	ResultType    string          `json:"result_type,omitempty"`
	InputRequests json.RawMessage `json:"input_requests,omitempty"`
	RequestState  string          `json:"request_state,omitempty"`
}

// Triage is triage's verdict on one execution, shared by the commands and the UI.
type Triage struct {
	Kind    ToolKind `json:"kind"`
	Outcome Outcome  `json:"outcome"`
	Flagged bool     `json:"flagged"`
	Reason  string   `json:"reason"`
	// GroupID is the duplicate group this execution belongs to, "" when none.
	GroupID string `json:"duplicate_group"`
	// OldSDK is set when the record names an SDK that auto-retries writes; it says which.
	OldSDK string `json:"old_sdk,omitempty"`
	// Case is what the journal records people did about the execution (nil: nothing). A
	// settled case is no longer flagged: Flagged is what still needs a person (triage.ApplyCase).
	Case *Case `json:"-"`
}

// Case is the journal's state of one execution, as every front shows it.
type Case struct {
	// Verdict is the verdict the guard goes by ("" when none).
	Verdict Verdict `json:"verdict,omitempty"`
	// Retry is the state of the newest retry attempt of this execution ("" when none), and
	// RetryLog the log id that attempt made.
	Retry    AttemptState `json:"retry,omitempty"`
	RetryLog string       `json:"retry_log,omitempty"`
	// RetryOf is the execution this one is exectriage's retry of ("" when it is none).
	RetryOf string `json:"retry_of,omitempty"`
	// Settled says a person closed the case: a verdict that ends it (confirmed_succeeded,
	// duplicate, ignored) or a retry that took effect.
	Settled bool `json:"settled"`
}

// RetryPattern explains where a duplicate group came from.
type RetryPattern string

const (
	PatternSDKAutoRetry     RetryPattern = "sdk_auto_retry"     // an SDK's retry of tools.execute (before the fix)
	PatternSessionAutoRetry RetryPattern = "session_auto_retry" // an SDK's retry of a tool-router session write
	PatternFrameworkRetry   RetryPattern = "framework_retry"    // an agent framework's tool retry (LangChain, LangGraph)
	// PatternTriggerRedelivery: a trigger's event delivered again, its handler writing each time.
	PatternTriggerRedelivery RetryPattern = "trigger_redelivery"
	// PatternDuplicateSubscription: one trigger event delivered to two webhook endpoints (or
	// subscriptions) of one project, each delivery an attempt 1, the handler writing for each:
	// the second endpoint was made by a create sent twice (webhookEndpoints.create, the
	// subscription's create: every SDK still retries them).
	PatternDuplicateSubscription RetryPattern = "duplicate_subscription"
	PatternAgentRetry            RetryPattern = "agent_retry" // an LLM agent called again with regenerated text
	PatternAppRetry              RetryPattern = "app_retry"
	PatternDoubleSubmit          RetryPattern = "double_submit"
	// PatternExectriageRetry: a member is exectriage's own guarded retry (its request id is an
	// attempt id), sent after a person confirmed the first attempt failed; never the caller's.
	PatternExectriageRetry RetryPattern = "exectriage_retry"
)

// attemptMark is what the attempt ids exectriage sends as x-request-id start their last group
// with (a UUID v4 otherwise random), so that a log tells its retries apart.
const attemptMark = "e7a9"

// IsAttemptID reports whether s has the shape of an attempt id exectriage sends as
// x-request-id (a UUID v4 whose last group starts with e7a9).
func IsAttemptID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' || s[14] != '4' ||
		!strings.HasPrefix(s[24:], attemptMark) {
		return false
	}
	for i, r := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// SimilarityWord is the group's match in a word or two: "identical", or "reworded 72%".
func (g *DuplicateGroup) SimilarityWord() string {
	if g.Similarity >= 1 || g.Similarity == 0 {
		return "identical"
	}
	return fmt.Sprintf("reworded %.0f%%", 100*g.Similarity)
}

// Patterns are every cause a duplicate group is given, in the order help lists them.
func Patterns() []RetryPattern {
	return []RetryPattern{
		PatternSDKAutoRetry,
		PatternSessionAutoRetry,
		PatternFrameworkRetry,
		PatternTriggerRedelivery,
		PatternDuplicateSubscription,
		PatternAgentRetry,
		PatternAppRetry,
		PatternDoubleSubmit,
		PatternExectriageRetry,
	}
}

// PatternFix is what to change so that a pattern's duplicates stop, in one line.
func PatternFix(p RetryPattern) string {
	switch p {
	case PatternSDKAutoRetry:
		return "upgrade to Python composio 0.16.0 / TypeScript @composio/core 0.14.0 or later (they send tools.execute once)"
	case PatternSessionAutoRetry:
		return "session writes are retried before Python 0.26.0 / TypeScript 0.23.0: upgrade"
	case PatternFrameworkRetry:
		return "the framework's tool retry re-runs writes: exclude write tools from it (LangChain ToolRetryMiddleware: retry_on; " +
			"LangGraph RetryPolicy: retry_on, or max_attempts=1 on a node that writes)"
	case PatternTriggerRedelivery:
		return "dedupe on the event id (the webhook-id header, the payload's id) in your trigger handler before it writes, and answer " +
			"the delivery quickly (do the work after acknowledging)"
	case PatternDuplicateSubscription:
		return "delete the extra webhook endpoint (GET /api/v3.1/webhook_endpoints lists them: one URL registered twice), list before " +
			"you create one, and dedupe on the event id (webhook-id) in the handler"
	case PatternAgentRetry:
		return "the agent retried after an error it could not interpret: return a clear 'may have been sent' result or add a dedupe key"
	case PatternAppRetry:
		return "your retry loop: check the provider (or the log) before retrying, or send a dedupe key"
	case PatternDoubleSubmit:
		return "two callers: dedupe before calling (disable the button, lock per request)"
	case PatternExectriageRetry:
		return "nothing in your code: a person confirmed the first attempt failed and retried it through exectriage; if both took " +
			"effect, check the original again (its check names the retry's own effect)"
	}
	return ""
}

// DuplicateGroup is a set of executions of the same tool and account whose identifying
// arguments are equal and whose free text is the same or reworded (triage's near-duplicate rule).
type DuplicateGroup struct {
	ID           string          `json:"id"`
	Pattern      RetryPattern    `json:"pattern"`
	ExecutionIDs []string        `json:"execution_ids"` // oldest first
	Gaps         []time.Duration `json:"gaps_ns"`       // between consecutive members (end of previous to start of next)
	Reason       string          `json:"reason"`
	// Deliveries are the trigger deliveries whose handlers made the members (oldest first), set
	// when a redelivery or a duplicate subscription caused the group.
	Deliveries []string `json:"deliveries,omitempty"`
	// Match says what the members share: "identical arguments", or the identifying arguments
	// and how similar the free text is.
	Match string `json:"match"`
	// Similarity is the least text similarity with which a member joined (1: identical).
	Similarity float64 `json:"similarity"`
	// Effective counts members whose effect the provider confirmed; -1 when unknown.
	Effective int `json:"effective"`
	// MetaRuns are the meta-tool runs (log ids, the members' order) the members each ran
	// under, when the group is one tool's runs under a re-sent meta tool; MetaGroup is the
	// group of those runs when the window holds it. Each tool the meta tool holds is a group
	// of its own, linked to the runs' group.
	MetaRuns  []string `json:"meta_runs,omitempty"`
	MetaGroup string   `json:"meta_group,omitempty"`
	// OtherCauses are the causes the members' timing and text fit besides Pattern, when no
	// evidence tied to the attempts (a request id, retry counts, deliveries) settles it: Pattern
	// is the likeliest, these the others, most specific first.
	OtherCauses []CauseCandidate `json:"other_causes,omitempty"`
}

// CauseCandidate is a cause a duplicate group's evidence does not rule out, and why it fits.
type CauseCandidate struct {
	Cause RetryPattern `json:"cause"`
	Why   string       `json:"why"`
}
