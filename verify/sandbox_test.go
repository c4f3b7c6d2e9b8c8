package verify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/verify"
)

// TestVerifiersAgainstSandbox runs every sandbox write tool through a real sandbox with a
// timeout fault, then asks the built-in verifier what the provider holds: found after a
// committed timeout (the effect happened, the answer was lost), not_found after an
// uncommitted one.
func TestVerifiersAgainstSandbox(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv, cl := startSandbox(ctx, t, sandbox.Config{Seed: 11, Size: 2500, HoldTimeout: 200 * time.Millisecond})
	verifiers := verify.NewVerifiers(cl, nil)
	// The write tools the sandbox simulates.
	sandboxWrites := []string{
		"GMAIL_SEND_EMAIL", "GMAIL_REPLY_TO_THREAD", "GMAIL_CREATE_EMAIL_DRAFT", "GMAIL_ADD_LABEL_TO_EMAIL",
		"GMAIL_DELETE_MESSAGE", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE", "GITHUB_CREATE_AN_ISSUE_COMMENT",
		"HUBSPOT_CREATE_CONTACT",
	}

	// A successful historical execution of each write tool gives an account and arguments
	// that the sandbox's providers accept.
	templates := map[string]model.Execution{}
	for _, e := range srv.Executions() { // newest first
		if _, seen := templates[e.ToolSlug]; !seen && e.Status == model.StatusSuccess && len(e.Arguments) > 0 {
			templates[e.ToolSlug] = e
		}
	}
	inbox := func(t *testing.T, tmpl model.Execution) []map[string]any {
		t.Helper()
		res, err := cl.RunReadTool(ctx, model.ToolCall{Slug: "GMAIL_FETCH_EMAILS", ConnectedAccountID: tmpl.ConnectedAccountID,
			Arguments: json.RawMessage(`{"query":"in:inbox","max_results":10}`)})
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(res.Data, &d); err != nil || len(d.Messages) < 4 {
			t.Fatalf("inbox of %s: %d messages, %v", tmpl.ConnectedAccountID, len(d.Messages), err)
		}
		return d.Messages
	}

	for _, slug := range sandboxWrites {
		t.Run(slug, func(t *testing.T) {
			tmpl, ok := templates[slug]
			if !ok {
				t.Fatalf("the sandbox history has no successful %s to take an account from", slug)
			}
			var orig map[string]any
			if err := json.Unmarshal(tmpl.Arguments, &orig); err != nil {
				t.Fatal(err)
			}
			var msgs []map[string]any
			if slug == "GMAIL_REPLY_TO_THREAD" || slug == "GMAIL_ADD_LABEL_TO_EMAIL" || slug == "GMAIL_DELETE_MESSAGE" {
				msgs = inbox(t, tmpl)
			}
			for i, c := range []struct {
				mode sandbox.FaultMode
				want model.ProviderStateKind
			}{
				{sandbox.FaultTimeoutBeforeCommit, model.ProviderNotFound},
				{sandbox.FaultTimeoutAfterCommit, model.ProviderFound},
			} {
				tag := fmt.Sprintf("verify %s %s", slug, c.mode)
				args := freshArgs(slug, orig, msgs, i, tag)
				raw, _ := json.Marshal(args)
				srv.ArmFault(sandbox.FaultRule{ToolSlug: slug, Mode: c.mode, Count: 1})
				rid := fmt.Sprintf("verify-%s-%d", slug, i)
				_, err := cl.WithoutRetries().Execute(ctx, slug, client.ExecuteRequest{
					Arguments: raw, ConnectedAccountID: tmpl.ConnectedAccountID, UserID: tmpl.UserID, RequestID: rid,
				})
				if err == nil {
					t.Fatalf("%s: the faulted execution answered", c.mode)
				}
				e := findLog(t, srv, rid)
				st := verifiers.Verify(ctx, &e)
				if st.State != c.want {
					t.Errorf("%s: provider state %s, want %s: %s (read %s %s)", c.mode, st.State, c.want, st.Reason, st.ReadTool, st.ReadArgs)
				} else {
					t.Logf("%s: %s: %s", c.mode, st.State, st.Reason)
				}
				if c.want == model.ProviderFound && slug != "GMAIL_DELETE_MESSAGE" && slug != "GMAIL_ADD_LABEL_TO_EMAIL" && len(st.Matches) != 1 {
					t.Errorf("%s: %d matches, want exactly the one effect", c.mode, len(st.Matches))
				}
			}
		})
	}
}

