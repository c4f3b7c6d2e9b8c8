package retry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/hostile"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
)

// provider is a fixed provider check.
type provider model.ProviderStateKind

func (p provider) Verify(context.Context, *model.Execution) model.ProviderState {
	return model.ProviderState{State: model.ProviderStateKind(p), Reason: "stub", CheckedAt: time.Now()}
}

const resolveArgs = `{"recipient_email":"bob@example.com","subject":"Invoice 7","body":"attached"}`

// indeterminateAttempt journals an attempt of orig that was sent at sent and ended
// indeterminate, and returns it.
func indeterminateAttempt(t *testing.T, j journal.Journal, orig model.Execution, sent time.Time) model.RetryAttempt {
	t.Helper()
	ctx := context.Background()
	a := model.RetryAttempt{ID: "0b6f3b0e-6d1c-4c1e-9a52-3c1f7c1d2e01", ExecutionID: orig.ID, ToolSlug: orig.ToolSlug,
		ArgumentHash: model.ArgumentHash(orig.Arguments, model.DefaultVolatileKeys()), State: model.AttemptIntent, Who: "t", CreatedAt: sent}
	ok, _, err := j.ClaimAttempt(ctx, journal.Claim{Attempt: a, Deadline: sent.Add(time.Minute), Target: "LIVE hostile",
		Confirmation: journal.Confirmation{Who: "t", At: sent, Reason: "r", Outcome: model.OutcomeAmbiguous}})
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	for _, st := range []model.AttemptState{model.AttemptSent, model.AttemptIndeterminate} {
		if err := j.UpdateAttempt(ctx, a.ID, st, "", "test", sent); err != nil {
			t.Fatal(err)
		}
	}
	got, err := j.Attempt(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func logRec(id, tool, account, status string, at time.Time, requestID string, args string, errKind string) map[string]any {
	r := map[string]any{"id": id, "timestamp": at.UTC().Format(time.RFC3339Nano), "status": status,
		"metadata": map[string]any{"tool_slug": tool, "toolkit_slug": strings.ToLower(strings.SplitN(tool, "_", 2)[0]), "connected_account_id": account, "user_id": "u1"},
		"data":     map[string]any{"request": map[string]any{"arguments": json.RawMessage(args)}}}
	if requestID != "" {
		r["context"] = map[string]any{"request_id": requestID}
	}
	if errKind != "" {
		r["data"].(map[string]any)["error"] = map[string]any{"kind": errKind, "message": errKind + " error"}
	}
	return r
}

// Only evidence tied to the attempt settles it: a log carrying its request id, or a success of
// the same tool, account and arguments after its start; "failed" needs the settle time too.
// Each server below ignores the logs filters and answers with the records given.
func TestResolveTrustsOnlyEvidenceTiedToTheAttempt(t *testing.T) {
	sent := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	orig := model.Execution{ID: "log_orig", ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", UserID: "u1",
		Timestamp: sent.Add(-time.Hour), Status: "failed", Arguments: json.RawMessage(resolveArgs), Detailed: true}
	const rid = "0b6f3b0e-6d1c-4c1e-9a52-3c1f7c1d2e01"
	after := sent.Add(3 * time.Second)
	for _, tt := range []struct {
		name     string
		records  []map[string]any
		provider model.ProviderStateKind
		elapsed  time.Duration // since the send, when resolving
		want     model.AttemptState
	}{
		{"another tool's 429 without a request id, filters ignored", []map[string]any{
			logRec("log_slack", "SLACK_SEND_MESSAGE", "ca_9", "failed", after, "", `{"channel":"#x"}`, "rate_limited")},
			model.ProviderUnknown, time.Hour, model.AttemptIndeterminate},
		{"a log of someone else's request id", []map[string]any{
			logRec("log_other", "GMAIL_SEND_EMAIL", "ca_1", "failed", after, "another-request", resolveArgs, "validation")},
			model.ProviderUnknown, time.Hour, model.AttemptIndeterminate},
		{"its request id, success", []map[string]any{
			logRec("log_rid", "GMAIL_SEND_EMAIL", "ca_1", "success", after, rid, resolveArgs, "")},
			model.ProviderUnknown, time.Minute, model.AttemptSucceeded},
		{"its request id, ok (the same vocabulary as the classifier)", []map[string]any{
			logRec("log_rid", "GMAIL_SEND_EMAIL", "ca_1", "ok", after, rid, resolveArgs, "")},
			model.ProviderUnknown, time.Minute, model.AttemptSucceeded},
		{"its request id, refused, before the settle time: its own log is the call's end", []map[string]any{
			logRec("log_rid", "GMAIL_SEND_EMAIL", "ca_1", "failed", after, rid, resolveArgs, "validation")},
			model.ProviderNotFound, time.Minute, model.AttemptFailed},
		{"its request id, failed, after the settle time", []map[string]any{
			logRec("log_rid", "GMAIL_SEND_EMAIL", "ca_1", "failed", after, rid, resolveArgs, "validation")},
			model.ProviderNotFound, time.Hour, model.AttemptFailed},
		{"same tool, account and arguments after the start, no request id", []map[string]any{
			logRec("log_same", "GMAIL_SEND_EMAIL", "ca_1", "success", after, "", resolveArgs, "")},
			model.ProviderUnknown, time.Minute, model.AttemptSucceeded},
		{"same arguments, but before the attempt started", []map[string]any{
			logRec("log_before", "GMAIL_SEND_EMAIL", "ca_1", "success", sent.Add(-10*time.Minute), "", resolveArgs, "")},
			model.ProviderUnknown, time.Hour, model.AttemptIndeterminate},
		{"same arguments, another account", []map[string]any{
			logRec("log_acct", "GMAIL_SEND_EMAIL", "ca_2", "success", after, "", resolveArgs, "")},
			model.ProviderUnknown, time.Hour, model.AttemptIndeterminate},
		{"same account, other arguments", []map[string]any{
			logRec("log_args", "GMAIL_SEND_EMAIL", "ca_1", "success", after, "", `{"recipient_email":"eve@example.com","subject":"x","body":"y"}`, "")},
			model.ProviderUnknown, time.Hour, model.AttemptIndeterminate},
		{"nothing conclusive", nil, model.ProviderUnknown, time.Hour, model.AttemptIndeterminate},
		{"nothing in the logs, the provider has nothing, settled", nil, model.ProviderNotFound, time.Hour, model.AttemptFailed},
		{"nothing in the logs, the provider has nothing, not settled", nil, model.ProviderNotFound, time.Minute, model.AttemptIndeterminate},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			a := indeterminateAttempt(t, j, orig, sent)
			srv := hostile.Serve(t, hostile.IgnoredFilters(tt.records...))
			c, err := client.New(client.WithAPIKey("k-hostile-test"), client.WithBaseURL(srv.URL), client.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			now := sent.Add(tt.elapsed)
			d := retry.Deps{Journal: j, Logs: c, Verifier: provider(tt.provider), Target: "LIVE hostile", Now: func() time.Time { return now }}
			e := orig
			res, err := retry.Resolve(ctx, d, a.ID, retry.ResolveOptions{Execution: &e, Settle: 15 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if res.Attempt.State != tt.want {
				t.Errorf("state %s, want %s; evidence:\n  %s\nnext: %s", res.Attempt.State, tt.want, strings.Join(res.Evidence, "\n  "), res.Next)
			}
			if tt.want == model.AttemptIndeterminate && res.Next == "" {
				t.Error("an inconclusive resolve says nothing about what to do next")
			}
		})
	}
}

// A person's --as that contradicts conclusive evidence is refused, and nothing is recorded.
func TestResolveRefusesAsAgainstTheEvidence(t *testing.T) {
	sent := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	orig := model.Execution{ID: "log_orig", ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", Arguments: json.RawMessage(resolveArgs), Detailed: true}
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	a := indeterminateAttempt(t, j, orig, sent)
	srv := hostile.Serve(t, hostile.IgnoredFilters(logRec("log_rid", "GMAIL_SEND_EMAIL", "ca_1", "success", sent.Add(time.Second), a.ID, resolveArgs, "")))
	c, err := client.New(client.WithAPIKey("k-hostile-test"), client.WithBaseURL(srv.URL), client.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	now := sent.Add(time.Hour)
	d := retry.Deps{Journal: j, Logs: c, Verifier: provider(model.ProviderUnknown), Target: "LIVE hostile", Now: func() time.Time { return now }}
	_, err = retry.Resolve(ctx, d, a.ID, retry.ResolveOptions{Execution: &orig, As: model.AttemptFailed, Reason: "I think it failed"})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("--as failed against a success log: err = %v", err)
	}
	if got, _ := j.Attempt(ctx, a.ID); got.State != model.AttemptIndeterminate {
		t.Errorf("the attempt became %s", got.State)
	}
}

// resolve reads the log the execute answer returned (its log_id) before anything else: a
// server that records no request id still settles the attempt by it.
func TestResolveReadsTheAnswersLogFirst(t *testing.T) {
	sent := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	orig := model.Execution{ID: "log_orig", ToolSlug: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(resolveArgs), Detailed: true} // no account: no arguments fallback
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	a := model.RetryAttempt{ID: retry.NewAttemptID(), ExecutionID: orig.ID, ToolSlug: orig.ToolSlug, State: model.AttemptIntent, Who: "t", CreatedAt: sent}
	if ok, _, err := j.ClaimAttempt(ctx, journal.Claim{Attempt: a, Deadline: sent.Add(time.Minute), Target: "LIVE hostile",
		Confirmation: journal.Confirmation{Who: "t", At: sent, Reason: "r"}}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	j.UpdateAttempt(ctx, a.ID, model.AttemptSent, "", "", sent)
	j.UpdateAttempt(ctx, a.ID, model.AttemptIndeterminate, "log_answer", "timed out", sent.Add(time.Minute))
	srv := hostile.Serve(t, hostile.IgnoredFilters(logRec("log_answer", "GMAIL_SEND_EMAIL", "", "success", sent.Add(time.Second), "", resolveArgs, "")))
	c, _ := client.New(client.WithAPIKey("k-hostile-test"), client.WithBaseURL(srv.URL), client.WithMaxRetries(0))
	now := sent.Add(time.Minute)
	d := retry.Deps{Journal: j, Logs: c, Verifier: provider(model.ProviderUnknown), Target: "LIVE hostile", Now: func() time.Time { return now }}
	res, err := retry.Resolve(ctx, d, a.ID, retry.ResolveOptions{Execution: &orig})
	if err != nil || res.Attempt.State != model.AttemptSucceeded {
		t.Fatalf("state %s, err %v; evidence %v", res.Attempt.State, err, res.Evidence)
	}
}

// TestAnAnswerThatNamesATimeoutHoldsTheClaimOnTheWire: against a loopback server that answers
// each write with HTTP 200 and successful:false carrying the texts that broke an earlier guard (a
// timeout beside a "never sent" word), a second confirmed retry is refused: one POST each
// (6 of 13 texts gave 2 POSTs).
func TestAnAnswerThatNamesATimeoutHoldsTheClaimOnTheWire(t *testing.T) {
	texts := []string{
		"x509 certificate has expired on the callback host; the email was sent",
		"Request timed out after 60000ms while uploading certificate.pdf",
		"connection refused by the webhook after the provider accepted the message",
		"getaddrinfo ENOTFOUND hooks.internal (email queued)",
		"DNS lookup failed for the audit host; request timed out",
		"not sent to the CRM: the Gmail send timed out",
		"unreachable mirror; 504 Gateway Timeout",
		"TLS handshake with the tracker failed, message delivered",
		"certificate verify failed after the send timed out",
		"ECONNREFUSED 10.0.0.4:443 (socket hang up upstream)",
		"Invalid recipient; request timed out",
		"rate limit exceeded while the send was in progress",
		"not found: the message may have been delivered",
	}
	ctx := context.Background()
	for i, text := range texts {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			orig := logRec("log_orig", "GMAIL_SEND_EMAIL", "ca_1", "failed", time.Now().Add(-time.Hour), "", resolveArgs, "timeout")
			answer, _ := json.Marshal(map[string]any{"data": map[string]any{"status": 400}, "error": text, "successful": false, "log_id": "log_new"})
			srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/tools/execute/GMAIL_SEND_EMAIL"):
					w.Write(answer)
				case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/logs/tool_execution/log_orig"):
					json.NewEncoder(w).Encode(orig)
				default:
					io.WriteString(w, `{"logs":[],"next_cursor":null}`)
				}
			})
			c, err := client.New(client.WithAPIKey("k-hostile-test"), client.WithBaseURL(srv.URL), client.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			e, err := c.GetLog(ctx, "log_orig")
			if err != nil {
				t.Fatal(err)
			}
			d := retry.Deps{Journal: j, Sender: c.WithoutRetries(), Logs: c, Verifier: provider(model.ProviderNotFound), Target: "LIVE hostile", Who: "t"}
			for range 2 {
				if _, err := retry.Run(ctx, d, retry.Request{Execution: e, Confirmed: true, Reason: "confirmed"}); err != nil {
					t.Fatal(err)
				}
			}
			if n := srv.Count(http.MethodPost, "/tools/execute/GMAIL_SEND_EMAIL"); n != 1 {
				t.Fatalf("%q: %d POSTs, want 1", text, n)
			}
		})
	}
}
