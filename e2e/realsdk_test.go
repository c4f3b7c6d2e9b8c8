package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// realSDK installs @composio/core at version (from the npm registry, into the cache directory
// EXECTRIAGE_SDK_CACHE or the test's temp dir) and returns a function that runs one scenario of
// testdata/sdk.mjs against base. Without node and npm it skips, saying why; with
// EXECTRIAGE_REQUIRE_NODE=1 (CI) it fails instead.
func realSDK(t *testing.T, version, base string) func(scenario, subject string) map[string]any {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("EXECTRIAGE_REQUIRE_NODE") == "1" {
				t.Fatalf("%s is not installed, and EXECTRIAGE_REQUIRE_NODE=1: the real SDK test must run", tool)
			}
			t.Skipf("%s is not installed: the real-SDK test needs Node.js and npm (apt-get install nodejs npm); CI runs it", tool)
		}
	}
	root := os.Getenv("EXECTRIAGE_SDK_CACHE")
	if root == "" {
		root = t.TempDir()
	}
	dir := filepath.Join(root, "core-"+version)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@composio", "core", "package.json")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		pkg := map[string]any{"name": "exectriage-sdk-test", "version": "1.0.0", "private": true, "type": "module",
			"dependencies": map[string]string{"@composio/core": version}}
		switch version {
		case "0.21.0":
			// 0.21.0 pins @composio/client 2.0.0-rc.8, which the registry here does not serve
			// (docs/platform.md, "Running the real SDK in tests").
			pkg["overrides"] = map[string]string{"@composio/client": "2.0.0-rc.6"}
		case "1.0.0-beta.1":
			// it pins pre-releases of json-schema-to-zod and @composio/client the registry lacks
			pkg["overrides"] = map[string]string{"@composio/json-schema-to-zod": "0.3.3", "@composio/client": "2.0.0-rc.6"}
			pkg["dependencies"].(map[string]string)["zod"] = "^3.25.0"
		}
		b, _ := json.Marshal(pkg)
		if err := os.WriteFile(filepath.Join(dir, "package.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			if os.Getenv("EXECTRIAGE_REQUIRE_NODE") == "1" {
				t.Fatalf("npm install @composio/core@%s: %v\n%s", version, err, out)
			}
			t.Skipf("npm install @composio/core@%s failed (no registry here?): %v\n%s", version, err, out)
		}
	}
	script, err := os.ReadFile(filepath.Join("testdata", "sdk.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sdk.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return func(scenario, subject string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "sdk.mjs", scenario, subject)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "COMPOSIO_API_KEY="+apiKey, "COMPOSIO_BASE_URL="+base, "COMPOSIO_DISABLE_TELEMETRY=true")
		out, err := cmd.Output()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var res map[string]any
		if jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &res); jerr != nil {
			t.Fatalf("@composio/core@%s %s: %v %v\n%s", version, scenario, err, jerr, out)
		}
		return res
	}
}

// effectsWith counts the sandbox's effects of GMAIL_SEND_EMAIL whose subject is subject, and
// returns them.
func effectsWith(t *testing.T, srv *sandbox.Server, base, subject string) []sandbox.Effect {
	t.Helper()
	hash := model.ArgumentHash(json.RawMessage(fmt.Sprintf(`{"recipient_email":"sdk@example.com","subject":%q,"body":"sent by the real SDK"}`, subject)),
		model.DefaultVolatileKeys())
	var out []sandbox.Effect
	for _, e := range testkit.SandboxEffects(t, base, apiKey) {
		if e.ToolSlug == "GMAIL_SEND_EMAIL" && e.ArgumentHash == hash {
			out = append(out, e)
		}
	}
	return out
}

