package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The tool-router session endpoints beyond what the real SDK test drives: a session's
// proxy_execute and COMPOSIO_MULTI_EXECUTE_TOOL, whose inner runs are logged with the session
// and the meta run as parent; an unknown session is a 404.
func TestSessionProxyAndMetaExecute(t *testing.T) {
	s, ts := newTestServer(t, Config{Size: 5, Now: testNow, APIKey: "k"})
	post := func(path string, body any) (int, map[string]any) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", ts.URL+"/api/v3.1"+path, bytes.NewReader(b))
		req.Header.Set("x-api-key", "k")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	code, created := post("/tool_router/session", map[string]any{"user_id": "u-meta", "toolkits": map[string]any{"enabled": []string{"gmail", "slack"}}})
	id, _ := created["session_id"].(string)
	if code != 201 || id == "" {
		t.Fatalf("create: %d %v", code, created)
	}
	if code, _ := post("/tool_router/session/trs_nope/execute", map[string]any{"tool_slug": "GMAIL_SEND_EMAIL"}); code != 404 {
		t.Errorf("unknown session: %d", code)
	}
	code, meta := post("/tool_router/session/"+id+"/execute_meta", map[string]any{"slug": MultiExecuteTool, "arguments": map[string]any{"tools": []any{
		map[string]any{"tool_slug": "GMAIL_SEND_EMAIL", "arguments": map[string]any{"recipient_email": "m@example.com", "subject": "meta", "body": "b"}},
		map[string]any{"tool_slug": "SLACK_SEND_MESSAGE", "arguments": map[string]any{"channel": "#general", "text": "meta"}},
	}}})
	metaLog, _ := meta["log_id"].(string)
	if code != 200 || metaLog == "" {
		t.Fatalf("execute_meta: %d %v", code, meta)
	}
	code, px := post("/tool_router/session/"+id+"/proxy_execute", map[string]any{"toolkit_slug": "gmail", "endpoint": "/gmail/v1/users/me/messages/send", "method": "POST",
		"body": map[string]any{"to": "p@example.com", "subject": "proxied", "body": "b"}})
	if code != 200 {
		t.Fatalf("proxy_execute: %d %v", code, px)
	}
	paths := map[string]int{}
	for _, e := range s.Effects() {
		if e.SessionID == id {
			paths[e.Path]++
		}
	}
	if paths["session.execute"] != 2 || paths["session.proxy_execute"] != 1 {
		t.Errorf("effects of the session by path: %v", paths)
	}
	inner := 0
	for _, l := range s.Executions() {
		if l.SessionID == id && l.Parent != nil && l.Parent.LogID == metaLog && l.Parent.ToolSlug == MultiExecuteTool {
			inner++
		}
	}
	if inner != 2 {
		t.Errorf("%d inner runs logged with the meta run as parent, want 2", inner)
	}
}

// --max-page-size: a logs search above it is refused with a 400 that names the limit.
func TestMaxPageSize(t *testing.T) {
	_, ts := newTestServer(t, Config{Size: 50, Now: testNow, APIKey: "k", MaxPageSize: 20})
	for _, tt := range []struct {
		limit int
		code  int
	}{{20, 200}, {21, 400}, {100, 400}} {
		req, _ := http.NewRequest("POST", ts.URL+"/api/v3.1/logs/tool_execution", bytes.NewReader(fmt.Appendf(nil, `{"limit":%d}`, tt.limit)))
		req.Header.Set("x-api-key", "k")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Message string } `json:"error"`
		}
		json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if res.StatusCode != tt.code || tt.code == 400 && !strings.Contains(body.Error.Message, "limit") {
			t.Errorf("limit %d: %d %q", tt.limit, res.StatusCode, body.Error.Message)
		}
	}
}

// TestSessionResultTypes: a session execution's answer and log carry its result_type:
// completed, failed, and input_required or blocked when nothing ran (no effect).
func TestSessionResultTypes(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	post := func(path string, body any) (int, map[string]any) {
		status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1"+path, body, map[string]string{"x-api-key": "k"})
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return status, m
	}
	_, created := post("/tool_router/session", map[string]any{"user_id": "u-rt", "toolkits": map[string]any{"enable": []string{"gmail"}}})
	id, _ := created["session_id"].(string)
	args := map[string]any{"recipient_email": "rt@example.com", "subject": "rt", "body": "b"}
	for _, tt := range []struct {
		fault FaultMode
		want  string
	}{{"", "completed"}, {FaultInputRequired, "input_required"}, {FaultBlocked, "blocked"}} {
		before := len(s.Effects())
		if tt.fault != "" {
			s.ArmFault(FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: tt.fault, Count: 1})
		}
		code, res := post("/tool_router/session/"+id+"/execute", map[string]any{"tool_slug": "GMAIL_SEND_EMAIL", "arguments": args})
		if code != 200 || res["result_type"] != tt.want {
			t.Fatalf("%s: %d %v", tt.want, code, res)
		}
		if ran := len(s.Effects()) - before; (ran == 1) != (tt.want == "completed") {
			t.Errorf("%s: %d effects", tt.want, ran)
		}
		logID, _ := res["log_id"].(string)
		_, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/logs/tool_execution/"+logID, nil, map[string]string{"x-api-key": "k"})
		if !strings.Contains(string(b), `"result_type":"`+tt.want+`"`) {
			t.Errorf("%s: the log lacks its result_type: %s", tt.want, b)
		}
	}
}
