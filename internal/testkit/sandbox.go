package testkit

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/client"
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
