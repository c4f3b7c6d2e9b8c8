package sandbox

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestAnApprovalRoundTrip walks a session's approval as @composio/core 0.25.0 makes it: the
// first call answers input_required with input_requests and a request_state and runs nothing;
// the same call made again with the state and approving responses runs once; a second approved
// re-call runs again (the platform does not use a state up: a duplicate); a state is refused
// for another call, without its answers, once expired, or unknown; a denial runs nothing.
func TestAnApprovalRoundTrip(t *testing.T) {
	s, ts := newTestServer(t, Config{Size: -1, Now: testNow, APIKey: "k", Approvals: []string{"GMAIL_SEND_EMAIL", "destructiveHint"}, ApprovalTTL: time.Hour})
	hdr := map[string]string{"x-api-key": "k"}
	post := func(path string, body any) (int, map[string]json.RawMessage) {
		t.Helper()
		code, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tool_router/session"+path, body, hdr)
		return code, decodeMap(t, b)
	}
	_, created := post("", map[string]any{"user_id": "u-approve"})
	var sid string
	_ = json.Unmarshal(created["session_id"], &sid)
	args := map[string]any{"recipient_email": "ann@example.com", "subject": "Invoice 7", "body": "Attached."}
	exec := func(extra map[string]any) (int, map[string]json.RawMessage) {
		body := map[string]any{"tool_slug": "GMAIL_SEND_EMAIL", "arguments": args}
		maps.Copy(body, extra)
		return post("/"+sid+"/execute", body)
	}
	sends := func() int {
		n := 0
		for _, e := range s.Effects() {
			if e.SessionID == sid {
				n++
			}
		}
		return n
	}

	code, ask := exec(nil)
	var rt, state string
	_ = json.Unmarshal(ask["result_type"], &rt)
	_ = json.Unmarshal(ask["request_state"], &state)
	var reqs []map[string]any
	_ = json.Unmarshal(ask["input_requests"], &reqs)
	if code != 200 || rt != "input_required" || !strings.HasPrefix(state, "rs_") || len(reqs) != 1 || reqs[0]["type"] != "approval" || reqs[0]["expires_at"] == nil {
		t.Fatalf("first call: %d %s", code, ask)
	}
	if n := sends(); n != 0 {
		t.Fatalf("a call that waits for approval ran: %d effects", n)
	}
	reqID, _ := reqs[0]["id"].(string)
	yes := []map[string]any{{"id": reqID, "approved": true}}

	refused := []struct {
		name  string
		extra map[string]any
		slug  string
	}{
		{"unknown state", map[string]any{"request_state": "rs_nope", "input_responses": yes}, "ToolRouter_InvalidRequestState"},
		{"answers missing", map[string]any{"request_state": state}, "ToolRouter_InputResponsesMissing"},
		{"answers without a state", map[string]any{"input_responses": yes}, "ToolRouter_MissingRequestState"},
		{"another request answered", map[string]any{"request_state": state, "input_responses": []map[string]any{{"id": "ir_other", "approved": true}}}, "ToolRouter_InputResponsesMissing"},
		{"not a list", map[string]any{"request_state": state, "input_responses": "yes"}, "ToolRouter_InvalidInputResponses"},
	}
	for _, tt := range refused {
		code, out := exec(tt.extra)
		if code != 400 || !strings.Contains(string(out["error"]), tt.slug) {
			t.Errorf("%s: %d %s, want 400 %s", tt.name, code, out["error"], tt.slug)
		}
	}
	other := map[string]any{"tool_slug": "GMAIL_SEND_EMAIL", "arguments": map[string]any{"recipient_email": "bob@example.com", "subject": "Invoice 7", "body": "Attached."},
		"request_state": state, "input_responses": yes}
	if code, out := post("/"+sid+"/execute", other); code != 400 || !strings.Contains(string(out["error"]), "ToolRouter_RequestStateMismatch") {
		t.Errorf("the state for other arguments: %d %s", code, out["error"])
	}
	if code, out := exec(map[string]any{"request_state": state, "input_responses": yes, "approve_all": true}); code != 400 {
		t.Errorf("an unknown key beside the state: %d %s", code, out["error"])
	}
	if n := sends(); n != 0 {
		t.Fatalf("refused re-calls ran: %d effects", n)
	}

	var logIDs []string
	for range 2 { // the approved re-call, then the same again: the second is a duplicate send
		code, out := exec(map[string]any{"request_state": state, "input_responses": yes})
		var id string
		_ = json.Unmarshal(out["result_type"], &rt)
		_ = json.Unmarshal(out["log_id"], &id)
		if code != 200 || rt != "completed" {
			t.Fatalf("approved re-call: %d %v", code, out)
		}
		logIDs = append(logIDs, id)
	}
	if n := sends(); n != 2 {
		t.Fatalf("two approved re-calls made %d effects, want 2", n)
	}
	var askID string
	_ = json.Unmarshal(ask["log_id"], &askID)
	byID := map[string]model.Execution{}
	for _, e := range s.Executions() {
		byID[e.ID] = e
	}
	asker := byID[askID]
	if asker.Status != model.StatusFailed || !strings.Contains(string(asker.Response), `"request_state":"`+state+`"`) || !strings.Contains(string(asker.Response), `"input_requests"`) {
		t.Errorf("the asking call's log: %s %s", asker.Status, asker.Response)
	}
	for _, id := range logIDs {
		e := byID[id]
		if e.Status != model.StatusSuccess || e.Approval == nil || e.Approval.RequestState != state || !strings.Contains(string(e.Approval.Responses), reqID) {
			t.Errorf("the re-call %s's log: %s %+v", id, e.Status, e.Approval)
		}
	}
	// what the Logs API serves carries it too: the detail's data.request
	code, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/logs/tool_execution/"+logIDs[0], nil, hdr)
	if code != 200 || !strings.Contains(string(b), `"request_state":"`+state+`"`) {
		t.Errorf("the re-call's detail: %d %s", code, b)
	}

	// a denial runs nothing; a tool the rules do not name runs at once
	_, ask2 := exec(nil)
	var state2 string
	_ = json.Unmarshal(ask2["request_state"], &state2)
	_ = json.Unmarshal(ask2["input_requests"], &reqs)
	id2, _ := reqs[0]["id"].(string)
	if code, out := exec(map[string]any{"request_state": state2, "input_responses": []map[string]any{{"id": id2, "approved": false}}}); code != 200 || !strings.Contains(string(out["result_type"]), "failed") {
		t.Errorf("a denial: %d %v", code, out)
	}
	if n := sends(); n != 2 {
		t.Errorf("a denied call ran: %d effects", n)
	}
	code, out := post("/"+sid+"/execute", map[string]any{"tool_slug": "SLACK_SEND_MESSAGE", "arguments": map[string]any{"channel": "#general", "text": "hi"}})
	if code != 200 || !strings.Contains(string(out["result_type"]), "completed") {
		t.Errorf("a tool no rule names: %d %v", code, out)
	}
}

