package ui

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/ui/common"
)

// Fake secrets with real shapes; none of them is real.
const (
	configuredKey = "ak_ConfiguredKey0123456789abc" // COMPOSIO_API_KEY of the test
	bearerToken   = "s3cr3tBearerTok3n0123456789xyz"
	githubToken   = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	slackToken    = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
	otherAPIKey   = "k3y-of-another-service-77aa99bb"
)

// writeJSONL writes records as a JSON Lines export and returns its path.
func writeJSONL(t *testing.T, name string, recs ...map[string]any) string {
	t.Helper()
	var b []byte
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, line...), '\n')
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// logRecord is a Logs API record in the wire shape a file export holds.
func logRecord(id, at, tool, user string, args, resp any, errMsg string) map[string]any {
	d := map[string]any{"request": map[string]any{"arguments": args}, "response": resp}
	status := "success"
	if errMsg != "" {
		d["error"] = map[string]any{"message": errMsg, "kind": "timeout"}
		status = "failed"
	}
	return map[string]any{
		"id": id, "timestamp": at, "status": status,
		"metadata": map[string]any{"tool_slug": tool, "toolkit_slug": "slack", "user_id": user, "connected_account_id": "ca_1"},
		"metrics":  map[string]any{"duration_ms": 1200},
		"data":     d,
	}
}

