package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var t0 = time.Date(2026, 3, 2, 9, 15, 4, 120_000_000, time.UTC)

// ordinaryInput is a realistic bundle: an SDK auto-retry burst of a Gmail send (two of the three
// attempts bundled), the provider showing the email twice, and a Slack post the provider does
// not show.
func ordinaryInput() Input {
	group := &model.DuplicateGroup{
		ID: "dup-1", Pattern: model.PatternSDKAutoRetry,
		ExecutionIDs: []string{"log_a1", "log_a2", "log_a3"},
		Gaps:         []time.Duration{460 * time.Millisecond, 910 * time.Millisecond},
		Reason:       "3 attempts 0.46 s and 0.91 s apart, like the SDK backoff",
		Effective:    2,
	}
	send := func(id, req string, at time.Time, status string, err *model.ExecError, dur time.Duration) model.Execution {
		level := "info"
		if err != nil {
			level = "error"
		}
		return model.Execution{
			ID: id, Timestamp: at, StartTime: at, Duration: dur, HasDuration: true,
			ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "user_42", ConnectedAccountID: "ca_7Hk2",
			Status: status, Level: level, RequestID: req, SessionID: "ses_1", RetryCount: 0,
			SDKVersion: "0.15.2", Source: model.Source{Host: "sdk", Language: "python", Framework: "openai"},
			Arguments: json.RawMessage(`{"recipient_email":"ops@example.com","subject":"Invoice 1042","body":"Attached."}`),
			Error:     err,
		}
	}
	found := &model.ProviderState{
		State: model.ProviderFound, Verifier: "gmail_sent", ReadTool: "GMAIL_FETCH_EMAILS",
		ReadArgs:  json.RawMessage(`{"query":"in:sent to:ops@example.com subject:\"Invoice 1042\""}`),
		Matches:   []model.EvidenceItem{{ID: "msg_18f0a", Time: t0.Add(2 * time.Second), Summary: "to ops@example.com: Invoice 1042"}, {ID: "msg_18f0b", Time: t0.Add(63 * time.Second), Summary: "to ops@example.com: Invoice 1042"}},
		Reason:    "2 sent messages match recipient and subject",
		CheckedAt: t0.Add(10 * time.Minute),
	}
	timeout := &model.ExecError{Kind: model.ErrTimeout, HTTPStatus: 504, Message: "upstream request timed out after 60s"}
	return Input{
		GeneratedAt: t0.Add(11 * time.Minute),
		Source:      "DEMO",
		Version:     "0.1.0-dev",
		Items: []Item{
			{
				Exec:     send("log_a1", "req-0001", t0, model.StatusFailed, timeout, 60*time.Second+200*time.Millisecond),
				Triage:   model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true, Reason: "504 from provider after 60.2 s: the email may have been sent", GroupID: "dup-1", OldSDK: "Python composio 0.15.2 auto-retries writes"},
				Provider: found, Group: group,
				History: []string{"2026-03-02T09:30:00.000Z confirmation by ana@host: checked the sent folder"},
			},
			{
				Exec:     send("log_a2", "req-0002", t0.Add(60*time.Second+660*time.Millisecond), model.StatusSuccess, nil, 2*time.Second),
				Triage:   model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeSucceeded, Reason: "success in 2.0 s", GroupID: "dup-1", OldSDK: "Python composio 0.15.2 auto-retries writes"},
				Provider: found, Group: group,
			},
			{
				Exec: model.Execution{
					ID: "log_s9", Timestamp: t0.Add(time.Hour), ToolSlug: "SLACK_SEND_MESSAGE", ToolkitSlug: "slack",
					ConnectedAccountID: "ca_slack", Status: model.StatusFailed, RequestID: "req-0100", RetryCount: -1,
					Arguments: json.RawMessage(`{"channel":"C024BE91L","text":"deploy done"}`),
					Error:     &model.ExecError{Kind: model.ErrUpstream5xx, HTTPStatus: 503, Message: "service unavailable"},
				},
				Triage:   model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true, Reason: "503 from provider: the message may have been posted"},
				Provider: &model.ProviderState{State: model.ProviderNotFound, Verifier: "slack_history", ReadTool: "SLACK_FETCH_CONVERSATION_HISTORY", Reason: "no message with this text in C024BE91L after the execution", CheckedAt: t0.Add(time.Hour + time.Minute)},
			},
		},
	}
}

// Fake secrets for the hostile bundle; none is real.
const (
	hostileKey = "project-api-key-0123456789abcdef"
	githubTok  = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	jwtTok     = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	slackTok   = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
	awsKey     = "AKIAIOSFODNN7EXAMPLE"
)

var secrets = []string{hostileKey, githubTok, jwtTok, slackTok, awsKey, "hunter2", "s3cr3t-cookie"}

