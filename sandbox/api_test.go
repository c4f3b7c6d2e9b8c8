package sandbox

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

var logIDPattern = regexp.MustCompile(`^log_[A-Za-z0-9_-]{12}$`)

func TestLogsListEntriesHaveTheDocumentedKeys(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", map[string]any{"limit": 5}, nil)
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	top := decodeMap(t, b)
	if got := keysOf(top); !slices.Equal(got, []string{"logs", "next_cursor"}) {
		t.Fatalf("top-level keys %v", got)
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(top["logs"], &entries); err != nil || len(entries) != 5 {
		t.Fatalf("logs: %v, %d entries", err, len(entries))
	}
	want := []string{"id", "level", "message", "metadata", "metrics", "parent", "status", "timestamp", "type"}
	for _, e := range entries {
		if got := keysOf(e); !slices.Equal(got, want) {
			t.Errorf("entry keys %v, want %v", got, want)
		}
		if string(e["type"]) != `"tool.execution"` {
			t.Errorf("type %s", e["type"])
		}
		var meta map[string]any
		_ = json.Unmarshal(e["metadata"], &meta)
		for _, k := range []string{"tool_slug", "toolkit_slug", "user_id", "connected_account_id"} {
			if meta[k] == "" || meta[k] == nil {
				t.Errorf("metadata.%s missing in %s", k, e["metadata"])
			}
		}
	}
	page, err := model.ParseLogsPage(b)
	if err != nil || len(page.Bad) != 0 || len(page.Executions) != 5 || page.NextCursor == "" {
		t.Fatalf("ParseLogsPage: %v bad=%v n=%d cursor=%q", err, page.Bad, len(page.Executions), page.NextCursor)
	}
	all := s.Executions()
	for i, e := range page.Executions {
		w := all[i] // the newest five, in order
		if e.ID != w.ID || e.ToolSlug != w.ToolSlug || e.Status != w.Status || e.UserID != w.UserID ||
			e.ConnectedAccountID != w.ConnectedAccountID || !e.Timestamp.Equal(w.Timestamp.Truncate(time.Millisecond)) {
			t.Errorf("entry %d parsed as %+v, served from %+v", i, e, w)
		}
		if !logIDPattern.MatchString(e.ID) {
			t.Errorf("log id %q is not log_ + 12 url-safe characters", e.ID)
		}
		if !e.HasDuration || e.Duration.Milliseconds() != w.Duration.Milliseconds() {
			t.Errorf("duration %v, want %v", e.Duration, w.Duration)
		}
	}
}

func TestLogDetailHasTimingsContextSourceAndData(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	for _, w := range s.Executions()[:40] {
		status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/logs/tool_execution/"+w.ID, nil, nil)
		if status != 200 {
			t.Fatalf("status %d: %s", status, b)
		}
		m := decodeMap(t, b)
		for _, k := range []string{"id", "timestamp", "type", "status", "level", "message", "metadata", "metrics", "parent", "timings", "context", "source", "data"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("detail lacks %q: %s", k, b)
			}
		}
		var data struct {
			Request  map[string]json.RawMessage `json:"request"`
			Response map[string]json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(m["data"], &data); err != nil || data.Request["arguments"] == nil {
			t.Fatalf("data.request.arguments missing: %s", m["data"])
		}
		for _, k := range []string{"data", "error", "successful"} {
			if _, ok := data.Response[k]; !ok {
				t.Fatalf("data.response lacks %q: %s", k, m["data"])
			}
		}
		e, err := model.ParseRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		if !e.Detailed || e.RequestID != w.RequestID || e.SessionID != w.SessionID || e.Source != w.Source ||
			string(e.Arguments) != string(w.Arguments) || e.StartTime.UnixMilli() != w.StartTime.UnixMilli() ||
			e.EndTime.UnixMilli() != w.EndTime.UnixMilli() || e.RetryCount != w.RetryCount || e.SDKVersion != w.SDKVersion {
			t.Errorf("detail parsed as %+v, served from %+v", e, w)
		}
		if (w.Error == nil) != (e.Error == nil) || (w.Error != nil && *w.Error != *e.Error) {
			t.Errorf("error parsed as %+v, served %+v", e.Error, w.Error)
		}
	}
}

func TestErrorsUseComposioErrorBody(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	cases := []struct {
		name, method, path string
		body               any
		hdr                map[string]string
		status             int
	}{
		{"missing key", "POST", "/api/v3.1/tools/execute/GMAIL_SEND_EMAIL", map[string]any{}, map[string]string{"x-api-key": ""}, 401},
		{"unknown tool", "POST", "/api/v3.1/tools/execute/GMAIL_TELEPORT", map[string]any{"user_id": "u"}, nil, 404},
		{"bad json", "POST", "/api/v3.1/tools/execute/GMAIL_SEND_EMAIL", "{not json", nil, 400},
		{"unknown log", "GET", "/api/v3.1/logs/tool_execution/log_nonexistent0", nil, nil, 404},
		{"bad filter", "POST", "/api/v3.1/logs/tool_execution", map[string]any{"filters": []any{map[string]any{"field": "colour", "operator": "==", "value": "x"}}}, nil, 400},
		{"unknown tool detail", "GET", "/api/v3.1/tools/NOPE_NOPE", nil, nil, 404},
		{"unknown account", "GET", "/api/v3.1/connected_accounts/ca_nope", nil, nil, 404},
		{"unknown route", "GET", "/api/v3.1/nothing/here", nil, nil, 404},
	}
	want := []string{"code", "errors", "message", "request_id", "slug", "status", "suggested_fix"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{"x-request-id": "req-" + strings.ReplaceAll(c.name, " ", "-")}
			maps.Copy(hdr, c.hdr)
			status, h, b := doReq(t, ts.URL, c.method, c.path, c.body, hdr)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, b)
			}
			if ct := h.Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
			top := decodeMap(t, b)
			if got := keysOf(top); !slices.Equal(got, []string{"error"}) {
				t.Fatalf("keys %v", got)
			}
			inner := decodeMap(t, top["error"])
			if got := keysOf(inner); !slices.Equal(got, want) {
				t.Fatalf("error keys %v, want %v", got, want)
			}
			var e apiError
			_ = json.Unmarshal(top["error"], &e)
			if e.Status != c.status || e.Message == "" || e.Slug == "" || e.Code == 0 || e.RequestID != hdr["x-request-id"] || e.Errors == nil {
				t.Errorf("error body %+v", e)
			}
		})
	}
}

