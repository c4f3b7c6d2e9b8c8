package sandbox

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Tool-router sessions, as @composio/core's composio.create / composio.use and
// session.execute / proxyExecute call them (docs/platform.md, "Tool-router sessions"):
//
//	POST /api/v3.1/tool_router/session                       create: {user_id, toolkits, ...}
//	GET  /api/v3.1/tool_router/session/{id}                  retrieve
//	POST /api/v3.1/tool_router/session/{id}/execute          {tool_slug, arguments, account?} → {data, error, log_id}
//	POST /api/v3.1/tool_router/session/{id}/proxy_execute    {toolkit, endpoint, method, body, parameters}
//	POST /api/v3.1/tool_router/session/{id}/execute_meta     COMPOSIO_MULTI_EXECUTE_TOOL: {slug, arguments: {tools: [...]}}
//
// A session execution runs like tools/execute (faults apply the same way) for the session's
// user; its log carries context.session_id, and the inner runs of a meta tool a parent.

// session is one tool-router session.
type session struct {
	id       string
	userID   string
	toolkits json.RawMessage
}

// MultiExecuteTool is the meta tool that runs several tools in one call.
const MultiExecuteTool = "COMPOSIO_MULTI_EXECUTE_TOOL"

func (s *Server) sessionJSON(ss *session) map[string]any {
	toolkits := ss.toolkits
	if len(toolkits) == 0 {
		toolkits = json.RawMessage(`{"enabled":[]}`)
	}
	return map[string]any{
		"session_id": ss.id,
		"mcp":        map[string]any{"type": "http", "url": s.url + "/tool_router/v3/" + ss.id + "/mcp"},
		"config": map[string]any{
			"user_id": ss.userID, "toolkits": toolkits, "preload": map[string]any{}, "workbench": map[string]any{"enable": false},
			"manage_connections": map[string]any{"enable": false}, "tags": map[string]any{},
		},
		"config_version":           1,
		"experimental":             map[string]any{},
		"tool_router_instructions": "",
		"warnings":                 []any{},
	}
}

func (s *Server) handleSessionCreate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		UserID   string          `json:"user_id"`
		Toolkits json.RawMessage `json:"toolkits"`
	}
	if _, ok := s.readJSON(w, r, &body); !ok {
		return
	}
	if strings.TrimSpace(body.UserID) == "" {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolRouter_MissingUser",
			"user_id is required",
			"Pass the user the session acts for.",
		)
		return
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	ss := &session{id: "trs_" + hex.EncodeToString(b[:]), userID: body.UserID, toolkits: body.Toolkits}
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, s.sessionJSON(ss))
}

// sessionOf finds the request's session, writing the 404 when there is none.
func (s *Server) sessionOf(w http.ResponseWriter, r *http.Request) (*session, bool) {
	id := r.PathValue("id")
	s.mu.Lock()
	ss := s.sessions[id]
	s.mu.Unlock()
	if ss == nil {
		s.writeError(w, r, http.StatusNotFound, 1404, "ToolRouter_SessionNotFound", "no tool router session "+id, "Create a session first.")
		return nil, false
	}
	return ss, true
}

func (s *Server) handleSessionGet(w http.ResponseWriter, r *http.Request) {
	if ss, ok := s.sessionOf(w, r); ok {
		writeJSON(w, http.StatusOK, s.sessionJSON(ss))
	}
}

// sessionAnswer is the session execute answer: {data, error, log_id} (no successful).
func sessionAnswer(w http.ResponseWriter, a *attempt) {
	var errText any
	data := map[string]any{}
	if a.result != nil {
		if d, ok := a.result.data.(map[string]any); ok && d != nil {
			data = d
		} else if a.result.data != nil {
			data = map[string]any{"result": a.result.data}
		}
		if a.result.err != "" {
			errText = a.result.err
		}
	}
	resultType := "completed"
	if errText != nil {
		resultType = "failed"
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "error": errText, "log_id": a.logID, "result_type": resultType})
}

func (s *Server) handleSessionExecute(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var body struct {
		ToolSlug       string          `json:"tool_slug"`
		Arguments      json.RawMessage `json:"arguments"`
		Account        string          `json:"account"`
		RequestState   string          `json:"request_state"`
		InputResponses json.RawMessage `json:"input_responses"`
	}
	raw, ok := s.readJSON(w, r, &body)
	if !ok || s.refuseUnknownKeys(w, r, raw, sessionExecuteKeys...) {
		return
	}
	s.countExecute(strings.ToUpper(body.ToolSlug), false)
	reply := approvalReply{state: body.RequestState}
	if resp := bytes.TrimSpace(body.InputResponses); len(resp) > 0 && string(resp) != "null" {
		reply.responses = resp
	}
	s.sessionRun(w, r, ss, body.ToolSlug, body.Arguments, body.Account, nil, "session.execute", reply)
}