// The real SDK against the sandbox, the way the bug was found: @composio/core 0.13.1 re-sends a
// tools.execute that got a 5xx after the provider acted (3 emails), 0.14.0 sends it once (1);
// 0.21.0 still re-sends a tool-router session execution (3, logged with the session id), and
// its logs.search / logs.get accept the sandbox's shapes (its zod schemas check them).
func TestRealSDKAgainstTheSandbox(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: apiKey, Seed: 3, Size: 60}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tt := range []struct {
		version, scenario string
		effects           int
	}{
		{"0.13.1", "execute", 3},
		{"0.14.0", "execute", 1},
		{"0.21.0", "session", 3},
		{"1.0.0-beta.1", "session", 3}, // a pre-release line that still re-sends session writes
	} {
		t.Run(tt.version+"_"+tt.scenario, func(t *testing.T) {
			run := realSDK(t, tt.version, base)
			subject := "real sdk " + tt.version + " " + tt.scenario
			srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault5xxAfterCommit, Count: 3})
			res := run(tt.scenario, subject)
			srv.ClearFaults()
			effects := effectsWith(t, srv, base, subject)
			if len(effects) != tt.effects {
				t.Fatalf("%d emails sent, want %d (%v)", len(effects), tt.effects, res)
			}
			if tt.scenario == "session" {
				for _, e := range effects {
					if e.Path != "session.execute" || e.SessionID == "" || e.SessionID != res["sessionId"] {
						t.Errorf("effect %+v: want path session.execute and the session %v", e, res["sessionId"])
					}
				}
				if res["used"] != res["sessionId"] {
					t.Errorf("composio.use: %v", res)
				}
				logs := run("logs", "")
				if logs["ok"] != true || logs["listed"].(float64) == 0 || logs["hasContext"] != true {
					t.Errorf("logs.search/logs.get: %v", logs)
				}
			}
		})
	}
}

// TestRealSDKSessionRoutesAgainstTheStrictSandbox: @composio/core 0.21.0 and 1.0.0-beta.1
// against the strict sandbox, on every session path a real project uses: session.proxyExecute
// (it sends toolkit_slug) re-sends a proxied write that got a 5xx after the provider acted
// (3 emails), and so does a provider-wrapped tool call (the OpenAI provider's executeToolCall
// on a session tool, as an agent loop runs it: 3), session.tools(), search and toolkits pass
// the SDK's own zod schemas (before:
// proxyExecute got 400 "toolkit is required", tools() a 404).
func TestRealSDKSessionRoutesAgainstTheStrictSandbox(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: apiKey, Seed: 3, Size: 60}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, version := range []string{"0.21.0", "1.0.0-beta.1"} {
		t.Run(version, func(t *testing.T) {
			run := realSDK(t, version, base)
			subject := "real sdk proxy " + version
			srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault5xxAfterCommit, Count: 3})
			res := run("proxy", subject)
			srv.ClearFaults()
			effects := effectsWith(t, srv, base, subject)
			if len(effects) != 3 {
				t.Fatalf("session.proxyExecute under a 5xx: %d emails, want 3 (%v)", len(effects), res)
			}
			for _, e := range effects {
				if e.Path != "session.proxy_execute" || e.SessionID != res["sessionId"] {
					t.Errorf("effect %+v: want path session.proxy_execute in session %v", e, res["sessionId"])
				}
			}
			res = run("proxy", subject+" ok")
			if st, _ := res["status"].(float64); res["ok"] != true || st < 200 || st > 299 || len(effectsWith(t, srv, base, subject+" ok")) != 1 {
				t.Fatalf("session.proxyExecute: %v", res)
			}
			subject = "real sdk wrapped " + version
			srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault5xxAfterCommit, Count: 3})
			res = run("wrapped", subject)
			srv.ClearFaults()
			if n := len(effectsWith(t, srv, base, subject)); n != 3 {
				t.Fatalf("a provider-wrapped session tool call under a 5xx: %d emails, want 3 (%v)", n, res)
			}
			res = run("tools", "")
			if res["ok"] != true || res["tools"].(float64) < 5 || res["searched"].(float64) != 1 || res["toolkits"].(float64) != 2 || res["connected"] != true {
				t.Fatalf("session.tools/search/toolkits: %v", res)
			}
		})
	}
}

