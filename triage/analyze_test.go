package triage

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func TestGroupKeyCanonicalArguments(t *testing.T) {
	key := func(args string, opt Options) string {
		e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", Arguments: json.RawMessage(args), Detailed: true}
		k, ok := GroupKey(e, model.KindWrite, opt.WithDefaults().VolatileKeys)
		if !ok {
			t.Fatalf("no key for %s", args)
		}
		return k
	}
	tests := []struct {
		name string
		a, b string
		opt  Options
		same bool
	}{
		{"key order", `{"to":"a@x","subject":"hi"}`, `{"subject":"hi","to":"a@x"}`, Options{}, true},
		{"whitespace", `{"to":"a@x"}`, "{ \"to\" :\n \"a@x\" }", Options{}, true},
		{"volatile key ignored", `{"to":"a@x","timestamp":"2026-01-01T00:00:00Z"}`, `{"to":"a@x","timestamp":"2026-01-02T00:00:00Z"}`, Options{}, true},
		{"volatile key case-insensitive", `{"to":"a@x","Nonce":"1"}`, `{"to":"a@x","nonce":"2"}`, Options{}, true},
		{"volatile key nested", `{"msg":{"to":"a@x","client_msg_id":"1"}}`, `{"msg":{"client_msg_id":"2","to":"a@x"}}`, Options{}, true},
		{"volatile key present on one side only", `{"to":"a@x","request_id":"r1"}`, `{"to":"a@x"}`, Options{}, true},
		{"custom volatile keys replace the default", `{"to":"a@x","timestamp":"1"}`, `{"to":"a@x","timestamp":"2"}`, Options{VolatileKeys: []string{"nonce"}}, false},
		{"empty volatile keys ignore nothing", `{"to":"a@x","nonce":"1"}`, `{"to":"a@x","nonce":"2"}`, Options{VolatileKeys: []string{}}, false},
		{"custom volatile key", `{"to":"a@x","attempt":1}`, `{"to":"a@x","attempt":2}`, Options{VolatileKeys: []string{"attempt"}}, true},
		{"integer and float spelling", `{"n":1}`, `{"n":1.0}`, Options{}, true},
		{"exponent spelling", `{"n":100}`, `{"n":1e2}`, Options{}, true},
		// an identifying string is compared as the fact it states (identityFact)
		{"a number written as a string", `{"n":1}`, `{"n":"1"}`, Options{}, true},
		{"an amount with its cents as a string", `{"amount":1250}`, `{"amount":"1250.00"}`, Options{}, true},
		{"another amount as a string", `{"amount":1250}`, `{"amount":"1250.01"}`, Options{}, false},
		{"a code with a leading zero is no number", `{"n":7}`, `{"n":"007"}`, Options{}, false},
		{"a sign is no number's plain notation", `{"n":1}`, `{"n":"+1"}`, Options{}, false},
		{"an exponent is no number's plain notation", `{"n":100}`, `{"n":"1e2"}`, Options{}, false},
		{"a day and the midnight that starts it", `{"day":"2026-03-14"}`, `{"day":"2026-03-14T00:00:00.000Z"}`, Options{}, true},
		{"midnight at another offset is another instant", `{"day":"2026-03-14"}`, `{"day":"2026-03-14T00:00:00-05:00"}`, Options{}, false},
		{"a time past midnight is no day", `{"day":"2026-03-14"}`, `{"day":"2026-03-14T00:00:01Z"}`, Options{}, false},
		{"different values", `{"to":"a@x"}`, `{"to":"b@x"}`, Options{}, false},
		{"array order matters", `{"cc":["a","b"]}`, `{"cc":["b","a"]}`, Options{}, false},
		{"nested objects sorted", `{"p":{"b":1,"a":{"y":2,"x":1}}}`, `{"p":{"a":{"x":1,"y":2},"b":1}}`, Options{}, true},
		{"null and empty object", `null`, `{}`, Options{}, true},
		{"unicode escapes", `{"s":"é"}`, `{"s":"\u00e9"}`, Options{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := key(tt.a, tt.opt) == key(tt.b, tt.opt); got != tt.same {
				t.Errorf("same key = %v, want %v", got, tt.same)
			}
		})
	}
}

