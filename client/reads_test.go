package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// logsBodySeen is the part of a Logs API request body the fake server checks.
type logsBodySeen struct {
	Limit     int             `json:"limit"`
	Cursor    *string         `json:"cursor"`
	TimeRange json.RawMessage `json:"time_range"`
	Filters   json.RawMessage `json:"filters"`
}

// fakeHistory serves n records in the Logs API list shape; the cursor is the offset.
func fakeHistory(t *testing.T, n int) (*recorder, string) {
	t.Helper()
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	records := make([]model.WireRecord, n)
	for i := range records {
		e := model.Execution{
			ID:          fmt.Sprintf("log_%04d", i),
			Timestamp:   base.Add(time.Duration(i) * time.Second),
			ToolSlug:    "GMAIL_SEND_EMAIL",
			ToolkitSlug: "gmail",
			Status:      model.StatusSuccess,
			RetryCount:  -1,
		}
		records[i] = model.ToWire(&e, false)
	}
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, rec recorded) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v3.1/logs/tool_execution" {
			writeJSON(w, 404, `{"error":{"message":"no route"}}`)
			return
		}
		var body logsBodySeen
		if err := json.Unmarshal(rec.Body, &body); err != nil || body.Limit < 1 || body.Limit > 100 {
			writeJSON(w, 400, `{"error":{"message":"bad body"}}`)
			return
		}
		from := 0
		if body.Cursor != nil {
			from, _ = strconv.Atoi(*body.Cursor)
		}
		to := min(from+body.Limit, n)
		var next any // null at the end
		if to < n {
			next = strconv.Itoa(to)
		}
		out, _ := json.Marshal(map[string]any{"logs": records[from:to], "next_cursor": next})
		writeJSON(w, 200, string(out))
	})
	return rc, srv.URL
}

func TestListLogsWalksAll1000Records(t *testing.T) {
	rc, base := fakeHistory(t, 1000)
	c := newTestClient(t, base)
	from := time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)
	q := LogQuery{From: from, Filters: []LogFilter{{Field: "toolkit_slug", Value: "gmail"}}}
	var ids []string
	pages := 0
	for page, err := range c.ListLogs(t.Context(), q) {
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		pages++
		if len(page.Bad) > 0 {
			t.Fatalf("bad records: %v", page.Bad)
		}
		for _, e := range page.Executions {
			ids = append(ids, e.ID)
		}
	}
	if pages != 10 || len(ids) != 1000 {
		t.Fatalf("got %d pages, %d records; want 10 pages, 1000 records", pages, len(ids))
	}
	for i, id := range ids {
		if want := fmt.Sprintf("log_%04d", i); id != want {
			t.Fatalf("record %d = %s, want %s", i, id, want)
		}
	}
	reqs := rc.all()
	if len(reqs) != 10 {
		t.Fatalf("requests = %d, want 10", len(reqs))
	}
	var to string
	for i, r := range reqs {
		var b logsBodySeen
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Limit != 100 {
			t.Errorf("request %d: limit %d, want 100", i, b.Limit)
		}
		if (i == 0) != (b.Cursor == nil) {
			t.Errorf("request %d: cursor %v", i, b.Cursor)
		}
		if got := string(b.Filters); got != `[{"field":"toolkit_slug","operator":"==","value":"gmail"}]` {
			t.Errorf("request %d: filters %s", i, got)
		}
		// One "now" per walk: every page asks for the same range.
		if i == 0 {
			to = string(b.TimeRange)
		} else if string(b.TimeRange) != to {
			t.Errorf("request %d: time_range %s, first page had %s", i, b.TimeRange, to)
		}
	}
	if !strings.HasPrefix(to, fmt.Sprintf(`{"from":%d,"to":`, from.UnixMilli())) {
		t.Errorf("time_range = %s", to)
	}
}

func TestListLogsEarlyBreakStopsRequests(t *testing.T) {
	rc, base := fakeHistory(t, 1000)
	c := newTestClient(t, base)
	pages := 0
	for _, err := range c.ListLogs(t.Context(), LogQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if pages == 3 {
			break
		}
	}
	if got := rc.count(); got != 3 {
		t.Errorf("requests = %d after breaking at page 3, want 3", got)
	}
}

