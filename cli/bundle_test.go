package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBundleFromFile(t *testing.T) {
	code, out, stderr := run(t, nil, "bundle", "--file", "testdata/export.jsonl", "log_G01", "log_G02")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{"# exectriage support bundle", "`log_G01`", "`log_G02`", "GMAIL_SEND_EMAIL", "Why a timeout is not a failure"} {
		if !strings.Contains(out, want) {
			t.Errorf("bundle lacks %q", want)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Error("bundle carries terminal control characters")
	}
}

func TestBundleOutFileAndErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.md")
	code, out, stderr := run(t, nil, "bundle", "--file", "testdata/export.jsonl", "--out", path, "log_G01")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	body, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(body), "`log_G01`") {
		t.Fatalf("bundle file: %v %q", err, body)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("bundle file mode %v, want 0600", fi.Mode().Perm())
	}
	if strings.Contains(out, "# exectriage support bundle") {
		t.Error("bundle went to stdout as well as the file")
	}
	tests := []struct {
		name string
		args []string
	}{
		{"no id", []string{"bundle", "--file", "testdata/export.jsonl"}},
		{"unknown id", []string{"bundle", "--file", "testdata/export.jsonl", "log_nope"}},
		{"missing file", []string{"bundle", "--file", "testdata/nope.jsonl", "log_G01"}},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, nil, tt.args...)
		if code != ExitUsage || stderr == "" {
			t.Errorf("%s: exit %d stderr %q, want %d and a message", tt.name, code, stderr, ExitUsage)
		}
	}
}

func TestDoctorExitStatus(t *testing.T) {
	tests := []struct {
		dir  string
		want int
	}{
		{"../doctor/testdata/projects/py-req-old", ExitFinding},
		{"../doctor/testdata/projects/npm-old", ExitFinding},
		{"../doctor/testdata/projects/py-req-new", ExitOK},
		{"../doctor/testdata/projects/npm-new", ExitOK},
		{"testdata/no-such-dir", ExitUsage},
	}
	for _, tt := range tests {
		code, out, stderr := run(t, nil, "doctor", tt.dir)
		if code != tt.want {
			t.Errorf("doctor %s: exit %d, want %d (stdout %q stderr %q)", tt.dir, code, tt.want, out, stderr)
		}
	}
}

func TestDoctorJSON(t *testing.T) {
	code, out, stderr := run(t, nil, "doctor", "--json", "../doctor/testdata/projects/py-req-old")
	if code != ExitFinding {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var rep struct {
		Findings []struct {
			Package       string `json:"package"`
			Version       string `json:"version"`
			RetriesWrites *bool  `json:"retries_writes"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json is not JSON: %v\n%s", err, out)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Package != "composio" || rep.Findings[0].RetriesWrites == nil || !*rep.Findings[0].RetriesWrites {
		t.Fatalf("findings %+v", rep.Findings)
	}
}

// TestNewCmdBundle: bundle's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdBundle(t *testing.T) {
	newCmdTable(t, NewCmdBundle, []argvCase[BundleOptions]{
		{argv: "log_1 log_2 --out b.md --no-verify --demo", want: func(o *BundleOptions) string {
			return differs("IDs", o.IDs, []string{"log_1", "log_2"}, "Out", o.Out, "b.md", "NoVerify", o.NoVerify, true, "demo", o.Source.demo, true)
		}},
		{argv: "--journal j.db log_1", want: func(o *BundleOptions) string {
			return differs("IDs", o.IDs, []string{"log_1"}, "journal", o.Source.journal, "j.db", "NoVerify", o.NoVerify, false)
		}},
		{argv: "", wantErr: "ID"},
		{argv: "log_1 --json", wantErr: "unknown flag: --json"},
	})
}

// A bundle of a session's execution carries the session's timeline: every execution of it,
// oldest first, this one marked.
func TestABundleCarriesTheSessionTimeline(t *testing.T) {
	base, vars, bySession := sessionSandbox(t)
	for sid, execs := range bySession {
		if len(execs) < 2 {
			continue
		}
		out := filepath.Join(t.TempDir(), "b.md")
		if code, _, errOut := run(t, vars, "bundle", execs[1].ID, "--out", out, "--no-verify", "--base-url", base); code != ExitOK {
			t.Fatalf("bundle: %d %s", code, errOut)
		}
		b, _ := os.ReadFile(out)
		text := string(b)
		head := fmt.Sprintf("Session `%s`, %d executions, oldest first:", sid, len(execs))
		i := strings.Index(text, head)
		if i < 0 {
			t.Fatalf("the bundle has no timeline of session %s:\n%s", sid, text)
		}
		last := i
		for _, e := range execs {
			j := strings.Index(text[i:], "`"+e.ID+"`")
			if j < 0 || i+j < last {
				t.Fatalf("the timeline lacks %s or has it out of order:\n%s", e.ID, text[i:])
			}
			last = i + j
		}
		if !strings.Contains(text[i:], "`"+execs[1].ID+"` ") || !strings.Contains(text[i:], "(this execution)") {
			t.Errorf("the bundle's own execution is not marked:\n%s", text[i:])
		}
		return
	}
	t.Fatal("the sandbox has no session of two")
}
