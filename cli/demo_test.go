package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/app"
)

// runAt is run with the session's clock at now.
func runAt(t *testing.T, now time.Time, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	env := newTestEnv(vars)
	env.Now = func() time.Time { return now }
	code := Run(context.Background(), env.Env, args)
	return code, env.out.String(), env.err.String()
}

type demoList struct {
	Executions []struct {
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Tool      string `json:"tool_slug"`
		Flagged   bool   `json:"flagged"`
		Outcome   string `json:"outcome"`
		Kind      string `json:"kind"`
	} `json:"executions"`
}

func listDemo(t *testing.T, now time.Time, vars map[string]string) (demoList, map[string]string) {
	t.Helper()
	code, out, errOut := runAt(t, now, vars, "list", "--demo", "--json")
	if code != ExitOK {
		t.Fatalf("list --demo: %d %s", code, errOut)
	}
	var l demoList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, e := range l.Executions {
		byID[e.ID] = e.Tool + " " + e.Timestamp
	}
	return l, byID
}

// TestDemoIsTheSameWorldInEveryCommand: the demo's ids name the same executions
// in every command and minute, so a retry done once is refused when asked again later under
// the same id; after DemoMaxAge a new world starts with an empty demo journal.
func TestDemoIsTheSameWorldInEveryCommand(t *testing.T) {
	state := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": state}
	t0 := time.Date(2026, 3, 2, 12, 0, 30, 0, time.UTC)

	l1, first := listDemo(t, t0, vars)
	_, later := listDemo(t, t0.Add(7*time.Minute+13*time.Second), vars)
	// (the oldest few leave the 7-day window as the clock moves on)
	if len(first) < 2000 || len(later) < len(first)-20 {
		t.Fatalf("%d executions, then %d", len(first), len(later))
	}
	for id, what := range later {
		if first[id] != what {
			t.Fatalf("%s was %q, seven minutes later %q", id, first[id], what)
		}
	}

	// retry one flagged write; asked again minutes later, the guard refuses it
	retried := ""
	for _, e := range l1.Executions {
		if !e.Flagged || e.Kind != "write" {
			continue
		}
		code, _, _ := runAt(t, t0.Add(2*time.Minute), vars, "retry", e.ID, "--demo", "--confirm-failed", "--reason", "the customer saw no email")
		if code == ExitOK {
			retried = e.ID
			break
		}
	}
	if retried == "" {
		t.Fatal("no flagged write of the demo could be retried")
	}
	code, _, errOut := runAt(t, t0.Add(11*time.Minute), vars, "retry", retried, "--demo", "--confirm-failed", "--reason", "again")
	if code != ExitRefused || !strings.Contains(errOut, "already succeeded") {
		t.Fatalf("second retry of %s nine minutes later: exit %d, %s", retried, code, errOut)
	}

	// every record says which source it was made against
	if code, out, errOut := runAt(t, t0.Add(12*time.Minute), vars, "mark", retried, "confirmed_failed", "--demo"); code != ExitOK {
		t.Fatalf("mark: %d %s %s", code, out, errOut)
	}
	code, out, errOut := runAt(t, t0.Add(12*time.Minute), vars, "journal", "--demo")
	if code != ExitOK || strings.Count(out, "; on DEMO") != 2 {
		t.Errorf("journal --demo: the confirmation and the verdict do not both name the demo (%d):\n%s%s", code, out, errOut)
	}

	// a day on: a new world, and the old world's claims are gone with its journal
	next := t0.Add(app.DemoMaxAge + time.Hour)
	code, out, errOut = runAt(t, next, vars, "journal", "--demo", "--json")
	if code != ExitOK {
		t.Fatalf("journal --demo: %d %s", code, errOut)
	}
	if strings.Contains(out, retried) {
		t.Errorf("the new demo world's journal still holds the old world's retry of %s", retried)
	}
	b, err := os.ReadFile(filepath.Join(state, "exectriage", app.DemoAnchorName))
	if err != nil || !strings.HasPrefix(string(b), next.Truncate(time.Minute).Format(time.RFC3339)) {
		t.Errorf("demo anchor %q (%v), want %s", b, err, next.Truncate(time.Minute).Format(time.RFC3339))
	}
	if _, err := os.Stat(filepath.Join(state, "exectriage", "journal.db")); err == nil {
		t.Error("the demo created the real journal")
	}
}

// A read-only demo session writes nothing: no anchor file, and a stale world's journal is not
// reset (the read-only promise: no journal write).
func TestReadOnlyDemoWritesNothing(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "exectriage")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	anchor := filepath.Join(dir, app.DemoAnchorName)
	journal := filepath.Join(dir, app.DemoJournalName)
	for _, f := range []struct{ path, text string }{{anchor, old.Format(time.RFC3339) + "\n"}, {journal, "a journal"}} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"XDG_STATE_HOME": state}
	code, _, errOut := runAt(t, old.Add(3*app.DemoMaxAge), vars, "verify", "log_x", "--demo", "--readonly")
	if code != ExitUsage || !strings.Contains(errOut, "read-only") {
		t.Fatalf("verify --readonly: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(anchor); !strings.HasPrefix(string(b), old.Format(time.RFC3339)) {
		t.Errorf("the anchor was rewritten: %q", b)
	}
	if b, err := os.ReadFile(journal); err != nil || string(b) != "a journal" {
		t.Errorf("the demo journal was reset: %q %v", b, err)
	}
}