func TestListLogsStopsOnRepeatedCursor(t *testing.T) {
	for _, cursors := range [][]string{{"same", "same"}, {"a", "b", "a"}} {
		t.Run(strings.Join(cursors, ","), func(t *testing.T) {
			srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
				writeJSON(w, 200, fmt.Sprintf(`{"logs":[{"id":"log_%d"}],"next_cursor":%q}`, n, cursors[min(n, len(cursors))-1]))
			})
			c := newTestClient(t, srv.URL)
			var pages int
			var last error
			for _, err := range c.ListLogs(t.Context(), LogQuery{}) {
				if err != nil {
					last = err
					continue // the iterator must end by itself
				}
				pages++
			}
			if last == nil || !strings.Contains(last.Error(), "a second time") {
				t.Fatalf("err = %v, want a repeated-cursor error", last)
			}
			if pages != len(cursors) || rc.count() != len(cursors) {
				t.Errorf("pages = %d, requests = %d, want %d each", pages, rc.count(), len(cursors))
			}
		})
	}
}

func TestListLogsStopsAtFirstError(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		if n == 3 {
			writeJSON(w, 400, `{"error":{"message":"bad cursor","code":1400}}`)
			return
		}
		writeJSON(w, 200, fmt.Sprintf(`{"logs":[{"id":"log_%d"}],"next_cursor":"c%d"}`, n, n))
	})
	c := newTestClient(t, srv.URL)
	var pages, errs int
	for _, err := range c.ListLogs(t.Context(), LogQuery{}) {
		if err != nil {
			errs++
			var api *APIError
			if !errors.As(err, &api) || api.StatusCode != 400 {
				t.Errorf("err = %v, want *APIError 400", err)
			}
			continue
		}
		pages++
	}
	if pages != 2 || errs != 1 || rc.count() != 3 {
		t.Errorf("pages=%d errors=%d requests=%d, want 2, 1, 3", pages, errs, rc.count())
	}
}

func TestListLogsStopsWhenContextEnds(t *testing.T) {
	rc, base := fakeHistory(t, 1000)
	c := newTestClient(t, base)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []error
	for _, err := range c.ListLogs(ctx, LogQuery{}) {
		got = append(got, err)
		cancel()
	}
	if len(got) != 2 || got[0] != nil || !errors.Is(got[1], context.Canceled) {
		t.Fatalf("yields = %v, want one page then context.Canceled", got)
	}
	if rc.count() != 1 {
		t.Errorf("requests = %d, want 1", rc.count())
	}
}

