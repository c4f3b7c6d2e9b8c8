package sandbox

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTheSandboxRefusesWhatThePlatformRefuses: what the real API documents against is a
// refusal here too, with its error body, so a client or a verifier that sends it fails its own
// tests; a lenient sandbox accepts it, for the tests that need that.
func TestTheSandboxRefusesWhatThePlatformRefuses(t *testing.T) {
	now := time.Now()
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	logs := "/api/v3.1/logs/tool_execution"
	type c struct {
		name, method, path string
		body               any
		hdr                map[string]string
		status             int
		says               string
	}
	cases := []c{
		{"both auth headers", "GET", "/api/v3.1/tools", nil, map[string]string{"x-api-key": "k", "x-user-api-key": "u"}, 401, "Multiple authentication modes"},
		{"a one-sided time range", "POST", logs, map[string]any{"time_range": map[string]any{"from": ms(now.Add(-time.Hour))}}, nil, 400, "time_range.to: required"},
		{"ISO times", "POST", logs, map[string]any{"time_range": map[string]any{"from": "2026-03-01T00:00:00Z", "to": "2026-03-02T00:00:00Z"}}, nil, 400, "not a string"},
		{"epoch seconds", "POST", logs, map[string]any{"time_range": map[string]any{"from": now.Add(-time.Hour).Unix(), "to": now.Unix()}}, nil, 400, "epoch seconds?"},
		{"a numeric filter value", "POST", logs, map[string]any{"filters": []any{map[string]any{"field": "user_id", "operator": "==", "value": 7}}}, nil, 400, "must be a string"},
		{"an unknown body key", "POST", logs, map[string]any{"limit": 5, "page": 2}, nil, 400, "unknown field(s) in the request body: page"},
		{"the logs under /api/v3", "POST", "/api/v3/logs/tool_execution", map[string]any{}, nil, 404, "no such endpoint"},
		{"an unknown tool argument", "POST", "/api/v3.1/tools/execute/GMAIL_FETCH_EMAILS", map[string]any{"user_id": "u1", "arguments": map[string]any{"query": "x", "bogus_arg": 1}}, nil, 400, "GMAIL_FETCH_EMAILS does not take bogus_arg"},
		{"an unknown execute key", "POST", "/api/v3.1/tools/execute/GMAIL_FETCH_EMAILS", map[string]any{"user_id": "u1", "arguments": map[string]any{}, "idempotency_key": "x"}, nil, 400, "idempotency_key"},
		{"a good search", "POST", logs, map[string]any{"limit": 5, "time_range": map[string]any{"from": ms(now.Add(-240 * time.Hour)), "to": ms(now)},
			"filters": []any{map[string]any{"field": "toolkit_slug", "operator": "==", "value": "gmail"}}}, nil, 200, `"logs"`},
	}
	for _, lenient := range []bool{false, true} {
		cfg := testConfig()
		cfg.Size, cfg.Lenient = 200, lenient
		_, ts := newTestServer(t, cfg)
		for _, tt := range cases {
			status, _, b := doReq(t, ts.URL, tt.method, tt.path, tt.body, tt.hdr)
			switch {
			case !lenient && (status != tt.status || !strings.Contains(string(b), tt.says)):
				t.Errorf("strict, %s: %d %s; want %d and %q", tt.name, status, b, tt.status, tt.says)
			case lenient && status >= 400 && tt.name != "epoch seconds":
				t.Errorf("lenient, %s: %d %s", tt.name, status, b)
			}
			if !lenient && status >= 400 {
				var body struct {
					Error apiError `json:"error"`
				}
				if json.Unmarshal(b, &body) != nil || body.Error.Status != status || body.Error.Message == "" || body.Error.RequestID == "" {
					t.Errorf("%s: the error body is not the platform's: %s", tt.name, b)
				}
			}
		}
	}
}

