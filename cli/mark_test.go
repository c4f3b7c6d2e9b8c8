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
