package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/internal/hostile"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
)

// TestRetryDecidesOnTheLiveLogItAskedFor: the guard decides on the log read again from the
// API, and only when the API answered the log asked for: a server that answers another log
// (a proxy, a cache, a lie) refuses the retry and nothing is sent (mutant A02 survived).
func TestRetryDecidesOnTheLiveLogItAskedFor(t *testing.T) {
	ctx := context.Background()
	other := `{"id":"log_other","timestamp":"2026-03-01T10:00:00Z","status":"failed","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","connected_account_id":"ca_1"},` +
		`"data":{"request":{"arguments":{"recipient_email":"a@b.c"}},"error":{"kind":"timeout","message":"timed out"}}}`
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/logs/tool_execution/"):
			_, _ = w.Write([]byte(other))
		case strings.Contains(r.URL.Path, "/logs/"):
			_, _ = w.Write([]byte(`{"logs":[],"next_cursor":null}`))
		default:
			_, _ = w.Write([]byte(`{"data":{},"error":null,"successful":true}`))
		}
	})
	env := func(k string) string { return map[string]string{"COMPOSIO_API_KEY": "k-a02"}[k] }
	a, err := Open(ctx, Options{BaseURL: srv.URL, Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	j, err := OpenJournal(ctx, Options{Journal: filepath.Join(t.TempDir(), "j.db"), Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	e := model.Execution{ID: "log_asked", ToolSlug: "GMAIL_SEND_EMAIL", ConnectedAccountID: "ca_1", Status: "failed",
		Arguments: json.RawMessage(`{"recipient_email":"a@b.c"}`), Detailed: true, Error: &model.ExecError{Kind: model.ErrTimeout}}
	a.UseJournal(j)
	res, err := a.Retry(ctx, retry.Request{Execution: e, Confirmed: true, Reason: "r"}, RetryHooks{})
	if !errors.Is(err, retry.ErrOtherRecord) || res.Sent || res.Attempt != nil || !strings.Contains(err.Error(), "log_other") {
		t.Fatalf("retry on another log than asked: want an error naming the other record, got %+v %v", res.Decision, err)
	}
	if as, err := j.j.Attempts(ctx, ""); err != nil || len(as) != 0 {
		t.Fatalf("a retry answered with another record claimed %v (%v)", as, err)
	}
	if n := srv.Count(http.MethodPost, "/tools/execute/GMAIL_SEND_EMAIL"); n != 0 {
		t.Fatalf("%d sends", n)
	}
}

// TestTheDialogShowsNoSecret: the retry dialog's evidence (what will be sent, the provider's
// reason and read arguments) has its secrets redacted, as every pane does (mutant A08: the
// send preview showed the arguments as they were).
func TestTheDialogShowsNoSecret(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "x.jsonl")
	rec := `{"id":"log_s","timestamp":"2026-03-01T10:00:00Z","status":"failed","metadata":{"tool_slug":"GMAIL_SEND_EMAIL"},` +
		`"data":{"request":{"arguments":{"recipient_email":"a@b.c","password":"hunter2-s3cret","api_key":"sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}}}`
	if err := os.WriteFile(file, []byte(rec+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, Options{File: file, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	e, err := a.Get(ctx, "log_s")
	if err != nil {
		t.Fatal(err)
	}
	ps := model.ProviderState{State: model.ProviderNotFound, Reason: "no draft with token ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		ReadArgs: json.RawMessage(`{"q":"x","access_token":"ya29.a0AfH6SMBx-s3cret"}`)}
	ev, err := a.Evidence(ctx, e, model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous}, ps)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(ev.Send.Lines(), "\n") + ev.Provider.Reason + string(ev.Provider.ReadArgs)
	for _, secret := range []string{"hunter2-s3cret", "sk_live_4eC39", "ghp_16C7e42F", "ya29.a0AfH6SMBx"} {
		if strings.Contains(all, secret) {
			t.Errorf("the dialog shows %s:\n%s", secret, all)
		}
	}
	if !strings.Contains(all, "[REDACTED]") || !strings.Contains(all, "a@b.c") {
		t.Errorf("the dialog's evidence:\n%s", all)
	}
}
