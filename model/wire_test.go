package model

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseRecordDetail(t *testing.T) {
	raw, err := os.ReadFile("testdata/detail.json")
	if err != nil {
		t.Fatal(err)
	}
	e, err := ParseRecord(raw)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"id", e.ID, "log_-jRTWClpBoVo"},
		{"timestamp", e.Timestamp, time.Date(2026, 11, 28, 10, 15, 2, 123e6, time.UTC)},
		{"tool", e.ToolSlug, "GMAIL_SEND_EMAIL"},
		{"toolkit", e.ToolkitSlug, "gmail"},
		{"user", e.UserID, "user_42"},
		{"account", e.ConnectedAccountID, "ca_abc"},
		{"status", e.Status, StatusFailed},
		{"level", e.Level, "error"},
		{"duration", e.Duration, 61234 * time.Millisecond},
		{"has duration", e.HasDuration, true},
		{"start", e.StartTime, time.UnixMilli(1764324902123).UTC()},
		{"end", e.EndTime, time.UnixMilli(1764324963357).UTC()},
		{"request id", e.RequestID, "req-123"},
		{"session", e.SessionID, "sess_1"},
		{"trace", e.TraceID, "tr_1"},
		{"source", e.Source, Source{Host: "sdk", Framework: "openai", Language: "python"}},
		{"sdk", e.SDKVersion, "0.15.2"},
		{"retry count", e.RetryCount, 1},
		{"parent", e.Parent == nil, true},
		{"args", string(e.Arguments), `{"recipient_email": "a@example.com", "subject": "Hi", "body": "x"}`},
		{"error kind", e.Error.Kind, ErrTimeout},
		{"error status", e.Error.HTTPStatus, 504},
		{"error message", e.Error.Message, "504 Gateway Timeout"},
		{"detailed", e.Detailed, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestParseRecordVariants(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, e Execution)
	}{
		{"list entry with alternative keys", `{"id":"log_1","timestamp":"2026-11-28T10:00:00Z","status":"SUCCESS","metadata":{"tool":"SLACK_SEND_MESSAGE","toolkit":"slack"},"metrics":{"duration_ms":"202"},"parent":{"log_id":"log_0","tool_slug":"X"}}`,
			func(t *testing.T, e Execution) {
				if e.ToolSlug != "SLACK_SEND_MESSAGE" || e.ToolkitSlug != "slack" || e.Status != "success" {
					t.Errorf("got %+v", e)
				}
				if e.Duration != 202*time.Millisecond || e.Parent == nil || e.Parent.LogID != "log_0" || e.Detailed {
					t.Errorf("duration/parent/detailed: %+v", e)
				}
				if e.RetryCount != -1 {
					t.Errorf("retry count = %d, want -1 (unknown)", e.RetryCount)
				}
			}},
		{"primary keys win over alternatives", `{"id":"a","metadata":{"tool":"OLD","tool_slug":"NEW","toolkit":"o","toolkit_slug":"n"}}`,
			func(t *testing.T, e Execution) {
				if e.ToolSlug != "NEW" || e.ToolkitSlug != "n" {
					t.Errorf("got %q %q", e.ToolSlug, e.ToolkitSlug)
				}
			}},
		{"wrong types are skipped, the rest kept", `{"id":"b","timestamp":12,"status":["x"],"metadata":"nope","metrics":{"duration_ms":{"x":1}},"timings":{"start_time":"soon"},"context":{"request_id":7},"data":{"request":"str","error":"plain failure"}}`,
			func(t *testing.T, e Execution) {
				if e.Status != "" || e.ToolSlug != "" || e.HasDuration || !e.StartTime.IsZero() {
					t.Errorf("odd fields leaked: %+v", e)
				}
				if e.RequestID != "7" {
					t.Errorf("numeric request id = %q, want 7", e.RequestID)
				}
				if e.Error == nil || e.Error.Message != "plain failure" {
					t.Errorf("string error not kept: %+v", e.Error)
				}
			}},
		{"numeric id and epoch timestamp", `{"id":12345,"timestamp":1764324902123}`,
			func(t *testing.T, e Execution) {
				if e.ID != "12345" || !e.Timestamp.Equal(time.UnixMilli(1764324902123)) {
					t.Errorf("got %q %v", e.ID, e.Timestamp)
				}
			}},
		{"error taken from response when data.error absent", `{"id":"c","data":{"response":{"successful":false,"error":"Invalid recipient"}}}`,
			func(t *testing.T, e Execution) {
				if e.Error == nil || e.Error.Message != "Invalid recipient" {
					t.Errorf("got %+v", e.Error)
				}
			}},
		{"duration from timings when metrics absent", `{"id":"d","timings":{"start_time":1000000000000,"end_time":1000000001500}}`,
			func(t *testing.T, e Execution) {
				if !e.HasDuration || e.Duration != 1500*time.Millisecond {
					t.Errorf("duration %v %v", e.HasDuration, e.Duration)
				}
				if !e.Timestamp.Equal(e.StartTime) {
					t.Errorf("timestamp should fall back to start time")
				}
			}},
		{"negative and NaN-like durations ignored", `{"id":"e","metrics":{"duration_ms":-5}}`,
			func(t *testing.T, e Execution) {
				if e.HasDuration {
					t.Errorf("negative duration accepted")
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ParseRecord([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, e)
		})
	}
}

func TestParseRecordGarbage(t *testing.T) {
	tests := []struct {
		in   string
		want error // nil: any error
	}{
		{``, ErrNotObject},
		{`   `, ErrNotObject},
		{`[]`, ErrNotObject},
		{`"log_1"`, ErrNotObject},
		{`null`, ErrNotObject},
		{`{}`, ErrNoID},
		{`{"id":""}`, ErrNoID},
		{`{"id":null}`, ErrNoID},
		{`{"id":"x"`, nil},
		{`{"id":"x",}`, nil},
		{"{\"id\":\"x\"}\x00garbage", nil},
	}
	for _, tt := range tests {
		_, err := ParseRecord([]byte(tt.in))
		if err == nil {
			t.Errorf("ParseRecord(%q): no error", tt.in)
			continue
		}
		if tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("ParseRecord(%q) = %v, want %v", tt.in, err, tt.want)
		}
		if strings.Contains(err.Error(), "panic") {
			t.Errorf("error mentions panic: %v", err)
		}
	}
}