// hostileInput carries terminal escapes, bidi overrides, markup and secrets in every field a
// log, the API or a provider can fill.
func hostileInput() Input {
	esc := "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07"
	return Input{
		GeneratedAt: t0,
		Source:      "FILE evil\x1b[31m.jsonl",
		Version:     "0.1.0-dev",
		Redactor:    redact.New(hostileKey),
		HistoryNote: "",
		Items: []Item{{
			Exec: model.Execution{
				ID: "log_evil" + esc, Timestamp: t0, ToolSlug: "GMAIL_SEND_EMAIL\u202e", ToolkitSlug: "gmail|x",
				UserID: "user`with`ticks", ConnectedAccountID: "ca_1\u2066", Status: "failed\x00", Level: "error\x9b",
				Message:   "sent with key " + hostileKey + " and " + esc + " <img src=x onerror=alert(1)> [click](https://evil.example)",
				RequestID: "req\u200b-1", RetryCount: 2, SDKVersion: "0.15.2\x1b[0m",
				Source:    model.Source{Language: "python", Framework: "```evil"},
				Arguments: json.RawMessage(`{"to":"a@b.c","password":"hunter2","body":"` + "\\u001b]52;c;AAAA\\u0007 token " + githubTok + ` \u202e","headers":{"Authorization":"Bearer ` + jwtTok + `","Cookie":"s3cr3t-cookie"},"fence":"` + "```" + `"}`),
				Response:  json.RawMessage(`{"successful":false,"error":"denied for ` + slackTok + `","data":{"aws":"` + awsKey + `","key":"` + hostileKey + `"}}`),
				Error:     &model.ExecError{Kind: model.ErrTimeout, HTTPStatus: 504, Message: "Authorization: Bearer " + jwtTok + "\n\x1b[1Aforged line"},
				Parent:    &model.Parent{LogID: "log_p\x1b[0m", ToolSlug: "X|Y"},
			},
			Triage: model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true,
				Reason: "timeout: " + esc + " key " + hostileKey, GroupID: "g|1", OldSDK: "Python composio 0.15.2\x1b[0m auto-retries writes"},
			Provider: &model.ProviderState{State: model.ProviderUnknown, Verifier: "none\x1b", ReadTool: "GMAIL_FETCH_EMAILS",
				ReadArgs: json.RawMessage(`{"q":"` + githubTok + `"}`), Reason: "read failed: 401 for token=" + githubTok + " \u202egnp.exe",
				Matches: []model.EvidenceItem{{ID: "msg\x1b[31m", Summary: "subject: " + esc}}},
			Group: &model.DuplicateGroup{ID: "g|1", Pattern: "weird`pattern", ExecutionIDs: []string{"log_evil" + esc, "log_2\u202e"},
				Gaps: []time.Duration{time.Second}, Reason: "double\x1b[5m", Effective: -1},
			History: []string{"retry by eve: x-api-key: " + hostileKey + " " + esc, "verdict " + githubTok},
		}},
	}
}

func render(t *testing.T, in Input) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRenderGolden(t *testing.T) {
	golden(t, "ordinary.golden", render(t, ordinaryInput()))
}

func TestHostileRecordLeaksNothing(t *testing.T) {
	out := render(t, hostileInput())
	golden(t, "hostile.golden", out)
	if !utf8.Valid(out) {
		t.Fatal("bundle is not valid UTF-8")
	}
	for i, c := range out {
		if (c < 0x20 && c != '\n') || c == 0x7f {
			t.Fatalf("control byte 0x%02x at %d", c, i)
		}
	}
	for _, r := range string(out) {
		if (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			t.Fatalf("control or invisible character U+%04X in the bundle", r)
		}
	}
	s := string(out)
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			t.Errorf("secret %q leaked into the bundle", sec)
		}
	}
	for _, markup := range []string{"<img", "](https://evil"} {
		for line := range strings.SplitSeq(s, "\n") {
			if i := strings.Index(line, markup); i >= 0 && !insideCodeSpan(line, i) {
				t.Errorf("markup %q outside a code span: %s", markup, line)
			}
		}
	}
	if !strings.Contains(s, "[REDACTED") || !strings.Contains(s, `\x1b`) {
		t.Fatal("redaction markers or visible escapes missing")
	}
}

// insideCodeSpan reports whether byte i of line sits inside a backtick code span (an odd
// number of backtick runs precede it).
func insideCodeSpan(line string, i int) bool {
	open := false
	for j := 0; j < i; {
		if line[j] != '`' {
			j++
			continue
		}
		n := 0
		for j < i && line[j] == '`' {
			n++
			j++
		}
		if !open {
			open = true
			// find the closing run of the same length before i
			closeAt := strings.Index(line[j:i], strings.Repeat("`", n))
			if closeAt < 0 {
				return true
			}
			j += closeAt + n
			open = false
		}
	}
	return open
}

func TestRenderIsDeterministic(t *testing.T) {
	a, b := render(t, ordinaryInput()), render(t, ordinaryInput())
	if !bytes.Equal(a, b) {
		t.Fatal("two renders of the same input differ")
	}
}

func TestBundleCarriesWhatSupportNeeds(t *testing.T) {
	s := string(render(t, ordinaryInput()))
	for _, want := range []string{
		"`log_a1`", "`req-0001`", "2026-03-02T09:15:04.120Z", "`GMAIL_SEND_EMAIL`", "**ambiguous**",
		"`composio` `0.15.2` (`python`)", "**re-sends timed-out writes** (fixed in 0.16.0)",
		"State: **found**", "`msg_18f0a`", "Duplicate group `dup-1`", "`sdk_auto_retry`", "2 of 3",
		"checked the sent folder", "0.16.0", "0.14.0", "State: **not_found**", "exectriage retry log_s9",
		"the effect happened 2 times",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("bundle lacks %q", want)
		}
	}
}

func TestEmptyBundle(t *testing.T) {
	s := string(render(t, Input{GeneratedAt: t0, Source: "LIVE", Version: "x"}))
	if !strings.Contains(s, "No executions were given.") {
		t.Fatalf("empty bundle:\n%s", s)
	}
}

func TestLargeJSONIsCut(t *testing.T) {
	in := ordinaryInput()
	in.Items = in.Items[:1]
	big := strings.Repeat("x", 3*maxBlock)
	in.Items[0].Exec.Response = json.RawMessage(`{"data":"` + big + `"}`)
	s := string(render(t, in))
	if strings.Contains(s, big) || !strings.Contains(s, "more bytes not shown") {
		t.Fatal("a large response was not cut with a marker")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderReportsWriteErrors(t *testing.T) {
	if err := Render(failingWriter{}, ordinaryInput()); err == nil {
		t.Fatal("write error not reported")
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}
