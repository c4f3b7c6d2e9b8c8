package sandbox

import (
	"errors"
	"fmt"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Config sets up a sandbox. The zero value is usable: seed 0, DefaultSize executions over
// DefaultSpan ending now, any non-empty API key accepted.
type Config struct {
	// APIKey, when set, is the only key accepted (x-api-key, or x-user-api-key on the logs
	// endpoints). When empty any non-empty key is accepted.
	APIKey string
	// Seed makes the generated history reproducible: the same Seed, Size, Span and Now give
	// byte-identical logs, provider state and truth.
	Seed int64
	// Size is how many executions the generated history holds (DefaultSize when 0; negative
	// means none).
	Size int
	// Span is how far back the history reaches from Now (DefaultSpan when 0).
	Span time.Duration
	// Now is where the history ends. Zero means time.Now() truncated to the minute, and the
	// sandbox then stamps live executions with the wall clock; a fixed Now makes the sandbox
	// clock start at Now and advance with real time, so live executions follow the history.
	Now time.Time
	// WallClock, with a fixed Now that is not in the future, stamps live executions with the
	// wall clock instead (the demo: a history generated for an earlier anchor, live calls now).
	WallClock bool
	// PageLatency delays every logs list page, to show paging in the UI.
	PageLatency time.Duration
	// MaxPageSize, when set, refuses a logs search whose limit is above it with a 400 that
	// names the limit, as a server stricter than the documented maximum might.
	MaxPageSize int
	// Faults are armed at start, in order, as if posted to /_sandbox/faults.
	Faults []FaultRule
	// HoldTimeout is how long the timeout_* faults hold the answer before closing the
	// connection without one (DefaultHoldTimeout when 0). The client going away ends it sooner.
	HoldTimeout time.Duration
	// WebhookTimeout is how long a webhook delivery waits for the handler's answer,
	// RedeliveryDelay how long before the next attempt after a failed one, and
	// MaxDeliveryAttempts how many attempts an event gets (webhook.go's defaults when 0).
	WebhookTimeout      time.Duration
	RedeliveryDelay     time.Duration
	MaxDeliveryAttempts int
	// Cursor is how the logs list pages: CursorKeyset (the default: a cursor names the last
	// record served, so records that arrive meanwhile shift nothing) or CursorPage (the real
	// API's, whose documented cursor decodes to {"page":2}: records that arrive during a walk
	// shift the pages, so a page can repeat records or skip them).
	Cursor CursorMode
	// ArrivalsPerPage, in page mode, adds that many records to the history before each logs
	// page is served, at times inside the page's time range (logs written late): what shifts
	// a page-number walk.
	ArrivalsPerPage int
	// RateLimit, when positive, is how many API requests a window (RateLimitWindow, a minute
	// when 0) serves, for the whole organisation, with the real headers and 429 + Retry-After
	// past it (ratelimit.go).
	RateLimit       int
	RateLimitWindow time.Duration
	// EdgeLimit, when positive, is how many API requests the edge lets through within
	// EdgeWindow (DefaultEdgeWindow when 0); past it every request is answered the edge's
	// header-less 429 for EdgeBlock (DefaultEdgeBlock when 0), as Composio's edge does
	// (ratelimit.go).
	EdgeLimit  int
	EdgeWindow time.Duration
	EdgeBlock  time.Duration
	// Approvals are the tools (slugs), toolkits and tags whose session executions wait for a
	// person's approval, as a session that requires approval by tool, toolkit or tag does
	// (@composio/core 0.25.0, Python 0.28.0): the call answers input_required with
	// input_requests and a request_state, runs nothing, and runs when the same call is made
	// again with that request_state and input_responses approving every request, until the
	// state expires (ApprovalTTL, DefaultApprovalTTL when 0). approval.go.
	Approvals   []string
	ApprovalTTL time.Duration
	// NoStoreData serves logs as a project with "Don't store data" on has them: audit metadata,
	// but no request arguments and no response payload.
	NoStoreData bool
	// Events adds to the history the other types of records the logs carry: trigger
	// deliveries (trigger.message) and account events (connected_account.created).
	Events bool
	// Lenient accepts what the real API refuses (strict.go): both key headers, a one-sided or
	// ISO time range, numeric filter values, unknown body keys and tool arguments, a cursor
	// replayed under other filters, the logs under /api/v3. Only for a test that needs it.
	Lenient bool
}

// CursorMode is how the logs list pages.
type CursorMode string

// The cursor modes.
const (
	CursorKeyset CursorMode = "keyset"
	CursorPage   CursorMode = "page"
)

// Defaults applied by New.
const (
	DefaultSize        = 3000
	DefaultSpan        = 7 * 24 * time.Hour
	DefaultHoldTimeout = 2 * time.Minute
	// MaxSize bounds the generated history; larger sizes are refused.
	MaxSize = 1_000_000
)

// FaultMode says how an execution misbehaves.
type FaultMode string

// The fault modes. "Commit" is the moment the simulated provider applies the side effect.
const (
	// FaultTimeoutAfterCommit applies the effect, then holds the answer for HoldTimeout (or
	// until the client leaves) and closes the connection without answering. The log says
	// success, with the held time as its duration: what Composio saw is a slow success.
	FaultTimeoutAfterCommit FaultMode = "timeout_after_commit"
	// FaultTimeoutBeforeCommit holds and closes the same way, with no effect. The log says
	// failed, data.error.kind timeout.
	FaultTimeoutBeforeCommit FaultMode = "timeout_before_commit"
	// Fault5xxAfterCommit applies the effect, then answers 502 (or HTTPStatus) with an error
	// body. The log says failed, kind upstream_5xx, http_status 502.
	Fault5xxAfterCommit FaultMode = "5xx_after_commit"
	// Fault5xxBeforeCommit answers 503 (or HTTPStatus) with no effect; logged like the above.
	Fault5xxBeforeCommit FaultMode = "5xx_before_commit"
	// Fault429 answers 429 with retry-after, no effect; the log says failed, kind rate_limited.
	Fault429 FaultMode = "429"
	// FaultDropAfterRead reads the whole request, then closes the connection with no answer
	// and no effect (the platform dropped it before running the tool). The log says failed,
	// kind connection.
	FaultDropAfterRead FaultMode = "drop_connection_after_read"
	// FaultLatency delays the execution by Latency, then runs it normally.
	FaultLatency FaultMode = "latency"
	// Fault200FailureAfterCommit applies the effect (the provider delivered it late), then
	// answers HTTP 200 with successful:false and a provider-timeout error, as Composio does
	// for provider failures. The log says failed, kind timeout.
	Fault200FailureAfterCommit FaultMode = "200_failure_after_commit"
	// FaultInputRequired and FaultBlocked answer a session execution with result_type
	// input_required (an account must be connected first) or blocked (a before_execute hook
	// refused it): nothing runs, no effect. The log says failed with that result_type. A
	// tools.execute they match answers the same way, without a result_type.
	FaultInputRequired FaultMode = "input_required"
	FaultBlocked       FaultMode = "blocked"
	// Fault200ProviderError answers a success (HTTP 200, successful:true) whose data is the
	// provider's own refusal, Slack's {"ok": false, "error": "channel_not_found"}: what a
	// proxy passes through (saratihq/sarati#51). No effect; the log says success with that
	// data.
	Fault200ProviderError FaultMode = "200_provider_error"
)

// FaultModes lists every fault mode.
func FaultModes() []FaultMode {
	return []FaultMode{FaultTimeoutAfterCommit, FaultTimeoutBeforeCommit, Fault5xxAfterCommit,
		Fault5xxBeforeCommit, Fault429, FaultDropAfterRead, FaultLatency, Fault200FailureAfterCommit, FaultInputRequired, FaultBlocked,
		Fault200ProviderError}
}

// AfterCommit reports whether the mode lets the effect happen before misbehaving.
func (m FaultMode) AfterCommit() bool {
	return m == FaultTimeoutAfterCommit || m == Fault5xxAfterCommit || m == FaultLatency || m == Fault200FailureAfterCommit
}

// AnyTool in FaultRule.ToolSlug matches every execution.
const AnyTool = "*"

// ProxyTool in FaultRule.ToolSlug matches every proxy execution.
const ProxyTool = "proxy"

// FaultRule arms a fault for the next Count executions of ToolSlug.
type FaultRule struct {
	// ToolSlug is a tool slug (GMAIL_SEND_EMAIL), AnyTool, or ProxyTool. A proxy execution also
	// matches the slug of the tool its endpoint stands for.
	ToolSlug string
	Mode     FaultMode
	// Count is how many executions the rule applies to; 0 or less means every one until the
	// rules are cleared.
	Count int
	// Latency is the delay of FaultLatency (1 s when 0) and, when set, replaces HoldTimeout
	// for the timeout_* modes.
	Latency time.Duration
	// HTTPStatus overrides the status of the 5xx modes (502 after commit, 503 before) and must
	// be 500-599.
	HTTPStatus int
}

// Validate reports whether the rule can be armed.
func (r FaultRule) Validate() error {
	if r.ToolSlug == "" {
		return errors.New("fault: tool_slug is required (a tool slug, \"*\" or \"proxy\")")
	}
	known := false
	for _, m := range FaultModes() {
		known = known || r.Mode == m
	}
	if !known {
		return fmt.Errorf("fault: unknown mode %q (want one of %v)", r.Mode, FaultModes())
	}
	if r.HTTPStatus != 0 && (r.HTTPStatus < 500 || r.HTTPStatus > 599) {
		return fmt.Errorf("fault: http_status %d is not a 5xx status", r.HTTPStatus)
	}
	if r.Latency < 0 {
		return errors.New("fault: latency must not be negative")
	}
	return nil
}

// Effect is one side effect a simulated provider committed: the ground truth a verifier is
// judged against. Reads have none; an idempotent write that committed has one each time.
type Effect struct {
	RequestID          string    `json:"request_id"`
	ToolSlug           string    `json:"tool_slug"`
	ConnectedAccountID string    `json:"connected_account_id"`
	ArgumentHash       string    `json:"argument_hash"` // model.ArgumentHash(args, model.DefaultVolatileKeys())
	Time               time.Time `json:"time"`          // when the provider applied it
	LogID              string    `json:"log_id"`
	ObjectID           string    `json:"object_id"` // message, draft, "C…:ts", "owner/repo#n", comment or contact id
	// Path is how the execution came in: tools.execute, tools.proxy, session.execute or
	// session.proxy_execute; SessionID the tool-router session's id for the last two.
	Path      string `json:"path"`
	SessionID string `json:"session_id,omitempty"`
	// Version is the tool version that ran.
	Version string `json:"version"`
}

// TruthRecord is the ground truth of one generated execution.
type TruthRecord struct {
	ID       string `json:"id"` // the log id
	ToolSlug string `json:"tool_slug"`
	// Committed is true when the execution's effect exists at the provider (never for reads).
	Committed bool `json:"committed"`
	// Ambiguous is true when the client could not tell from the answer whether the action
	// happened: a timeout (including a success slower than the 60 s client timeout), a 5xx,
	// a dropped connection.
	Ambiguous bool `json:"ambiguous"`
	// GroupKey is shared by the members of one intended duplicate group, "" otherwise.
	GroupKey string             `json:"group_key,omitempty"`
	Pattern  model.RetryPattern `json:"pattern,omitempty"`
	// Case names the scenario that produced the execution (see the package doc).
	Case string `json:"case"`
}
