package sandbox_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// TestNoRetryClientAgainstEveryFault sends one write through client.WithoutRetries for each
// fault mode over loopback and checks what reached the sandbox, what took effect, and how the
// client classified the failure.
func TestNoRetryClientAgainstEveryFault(t *testing.T) {
	cases := []struct {
		name         string
		mode         sandbox.FaultMode
		hold         time.Duration // Config.HoldTimeout
		writeTimeout time.Duration
		effects      int
		kind         client.WriteErrorKind // "" = success
	}{
		{"timeout after commit, connection closed", sandbox.FaultTimeoutAfterCommit, 150 * time.Millisecond, 5 * time.Second, 1, client.WriteAmbiguous},
		{"timeout after commit, client gives up", sandbox.FaultTimeoutAfterCommit, time.Minute, 300 * time.Millisecond, 1, client.WriteAmbiguous},
		{"timeout before commit", sandbox.FaultTimeoutBeforeCommit, 150 * time.Millisecond, 5 * time.Second, 0, client.WriteAmbiguous},
		{"5xx after commit", sandbox.Fault5xxAfterCommit, time.Second, 5 * time.Second, 1, client.WriteAmbiguous},
		{"5xx before commit", sandbox.Fault5xxBeforeCommit, time.Second, 5 * time.Second, 0, client.WriteAmbiguous},
		{"429", sandbox.Fault429, time.Second, 5 * time.Second, 0, client.WriteRejected},
		{"drop after read", sandbox.FaultDropAfterRead, time.Second, 5 * time.Second, 0, client.WriteAmbiguous},
		{"latency", sandbox.FaultLatency, time.Second, 5 * time.Second, 1, ""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			cfg := sandbox.Config{Seed: 1, Size: 30, HoldTimeout: c.hold,
				Faults: []sandbox.FaultRule{{ToolSlug: "GMAIL_SEND_EMAIL", Mode: c.mode, Count: 1, Latency: map[bool]time.Duration{true: 100 * time.Millisecond}[c.mode == sandbox.FaultLatency]}}}
			s, base, err := sandbox.Start(ctx, cfg, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			cl, err := client.New(client.WithBaseURL(base), client.WithAPIKey("test-key"), client.WithWriteTimeout(c.writeTimeout))
			if err != nil {
				t.Fatal(err)
			}
			rid := fmt.Sprintf("it-%d", i)
			args, _ := json.Marshal(map[string]any{"recipient_email": "ops@example.org", "subject": c.name, "body": "integration"})
			res, err := cl.WithoutRetries().Execute(ctx, "GMAIL_SEND_EMAIL", client.ExecuteRequest{
				Arguments: args, UserID: "integration-user", RequestID: rid})
			if got := s.ExecuteCount(); got != 1 {
				t.Errorf("%d execute requests reached the sandbox, want exactly 1", got)
			}
			if c.kind == "" {
				if err != nil || !res.Successful || res.LogID == "" {
					t.Fatalf("want success, got %+v, %v", res, err)
				}
			} else {
				var we *client.WriteError
				if !errors.As(err, &we) {
					t.Fatalf("want a *client.WriteError, got %v", err)
				}
				if we.Kind != c.kind || !we.Sent || we.RequestID != rid {
					t.Errorf("WriteError kind %q sent %v request id %q, want %q true %q (%v)", we.Kind, we.Sent, we.RequestID, c.kind, rid, we)
				}
			}
			// The hold may end after the client gave up; the effect was committed before it.
			n := 0
			for _, e := range s.Effects() {
				if e.RequestID == rid {
					n++
				}
			}
			if n != c.effects {
				t.Errorf("%d effects, want %d", n, c.effects)
			}
		})
	}
}

// TestClientReadsTheSandbox walks the sandbox's logs, tools and accounts with the client's
// read paths: the shapes the sandbox serves are the shapes the client parses.
func TestClientReadsTheSandbox(t *testing.T) {
	ctx := t.Context()
	s, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 2, Size: 450}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cl, err := client.New(client.WithBaseURL(base), client.WithAPIKey("k"))
	if err != nil {
		t.Fatal(err)
	}
	n, pages := 0, 0
	for page, err := range cl.ListLogs(ctx, client.LogQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Bad) > 0 {
			t.Fatalf("unparsable records: %v", page.Bad)
		}
		n += len(page.Executions)
		pages++
	}
	if n != 450 {
		t.Fatalf("the client read %d records in %d pages, want 450", n, pages)
	}
	want := s.Executions()[7]
	got, err := cl.GetLog(ctx, want.ID)
	if err != nil || got.ID != want.ID || got.RequestID != want.RequestID || string(got.Arguments) != string(want.Arguments) {
		t.Fatalf("GetLog: %+v, %v", got, err)
	}
	tools, err := cl.ListTools(ctx, client.ToolQuery{ToolkitSlug: "gmail"})
	if err != nil || len(tools) == 0 {
		t.Fatalf("ListTools: %d, %v", len(tools), err)
	}
	tool, err := cl.GetTool(ctx, "GMAIL_FETCH_EMAILS")
	if err != nil || !tool.HasTag("readOnlyHint") {
		t.Fatalf("GetTool: %+v, %v", tool, err)
	}
	accounts := 0
	for items, err := range cl.ListConnectedAccounts(ctx, client.AccountQuery{UserIDs: []string{"user_1"}}) {
		if err != nil {
			t.Fatal(err)
		}
		accounts += len(items)
	}
	if accounts == 0 {
		t.Fatal("user_1 has no accounts")
	}
	args, _ := json.Marshal(map[string]any{"channel": "#general", "text": "verify me"})
	if _, err := cl.WithoutRetries().Execute(ctx, "SLACK_SEND_MESSAGE", client.ExecuteRequest{Arguments: args, UserID: "user_1"}); err != nil {
		t.Fatal(err)
	}
	read, _ := json.Marshal(map[string]any{"channel": "#general", "limit": 5})
	res, err := cl.RunReadTool(ctx, model.ToolCall{Slug: "SLACK_FETCH_CONVERSATION_HISTORY", Arguments: read, UserID: "user_1"})
	if err != nil || !res.Successful || !strings.Contains(string(res.Data), `"text":"verify me"`) {
		t.Fatalf("RunReadTool: %s, %v", res.Data, err)
	}
}