// sessionRun runs one tool for the session's user, answering with answer (nil: the session
// execute answer).
func (s *Server) sessionRun(w http.ResponseWriter, r *http.Request, ss *session, slug string, rawArgs json.RawMessage, account string,
	parent *model.Parent, path string, reply approvalReply) {
	tool, ok := s.cat.get(slug)
	if !ok {
		s.toolNotFound(w, r, slug)
		return
	}
	args, raw, ok := s.parseArgs(w, r, rawArgs)
	if !ok || s.refuseUnknownArguments(w, r, tool, args) {
		return
	}
	ex := &live{
		a:       &attempt{tool: tool, args: raw, userID: ss.userID, start: s.clock(), parent: parent, path: path},
		args:    args,
		answer:  sessionAnswer,
		approve: func(w http.ResponseWriter, r *http.Request, a *attempt) bool { return s.approve(w, r, a, reply) },
	}
	s.callerMeta(r, ex.a)
	ex.a.sessionID = ss.id
	s.run(w, r, ex, account)
}

func (s *Server) handleSessionProxy(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var body proxyBody
	raw, ok := s.readJSON(w, r, &body)
	if !ok || s.refuseUnknownKeys(w, r, raw, sessionProxyKeys...) {
		return
	}
	// @composio/core sends toolkit_slug; a lenient sandbox also takes the older toolkit
	var tk struct {
		ToolkitSlug string `json:"toolkit_slug"`
		Toolkit     string `json:"toolkit"`
	}
	_ = json.Unmarshal(raw, &tk)
	if tk.ToolkitSlug == "" && !s.strict() {
		tk.ToolkitSlug = tk.Toolkit
	}
	if tk.ToolkitSlug == "" {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolRouter_MissingToolkit",
			"toolkit_slug is required",
			"Name the toolkit whose account to use (toolkit_slug).",
		)
		return
	}
	tk.Toolkit = tk.ToolkitSlug
	s.mu.Lock()
	acct := s.w.accountFor(ss.userID, strings.ToLower(tk.Toolkit))
	s.mu.Unlock()
	body.ConnectedAccountID = acct.id
	s.proxy(w, r, body, ss.id, "session.proxy_execute")
}

func (s *Server) handleSessionMeta(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var body struct {
		Slug      string `json:"slug"`
		ToolSlug  string `json:"tool_slug"`
		Arguments struct {
			Tools []struct {
				ToolSlug  string          `json:"tool_slug"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"tools"`
		} `json:"arguments"`
	}
	if _, ok := s.readJSON(w, r, &body); !ok {
		return
	}
	slug := strings.ToUpper(body.Slug + body.ToolSlug)
	s.countExecute(slug, false)
	if slug != MultiExecuteTool {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"ToolRouter_UnknownMetaTool",
			"the sandbox runs only "+MultiExecuteTool+" as a meta tool",
			"",
		)
		return
	}
	s.mu.Lock()
	metaID := s.w.ids.logID()
	s.mu.Unlock()
	parent := &model.Parent{LogID: metaID, ToolSlug: MultiExecuteTool}
	var results []any
	for _, t := range body.Arguments.Tools {
		rec := &recorder{header: http.Header{}}
		s.countExecute(strings.ToUpper(t.ToolSlug), false)
		s.sessionRun(rec, r, ss, t.ToolSlug, t.Arguments, "", parent, "session.execute", approvalReply{})
		var one any
		_ = json.Unmarshal(rec.body, &one)
		results = append(results, map[string]any{"tool_slug": t.ToolSlug, "response": one, "status": rec.status})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"results": results}, "error": nil, "log_id": metaID})
}

// recorder collects the answer of one inner run of a meta tool.
type recorder struct {
	header http.Header
	status int
	body   []byte
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	r.status = cmp.Or(r.status, http.StatusOK)
	r.body = append(r.body, b...)
	return len(b), nil
}
func (r *recorder) WriteHeader(status int) { r.status = status }

// The rest of the tool-router session API @composio/core calls (without it, session.tools()
// got a 404): the session's tools, a search over them, its toolkits' connection state, a link to
// connect one, and a PATCH of its config. The shapes are @composio/client's
// (ToolsPaginated, the search response, ToolRouterToolkitsListResponse, the link's 201).

// sessionToolkits are the toolkits a session enabled: a list, {enable: [...]} (as
// @composio/core sends toolkits: [...]), every simulated one but {disable: [...]}, or every
// simulated one when it named none.
func (ss *session) sessionToolkits() []string {
	var cfg struct {
		Enable  []string `json:"enable"`
		Enabled []string `json:"enabled"`
		Disable []string `json:"disable"`
	}
	var list []string
	if json.Unmarshal(ss.toolkits, &list) != nil {
		_ = json.Unmarshal(ss.toolkits, &cfg)
		list = append(cfg.Enable, cfg.Enabled...)
	}
	lower := func(xs []string) []string {
		for i := range xs {
			xs[i] = strings.ToLower(strings.TrimSpace(xs[i]))
		}
		return xs
	}
	if len(list) > 0 {
		return lower(list)
	}
	off := lower(cfg.Disable)
	for _, t := range toolkitDefs() {
		if !slices.Contains(off, t.slug) {
			list = append(list, t.slug)
		}
	}
	return list
}

