package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
)

// A read-only session (--readonly, or [defaults] readonly in the config) refuses every writing
// command with the reason (exit 2) and writes nothing, not even a journal file; provider
// checks run tools, so they wait for --allow-reads.
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

// TestReadOnlyJournalCommandRecoversAndCreatesNothing: under [defaults] readonly, `journal`
// runs no crash recovery (an abandoned intent stays as it is: recovering is a write), creates
// no journal and no demo file, and `bundle` reads a schema-1 journal without migrating it.
func TestReadOnlyJournalCommandRecoversAndCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ro.toml")
	if err := os.WriteFile(cfg, []byte("[defaults]\nreadonly = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	vars := map[string]string{"XDG_STATE_HOME": state, "EXECTRIAGE_CONFIG": cfg}
	for _, args := range [][]string{{"journal"}, {"journal", "--demo"}, {"journal", "--json"}, {"list", "--demo", "--limit", "1"}} {
		if code, _, errOut := run(t, vars, args...); code != ExitOK {
			t.Errorf("%v: exit %d %s", args, code, errOut)
		}
	}
	if _, err := os.Stat(state); err == nil {
		t.Fatal("a read-only session made its state directory")
	}
	// an attempt left in intent by a process that is gone
	jpath := filepath.Join(dir, "j.db")
	host, _ := os.Hostname()
	j, err := journal.Open(context.Background(), jpath, journal.WithOwner(journal.Owner{Host: host, PID: 1 << 30}))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	a := model.RetryAttempt{ID: "0b6f3b0e-6d1c-4c1e-9a52-3c1f7c1d2e01", ExecutionID: "log_x", ToolSlug: "GMAIL_SEND_EMAIL", ArgumentHash: "h", Who: "w", CreatedAt: at}
	if ok, _, err := j.ClaimAttempt(context.Background(), journal.Claim{Attempt: a, Deadline: at.Add(time.Minute),
		Confirmation: journal.Confirmation{Who: "w", At: at, Reason: "r"}}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	j.Close()
	before, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	ro := map[string]string{"XDG_STATE_HOME": state, "EXECTRIAGE_JOURNAL": jpath, "EXECTRIAGE_CONFIG": cfg}
	if code, out, errOut := run(t, ro, "journal", "--journal", jpath); code != ExitOK || strings.Contains(errOut, "now indeterminate") || !strings.Contains(out, "INTENT") {
		t.Errorf("journal under readonly: exit %d %s %s", code, out, errOut)
	}
	if after, _ := os.ReadFile(jpath); string(after) != string(before) {
		t.Error("a read-only journal command changed the journal (recovery ran)")
	}
	// bundle reads a journal, never migrates it: a schema-1 journal stays schema 1
	old := filepath.Join(dir, "old.db")
	raw, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE schema_version (version BIGINT NOT NULL); INSERT INTO schema_version (version) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	oldBytes, _ := os.ReadFile(old)
	for _, ro := range [][]string{nil, {"--readonly"}} {
		args := append([]string{"bundle", "log_G01", "--no-verify", "--file", "testdata/export.jsonl", "--journal", old}, ro...)
		if code, out, errOut := run(t, map[string]string{"XDG_STATE_HOME": state}, args...); code != ExitOK || !strings.Contains(out+errOut, "schema version 1") {
			t.Errorf("%v: exit %d, %.200s %s", args, code, out, errOut)
		}
		if after, _ := os.ReadFile(old); string(after) != string(oldBytes) {
			t.Errorf("%v migrated the journal", args)
		}
	}
}
