package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/doctor"
	"github.com/exectriage/exectriage/internal/hostile"
)

// TestNewCmdDoctor: doctor's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdDoctor(t *testing.T) {
	newCmdTable(t, NewCmdDoctor, []argvCase[DoctorOptions]{
		{argv: "", want: func(o *DoctorOptions) string { return differs("Dir", o.Dir, ".", "API", o.API, false) }},
		{argv: "proj --json", want: func(o *DoctorOptions) string { return differs("Dir", o.Dir, "proj", "json", o.Source.json, true) }},
		{argv: "--api --last 50 --demo", want: func(o *DoctorOptions) string {
			return differs("API", o.API, true, "Last", o.Last, 50, "demo", o.Source.demo, true)
		}},
		{argv: "--api --last 0", wantErr: "--last must be between 1 and 10000"},
		{argv: "a b", wantErr: "a"},
	})
}

// doctor --api reports what the logs carry, as counts (the docs' metadata.tool/toolkit keys are
// read as the tool and toolkit), and names what triage cannot do without what is missing; no
// value from the logs is printed.
func TestDoctorAPIShapeReport(t *testing.T) {
	recs := []map[string]any{
		{"id": "log_a", "timestamp": "2026-03-01T10:00:00Z", "status": "failed", "metadata": map[string]any{"tool": "GMAIL_SEND_EMAIL", "toolkit": "gmail", "user_id": "u_value_never_shown"}},
		{"id": "log_b", "timestamp": "2026-03-01T10:01:00Z", "status": "success", "metadata": map[string]any{"tool": "SLACK_SEND_MESSAGE", "toolkit": "slack"}},
	}
	srv := hostile.Serve(t, hostile.IgnoredFilters(recs...))
	code, out, errOut := run(t, map[string]string{"COMPOSIO_API_KEY": "k-shape-test-key"}, "doctor", "--api", "--base-url", srv.URL, "--json", "--since", "1000d")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sh app.Shape
	if err := json.Unmarshal([]byte(out), &sh); err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, f := range sh.Fields {
		found[f.Field] = f.Found
	}
	if sh.Records != 2 || found["tool"] != 2 || found["toolkit"] != 2 || found["arguments"] != 0 || found["SDK version"] != 0 {
		t.Errorf("shape %+v", sh)
	}
	if !strings.Contains(strings.Join(sh.Unavailable, "\n"), "arguments: duplicate groups") {
		t.Errorf("unavailable: %v", sh.Unavailable)
	}
	if strings.Contains(out, "u_value_never_shown") {
		t.Error("the report shows a value from the logs")
	}
	if code, _, _ := run(t, nil, "doctor", "--api", "--file", "testdata/export.jsonl"); code != ExitUsage {
		t.Errorf("--api with --file: exit %d", code)
	}
}

// doctor says on stderr, and only in a build without cgo, that the code was read by its own
// tokenizer and what that misses; its report (stdout) is the same either way.
func TestDoctorSaysHowItReadTheCode(t *testing.T) {
	_, out, errOut := run(t, nil, "doctor", "../doctor/testdata/callpaths/comment")
	said := strings.Contains(errOut, "own tokenizer") && strings.Contains(errOut, doctor.TokenizerMisses)
	if said != (doctor.CodeReader == "tokenizer") {
		t.Errorf("reader %s; stderr %q", doctor.CodeReader, errOut)
	}
	if strings.Contains(out, "tokenizer") {
		t.Errorf("the report names the reader: %q", out)
	}
}