// TestSecretsHiddenUntilRevealedForTheSelectionOnly opens an export whose record carries the
// configured API key, an Authorization bearer header, another service's api_key, a GitHub
// token and a Slack token (in arguments, response, error message and user id, and in the
// provider's evidence): the screen shows none by default; x shows them for that execution,
// except the configured key, of which not even the start shows (the list's user column
// would cut it to a prefix); moving the selection away and back hides them again.
func TestSecretsHiddenUntilRevealedForTheSelectionOnly(t *testing.T) {
	args := map[string]any{
		"channel": "#deploys",
		"api_key": configuredKey,
		"service": map[string]any{"api_key": otherAPIKey},
		"headers": map[string]any{"Authorization": "Bearer " + bearerToken},
		"text":    "deploy with " + githubToken + " please",
	}
	resp := map[string]any{"successful": false, "echo": "posted as " + slackToken, "key": "used " + configuredKey}
	path := writeJSONL(t, "secrets.jsonl",
		logRecord("log_secret", "2026-03-02T11:00:00.000Z", "SLACK_SEND_MESSAGE", "u_"+configuredKey, args, resp,
			"timeout talking to slack with "+slackToken+" (key "+configuredKey+")"),
		logRecord("log_plain", "2026-03-02T10:00:00.000Z", "SLACK_SEND_MESSAGE", "u_2",
			map[string]any{"channel": "#general", "text": "hello"}, map[string]any{"successful": true}, ""),
	)
	src, err := source.Open(context.Background(), source.Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.parts.Source = src
	e.parts.APIKey = configuredKey
	h := newHarness(t, e, 200, 60)
	i := h.m.data.DS.Index("log_secret")
	if i < 0 {
		t.Fatal("log_secret not loaded")
	}
	h.selectRow(i)
	h.keys("enter")
	if !h.m.data.Exec(i).Detailed {
		t.Fatal("the full record did not load")
	}
	// The provider's evidence quotes secrets too.
	h.m.data.Provider["log_secret"] = model.ProviderState{State: model.ProviderFound, Verifier: "test", ReadTool: "SLACK_FETCH_CONVERSATION_HISTORY",
		ReadArgs: json.RawMessage(`{"channel":"#deploys","token":"` + githubToken + `"}`),
		Matches:  []model.EvidenceItem{{ID: "msg_1", Summary: "message by bot " + slackToken}},
		Reason:   "found with Bearer " + bearerToken, CheckedAt: sandboxNow}
	h.m.refreshPanes()

	revealable := map[string]string{"bearer token": bearerToken, "GitHub token": githubToken, "Slack token": slackToken, "another api_key": otherAPIKey}
	// seen is what a person can see: the rendered View, the detail and provider panes' whole
	// content (beyond the scrolled part), and the status line.
	seen := func() string {
		return strings.Join([]string{ansi.Strip(h.m.View().Content), ansi.Strip(h.m.detail.Content()), ansi.Strip(h.m.provider.Content())}, "\n")
	}
	screen := func() string { return ansi.Strip(h.m.View().Content) }
	hidden := func(step string) {
		t.Helper()
		s := seen()
		for what, v := range revealable {
			if strings.Contains(s, v) {
				t.Errorf("%s: the %s is on screen", step, what)
			}
		}
		if strings.Contains(s, configuredKey[:10]) {
			t.Errorf("%s: the configured API key (or its start) is on screen", step)
		}
		if !strings.Contains(screen(), "[REDACTED") {
			t.Errorf("%s: no redaction marker shows that something was hidden:\n%s", step, screen())
		}
		if strings.Contains(screen(), "secrets shown") {
			t.Errorf("%s: the screen says secrets are shown", step)
		}
	}
	hidden("by default")

	h.keys("x")
	s := screen()
	for what, v := range revealable {
		if !strings.Contains(s, v) {
			t.Errorf("after x the %s is not on screen:\n%s", what, s)
		}
	}
	if !strings.Contains(ansi.Strip(h.m.provider.Content()), "message by bot "+slackToken) {
		t.Error("after x the provider's evidence is still redacted")
	}
	if strings.Contains(seen(), configuredKey[:10]) {
		t.Error("after x the configured API key (or its start) is on screen")
	}
	if !strings.Contains(s, redact.KnownMarker) {
		t.Error("after x the configured API key's place is not marked")
	}
	if !strings.Contains(s, "Detail · secrets shown: x hides") {
		t.Errorf("the detail pane's title does not say secrets are shown:\n%s", s)
	}
	if !strings.Contains(s, "[x secrets shown]") {
		t.Error("the status line does not say secrets are shown")
	}

	h.keys("x")
	hidden("after x again")

	h.keys("x") // reveal, then move away and back: hidden again
	if !strings.Contains(screen(), githubToken) {
		t.Fatal("x did not reveal")
	}
	h.keys("esc", "j")
	if it, ok := h.m.list.Selected(); !ok || h.m.data.DS.ID(int(it.Exec)) != "log_plain" {
		t.Fatalf("j did not move the selection to log_plain")
	}
	if strings.Contains(screen(), "secrets shown") {
		t.Error("the reveal survived moving the selection")
	}
	h.keys("k")
	h.m.refreshPanes()
	hidden("after moving away and back")

	// y copies the log id; the bundle (b, Y) is redacted, with the configured key removed.
	h.keys("x", "b")
	if h.m.bundleText == "" {
		l, txt := h.m.status.Text()
		t.Fatalf("no bundle written: %v %s", l, txt)
	}
	for what, v := range revealable {
		if what != "another api_key" && strings.Contains(h.m.bundleText, v) {
			t.Errorf("the bundle holds the %s even though the screen was revealed", what)
		}
	}
	if strings.Contains(h.m.bundleText, configuredKey) {
		t.Error("the bundle holds the configured API key")
	}
}

// TestHugeResponseIsCutWithAMarker puts a 9 MiB response (and a 9 MiB error message) in the
// detail pane through the root model: the pane shows the first 64 KiB with a marker saying
// how big the value was, and the screen still renders at its size.
func TestHugeResponseIsCutWithAMarker(t *testing.T) {
	path := writeJSONL(t, "small.jsonl",
		logRecord("log_big", "2026-03-02T11:00:00.000Z", "GMAIL_FETCH_EMAILS", "u_1", map[string]any{"q": "in:inbox"}, map[string]any{"successful": true}, ""))
	src, err := source.Open(context.Background(), source.Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.parts.Source = src
	h := newHarness(t, e, 120, 40)
	h.keys("enter")
	i := h.m.data.DS.Index("log_big")
	big := h.m.data.Exec(i)
	const size = 9 << 20
	resp, err := json.Marshal(map[string]any{"data": strings.Repeat("a", size)})
	if err != nil {
		t.Fatal(err)
	}
	big.Response = resp
	big.Arguments = json.RawMessage(`{"ids":[` + strings.Repeat(`"id_0123456789",`, 200_000) + `"last"]}`)
	big.Error = &model.ExecError{Message: strings.Repeat("line of a huge error message\n", size/29)}
	h.m.data.Details["log_big"] = *big
	start := time.Now()
	h.m.refreshPanes()
	h.keys("G") // the detail pane has focus: its bottom, where the response's marker is
	took := time.Since(start)

	content := ansi.Strip(h.m.detail.Content())
	if n := strings.Count(content, "… [truncated: "); n != 3 {
		t.Errorf("%d truncation markers, want 3 (arguments, error, response)", n)
	}
	if !strings.Contains(content, "… [truncated: 9 MiB, showing the first 64 KiB") {
		t.Errorf("the response's marker is missing:\n%s", content[max(len(content)-400, 0):])
	}
	if len(content) > 4*common.MaxShown {
		t.Errorf("the pane holds %d bytes for three values cut to %d", len(content), common.MaxShown)
	}
	s := h.screen()
	checkFits(t, s, 120, 40)
	if !strings.Contains(s, "[truncated: 9 MiB") {
		t.Errorf("the marker is not on screen at the bottom of the pane:\n%s", s)
	}
	t.Logf("9 MiB values rendered and scrolled in %v; the pane has %d lines", took, h.m.detail.Lines())
}

// The TUI's detail pane never shows the configured key in any form, hidden or revealed (the
// same forms the CLI's table test covers; the oracle is the policy's own Leaks).
func TestDetailPaneNeverShowsTheKeyInAnyForm(t *testing.T) {
	const key = "zz9ShapelessKey0123456789abcdef"
	esc, pct := "", ""
	for i := range len(key) {
		esc += fmt.Sprintf(`\u%04x`, key[i])
		pct += fmt.Sprintf("%%%02X", key[i])
	}
	forms := map[string]string{
		"raw": key, "json-escaped": esc, "percent-encoded": "https://cb.example/?k=" + pct,
		"base64": base64.StdEncoding.EncodeToString([]byte(key)), "basic credential": "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key)),
	}
	oracle := redact.NewPolicy(key)
	var b strings.Builder
	n := 0
	for _, form := range forms {
		n++
		fmt.Fprintf(&b, `{"id":"log_k%d","timestamp":"2026-03-02T11:%02d:00.000Z","status":"failed","metadata":{"tool_slug":"SLACK_SEND_MESSAGE","toolkit_slug":"slack","user_id":"u_%d"},`+
			`"data":{"error":{"kind":"timeout","message":"slack said %s"},"request":{"arguments":{"channel":"#c","text":"%s"}}}}`+"\n", n, n, n, form, form)
	}
	path := filepath.Join(t.TempDir(), "keys.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.useFile(path)
	e.parts.APIKey = key
	for k := 1; k <= n; k++ {
		id := fmt.Sprintf("log_k%d", k)
		h := newHarness(t, e, 200, 60)
		h.filterTo(id)
		h.keys("enter")
		for _, reveal := range []bool{false, true} {
			if reveal {
				h.keys("x")
			}
			seen := ansi.Strip(h.m.View().Content) + "\n" + ansi.Strip(h.m.detail.Content())
			if !strings.Contains(seen, "slack said") {
				t.Fatalf("%s: the detail pane does not show the record:\n%s", id, seen)
			}
			if oracle.Leaks(seen) {
				t.Errorf("%s (reveal %v): the configured key shows in some form:\n%s", id, reveal, ansi.Strip(h.m.detail.Content()))
			}
		}
	}
}
