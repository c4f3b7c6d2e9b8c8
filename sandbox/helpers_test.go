package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// testNow is where test histories end.
var testNow = time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC)

func testConfig() Config {
	return Config{Seed: 7, Size: 600, Now: testNow, HoldTimeout: 200 * time.Millisecond}
}

// newTestServer serves a sandbox on a loopback httptest server; both close at test end.
func newTestServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = s.Close() }) // runs first: releases held requests
	return s, ts
}

// call does one request with a fresh connection and returns status, headers and body. A
// transport error fails the test.
func doReq(t *testing.T, base, method, path string, body any, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	res, err := send(base, method, path, body, hdr, 10*time.Second)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return res.StatusCode, res.Header, b
}

// send does one request on a fresh, non-reused connection with plain net/http.
func send(base, method, path string, body any, hdr map[string]string, timeout time.Duration) (*http.Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if _, ok := hdr["x-api-key"]; !ok {
		req.Header.Set("x-api-key", "test-key")
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	return c.Do(req)
}

func decodeMap(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, b)
	}
	return m
}

func keysOf(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// listAll pages through POST /logs/tool_execution and returns every record and page count.
func listAll(t *testing.T, base string, body map[string]any) ([]model.Execution, int) {
	t.Helper()
	var out []model.Execution
	cursor := ""
	for pages := 1; ; pages++ {
		req := map[string]any{"limit": 100}
		maps.Copy(req, body)
		if cursor != "" {
			req["cursor"] = cursor
		}
		status, _, b := doReq(t, base, "POST", "/api/v3.1/logs/tool_execution", req, nil)
		if status != 200 {
			t.Fatalf("logs: status %d: %s", status, b)
		}
		page, err := model.ParseLogsPage(b)
		if err != nil || len(page.Bad) > 0 {
			t.Fatalf("logs page: %v %v", err, page.Bad)
		}
		out = append(out, page.Executions...)
		if page.NextCursor == "" {
			return out, pages
		}
		if pages > 10000 {
			t.Fatal("paging does not end")
		}
		cursor = page.NextCursor
	}
}

// runTool executes a tool through the API and returns the decoded answer.
func runTool(t *testing.T, base, slug, account string, args any, hdr map[string]string) (int, toolAnswer) {
	t.Helper()
	status, _, b := doReq(t, base, "POST", "/api/v3.1/tools/execute/"+slug,
		map[string]any{"connected_account_id": account, "arguments": args, "version": "latest"}, hdr)
	var ans toolAnswer
	if status == 200 {
		if err := json.Unmarshal(b, &ans); err != nil {
			t.Fatalf("%s answer: %v: %s", slug, err, b)
		}
	}
	return status, ans
}

type toolAnswer struct {
	Data       map[string]any `json:"data"`
	Error      *string        `json:"error"`
	Successful bool           `json:"successful"`
	LogID      string         `json:"log_id"`
}

// accountOf returns an ACTIVE account of the toolkit from the generated world.
func accountOf(t *testing.T, s *Server, toolkit string) *account {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.w.accounts {
		if a.toolkit == toolkit && a.status == "ACTIVE" {
			return a
		}
	}
	t.Fatalf("no active %s account", toolkit)
	return nil
}

// logByRequestID finds the live log record of a request id, waiting up to 3 s for it.
func logByRequestID(t *testing.T, base, rid string) (model.Execution, bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		status, _, b := doReq(t, base, "POST", "/api/v3.1/logs/tool_execution",
			map[string]any{"filters": []map[string]any{{"field": "request_id", "operator": "==", "value": rid}}}, nil)
		if status != 200 {
			t.Fatalf("logs: %d %s", status, b)
		}
		page, err := model.ParseLogsPage(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Executions) > 1 {
			t.Fatalf("request id %s has %d log records", rid, len(page.Executions))
		}
		if len(page.Executions) == 1 {
			_, _, d := doReq(t, base, "GET", "/api/v3.1/logs/tool_execution/"+page.Executions[0].ID, nil, nil)
			e, err := model.ParseRecord(d)
			if err != nil {
				t.Fatal(err)
			}
			return e, true
		}
		if time.Now().After(deadline) {
			return model.Execution{}, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func effectsFor(s *Server, rid string) []Effect {
	var out []Effect
	for _, e := range s.Effects() {
		if e.RequestID == rid {
			out = append(out, e)
		}
	}
	return out
}
