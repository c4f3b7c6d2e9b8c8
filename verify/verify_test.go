package verify

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// scriptedRunner answers every read with one canned result and records the calls.
type scriptedRunner struct {
	data  any
	err   error
	fail  string // ToolResult.Error with Successful false
	calls []model.ToolCall
}

func (r *scriptedRunner) RunReadTool(_ context.Context, c model.ToolCall) (model.ToolResult, error) {
	r.calls = append(r.calls, c)
	if r.err != nil {
		return model.ToolResult{}, r.err
	}
	if r.fail != "" {
		return model.ToolResult{Successful: false, Error: r.fail, Data: json.RawMessage(`{}`)}, nil
	}
	b, _ := json.Marshal(r.data)
	return model.ToolResult{Successful: true, Data: b}, nil
}

func sendExec() *model.Execution {
	return &model.Execution{
		ID: "log_1", ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", ConnectedAccountID: "ca_9", UserID: "u9",
		StartTime: t0, Timestamp: t0, Detailed: true, RetryCount: -1,
		Arguments: json.RawMessage(`{"recipient_email":"Bob@Example.com","subject":"Invoice 42","body":"see attached"}`),
	}
}

func msg(id, to, subject string, at time.Time) map[string]any {
	return map[string]any{"messageId": id, "threadId": id, "to": to, "subject": subject, "messageTimestamp": at.Format(time.RFC3339)}
}

func fixedClock() func() time.Time { return func() time.Time { return t0.Add(time.Hour) } }

