package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds request bodies.
const maxBody = 4 << 20

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, prefix := range []string{"/api/v3.1", "/api/v3"} {
		mux.HandleFunc("POST "+prefix+"/tools/execute/proxy", s.handleProxy)
		mux.HandleFunc("POST "+prefix+"/tools/execute/{slug}", s.handleExecute)
		if prefix == "/api/v3.1" || !s.strict() { // the Logs API is v3.1's
			// the logs take a project key only (a user key goes nowhere near them) unless lenient
			mux.HandleFunc("POST "+prefix+"/logs/tool_execution", s.authed(!s.strict(), s.handleLogs))
			mux.HandleFunc("GET "+prefix+"/logs/tool_execution/{id}", s.authed(!s.strict(), s.handleLog))
			mux.HandleFunc("POST "+prefix+"/internal/trigger/logs", s.authed(!s.strict(), s.handleTriggerLogs))
			mux.HandleFunc("GET "+prefix+"/internal/trigger/log/{id}", s.authed(!s.strict(), s.handleTriggerLog))
		}
		mux.HandleFunc("GET "+prefix+"/tools", s.authed(false, s.handleTools))
		mux.HandleFunc("GET "+prefix+"/tools/{slug}", s.authed(false, s.handleTool))
		mux.HandleFunc("GET "+prefix+"/connected_accounts", s.authed(false, s.handleAccounts))
		mux.HandleFunc("GET "+prefix+"/connected_accounts/{id}", s.authed(false, s.handleAccount))
		mux.HandleFunc("POST "+prefix+"/tool_router/session", s.authed(false, s.handleSessionCreate))
		mux.HandleFunc("GET "+prefix+"/tool_router/session/{id}", s.authed(false, s.handleSessionGet))
		mux.HandleFunc("POST "+prefix+"/tool_router/session/{id}/execute", s.authed(false, s.handleSessionExecute))
		mux.HandleFunc("POST "+prefix+"/tool_router/session/{id}/proxy_execute", s.authed(false, s.handleSessionProxy))
		mux.HandleFunc("POST "+prefix+"/tool_router/session/{id}/execute_meta", s.authed(false, s.handleSessionMeta))
		mux.HandleFunc("PATCH "+prefix+"/tool_router/session/{id}", s.authed(false, s.handleSessionPatch))
		mux.HandleFunc("GET "+prefix+"/tool_router/session/{id}/tools", s.authed(false, s.handleSessionTools))
		mux.HandleFunc("POST "+prefix+"/tool_router/session/{id}/search", s.authed(false, s.handleSessionSearch))
		mux.HandleFunc("GET "+prefix+"/tool_router/session/{id}/toolkits", s.authed(false, s.handleSessionToolkits))
		mux.HandleFunc("POST "+prefix+"/tool_router/session/{id}/link", s.authed(false, s.handleSessionLink))
	}
	for _, prefix := range []string{"/api/v3.1", "/api/v3"} {
		mux.HandleFunc("POST "+prefix+"/webhook_endpoints", s.authed(false, s.handleWebhookEndpoints))
		mux.HandleFunc("GET "+prefix+"/webhook_endpoints", s.authed(false, s.handleWebhookEndpoints))
	}
	mux.HandleFunc("POST /_sandbox/triggers/fire", s.control(s.handleFire))
	mux.HandleFunc("GET /_sandbox/effects", s.control(s.handleEffects))
	mux.HandleFunc("GET /_sandbox/stats", s.control(s.handleStats))
	mux.HandleFunc("GET /_sandbox/truth", s.control(s.handleTruth))
	mux.HandleFunc("GET /_sandbox/faults", s.control(s.handleFaults))
	mux.HandleFunc("POST /_sandbox/faults", s.control(s.handleFaults))
	mux.HandleFunc("DELETE /_sandbox/faults", s.control(s.handleFaults))
	api := s.edge(s.limit(mux))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = withRequestID(r)
		if strings.HasPrefix(r.URL.Path, "/api/") && s.bothKeys(w, r) {
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			s.writeError(w, r, http.StatusNotFound, 1404, "Route_NotFound", fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path),
				"See the Composio API reference for the available endpoints.")
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			api.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// ---- auth and errors ----

