package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// sentCount counts SENT messages with subject in the account's mailbox, through the read tool
// a verifier would use.
func sentCount(t *testing.T, base, account, subject string) int {
	t.Helper()
	status, ans := runTool(t, base, "GMAIL_FETCH_EMAILS", account,
		map[string]any{"query": `in:sent subject:"` + subject + `"`, "max_results": 50}, nil)
	if status != 200 || !ans.Successful {
		t.Fatalf("GMAIL_FETCH_EMAILS: %d %+v", status, ans)
	}
	msgs, _ := ans.Data["messages"].([]any)
	n := 0
	for _, m := range msgs {
		if m.(map[string]any)["subject"] == subject {
			n++
		}
	}
	return n
}

func TestEachFaultModeFromThePlainHTTPClientsView(t *testing.T) {
	const hold = 150 * time.Millisecond
	cases := []struct {
		mode       FaultMode
		effects    int
		status     int // 0: the connection closes without an answer
		logStatus  string
		logKind    model.ErrorKind
		logHTTP    int
		minElapsed time.Duration
	}{
		{FaultTimeoutAfterCommit, 1, 0, model.StatusSuccess, "", 0, hold},
		{FaultTimeoutBeforeCommit, 0, 0, model.StatusFailed, model.ErrTimeout, 0, hold},
		{Fault5xxAfterCommit, 1, 502, model.StatusFailed, model.ErrUpstream5xx, 502, 0},
		{Fault5xxBeforeCommit, 0, 503, model.StatusFailed, model.ErrUpstream5xx, 503, 0},
		{Fault429, 0, 429, model.StatusFailed, model.ErrRateLimited, 429, 0},
		{FaultDropAfterRead, 0, 0, model.StatusFailed, model.ErrConnection, 0, 0},
		{FaultLatency, 1, 200, model.StatusSuccess, "", 0, 100 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(string(c.mode), func(t *testing.T) {
			cfg := testConfig()
			cfg.Size, cfg.HoldTimeout = 40, hold
			s, ts := newTestServer(t, cfg)
			gm := accountOf(t, s, "gmail")
			status, _, b := doReq(t, ts.URL, "POST", "/_sandbox/faults",
				map[string]any{"tool_slug": "GMAIL_SEND_EMAIL", "mode": c.mode, "count": 1, "latency_ms": map[bool]int{true: 100}[c.mode == FaultLatency]}, nil)
			if status != 201 {
				t.Fatalf("arming: %d %s", status, b)
			}
			before := s.ExecuteCount()
			subject := "fault " + string(c.mode)
			rid := "rid-" + string(c.mode)
			body := map[string]any{"connected_account_id": gm.id, "version": "latest",
				"arguments": map[string]any{"recipient_email": "a@example.org", "subject": subject, "body": "b"}}
			start := time.Now()
			res, err := send(ts.URL, "POST", "/api/v3.1/tools/execute/GMAIL_SEND_EMAIL", body, map[string]string{"x-request-id": rid}, 5*time.Second)
			elapsed := time.Since(start)
			if c.status == 0 {
				if err == nil {
					res.Body.Close()
					t.Fatalf("got an answer %d, want the connection closed", res.StatusCode)
				}
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("client timed out (%v); the sandbox should have closed the connection", err)
				}
			} else {
				if err != nil {
					t.Fatalf("transport error %v", err)
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != c.status {
					t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, raw)
				}
				if c.mode == Fault429 && res.Header.Get("Retry-After") == "" {
					t.Error("429 without retry-after")
				}
				if c.status != 200 {
					var eb struct {
						Error apiError `json:"error"`
					}
					if json.Unmarshal(raw, &eb) != nil || eb.Error.Status != c.status || eb.Error.RequestID != rid {
						t.Errorf("error body %s", raw)
					}
				}
			}
			if elapsed < c.minElapsed {
				t.Errorf("answered after %v, want at least %v", elapsed, c.minElapsed)
			}
			if got := s.ExecuteCount() - before; got != 1 {
				t.Errorf("%d execute requests reached the sandbox, want 1", got)
			}
			if got := len(effectsFor(s, rid)); got != c.effects {
				t.Errorf("%d effects, want %d", got, c.effects)
			}
			if got := sentCount(t, ts.URL, gm.id, subject); got != c.effects {
				t.Errorf("the mailbox shows %d sent messages, want %d", got, c.effects)
			}
			e, ok := logByRequestID(t, ts.URL, rid)
			if !ok {
				t.Fatal("no log record")
			}
			kind, httpStatus := model.ErrorKind(""), 0
			if e.Error != nil {
				kind, httpStatus = e.Error.Kind, e.Error.HTTPStatus
			}
			if e.Status != c.logStatus || kind != c.logKind || httpStatus != c.logHTTP {
				t.Errorf("log status %q kind %q http %d, want %q %q %d", e.Status, kind, httpStatus, c.logStatus, c.logKind, c.logHTTP)
			}
			if c.mode == FaultTimeoutAfterCommit && e.Duration < hold {
				t.Errorf("slow success logged with duration %v < hold %v", e.Duration, hold)
			}
			// The rule had count 1: the next execution is normal.
			status, ans := runTool(t, ts.URL, "GMAIL_SEND_EMAIL", gm.id, map[string]any{"recipient_email": "a@example.org", "subject": subject + " again", "body": "b"}, nil)
			if status != 200 || !ans.Successful {
				t.Fatalf("after the fault: %d %+v", status, ans)
			}
		})
	}
}