func TestGroupKeyScope(t *testing.T) {
	args := json.RawMessage(`{"to":"a@x"}`)
	base := model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", UserID: "u1", Arguments: args, Detailed: true}
	k0, _ := GroupKey(&base, model.KindWrite, nil)

	other := base
	other.ConnectedAccountID = "ca_2"
	if k, _ := GroupKey(&other, model.KindWrite, nil); k != k0 {
		t.Error("an email family's tools: two accounts of one user do not share a bucket (clusterBucket keeps them apart)")
	}
	other.UserID = "u2"
	if k, _ := GroupKey(&other, model.KindWrite, nil); k == k0 {
		t.Error("different users share a key")
	}
	other = base
	other.ToolSlug = "GMAIL_CREATE_EMAIL_DRAFT"
	if k, _ := GroupKey(&other, model.KindWrite, nil); k != k0 {
		t.Error("a draft and a send of one email are not in one bucket")
	}
	other.ToolSlug = "GMAIL_REPLY_TO_THREAD"
	if k, _ := GroupKey(&other, model.KindWrite, nil); k == k0 {
		t.Error("a thread reply and a new email share a key")
	}
	slack := base
	slack.ToolSlug = "SLACK_SEND_MESSAGE"
	ks, _ := GroupKey(&slack, model.KindWrite, nil)
	slack.ConnectedAccountID = "ca_2"
	if k, _ := GroupKey(&slack, model.KindWrite, nil); k == ks {
		t.Error("different connected accounts share a key")
	}
	slack.ConnectedAccountID, slack.ToolSlug = "ca_1", "SLACK_UPDATES_A_SLACK_MESSAGE"
	if k, _ := GroupKey(&slack, model.KindWrite, nil); k == ks {
		t.Error("different tools share a key")
	}
	noAcct := base
	noAcct.ConnectedAccountID = ""
	if k, ok := GroupKey(&noAcct, model.KindWrite, nil); !ok || !strings.Contains(k, "user:u1") {
		t.Errorf("without an account the user scopes the key: %q %v", k, ok)
	}
	nobody := noAcct
	nobody.UserID = ""
	if _, ok := GroupKey(&nobody, model.KindWrite, nil); ok {
		t.Error("an execution with neither account nor user was given a key")
	}
	if _, ok := GroupKey(&base, model.KindRead, nil); ok {
		t.Error("a read was given a key")
	}
	listEntry := base
	listEntry.Arguments, listEntry.Detailed = nil, false
	if _, ok := GroupKey(&listEntry, model.KindWrite, nil); ok {
		t.Error("a list entry without arguments was given a key")
	}
	bad := base
	bad.Arguments = json.RawMessage(`{not json`)
	bad2 := bad
	if k1, ok := GroupKey(&bad, model.KindWrite, nil); !ok {
		t.Error("invalid JSON arguments should still group byte-identical copies")
	} else if k2, _ := GroupKey(&bad2, model.KindWrite, nil); k1 != k2 {
		t.Error("byte-identical invalid arguments got different keys")
	}
}

// attempt builds a detailed execution of a write.
type attempt struct {
	id       string
	at       time.Duration // start, from t0
	dur      time.Duration // 0: end unknown
	status   string
	err      *model.ExecError
	retry    int
	session  string
	args     string
	account  string
	language string
	sdk      string
	request  string // x-request-id
	parent   string // the meta-tool log that ran it
}

