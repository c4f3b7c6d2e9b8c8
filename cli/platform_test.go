package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/sandbox"
)

// TestAProjectWithoutStoredDataAndWithEvents: against a project whose logs keep no arguments
// or responses ("Don't store data") and carry trigger deliveries and account events beside
// the executions, doctor --api says so, a retry and a provider check say why they cannot be
// made, and the other records are listed for what they are, never flagged or grouped (issue
// 28). The sandbox's clock runs an hour behind the CLI's, so the live account event is in the window.
func TestAProjectWithoutStoredDataAndWithEvents(t *testing.T) {
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 5, Size: 400, Now: fixedNow.Add(-time.Hour), NoStoreData: true, Events: true})
	vars := map[string]string{"COMPOSIO_API_KEY": "k", "XDG_STATE_HOME": t.TempDir()}
	// a new user's first call makes an account: the logs record the event
	req, _ := http.NewRequest("POST", base+"/api/v3.1/tools/execute/GMAIL_FETCH_EMAILS", strings.NewReader(`{"user_id":"newcomer","arguments":{}}`))
	req.Header.Set("x-api-key", "k")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
		t.Fatalf("a newcomer's call: %v %v", res, err)
	}
	code, out, errOut := run(t, vars, "doctor", "--api", "--base-url", base, "--last", "100")
	if code != ExitOK || !strings.Contains(out, `"Don't store data" is on`) {
		t.Fatalf("doctor --api: %d %s %s", code, out, errOut)
	}
	code, out, errOut = run(t, vars, "scan", "--base-url", base, "--since", "720h", "--json")
	if code != ExitOK {
		t.Fatalf("scan: %d %s", code, errOut)
	}
	var sc struct {
		Executions []execJSON  `json:"executions"`
		Groups     []groupJSON `json:"duplicate_groups"`
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil {
		t.Fatal(err)
	}
	triggers, accounts, flaggedWrite := 0, 0, ""
	for _, e := range sc.Executions {
		switch {
		case strings.Contains(e.Reason, "trigger delivery"):
			triggers++
		case strings.Contains(e.Reason, "account event"):
			accounts++
		case e.Flagged && e.Outcome == "ambiguous" && e.Status != "success" && flaggedWrite == "":
			flaggedWrite = e.ID
			continue
		default:
			continue
		}
		if e.Flagged || e.Kind != "read" || e.DuplicateGroup != nil {
			t.Errorf("an event record triaged as %+v", e)
		}
	}
	if triggers == 0 || accounts == 0 || flaggedWrite == "" {
		t.Fatalf("%d trigger deliveries, %d account events, flagged write %q", triggers, accounts, flaggedWrite)
	}
	code, _, errOut = run(t, vars, "retry", flaggedWrite, "--base-url", base, "--confirm-failed", "--reason", "r")
	if code != ExitRefused || !strings.Contains(errOut, "Don't store data") {
		t.Errorf("retry without stored arguments: %d %s", code, errOut)
	}
	code, out, _ = run(t, vars, "verify", flaggedWrite, "--base-url", base)
	if code != ExitOK || !strings.Contains(out, "Don't store data") {
		t.Errorf("verify without stored arguments: %d %s", code, out)
	}
}