// TestACursorBelongsToItsQuery: a logs cursor replayed under other filters or another time
// range is refused (the docs say to keep them for every page); under the same ones it pages.
func TestACursorBelongsToItsQuery(t *testing.T) {
	cfg := testConfig()
	cfg.Size = 300
	_, ts := newTestServer(t, cfg)
	from, to := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := map[string]any{"from": from.UnixMilli(), "to": to.UnixMilli()}
	first := map[string]any{"limit": 10, "time_range": tr}
	status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", first, nil)
	var page struct {
		NextCursor string `json:"next_cursor"`
	}
	if status != 200 || json.Unmarshal(b, &page) != nil || page.NextCursor == "" {
		t.Fatalf("first page: %d %s", status, b)
	}
	same := map[string]any{"limit": 10, "time_range": tr, "cursor": page.NextCursor}
	if status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", same, nil); status != 200 {
		t.Fatalf("the next page of the same query: %d %s", status, b)
	}
	other := map[string]any{"limit": 10, "time_range": map[string]any{"from": from.Add(time.Hour).UnixMilli(), "to": to.UnixMilli()}, "cursor": page.NextCursor}
	if status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", other, nil); status != 400 || !strings.Contains(string(b), "other filters or another time_range") {
		t.Fatalf("a cursor under another time range: %d %s", status, b)
	}
	filtered := map[string]any{"limit": 10, "time_range": tr, "cursor": page.NextCursor,
		"filters": []any{map[string]any{"field": "status", "operator": "==", "value": "failed"}}}
	if status, _, _ := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", filtered, nil); status != 400 {
		t.Fatalf("a cursor under other filters: %d", status)
	}
}

// TestRateLimitHeadersAnd429: with a rate limit, every API answer says where the budget
// stands, and a request past it is 429 with Retry-After, the platform's error body and no
// effect (the logs endpoints never said 429).
func TestRateLimitHeadersAnd429(t *testing.T) {
	cfg := testConfig()
	cfg.Size, cfg.RateLimit, cfg.RateLimitWindow = 50, 3, time.Hour
	s, ts := newTestServer(t, cfg)
	body := map[string]any{"limit": 5}
	for i := range 3 {
		status, h, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", body, nil)
		if status != 200 || h.Get("X-RateLimit") != "3" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) || h.Get("X-RateLimit-Window-Size") != "3600s" {
			t.Fatalf("request %d: %d %v %s", i, status, h, b)
		}
	}
	status, h, b := doReq(t, ts.URL, "GET", "/api/v3.1/tools", nil, nil)
	if status != 429 || h.Get("Retry-After") == "" || h.Get("X-RateLimit-Remaining") != "0" || !strings.Contains(string(b), `{"message":"Rate limit exceeded. Limit: 3 requests per 60 minutes"}`) {
		t.Fatalf("past the budget: %d %v %s", status, h, b)
	}
	if s.RateLimited() != 1 {
		t.Errorf("RateLimited = %d", s.RateLimited())
	}
	// the control endpoints are not the API's: never limited
	if status, _, _ := doReq(t, ts.URL, "GET", "/_sandbox/stats", nil, nil); status != 200 {
		t.Errorf("control under the limit: %d", status)
	}
}

