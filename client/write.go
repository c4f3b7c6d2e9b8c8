package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/model"
)

// WriteClient sends the calls that can change the world: tools/execute and
// tools/execute/proxy. Get it from (*Client).WithoutRetries. Each call makes exactly one
// attempt: it is never retried, its connection is never reused (so net/http cannot replay it
// on a stale keep-alive connection), it never carries an Idempotency-Key or X-Idempotency-Key
// header (which would make net/http treat a POST as replayable; Composio honours no such key
// anyway), and it never follows a redirect. Every error it returns is a *WriteError.
type WriteClient struct {
	t *transport
}

// DefaultToolVersion is sent as "version" when an ExecuteRequest leaves it empty. The API
// reads an absent version as the base version "00000000_00", which is rarely what a person
// retrying a recent execution means; the spec's own example value is "latest".
const DefaultToolVersion = "latest"

// ExecuteRequest is the body of POST /api/v3.1/tools/execute/{tool_slug}, restricted to the
// fields exectriage needs, plus the request id.
type ExecuteRequest struct {
	// Arguments is a JSON object; mutually exclusive with Text. Both empty sends {}.
	Arguments          json.RawMessage
	ConnectedAccountID string
	UserID             string
	// Version is the tool version; empty sends DefaultToolVersion. Always sent.
	Version string
	// Text is a natural-language task instead of Arguments.
	Text string
	// RequestID is sent as x-request-id so the execution can be found in the logs later. Empty
	// draws a random UUID, which is reported in the *WriteError should the call fail.
	RequestID string
}

// ProxyParameter is a header or query parameter the proxy adds to the upstream request.
type ProxyParameter struct {
	Name  string
	Type  string // "header" or "query"
	Value string
}

// ProxyRequest is the body of POST /api/v3.1/tools/execute/proxy, plus the request id.
type ProxyRequest struct {
	Endpoint           string          // absolute URL, or a path relative to the account's base URL
	Method             string          // GET, POST, PUT, DELETE, PATCH or HEAD
	Body               json.RawMessage // any JSON, for POST, PUT and PATCH; empty sends none
	ConnectedAccountID string
	Parameters         []ProxyParameter
	RequestID          string // sent as x-request-id; empty draws a random UUID
}

// ProxyResponse is the provider's answer as relayed by the proxy.
type ProxyResponse struct {
	Status  int             // the upstream HTTP status
	Data    json.RawMessage // the upstream body, nil when none
	Headers map[string]string
}

// WriteErrorKind says what a failed write means for the action it asked for.
type WriteErrorKind string

const (
	// WriteNotSent: the request never fully left this machine. The action certainly did not
	// happen; retrying is safe.
	WriteNotSent WriteErrorKind = "not_sent"
	// WriteAmbiguous: the request was sent and no answer proves what happened (timeout,
	// dropped connection, 5xx, a 3xx or other status that does not prove a refusal, an
	// unreadable 200, a 200 with successful:false whose ToolError has to be read). The action
	// may have happened: check before retrying.
	WriteAmbiguous WriteErrorKind = "ambiguous"
	// WriteRejected: HTTP 429, refused before execution. Most likely not executed; still verify.
	WriteRejected WriteErrorKind = "rejected"
	// WriteFailed: a definite failure: a status that proves a refusal (model.ProvesNoEffect).
	WriteFailed WriteErrorKind = "failed"
)

// WriteError is every error Execute and Proxy return; use errors.As to get it.
type WriteError struct {
	Kind       WriteErrorKind
	Sent       bool      // the request reached the server: fully written, or answered
	StatusCode int       // HTTP status of Composio's answer; 0 when none came
	API        *APIError // the decoded error body of a non-2xx answer
	ToolError  string    // the tool's own error, for a 200 with successful:false
	RequestID  string    // the x-request-id sent: look the execution up by it
	Err        error     // the underlying cause, when there is one

	msg string
}

// Error is one line saying what happened and what it means for the action.
func (e *WriteError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	switch e.Kind { // a WriteError built outside this package
	case WriteNotSent:
		return "request not sent: the action did not happen; safe to retry"
	case WriteRejected:
		return "request rejected before execution: the action most likely did not happen; verify before retrying"
	case WriteFailed:
		return "request failed: the action did not happen"
	default:
		return "request sent, no usable answer: the action may have happened; check before retrying"
	}
}