func TestLogQueryBody(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000).UTC()
	from := now.Add(-time.Hour)
	for _, tc := range []struct {
		name   string
		q      LogQuery
		cursor string
		want   string
	}{
		{"defaults", LogQuery{}, "", `{"limit":100,"cursor":null}`},
		{"limit kept", LogQuery{Limit: 20}, "", `{"limit":20,"cursor":null}`},
		{"limit clamped", LogQuery{Limit: 500}, "abc", `{"limit":100,"cursor":"abc"}`},
		{"open end is now", LogQuery{From: from}, "", fmt.Sprintf(`{"limit":100,"cursor":null,"time_range":{"from":%d,"to":%d}}`, from.UnixMilli(), now.UnixMilli())},
		{"only to", LogQuery{To: now}, "", fmt.Sprintf(`{"limit":100,"cursor":null,"time_range":{"to":%d}}`, now.UnixMilli())},
		{"filters", LogQuery{Filters: []LogFilter{{"request_id", "", "r1"}, {"status", "!=", "success"}}}, "",
			`{"limit":100,"cursor":null,"filters":[{"field":"request_id","operator":"==","value":"r1"},{"field":"status","operator":"!=","value":"success"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.q.withDefaults(now).body(tc.cursor)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("body = %s\nwant   %s", b, tc.want)
			}
		})
	}
}

func TestGetLogParsesDetail(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, `{"id":"log_a/b","timestamp":"2026-03-01T10:00:00.000Z","status":"failed",
			"metadata":{"tool_slug":"GMAIL_SEND_EMAIL","toolkit_slug":"gmail"},
			"timings":{"start_time":1772359200000,"end_time":1772359260000},
			"context":{"request_id":"req-1"},
			"data":{"request":{"arguments":{"to":"a@b.c"}},"error":{"message":"timed out","kind":"timeout"}}}`)
	})
	c := newTestClient(t, srv.URL)
	e, err := c.GetLog(t.Context(), "log_a/b")
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "log_a/b" || e.ToolSlug != "GMAIL_SEND_EMAIL" || e.RequestID != "req-1" || !e.Detailed ||
		e.Error == nil || e.Error.Kind != model.ErrTimeout || e.Duration != time.Minute {
		t.Errorf("execution = %+v", e)
	}
	if r := rc.all()[0]; r.Method != http.MethodGet || r.Path != "/api/v3.1/logs/tool_execution/log_a/b" {
		t.Errorf("request = %s %s", r.Method, r.Path)
	}
	if got := rc.all()[0].EscapedPath; got != "/api/v3.1/logs/tool_execution/log_a%2Fb" {
		t.Errorf("escaped path = %s", got)
	}
}

func TestGetToolParsesDefinition(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, toolJSON)
	})
	c := newTestClient(t, srv.URL)
	tool, err := c.GetTool(t.Context(), "GMAIL_FETCH_EMAILS")
	if err != nil {
		t.Fatal(err)
	}
	if tool.Slug != "GMAIL_FETCH_EMAILS" || tool.ToolkitSlug != "gmail" || tool.Version != "20250909_00" ||
		!tool.HasTag("readOnlyHint") || len(tool.Tags) != 2 || string(tool.InputParameters) != `{"type":"object"}` {
		t.Errorf("tool = %+v", tool)
	}
	if r := rc.all()[0]; r.Path != "/api/v3.1/tools/GMAIL_FETCH_EMAILS" {
		t.Errorf("path = %s", r.Path)
	}
}

func TestGetToolToleratesOddFields(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, `{"name":7,"toolkit":"gmail","tags":["idempotentHint",3,null,{"x":1}],"input_parameters":"nope","version":null}`)
	})
	c := newTestClient(t, srv.URL)
	tool, err := c.GetTool(t.Context(), "GMAIL_ADD_LABEL_TO_EMAIL")
	if err != nil {
		t.Fatal(err)
	}
	if tool.Slug != "GMAIL_ADD_LABEL_TO_EMAIL" || tool.ToolkitSlug != "gmail" || tool.Name != "7" ||
		len(tool.InputParameters) != 0 || !tool.HasTag("idempotentHint") || !tool.HasTag("3") || len(tool.Tags) != 2 {
		t.Errorf("tool = %+v", tool)
	}
}

func TestListToolsFollowsPages(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		switch r.URL.Query().Get("cursor") {
		case "":
			writeJSON(w, 200, `{"items":[`+toolJSON+`,{"slug":"GMAIL_SEND_EMAIL","toolkit":{"slug":"gmail"},"tags":[]}],"next_cursor":"p2","total_pages":2,"current_page":1,"total_items":3}`)
		default:
			writeJSON(w, 200, `{"items":[{"slug":"GMAIL_DELETE_MESSAGE","toolkit":{"slug":"gmail"},"tags":["destructiveHint"]},"junk"],"next_cursor":null,"total_pages":2,"current_page":2,"total_items":3}`)
		}
	})
	c := newTestClient(t, srv.URL)
	tools, err := c.ListTools(t.Context(), ToolQuery{ToolkitSlug: "gmail", ToolSlugs: []string{"A", "B"}})
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, tl := range tools {
		slugs = append(slugs, tl.Slug)
	}
	if got := strings.Join(slugs, ","); got != "GMAIL_FETCH_EMAILS,GMAIL_SEND_EMAIL,GMAIL_DELETE_MESSAGE" {
		t.Errorf("slugs = %s", got)
	}
	reqs := rc.all()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	q0, _ := url.ParseQuery(reqs[0].RawQuery)
	q1, _ := url.ParseQuery(reqs[1].RawQuery)
	if q0.Get("toolkit_slug") != "gmail" || q0.Get("tool_slugs") != "A,B" || q0.Has("cursor") || q1.Get("cursor") != "p2" || q1.Get("tool_slugs") != "A,B" {
		t.Errorf("queries = %q, %q", reqs[0].RawQuery, reqs[1].RawQuery)
	}
}

func TestListConnectedAccountsPages(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		if n == 1 {
			writeJSON(w, 200, `{"items":[{"id":"ca_1","user_id":"u1","status":"ACTIVE","toolkit":{"slug":"gmail"},"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-03T03:04:05.5Z"},{"user_id":"no id"}],"next_cursor":"n2"}`)
			return
		}
		writeJSON(w, 200, `{"items":[{"id":"ca_2","status":"EXPIRED","toolkit":{"slug":"slack"}}],"next_cursor":""}`)
	})
	c := newTestClient(t, srv.URL)
	var all []ConnectedAccount
	for page, err := range c.ListConnectedAccounts(t.Context(), AccountQuery{UserIDs: []string{"u1", "u2"}, ToolkitSlugs: []string{"gmail"}, Statuses: []string{"ACTIVE", "EXPIRED"}, Limit: 50}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
	}
	if len(all) != 2 || all[0].ID != "ca_1" || all[0].UserID != "u1" || all[0].ToolkitSlug != "gmail" ||
		!all[0].CreatedAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) || all[0].UpdatedAt.IsZero() ||
		all[1].ID != "ca_2" || all[1].Status != "EXPIRED" {
		t.Errorf("accounts = %+v", all)
	}
	reqs := rc.all()
	q, _ := url.ParseQuery(reqs[0].RawQuery)
	if reqs[0].Path != "/api/v3.1/connected_accounts" || q.Get("user_ids") != "u1,u2" || q.Get("toolkit_slugs") != "gmail" ||
		q.Get("statuses") != "ACTIVE,EXPIRED" || q.Get("limit") != "50" {
		t.Errorf("first request %s?%s", reqs[0].Path, reqs[0].RawQuery)
	}
	if q2, _ := url.ParseQuery(reqs[1].RawQuery); q2.Get("cursor") != "n2" {
		t.Errorf("second request query %s", reqs[1].RawQuery)
	}
}

func TestGetConnectedAccount(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, `{"id":"ca_9","status":"ACTIVE","toolkit":{"slug":"github"},"created_at":"2026-01-02T03:04:05Z"}`)
	})
	c := newTestClient(t, srv.URL)
	a, err := c.GetConnectedAccount(t.Context(), "ca_9")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "ca_9" || a.ToolkitSlug != "github" || a.Status != "ACTIVE" {
		t.Errorf("account = %+v", a)
	}
	if p := rc.all()[0].Path; p != "/api/v3.1/connected_accounts/ca_9" {
		t.Errorf("path = %s", p)
	}
}

func TestRunReadToolRetriesAndReportsToolFailure(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		if n == 1 {
			writeJSON(w, 502, `<html>bad gateway</html>`)
			return
		}
		writeJSON(w, 200, `{"data":{},"error":"label not found","successful":false}`)
	})
	c := newTestClient(t, srv.URL)
	res, err := c.RunReadTool(t.Context(), model.ToolCall{Slug: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{"query":"x"}`), ConnectedAccountID: "ca_1"})
	if err == nil || !strings.Contains(err.Error(), "label not found") {
		t.Fatalf("err = %v, want the tool's failure", err)
	}
	if res.Successful || res.Error != "label not found" {
		t.Errorf("result = %+v", res)
	}
	reqs := rc.all()
	if len(reqs) != 2 || reqs[1].Path != "/api/v3.1/tools/execute/GMAIL_FETCH_EMAILS" || reqs[1].Header.Get("x-stainless-retry-count") != "1" {
		t.Fatalf("requests = %d, want 2 to the execute path", len(reqs))
	}
	var body map[string]any
	json.Unmarshal(reqs[1].Body, &body)
	if body["version"] != "latest" || body["connected_account_id"] != "ca_1" {
		t.Errorf("body = %s", reqs[1].Body)
	}
}