func TestLogsPagingReturnsEveryRecordOnceNewestFirst(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	got, pages := listAll(t, ts.URL, nil)
	if len(got) != 600 || pages != 6 {
		t.Fatalf("%d records in %d pages, want 600 in 6", len(got), pages)
	}
	want := s.Executions()
	seen := map[string]bool{}
	for i, e := range got {
		if seen[e.ID] {
			t.Fatalf("%s served twice", e.ID)
		}
		seen[e.ID] = true
		if e.ID != want[i].ID {
			t.Fatalf("record %d is %s, want %s", i, e.ID, want[i].ID)
		}
		if i > 0 && e.Timestamp.After(got[i-1].Timestamp) {
			t.Fatalf("record %d is newer than the one before", i)
		}
	}
	// The last page says next_cursor null, literally.
	_, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", map[string]any{"limit": 100,
		"time_range": map[string]any{"from": testNow.Add(-time.Hour).UnixMilli(), "to": testNow.UnixMilli()}}, nil)
	if string(decodeMap(t, b)["next_cursor"]) != "null" {
		t.Fatalf("next_cursor at the end is %s", decodeMap(t, b)["next_cursor"])
	}
}

func TestLogsLimitAndQueryValidation(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	count := func(body any) (int, int) {
		status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/logs/tool_execution", body, nil)
		if status != 200 {
			return status, 0
		}
		p, err := model.ParseLogsPage(b)
		if err != nil {
			t.Fatal(err)
		}
		return status, len(p.Executions)
	}
	cases := []struct {
		name   string
		body   any
		status int
		n      int
	}{
		{"empty body: default 20", nil, 200, 20},
		{"limit 0: default", map[string]any{"limit": 0}, 200, 20},
		{"limit 7", map[string]any{"limit": 7}, 200, 7},
		{"limit over max: 100", map[string]any{"limit": 500}, 200, 100},
		{"negative limit", map[string]any{"limit": -1}, 400, 0},
		{"fractional limit", map[string]any{"limit": 2.5}, 400, 0},
		{"forged cursor", map[string]any{"cursor": "bm90LWEtY3Vyc29y"}, 400, 0},
		{"unknown operator", map[string]any{"filters": []any{map[string]any{"field": "status", "operator": "~=", "value": "x"}}}, 400, 0},
		{"object value", map[string]any{"filters": []any{map[string]any{"field": "status", "operator": "==", "value": map[string]any{}}}}, 400, 0},
		{"bad time", map[string]any{"time_range": map[string]any{"from": "yesterday"}}, 400, 0},
		{"null cursor", map[string]any{"cursor": nil, "limit": 3}, 200, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, n := count(c.body)
			if status != c.status || n != c.n {
				t.Fatalf("status %d n %d, want %d %d", status, n, c.status, c.n)
			}
		})
	}
}