func (a attempt) exec() model.Execution {
	e := model.Execution{
		ID: a.id, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", ConnectedAccountID: "ca_1", UserID: "u1",
		Status: a.status, Error: a.err, RetryCount: a.retry, SessionID: a.session, Detailed: true,
		Arguments: json.RawMessage(`{"recipient_email":"bob@example.com","subject":"Invoice 42","body":"hi"}`),
		Source:    model.Source{Language: a.language}, SDKVersion: a.sdk, RequestID: a.request,
	}
	if a.parent != "" {
		e.Parent = &model.Parent{LogID: a.parent, ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL"}
	}
	if a.args != "" {
		e.Arguments = json.RawMessage(a.args)
	}
	if a.account != "" {
		e.ConnectedAccountID = a.account
	}
	e.StartTime = t0.Add(a.at)
	e.Timestamp = e.StartTime
	if a.dur > 0 {
		e.EndTime = e.StartTime.Add(a.dur)
		e.Duration, e.HasDuration = a.dur, true
	}
	if e.Status == "" && a.err != nil {
		e.Status = "failed"
	}
	if e.Status == "" {
		e.Status = "success"
	}
	return e
}

func sec(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

var timeoutErr = &model.ExecError{Kind: model.ErrTimeout, Message: "Request timed out"}
var gatewayErr = &model.ExecError{Kind: model.ErrUpstream5xx, HTTPStatus: 502}

func TestDuplicatePatterns(t *testing.T) {
	tests := []struct {
		name     string
		attempts []attempt
		groups   int
		pattern  model.RetryPattern
		reason   string // regexp the group's reason must match
		// others are the other causes the group must list (nil: not checked; empty: none,
		// as evidence tied to the attempts settled the cause)
		others []model.RetryPattern
	}{
		{
			name: "SDK retry after timeouts (3 attempts, caller timeout ends each)",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1},                                         // end unknown → start+60 s
				{id: "b", at: sec(60.45), status: "failed", err: timeoutErr, retry: -1},                                // 0.45 s after
				{id: "c", at: sec(60.45 + 60 + 0.91), dur: sec(1.2), retry: -1, language: "PYTHON_SDK", sdk: "0.15.2"}, // 0.91 s after
			},
			groups: 1, pattern: model.PatternSDKAutoRetry,
			reason: `^3 attempts 0\.45 s and 0\.91 s after each timeout: the SDK's own retry \(composio 0\.15\.2\)$`,
			others: []model.RetryPattern{},
		},
		{
			name: "SDK retry after a committed slow success: gap from the caller's timeout, not the server's end",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(75), retry: -1}, // success after 75 s: caller gave up at 60 s
				{id: "b", at: sec(60.4), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternSDKAutoRetry,
			reason: `^2 attempts 0\.40 s after a timeout: the SDK's own retry; timing alone does not settle it: it could also be app_retry \(the same bytes sent again from one source after a timeout, as an application's retry loop sends them\)$`,
			others: []model.RetryPattern{model.PatternAppRetry},
		},
		{
			name: "SDK retry after a fast 502",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(0.3), err: gatewayErr, retry: -1},
				{id: "b", at: sec(0.3 + 0.42), dur: sec(0.3), err: gatewayErr, retry: -1},
				{id: "c", at: sec(0.3 + 0.42 + 0.3 + 0.8), dur: sec(0.4), retry: -1},
			},
			groups: 1, pattern: model.PatternSDKAutoRetry,
			reason: `after each 5xx: the SDK's own retry`,
		},
		{
			name: "retry counts recorded by the SDK are enough, whatever the spacing",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(2), err: gatewayErr, retry: 0},
				{id: "b", at: sec(5), dur: sec(2), err: gatewayErr, retry: 1},
				{id: "c", at: sec(12), dur: sec(1), retry: 2},
			},
			groups: 1, pattern: model.PatternSDKAutoRetry,
			reason: `recorded as SDK retries 1, 2`,
			others: []model.RetryPattern{},
		},
		{
			name: "retry right after a failure, too soon for the SDK backoff, is the application's",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1},
				{id: "b", at: sec(1.1), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
		},
		{
			name: "SDK spacing but after a success: the SDK does not retry successes",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(0.2), retry: -1},
				{id: "b", at: sec(0.2 + 0.45), dur: sec(0.2), retry: -1},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `which needed no retry: a double submit`,
		},
		{
			name: "double click while the first was running",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(2), retry: -1},
				{id: "b", at: sec(0.3), dur: sec(2), retry: -1},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `^2 attempts, one started 0\.30 s after the previous one started, while it was still running \(overlap 1\.70 s\): a double submit`,
			others: []model.RetryPattern{},
		},
		{
			// the first caller still waited for its answer: the second start is not its retry,
			// however long after the first it came
			name: "a slow second click, 2 s after the first, while it ran",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(5), retry: -1},
				{id: "b", at: sec(2), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `^2 attempts, one started 2\.00 s after the previous one started, while it was still running \(overlap 3\.00 s\): a double submit`,
			others: []model.RetryPattern{},
		},
		{
			name: "a second click while the first ran, which then failed: no retry of a failure not yet seen",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(5), err: gatewayErr, retry: -1},
				{id: "b", at: sec(2), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `while it was still running \(overlap 3\.00 s\)`,
			others: []model.RetryPattern{},
		},
		{
			// full jitter: each wait drawn between 0 and a growing cap; a wait under a second is
			// no person's
			name: "app retry with jittered waits",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(0.2), err: gatewayErr, retry: -1},
				{id: "b", at: sec(0.6), dur: sec(0.2), err: gatewayErr, retry: -1},
				{id: "c", at: sec(2.7), dur: sec(0.2), err: gatewayErr, retry: -1},
				{id: "d", at: sec(3.5), dur: sec(0.2), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
			reason: `^4 attempts at irregular intervals \(0\.40 s, 1\.90 s and 0\.60 s after the previous ended\), one sooner than a person `,
			others: []model.RetryPattern{model.PatternDoubleSubmit},
		},
		{
			// the waits fit the SDK's backoff, but the recorded SDK sends tools.execute once
			name: "waits in the SDK's band from an SDK that sends once: not the SDK's retry",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(0.3), err: gatewayErr, retry: -1, sdk: "0.21.0", language: "typescript"},
				{id: "b", at: sec(0.85), dur: sec(0.3), err: gatewayErr, retry: -1, sdk: "0.21.0", language: "typescript"},
				{id: "c", at: sec(2.15), dur: sec(0.3), retry: -1, sdk: "0.21.0", language: "typescript"},
			},
			groups: 1, pattern: model.PatternAppRetry,
		},
		{
			// past the window only an unclear attempt's same bytes join: no loop holding the call
			// in memory waits that long
			name: "the same bytes 35 min after a timeout: a queue's redelivery or a scheduled run",
			attempts: []attempt{
				{id: "a", at: 0, err: timeoutErr, retry: -1},
				{id: "b", at: sec(35 * 60), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
			reason: `^2 attempts 34\.0 min after the previous ended, same source: the application re-sent it past any in-process retry loop's wait: a queue redelivering the job after its visibility timeout, or a scheduled job run again$`,
		},
		{
			name: "hourly after each 5xx: a scheduled job",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1},
				{id: "b", at: sec(3600), dur: sec(1), err: gatewayErr, retry: -1},
				{id: "c", at: sec(7200), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
			reason: `same source: the application re-sent it at a fixed cadence: a scheduled job run again`,
		},
		{
			// the first's end is not recorded: its caller's timeout is assumed, and a re-send
			// before it is no evidence of an overlap
			name: "re-sent 40 s after a timeout whose end is not recorded: a retry, no overlap claimed",
			attempts: []attempt{
				{id: "a", at: 0, status: "failed", err: timeoutErr, retry: -1},
				{id: "b", at: sec(40), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
			reason: `^2 attempts 0\.00 s after the previous ended, same source: the application's own retry loop$`,
		},
		{
			name: "two workers in different sessions",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, session: "s1"},
				{id: "b", at: sec(40), dur: sec(1), retry: -1, session: "s2"},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `different sources \(session s1, session s2\)`,
			others: []model.RetryPattern{},
		},
		{
			name: "app retry loop at a fixed interval",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1},
				{id: "b", at: sec(30), dur: sec(1), err: gatewayErr, retry: -1},
				{id: "c", at: sec(60), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
			reason: `^3 attempts 29\.0 s and 29\.0 s after the previous ended, same source: the application's own retry loop$`,
			others: []model.RetryPattern{},
		},
		{
			name: "app retry with exponential backoff",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1},
				{id: "b", at: sec(5), dur: sec(1), err: gatewayErr, retry: -1},
				{id: "c", at: sec(15), dur: sec(1), err: gatewayErr, retry: -1},
				{id: "d", at: sec(35), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
		},
		{
			name: "resubmitted seconds after a success",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1},
				{id: "b", at: sec(3.5), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `^2 attempts, one 2\.50 s after the previous succeeded: resubmitted`,
		},
		{
			name: "resubmitted after a success",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1},
				{id: "b", at: sec(21.5), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `^2 attempts, one 20\.5 s after the previous succeeded: resubmitted`,
			others: []model.RetryPattern{},
		},
		{
			name: "irregular waits after failures",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1},
				{id: "b", at: sec(200), dur: sec(1), err: gatewayErr, retry: -1},
				{id: "c", at: sec(205), dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
			reason: `irregular intervals`,
			others: []model.RetryPattern{model.PatternAppRetry},
		},
		{
			name: "the same bytes again in one agent session, seconds after a failure: the app's loop or the agent",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, session: "s1"},
				{id: "b", at: sec(9), dur: sec(1), retry: -1, session: "s1"},
			},
			groups: 1, pattern: model.PatternAppRetry,
			reason: `it could also be agent_retry \(sent again in one agent session after a 5xx: a model may call a tool again with the same arguments\)$`,
			others: []model.RetryPattern{model.PatternAgentRetry},
		},
		{
			name: "window splits far-apart sends",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1},
				{id: "b", at: 11 * time.Minute, dur: sec(1), retry: -1},
			},
			groups: 0,
		},
		{
			name: "window chains from the previous member",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1},
				{id: "b", at: 9 * time.Minute, dur: sec(1), err: gatewayErr, retry: -1},
				{id: "c", at: 18 * time.Minute, dur: sec(1), retry: -1},
			},
			groups: 1, pattern: model.PatternAppRetry,
		},
		{
			name: "different arguments are not duplicates",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1},
				{id: "b", at: sec(0.5), dur: sec(1), retry: -1, args: `{"recipient_email":"carol@example.com"}`},
			},
			groups: 0,
		},
		{
			name: "different accounts are not duplicates",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1},
				{id: "b", at: sec(0.5), dur: sec(1), retry: -1, account: "ca_2"},
			},
			groups: 0,
		},
		{
			// one x-request-id on two executions is one call sent again, whatever the
			// spacing (here an app retry's would say otherwise)
			name: "one request id: the SDK re-sent one call",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, request: "req-1"},
				{id: "b", at: sec(30), dur: sec(1), err: gatewayErr, retry: -1, request: "req-1"},
				{id: "c", at: sec(60), dur: sec(1), retry: -1, request: "req-1", language: "PYTHON_SDK", sdk: "0.7.4"},
			},
			groups: 1, pattern: model.PatternSDKAutoRetry,
			reason: `^3 attempts 29\.0 s and 29\.0 s after the previous with one request id, req-1: one call re-sent by the SDK.*\(composio 0\.7\.4\)$`,
			others: []model.RetryPattern{},
		},
		{
			name: "one request id in a session: the session's re-send",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, request: "req-2", session: "trs_1"},
				{id: "b", at: sec(3), dur: sec(1), retry: -1, request: "req-2", session: "trs_1"},
			},
			groups: 1, pattern: model.PatternSessionAutoRetry,
			reason: `with one request id, req-2: one call re-sent`,
		},
		{
			// near miss: a meta-tool's children share its request id without any re-send
			name: "children of one meta-tool call share its request id: not a re-send",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), retry: -1, request: "req-3", parent: "log_multi"},
				{id: "b", at: sec(0.2), dur: sec(1), retry: -1, request: "req-3", parent: "log_multi"},
			},
			groups: 1, pattern: model.PatternDoubleSubmit,
		},
		{
			// exectriage's own guarded retry is never named the caller's retry loop
			name: "exectriage's guarded retry of a timed-out send",
			attempts: []attempt{
				{id: "a", at: 0, err: timeoutErr, retry: -1, request: "5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e"},
				{id: "b", at: sec(300), dur: sec(1), retry: -1, request: "0c8f3a7e-2b1d-4e5f-9a7e-e7a93c2b1a0f"},
			},
			groups: 1, pattern: model.PatternExectriageRetry,
			reason: `^2 attempts: attempt 2 is exectriage's guarded retry \(request id 0c8f3a7e-2b1d-4e5f-9a7e-e7a93c2b1a0f, an attempt id\), sent 4\.0 min after`,
			others: []model.RetryPattern{},
		},
		{
			// near miss: a UUID request id without exectriage's mark is the caller's
			name: "a caller's own UUID request ids: the spacing decides",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, request: "5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e"},
				{id: "b", at: sec(30), dur: sec(1), err: gatewayErr, retry: -1, request: "0c8f3a7e-2b1d-4e5f-a7e9-3c2b1a0f9e8d"},
				{id: "c", at: sec(60), dur: sec(1), retry: -1, request: "1d9e4b8f-3c2e-4f6a-b8fa-4d3c2b1a0f9e"},
			},
			groups: 1, pattern: model.PatternAppRetry,
		},
		{
			// near miss: different request ids are different calls, as before
			name: "different request ids: the spacing decides",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, request: "req-4"},
				{id: "b", at: sec(30), dur: sec(1), err: gatewayErr, retry: -1, request: "req-5"},
				{id: "c", at: sec(60), dur: sec(1), retry: -1, request: "req-6"},
			},
			groups: 1, pattern: model.PatternAppRetry,
		},
		{
			name: "a later first try (retry count 0) in the SDK band is the application's retry",
			attempts: []attempt{
				{id: "a", at: 0, dur: sec(0.3), err: gatewayErr, retry: 0},
				{id: "b", at: sec(0.75), dur: sec(0.3), retry: 0},
			},
			groups: 1, pattern: model.PatternAppRetry,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var execs []model.Execution
			// Reverse the input: grouping must not depend on input order.
			for i := len(tt.attempts) - 1; i >= 0; i-- {
				execs = append(execs, tt.attempts[i].exec())
			}
			res := Analyze(execs, NewKinds(), Options{})
			if len(res.Groups) != tt.groups {
				t.Fatalf("groups = %d, want %d: %+v", len(res.Groups), tt.groups, res.Groups)
			}
			if tt.groups == 0 {
				return
			}
			g := res.Groups[0]
			if g.Pattern != tt.pattern {
				t.Errorf("pattern = %s, want %s (reason %q, gaps %v)", g.Pattern, tt.pattern, g.Reason, g.Gaps)
			}
			// Every reason ends with its pattern's fix.
			explained, fix, _ := strings.Cut(g.Reason, "; fix: ")
			if fix != model.PatternFix(g.Pattern) {
				t.Errorf("reason %q does not end with the fix %q", g.Reason, model.PatternFix(g.Pattern))
			}
			if tt.reason != "" && !regexp.MustCompile(tt.reason).MatchString(explained) {
				t.Errorf("reason %q does not match %q", g.Reason, tt.reason)
			}
			var want []string
			for _, a := range tt.attempts {
				want = append(want, a.id)
			}
			if !slices.Equal(g.ExecutionIDs, want) {
				t.Errorf("members = %v, want %v oldest first", g.ExecutionIDs, want)
			}
			if len(g.Gaps) != len(want)-1 || g.Effective != -1 {
				t.Errorf("gaps %v effective %d", g.Gaps, g.Effective)
			}
			if !regexp.MustCompile(`^dup-[0-9a-f]{8}$`).MatchString(g.ID) {
				t.Errorf("group id %q", g.ID)
			}
			for i, e := range execs {
				if res.Triage[i].GroupID != g.ID {
					t.Errorf("%s: GroupID %q, want %q", e.ID, res.Triage[i].GroupID, g.ID)
				}
			}
			if got, ok := res.Group(g.ID); !ok || got.ID != g.ID {
				t.Error("Group(id) lookup failed")
			}
			var others []model.RetryPattern
			for _, c := range g.OtherCauses {
				others = append(others, c.Cause)
				if c.Cause == g.Pattern || c.Why == "" || !strings.Contains(explained, string(c.Cause)+" ("+c.Why+")") {
					t.Errorf("other cause %+v: the named cause, without a why, or not in the reason %q", c, g.Reason)
				}
			}
			if tt.others != nil && !slices.Equal(others, tt.others) {
				t.Errorf("other causes = %v, want %v (reason %q)", others, tt.others, g.Reason)
			}
		})
	}
}