// TestAnApprovalRequestExpires: a request_state past its time is refused, and nothing runs.
func TestAnApprovalRequestExpires(t *testing.T) {
	s, ts := newTestServer(t, Config{Size: -1, Now: testNow, APIKey: "k", Approvals: []string{"gmail"}, ApprovalTTL: 30 * time.Millisecond})
	hdr := map[string]string{"x-api-key": "k"}
	_, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tool_router/session", map[string]any{"user_id": "u-late"}, hdr)
	var sid string
	_ = json.Unmarshal(decodeMap(t, b)["session_id"], &sid)
	body := map[string]any{"tool_slug": "GMAIL_SEND_EMAIL", "arguments": map[string]any{"recipient_email": "ann@example.com", "subject": "s", "body": "b"}}
	_, _, b = doReq(t, ts.URL, "POST", "/api/v3.1/tool_router/session/"+sid+"/execute", body, hdr)
	var ask struct {
		State    string `json:"request_state"`
		Requests []struct {
			ID string `json:"id"`
		} `json:"input_requests"`
	}
	if err := json.Unmarshal(b, &ask); err != nil || ask.State == "" || len(ask.Requests) != 1 {
		t.Fatalf("first call: %s", b)
	}
	time.Sleep(60 * time.Millisecond) // twice the TTL
	body["request_state"], body["input_responses"] = ask.State, []map[string]any{{"id": ask.Requests[0].ID, "approved": true}}
	code, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tool_router/session/"+sid+"/execute", body, hdr)
	if code != 400 || !strings.Contains(string(b), "ToolRouter_RequestStateExpired") {
		t.Errorf("an expired state: %d %s", code, b)
	}
	if n := len(s.Effects()); n != 0 {
		t.Errorf("%d effects after an expired approval", n)
	}
}