func TestLogsFiltersMatchABruteForceScan(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	all := s.Executions()
	sample := all[len(all)/2]
	var failed model.Execution
	for _, e := range all {
		if e.Status == model.StatusFailed {
			failed = e
			break
		}
	}
	acct := s.w.accountByID[sample.ConnectedAccountID]
	from, to := all[400].Timestamp, all[100].Timestamp
	type f = map[string]any
	cases := []struct {
		name    string
		filters []f
		tr      f
		keep    func(e *model.Execution) bool
	}{
		{"tool_slug ==", []f{{"field": "tool_slug", "operator": "==", "value": sample.ToolSlug}}, nil,
			func(e *model.Execution) bool { return e.ToolSlug == sample.ToolSlug }},
		{"tool_slug == is case-insensitive", []f{{"field": "tool_slug", "operator": "==", "value": strings.ToLower(sample.ToolSlug)}}, nil,
			func(e *model.Execution) bool { return e.ToolSlug == sample.ToolSlug }},
		{"toolkit_slug !=", []f{{"field": "toolkit_slug", "operator": "!=", "value": "gmail"}}, nil,
			func(e *model.Execution) bool { return e.ToolkitSlug != "gmail" }},
		{"tool_slug contains", []f{{"field": "tool_slug", "operator": "contains", "value": "send"}}, nil,
			func(e *model.Execution) bool { return strings.Contains(e.ToolSlug, "SEND") }},
		{"tool_slug not_contains", []f{{"field": "tool_slug", "operator": "not_contains", "value": "FETCH"}}, nil,
			func(e *model.Execution) bool { return !strings.Contains(e.ToolSlug, "FETCH") }},
		{"connected_account_id", []f{{"field": "connected_account_id", "operator": "==", "value": sample.ConnectedAccountID}}, nil,
			func(e *model.Execution) bool { return e.ConnectedAccountID == sample.ConnectedAccountID }},
		{"auth_config_id", []f{{"field": "auth_config_id", "operator": "==", "value": acct.authConfigID}}, nil,
			func(e *model.Execution) bool {
				return s.w.accountByID[e.ConnectedAccountID].authConfigID == acct.authConfigID
			}},
		{"status failed", []f{{"field": "status", "operator": "==", "value": "failed"}}, nil,
			func(e *model.Execution) bool { return e.Status == "failed" }},
		{"user_id", []f{{"field": "user_id", "operator": "==", "value": sample.UserID}}, nil,
			func(e *model.Execution) bool { return e.UserID == sample.UserID }},
		{"session_id", []f{{"field": "session_id", "operator": "==", "value": sample.SessionID}}, nil,
			func(e *model.Execution) bool { return e.SessionID == sample.SessionID }},
		{"request_id", []f{{"field": "request_id", "operator": "==", "value": failed.RequestID}}, nil,
			func(e *model.Execution) bool { return e.RequestID == failed.RequestID }},
		{"log_id", []f{{"field": "log_id", "operator": "==", "value": sample.ID}}, nil,
			func(e *model.Execution) bool { return e.ID == sample.ID }},
		{"sandbox_id == empty", []f{{"field": "sandbox_id", "operator": "==", "value": ""}}, nil,
			func(e *model.Execution) bool { return true }},
		{"AND of two", []f{{"field": "user_id", "operator": "==", "value": sample.UserID}, {"field": "status", "operator": "==", "value": "success"}}, nil,
			func(e *model.Execution) bool { return e.UserID == sample.UserID && e.Status == "success" }},
		{"time range", nil, f{"from": from.UnixMilli(), "to": to.UnixMilli()},
			func(e *model.Execution) bool {
				return !e.Timestamp.Before(from.Truncate(time.Millisecond)) && !e.Timestamp.After(to.Truncate(time.Millisecond).Add(time.Millisecond-1))
			}},
		{"time range and filter", []f{{"field": "toolkit_slug", "operator": "==", "value": "slack"}}, f{"from": from.UnixMilli(), "to": time.Now().Add(time.Hour).UnixMilli()},
			func(e *model.Execution) bool {
				return e.ToolkitSlug == "slack" && !e.Timestamp.Before(from.Truncate(time.Millisecond))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := map[string]any{}
			if c.filters != nil {
				body["filters"] = c.filters
			}
			if c.tr != nil {
				body["time_range"] = c.tr
			}
			got, _ := listAll(t, ts.URL, body)
			var want []string
			for i := range all {
				if c.keep(&all[i]) {
					want = append(want, all[i].ID)
				}
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			if len(want) == 0 {
				t.Fatal("the case selects nothing: it cannot fail")
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("got %d records, want %d", len(ids), len(want))
			}
		})
	}
}

func TestAPIKeyChecks(t *testing.T) {
	cases := []struct {
		name   string
		key    string // Config.APIKey
		path   string
		method string
		hdr    map[string]string
		status int
	}{
		{"any key accepted", "", "/api/v3.1/tools", "GET", map[string]string{"x-api-key": "whatever"}, 200},
		{"no key refused", "", "/api/v3.1/tools", "GET", map[string]string{"x-api-key": ""}, 401},
		{"user key not on logs (a project key only)", "", "/api/v3.1/logs/tool_execution", "POST", map[string]string{"x-api-key": "", "x-user-api-key": "u"}, 401},
		{"both keys refused", "", "/api/v3.1/tools", "GET", map[string]string{"x-api-key": "k", "x-user-api-key": "u"}, 401},
		{"both keys refused on logs", "", "/api/v3.1/logs/tool_execution", "POST", map[string]string{"x-api-key": "k", "x-user-api-key": "u"}, 401},
		{"user key not on tools", "", "/api/v3.1/tools", "GET", map[string]string{"x-api-key": "", "x-user-api-key": "u"}, 401},
		{"user key not on execute", "", "/api/v3.1/tools/execute/GMAIL_FETCH_EMAILS", "POST", map[string]string{"x-api-key": "", "x-user-api-key": "u"}, 401},
		{"configured key", "s3cret", "/api/v3.1/connected_accounts", "GET", map[string]string{"x-api-key": "s3cret"}, 200},
		{"wrong key", "s3cret", "/api/v3.1/connected_accounts", "GET", map[string]string{"x-api-key": "guess"}, 401},
		{"configured user key not on logs", "s3cret", "/api/v3.1/logs/tool_execution", "POST", map[string]string{"x-api-key": "", "x-user-api-key": "s3cret"}, 401},
		{"control open without configured key", "", "/_sandbox/stats", "GET", map[string]string{"x-api-key": ""}, 200},
		{"control guarded with configured key", "s3cret", "/_sandbox/stats", "GET", map[string]string{"x-api-key": ""}, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Size, cfg.APIKey = 50, c.key
			_, ts := newTestServer(t, cfg)
			status, _, b := doReq(t, ts.URL, c.method, c.path, nil, c.hdr)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, b)
			}
		})
	}
}