func TestVerifyGmailSend(t *testing.T) {
	tests := []struct {
		name    string
		r       *scriptedRunner
		state   model.ProviderStateKind
		matches []string
		reason  string
	}{
		{"found once", &scriptedRunner{data: map[string]any{"messages": []any{
			msg("m2", "Bob <bob@example.com>", "Invoice 42", t0.Add(2*time.Second)),
			msg("m3", "bob@example.com", "Invoice 43", t0.Add(3*time.Second)),
		}}}, model.ProviderFound, []string{"m2"}, `found email to Bob@Example.com "Invoice 42": m2 at 2026-03-02 09:00:02Z (GMAIL_FETCH_EMAILS): do not retry`},
		{"found twice, an older identical mail ignored", &scriptedRunner{data: map[string]any{"messages": []any{
			msg("m5", "bob@example.com", "Invoice 42", t0.Add(61*time.Second)),
			msg("m4", "bob@example.com", "invoice 42", t0.Add(1*time.Second)),
			msg("m0", "bob@example.com", "Invoice 42", t0.Add(-time.Hour)),
		}}}, model.ProviderFound, []string{"m4", "m5"}, `found 2× email to Bob@Example.com "Invoice 42" since 2026-03-02 08:59:55Z: m4, m5`},
		{"not found", &scriptedRunner{data: map[string]any{"messages": []any{
			msg("m0", "bob@example.com", "Invoice 42", t0.Add(-time.Hour)),
			msg("m7", "carol@example.com", "Invoice 42", t0.Add(time.Second)),
		}}}, model.ProviderNotFound, nil, `no email to Bob@Example.com "Invoice 42" since 2026-03-02 08:59:55Z among the 2 items at messages (GMAIL_FETCH_EMAILS)`},
		{"empty mailbox", &scriptedRunner{data: map[string]any{"messages": []any{}}}, model.ProviderNotFound, nil, `since 2026-03-02 08:59:55Z at messages, which holds none since then (GMAIL_FETCH_EMAILS)`},
		{"older Composio wrapper", &scriptedRunner{data: map[string]any{"response_data": map[string]any{"messages": []any{
			msg("m2", "bob@example.com", "Invoice 42", t0.Add(2*time.Second)),
		}}}}, model.ProviderFound, []string{"m2"}, "found email"},
		{"items without the compared field are unknown, not absent", &scriptedRunner{data: map[string]any{"messages": []any{
			map[string]any{"messageId": "m2", "messageTimestamp": t0.Add(time.Second).Format(time.RFC3339)},
		}}}, model.ProviderUnknown, nil, "1 of 1 items GMAIL_FETCH_EMAILS returned have no to to compare: check manually in Gmail"},
		{"read failed", &scriptedRunner{err: errors.New("429 rate limited")}, model.ProviderUnknown, nil, "GMAIL_FETCH_EMAILS failed: 429 rate limited"},
		{"tool failed", &scriptedRunner{fail: "invalid_grant"}, model.ProviderUnknown, nil, "GMAIL_FETCH_EMAILS failed: invalid_grant"},
		// Current GMAIL_FETCH_EMAILS omits messages when nothing matches: an empty result, not an unreadable one.
		{"no list", &scriptedRunner{data: map[string]any{"count": 3}}, model.ProviderNotFound, nil, `since 2026-03-02 08:59:55Z at messages, which holds none since then (GMAIL_FETCH_EMAILS)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewVerifiers(tt.r, nil, WithClock(fixedClock()))
			st := v.Verify(context.Background(), sendExec())
			if st.State != tt.state {
				t.Errorf("state = %s, want %s (%s)", st.State, tt.state, st.Reason)
			}
			if !strings.Contains(st.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", st.Reason, tt.reason)
			}
			var ids []string
			for _, m := range st.Matches {
				ids = append(ids, m.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.matches, ",") {
				t.Errorf("matches = %v, want %v", ids, tt.matches)
			}
			if st.ReadTool != "GMAIL_FETCH_EMAILS" || st.Verifier == "" || !st.CheckedAt.Equal(t0.Add(time.Hour)) {
				t.Errorf("evidence fields: %+v", st)
			}
			if len(tt.r.calls) != 1 {
				t.Fatalf("read calls = %d", len(tt.r.calls))
			}
			c := tt.r.calls[0]
			if c.ConnectedAccountID != "ca_9" || c.UserID != "u9" || c.Slug != "GMAIL_FETCH_EMAILS" {
				t.Errorf("read call = %+v", c)
			}
			var args map[string]any
			_ = json.Unmarshal(c.Arguments, &args)
			want := `in:sent to:Bob@Example.com subject:"Invoice 42" after:` + "1772441995"
			if args["query"] != want {
				t.Errorf("query = %q, want %q", args["query"], want)
			}
			if string(st.ReadArgs) != string(c.Arguments) {
				t.Errorf("ReadArgs %s differ from the arguments sent %s", st.ReadArgs, c.Arguments)
			}
		})
	}
}

func TestVerifyWithoutVerifierOrArguments(t *testing.T) {
	r := &scriptedRunner{}
	v := NewVerifiers(r, nil)
	e := sendExec()
	e.ToolSlug, e.ToolkitSlug = "ZENDESK_CREATE_TICKET", "zendesk"
	if st := v.Verify(context.Background(), e); st.State != model.ProviderUnknown || st.Reason != "no verifier for ZENDESK_CREATE_TICKET: check manually in zendesk" {
		t.Errorf("no verifier: %+v", st)
	}
	e = sendExec()
	e.ToolSlug, e.ToolkitSlug = "SLACK_SEND_MESSAGE", ""
	e.Arguments, e.Detailed = nil, false
	if st := v.Verify(context.Background(), e); st.State != model.ProviderUnknown || !strings.Contains(st.Reason, "not loaded") {
		t.Errorf("list entry: %+v", st)
	}
	e = sendExec()
	e.Arguments = json.RawMessage(`{"body":"no recipient, no subject"}`)
	if st := v.Verify(context.Background(), e); st.State != model.ProviderUnknown || !strings.Contains(st.Reason, "nothing to search by") {
		t.Errorf("unsearchable arguments: %+v", st)
	}
	if len(r.calls) != 0 {
		t.Errorf("a read ran without a way to match: %d calls", len(r.calls))
	}
	off := NewVerifiers(nil, nil)
	st := off.Verify(context.Background(), sendExec())
	if st.State != model.ProviderUnknown || !strings.Contains(st.Reason, "offline") || len(st.ReadArgs) == 0 {
		t.Errorf("offline: %+v", st)
	}
}

func TestVerifySlackThreadReplyIsNeverNotFound(t *testing.T) {
	e := &model.Execution{ToolSlug: "SLACK_SEND_MESSAGE", StartTime: t0, Detailed: true,
		Arguments: json.RawMessage(`{"channel":"C1","text":"on it","thread_ts":"1772441000.000100"}`)}
	r := &scriptedRunner{data: map[string]any{"messages": []any{}}}
	st := NewVerifiers(r, nil).Verify(context.Background(), e)
	if st.State != model.ProviderUnknown || !strings.Contains(st.Reason, "thread reply") {
		t.Errorf("thread reply absent from history: %+v", st)
	}
	r.data = map[string]any{"messages": []any{map[string]any{"ts": "1772442002.000100", "text": "on it", "thread_ts": "1772441000.000100"}}}
	if st := NewVerifiers(r, nil).Verify(context.Background(), e); st.State != model.ProviderFound {
		t.Errorf("thread reply listed: %+v", st)
	}
	e.Arguments = json.RawMessage(`{"channel":"C1","text":"on it","thread_ts":"1772441000.000100","reply_broadcast":true}`)
	r.data = map[string]any{"messages": []any{}}
	if st := NewVerifiers(r, nil).Verify(context.Background(), e); st.State != model.ProviderNotFound {
		t.Errorf("broadcast reply absent: %+v", st)
	}
}

func TestVerifyPageFull(t *testing.T) {
	var items []any
	for i := range 50 {
		items = append(items, msg("x", "bob@example.com", "Other", t0.Add(time.Duration(i+1)*time.Second)))
	}
	st := NewVerifiers(&scriptedRunner{data: map[string]any{"messages": items}}, nil).Verify(context.Background(), sendExec())
	if st.State != model.ProviderUnknown || !strings.Contains(st.Reason, "page was full") {
		t.Errorf("full page after the start: %+v", st)
	}
	items[49] = msg("old", "bob@example.com", "Other", t0.Add(-time.Hour))
	st = NewVerifiers(&scriptedRunner{data: map[string]any{"messages": items}}, nil).Verify(context.Background(), sendExec())
	if st.State != model.ProviderNotFound {
		t.Errorf("a full page reaching back past the start covers the window: %+v", st)
	}
}

func TestVerifyDeleteAndLabel(t *testing.T) {
	del := &model.Execution{ToolSlug: "GMAIL_DELETE_MESSAGE", StartTime: t0, Detailed: true, Arguments: json.RawMessage(`{"message_id":"19abc"}`)}
	st := NewVerifiers(&scriptedRunner{fail: "Requested entity was not found. (message 19abc)"}, nil).Verify(context.Background(), del)
	if st.State != model.ProviderFound || len(st.Matches) != 1 || st.Matches[0].ID != "19abc" {
		t.Errorf("deleted message: %+v", st)
	}
	st = NewVerifiers(&scriptedRunner{data: map[string]any{"messageId": "19abc", "labelIds": []any{"INBOX"}}}, nil).Verify(context.Background(), del)
	if st.State != model.ProviderNotFound || !strings.Contains(st.Reason, "still exists") {
		t.Errorf("message still there: %+v", st)
	}
	st = NewVerifiers(&scriptedRunner{err: errors.New("connection refused")}, nil).Verify(context.Background(), del)
	if st.State != model.ProviderUnknown {
		t.Errorf("read error other than not found: %+v", st)
	}

	lbl := &model.Execution{ToolSlug: "GMAIL_ADD_LABEL_TO_EMAIL", StartTime: t0, Detailed: true,
		Arguments: json.RawMessage(`{"message_id":"19abc","add_label_ids":["STARRED","Label_1"],"remove_label_ids":"UNREAD"}`)}
	for _, tt := range []struct {
		labels []any
		want   model.ProviderStateKind
	}{
		{[]any{"INBOX", "STARRED", "Label_1"}, model.ProviderFound},
		{[]any{"INBOX", "STARRED"}, model.ProviderNotFound},                      // one label missing
		{[]any{"INBOX", "STARRED", "Label_1", "UNREAD"}, model.ProviderNotFound}, // not removed
	} {
		st := NewVerifiers(&scriptedRunner{data: map[string]any{"messageId": "19abc", "labelIds": tt.labels}}, nil).Verify(context.Background(), lbl)
		if st.State != tt.want {
			t.Errorf("labels %v: %s (%s)", tt.labels, st.State, st.Reason)
		}
	}
}

func TestVerifyOtherBuiltins(t *testing.T) {
	after := t0.Add(2 * time.Second)
	tests := []struct {
		slug, args string
		data       any
		readTool   string
		id         string
	}{
		{"SLACK_SEND_MESSAGE", `{"channel":"C1","text":"deploy <done> & dusted"}`,
			map[string]any{"ok": true, "messages": []any{map[string]any{"ts": "1772442002.000100", "text": "deploy &lt;done&gt; &amp; dusted"}}},
			"SLACK_FETCH_CONVERSATION_HISTORY", "1772442002.000100"},
		{"SLACK_CHAT_POST_MESSAGE", `{"channel":"C1","text":"hi"}`,
			map[string]any{"messages": []any{map[string]any{"ts": "1772442002.000100", "text": "hi"}}},
			"SLACK_FETCH_CONVERSATION_HISTORY", "1772442002.000100"},
		{"GITHUB_CREATE_AN_ISSUE", `{"owner":"acme","repo":"api","title":"Crash on login"}`,
			map[string]any{"details": []any{map[string]any{"number": 17, "title": "Crash on login", "created_at": after.Format(time.RFC3339)}}},
			"GITHUB_LIST_REPOSITORY_ISSUES", "17"},
		{"GITHUB_CREATE_AN_ISSUE_COMMENT", `{"owner":"acme","repo":"api","issue_number":17,"body":"+1"}`,
			map[string]any{"comments": []any{map[string]any{"id": 99, "body": "+1", "created_at": after.Format(time.RFC3339)}}},
			"GITHUB_LIST_ISSUE_COMMENTS", "99"},
		{"HUBSPOT_CREATE_CONTACT", `{"email":"ann@acme.io","firstname":"Ann"}`,
			map[string]any{"results": []any{map[string]any{"id": "501", "properties": map[string]any{"email": "ann@acme.io", "firstname": "Ann"}, "createdAt": after.Format(time.RFC3339)}}},
			"HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA", "501"},
		{"NOTION_CREATE_NOTION_PAGE", `{"parent_id":"p1","title":"Q3 plan"}`,
			map[string]any{"response_data": map[string]any{"results": []any{map[string]any{"id": "pg-1", "created_time": after.Format(time.RFC3339),
				"properties": map[string]any{"Name": map[string]any{"type": "title", "title": []any{map[string]any{"plain_text": "Q3 plan"}}}}}}}},
			"NOTION_SEARCH_NOTION_PAGE", "pg-1"},
		{"LINEAR_CREATE_LINEAR_ISSUE", `{"team_id":"t1","title":"Flaky test"}`,
			map[string]any{"issues": []any{map[string]any{"id": "i-1", "identifier": "ENG-7", "title": "Flaky test", "team": map[string]any{"id": "t1"}, "createdAt": after.Format(time.RFC3339)}}},
			"LINEAR_LIST_LINEAR_ISSUES", "ENG-7"},
		{"GOOGLECALENDAR_CREATE_EVENT", `{"summary":"Standup","start_datetime":"2026-03-03T09:00:00"}`,
			map[string]any{"event_data": map[string]any{"event_data": []any{map[string]any{"id": "ev1", "summary": "Standup", "created": after.Format(time.RFC3339)}}}},
			"GOOGLECALENDAR_FIND_EVENT", "ev1"},
		{"GMAIL_REPLY_TO_THREAD", `{"thread_id":"t1","recipient_email":"bob@x.io","message_body":"Thanks, received."}`,
			map[string]any{"messages": []any{map[string]any{"messageId": "r1", "threadId": "t1", "messageText": "Thanks, received.\n\nOn Mon, Bob wrote: ...", "messageTimestamp": after.Format(time.RFC3339)}}},
			"GMAIL_FETCH_EMAILS", "r1"},
		{"GMAIL_CREATE_EMAIL_DRAFT", `{"recipient_email":"bob@x.io","subject":"Draft","body":"b"}`,
			map[string]any{"drafts": []any{map[string]any{"id": "r-1", "message": map[string]any{"id": "m", "to": "bob@x.io", "subject": "Draft", "messageTimestamp": after.Format(time.RFC3339)}}}},
			"GMAIL_LIST_DRAFTS", "r-1"},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			r := &scriptedRunner{data: tt.data}
			e := &model.Execution{ToolSlug: tt.slug, StartTime: t0, Detailed: true, Arguments: json.RawMessage(tt.args)}
			st := NewVerifiers(r, nil).Verify(context.Background(), e)
			if st.State != model.ProviderFound || len(st.Matches) != 1 || st.Matches[0].ID != tt.id || st.ReadTool != tt.readTool {
				t.Errorf("got %+v", st)
			}
			if triage.KindFromSlug(st.ReadTool) != model.KindRead {
				t.Errorf("verifier for %s runs %s, which is not a read", tt.slug, st.ReadTool)
			}
		})
	}
}

func TestVerifyConfigSpec(t *testing.T) {
	spec := VerifierSpec{
		Tool: "OUTLOOK_SEND_EMAIL", ReadTool: "OUTLOOK_LIST_MESSAGES", Items: "data.value", TimeField: "sentDateTime",
		Arguments: map[string]any{"search": `"{{.subject}}"`, "top": int64(25), "filter": map[string]any{"after": "{{._since_unix}}"}},
		Match:     map[string]string{"to": "{{.to_email}}", "subject": "{{.subject}}", "importance": "{{.importance}}"},
		Contains:  map[string]string{"body.content": "{{.body}}"},
	}
	data := map[string]any{"value": []any{
		map[string]any{"id": "o1", "to": "Dan <dan@x.io>", "subject": "Hello", "body": map[string]any{"content": "<p>see you soon</p>"}, "sentDateTime": t0.Add(time.Second).Format(time.RFC3339)},
		map[string]any{"id": "o2", "to": "dan@x.io", "subject": "Hello", "body": map[string]any{"content": "other"}, "sentDateTime": t0.Add(time.Second).Format(time.RFC3339)},
	}}
	r := &scriptedRunner{data: data}
	e := &model.Execution{ToolSlug: "outlook_send_email", StartTime: t0, Detailed: true,
		Arguments: json.RawMessage(`{"to_email":"dan@x.io","subject":"Hello","body":"see you soon"}`)}
	st := NewVerifiers(r, []VerifierSpec{spec}).Verify(context.Background(), e)
	if st.State != model.ProviderFound || len(st.Matches) != 1 || st.Matches[0].ID != "o1" {
		t.Fatalf("got %+v", st)
	}
	var args map[string]any
	_ = json.Unmarshal(r.calls[0].Arguments, &args)
	if args["search"] != `"Hello"` || args["top"] != float64(25) || args["filter"].(map[string]any)["after"] != "1772441995" {
		t.Errorf("rendered arguments = %v", args)
	}

	bad := NewVerifiers(r, []VerifierSpec{{Tool: "X_SEND", ReadTool: "X_SEND_TWICE", Match: map[string]string{"a": "b"}}})
	st = bad.Verify(context.Background(), &model.Execution{ToolSlug: "X_SEND", Detailed: true, Arguments: json.RawMessage(`{}`)})
	if st.State != model.ProviderUnknown || !strings.Contains(st.Reason, "invalid") || bad.Has("X_SEND") {
		t.Errorf("invalid spec: %+v", st)
	}
}

func TestVerifiersListing(t *testing.T) {
	v := NewVerifiers(nil, nil)
	for _, slug := range []string{"GMAIL_SEND_EMAIL", "GMAIL_REPLY_TO_THREAD", "GMAIL_CREATE_EMAIL_DRAFT", "GMAIL_ADD_LABEL_TO_EMAIL",
		"GMAIL_DELETE_MESSAGE", "SLACK_SEND_MESSAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_CHAT_POST_MESSAGE",
		"GITHUB_CREATE_AN_ISSUE", "GITHUB_CREATE_AN_ISSUE_COMMENT", "HUBSPOT_CREATE_CONTACT", "NOTION_CREATE_NOTION_PAGE",
		"LINEAR_CREATE_LINEAR_ISSUE", "GOOGLECALENDAR_CREATE_EVENT"} {
		if !v.Has(slug) {
			t.Errorf("no built-in verifier for %s", slug)
		}
		if rt := v.ReadTool(slug); triage.KindFromSlug(rt) != model.KindRead {
			t.Errorf("%s verified by %s, not a read", slug, rt)
		}
	}
	if len(v.Tools()) != 14 {
		t.Errorf("Tools() = %v", v.Tools())
	}
}

// taggedRunner is a read-tool runner with a catalog: it says what each tool's tags are and
// counts which way each read ran.
type taggedRunner struct {
	tags        map[string][]string
	retried     int
	once        int
	catalogFail bool
}

func (r *taggedRunner) GetTool(_ context.Context, slug string) (model.Tool, error) {
	if r.catalogFail {
		return model.Tool{}, errors.New("tools endpoint down")
	}
	return model.Tool{Slug: slug, Tags: r.tags[slug]}, nil
}

func (r *taggedRunner) RunReadTool(context.Context, model.ToolCall) (model.ToolResult, error) {
	r.retried++
	return model.ToolResult{Successful: true, Data: json.RawMessage(`{"messages":[]}`)}, nil
}

func (r *taggedRunner) RunReadToolOnce(context.Context, model.ToolCall) (model.ToolResult, error) {
	r.once++
	return model.ToolResult{Successful: true, Data: json.RawMessage(`{"messages":[]}`)}, nil
}

// A verifier's read tool runs only when its definition does not say otherwise: destructiveHint,
// or hints without readOnlyHint, refuse it; readOnlyHint lets it run with the read retries;
// without tags (the catalog down) it runs once, with no retry.
func TestVerifierReadToolsAreCheckedByTheirTags(t *testing.T) {
	e := &model.Execution{ID: "log_1", ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", Detailed: true,
		Arguments: json.RawMessage(`{"recipient_email":"a@b.c","subject":"s","body":"b"}`)}
	read := NewVerifiers(nil, nil).ReadTool("GMAIL_SEND_EMAIL")
	for _, tt := range []struct {
		name        string
		tags        []string
		catalogFail bool
		retried     int
		once        int
		unknown     bool
	}{
		{"tagged read-only", []string{"readOnlyHint"}, false, 1, 0, false},
		{"tagged destructive", []string{"readOnlyHint", "destructiveHint"}, false, 0, 0, true},
		{"tagged a write", []string{"openWorldHint"}, false, 0, 0, true},
		{"no hints", []string{"important"}, false, 0, 1, false},
		{"catalog down", nil, true, 0, 1, false},
	} {
		r := &taggedRunner{tags: map[string][]string{read: tt.tags}, catalogFail: tt.catalogFail}
		st := NewVerifiers(r, nil).Verify(context.Background(), e)
		if r.retried != tt.retried || r.once != tt.once {
			t.Errorf("%s: ran with retries %d, once %d; want %d, %d (%s)", tt.name, r.retried, r.once, tt.retried, tt.once, st.Reason)
		}
		if (st.State == model.ProviderUnknown) != tt.unknown {
			t.Errorf("%s: state %s (%s)", tt.name, st.State, st.Reason)
		}
	}
}
