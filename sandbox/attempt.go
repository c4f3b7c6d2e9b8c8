package sandbox

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// attempt is one execution as the platform saw it. The history generator and the live
// execute handler both describe what happened with an attempt, and record() turns it into the
// log record, so generated and live records cannot differ in shape.
type attempt struct {
	logID      string
	tool       *toolDef
	acct       *account // nil when no account was resolved
	userID     string
	args       json.RawMessage
	start, end time.Time
	requestID  string
	sessionID  string
	parent     *model.Parent // the meta tool run this execution belongs to (COMPOSIO_MULTI_EXECUTE_TOOL)
	path       string        // the execution path: tools.execute, tools.proxy, session.execute, session.proxy_execute
	version    string        // the tool version that ran ("" : the tool's current one)
	traceID    string
	source     model.Source
	sdkVersion string
	retryCount int // -1 when the caller sent no x-stainless-retry-count
	// result is the provider's answer; nil when the provider was not called.
	result *opResult
	// failure is a platform-level failure (timeout, 5xx, 429, validation, auth, connection)
	// that replaces the provider's answer; nil when the provider's answer stands.
	failure *model.ExecError
	proxy   string // "METHOD endpoint" for a proxy execution
	// resultType is a session execution's result_type: completed, failed, or input_required
	// and blocked (nothing ran); "" for tools.execute.
	resultType string
	// asked is what a call that waits for approval answered; approval what an approved
	// re-call sent (approval.go); nil otherwise.
	asked    *asked
	approval *model.Approval
}

// ok reports whether the execution succeeded.
func (a *attempt) ok() bool { return a.failure == nil && a.result != nil && a.result.err == "" }

// providerError classifies a provider's error answer.
func providerError(r *opResult) *model.ExecError {
	e := &model.ExecError{Message: r.err, HTTPStatus: r.status}
	switch {
	case r.status == http.StatusUnauthorized || r.status == http.StatusForbidden:
		e.Kind = model.ErrAuth
	case r.status == http.StatusTooManyRequests:
		e.Kind = model.ErrRateLimited
	case r.status >= 500:
		e.Kind = model.ErrUpstream5xx
	}
	return e
}

// execution renders the attempt as the Execution the Logs API serves, without its Response:
// resp is data.response ({data, error, successful}), for the caller to marshal into
// e.Response now (live) or when first needed (history, see Server.materialize).
func (a *attempt) execution() (e *model.Execution, resp map[string]any) {
	a.start, a.end = a.start.Truncate(time.Millisecond), a.end.Truncate(time.Millisecond)
	e = &model.Execution{
		ID:          a.logID,
		Timestamp:   a.start,
		ToolSlug:    a.tool.slug,
		ToolkitSlug: a.tool.toolkit,
		UserID:      a.userID,
		StartTime:   a.start,
		EndTime:     a.end,
		Duration:    a.end.Sub(a.start),
		HasDuration: true,
		Arguments:   a.args,
		RequestID:   a.requestID,
		SessionID:   a.sessionID,
		Parent:      a.parent,
		TraceID:     a.traceID,
		Source:      a.source,
		SDKVersion:  a.sdkVersion,
		ToolVersion: a.ranVersion(),
		RetryCount:  a.retryCount,
		Detailed:    true,
		Approval:    a.approval,
	}
	if a.acct != nil {
		e.ConnectedAccountID = a.acct.id
		e.UserID = cmp.Or(e.UserID, a.acct.userID)
	}
	var data any = map[string]any{}
	var errText any // nil renders as null
	switch {
	case a.ok():
		e.Status, e.Level = model.StatusSuccess, "info"
		e.Message = "Executed " + a.tool.slug + " successfully"
		data = a.result.data
	case a.failure != nil:
		e.Status, e.Level = model.StatusFailed, "error"
		e.Error = a.failure
		errText = a.failure.Message
	default: // the provider answered with an error
		e.Status, e.Level = model.StatusFailed, "error"
		e.Error = providerError(a.result)
		errText = a.result.err
		data = a.result.data
	}
	if e.Error != nil {
		if e.Error.Kind == model.ErrRateLimited {
			e.Level = "warn"
		}
		e.Message = a.tool.slug + " failed: " + e.Error.Message
	}
	if a.proxy != "" {
		e.Message += " (proxy " + a.proxy + ")"
	}
	resp = map[string]any{"data": data, "error": errText, "successful": a.ok()}
	if a.asked != nil {
		resp["input_requests"], resp["request_state"] = a.asked.requests, a.asked.state
	}
	if a.resultType != "" {
		resp["result_type"] = a.resultType
	} else if a.sessionID != "" {
		resp["result_type"] = map[bool]string{true: "completed", false: "failed"}[a.ok()]
	}
	return e, resp
}

// nothingRan is the failure of a session execution that ran nothing: the session needed input
// (an account to connect) or a before-execute hook refused it.
func nothingRan(resultType string) *model.ExecError {
	if resultType == ResultBlocked {
		return &model.ExecError{Kind: model.ErrValidation, Message: "Blocked by a before_execute hook: the tool was not run"}
	}
	return &model.ExecError{
		Kind:    model.ErrValidation,
		Message: "Input required: connect an account for this toolkit first; the tool was not run",
	}
}

// The result types of a session execution that ran nothing.
const (
	ResultInputRequired = "input_required"
	ResultBlocked       = "blocked"
)

// Platform failures, as the log's data.error records them.

func timeoutError(after time.Duration) *model.ExecError {
	return &model.ExecError{
		Kind:    model.ErrTimeout,
		Message: "Request timed out after " + strconv.FormatInt(after.Milliseconds(), 10) + "ms waiting for the provider",
	}
}

func upstreamError(status int) *model.ExecError {
	return &model.ExecError{Kind: model.ErrUpstream5xx, HTTPStatus: status, Message: "Upstream provider returned " + statusText(status)}
}

func rateLimitError() *model.ExecError {
	return &model.ExecError{
		Kind:       model.ErrRateLimited,
		HTTPStatus: http.StatusTooManyRequests,
		Message:    "Rate limit exceeded: too many requests, retry later",
	}
}

func connectionError() *model.ExecError {
	return &model.ExecError{Kind: model.ErrConnection, Message: "Connection closed after the request was read; the tool was not run"}
}

func statusText(code int) string {
	return strconv.Itoa(code) + " " + http.StatusText(code)
}

// ranVersion is the tool version the execution ran: the one asked for, or the tool's current
// version for "latest" and none.
func (a *attempt) ranVersion() string {
	if v := strings.TrimSpace(a.version); v != "" && !strings.EqualFold(v, "latest") {
		return v
	}
	if a.tool != nil {
		return a.tool.version
	}
	return ""
}