// TestTheTriggerLogs: the trigger logs answer in @composio/client's shape, page
// through every delivery once (nextCursor null at the end), leave the payloads out when asked,
// carry each delivery's event id in its client payload (the same on a redelivery) and its
// handler's error, and refuse what the typed body does not have.
func TestTheTriggerLogs(t *testing.T) {
	cfg := testConfig()
	cfg.Size, cfg.Events = 2000, true
	srv, ts := newTestServer(t, cfg)
	path := "/api/v3.1/internal/trigger/logs"
	want := map[string]string{} // delivery id -> event id
	for _, e := range srv.Executions() {
		if e.Delivery != nil {
			want[e.ID] = e.Delivery.EventID
		}
	}
	type entry struct {
		ID       string `json:"id"`
		EntityID string `json:"entityId"`
		Status   string `json:"status"`
		Type     string `json:"type"`
		Meta     struct {
			TriggerClientPayload *string `json:"triggerClientPayload"`
			TriggerClientError   string  `json:"triggerClientError"`
			TriggerNanoID        string  `json:"triggerNanoId"`
		} `json:"meta"`
	}
	got := map[string]string{}
	events := map[string]int{}
	var cursor any
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("the trigger logs never end")
		}
		status, _, b := doReq(t, ts.URL, "POST", path, map[string]any{"limit": 7, "cursor": cursor, "include_payload": true}, nil)
		var p struct {
			NextCursor *string `json:"nextCursor"`
			Data       []entry `json:"data"`
		}
		if status != 200 || json.Unmarshal(b, &p) != nil {
			t.Fatalf("page %d: %d %s", pages, status, b)
		}
		for _, e := range p.Data {
			if _, dup := got[e.ID]; dup || e.Type != "trigger" || e.EntityID == "" || e.Meta.TriggerNanoID == "" || e.Meta.TriggerClientPayload == nil {
				t.Fatalf("entry %+v (seen before: %v)", e, dup)
			}
			var payload struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal([]byte(*e.Meta.TriggerClientPayload), &payload); err != nil {
				t.Fatalf("the client payload is no JSON object: %v", err)
			}
			got[e.ID] = payload.ID
			events[payload.ID]++
			if (e.Status == "error") != (e.Meta.TriggerClientError != "") {
				t.Errorf("entry %s: status %s with error %q", e.ID, e.Status, e.Meta.TriggerClientError)
			}
		}
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	if len(got) != len(want) {
		t.Fatalf("%d deliveries listed, want %d", len(got), len(want))
	}
	redelivered := 0
	for id, ev := range want {
		if got[id] != ev {
			t.Errorf("delivery %s: event %q, want %q", id, got[id], ev)
		}
	}
	for _, n := range events {
		if n > 1 {
			redelivered++
		}
	}
	if redelivered < 2 {
		t.Errorf("%d redelivered events, want 2 or more", redelivered)
	}
	// without payloads; one by id; refusals
	_, _, b := doReq(t, ts.URL, "POST", path, map[string]any{"limit": 3, "include_payload": false}, nil)
	if strings.Contains(string(b), "triggerClientPayload") {
		t.Errorf("include_payload false still sends the payloads: %s", b)
	}
	for id := range want {
		if status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/internal/trigger/log/"+id, nil, nil); status != 200 || !strings.Contains(string(b), `"log"`) {
			t.Errorf("GET %s: %d %s", id, status, b)
		}
		break
	}
	for _, c := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"POST", path, map[string]any{"limit": 0}, 400},
		{"POST", path, map[string]any{"limit": 101}, 400},
		{"POST", path, map[string]any{"page": 2}, 400},
		{"POST", path, map[string]any{"cursor": "x"}, 400},
		{"GET", "/api/v3.1/internal/trigger/log/log_nope", nil, 404},
	} {
		if status, _, b := doReq(t, ts.URL, c.method, c.path, c.body, nil); status != c.status {
			t.Errorf("%s %s %v: %d %s, want %d", c.method, c.path, c.body, status, b, c.status)
		}
	}
}

// TestTheEdgeLimit: past the edge's burst limit every API request is answered the edge's 429,
// with no rate-limit header and no Retry-After, until the block passes (docs/platform.md, "Rate limits");
// then requests pass again.
func TestTheEdgeLimit(t *testing.T) {
	cfg := testConfig()
	cfg.Size, cfg.EdgeLimit, cfg.EdgeWindow, cfg.EdgeBlock = 20, 3, time.Hour, 300*time.Millisecond
	s, ts := newTestServer(t, cfg)
	for i := range 3 {
		if status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/tools", nil, nil); status != 200 {
			t.Fatalf("request %d: %d %s", i, status, b)
		}
	}
	for i := range 2 {
		status, h, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", map[string]any{"limit": 5}, nil)
		if status != 429 || strings.TrimSpace(string(b)) != `{"code":10429,"slug":"HTTP_TooManyRequests"}` ||
			h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") != "" || h.Get("X-RateLimit") != "" {
			t.Fatalf("blocked request %d: %d %v %s", i, status, h, b)
		}
	}
	time.Sleep(350 * time.Millisecond)
	if status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/tools", nil, nil); status != 200 {
		t.Fatalf("after the block: %d %s", status, b)
	}
	if s.EdgeRefused() != 2 {
		t.Errorf("EdgeRefused = %d, want 2", s.EdgeRefused())
	}
}