func TestToolsCarryMCPHintsAndSchemas(t *testing.T) {
	_, ts := newTestServer(t, Config{Size: -1, Now: testNow})
	status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/tools?limit=100", nil, nil)
	if status != 200 {
		t.Fatalf("%d %s", status, b)
	}
	top := decodeMap(t, b)
	for _, k := range []string{"items", "next_cursor", "total_pages", "current_page", "total_items"} {
		if _, ok := top[k]; !ok {
			t.Fatalf("list lacks %q", k)
		}
	}
	if string(top["next_cursor"]) != "null" {
		t.Errorf("next_cursor %s", top["next_cursor"])
	}
	var items []catalogItem
	if err := json.Unmarshal(top["items"], &items); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GMAIL_SEND_EMAIL", "GMAIL_REPLY_TO_THREAD", "GMAIL_CREATE_EMAIL_DRAFT", "GMAIL_FETCH_EMAILS",
		"GMAIL_ADD_LABEL_TO_EMAIL", "GMAIL_DELETE_MESSAGE", "SLACK_SEND_MESSAGE", "SLACK_FETCH_CONVERSATION_HISTORY",
		"GITHUB_CREATE_AN_ISSUE", "GITHUB_CREATE_AN_ISSUE_COMMENT", "GITHUB_LIST_REPOSITORY_ISSUES", "HUBSPOT_CREATE_CONTACT",
		"HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA"} {
		if !slices.ContainsFunc(items, func(x catalogItem) bool {
			return x.Slug == want
		}) {
			t.Errorf("tool %s missing", want)
		}
	}
	hints := []string{"readOnlyHint", "idempotentHint", "destructiveHint"}
	for _, it := range items {
		var want string
		switch verb := strings.Split(it.Slug, "_")[1]; {
		case verb == "FETCH" || verb == "LIST" || verb == "SEARCH":
			want = "readOnlyHint"
		case strings.Contains(it.Slug, "ADD_LABEL"):
			want = "idempotentHint"
		case strings.Contains(it.Slug, "DELETE"):
			want = "destructiveHint"
		}
		for _, h := range hints {
			if slices.Contains(it.Tags, h) != (h == want) {
				t.Errorf("%s tags %v: want hint %q only", it.Slug, it.Tags, want)
			}
		}
		if it.Version == "" || it.Toolkit.Slug == "" || len(it.Input.Properties) == 0 {
			t.Errorf("%s incomplete: %+v", it.Slug, it)
		}
		if it.Slug == "GMAIL_SEND_EMAIL" {
			for _, p := range []string{"recipient_email", "subject", "body", "cc", "bcc", "is_html"} {
				if it.Input.Properties[p] == nil {
					t.Errorf("GMAIL_SEND_EMAIL lacks parameter %s", p)
				}
			}
			if !slices.Contains(it.Input.Required, "recipient_email") {
				t.Errorf("recipient_email not required: %v", it.Input.Required)
			}
		}
	}
	filters := []struct {
		query string
		want  []string
	}{
		{"toolkit_slug=hubspot", []string{"HUBSPOT_CREATE_CONTACT", "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA"}},
		{"tool_slugs=SLACK_SEND_MESSAGE,github_create_an_issue", []string{"GITHUB_CREATE_AN_ISSUE", "SLACK_SEND_MESSAGE"}},
		{"tool_slugs=SLACK_SEND_MESSAGE&toolkit_slug=gmail", []string{"SLACK_SEND_MESSAGE"}}, // tool_slugs overrides
		{"toolkit_slug=slack&tags=readOnlyHint", []string{"SLACK_FETCH_CONVERSATION_HISTORY"}},
	}
	for _, f := range filters {
		_, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/tools?"+f.query, nil, nil)
		var page struct {
			Items []struct {
				Slug string `json:"slug"`
			} `json:"items"`
			Total int `json:"total_items"`
		}
		_ = json.Unmarshal(b, &page)
		var got []string
		for _, it := range page.Items {
			got = append(got, it.Slug)
		}
		if !slices.Equal(got, f.want) || page.Total != len(f.want) {
			t.Errorf("%s: got %v (total %d), want %v", f.query, got, page.Total, f.want)
		}
	}
	status, _, b = doReq(t, ts.URL, "GET", "/api/v3.1/tools/GMAIL_FETCH_EMAILS?version=20250909_00", nil, nil)
	tool := decodeMap(t, b)
	if status != 200 || string(tool["slug"]) != `"GMAIL_FETCH_EMAILS"` {
		t.Fatalf("GET tool: %d %s", status, b)
	}
}

