package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// cutText is a word cut short with … (sanitize.Line's mark).
var cutText = regexp.MustCompile(`\S…`)

// TestTextReportsAreWholeOffATerminal: written to a file, a report cuts nothing with …: a
// reason or a fix cut in a saved report is advice lost (scan > out.txt cut 44 of 416
// lines).
func TestTextReportsAreWholeOffATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, args := range [][]string{
		{"scan", "--file", "testdata/export.jsonl"},
		{"list", "--file", "testdata/export.jsonl"},
		{"doctor", "../doctor/testdata/projects"},
	} {
		env := newTestEnv(map[string]string{"XDG_STATE_HOME": t.TempDir()})
		if err := f.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		env.Stdout = f
		Run(t.Context(), env.Env, args)
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || cutText.Match(b) { // "10:00:00Z … 10:50:00Z" is a span, not a cut

			t.Errorf("%v to a file cuts lines with …:\n%s", args, b)
		}
	}
}

// demoSession is the tool-router session of one of the demo's session re-sends.
func demoSession(t *testing.T, vars map[string]string) string {
	t.Helper()
	_, out, _ := run(t, vars, "list", "--demo", "--json", "--limit", "1", "--filter", "pattern:session_auto_retry")
	var l struct {
		Executions []struct {
			ID string `json:"id"`
		} `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Executions) == 0 {
		t.Fatalf("no session re-send in the demo: %v", err)
	}
	_, out, _ = run(t, vars, "show", l.Executions[0].ID, "--demo", "--json")
	var s struct {
		Execution struct {
			Context struct {
				SessionID string `json:"session_id"`
			} `json:"context"`
		} `json:"execution"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Execution.Context.SessionID == "" {
		t.Fatalf("the demo's session re-send %s carries no session id: %v", l.Executions[0].ID, err)
	}
	return s.Execution.Context.SessionID
}
