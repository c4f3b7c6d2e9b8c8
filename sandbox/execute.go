package sandbox

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// executeBody is the body of POST /tools/execute/{slug}.
type executeBody struct {
	Arguments          json.RawMessage `json:"arguments"`
	ConnectedAccountID string          `json:"connected_account_id"`
	UserID             string          `json:"user_id"`
	EntityID           string          `json:"entity_id"` // deprecated alias of user_id
	Version            string          `json:"version"`
	Text               string          `json:"text"`
}

// live is one execution in flight.
type live struct {
	a     *attempt
	args  map[string]any
	proxy bool
	// answer writes the successful (HTTP 200) answer for the provider's result.
	answer func(w http.ResponseWriter, a *attempt)
	// approve, when set, decides the call under the session's approval rules once its
	// account is known and its arguments valid: true when it answered (approval.go).
	approve func(w http.ResponseWriter, r *http.Request, a *attempt) bool
}

func (s *Server) countExecute(slug string, proxy bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.execCount++
	if proxy {
		s.proxyN++
	}
	s.byTool[slug]++
}

// callerMeta fills what the SDK's headers say: x-request-id, x-source, x-sdk-version,
// x-framework, x-stainless-retry-count (and x-session-id, a sandbox extension).
func (s *Server) callerMeta(r *http.Request, a *attempt) {
	h := r.Header
	a.requestID = requestIDOf(r)
	a.sessionID = strings.TrimSpace(h.Get("x-session-id"))
	a.traceID = traceIDOf(h.Get("traceparent"))
	a.source = model.Source{Host: "api"}
	if src := strings.TrimSpace(h.Get("x-source")); src != "" {
		a.source.Host = "sdk"
		up := strings.ToUpper(src)
		if up == "MCP" {
			a.source.Host = "mcp"
		}
		a.source.Language = strings.ToLower(strings.TrimSuffix(up, "_SDK"))
	}
	a.source.Framework = strings.TrimSpace(h.Get("x-framework"))
	a.sdkVersion = strings.TrimSpace(h.Get("x-sdk-version"))
	a.retryCount = -1
	if n, err := strconv.Atoi(strings.TrimSpace(h.Get("x-stainless-retry-count"))); err == nil && n >= 0 {
		a.retryCount = n
	}
}