// sessionTools are the catalog's tools of the session's toolkits.
func (s *Server) sessionTools(ss *session) []*toolDef {
	enabled := ss.sessionToolkits()
	var out []*toolDef
	for _, t := range s.cat.tools {
		if slices.Contains(enabled, t.toolkit) {
			out = append(out, t)
		}
	}
	return out
}

func (s *Server) handleSessionTools(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var items []map[string]any
	for _, t := range s.sessionTools(ss) {
		items = append(items, t.toolJSON())
	}
	out, err := offsetPage(r, items, 20, 500)
	if err != nil {
		s.writeError(w, r, http.StatusBadRequest, 1400, "ToolRouter_InvalidQuery", err.Error(), "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleSessionSearch(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var body struct {
		Queries []struct {
			UseCase string `json:"use_case"`
		} `json:"queries"`
		Toolkits     []string        `json:"toolkits"`
		Experimental json.RawMessage `json:"experimental"`
		SessionID    string          `json:"session_id"`
		Model        string          `json:"model"`
	}
	if _, ok := s.readJSON(w, r, &body); !ok {
		return
	}
	results := []any{}
	schemas := map[string]any{}
	for _, q := range body.Queries {
		var slugs []string
		for _, t := range s.sessionTools(ss) {
			words := strings.Fields(strings.ToLower(q.UseCase))
			hit := len(words) == 0
			for _, wd := range words {
				hit = hit || containsFold(t.slug+" "+t.name+" "+t.desc, wd)
			}
			if hit && len(slugs) < 5 {
				slugs = append(slugs, t.slug)
				schemas[t.slug] = map[string]any{"tool_slug": t.slug, "toolkit": t.toolkit, "description": t.desc,
					"input_schema": t.input, "hasFullSchema": true}
			}
		}
		if slugs == nil {
			slugs = []string{}
		}
		results = append(results, map[string]any{"index": len(results) + 1, "use_case": q.UseCase, "primary_tool_slugs": slugs,
			"related_tool_slugs": []string{}, "toolkits": ss.sessionToolkits(), "difficulty": "easy", "recommended_plan_steps": []string{},
			"known_pitfalls": []string{}, "reference_workbench_snippets": []any{}, "execution_guidance": "", "plan_id": ""})
	}
	now := s.clock()
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "error": nil, "results": results, "tool_schemas": schemas,
		"toolkit_connection_statuses": []any{}, "next_steps_guidance": []string{},
		"session": map[string]any{"id": ss.id, "generate_id": false, "instructions": ""},
		"time_info": map[string]any{
			"current_time_utc":               now.UTC().Format(time.RFC3339),
			"current_time_utc_epoch_seconds": now.Unix(),
			"message":                        "",
		}})
}

func (s *Server) handleSessionToolkits(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var items []map[string]any
	for _, slug := range ss.sessionToolkits() {
		tk, ok := toolkitOf(slug)
		if !ok {
			continue
		}
		s.mu.Lock()
		a := s.w.accountFor(ss.userID, slug)
		s.mu.Unlock()
		items = append(items, map[string]any{"slug": tk.slug, "name": tk.name, "meta": map[string]any{"logo": tk.logo},
			"is_no_auth": false, "enabled": true,
			"connected_account": map[string]any{"id": a.id, "status": a.status, "user_id": ss.userID,
				"auth_config": map[string]any{"id": a.authConfigID, "auth_scheme": "OAUTH2", "is_composio_managed": true}}})
	}
	out, err := offsetPage(r, items, 20, 50)
	if err != nil {
		s.writeError(w, r, http.StatusBadRequest, 1400, "ToolRouter_InvalidQuery", err.Error(), "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleSessionLink(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var body struct {
		Toolkit string `json:"toolkit"`
	}
	if _, ok := s.readJSON(w, r, &body); !ok {
		return
	}
	if _, ok := toolkitOf(strings.ToLower(body.Toolkit)); !ok {
		s.writeError(w, r, http.StatusBadRequest, 1400, "ToolRouter_UnknownToolkit", "toolkit "+body.Toolkit+" is not in this session", "")
		return
	}
	s.mu.Lock()
	a := s.w.accountFor(ss.userID, strings.ToLower(body.Toolkit))
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"link_token": "lt_" + ss.id[4:], "redirect_url": s.url + "/_sandbox/link/" + a.id,
		"connected_account_id": a.id})
}

func (s *Server) handleSessionPatch(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.sessionOf(w, r)
	if !ok {
		return
	}
	var body struct {
		Toolkits json.RawMessage `json:"toolkits"`
	}
	if _, ok := s.readJSON(w, r, &body); !ok {
		return
	}
	if len(body.Toolkits) > 0 {
		s.mu.Lock()
		ss.toolkits = body.Toolkits
		s.mu.Unlock()
	}
	writeJSON(w, http.StatusOK, s.sessionJSON(ss))
}