func TestGroupIDStableAcrossRuns(t *testing.T) {
	a := []model.Execution{
		attempt{id: "a", at: 0, dur: sec(2), retry: -1}.exec(),
		attempt{id: "b", at: sec(0.3), dur: sec(2), retry: -1}.exec(),
	}
	b := []model.Execution{a[1], a[0], attempt{id: "r", at: sec(1), retry: -1, args: `{"x":1}`}.exec()}
	g1 := Analyze(a, nil, Options{}).Groups
	g2 := Analyze(b, nil, Options{}).Groups
	if len(g1) != 1 || len(g2) != 1 || g1[0].ID != g2[0].ID {
		t.Errorf("group ids differ: %v vs %v", g1, g2)
	}
}

func TestReadsAreNeverGrouped(t *testing.T) {
	var execs []model.Execution
	for i := range 3 {
		e := attempt{id: fmt.Sprint(i), at: sec(float64(i) * 0.2), dur: sec(1), retry: -1}.exec()
		e.ToolSlug = "GMAIL_FETCH_EMAILS"
		execs = append(execs, e)
	}
	if res := Analyze(execs, nil, Options{}); len(res.Groups) != 0 {
		t.Errorf("reads grouped: %+v", res.Groups)
	}
}

func TestGroupsOrderedByFirstStart(t *testing.T) {
	var execs []model.Execution
	for g := range 5 {
		args := fmt.Sprintf(`{"recipient_email":"u%d@x","subject":"s"}`, g)
		start := time.Duration(5-g) * time.Hour
		execs = append(execs,
			attempt{id: fmt.Sprintf("g%d-a", g), at: start, dur: sec(2), retry: -1, args: args}.exec(),
			attempt{id: fmt.Sprintf("g%d-b", g), at: start + sec(0.2), dur: sec(2), retry: -1, args: args}.exec())
	}
	res := Analyze(execs, nil, Options{})
	if len(res.Groups) != 5 {
		t.Fatalf("groups = %d", len(res.Groups))
	}
	for i, g := range res.Groups {
		if want := fmt.Sprintf("g%d-a", 4-i); g.ExecutionIDs[0] != want {
			t.Errorf("group %d starts with %s, want %s", i, g.ExecutionIDs[0], want)
		}
	}
}

