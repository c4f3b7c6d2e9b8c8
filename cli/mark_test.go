package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
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

// mark refuses a verdict that does not fit the execution (exit 2, nothing journaled) and says
// what the verdicts it records change for the guard; a stray ignored does not lift a
// duplicate.
func TestMarkOnlyVerdictsThatFitAndSaysWhatTheyChange(t *testing.T) {
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	file := []string{"--file", "testdata/export.jsonl"}
	code, out, errOut := run(t, vars, append([]string{"mark", "log_G08", "confirmed_failed"}, file...)...)
	if code != ExitUsage || !strings.Contains(errOut, "confirmed_failed does not fit log_G08 (a read") || !strings.Contains(errOut, "it can be marked ignored") {
		t.Fatalf("confirmed_failed on a read: exit %d, %q %q", code, out, errOut)
	}
	if _, out, _ = run(t, vars, "journal", "--json"); strings.Contains(out, "log_G08") {
		t.Fatalf("the refused verdict reached the journal: %s", out)
	}
	steps := []struct{ verdict, says string }{
		{"duplicate", "retries of it are now refused"},
		{"ignored", "changes nothing the guard allows: it still goes by duplicate"},
		{"confirmed_failed", "lifts the earlier duplicate"},
	}
	for _, s := range steps {
		code, out, errOut = run(t, vars, append([]string{"mark", "log_G01", s.verdict}, file...)...)
		if code != ExitOK || !strings.Contains(out, s.says) {
			t.Fatalf("mark log_G01 %s: exit %d: %q %q, want %q", s.verdict, code, out, errOut, s.says)
		}
	}
}

// mark --filter marks what list --filter lists (the same filter, the same rows), but the rows the
// verdict does not fit, which it names; --dry-run says the same and marks nothing; each verdict
// is in the journal as if marked one by one.
func TestMarkManyMarksWhatTheListLists(t *testing.T) {
	dir := t.TempDir()
	jpath := filepath.Join(dir, "journal.db")
	vars := map[string]string{"XDG_STATE_HOME": dir}
	src := []string{"--file", "testdata/export.jsonl", "--journal", jpath}
	const query = "toolkit:gmail"
	code, out, errOut := run(t, vars, append([]string{"list", "--json", "--filter", query}, src...)...)
	if code != ExitOK {
		t.Fatalf("list: %d %s", code, errOut)
	}
	var listed struct {
		Executions []struct {
			ID     string
			Triage struct{ Kind, Outcome string } `json:"triage"`
		}
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed.Executions) < 3 {
		t.Fatalf("list: %v %d", err, len(listed.Executions))
	}
	type answer struct {
		DryRun  bool     `json:"dry_run"`
		Matched int      `json:"matched"`
		Chosen  []string `json:"chosen"`
		Marked  []string `json:"marked"`
		Skipped []struct{ ID, Why string }
	}
	mark := func(args ...string) answer {
		t.Helper()
		code, out, errOut := run(t, vars, append(append([]string{"mark", "--json", "--filter", query}, args...), src...)...)
		if code != ExitOK {
			t.Fatalf("mark %v: %d %s", args, code, errOut)
		}
		validAnswer(t, "mark_many", out)
		var a answer
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	dry := mark("confirmed_failed", "--dry-run")
	if !dry.DryRun || len(dry.Marked) != 0 || dry.Matched != len(listed.Executions) {
		t.Fatalf("dry run: %+v (list kept %d)", dry, len(listed.Executions))
	}
	if len(dry.Skipped) == 0 || len(dry.Chosen) == 0 {
		t.Fatalf("confirmed_failed should fit some rows and not others: %+v", dry)
	}
	var all []string
	for _, e := range listed.Executions {
		all = append(all, e.ID)
	}
	for _, id := range append(append([]string{}, dry.Chosen...), func() (s []string) {
		for _, k := range dry.Skipped {
			s = append(s, k.ID)
		}
		return
	}()...) {
		if !slices.Contains(all, id) {
			t.Fatalf("mark chose %s, which list --filter does not list", id)
		}
	}
	if len(dry.Chosen)+len(dry.Skipped) != len(all) {
		t.Fatalf("chosen %d + skipped %d != listed %d", len(dry.Chosen), len(dry.Skipped), len(all))
	}
	if code, out, _ := run(t, vars, "journal", "--json", "--journal", jpath); code == ExitOK && strings.Contains(out, `"verdict": "confirmed_failed"`) {
		t.Fatal("--dry-run wrote a verdict")
	}
	done := mark("confirmed_failed", "--note", "bulk")
	if !slices.Equal(done.Marked, dry.Chosen) {
		t.Fatalf("marked %v, the dry run said %v", done.Marked, dry.Chosen)
	}
	code, out, errOut = run(t, vars, "journal", "--json", "--journal", jpath)
	if code != ExitOK {
		t.Fatalf("journal: %d %s", code, errOut)
	}
	if n := strings.Count(out, `"verdict": "confirmed_failed"`); n != len(done.Marked) {
		t.Fatalf("the journal holds %d verdicts, %d were marked", n, len(done.Marked))
	}
	for _, bad := range [][]string{
		{"mark", "--filter", "", "ignored"},
		{"mark", "--filter", "toolkit:gmail", "log_x", "ignored"},
		{"mark", "--filter", "bogus:x", "ignored"},
		{"mark", "--filter", "toolkit:gmail", "nonsense"},
		{"mark", "log_x", "ignored", "--dry-run"},
	} {
		if code, _, errOut := run(t, vars, append(bad, src...)...); code != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, %q: want one line and exit 2", bad, code, errOut)
		}
	}
}