// apiError is the body of every error answer, as Composio sends it.
type apiError struct {
	Message      string   `json:"message"`
	Code         int      `json:"code"`
	Slug         string   `json:"slug"`
	Status       int      `json:"status"`
	RequestID    string   `json:"request_id"`
	SuggestedFix string   `json:"suggested_fix"`
	Errors       []string `json:"errors"`
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, status, code int, slug, msg, fix string, errs ...string) {
	if errs == nil {
		errs = []string{}
	}
	writeJSON(w, status, map[string]any{"error": apiError{Message: msg, Code: code, Slug: slug, Status: status,
		RequestID: requestIDOf(r), SuggestedFix: fix, Errors: errs}})
}

// requestIDKey keys the request id a request was given (withRequestID) in its context.
type requestIDKey struct{}

// withRequestID gives r its request id once, where it comes in, so that the error body, the
// log and the effects of one request name the same id: the caller's x-request-id, or a fresh one.
func withRequestID(r *http.Request) *http.Request {
	if _, ok := r.Context().Value(requestIDKey{}).(string); ok {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), requestIDKey{}, requestIDOf(r)))
}

// requestIDOf is the id withRequestID gave r, else the caller's x-request-id, else a fresh one.
func requestIDOf(r *http.Request) string {
	if id, ok := r.Context().Value(requestIDKey{}).(string); ok {
		return id
	}
	if id := strings.TrimSpace(r.Header.Get("x-request-id")); id != "" {
		return id
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(
			w,
			`{"error":{"message":"internal error encoding the answer","code":1500,"slug":"Internal","status":500}}`,
			http.StatusInternalServerError,
		)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// keyOK checks x-api-key (and x-user-api-key when userKey): any non-empty key, or exactly
// Config.APIKey when set.
func (s *Server) keyOK(r *http.Request, userKey bool) bool {
	keys := []string{r.Header.Get("x-api-key")}
	if userKey {
		keys = append(keys, r.Header.Get("x-user-api-key"))
	}
	for _, k := range keys {
		if k == "" {
			continue
		}
		if s.cfg.APIKey == "" || subtle.ConstantTimeCompare([]byte(k), []byte(s.cfg.APIKey)) == 1 {
			return true
		}
	}
	return false
}

func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, userKey bool) {
	msg := "API key is missing: send it in the x-api-key header"
	if userKey {
		msg = "API key is missing: send it in the x-api-key or x-user-api-key header"
	}
	if r.Header.Get("x-api-key") != "" || (userKey && r.Header.Get("x-user-api-key") != "") {
		msg = "Invalid API key"
	}
	s.writeError(
		w,
		r,
		http.StatusUnauthorized,
		1401,
		"Auth_InvalidAPIKey",
		msg,
		"Use the project API key from the Composio dashboard (COMPOSIO_API_KEY).",
	)
}

func (s *Server) authed(userKey bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.keyOK(r, userKey) {
			s.unauthorized(w, r, userKey)
			return
		}
		h(w, r)
	}
}

// control guards /_sandbox: open unless Config.APIKey is set.
func (s *Server) control(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.APIKey != "" && !s.keyOK(r, true) {
			s.unauthorized(w, r, true)
			return
		}
		h(w, r)
	}
}

// readJSON reads a JSON body into v; an empty body leaves v as is. The error is written.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	body, err := readBody(w, r)
	if err != nil {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"Request_InvalidBody",
			"could not read the request body: "+err.Error(),
			"Send a JSON body under 4 MiB.",
		)
		return nil, false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return body, true
	}
	if err := json.Unmarshal(body, v); err != nil {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"Request_InvalidJSON",
			"Invalid JSON in request body: "+err.Error(),
			"Send a valid JSON object.",
		)
		return nil, false
	}
	return body, true
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody))
	return buf.Bytes(), err
}

// ---- tools ----