func TestFillEffective(t *testing.T) {
	groups := []model.DuplicateGroup{
		{ID: "g1", ExecutionIDs: []string{"a", "b", "c"}, Effective: -1},
		{ID: "g2", ExecutionIDs: []string{"d", "e"}, Effective: -1},
		{ID: "g3", ExecutionIDs: []string{"f", "g"}, Effective: -1},
		{ID: "g4", ExecutionIDs: []string{"h", "i"}, Effective: -1},
	}
	found := func(ids ...string) model.ProviderState {
		st := model.ProviderState{State: model.ProviderFound}
		for _, id := range ids {
			st.Matches = append(st.Matches, model.EvidenceItem{ID: id})
		}
		return st
	}
	states := map[string]model.ProviderState{
		// g1: the oldest member's check saw two sends; the later check sees one of them.
		"a": found("m1", "m2"), "b": found("m2"), "c": {State: model.ProviderNotFound},
		// g2: nothing happened.
		"d": {State: model.ProviderNotFound}, "e": {State: model.ProviderNotFound},
		// g3: oldest unknown → cannot count.
		"f": {State: model.ProviderUnknown}, "g": found("m9"),
		// g4: no state for the oldest.
		"i": found("m7"),
	}
	FillEffective(groups, states)
	for _, want := range []struct {
		id string
		n  int
	}{{"g1", 2}, {"g2", 0}, {"g3", -1}, {"g4", -1}} {
		for _, g := range groups {
			if g.ID == want.id && g.Effective != want.n {
				t.Errorf("%s: Effective = %d, want %d", g.ID, g.Effective, want.n)
			}
		}
	}
}