// findLog waits briefly for the sandbox to record the execution sent with request id rid.
func findLog(t *testing.T, srv *sandbox.Server, rid string) model.Execution {
	t.Helper()
	for range 100 {
		for _, e := range srv.Executions() {
			if e.RequestID == rid {
				return e
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no log with request id %s", rid)
	return model.Execution{}
}

// freshArgs builds arguments for one faulted execution: the historical call's account-bound
// values with new content, so that nothing already at the provider can match.
func freshArgs(slug string, orig map[string]any, inbox []map[string]any, i int, tag string) map[string]any {
	unique := fmt.Sprintf("%s #%d at %d", tag, i, time.Now().UnixNano())
	switch slug {
	case "GMAIL_SEND_EMAIL":
		return map[string]any{"recipient_email": orig["recipient_email"], "subject": unique, "body": "Checking delivery."}
	case "GMAIL_CREATE_EMAIL_DRAFT":
		return map[string]any{"recipient_email": orig["recipient_email"], "subject": unique, "body": "Draft body."}
	case "GMAIL_REPLY_TO_THREAD":
		m := inbox[i]
		return map[string]any{"thread_id": m["threadId"], "recipient_email": m["sender"], "message_body": unique}
	case "GMAIL_ADD_LABEL_TO_EMAIL":
		return map[string]any{"message_id": inbox[2]["messageId"], "add_label_ids": []string{fmt.Sprintf("Label_Verify_%d", i)}}
	case "GMAIL_DELETE_MESSAGE":
		return map[string]any{"message_id": inbox[3]["messageId"]} // the same message both times
	case "SLACK_SEND_MESSAGE":
		return map[string]any{"channel": orig["channel"], "text": unique}
	case "GITHUB_CREATE_AN_ISSUE":
		return map[string]any{"owner": orig["owner"], "repo": orig["repo"], "title": unique, "body": "Steps to reproduce."}
	case "GITHUB_CREATE_AN_ISSUE_COMMENT":
		return map[string]any{"owner": orig["owner"], "repo": orig["repo"], "issue_number": orig["issue_number"], "body": unique}
	case "HUBSPOT_CREATE_CONTACT":
		return map[string]any{"email": fmt.Sprintf("verify.%d.%d@example.org", i, time.Now().UnixNano()), "firstname": "Vera", "lastname": "Fication"}
	}
	panic("no fresh arguments for " + slug)
}

// TestVerifyCountsEveryDuplicateEffect sends the same email twice (the first answer lost to a
// committed timeout, as an SDK retry would): the oldest member's check finds both effects and
// the group's Effective is 2.
func TestVerifyCountsEveryDuplicateEffect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, cl := startSandbox(ctx, t, sandbox.Config{Seed: 5, Size: 800, HoldTimeout: 100 * time.Millisecond})
	var tmpl model.Execution
	for _, e := range srv.Executions() {
		if e.ToolSlug == "GMAIL_SEND_EMAIL" && e.Status == model.StatusSuccess {
			tmpl = e
			break
		}
	}
	if tmpl.ID == "" {
		t.Fatal("no Gmail send in the history")
	}
	var orig map[string]any
	_ = json.Unmarshal(tmpl.Arguments, &orig)
	raw, _ := json.Marshal(map[string]any{"recipient_email": orig["recipient_email"], "subject": fmt.Sprintf("Twice %d", time.Now().UnixNano()), "body": "b"})
	srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.FaultTimeoutAfterCommit, Count: 1})
	var execs []model.Execution
	for i := range 2 {
		rid := fmt.Sprintf("twice-%d", i)
		_, _ = cl.WithoutRetries().Execute(ctx, "GMAIL_SEND_EMAIL", client.ExecuteRequest{Arguments: raw, ConnectedAccountID: tmpl.ConnectedAccountID, RequestID: rid})
		execs = append(execs, findLog(t, srv, rid))
		time.Sleep(450 * time.Millisecond)
	}
	res := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
	if len(res.Groups) != 1 {
		t.Fatalf("groups = %+v", res.Groups)
	}
	v := verify.NewVerifiers(cl, nil)
	states := map[string]model.ProviderState{}
	for i := range execs {
		states[execs[i].ID] = v.Verify(ctx, &execs[i])
	}
	if st := states[execs[0].ID]; st.State != model.ProviderFound || len(st.Matches) != 2 {
		t.Errorf("oldest member: %s with %d matches (%s), want found with both", st.State, len(st.Matches), st.Reason)
	}
	triage.FillEffective(res.Groups, states)
	if res.Groups[0].Effective != 2 {
		t.Errorf("Effective = %d, want 2", res.Groups[0].Effective)
	}
	t.Logf("%s; %s; effective %d", res.Groups[0].Reason, states[execs[0].ID].Reason, res.Groups[0].Effective)
}

// startSandbox serves a sandbox on loopback for the test and returns it with a client that
// does not retry.
func startSandbox(ctx context.Context, t *testing.T, cfg sandbox.Config) (*sandbox.Server, *client.Client) {
	t.Helper()
	srv, base := testkit.StartSandbox(t, cfg)
	cl, err := client.New(client.WithAPIKey("sandbox-key"), client.WithBaseURL(base), client.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return srv, cl
}
