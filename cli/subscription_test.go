package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/sandbox"
)

// TestADuplicateSubscriptionIsToldWithoutWrites: two webhook endpoints of one URL (a
// create sent twice) receive every event once each; the handler writes nothing. scan names the
// event a duplicate subscription from its deliveries alone (text and JSON, valid against the
// schema) and show of either delivery says so; a project with one endpoint has none. The trigger
// logs name no endpoint and no attempt: the second delivery, after a first that succeeded, is no
// redelivery (Composio delivers again only after a failure).
func TestADuplicateSubscriptionIsToldWithoutWrites(t *testing.T) {
	const key = "k-subs"
	_, base := testkit.StartSandbox(t, sandbox.Config{APIKey: key, Seed: 4, Size: 50, Now: fixedNow.Add(-time.Minute), Events: true}) // its clock runs on: the deliveries fired come before the CLI's now)
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer handler.Close()
	post := func(path string, body, out any) { testkit.SandboxPost(t, base, key, path, body, out) }
	dir := t.TempDir()
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(dir, "j.db"), "COMPOSIO_API_KEY": key, "XDG_STATE_HOME": dir}
	scan := func() (subs []struct {
		EventID    string   `json:"event_id"`
		Deliveries []string `json:"deliveries"`
		Endpoints  []string `json:"endpoints"`
	}) {
		t.Helper()
		code, out, errOut := run(t, vars, "scan", "--json", "--base-url", base, "--no-cache")
		if code != ExitOK {
			t.Fatalf("scan: %d %s", code, errOut)
		}
		validAnswer(t, "scan", out)
		var doc struct {
			Subs []struct {
				EventID    string   `json:"event_id"`
				Deliveries []string `json:"deliveries"`
				Endpoints  []string `json:"endpoints"`
			} `json:"duplicate_subscriptions"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Subs
	}
	type fired struct {
		EventID    string `json:"event_id"`
		Deliveries []struct {
			LogID   string `json:"log_id"`
			Attempt int    `json:"attempt"`
			Status  int    `json:"status"`
			Error   string `json:"error"`
		} `json:"deliveries"`
	}
	post("/api/v3.1/webhook_endpoints", map[string]any{"url": handler.URL + "/hook"}, nil)
	var one fired
	post("/_sandbox/triggers/fire", map[string]any{"user_id": "user_1"}, &one)
	if subs := scan(); len(subs) != 0 {
		t.Fatalf("one endpoint, one delivery: %+v", subs)
	}
	post("/api/v3.1/webhook_endpoints", map[string]any{"url": handler.URL + "/hook"}, nil) // the create sent again
	var two fired
	post("/_sandbox/triggers/fire", map[string]any{"user_id": "user_1"}, &two)
	if len(two.Deliveries) != 2 {
		t.Fatalf("deliveries %+v, want one to each endpoint", two.Deliveries)
	}
	subs := scan()
	if len(subs) != 1 || subs[0].EventID != two.EventID || len(subs[0].Deliveries) != 2 || len(subs[0].Endpoints) == 1 {
		t.Fatalf("duplicate subscriptions %+v, want event %s's two deliveries", subs, two.EventID)
	}
	code, out, errOut := run(t, vars, "scan", "--base-url", base, "--no-cache")
	if code != ExitOK || !strings.Contains(out, "duplicate subscriptions: 1 events delivered to two webhook endpoints or more") || !strings.Contains(out, two.EventID) {
		t.Fatalf("scan's text: %d %s\n%s", code, errOut, out)
	}
	for _, d := range two.Deliveries {
		code, out, errOut := run(t, vars, "show", d.LogID, "--base-url", base, "--no-cache")
		if code != ExitOK || !strings.Contains(out, "duplicate subscription: event "+two.EventID) {
			t.Errorf("show %s: %d %s\n%s", d.LogID, code, errOut, out)
		}
	}
	if code, out, _ := run(t, vars, "show", one.Deliveries[0].LogID, "--base-url", base, "--no-cache"); code != ExitOK || strings.Contains(out, "duplicate subscription") {
		t.Errorf("the single delivery is said to be a duplicate subscription:\n%s", out)
	}
}