func TestConnectedAccountsFilterAndPage(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	type item struct {
		ID      string `json:"id"`
		UserID  string `json:"user_id"`
		Status  string `json:"status"`
		Toolkit struct {
			Slug string `json:"slug"`
		} `json:"toolkit"`
		AuthConfig struct {
			ID string `json:"id"`
		} `json:"auth_config"`
		CreatedAt string `json:"created_at"`
	}
	list := func(q url.Values) []item {
		var out []item
		for cursor := ""; ; {
			q.Set("limit", "3")
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/connected_accounts?"+q.Encode(), nil, nil)
			if status != 200 {
				t.Fatalf("%d %s", status, b)
			}
			var page struct {
				Items []item  `json:"items"`
				Next  *string `json:"next_cursor"`
			}
			if err := json.Unmarshal(b, &page); err != nil {
				t.Fatal(err)
			}
			out = append(out, page.Items...)
			if page.Next == nil {
				return out
			}
			cursor = *page.Next
		}
	}
	all := list(url.Values{})
	if len(all) != len(s.w.accounts) {
		t.Fatalf("%d accounts listed, %d exist", len(all), len(s.w.accounts))
	}
	for i := 1; i < len(all); i++ {
		if all[i].CreatedAt > all[i-1].CreatedAt {
			t.Fatal("not newest first")
		}
	}
	u := s.w.users[0]
	byUser := list(url.Values{"user_ids": {u.id}})
	if len(byUser) != len(u.accounts) {
		t.Errorf("user %s: %d accounts listed, has %d", u.id, len(byUser), len(u.accounts))
	}
	for _, it := range byUser {
		if it.UserID != u.id || it.AuthConfig.ID == "" || !strings.HasPrefix(it.ID, "ca_") {
			t.Errorf("item %+v", it)
		}
	}
	gm := list(url.Values{"toolkit_slugs": {"gmail,slack"}, "statuses": {"ACTIVE"}})
	for _, it := range gm {
		if (it.Toolkit.Slug != "gmail" && it.Toolkit.Slug != "slack") || it.Status != "ACTIVE" {
			t.Errorf("filtered item %+v", it)
		}
	}
	if len(gm) == 0 {
		t.Fatal("no active gmail or slack accounts")
	}
	status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/connected_accounts/"+all[0].ID, nil, nil)
	if status != 200 || !strings.Contains(string(b), all[0].ID) {
		t.Fatalf("GET account: %d %s", status, b)
	}
}

