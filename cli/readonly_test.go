package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A read-only session (--readonly, or [defaults] readonly in the config) refuses every writing
// command with the reason (exit 2) and writes nothing, not even a journal file; provider
// checks run tools, so they wait for --allow-reads (issue 17.5).
func TestReadOnlyRefusesEveryWrite(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ro.toml")
	if err := os.WriteFile(cfg, []byte("[defaults]\nreadonly = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(dir, "journal.db")
	for _, how := range []struct {
		name string
		vars map[string]string
		flag []string
	}{
		{"--readonly", map[string]string{"EXECTRIAGE_JOURNAL": jpath, "XDG_STATE_HOME": dir}, []string{"--readonly"}},
		{"the config's default", map[string]string{"EXECTRIAGE_JOURNAL": jpath, "XDG_STATE_HOME": dir, "EXECTRIAGE_CONFIG": cfg}, nil},
	} {
		t.Run(how.name, func(t *testing.T) {
			for _, args := range [][]string{
				{"retry", "log_G01", "--demo", "--confirm-failed", "--reason", "r"},
				{"mark", "log_G01", "duplicate", "--file", "testdata/export.jsonl"},
				{"resolve", "58d9c377-02a2-4e36-bbf0-e7a96fec6de9", "--demo"},
				{"verify", "log_G01", "--file", "testdata/export.jsonl"},
			} {
				args = append(args, how.flag...)
				code, out, errOut := run(t, how.vars, args...)
				if code != ExitUsage || !strings.Contains(errOut, "read-only") || out != "" {
					t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
				}
			}
			if _, err := os.Stat(jpath); err == nil {
				t.Fatal("a read-only session created the journal")
			}
			if _, err := os.Stat(filepath.Join(dir, "exectriage", "demo-journal.db")); err == nil {
				t.Fatal("a read-only session created the demo journal")
			}
			// reading is fine, and --allow-reads lets a provider check run
			if code, _, errOut := run(t, how.vars, "scan", "--file", "testdata/export.jsonl"); code != ExitOK {
				t.Errorf("scan: exit %d %s", code, errOut)
			}
			if code, _, errOut := run(t, how.vars, append([]string{"verify", "log_G01", "--file", "testdata/export.jsonl", "--allow-reads"}, how.flag...)...); code == ExitUsage {
				t.Errorf("verify --allow-reads: exit %d %s", code, errOut)
			}
		})
	}
}
