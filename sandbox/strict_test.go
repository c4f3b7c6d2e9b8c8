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
// tests; a lenient sandbox accepts it, for the tests that need that (issue 28).
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
// effect (issue 28: the logs endpoints never said 429).
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
	if status != 429 || h.Get("Retry-After") == "" || h.Get("X-RateLimit-Remaining") != "0" || !strings.Contains(string(b), "RateLimit_Exceeded") {
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
