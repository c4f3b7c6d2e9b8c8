package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schemaFile = "../docs/schema/exectriage.schema.json"

// compileAnswer compiles the schema of one command's answer ($defs/name).
func compileAnswer(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	abs, err := filepath.Abs(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile(abs + "#/$defs/" + name)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return sch
}

// validAnswer checks one --json answer against its schema.
func validAnswer(t *testing.T, name, out string) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%.400s", name, err, out)
	}
	if err := compileAnswer(t, name).Validate(doc); err != nil {
		t.Errorf("%s's answer does not match docs/schema/exectriage.schema.json#/$defs/%s:\n%v\n%.600s", name, name, err, out)
	}
}

// TestJSONAnswersMatchTheSchema: every command's --json answer validates against the schema
// users read (docs/schema, explained in docs/json.md), which closes every object: a key added
// to an answer without being written down fails here.
func TestJSONAnswersMatchTheSchema(t *testing.T) {
	w := newPlacementWorld(t)
	state := filepath.Join(t.TempDir(), "state")
	copyDir(t, w.template, state)
	vars := w.varsFor(state)
	file := []string{"--file", "testdata/export.jsonl"}
	demoWrite := flaggedDemoWrite(t, vars)
	must := func(code int, args ...string) string {
		t.Helper()
		got, out, errOut := run(t, vars, args...)
		if got != code {
			t.Fatalf("%v: exit %d, want %d: %s", args, got, code, errOut)
		}
		return out
	}
	validAnswer(t, "scan", must(ExitOK, append([]string{"scan", "--json"}, file...)...))
	demoScan := must(ExitOK, "scan", "--demo", "--json")
	validAnswer(t, "scan", demoScan)
	if !strings.Contains(demoScan, `"other_causes":[{"cause":"`) {
		t.Error("scan --demo --json: no group lists other causes (the demo has groups named from timing alone)")
	}
	validAnswer(t, "list", must(ExitOK, append([]string{"list", "--json", "--limit", "3"}, file...)...))
	validAnswer(t, "show", must(ExitOK, append([]string{"show", "log_G01", "--json"}, file...)...))
	validAnswer(t, "show", must(ExitOK, append([]string{"show", "log_S18", "--json"}, file...)...))
	validAnswer(t, "show_session", must(ExitOK, "show", "--session", demoSession(t, vars), "--demo", "--json"))
	validAnswer(t, "verify", must(ExitOK, append([]string{"verify", "log_G01", "--json"}, file...)...))
	validAnswer(t, "verify", must(ExitOK, "verify", demoWrite, "--demo", "--json"))
	validAnswer(t, "retry", must(ExitRefused, "retry", demoWrite, "--demo", "--json"))
	sent := must(ExitOK, "retry", demoWrite, "--demo", "--json", "--confirm-failed", "--reason", "schema")
	validAnswer(t, "retry", sent)
	attempt := regexp.MustCompile(`"id": "([0-9a-f-]{36})"`).FindStringSubmatch(sent)
	if attempt == nil {
		t.Fatalf("no attempt id in %s", sent)
	}
	validAnswer(t, "resolve", must(ExitOK, "resolve", attempt[1], "--demo", "--json"))
	validAnswer(t, "mark", must(ExitOK, append([]string{"mark", "log_G02", "ignored", "--json"}, file...)...))
	validAnswer(t, "journal", must(ExitOK, "journal", "--json"))
	validAnswer(t, "journal", must(ExitOK, "journal", "--demo", "--json"))
	validAnswer(t, "info", must(ExitOK, "info", "--json"))
	events := strings.Split(strings.TrimSpace(must(ExitOK, "watch", "--demo", "--once", "--json")), "\n")
	if len(events) < 10 {
		t.Fatalf("watch --demo --once --json told %d events", len(events))
	}
	for _, line := range events {
		validAnswer(t, "watch_event", line)
	}
	validAnswer(t, "doctor", must(ExitFinding, "doctor", "../doctor/testdata/projects", "--json"))
	validAnswer(t, "doctor", must(ExitFinding, "doctor", "../doctor/testdata/callpaths", "--json"))
	validAnswer(t, "doctor", must(ExitFinding, "doctor", "../doctor/testdata/filekinds", "--json"))
	validAnswer(t, "doctor_api", must(ExitOK, "doctor", "--api", "--demo", "--last", "50", "--json"))

	// mark's answer names what it marked (it said "" for the verdict's id)
	var m struct {
		ExecutionID string `json:"execution_id"`
		Verdict     struct {
			ID          string `json:"id"`
			ExecutionID string `json:"execution_id"`
		} `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(must(ExitOK, append([]string{"mark", "log_G03", "ignored", "--json"}, file...)...)), &m); err != nil ||
		m.ExecutionID != "log_G03" || m.Verdict.ExecutionID != "log_G03" || m.Verdict.ID == "" {
		t.Errorf("mark --json: %+v %v", m, err)
	}
}

// TestTheSchemaRefusesWhatIsNotWrittenDown: the schema can fail: an answer with a key it does
// not name, or without schema_version, is refused.
func TestTheSchemaRefusesWhatIsNotWrittenDown(t *testing.T) {
	for _, bad := range []string{
		`{"schema_version": 1, "source": "x", "matched": 0, "executions": [], "extra": 1}`,
		`{"source": "x", "matched": 0, "executions": []}`,
		`{"schema_version": 2, "source": "x", "matched": 0, "executions": []}`,
	} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if compileAnswer(t, "list").Validate(doc) == nil {
			t.Errorf("the list schema accepts %s", bad)
		}
	}
}

// TestJSONDocsNameEveryAnswer: docs/json.md explains every answer the schema defines.
func TestJSONDocsNameEveryAnswer(t *testing.T) {
	doc, err := os.ReadFile("../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"scan", "list", "show", "show --session", "verify", "retry", "resolve", "mark", "journal", "info", "doctor", "doctor --api"} {
		if !strings.Contains(string(doc), "## `"+cmd+" --json`") && !strings.Contains(string(doc), "## `"+cmd+"`") {
			t.Errorf("docs/json.md has no section for %s", cmd)
		}
	}
	if !strings.Contains(string(doc), "schema_version") {
		t.Error("docs/json.md does not explain schema_version")
	}
}

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
