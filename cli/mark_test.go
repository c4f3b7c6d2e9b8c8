package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// mark refuses an execution the source does not have (exit 2) and journals nothing; a real
// one is marked.
func TestMarkRefusesUnknownExecutions(t *testing.T) {
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	code, out, errOut := run(t, vars, "mark", "log_nope", "duplicate", "--file", "testdata/export.jsonl")
	if code != ExitUsage || !strings.Contains(errOut, "nothing was marked: no execution log_nope") || out != "" {
		t.Fatalf("mark log_nope: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ = run(t, vars, "journal", "--json"); code != ExitOK || strings.Contains(out, "log_nope") {
		t.Fatalf("the refused verdict reached the journal (exit %d): %s", code, out)
	}
	if code, out, errOut = run(t, vars, "mark", "log_G01", "duplicate", "--file", "testdata/export.jsonl"); code != ExitOK || !strings.Contains(out, "marked log_G01 duplicate") {
		t.Fatalf("mark log_G01: exit %d: %s %s", code, out, errOut)
	}
	if code, out, _ = run(t, vars, "journal", "--json"); code != ExitOK || !strings.Contains(out, "log_G01") {
		t.Fatalf("the verdict is not in the journal (exit %d): %s", code, out)
	}
}

// mark refuses a verdict that does not fit the execution (exit 2, nothing journaled) and says
// what the verdicts it records change for the guard; a stray ignored does not lift a
// duplicate (issue 16.7).
func TestMarkOnlyVerdictsThatFitAndSaysWhatTheyChange(t *testing.T) {
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	file := []string{"--file", "testdata/export.jsonl"}
	code, out, errOut := run(t, vars, append([]string{"mark", "log_G08", "confirmed_failed"}, file...)...)
	if code != ExitUsage || !strings.Contains(errOut, "confirmed_failed does not fit log_G08 (a read") || !strings.Contains(errOut, "it can be marked ignored") {
		t.Fatalf("confirmed_failed on a read: exit %d, %q %q", code, out, errOut)
	}
	if _, out, _ = run(t, vars, "journal", "--json"); strings.Contains(out, "log_G08") {
		t.Fatalf("the refused verdict reached the journal: %s", out)
	}
	steps := []struct{ verdict, says string }{
		{"duplicate", "retries of it are now refused"},
		{"ignored", "changes nothing the guard allows: it still goes by duplicate"},
		{"confirmed_failed", "lifts the earlier duplicate"},
	}
	for _, s := range steps {
		code, out, errOut = run(t, vars, append([]string{"mark", "log_G01", s.verdict}, file...)...)
		if code != ExitOK || !strings.Contains(out, s.says) {
			t.Fatalf("mark log_G01 %s: exit %d: %q %q, want %q", s.verdict, code, out, errOut, s.says)
		}
	}
}