// Unwrap returns the cause (the *APIError for a non-2xx answer).
func (e *WriteError) Unwrap() error { return e.Err }

// String describes the write client without its API key.
func (w *WriteClient) String() string {
	return "client.WriteClient{base_url: " + redactedURL(w.t.cfg.baseURL) + ", api_key: [redacted], retries: 0}"
}

// Format makes every fmt verb print String, so no verb can reveal the key.
func (w *WriteClient) Format(f fmt.State, _ rune) { io.WriteString(f, w.String()) }

// Execute runs a tool once. A 200 with successful:false returns both the ToolResult and a
// *WriteError of kind ambiguous with ToolError set (the error text decides, package triage);
// every other failure returns a zero ToolResult and a *WriteError.
func (w *WriteClient) Execute(ctx context.Context, slug string, req ExecuteRequest) (model.ToolResult, error) {
	rid := requestID(req.RequestID)
	op := "execute " + slug
	body, err := executeBody(slug, req)
	if err != nil {
		return model.ToolResult{}, w.invalid(op, rid, err)
	}
	resp, werr := w.send(ctx, op, request{method: http.MethodPost, path: executePath(slug), body: body, requestID: rid})
	if werr != nil {
		return model.ToolResult{}, werr
	}
	res, err := parseToolResult(resp.body)
	if err != nil {
		return model.ToolResult{}, w.unreadable(op, rid, resp.status, err)
	}
	if !res.Successful && (res.ResultType == "input_required" || res.ResultType == "blocked") {
		// the platform's own word that the tool did not run: it waits for input (an approval
		// when it gives a request_state) or a hook refused it
		why := "a before_execute hook blocked it"
		if res.ResultType == "input_required" {
			why = "it waits for input first (an account to connect)"
			if res.RequestState != "" {
				why = "it waits for a person's approval (request_state " + w.t.scrub(res.RequestState) + "); the app that asked re-calls " +
					"it with the approval"
			}
		}
		res.Error = w.t.scrub(res.Error)
		return res, w.newError(&WriteError{Kind: WriteFailed, Sent: true, StatusCode: resp.status, RequestID: rid},
			op, "the tool did not run (result_type "+res.ResultType+"): "+why)
	}
	if !res.Successful {
		// Composio answers provider failures inside a 200 too, timeouts and 5xx among them: the
		// text alone does not prove that nothing happened (package triage reads it, as it reads
		// the same text in a log).
		res.Error = w.t.scrub(res.Error)
		return res, w.newError(
			&WriteError{Kind: WriteAmbiguous, Sent: true, StatusCode: resp.status, ToolError: res.Error, RequestID: rid},
			op,
			fmt.Sprintf(
				"the tool reported failure: %s: that alone does not prove the action did not take effect; check before retrying",
				orNone(res.Error),
			),
		)
	}
	return res, nil
}

// Proxy sends one request to the provider through the connected account. Composio's own
// failures are classified like Execute's. An upstream status of 400 or more returns both the
// ProxyResponse and a *WriteError classified by that status (429 rejected, a status that
// proves no effect failed, anything else ambiguous: model.ProvesNoEffect), so a caller that
// ignores Status cannot mistake it for success.
func (w *WriteClient) Proxy(ctx context.Context, req ProxyRequest) (ProxyResponse, error) {
	rid := requestID(req.RequestID)
	method := strings.ToUpper(strings.TrimSpace(req.Method))
	op := "proxy " + method + " " + endpointForDisplay(req.Endpoint)
	body, err := proxyBody(req, method)
	if err != nil {
		return ProxyResponse{}, w.invalid(op, rid, err)
	}
	resp, werr := w.send(ctx, op, request{method: http.MethodPost, path: "/tools/execute/proxy", body: body, requestID: rid})
	if werr != nil {
		return ProxyResponse{}, werr
	}
	pr, err := parseProxyResponse(resp.body)
	if err != nil {
		return ProxyResponse{}, w.unreadable(op, rid, resp.status, err)
	}
	if pr.Status < 400 {
		return pr, nil
	}
	e := &WriteError{Sent: true, StatusCode: resp.status, RequestID: rid}
	var what string
	switch {
	case pr.Status == http.StatusTooManyRequests:
		e.Kind, what = WriteRejected, "the provider answered HTTP 429 (rate limited): the action most likely did not happen; verify "+
			"before retrying"
	case model.ProvesNoEffect(pr.Status):
		e.Kind, what = WriteFailed, fmt.Sprintf("the provider refused with HTTP %d: the action did not happen", pr.Status)
	default:
		e.Kind, what = WriteAmbiguous, fmt.Sprintf(
			"the provider answered HTTP %d: the action may have happened; check before retrying",
			pr.Status,
		)
	}
	return pr, w.newError(e, op, what)
}

