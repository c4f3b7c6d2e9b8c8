package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every hint names the command as it would run in this session: in the demo a
// refused retry's next step says `exectriage --demo journal ID` (without --demo it reads the
// real journal and finds nothing), in --json as in text; `journal` takes an attempt's id as
// well as an execution's; an id the journal has nothing for is exit 2 with a line that names
// the command to check it in the same session.
func TestHintsNameTheSession(t *testing.T) {
	state := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": state}
	t0 := time.Date(2026, 3, 2, 12, 0, 30, 0, time.UTC)
	l, _ := listDemo(t, t0, vars)
	retried := ""
	for _, e := range l.Executions {
		if !e.Flagged || e.Kind != "write" {
			continue
		}
		if code, _, _ := runAt(t, t0.Add(time.Minute), vars, "--demo", "retry", e.ID, "--confirm-failed", "--reason", "no email"); code == ExitOK {
			retried = e.ID
			break
		}
	}
	if retried == "" {
		t.Fatal("no flagged write of the demo could be retried")
	}

	code, _, errOut := runAt(t, t0.Add(2*time.Minute), vars, "--demo", "retry", retried, "--confirm-failed", "--reason", "again")
	if code != ExitRefused || !strings.Contains(errOut, "`exectriage --demo journal "+retried+"`") {
		t.Fatalf("the refusal's next step does not run in the demo (exit %d):\n%s", code, errOut)
	}
	code, out, _ := runAt(t, t0.Add(2*time.Minute), vars, "retry", retried, "--demo", "--confirm-failed", "--reason", "again", "--json")
	var res struct {
		Decision struct {
			Next string `json:"next"`
		} `json:"decision"`
		Attempt struct {
			ID string `json:"id"`
		} `json:"attempt"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitRefused || !strings.Contains(res.Decision.Next, "exectriage --demo journal") {
		t.Fatalf("--json next %q (exit %d, %v):\n%s", res.Decision.Next, code, err, out)
	}

	// show and a bundle name their commands in the demo as well
	flagged := ""
	for _, e := range l.Executions {
		if e.Flagged && e.Kind == "write" && e.ID != retried {
			flagged = e.ID
			break
		}
	}
	if code, out, errOut := runAt(t, t0.Add(2*time.Minute), vars, "--demo", "show", flagged); code != ExitOK || !strings.Contains(out, "exectriage --demo verify "+flagged) {
		t.Errorf("show's hint (exit %d):\n%s%s", code, out, errOut)
	}
	bundle := filepath.Join(t.TempDir(), "b.md")
	if code, _, errOut := runAt(t, t0.Add(2*time.Minute), vars, "--demo", "bundle", flagged, "--out", bundle, "--no-verify"); code != ExitOK {
		t.Fatalf("bundle: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(bundle); !strings.Contains(string(b), "`exectriage --demo verify "+flagged+"`") {
		t.Errorf("the bundle's next step does not run in the demo:\n%s", b)
	}

	// journal: by attempt id; an unknown id is exit 2 in one line
	code, out, errOut = runAt(t, t0.Add(3*time.Minute), vars, "journal", "--demo", "--json")
	var j struct {
		Attempts []struct {
			ID string `json:"id"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitOK || len(j.Attempts) != 1 {
		t.Fatalf("journal --demo: %d %v %s", code, err, errOut)
	}
	if code, out, errOut := runAt(t, t0.Add(3*time.Minute), vars, "journal", j.Attempts[0].ID, "--demo"); code != ExitOK || !strings.Contains(out, "confirm  "+retried) {
		t.Errorf("journal ATTEMPT_ID: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runAt(t, t0.Add(3*time.Minute), vars, "journal", "log_nosuch", "--demo")
	if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "has nothing for log_nosuch") ||
		!strings.Contains(errOut, "`exectriage --demo show log_nosuch`") {
		t.Errorf("journal of an unknown id: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// the real journal (no --demo) knows nothing of the demo's retry: exit 2, not "(empty)"
	if code, _, errOut := runAt(t, t0.Add(3*time.Minute), vars, "journal", retried); code != ExitUsage || strings.Contains(errOut, "--demo show") {
		t.Errorf("journal ID outside the demo: exit %d, %s", code, errOut)
	}
}