func TestExecuteRecordsSDKHeadersInTheLog(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	gm := accountOf(t, s, "gmail")
	// The TypeScript SDK's sequence: GET the tool with a version, then POST execute.
	if status, _, b := doReq(t, ts.URL, "GET", "/api/v3.1/tools/GMAIL_SEND_EMAIL?version=20250909_00", nil, nil); status != 200 {
		t.Fatalf("GET tool: %d %s", status, b)
	}
	cases := []struct {
		name string
		hdr  map[string]string
		want model.Execution
	}{
		{"typescript sdk", map[string]string{"x-request-id": "rid-ts-1", "x-source": "TYPESCRIPT_SDK", "x-sdk-version": "0.13.1",
			"x-framework": "vercel", "x-stainless-retry-count": "1", "x-runtime": "NODEJS"},
			model.Execution{RequestID: "rid-ts-1", Source: model.Source{Host: "sdk", Language: "typescript", Framework: "vercel"}, SDKVersion: "0.13.1", RetryCount: 1}},
		{"python sdk", map[string]string{"x-request-id": "rid-py-1", "x-source": "PYTHON_SDK", "x-sdk-version": "0.16.1",
			"x-framework": "langchain", "x-stainless-retry-count": "0", "x-session-id": "sess-9"},
			model.Execution{RequestID: "rid-py-1", SessionID: "sess-9", Source: model.Source{Host: "sdk", Language: "python", Framework: "langchain"}, SDKVersion: "0.16.1", RetryCount: 0}},
		{"raw api", map[string]string{"x-request-id": "rid-api-1"},
			model.Execution{RequestID: "rid-api-1", Source: model.Source{Host: "api"}, RetryCount: -1}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{"recipient_email": "ops@example.org", "subject": fmt.Sprintf("header test %d", i), "body": "hello"}
			status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tools/execute/GMAIL_SEND_EMAIL",
				map[string]any{"connected_account_id": gm.id, "user_id": gm.userID, "arguments": args, "version": "20250909_00"}, c.hdr)
			if status != 200 {
				t.Fatalf("%d %s", status, b)
			}
			top := decodeMap(t, b)
			for _, k := range []string{"data", "error", "successful", "log_id"} {
				if _, ok := top[k]; !ok {
					t.Fatalf("answer lacks %q: %s", k, b)
				}
			}
			var logID string
			_ = json.Unmarshal(top["log_id"], &logID)
			_, _, d := doReq(t, ts.URL, "GET", "/api/v3.1/logs/tool_execution/"+logID, nil, nil)
			e, err := model.ParseRecord(d)
			if err != nil {
				t.Fatal(err)
			}
			if e.RequestID != c.want.RequestID || e.SessionID != c.want.SessionID || e.Source != c.want.Source ||
				e.SDKVersion != c.want.SDKVersion || e.RetryCount != c.want.RetryCount {
				t.Errorf("log %+v, want %+v", e, c.want)
			}
			if e.Status != "success" || e.ToolSlug != "GMAIL_SEND_EMAIL" || e.ConnectedAccountID != gm.id || e.UserID != gm.userID ||
				!e.Timestamp.After(testNow) || e.ID != logID || !logIDPattern.MatchString(logID) {
				t.Errorf("log %+v", e)
			}
			if eff := effectsFor(s, c.want.RequestID); len(eff) != 1 || eff[0].LogID != logID ||
				eff[0].ArgumentHash != model.ArgumentHash(e.Arguments, model.DefaultVolatileKeys()) {
				t.Errorf("effects %+v", eff)
			}
		})
	}
}