// send makes the single attempt and classifies everything but a readable 2xx answer.
func (w *WriteClient) send(ctx context.Context, op string, r request) (*response, *WriteError) {
	a := w.t.try(ctx, r, 0, w.t.cfg.writeTimeout)
	rid := r.requestID
	if a.resp == nil {
		// No answer: what it means depends only on whether the request fully left.
		cause := causeOf(a.err)
		if !a.wrote {
			return nil, w.newError(&WriteError{Kind: WriteNotSent, RequestID: rid, Err: a.err},
				op, fmt.Sprintf("request not sent (%v): the action did not happen; safe to retry", cause))
		}
		var what string
		switch {
		case a.timedOut:
			what = fmt.Sprintf("request sent, no answer within %v", w.t.cfg.writeTimeout)
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			what = "request sent, the caller's deadline passed before an answer"
		case ctx.Err() != nil:
			what = "request sent, then canceled before an answer"
		default:
			what = fmt.Sprintf("request sent, connection lost before an answer (%v)", cause)
		}
		return nil, w.newError(&WriteError{Kind: WriteAmbiguous, Sent: true, RequestID: rid, Err: a.err},
			op, what+": the action may have happened; check before retrying")
	}
	s := a.resp.status
	switch {
	case a.resp.ok() && a.err == nil:
		return a.resp, nil
	case a.resp.ok():
		return nil, w.unreadable(op, rid, s, a.err)
	}
	api := w.t.apiError(a.resp, a.err)
	e := &WriteError{Sent: true, StatusCode: s, API: api, RequestID: rid, Err: api}
	switch {
	case s == http.StatusTooManyRequests:
		e.Kind = WriteRejected
		return nil, w.newError(
			e,
			op,
			fmt.Sprintf(
				"request rejected (%v): rate limited before execution; the action most likely did not happen; verify before retrying",
				api,
			),
		)
	case s >= 500:
		e.Kind = WriteAmbiguous
		// The server's own suggested fix is left out of the message: after a 5xx it cannot know
		// whether the provider acted, and "retry" advice would contradict the only safe reading.
		shown := *api
		shown.SuggestedFix = ""
		return nil, w.newError(
			e,
			op,
			fmt.Sprintf("request sent, the server answered %v: the action may have happened; check before retrying", &shown),
		)
	case model.ProvesNoEffect(s):
		e.Kind = WriteFailed
		return nil, w.newError(e, op, fmt.Sprintf("request refused (%v): the action did not happen", api))
	default:
		e.Kind = WriteAmbiguous
		return nil, w.newError(
			e,
			op,
			fmt.Sprintf("request sent, the server answered %v, which does not prove the action did not run; check before retrying", api),
		)
	}
}

// unreadable is a 2xx whose body could not be understood: the action may well have happened.
func (w *WriteClient) unreadable(op, rid string, status int, err error) *WriteError {
	return w.newError(
		&WriteError{Kind: WriteAmbiguous, Sent: true, StatusCode: status, RequestID: rid, Err: err},
		op,
		fmt.Sprintf(
			"request sent, the HTTP %d answer could not be read (%v): the action may have happened; check before retrying",
			status,
			err,
		),
	)
}

// invalid is a request refused before anything was sent.
func (w *WriteClient) invalid(op, rid string, err error) *WriteError {
	return w.newError(&WriteError{Kind: WriteNotSent, RequestID: rid, Err: err},
		op, fmt.Sprintf("request not sent: %v: the action did not happen", err))
}

// newError fills the message: operation, what happened and what it means, and the request
// id when the server may know it; one line, without the API key.
func (w *WriteClient) newError(e *WriteError, op, what string) *WriteError {
	msg := op + ": " + what
	if e.Sent && e.RequestID != "" {
		msg += " (x-request-id " + e.RequestID + ")"
	}
	e.msg = oneLine(w.t.scrub(msg), 1000)
	if e.Err != nil {
		e.Err = w.t.redact(e.Err)
	}
	return e
}

