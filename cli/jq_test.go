package cli

import (
	"strings"
	"testing"
)

// TestJQFiltersTheAnswer: --jq runs a jq expression over the answer (gojq), prints strings
// raw and values as compact JSON, escapes what a terminal must not see, refuses a bad
// expression with exit 2 before anything runs, and keeps the command's exit status.
func TestJQFiltersTheAnswer(t *testing.T) {
	file := []string{"--file", "testdata/export.jsonl"}
	code, out, errOut := run(t, nil, append([]string{"list", "--jq", ".executions[].id", "--limit", "2"}, file...)...)
	if code != ExitOK || out != "log_S18\nlog_P17\n" {
		t.Errorf("list --jq ids: exit %d %q %q", code, out, errOut)
	}
	code, out, _ = run(t, nil, append([]string{"scan", "--jq", ".summary | {flagged, executions}"}, file...)...)
	if code != ExitOK || out != "{\"executions\":18,\"flagged\":9}\n" {
		t.Errorf("scan --jq object: exit %d %q", code, out)
	}
	code, out, errOut = run(t, nil, append([]string{"list", "--jq", ".executions[", "--limit", "1"}, file...)...)
	if code != ExitUsage || !strings.Contains(errOut, "--jq:") || out != "" {
		t.Errorf("a bad --jq: exit %d %q %q", code, out, errOut)
	}
	code, _, errOut = run(t, nil, append([]string{"list", "--jq", `error("boom")`}, file...)...)
	if code != ExitFinding || !strings.Contains(errOut, "boom") {
		t.Errorf("a failing --jq: exit %d %q", code, errOut)
	}
	code, out, _ = run(t, nil, append([]string{"list", "--jq", `"a\u001b[31mb"`}, file...)...)
	if code != ExitOK || strings.ContainsRune(out, 0x1b) {
		t.Errorf("--jq printed a raw escape: %q", out)
	}
	// the command's own status stands: doctor finds an SDK that retries writes
	if code, _, _ := run(t, nil, "doctor", "../doctor/testdata/projects/npm-old", "--jq", ".findings | length"); code != ExitFinding {
		t.Errorf("doctor --jq: exit %d, want %d", code, ExitFinding)
	}
}