// verify --filter checks every write list --filter keeps, and says of each what verify ID says;
// --dry-run names them and checks none.
func TestVerifyManySaysWhatVerifySays(t *testing.T) {
	vars := map[string]string{"XDG_STATE_HOME": t.TempDir()}
	const query = "flagged:yes toolkit:slack"
	type answer struct {
		DryRun  bool     `json:"dry_run"`
		Matched int      `json:"matched"`
		Chosen  []string `json:"chosen"`
		Results []struct {
			ID    string
			State string
		}
	}
	verify := func(args ...string) answer {
		t.Helper()
		code, out, errOut := run(t, vars, append([]string{"verify", "--demo", "--json", "--filter", query}, args...)...)
		if code != ExitOK {
			t.Fatalf("verify %v: %d %s", args, code, errOut)
		}
		validAnswer(t, "verify_many", out)
		var a answer
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	dry := verify("--dry-run")
	if !dry.DryRun || len(dry.Results) != 0 || len(dry.Chosen) == 0 || len(dry.Chosen) > dry.Matched {
		t.Fatalf("dry run: %+v", dry)
	}
	all := verify()
	if len(all.Results) != len(dry.Chosen) {
		t.Fatalf("checked %d, the dry run named %d", len(all.Results), len(dry.Chosen))
	}
	for _, r := range all.Results[:3] {
		code, out, errOut := run(t, vars, "verify", r.ID, "--demo", "--json")
		var one struct{ State string }
		if code != ExitOK || json.Unmarshal([]byte(out), &one) != nil || one.State != r.State {
			t.Fatalf("verify %s says %q (%s), verify --filter said %q", r.ID, one.State, errOut, r.State)
		}
	}
}

// TestNewCmdMark: mark's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdMark(t *testing.T) {
	newCmdTable(t, NewCmdMark, []argvCase[MarkOptions]{
		{argv: "--note n log_2 duplicate --journal j.db", want: func(o *MarkOptions) string {
			return differs("ID", o.ID, "log_2", "Verdict", o.Verdict, model.Verdict("duplicate"), "Note", o.Note, "n", "journal", o.Source.journal, "j.db")
		}},
		{argv: "--filter 'tool:SLACK_SEND_MESSAGE' duplicate --dry-run", want: func(o *MarkOptions) string {
			return differs("Filter", o.Filter, "tool:SLACK_SEND_MESSAGE", "Verdict", o.Verdict, model.Verdict("duplicate"), "DryRun", o.DryRun, true, "ID", o.ID, "")
		}},
		{argv: "log_1", wantErr: "want an execution id and a verdict"},
		{argv: "log_1 duplicate extra", wantErr: "verdict"},
	})
}
