package model

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// sameParse checks that ParseRecord (and a Parser, and ParseOwnedRecord) give exactly what the reference parser on
// encoding/json gives: the same Execution, or the same error.
func sameParse(t testing.TB, in []byte) {
	t.Helper()
	want, wantErr := parseRecordSlow(in)
	var p Parser
	owned := func(b []byte) (Execution, error) { return ParseOwnedRecord(append([]byte(nil), b...)) }
	for name, parse := range map[string]func([]byte) (Execution, error){"ParseRecord": ParseRecord, "Parser": p.Parse, "ParseOwnedRecord": owned} {
		got, err := parse(in)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%s(%q): error %v, reference %v", name, in, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			t.Fatalf("%s(%q):\n got %s\nwant %s", name, in, gj, wj)
		}
	}
}

// fastOnly reports whether the one-pass parser handled in without the reference parser.
func fastOnly(in []byte) bool {
	_, ok, _ := parseFast(in, nil)
	return ok
}

func TestFastParserMatchesReference(t *testing.T) {
	detail, err := os.ReadFile("testdata/detail.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		fast bool // the one-pass parser must handle it alone
	}{
		{"detail", string(detail), true},
		{"list entry", `{"id":"log_1","timestamp":"2026-11-28T10:00:00Z","status":"SUCCESS","metadata":{"tool":"SLACK_SEND_MESSAGE","toolkit":"slack"},"metrics":{"duration_ms":"202"},"parent":{"log_id":"log_0","tool_slug":"X"}}`, true},
		{"wrong types", `{"id":"b","timestamp":12,"status":["x"],"metadata":"nope","metrics":{"duration_ms":{"x":1}},"timings":{"start_time":"soon"},"context":{"request_id":7},"data":{"request":"str","error":"plain failure"}}`, true},
		{"numeric id", `{"id":12345,"timestamp":1764324902123}`, true},
		{"user agent in metadata", `{"id":"u","metadata":{"user_agent":"Composio/JS 0.13.1"}}`, true},
		{"user agent in context", `{"id":"u","context":{"user_agent":"composio-python/0.15.2 CPython/3.11"}}`, true},
		{"user agent in source, version given too", `{"id":"u","metadata":{"sdk_version":"0.20.0"},"source":{"language":"python","user_agent":"@composio/core/0.13.1"}}`, true},
		{"bool id", `{"id":true,"level":false}`, true},
		{"float id", `{"id":-1.5e3}`, true},
		{"null id", `{"id":null}`, true},
		{"object id", `{"id":{"a":1}}`, true},
		{"empty", `{}`, true},
		{"response error", `{"id":"c","data":{"response":{"successful":false,"error":"Invalid recipient"}}}`, true},
		{"response error not string", `{"id":"c","data":{"response":{"successful":false,"error":{"m":1}}}}`, true},
		{"data error wins over response", `{"id":"c","data":{"error":{"message":"x","http_status":"502","kind":"upstream_5xx"},"response":{"error":"y"}}}`, true},
		{"empty data error string", `{"id":"c","data":{"error":"","response":{"error":"y"}}}`, true},
		{"data error number", `{"id":"c","data":{"error":5}}`, true},
		{"approved re-call", `{"id":"c","data":{"request":{"arguments":{"to":"a@b"},"request_state":"rs_1","input_responses":[ {"id":"ir_1","approved":true} ]}}}`, true},
		{"request state alone", `{"id":"c","data":{"request":{"request_state":"rs_1"}}}`, true},
		{"request state a number, responses an object", `{"id":"c","data":{"request":{"request_state":7,"input_responses":{"id":"x"}}}}`, true},
		{"responses alone", `{"id":"c","data":{"request":{"input_responses":[]}}}`, true},
		{"arguments not object", `{"id":"c","data":{"request":{"arguments":"x"}}}`, true},
		{"arguments kept byte for byte", `{"id":"c","data":{"request":{"arguments":{ "a" : [1, 2.50, {"b":null}] , "c":"\u00e9\n"}}}}`, true},
		{"duration from timings", `{"id":"d","timings":{"start_time":1000000000000,"end_time":1000000001500}}`, true},
		{"timings as strings", `{"id":"d","timings":{"start_time":"1000000000","end_time":"2026-01-01T00:00:00+02:00"}}`, true},
		{"negative duration", `{"id":"e","metrics":{"duration_ms":-5}}`, true},
		{"huge duration", `{"id":"e","metrics":{"duration_ms":1e400}}`, true},
		{"infinite duration string", `{"id":"e","metrics":{"duration_ms":"Infinity"}}`, true},
		{"NaN duration string", `{"id":"e","metrics":{"duration_ms":" NaN "}}`, true},
		{"retry count string", `{"id":"e","metadata":{"retry_count":" 2 "}}`, true},
		{"retry count negative", `{"id":"e","metadata":{"retry_count":-1}}`, true},
		{"http status float", `{"id":"e","data":{"error":{"http_status":502.9}}}`, true},
		{"whitespace everywhere", " \t{ \"id\" : \"x\" ,\n\"metadata\" : { \"tool_slug\" : \"T\" } } \n", true},
		{"unknown keys skipped", `{"id":"x","type":"tool.execution","extra":[1,{"z":[true,false,null]}],"metadata":{"other":"v","tool_slug":"A"}}`, true},
		{"unicode values", `{"id":"日本","message":"héllo","metadata":{"user_id":"ü"}}`, true},
		{"escapes in values", `{"id":"a\"b","message":"line\nnext \u2603 \ud83d\ude00","metadata":{"tool_slug":"A\/B"}}`, true},
		{"lone surrogate", `{"id":"a\ud800b"}`, true},
		{"invalid utf8 value", "{\"id\":\"a\xffb\",\"message\":\"\xc3\"}", true},
		{"parent empty", `{"id":"a","parent":{"log_id":"","tool_slug":""}}`, true},
		{"parent null", `{"id":"a","parent":null}`, true},
		{"status upper", `{"id":"a","status":"FAILED"}`, true},
		{"status number", `{"id":"a","status":1}`, true},
		{"source", `{"id":"a","source":{"host":"sdk","framework":1,"language":null}}`, true},
		{"context request wins", `{"id":"a","context":{"request_id":""},"metadata":{"request_id":"m"}}`, true},
		{"context request overrides", `{"id":"a","metadata":{"request_id":"m"},"context":{"request_id":"c"}}`, true},
		{"timestamp falls back to start", `{"id":"a","timestamp":"garbage","timings":{"start_time":1764324902123}}`, true},
		{"timestamp epoch seconds float", `{"id":"a","timestamp":1764324902.5}`, true},
		{"timestamp space layout", `{"id":"a","timestamp":"2026-11-28 10:15:02"}`, true},
		{"deep unknown", `{"id":"a","x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, true},
		{"numbers", `{"id":"a","x":[0,-0,1.0,1e5,1E+5,-1.5e-3,123456789012345678901234567890]}`, true},
		{"empty containers", `{"id":"a","x":{},"y":[],"metadata":{},"data":{}}`, true},
		{"bom-free trailing unicode space", "{\"id\":\"a\"}\u00a0", true},

		// Handed to the reference parser: encoding/json's own rules decide.
		{"case-insensitive key", `{"ID":"upper"}`, false},
		{"case-insensitive nested key", `{"id":"a","metadata":{"Tool_Slug":"X"}}`, false},
		{"kelvin sign key", "{\"id\":\"a\",\"metadata\":{\"tool\u212ait\":\"K\"}}", false},
		{"escaped key", `{"\u0069d":"esc"}`, false},
		{"duplicate key", `{"id":"a","id":"b"}`, false},
		{"duplicate wrong type", `{"id":"a","id":[1]}`, false},
		{"duplicate object", `{"id":"a","metadata":{"tool":"A"},"metadata":null}`, false},
		{"duplicate nested", `{"id":"a","data":{"error":"x","error":{"message":"y"}}}`, false},
		{"too deep", `{"id":"a","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, false},
		{"invalid utf8 key", "{\"id\":\"a\",\"\xff\":1}", false},

		// Errors, worded by encoding/json.
		{"truncated", `{"id":"x"`, false},
		{"trailing comma", `{"id":"x",}`, false},
		{"trailing garbage", "{\"id\":\"x\"}\x00garbage", false},
		{"two objects", `{"id":"x"}{"id":"y"}`, false},
		{"control in string", "{\"id\":\"a\x01\"}", false},
		{"bad escape", `{"id":"a\x"}`, false},
		{"short unicode escape", `{"id":"a\u12"}`, false},
		{"leading zero", `{"id":01}`, false},
		{"bare dot", `{"id":1.}`, false},
		{"bare exponent", `{"id":1e}`, false},
		{"plus sign", `{"id":+1}`, false},
		{"bad literal", `{"id":tru}`, false},
		{"literal suffix", `{"id":truex}`, false},
		{"missing colon", `{"id" "x"}`, false},
		{"single quotes", `{'id':'x'}`, false},
		{"nested truncated", `{"id":"x","data":{"response":{"a":[1,2}}}`, false},
		{"unquoted key", `{id:"x"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameParse(t, []byte(tt.in))
			if tt.fast && !fastOnly([]byte(tt.in)) {
				t.Errorf("the one-pass parser gave up on %q", tt.in)
			}
			if !tt.fast && fastOnly([]byte(tt.in)) {
				t.Errorf("the one-pass parser took %q, which encoding/json must decide", tt.in)
			}
		})
	}
}

func TestFastParserRoundTrips(t *testing.T) {
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	e := Execution{
		ID: "log_1", Timestamp: base, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "user_1", ConnectedAccountID: "ca_1",
		Status: StatusFailed, Level: "error", Message: "Failed \"quoted\" <html> & more", StartTime: base, EndTime: base.Add(time.Second),
		Duration: time.Second, HasDuration: true, Arguments: json.RawMessage(`{"to":"a@example.com","n":[1,2]}`),
		Response: json.RawMessage(`{"data":{},"error":"boom","successful":false}`), Error: &ExecError{Message: "timeout", HTTPStatus: 504, Kind: ErrTimeout},
		RequestID: "req", SessionID: "sess", TraceID: "tr", Source: Source{Host: "sdk", Language: "python"}, SDKVersion: "0.15.2", RetryCount: 2,
		Parent: &Parent{LogID: "log_0", ToolSlug: "X"},
	}
	for _, detail := range []bool{true, false} {
		b, err := json.Marshal(ToWire(&e, detail))
		if err != nil {
			t.Fatal(err)
		}
		if !fastOnly(b) {
			t.Fatalf("the one-pass parser gave up on ToWire output %s", b)
		}
		sameParse(t, b)
	}
}

func TestParserInternsRepeatedStrings(t *testing.T) {
	var p Parser
	a, err := p.Parse([]byte(`{"id":"a","status":"SUCCESS","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"user_1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Parse([]byte(`{"id":"b","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"user_1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y string) bool { return x != "" && x == y && unsafe.StringData(x) == unsafe.StringData(y) }
	if !same(a.ToolSlug, b.ToolSlug) || !same(a.UserID, b.UserID) || !same(a.Status, b.Status) {
		t.Errorf("repeated strings not shared: %q %q %q", a.ToolSlug, a.UserID, a.Status)
	}
	if a.ID == b.ID {
		t.Errorf("ids mixed up")
	}
}

func FuzzFastParserMatchesReference(f *testing.F) {
	detail, _ := os.ReadFile("testdata/detail.json")
	f.Add(detail)
	for _, s := range []string{
		`{"id":"x","metadata":{"tool":"A"},"metrics":{"duration_ms":"1"}}`,
		`{"id":1,"data":{"error":{"message":"m","http_status":"5e2"},"response":{"error":"e","successful":false}}}`,
		`{"ID":"a","id":"b","Metadata":{"TOOL":"x"}}`,
		`{"id":"a\u00e9\ud83d","timings":{"start_time":"2026-01-01T00:00:00Z","end_time":1.5e12}}`,
		`{"id":"a","data":{"request":{"arguments":{"k":[1,{"z":null}]}}}}`,
		"{\"id\":\"\xe2\x84\xaa\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameParse(t, b)
	})
}

func TestParserKeepResponse(t *testing.T) {
	recs := []string{
		`{"id":"a","data":{"response":{"successful":false,"error":"Invalid recipient"}}}`,
		`{"ID":"a","data":{"response":{"successful":false,"error":"Invalid recipient"}}}`, // the reference parser's path
	}
	for _, rec := range recs {
		want, err := ParseRecord([]byte(rec))
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		p := Parser{KeepResponse: func(raw []byte) bool { seen = append(seen, string(raw)); return false }}
		got, err := p.Parse([]byte(rec))
		if err != nil {
			t.Fatal(err)
		}
		if got.Response != nil || len(seen) != 1 || seen[0] != string(want.Response) {
			t.Errorf("%s: response %s kept, KeepResponse saw %q", rec, got.Response, seen)
		}
		if got.Error == nil || got.Error.Message != "Invalid recipient" {
			t.Errorf("%s: the dropped response's error was lost: %+v", rec, got.Error)
		}
		got.Response = want.Response
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: otherwise different: %+v", rec, got)
		}
		keep := Parser{KeepResponse: func([]byte) bool { return true }}
		if got, _ := keep.Parse([]byte(rec)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: kept response differs: %+v", rec, got)
		}
	}
}

func TestFastTimesMatchParseTime(t *testing.T) {
	for _, s := range []string{
		"2026-02-28T23:59:53.037Z", "2026-02-28T23:59:53Z", "2026-02-28T23:59:53.1Z", "2026-02-28T23:59:53.123456789Z",
		"2026-02-28T23:59:53.1234567890Z", "2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z",
		"2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00,5Z", "2026-01-01t00:00:00Z",
		"2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00z", "+026-01-01T00:00:00Z", "2026-1-01T00:00:00Z", "2026-01-01T00:00:0xZ",
	} {
		want, wantOK := ParseTime(s)
		if got, ok := utcTime([]byte(s)); ok && (!wantOK || !reflect.DeepEqual(got, want)) {
			t.Errorf("utcTime(%q) = %v, ParseTime = %v %v", s, got, want, wantOK)
		}
		sameParse(t, []byte(`{"id":"a","timestamp":"`+s+`"}`))
	}
	if _, ok := utcTime([]byte("2026-02-28T23:59:53.037Z")); !ok {
		t.Error("the usual shape is not read directly")
	}
	for _, s := range []string{"1", "0", "99999999999", "100000000000", "1764324902123", "999999999999999", "1000000000000000", "0001764324902123"} {
		want, wantOK := ParseTime(s)
		x, ok := digits([]byte(s))
		if !ok {
			continue
		}
		if got, gotOK := epochTime(float64(x)); gotOK != wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("epoch %s = %v %v, ParseTime %v %v", s, got, gotOK, want, wantOK)
		}
		sameParse(t, []byte(`{"id":"a","timestamp":`+s+`,"timings":{"start_time":`+s+`}}`))
	}
}

// CopyPeople parses the same records, only without sharing users and accounts between them;
// the few-valued strings (tools, statuses) are still shared.
func TestParserCopyPeople(t *testing.T) {
	recs := []string{
		`{"id":"log_a1","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"user_18","connected_account_id":"ca_x1"}}`,
		`{"id":"log_a2","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"user_18","connected_account_id":"ca_x1"}}`,
	}
	var shared, copying Parser
	copying.CopyPeople = true
	var a, b [2]Execution
	for i, r := range recs {
		var err error
		if a[i], err = shared.Parse([]byte(r)); err != nil {
			t.Fatal(err)
		}
		if b[i], err = copying.Parse([]byte(r)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("record %d: %+v with CopyPeople, %+v without", i, b[i], a[i])
		}
	}
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	if !same(a[0].UserID, a[1].UserID) || !same(a[0].ConnectedAccountID, a[1].ConnectedAccountID) {
		t.Error("without CopyPeople the user and account are not shared")
	}
	if same(b[0].UserID, b[1].UserID) || same(b[0].ConnectedAccountID, b[1].ConnectedAccountID) {
		t.Error("with CopyPeople the user and account are still shared")
	}
	if !same(b[0].ToolSlug, b[1].ToolSlug) || !same(b[0].Status, b[1].Status) {
		t.Error("with CopyPeople the tool and status are no longer shared")
	}
}