func TestWireRoundTrip(t *testing.T) {
	raw, _ := os.ReadFile("testdata/detail.json")
	e, err := ParseRecord(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, detail := range []bool{true, false} {
		b, err := jsonMarshal(ToWire(&e, detail))
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		if back.ID != e.ID || back.ToolSlug != e.ToolSlug || back.Duration != e.Duration || back.RetryCount != e.RetryCount || !back.Timestamp.Equal(e.Timestamp) {
			t.Errorf("detail=%v: round trip lost fields: %+v", detail, back)
		}
		if detail && (back.RequestID != e.RequestID || back.Error == nil || back.Error.HTTPStatus != 504 || !back.EndTime.Equal(e.EndTime)) {
			t.Errorf("detail round trip lost detail fields: %+v", back)
		}
		if !detail && back.Detailed {
			t.Errorf("list entry parsed as detailed")
		}
	}
}

func TestParseLogsPage(t *testing.T) {
	p, err := ParseLogsPage([]byte(`{"logs":[{"id":"a"},{"nope":1},"x",{"id":"b"}],"next_cursor":"c2"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Executions) != 2 || p.NextCursor != "c2" || len(p.Bad) != 2 || p.Bad[0].Index != 1 || p.Bad[1].Index != 2 {
		t.Fatalf("got %+v", p)
	}
	p, err = ParseLogsPage([]byte(`{"logs":[],"next_cursor":null}`))
	if err != nil || p.NextCursor != "" {
		t.Fatalf("end page: %+v %v", p, err)
	}
	for _, bad := range []string{``, `[]`, `{"logs":5}`, `{"next_cursor":"x"}`, `{"logs":[`} {
		if _, err := ParseLogsPage([]byte(bad)); err == nil {
			t.Errorf("ParseLogsPage(%q): no error", bad)
		}
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026-11-28T10:15:02.123Z", time.Date(2026, 11, 28, 10, 15, 2, 123e6, time.UTC), true},
		{"2026-11-28T11:15:02+01:00", time.Date(2026, 11, 28, 10, 15, 2, 0, time.UTC), true},
		{"2026-11-28T10:15:02", time.Date(2026, 11, 28, 10, 15, 2, 0, time.UTC), true},
		{"1764324902", time.Unix(1764324902, 0).UTC(), true},
		{"1764324902123", time.UnixMilli(1764324902123).UTC(), true},
		{"", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"-1", time.Time{}, false},
		{"1e300", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseTime(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v %v, want %v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	raw, _ := os.ReadFile("testdata/detail.json")
	f.Add(raw)
	f.Add([]byte(`{"id":"x","metadata":{"tool":"A"},"metrics":{"duration_ms":"1"}}`))
	f.Add([]byte(`{"logs":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseRecord(b)
		if err == nil && e.ID == "" {
			t.Fatal("accepted a record without id")
		}
		_, _ = ParseLogsPage(b)
	})
}

func TestParseRecordRefusesDeepNesting(t *testing.T) {
	nest := func(levels int) string {
		return `{"id":"deep","data":{"request":{"arguments":` + strings.Repeat(`{"a":[`, levels) + `1` + strings.Repeat(`]}`, levels) + `}}}`
	}
	if _, err := ParseRecord([]byte(nest(10))); err != nil {
		t.Fatalf("moderate nesting refused: %v", err)
	}
	_, err := ParseRecord([]byte(nest(MaxRecordDepth)))
	if !errors.Is(err, ErrTooDeep) {
		t.Fatalf("nesting past %d levels: err = %v, want ErrTooDeep", MaxRecordDepth, err)
	}
	if !strings.Contains(err.Error(), "levels") {
		t.Errorf("message does not say the limit: %v", err)
	}
	// brackets inside strings are not nesting
	if _, err := ParseRecord([]byte(`{"id":"s","message":"` + strings.Repeat("[{", 500) + `"}`)); err != nil {
		t.Fatalf("brackets in a string counted as nesting: %v", err)
	}
}

// A duration_ms too large for a time.Duration is unknown, not a negative duration.
func TestHugeDurationIsUnknown(t *testing.T) {
	for _, v := range []string{"9.3e15", "1e300", "9223372036854775807"} {
		e, err := ParseRecord([]byte(`{"id":"log_1","status":"success","metrics":{"duration_ms":` + v + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		if e.HasDuration || e.Duration < 0 {
			t.Errorf("duration_ms %s: has %v, %v", v, e.HasDuration, e.Duration)
		}
	}
	e, _ := ParseRecord([]byte(`{"id":"log_1","status":"success","metrics":{"duration_ms":1500}}`))
	if !e.HasDuration || e.Duration.Milliseconds() != 1500 {
		t.Errorf("ordinary duration: %v %v", e.HasDuration, e.Duration)
	}
}

// TestRecordTypesAreKept: a record of another type than tool.execution (a trigger delivery, an
// account event) keeps its type through both parsers and back to the wire; a tool execution
// keeps none.
func TestRecordTypesAreKept(t *testing.T) {
	for _, tt := range []struct{ typ, want string }{{"tool.execution", ""}, {"", ""}, {"trigger.message", "trigger.message"}, {"connected_account.created", "connected_account.created"}} {
		rec := `{"id":"log_1","timestamp":"2026-03-01T10:00:00Z","status":"success","type":"` + tt.typ + `","metadata":{"tool_slug":"GMAIL_NEW_GMAIL_MESSAGE"}}`
		fast, err := ParseRecord([]byte(rec))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := parseRecordSlow([]byte(rec))
		if err != nil {
			t.Fatal(err)
		}
		if fast.Type != tt.want || slow.Type != tt.want || fast.IsToolExecution() != (tt.want == "") {
			t.Errorf("type %q: fast %q slow %q", tt.typ, fast.Type, slow.Type)
		}
		if w := ToWire(&fast, false); w.Type != first(tt.want, TypeToolExecution) {
			t.Errorf("type %q back to the wire: %q", tt.typ, w.Type)
		}
	}
}

// A trigger delivery keeps its identity through an export: the event id, the attempt, the
// trigger and the handler's error, read back by the parser (the fast one defers to the lenient
// one for it), and a malformed trigger object spoils nothing else.
func TestATriggerDeliveryRoundTrips(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e := Execution{ID: "log_t1", Type: TypeTriggerMessage, Timestamp: at, ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE", ToolkitSlug: "gmail",
		UserID: "u1", ConnectedAccountID: "ca_1", Status: StatusSuccess, RetryCount: -1, Detailed: true,
		Delivery: &Delivery{EventID: "msg_1", Attempt: 2, TriggerID: "ti_9", Error: "handler timed out", EndpointID: "we_2"}}
	b, err := json.Marshal(ToWire(&e, true))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Delivery == nil || *got.Delivery != *e.Delivery || got.Type != TypeTriggerMessage {
		t.Fatalf("delivery %+v, want %+v", got.Delivery, e.Delivery)
	}
	bad, err := ParseRecord([]byte(`{"id":"log_t2","type":"trigger.message","trigger":{"event_id":7,"attempt":"x"},"metadata":{"user_id":"u1"}}`))
	if err != nil || bad.UserID != "u1" || bad.Delivery == nil || bad.Delivery.EventID != "7" || bad.Delivery.Attempt != 0 {
		t.Fatalf("a malformed trigger object: %+v %v", bad, err)
	}
}

// TestAnApprovedReCallRoundTrips: the request_state and input_responses an approved re-call sent
// (data.request) survive an export and a parse, in both parsers.
func TestAnApprovedReCallRoundTrips(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	e := Execution{ID: "log_a2", Timestamp: at, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "u1", SessionID: "trs_1",
		Status: StatusSuccess, RetryCount: -1, Detailed: true, Arguments: json.RawMessage(`{"to":"a@b"}`),
		Approval: &Approval{RequestState: "rs_9", Responses: json.RawMessage(`[{"id":"ir_1","approved":true}]`)}}
	b, err := json.Marshal(ToWire(&e, true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"request":{"arguments":{"to":"a@b"},"request_state":"rs_9","input_responses":[{"id":"ir_1","approved":true}]}`) {
		t.Fatalf("data.request is %s", b)
	}
	for name, parse := range map[string]func([]byte) (Execution, error){"fast": ParseRecord, "slow": parseRecordSlow} {
		got, err := parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if got.Approval == nil || got.Approval.RequestState != "rs_9" || string(got.Approval.Responses) != string(e.Approval.Responses) {
			t.Errorf("%s: approval %+v", name, got.Approval)
		}
	}
	plain, _ := ParseRecord([]byte(`{"id":"x","data":{"request":{"arguments":{}}}}`))
	if plain.Approval != nil {
		t.Errorf("a call without request_state has an approval: %+v", plain.Approval)
	}
}

// FuzzLogsPageLen: counting a page's records without decoding it agrees with decoding it,
// for any page ParseLogsPage reads.
func FuzzLogsPageLen(f *testing.F) {
	for _, s := range []string{`{"logs":[],"next_cursor":null}`, `{"next_cursor":"c","logs":[{"id":"a"},{"id":"b","x":[1,{"y":"]"}]},3]}`,
		`{"logs":[{"id":"a"}],"logs":[{"id":"b"},{"id":"c"}]}`, `{"a":"\"logs\"","logs":[ "s" , null , {"id":"x"} ]}`, `{"logs":{}}`, `[1]`, `{"logs":[1,}`, `{"LOGS":[1,2]}`, `{"\\u006cogs":[1]}`, `{"logs":[1],"Logs":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseLogsPage(b)
		n, ok := LogsPageLen(b)
		if err == nil && (!ok || n != len(p.Executions)+len(p.Bad)) {
			t.Fatalf("%q: counted %d (%v), parsed %d", b, n, ok, len(p.Executions)+len(p.Bad))
		}
	})
}
