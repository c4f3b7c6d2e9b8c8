package sandbox

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"strings"
)

// proxyBody is the body of POST /tools/execute/proxy.
type proxyBody struct {
	Endpoint           string          `json:"endpoint"`
	Method             string          `json:"method"`
	Body               json.RawMessage `json:"body"`
	ConnectedAccountID string          `json:"connected_account_id"`
	Parameters         []struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"parameters"`
}

// handleProxy serves the proxy by mapping a handful of provider REST endpoints onto the
// simulated tools (see the package doc), so a proxied write leaves the same effect, log and
// fault behaviour as the tool. Other endpoints answer an upstream 404 and are not logged.
func (s *Server) handleProxy(w http.ResponseWriter, r *http.Request) {
	s.countExecute(ProxyTool, true)
	if !s.keyOK(r, false) {
		s.unauthorized(w, r, false)
		return
	}
	var body proxyBody
	if _, ok := s.readJSON(w, r, &body); !ok {
		return
	}
	s.proxy(w, r, body, "", "tools.proxy")
}

// proxy runs one proxied call (tools/execute/proxy, or a session's proxy_execute with its
// session id and path).
func (s *Server) proxy(w http.ResponseWriter, r *http.Request, body proxyBody, sessionID, path string) {
	method := strings.ToUpper(strings.TrimSpace(body.Method))
	switch method {
	case "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD":
	default:
		s.writeError(w, r, http.StatusBadRequest, 1400, "Proxy_InvalidMethod", "method must be one of GET POST PUT DELETE PATCH HEAD", "")
		return
	}
	if body.ConnectedAccountID == "" {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"Proxy_MissingAccount",
			"connected_account_id is required",
			"Pass the account to call the provider as.",
		)
		return
	}
	s.mu.Lock()
	acct := s.w.accountByID[body.ConnectedAccountID]
	s.mu.Unlock()
	if acct == nil {
		s.accountNotFound(w, r, body.ConnectedAccountID)
		return
	}
	epath, query := splitEndpoint(body.Endpoint)
	for _, p := range body.Parameters {
		if strings.EqualFold(p.Type, "query") {
			query.Add(p.Name, p.Value)
		}
	}
	var jsonBody map[string]any
	if len(body.Body) > 0 && string(body.Body) != "null" {
		_ = json.Unmarshal(body.Body, &jsonBody)
	}
	slug, args := proxyRoute(acct.toolkit, method, epath, query, jsonBody)
	tool, ok := s.cat.get(slug)
	if !ok {
		writeJSON(w, http.StatusOK, map[string]any{"status": http.StatusNotFound, "data": map[string]any{"message": "Not Found"},
			"headers": map[string]string{"content-type": "application/json"}})
		return
	}
	raw, _ := json.Marshal(args)
	ex := &live{a: &attempt{tool: tool, args: raw, start: s.clock(), proxy: method + " " + epath, path: path}, args: args, proxy: true,
		answer: func(w http.ResponseWriter, a *attempt) {
			status, data := http.StatusOK, a.result.data
			if a.result.err != "" {
				status = orDefault(a.result.status, http.StatusBadRequest)
				data = map[string]any{"message": a.result.err}
			} else if tool.write && method == "POST" {
				status = http.StatusCreated
			}
			writeJSON(w, http.StatusOK, map[string]any{"status": status, "data": data,
				"headers": map[string]string{"content-type": "application/json"}})
		}}
	s.callerMeta(r, ex.a)
	if sessionID != "" {
		ex.a.sessionID = sessionID
	}
	s.run(w, r, ex, acct.id)
}

func splitEndpoint(ep string) (string, url.Values) {
	ep = strings.TrimSpace(ep)
	if u, err := url.Parse(ep); err == nil {
		path := u.Path
		path = cmp.Or(path, "/")
		return strings.TrimSuffix(path, "/"), u.Query()
	}
	return ep, url.Values{}
}

// proxyRoute maps a provider REST call onto a simulated tool and its arguments; "" when the
// sandbox does not simulate the endpoint.
func proxyRoute(toolkit, method, path string, q url.Values, body map[string]any) (string, map[string]any) {
	seg := strings.Split(strings.Trim(path, "/"), "/")
	if body == nil {
		body = map[string]any{}
	}
	switch toolkit {
	case "gmail": // /gmail/v1/users/me/messages[/send|/{id}]
		if len(seg) < 5 || seg[0] != "gmail" || seg[4] != "messages" {
			return "", nil
		}
		switch {
		case len(seg) == 5 && method == "GET":
			args := map[string]any{"query": q.Get("q")}
			if n := q.Get("maxResults"); n != "" {
				args["max_results"] = n
			}
			return "GMAIL_FETCH_EMAILS", args
		case len(seg) == 6 && seg[5] == "send" && method == "POST":
			return "GMAIL_SEND_EMAIL", gmailSendArgs(body)
		case len(seg) == 6 && method == "GET":
			return "GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID", map[string]any{"message_id": seg[5]}
		case len(seg) == 6 && method == "DELETE":
			return "GMAIL_DELETE_MESSAGE", map[string]any{"message_id": seg[5]}
		}
	case "slack": // /chat.postMessage, /conversations.history (optionally under /api)
		last := seg[len(seg)-1]
		switch {
		case last == "chat.postMessage" && method == "POST":
			return "SLACK_SEND_MESSAGE", pickKeys(body, "channel", "text", "markdown_text", "thread_ts", "blocks")
		case last == "conversations.history" && method == "GET":
			args := map[string]any{}
			for _, k := range []string{"channel", "oldest", "latest", "cursor"} {
				if v := q.Get(k); v != "" {
					args[k] = v
				}
			}
			if v := q.Get("limit"); v != "" {
				args["limit"] = v
			}
			return "SLACK_FETCH_CONVERSATION_HISTORY", args
		}
	case "github": // /repos/{owner}/{repo}/issues[/{n}/comments]
		if len(seg) < 4 || seg[0] != "repos" || seg[3] != "issues" {
			return "", nil
		}
		base := map[string]any{"owner": seg[1], "repo": seg[2]}
		switch {
		case len(seg) == 4 && method == "POST":
			return "GITHUB_CREATE_AN_ISSUE", merge(base, pickKeys(body, "title", "body", "labels", "assignees", "milestone"))
		case len(seg) == 4 && method == "GET":
			for _, k := range []string{"state", "since", "labels", "sort", "direction", "per_page", "page"} {
				if v := q.Get(k); v != "" {
					base[k] = v
				}
			}
			return "GITHUB_LIST_REPOSITORY_ISSUES", base
		case len(seg) == 6 && seg[5] == "comments":
			base["issue_number"] = seg[4]
			if method == "POST" {
				return "GITHUB_CREATE_AN_ISSUE_COMMENT", merge(base, pickKeys(body, "body"))
			}
			if method == "GET" {
				if v := q.Get("since"); v != "" {
					base["since"] = v
				}
				return "GITHUB_LIST_ISSUE_COMMENTS", base
			}
		}
	case "hubspot": // /crm/v3/objects/contacts[/search]
		p := strings.Join(seg, "/")
		switch {
		case p == "crm/v3/objects/contacts" && method == "POST":
			props, _ := body["properties"].(map[string]any)
			return "HUBSPOT_CREATE_CONTACT", pickKeys(props, contactProps()...)
		case p == "crm/v3/objects/contacts/search" && method == "POST":
			return "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA", pickKeys(body, "filterGroups", "properties", "query", "limit", "after")
		}
	}
	return "", nil
}

func pickKeys(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			out[k] = v
		}
	}
	return out
}

func merge(a, b map[string]any) map[string]any {
	maps.Copy(a, b)
	return a
}

// gmailSendArgs reads {raw: base64url RFC 2822} like the Gmail API, or a plain
// {to, subject, body, cc, bcc} object.
func gmailSendArgs(body map[string]any) map[string]any {
	raw, _ := body["raw"].(string)
	if raw == "" {
		args := pickKeys(body, "subject", "body", "cc", "bcc")
		if to, ok := body["to"]; ok {
			args["recipient_email"] = to
		}
		return args
	}
	dec, err := base64.URLEncoding.DecodeString(raw)
	if err != nil {
		if dec, err = base64.RawURLEncoding.DecodeString(raw); err != nil {
			return map[string]any{}
		}
	}
	msg := strings.ReplaceAll(string(dec), "\r\n", "\n")
	head, text, _ := strings.Cut(msg, "\n\n")
	args := map[string]any{"body": text}
	for line := range strings.SplitSeq(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "to":
			args["recipient_email"] = v
		case "subject":
			args["subject"] = v
		case "cc":
			args["cc"] = []any{v}
		case "bcc":
			args["bcc"] = []any{v}
		case "content-type":
			if strings.Contains(strings.ToLower(v), "text/html") {
				args["is_html"] = true
			}
		}
	}
	return args
}
