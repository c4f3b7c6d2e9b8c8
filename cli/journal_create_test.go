package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAReadCommandMakesNoJournal (issue 44, defect 13): `journal` at a mistyped --journal path
// (on SQLite) says there is none and creates neither the file nor its directory; `mark`, which
// writes, creates it, and `journal` then reads it.
func TestAReadCommandMakesNoJournal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo", "journal.db")
	vars := map[string]string{"XDG_STATE_HOME": dir}
	for _, args := range [][]string{{"journal"}, {"journal", "--json"}, {"journal", "log_G01"}} {
		code, _, errOut := run(t, vars, append(args, "--journal", path)...)
		if _, err := os.Stat(filepath.Dir(path)); err == nil || !strings.Contains(errOut, "no journal there yet") {
			t.Fatalf("%v: exit %d, %q; the directory exists: %v", args, code, errOut, err == nil)
		}
	}
	if code, _, errOut := run(t, vars, "mark", "log_G01", "confirmed_failed", "--file", "testdata/export.jsonl", "--journal", path); code != ExitOK {
		t.Fatalf("mark: %d %s", code, errOut)
	}
	if code, out, errOut := run(t, vars, "journal", "--journal", path); code != ExitOK || !strings.Contains(out, "log_G01") {
		t.Fatalf("journal after a mark: %d %q %s", code, out, errOut)
	}
}