// TestTheRealSDKsWebhookEndpointCreateIsRetried: @composio/core 0.21.0's
// webhookEndpoints.create goes through the retrying client: a create whose answer is a 502
// after the endpoint was made is sent again, and the project has two endpoints for one URL
// (what a duplicate subscription comes from). Without the fault it makes one.
func TestTheRealSDKsWebhookEndpointCreateIsRetried(t *testing.T) {
	srv, base, err := sandbox.Start(t.Context(), sandbox.Config{APIKey: apiKey, Seed: 3, Size: 10}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	run := realSDK(t, "0.21.0", base)
	count := func(url string) int {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", base+"/api/v3.1/webhook_endpoints", nil)
		req.Header.Set("x-api-key", apiKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var eps struct {
			Items []struct{ URL string } `json:"items"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&eps); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range eps.Items {
			if e.URL == url {
				n++
			}
		}
		return n
	}
	if res := run("webhook", "http://127.0.0.1:9/plain"); res["ok"] != true || count("http://127.0.0.1:9/plain") != 1 {
		t.Fatalf("a create without a fault: %v, %d endpoints", res, count("http://127.0.0.1:9/plain"))
	}
	srv.ArmFault(sandbox.FaultRule{ToolSlug: sandbox.WebhookEndpointCreate, Mode: sandbox.Fault5xxAfterCommit, Count: 1})
	res := run("webhook", "http://127.0.0.1:9/retried")
	if n := count("http://127.0.0.1:9/retried"); res["ok"] != true || n != 2 {
		t.Fatalf("a create that got a 502 after it made the endpoint: %v, %d endpoints for its URL, want 2", res, n)
	}
}

// TestTheSeedsBurstIsOneSDKRetryGroup: the seed's own case, as it happens. @composio/core
// 0.13.1 re-sends a Gmail send that got a 5xx after the provider acted (three emails, at its
// backoff's gaps), and 2 s later 0.14.0 sends another email to the same recipient whose subject
// carries another version and id. scan finds the three as one group caused by the SDK's
// retries (they were judged one agent_retry group, the fourth email in it), and the other
// email in no group of theirs.
func TestTheSeedsBurstIsOneSDKRetryGroup(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: apiKey, Seed: 3, Size: 60}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	logIDs := map[string][]string{}
	for _, v := range []string{"0.13.1", "0.14.0"} {
		run := realSDK(t, v, base)
		subject := fmt.Sprintf("exectriage-seed-%s-%08x", v, rand.Uint32())
		srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault5xxAfterCommit, Count: 3})
		run("execute", subject)
		srv.ClearFaults()
		for _, e := range effectsWith(t, srv, base, subject) {
			logIDs[v] = append(logIDs[v], e.LogID)
		}
	}
	if len(logIDs["0.13.1"]) != 3 || len(logIDs["0.14.0"]) != 1 {
		t.Fatalf("emails sent: %v, want three by 0.13.1 and one by 0.14.0", logIDs)
	}
	home := t.TempDir()
	cmd := exec.Command(binPath, "scan", "--base-url", base, "--json", "--no-cache")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "COMPOSIO_API_KEY=" + apiKey}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scan: %v\n%s", err, out)
	}
	var res struct {
		Groups []struct {
			ID           string   `json:"id"`
			Pattern      string   `json:"pattern"`
			ExecutionIDs []string `json:"execution_ids"`
			Reason       string   `json:"reason"`
		} `json:"duplicate_groups"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("scan --json: %v\n%.2000s", err, out)
	}
	found := false
	for _, g := range res.Groups {
		has := func(id string) bool { return slices.Contains(g.ExecutionIDs, id) }
		if has(logIDs["0.14.0"][0]) && slices.ContainsFunc(logIDs["0.13.1"], has) {
			t.Errorf("group %s (%s) joins 0.14.0's other email %s to 0.13.1's burst: %v", g.ID, g.Pattern, logIDs["0.14.0"][0], g.ExecutionIDs)
		}
		if slices.ContainsFunc(logIDs["0.13.1"], has) {
			found = true
			sorted, want := slices.Sorted(slices.Values(g.ExecutionIDs)), slices.Sorted(slices.Values(logIDs["0.13.1"]))
			if !slices.Equal(sorted, want) || g.Pattern != "sdk_auto_retry" {
				t.Errorf("0.13.1's burst %v is group %s %v, %s (%s); want the three, sdk_auto_retry", want, g.ID, g.ExecutionIDs, g.Pattern, g.Reason)
			}
		}
	}
	if !found {
		t.Errorf("0.13.1's burst %v is in no group", logIDs["0.13.1"])
	}
}