// listParam reads a query parameter given repeatedly and/or comma-separated.
func listParam(r *http.Request, name string) []string {
	var out []string
	for _, v := range r.URL.Query()[name] {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// offsetPage cuts items[offset:offset+limit] with the list envelope Composio uses.
func offsetPage[T any](r *http.Request, items []T, defLimit, maxLimit int) (map[string]any, error) {
	q := r.URL.Query()
	limit := defLimit
	if l := q.Get("limit"); l != "" {
		n, err := strconv.ParseFloat(l, 64)
		if err != nil || n < 0 {
			return nil, errors.New("limit must be a non-negative number")
		}
		if n > 0 {
			limit = min(int(n), maxLimit)
		}
	}
	offset := 0
	if c := q.Get("cursor"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
		if err != nil || err2 != nil || n < 0 || !strings.HasPrefix(string(b), "offset:") {
			return nil, errors.New("cursor: not a cursor this server issued")
		}
		offset = n
	}
	end := min(offset+limit, len(items))
	page := []T{}
	if offset < len(items) {
		page = items[offset:end]
	}
	var next any
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(end)))
	}
	pages := max(1, (len(items)+limit-1)/limit)
	return map[string]any{"items": page, "next_cursor": next, "total_pages": pages,
		"current_page": offset/limit + 1, "total_items": len(items)}, nil
}