// traceIDOf takes the trace id of a W3C traceparent header, or makes one.
func traceIDOf(tp string) string {
	if parts := strings.Split(tp, "-"); len(parts) == 4 && len(parts[1]) == 32 {
		return parts[1]
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Server) handleExecute(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	s.countExecute(strings.ToUpper(slug), false)
	if !s.keyOK(r, false) {
		s.unauthorized(w, r, false)
		return
	}
	var body executeBody
	rawBody, ok := s.readJSON(w, r, &body)
	if !ok || s.refuseUnknownKeys(w, r, rawBody, executeBodyKeys...) {
		return
	}
	tool, ok := s.cat.get(slug)
	if !ok {
		s.toolNotFound(w, r, slug)
		return
	}
	args, raw, ok := s.parseArgs(w, r, body.Arguments)
	if !ok || s.refuseUnknownArguments(w, r, tool, args) {
		return
	}
	userID := body.UserID
	userID = cmp.Or(userID, body.EntityID)
	ex := &live{a: &attempt{tool: tool, args: raw, userID: userID, start: s.clock(), version: body.Version}, args: args,
		answer: func(w http.ResponseWriter, a *attempt) {
			var errText any
			if a.result.err != "" {
				errText = a.result.err
			}
			writeJSON(w, http.StatusOK, map[string]any{"data": a.result.data, "error": errText, "successful": a.ok(),
				"log_id": a.logID, "session_info": nil})
		}}
	s.callerMeta(r, ex.a)
	s.run(w, r, ex, body.ConnectedAccountID)
}

// parseArgs decodes the arguments object ("{}" when absent); the error is written.
func (s *Server) parseArgs(w http.ResponseWriter, r *http.Request, raw json.RawMessage) (map[string]any, json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var args map[string]any
	if raw[0] != '{' || json.Unmarshal(raw, &args) != nil {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolExecute_InvalidArguments",
			"arguments must be a JSON object",
			"Send the tool's input parameters as an object.",
		)
		return nil, nil, false
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, append(json.RawMessage(nil), raw...), true
}

// resolveAccount finds the account an execution runs on: the connected account given, else
// the user's account for the toolkit. A user without one gets an ACTIVE account on the spot
// (a sandbox convenience, so an SDK can run any tool with only a user id).
func (s *Server) resolveAccount(w http.ResponseWriter, r *http.Request, tool *toolDef, caID, userID string) (*account, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if caID != "" {
		a := s.w.accountByID[caID]
		if a == nil {
			s.accountNotFound(w, r, caID)
			return nil, false
		}
		if a.toolkit != tool.toolkit {
			s.writeError(w, r, http.StatusBadRequest, 1303, "ConnectedAccount_ToolkitMismatch",
				"Connected account "+caID+" belongs to toolkit "+a.toolkit+", not "+tool.toolkit, "Pass an account of the tool's toolkit.")
			return nil, false
		}
		return a, true
	}
	if userID == "" {
		s.writeError(w, r, http.StatusBadRequest, 1400, "ToolExecute_MissingUser", "user_id or connected_account_id is required",
			"Pass the user_id the account was connected for.")
		return nil, false
	}
	return s.w.accountFor(userID, tool.toolkit), true
}

// accountFor returns the user's account for toolkit, creating the user and account if needed.
func (w *world) accountFor(userID, toolkit string) *account {
	var u *user
	for _, x := range w.users {
		if x.id == userID {
			u = x
			break
		}
	}
	if u == nil {
		co := w.companies[int(fnv(userID)%uint64(len(w.companies)))]
		u = &user{
			id:       userID,
			first:    "Sandbox",
			last:     "User",
			company:  co,
			accounts: map[string]*account{},
			sessions: []string{w.ids.uuid()},
		}
		w.users = append(w.users, u)
	}
	if a := u.accounts[toolkit]; a != nil {
		return a
	}
	var authConfig string
	for _, a := range w.accounts {
		if a.toolkit == toolkit {
			authConfig = a.authConfigID
			break
		}
	}
	if authConfig == "" {
		authConfig = w.ids.authConfig()
	}
	a := &account{id: w.ids.accountID(), userID: userID, toolkit: toolkit, authConfigID: authConfig, status: "ACTIVE",
		user: u, company: u.company, stable: true}
	switch toolkit {
	case "gmail":
		addr := userID
		if !strings.Contains(addr, "@") {
			addr = strings.ToLower(strings.ReplaceAll(userID, " ", ".")) + "@" + u.company.domain
		}
		a.mailbox = newMailbox(addr)
	case "github":
		a.login = strings.ToLower(strings.ReplaceAll(userID, " ", "-"))
	}
	u.accounts[toolkit] = a
	u.toolkits = append(u.toolkits, toolkit)
	w.accounts = append(w.accounts, a)
	w.accountByID[a.id] = a
	if w.accountMade != nil {
		w.accountMade(a)
	}
	return a
}

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// run executes a parsed request: platform checks, the armed fault, the provider, the log.
// Faults apply only to an execution that passed the platform's checks.
func (s *Server) run(w http.ResponseWriter, r *http.Request, ex *live, caID string) {
	a := ex.a
	acct, ok := s.resolveAccount(w, r, a.tool, caID, a.userID)
	if !ok {
		return
	}
	a.acct = acct
	a.userID = cmp.Or(a.userID, acct.userID)
	s.mu.Lock()
	a.logID = s.w.ids.logID()
	usable := acct.status == "ACTIVE"
	s.mu.Unlock()
	if !usable {
		a.failure = expiredError(acct)
		s.finish(a)
		s.writeError(w, r, http.StatusBadRequest, 1304, "ConnectedAccount_Inactive", a.failure.Message,
			"Ask the user to reconnect the account, then retry.")
		return
	}
	if err := a.tool.validate(ex.args); err != nil {
		a.failure = &model.ExecError{Kind: model.ErrValidation, Message: err.Error()}
		s.finish(a)
		s.writeError(w, r, http.StatusBadRequest, 1801, "ToolExecute_ValidationError", err.Error(),
			"Check the arguments against the tool's input_parameters (GET /api/v3.1/tools/"+a.tool.slug+").")
		return
	}
	if ex.approve != nil && ex.approve(w, r, a) {
		return
	}
	fault, _ := s.takeFault(a.tool.slug, ex.proxy)
	switch fault.Mode {
	case FaultDropAfterRead:
		a.failure = connectionError()
		s.finish(a)
		abort(w)
		return
	case Fault429:
		a.failure = rateLimitError()
		s.finish(a)
		w.Header().Set("Retry-After", "1")
		s.writeError(
			w,
			r,
			http.StatusTooManyRequests,
			1429,
			"RateLimit_Exceeded",
			a.failure.Message,
			"Wait for retry-after seconds before trying again.",
		)
		return
	case Fault5xxBeforeCommit:
		status := orDefault(fault.HTTPStatus, http.StatusServiceUnavailable)
		a.failure = upstreamError(status)
		s.finish(a)
		s.writeError(
			w,
			r,
			status,
			1500+status%100,
			"ToolExecute_UpstreamError",
			a.failure.Message,
			"Check whether the action took effect before retrying.",
		)
		return
	case FaultTimeoutBeforeCommit:
		s.holdThenAbort(w, r, fault, func(held time.Duration) { a.failure = timeoutError(held); s.finish(a) })
		return
	case FaultInputRequired, FaultBlocked:
		if a.sessionID != "" {
			a.resultType = string(fault.Mode)
		}
		a.failure = nothingRan(string(fault.Mode))
		s.finish(a)
		answer := map[string]any{"data": map[string]any{}, "error": a.failure.Message, "log_id": a.logID}
		if a.sessionID != "" {
			answer["result_type"] = a.resultType
		} else {
			answer["successful"] = false
		}
		writeJSON(w, http.StatusOK, answer)
		return
	case Fault200ProviderError:
		a.result = &opResult{data: map[string]any{"ok": false, "error": "channel_not_found", "warning": "missing_charset"}}
		s.finish(a)
		ex.answer(w, a)
		return
	case FaultLatency:
		sleepCtx(r.Context(), orDefault(fault.Latency, time.Second), s.closing)
	}
	s.commit(ex)
	switch fault.Mode {
	case FaultTimeoutAfterCommit:
		// What Composio saw is a slow success; the caller never gets the answer.
		s.holdThenAbort(w, r, fault, func(time.Duration) { s.finish(a) })
	case Fault5xxAfterCommit:
		status := orDefault(fault.HTTPStatus, http.StatusBadGateway)
		a.failure = upstreamError(status)
		s.finish(a)
		s.writeError(w, r, status, 1500+status%100, "ToolExecute_UpstreamError", a.failure.Message,
			"The action may have been executed: check the provider before retrying.")
	case Fault200FailureAfterCommit:
		a.failure = timeoutError(orDefault(fault.Latency, 60*time.Second))
		s.finish(a)
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{}, "error": a.failure.Message, "successful": false,
			"log_id": a.logID, "session_info": nil})
	default:
		s.finish(a)
		ex.answer(w, a)
	}
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// commit runs the tool against the provider and records its effect.
func (s *Server) commit(ex *live) {
	a := ex.a
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock().Truncate(time.Millisecond) // as precise as the log shows
	res := a.tool.run(s.w, &call{acct: a.acct, args: ex.args, now: now})
	a.result = &res
	if a.tool.write && res.committed {
		path := a.path
		if path == "" {
			path = "tools.execute"
			if ex.proxy {
				path = "tools.proxy"
			}
		}
		s.effects = append(s.effects, effectRec{Effect: Effect{RequestID: a.requestID, ToolSlug: a.tool.slug, ConnectedAccountID: a.acct.id,
			ArgumentHash: model.ArgumentHash(a.args, model.DefaultVolatileKeys()), Time: now, LogID: a.logID, ObjectID: res.objectID,
			Path: path, SessionID: a.sessionID, Version: a.ranVersion()}})
	}
}

// finish stamps the end and stores the log record.
func (s *Server) finish(a *attempt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.end = s.clock()
	e, resp := a.execution()
	e.Response, _ = json.Marshal(resp)
	s.addLog(e)
}

// holdThenAbort holds the answer for the fault's latency or HoldTimeout, or until the client
// or the server goes away, calls done with the time held, then closes the connection without
// an answer.
func (s *Server) holdThenAbort(w http.ResponseWriter, r *http.Request, fault FaultRule, done func(time.Duration)) {
	s.mu.Lock()
	closed := s.closedLocked()
	if !closed {
		s.held.Add(1)
	}
	s.mu.Unlock()
	if !closed {
		defer s.held.Done() // after the log is written and the connection closed
	}
	start := time.Now()
	if !closed {
		sleepCtx(r.Context(), orDefault(fault.Latency, s.cfg.HoldTimeout), s.closing)
	}
	done(time.Since(start))
	abort(w)
}

func (s *Server) closedLocked() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// abort closes the client connection without an answer.
func abort(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2 or a recorder: abort the stream instead
	}
	_ = conn.Close()
}
