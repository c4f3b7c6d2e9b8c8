package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
)

// TestAReadCommandMakesNoJournal: `journal` at a mistyped --journal path
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

// TestJournalLimitKeepsTheNewestOfAnyKind: `journal --limit 1` printed
// one record of each kind (a confirmation, an attempt, a verdict), where the README says it
// keeps the newest N. It keeps the N newest records, whatever their kind.
func TestJournalLimitKeepsTheNewestOfAnyKind(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := journal.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	// oldest to newest: verdict v1, confirmation c1, verdict v2, confirmation c2, verdict v3
	for i, r := range []string{"v1", "c1", "v2", "c2", "v3"} {
		at := t0.Add(time.Duration(i) * time.Minute)
		if r[0] == 'v' {
			err = j.Mark(ctx, journal.VerdictRecord{ID: r, ExecutionID: "log_" + r, Verdict: model.VerdictIgnored, Who: "t", At: at})
		} else {
			err = j.Confirm(ctx, journal.Confirmation{ID: r, ExecutionID: "log_" + r, Who: "t", At: at, Reason: "r"})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	vars := map[string]string{"EXECTRIAGE_JOURNAL": path}
	for n, want := range map[int][]string{1: {"v3"}, 2: {"c2", "v3"}, 3: {"c2", "v2", "v3"}, 9: {"c1", "c2", "v1", "v2", "v3"}} {
		code, out, errOut := run(t, vars, "journal", "--json", "--limit", fmt.Sprint(n))
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var doc struct {
			Confirmations []journal.Confirmation  `json:"confirmations"`
			Verdicts      []journal.VerdictRecord `json:"verdicts"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range doc.Confirmations {
			got = append(got, c.ID)
		}
		for _, v := range doc.Verdicts {
			got = append(got, v.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("--limit %d keeps %v, want the newest %v", n, got, want)
		}
	}
}

// TestNewCmdJournal: journal's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdJournal(t *testing.T) {
	newCmdTable(t, NewCmdJournal, []argvCase[JournalOptions]{
		{argv: "", want: func(o *JournalOptions) string { return differs("ID", o.ID, "", "Limit", o.Limit, 0) }},
		{argv: "log_1 --limit 3 --json", want: func(o *JournalOptions) string {
			return differs("ID", o.ID, "log_1", "Limit", o.Limit, 3, "json", o.Source.json, true)
		}},
		{argv: "--limit -1", wantErr: "--limit must not be negative"},
		{argv: "a b", wantErr: "want at most one execution or attempt id"},
		{argv: "--file x.jsonl", wantErr: "unknown flag: --file"},
	})
}