func (s *Server) handleTools(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	slugs, tags := listParam(r, "tool_slugs"), listParam(r, "tags")
	toolkit, search := strings.TrimSpace(q.Get("toolkit_slug")), strings.ToLower(strings.TrimSpace(q.Get("search")))
	var items []map[string]any
	for _, t := range s.cat.tools {
		switch {
		case len(slugs) > 0: // overrides the other filters
			found := false
			for _, sl := range slugs {
				found = found || strings.EqualFold(sl, t.slug)
			}
			if !found {
				continue
			}
		default:
			if toolkit != "" && !strings.EqualFold(toolkit, t.toolkit) {
				continue
			}
			if len(tags) > 0 && !hasAll(t.tags, tags) {
				continue
			}
			if q.Get("important") == "true" && !hasAll(t.tags, []string{"important"}) {
				continue
			}
			if search != "" && !containsFold(t.slug+" "+t.name+" "+t.desc, search) {
				continue
			}
		}
		items = append(items, t.toolJSON())
	}
	out, err := offsetPage(r, items, 20, 1000)
	if err != nil {
		s.writeError(w, r, http.StatusBadRequest, 1400, "Tools_InvalidQuery", err.Error(), "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleTool(w http.ResponseWriter, r *http.Request) {
	t, ok := s.cat.get(r.PathValue("slug"))
	if !ok {
		s.toolNotFound(w, r, r.PathValue("slug"))
		return
	}
	writeJSON(w, http.StatusOK, t.toolJSON())
}

func (s *Server) toolNotFound(w http.ResponseWriter, r *http.Request, slug string) {
	s.writeError(w, r, http.StatusNotFound, 1803, "Tool_NotFound", "Tool "+slug+" not found",
		"List the available tools with GET /api/v3.1/tools.")
}

// ---- connected accounts ----

func (a *account) json() map[string]any {
	var reason any
	if a.status != "ACTIVE" {
		reason = "The access token expired and could not be refreshed"
	}
	return map[string]any{
		"id": a.id, "user_id": a.userID, "status": a.status,
		"toolkit":     map[string]any{"slug": a.toolkit},
		"auth_config": map[string]any{"id": a.authConfigID, "auth_scheme": "OAUTH2", "is_composio_managed": true, "is_disabled": false},
		"created_at":  iso(a.created), "updated_at": iso(a.updated),
		"state": map[string]any{"authScheme": "OAUTH2", "val": map[string]any{"status": a.status}},
		"data":  map[string]any{"status": a.status}, "status_reason": reason, "is_disabled": false,
	}
}

func (s *Server) handleAccounts(w http.ResponseWriter, r *http.Request) {
	users, toolkits, statuses := listParam(r, "user_ids"), listParam(r, "toolkit_slugs"), listParam(r, "statuses")
	ids, configs := listParam(r, "connected_account_ids"), listParam(r, "auth_config_ids")
	in := func(xs []string, v string, fold bool) bool {
		if len(xs) == 0 {
			return true
		}
		for _, x := range xs {
			if x == v || (fold && strings.EqualFold(x, v)) {
				return true
			}
		}
		return false
	}
	q := r.URL.Query()
	byUpdated := q.Get("order_by") == "updated_at"
	asc := q.Get("order_direction") == "asc"
	s.mu.Lock()
	var sel []*account
	for _, a := range s.w.accounts {
		if in(users, a.userID, false) && in(toolkits, a.toolkit, true) && in(statuses, a.status, true) && in(ids, a.id, false) &&
			in(configs, a.authConfigID, false) {
			sel = append(sel, a)
		}
	}
	key := func(a *account) time.Time {
		if byUpdated {
			return a.updated
		}
		return a.created
	}
	sort.SliceStable(sel, func(i, j int) bool {
		ki, kj := key(sel[i]), key(sel[j])
		if ki.Equal(kj) {
			return sel[i].id < sel[j].id
		}
		return ki.Before(kj) == asc
	})
	items := make([]map[string]any, len(sel))
	for i, a := range sel {
		items[i] = a.json()
	}
	s.mu.Unlock()
	out, err := offsetPage(r, items, 20, 1000)
	if err != nil {
		s.writeError(w, r, http.StatusBadRequest, 1400, "ConnectedAccounts_InvalidQuery", err.Error(), "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAccount(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a := s.w.accountByID[r.PathValue("id")]
	var body map[string]any
	if a != nil {
		body = a.json()
	}
	s.mu.Unlock()
	if a == nil {
		s.accountNotFound(w, r, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) accountNotFound(w http.ResponseWriter, r *http.Request, id string) {
	s.writeError(w, r, http.StatusNotFound, 1302, "ConnectedAccount_NotFound", "Connected account "+id+" not found",
		"List the user's accounts with GET /api/v3.1/connected_accounts?user_ids=...")
}

// ---- /_sandbox ----

func (s *Server) handleEffects(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	out := []Effect{}
	for _, e := range s.Effects() {
		if (q.Get("request_id") == "" || e.RequestID == q.Get("request_id")) && (q.Get("tool_slug") == "" || strings.EqualFold(e.ToolSlug,
			q.Get("tool_slug"))) &&
			(q.Get("log_id") == "" || e.LogID == q.Get("log_id")) &&
			(q.Get("connected_account_id") == "" || e.ConnectedAccountID == q.Get("connected_account_id")) {
			out = append(out, e)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"effects": out})
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}

func (s *Server) handleTruth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"truth": s.Truth()})
}

// faultWire is a FaultRule on the wire (POST /_sandbox/faults).
type faultWire struct {
	ToolSlug   string    `json:"tool_slug"`
	Mode       FaultMode `json:"mode"`
	Count      int       `json:"count"`
	LatencyMS  int64     `json:"latency_ms,omitempty"`
	HTTPStatus int       `json:"http_status,omitempty"`
}

func toWire(r FaultRule) faultWire {
	return faultWire{ToolSlug: r.ToolSlug, Mode: r.Mode, Count: r.Count, LatencyMS: r.Latency.Milliseconds(), HTTPStatus: r.HTTPStatus}
}

func (s *Server) handleFaults(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		s.ClearFaults()
	case http.MethodPost:
		var fw faultWire
		body, ok := s.readJSON(w, r, &fw)
		if !ok {
			return
		}
		rule := FaultRule{ToolSlug: strings.TrimSpace(fw.ToolSlug), Mode: fw.Mode, Count: fw.Count,
			Latency: time.Duration(fw.LatencyMS) * time.Millisecond, HTTPStatus: fw.HTTPStatus}
		if rule.ToolSlug != AnyTool && rule.ToolSlug != ProxyTool {
			rule.ToolSlug = strings.ToUpper(rule.ToolSlug)
		}
		if len(bytes.TrimSpace(body)) == 0 {
			s.writeError(
				w,
				r,
				http.StatusBadRequest,
				1400,
				"Fault_Invalid",
				"fault: empty body",
				`POST {"tool_slug":"GMAIL_SEND_EMAIL","mode":"timeout_after_commit","count":1}`,
			)
			return
		}
		if err := rule.Validate(); err != nil {
			s.writeError(
				w,
				r,
				http.StatusBadRequest,
				1400,
				"Fault_Invalid",
				err.Error(),
				`POST {"tool_slug":"GMAIL_SEND_EMAIL","mode":"timeout_after_commit","count":1}`,
			)
			return
		}
		s.ArmFault(rule)
	}
	armed := []faultWire{}
	for _, f := range s.Faults() {
		armed = append(armed, toWire(f))
	}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		status = http.StatusCreated
	}
	writeJSON(w, status, map[string]any{"faults": armed})
}
