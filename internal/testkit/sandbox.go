package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// StartSandbox starts a sandbox configured by cfg on a loopback port for the test's life and
// returns it with its base URL.
func StartSandbox(t testing.TB, cfg sandbox.Config) (*sandbox.Server, string) {
	t.Helper()
	srv, base, err := sandbox.Start(context.Background(), cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, base
}

// SandboxGet decodes the JSON answer of GET base+path on a sandbox into v.
func SandboxGet(t testing.TB, base, apiKey, path string, v any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.Header.Set("x-api-key", apiKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// SandboxPost POSTs body (JSON) to base+path on a sandbox, fails the test on an answer that is
// not 2xx, and decodes the answer into v when v is not nil.
func SandboxPost(t testing.TB, base, apiKey, path string, body, v any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(b))
	req.Header.Set("x-api-key", apiKey)
	req.Header.Set("content-type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		t.Fatalf("POST %s: HTTP %d", path, res.StatusCode)
	}
	if v != nil {
		if err := json.NewDecoder(res.Body).Decode(v); err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
	}
}

// SandboxStats is GET /_sandbox/stats.
func SandboxStats(t testing.TB, base, apiKey string) sandbox.Stats {
	t.Helper()
	var st sandbox.Stats
	SandboxGet(t, base, apiKey, "/_sandbox/stats", &st)
	return st
}

// SandboxEffects is GET /_sandbox/effects: the side effects the sandbox committed. It reads
// both a bare list and {"effects": [...]}.
func SandboxEffects(t testing.TB, base, apiKey string) []sandbox.Effect {
	t.Helper()
	var raw json.RawMessage
	SandboxGet(t, base, apiKey, "/_sandbox/effects", &raw)
	var list []sandbox.Effect
	if json.Unmarshal(raw, &list) != nil {
		var wrapped struct {
			Effects []sandbox.Effect `json:"effects"`
		}
		if err := json.Unmarshal(raw, &wrapped); err != nil {
			t.Fatalf("GET /_sandbox/effects: %s", raw)
		}
		list = wrapped.Effects
	}
	return list
}

// ActiveAccount is the id of the first ACTIVE connected account of toolkit ("gmail") the API
// lists; the test fails when there is none.
func ActiveAccount(t testing.TB, ctx context.Context, c *client.Client, toolkit string) string {
	t.Helper()
	id := ""
	for accts, err := range c.ListConnectedAccounts(ctx, client.AccountQuery{ToolkitSlugs: []string{toolkit}}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range accts {
			if id == "" && strings.EqualFold(a.Status, "ACTIVE") {
				id = a.ID
			}
		}
	}
	if id == "" {
		t.Fatalf("the sandbox has no active %s account", toolkit)
	}
	return id
}

// SendSlack posts one SLACK_SEND_MESSAGE of text through the sandbox's API as an agent does
// (with fault armed first for it, unless ""), and returns the id of the log it left.
func SendSlack(t testing.TB, srv *sandbox.Server, base, apiKey, text string, fault sandbox.FaultMode) string {
	t.Helper()
	// a Slack account whose newest execution succeeded: the history expires some accounts
	// (their later calls are refused), and which ones depends on the minute it is generated for
	execs := srv.Executions()
	newest := map[string]model.Execution{}
	for _, x := range execs {
		if strings.Contains(string(x.Arguments), `"C0TEST"`) {
			continue // this helper's own sends: the choice stays the same from one call to the next
		}
		if n, ok := newest[x.ConnectedAccountID]; !ok || x.Start().After(n.Start()) {
			newest[x.ConnectedAccountID] = x
		}
	}
	var acct, user string
	for _, x := range execs {
		if x.ToolSlug == "SLACK_SEND_MESSAGE" && x.ConnectedAccountID != "" && x.UserID != "" &&
			newest[x.ConnectedAccountID].Status == "success" {
			acct, user = x.ConnectedAccountID, x.UserID
		}
	}
	if acct == "" {
		t.Fatal("the sandbox has no Slack account")
	}
	if fault != "" {
		srv.ArmFault(sandbox.FaultRule{ToolSlug: "SLACK_SEND_MESSAGE", Mode: fault, Count: 1})
	}
	body, _ := json.Marshal(map[string]any{"connected_account_id": acct, "user_id": user, "version": "20250909_00",
		"arguments": map[string]any{"channel": "C0TEST", "text": text}})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v3.1/tools/execute/SLACK_SEND_MESSAGE", strings.NewReader(string(body)))
	req.Header.Set("x-api-key", apiKey)
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := ""
	for _, x := range srv.Executions() {
		if strings.Contains(string(x.Arguments), text) {
			id = x.ID
		}
	}
	if id == "" {
		t.Fatalf("no log carries %q", text)
	}
	return id
}