func TestExecuteRefusalsAreCountedAndLogged(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	gm, sl := accountOf(t, s, "gmail"), accountOf(t, s, "slack")
	var expired *account
	for _, a := range s.w.accounts {
		if a.status != "ACTIVE" {
			expired = a
			break
		}
	}
	if expired == nil {
		t.Fatal("the history has no expired account")
	}
	cases := []struct {
		name    string
		slug    string
		body    any
		status  int
		logKind model.ErrorKind // "" = no log record
	}{
		{"bad json", "GMAIL_SEND_EMAIL", `{"arguments": {`, 400, ""},
		{"arguments not an object", "GMAIL_SEND_EMAIL", map[string]any{"connected_account_id": gm.id, "arguments": []int{1}}, 400, ""},
		{"unknown tool", "GMAIL_SEND_FAX", map[string]any{"connected_account_id": gm.id}, 404, ""},
		{"unknown account", "GMAIL_SEND_EMAIL", map[string]any{"connected_account_id": "ca_missing"}, 404, ""},
		{"account of another toolkit", "GMAIL_SEND_EMAIL", map[string]any{"connected_account_id": sl.id}, 400, ""},
		{"no account or user", "GMAIL_SEND_EMAIL", map[string]any{"arguments": map[string]any{}}, 400, ""},
		{"missing required argument", "GMAIL_SEND_EMAIL", map[string]any{"connected_account_id": gm.id, "arguments": map[string]any{"subject": "x"}}, 400, model.ErrValidation},
		{"wrong argument type", "GMAIL_FETCH_EMAILS", map[string]any{"connected_account_id": gm.id, "arguments": map[string]any{"max_results": "lots"}}, 400, model.ErrValidation},
		{"inactive account", expiredSlug(expired), map[string]any{"connected_account_id": expired.id, "arguments": map[string]any{}}, 400, model.ErrAuth},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.ExecuteCount()
			rid := fmt.Sprintf("refusal-%d", i)
			status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tools/execute/"+c.slug, c.body, map[string]string{"x-request-id": rid})
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, b)
			}
			if s.ExecuteCount() != before+1 {
				t.Errorf("ExecuteCount went from %d to %d", before, s.ExecuteCount())
			}
			e, found := logByRequestIDNow(s, rid)
			if found != (c.logKind != "") {
				t.Fatalf("log record found=%v, want %v", found, c.logKind != "")
			}
			if found && (e.Status != "failed" || e.Error == nil || e.Error.Kind != c.logKind) {
				t.Errorf("log %+v error %+v", e, e.Error)
			}
			if len(effectsFor(s, rid)) != 0 {
				t.Error("a refused execution took effect")
			}
		})
	}
}