func TestTimeoutHoldEndsWhenTheClientGivesUp(t *testing.T) {
	cfg := testConfig()
	cfg.Size, cfg.HoldTimeout = 40, time.Minute
	s, ts := newTestServer(t, cfg)
	sl := accountOf(t, s, "slack")
	s.ArmFault(FaultRule{ToolSlug: "SLACK_SEND_MESSAGE", Mode: FaultTimeoutAfterCommit, Count: 1})
	_, err := send(ts.URL, "POST", "/api/v3.1/tools/execute/SLACK_SEND_MESSAGE",
		map[string]any{"connected_account_id": sl.id, "arguments": map[string]any{"channel": "#general", "text": "held"}},
		map[string]string{"x-request-id": "held-1"}, 300*time.Millisecond)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("want a client timeout, got %v", err)
	}
	e, ok := logByRequestID(t, ts.URL, "held-1")
	if !ok {
		t.Fatal("the sandbox kept holding after the client left")
	}
	if e.Status != "success" || e.Duration < 100*time.Millisecond || e.Duration > 30*time.Second {
		t.Errorf("log %+v", e)
	}
	if len(effectsFor(s, "held-1")) != 1 {
		t.Error("the message was not posted")
	}
}

func TestFaultRulesMatchCountAndClear(t *testing.T) {
	cfg := testConfig()
	cfg.Size = 40
	cfg.Faults = []FaultRule{{ToolSlug: AnyTool, Mode: Fault429, Count: 2}}
	s, ts := newTestServer(t, cfg)
	gm, sl := accountOf(t, s, "gmail"), accountOf(t, s, "slack")
	statusOf := func(slug, acct string, args map[string]any) int {
		st, _ := runTool(t, ts.URL, slug, acct, args, nil)
		return st
	}
	fetch := map[string]any{"query": "is:unread"}
	post := map[string]any{"channel": "#random", "text": "x"}
	if got := []int{statusOf("GMAIL_FETCH_EMAILS", gm.id, fetch), statusOf("SLACK_SEND_MESSAGE", sl.id, post), statusOf("GMAIL_FETCH_EMAILS", gm.id, fetch)}; fmt.Sprint(got) != "[429 429 200]" {
		t.Fatalf("statuses %v, want the wildcard rule to hit twice", got)
	}
	// Unlimited rule for one tool, listed, then cleared.
	if st, _, b := doReq(t, ts.URL, "POST", "/_sandbox/faults", map[string]any{"tool_slug": "slack_send_message", "mode": "5xx_before_commit", "http_status": 504}, nil); st != 201 {
		t.Fatalf("%d %s", st, b)
	}
	for range 3 {
		if st := statusOf("SLACK_SEND_MESSAGE", sl.id, post); st != 504 {
			t.Fatalf("status %d, want 504", st)
		}
	}
	if st := statusOf("GMAIL_FETCH_EMAILS", gm.id, fetch); st != 200 {
		t.Fatalf("another tool got %d", st)
	}
	_, _, b := doReq(t, ts.URL, "GET", "/_sandbox/faults", nil, nil)
	if !strings.Contains(string(b), `"tool_slug":"SLACK_SEND_MESSAGE"`) || !strings.Contains(string(b), `"http_status":504`) {
		t.Fatalf("armed faults: %s", b)
	}
	if st, _, _ := doReq(t, ts.URL, "DELETE", "/_sandbox/faults", nil, nil); st != 200 || len(s.Faults()) != 0 {
		t.Fatal("faults not cleared")
	}
	if st := statusOf("SLACK_SEND_MESSAGE", sl.id, post); st != 200 {
		t.Fatalf("after clearing: %d", st)
	}
	for _, bad := range []map[string]any{{"tool_slug": "X", "mode": "explode"}, {"mode": "429"}, {"tool_slug": "*", "mode": "5xx_after_commit", "http_status": 404}} {
		if st, _, b := doReq(t, ts.URL, "POST", "/_sandbox/faults", bad, nil); st != 400 {
			t.Errorf("%v armed: %d %s", bad, st, b)
		}
	}
	if _, err := New(Config{Size: 1, Faults: []FaultRule{{ToolSlug: "*", Mode: "nope"}}}); err == nil {
		t.Error("New accepted an invalid fault")
	}
}