func TestRunReadToolSuccess(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, okResultJSON)
	})
	c := newTestClient(t, srv.URL)
	res, err := c.RunReadTool(t.Context(), model.ToolCall{Slug: "GMAIL_FETCH_EMAILS"})
	if err != nil || !res.Successful || res.LogID != "log_abc" || string(res.Data) != `{"id":"msg_1"}` {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

// TestAPageOverItsLimitIsRefused: a server that ignores limit answered 57 MB pages and list
// held them all (3.5 GB); a page with more records than asked for is refused, not held.
func TestAPageOverItsLimitIsRefused(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"logs":[`)
		for i := range 150 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"log_%d","timestamp":"2026-03-01T10:00:00.000Z","status":"success","metadata":{"tool_slug":"X"}}`, i)
		}
		b.WriteString(`],"next_cursor":null}`)
		_, _ = w.Write([]byte(b.String()))
	})
	c := newTestClient(t, srv.URL)
	_, err := c.ListLogsPage(t.Context(), LogQuery{Limit: 100}, "")
	if !errors.Is(err, ErrIgnoredLimit) || !strings.Contains(err.Error(), "150") {
		t.Fatalf("a page of 150 records for a limit of 100: %v", err)
	}
}

// TestAPageLargerThanItsRecordsCanBeIsRefused: a logs page may hold MaxLogEntryBytes for each
// record asked for; a larger one is refused as it is read (the slices of a window are walked at
// once, and each held a 58 MB page: 1.5 GB).
func TestAPageLargerThanItsRecordsCanBeIsRefused(t *testing.T) {
	big := strings.Repeat("x", 300<<10)
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"logs":[{"id":"log_1","message":"%s"},{"id":"log_2","message":"%s"}],"next_cursor":null}`, big, big)
	})
	c := newTestClient(t, srv.URL, WithMaxRetries(0))
	if _, err := c.ListLogsPage(t.Context(), LogQuery{Limit: 2}, ""); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("a 600 KB page of 2 records: %v", err)
	}
	if _, err := c.ListLogsPage(t.Context(), LogQuery{Limit: 3}, ""); err != nil {
		t.Fatalf("the same page asked with room for it: %v", err)
	}
}