// causeOf drops net/http's `Post "URL": ` prefix, which says nothing the message does not.
func causeOf(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

func requestID(s string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return uuid.NewString()
}

func executePath(slug string) string { return "/tools/execute/" + url.PathEscape(slug) }

// executeJSON is the execute body: only fields the OpenAPI spec's execute operation defines
// (checked by the contract test against testdata/openapi-execute-proxy.json).
type executeJSON struct {
	Arguments          json.RawMessage `json:"arguments,omitempty"`
	ConnectedAccountID string          `json:"connected_account_id,omitempty"`
	UserID             string          `json:"user_id,omitempty"`
	Version            string          `json:"version"`
	Text               string          `json:"text,omitempty"`
}

func executeBody(slug string, req ExecuteRequest) ([]byte, error) {
	switch {
	case strings.TrimSpace(slug) == "":
		return nil, errors.New("empty tool slug")
	case strings.EqualFold(slug, "proxy"):
		return nil, errors.New(`"proxy" is the proxy endpoint, not a tool slug`)
	}
	b := executeJSON{
		ConnectedAccountID: req.ConnectedAccountID,
		UserID:             req.UserID,
		Version:            req.Version,
		Text:               req.Text,
	}
	b.Version = cmp.Or(b.Version, DefaultToolVersion)
	args := bytes.TrimSpace(req.Arguments)
	switch {
	case len(args) > 0 && req.Text != "":
		return nil, errors.New("arguments and text are mutually exclusive")
	case len(args) > 0:
		if args[0] != '{' || !json.Valid(args) {
			return nil, errors.New("arguments must be a JSON object")
		}
		b.Arguments = args
	case req.Text == "":
		b.Arguments = json.RawMessage("{}")
	}
	return json.Marshal(b)
}

type proxyJSON struct {
	Endpoint           string           `json:"endpoint"`
	Method             string           `json:"method"`
	Body               json.RawMessage  `json:"body,omitempty"`
	ConnectedAccountID string           `json:"connected_account_id,omitempty"`
	Parameters         []proxyParamJSON `json:"parameters,omitempty"`
}

type proxyParamJSON struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

func proxyBody(req ProxyRequest, method string) ([]byte, error) {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodHead:
	default:
		return nil, fmt.Errorf("proxy method %q: want GET, POST, PUT, DELETE, PATCH or HEAD", req.Method)
	}
	if strings.TrimSpace(req.Endpoint) == "" {
		return nil, errors.New("empty proxy endpoint")
	}
	b := proxyJSON{Endpoint: req.Endpoint, Method: method, ConnectedAccountID: req.ConnectedAccountID}
	if body := bytes.TrimSpace(req.Body); len(body) > 0 {
		if !json.Valid(body) {
			return nil, errors.New("proxy body is not valid JSON")
		}
		b.Body = body
	}
	for _, p := range req.Parameters {
		typ := strings.ToLower(p.Type)
		if typ != "header" && typ != "query" {
			return nil, fmt.Errorf("proxy parameter %q: type %q, want header or query", p.Name, p.Type)
		}
		b.Parameters = append(b.Parameters, proxyParamJSON{Name: p.Name, Type: typ, Value: p.Value})
	}
	return json.Marshal(b)
}

// parseProxyResponse reads {status, data, headers, binary_data}; status is required.
func parseProxyResponse(body []byte) (ProxyResponse, error) {
	m := model.JSONObject(body)
	if m == nil {
		return ProxyResponse{}, errors.New("proxy answer is not a JSON object")
	}
	var status float64
	if json.Unmarshal(m["status"], &status) != nil || status < 100 || status > 999 {
		return ProxyResponse{}, errors.New(`proxy answer has no upstream "status"`)
	}
	pr := ProxyResponse{Status: int(status)}
	if d := bytes.TrimSpace(m["data"]); len(d) > 0 && string(d) != "null" {
		pr.Data = d
	}
	if h := model.JSONObject(m["headers"]); len(h) > 0 {
		pr.Headers = make(map[string]string, len(h))
		for k, v := range h {
			pr.Headers[k] = model.JSONText(v)
		}
	}
	return pr, nil
}

// endpointForDisplay keeps error messages free of query strings, which may carry tokens.
func endpointForDisplay(ep string) string {
	if u, err := url.Parse(ep); err == nil {
		u.RawQuery, u.Fragment, u.User = "", "", nil
		return u.String()
	}
	return "(unparsable endpoint)"
}
