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

// Every hint names the command as it would run in this session: in the demo a
// refused retry's next step says `exectriage --demo journal ID` (without --demo it reads the
// real journal and finds nothing), in --json as in text; `journal` takes an attempt's id as
// well as an execution's; an id the journal has nothing for is exit 2 with a line that names
// the command to check it in the same session.
func TestHintsNameTheSession(t *testing.T) {
	state := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": state}
	t0 := time.Date(2026, 3, 2, 12, 0, 30, 0, time.UTC)
	l, _ := listDemo(t, t0, vars)
	retried := ""
	for _, e := range l.Executions {
		if !e.Flagged || e.Kind != "write" {
			continue
		}
		if code, _, _ := runAt(t, t0.Add(time.Minute), vars, "--demo", "retry", e.ID, "--confirm-failed", "--reason", "no email"); code == ExitOK {
			retried = e.ID
			break
		}
	}
	if retried == "" {
		t.Fatal("no flagged write of the demo could be retried")
	}

	code, _, errOut := runAt(t, t0.Add(2*time.Minute), vars, "--demo", "retry", retried, "--confirm-failed", "--reason", "again")
	if code != ExitRefused || !strings.Contains(errOut, "`exectriage --demo journal "+retried+"`") {
		t.Fatalf("the refusal's next step does not run in the demo (exit %d):\n%s", code, errOut)
	}
	code, out, _ := runAt(t, t0.Add(2*time.Minute), vars, "retry", retried, "--demo", "--confirm-failed", "--reason", "again", "--json")
	var res struct {
		Decision struct {
			Next string `json:"next"`
		} `json:"decision"`
		Attempt struct {
			ID string `json:"id"`
		} `json:"attempt"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitRefused || !strings.Contains(res.Decision.Next, "exectriage --demo journal") {
		t.Fatalf("--json next %q (exit %d, %v):\n%s", res.Decision.Next, code, err, out)
	}

	// show and a bundle name their commands in the demo as well
	flagged := ""
	for _, e := range l.Executions {
		if e.Flagged && e.Kind == "write" && e.ID != retried {
			flagged = e.ID
			break
		}
	}
	if code, out, errOut := runAt(t, t0.Add(2*time.Minute), vars, "--demo", "show", flagged); code != ExitOK || !strings.Contains(out, "exectriage --demo verify "+flagged) {
		t.Errorf("show's hint (exit %d):\n%s%s", code, out, errOut)
	}
	bundle := filepath.Join(t.TempDir(), "b.md")
	if code, _, errOut := runAt(t, t0.Add(2*time.Minute), vars, "--demo", "bundle", flagged, "--out", bundle, "--no-verify"); code != ExitOK {
		t.Fatalf("bundle: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(bundle); !strings.Contains(string(b), "`exectriage --demo verify "+flagged+"`") {
		t.Errorf("the bundle's next step does not run in the demo:\n%s", b)
	}

	// journal: by attempt id; an unknown id is exit 2 in one line
	code, out, errOut = runAt(t, t0.Add(3*time.Minute), vars, "journal", "--demo", "--json")
	var j struct {
		Attempts []struct {
			ID string `json:"id"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitOK || len(j.Attempts) != 1 {
		t.Fatalf("journal --demo: %d %v %s", code, err, errOut)
	}
	if code, out, errOut := runAt(t, t0.Add(3*time.Minute), vars, "journal", j.Attempts[0].ID, "--demo"); code != ExitOK || !strings.Contains(out, "confirm  "+retried) {
		t.Errorf("journal ATTEMPT_ID: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runAt(t, t0.Add(3*time.Minute), vars, "journal", "log_nosuch", "--demo")
	if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "has nothing for log_nosuch") ||
		!strings.Contains(errOut, "`exectriage --demo show log_nosuch`") {
		t.Errorf("journal of an unknown id: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// the real journal (no --demo) knows nothing of the demo's retry: exit 2, not "(empty)"
	if code, _, errOut := runAt(t, t0.Add(3*time.Minute), vars, "journal", retried); code != ExitUsage || strings.Contains(errOut, "--demo show") {
		t.Errorf("journal ID outside the demo: exit %d, %s", code, errOut)
	}
}