func TestProxyMapsOntoToolsWithFaults(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	sl, gh := accountOf(t, s, "slack"), accountOf(t, s, "github")
	proxy := func(acct, method, endpoint string, body any, rid string) (int, map[string]any) {
		st, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tools/execute/proxy",
			map[string]any{"connected_account_id": acct, "method": method, "endpoint": endpoint, "body": body}, map[string]string{"x-request-id": rid})
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return st, out
	}
	st, out := proxy(sl.id, "POST", "https://slack.com/api/chat.postMessage", map[string]any{"channel": "#deploys", "text": "via proxy"}, "p-1")
	if st != 200 || out["status"] != float64(201) {
		t.Fatalf("%d %v", st, out)
	}
	if eff := effectsFor(s, "p-1"); len(eff) != 1 || eff[0].ToolSlug != "SLACK_SEND_MESSAGE" {
		t.Fatalf("effects %+v", eff)
	}
	e, ok := logByRequestID(t, ts.URL, "p-1")
	if !ok || !strings.Contains(e.Message, "proxy POST /api/chat.postMessage") {
		t.Fatalf("log %+v", e)
	}
	repo := s.w.accountByID[gh.id].company.github.repos[0]
	s.ArmFault(FaultRule{ToolSlug: ProxyTool, Mode: Fault5xxAfterCommit, Count: 1})
	st, _ = proxy(gh.id, "POST", "/repos/"+repo.owner+"/"+repo.name+"/issues", map[string]any{"title": "proxied issue"}, "p-2")
	if st != 502 || len(effectsFor(s, "p-2")) != 1 {
		t.Fatalf("proxy fault: status %d effects %d", st, len(effectsFor(s, "p-2")))
	}
	before := len(s.Executions())
	st, out = proxy(gh.id, "GET", "/user/emails", nil, "p-3")
	if st != 200 || out["status"] != float64(404) || len(s.Executions()) != before {
		t.Fatalf("unmapped endpoint: %d %v", st, out)
	}
	if s.Stats().ProxyRequests != 3 || s.ExecuteCount() != 3 {
		t.Fatalf("stats %+v", s.Stats())
	}
}

func TestStatsAndEffectsEndpoints(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	sl := accountOf(t, s, "slack")
	runTool(t, ts.URL, "SLACK_SEND_MESSAGE", sl.id, map[string]any{"channel": "#sales", "text": "stats"}, map[string]string{"x-request-id": "st-1"})
	var st Stats
	_, _, b := doReq(t, ts.URL, "GET", "/_sandbox/stats", nil, nil)
	if err := json.Unmarshal(b, &st); err != nil || st.ExecuteRequests != 1 || st.ByTool["SLACK_SEND_MESSAGE"] != 1 || st.Logs != 601 {
		t.Fatalf("stats %s", b)
	}
	_, _, b = doReq(t, ts.URL, "GET", "/_sandbox/effects?request_id=st-1", nil, nil)
	var eff struct {
		Effects []map[string]any `json:"effects"`
	}
	if err := json.Unmarshal(b, &eff); err != nil || len(eff.Effects) != 1 {
		t.Fatalf("effects %s", b)
	}
	for _, k := range []string{"request_id", "tool_slug", "connected_account_id", "argument_hash", "time", "log_id", "object_id"} {
		if v, ok := eff.Effects[0][k]; !ok || v == "" {
			t.Errorf("effect lacks %s: %v", k, eff.Effects[0])
		}
	}
	_, _, b = doReq(t, ts.URL, "GET", "/_sandbox/truth", nil, nil)
	var tr struct {
		Truth []TruthRecord `json:"truth"`
	}
	if err := json.Unmarshal(b, &tr); err != nil || len(tr.Truth) != 600 {
		t.Fatalf("truth: %v %d", err, len(tr.Truth))
	}
}

func TestServerAnswersHTTPNotFoundForHTTPMethodMismatch(t *testing.T) {
	_, ts := newTestServer(t, Config{Size: 1, Now: testNow})
	st, _, b := doReq(t, ts.URL, http.MethodGet, "/api/v3.1/tools/execute/GMAIL_SEND_EMAIL", nil, nil)
	if st != 404 || !strings.Contains(string(b), "Route_NotFound") {
		t.Fatalf("%d %s", st, b)
	}
}

// An execution that fails with an error body names in it the request id its log carries, even
// when the caller sent none: `request:` with what the client saw finds the log.
func TestAnErrorBodyNamesItsLogsRequestID(t *testing.T) {
	for _, mode := range []FaultMode{Fault5xxBeforeCommit, Fault5xxAfterCommit, Fault429} {
		t.Run(string(mode), func(t *testing.T) {
			cfg := testConfig()
			cfg.Size = 40
			s, ts := newTestServer(t, cfg)
			gm := accountOf(t, s, "gmail")
			s.ArmFault(FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: mode, Count: 1})
			status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tools/execute/GMAIL_SEND_EMAIL",
				map[string]any{"connected_account_id": gm.id, "version": "latest",
					"arguments": map[string]any{"recipient_email": "a@example.com", "subject": "request id " + string(mode), "body": "x"}}, nil)
			var body struct {
				Error apiError `json:"error"`
			}
			if status < 400 || json.Unmarshal(b, &body) != nil || body.Error.RequestID == "" {
				t.Fatalf("status %d, body %s: want an error naming a request id", status, b)
			}
			if _, ok := logByRequestID(t, ts.URL, body.Error.RequestID); !ok {
				t.Errorf("no log carries the request id %s the error body names", body.Error.RequestID)
			}
		})
	}
}