func expiredSlug(a *account) string {
	switch a.toolkit {
	case "gmail":
		return "GMAIL_LIST_DRAFTS"
	case "slack":
		return "SLACK_SEND_MESSAGE"
	case "github":
		return "GITHUB_CREATE_AN_ISSUE"
	}
	return "HUBSPOT_CREATE_CONTACT"
}

// logByRequestIDNow looks the record up without waiting (for answers already given).
func logByRequestIDNow(s *Server, rid string) (model.Execution, bool) {
	for _, e := range s.Executions() {
		if e.RequestID == rid {
			return e, true
		}
	}
	return model.Execution{}, false
}

func TestUnknownUserGetsAnAccount(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	body := map[string]any{"user_id": "dev@example.com", "arguments": map[string]any{"channel": "#general", "text": "hello from a new user"}}
	status, _, b := doReq(t, ts.URL, "POST", "/api/v3.1/tools/execute/SLACK_SEND_MESSAGE", body, nil)
	if status != 200 || !strings.Contains(string(b), `"successful":true`) {
		t.Fatalf("%d %s", status, b)
	}
	_, _, b = doReq(t, ts.URL, "GET", "/api/v3.1/connected_accounts?user_ids=dev@example.com", nil, nil)
	if !strings.Contains(string(b), `"slug":"slack"`) {
		t.Fatalf("account not listed: %s", b)
	}
	if n := len(s.Effects()); n == 0 {
		t.Fatal("no effect")
	}
}

// catalogItem is a tool of the catalog as the tools endpoint lists it.
type catalogItem struct {
	Slug    string   `json:"slug"`
	Tags    []string `json:"tags"`
	Toolkit struct {
		Slug string `json:"slug"`
	} `json:"toolkit"`
	Input struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	} `json:"input_parameters"`
	Version string `json:"version"`
}
