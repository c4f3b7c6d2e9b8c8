package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A saved view lists what its filter and its rows say, as the same filter does by hand; an
// unknown view is exit 2 naming the views there are; a view's show that is none is refused.
func TestSavedViews(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(`
[views.slack-unknown]
filter = "toolkit:slack"
show = "flagged"
[views.dups]
show = "duplicates"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_STATE_HOME": dir, "EXECTRIAGE_CONFIG": cfg}
	ids := func(args ...string) (out []string, triage []map[string]any) {
		t.Helper()
		code, stdout, errOut := run(t, vars, append([]string{"list", "--demo", "--json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("list %v: %d %s", args, code, errOut)
		}
		var l struct {
			Executions []map[string]any
		}
		if err := json.Unmarshal([]byte(stdout), &l); err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Executions {
			id, _ := e["id"].(string)
			out, triage = append(out, id), append(triage, e)
		}
		return out, triage
	}
	viewed, _ := ids("--view", "slack-unknown")
	byHand, _ := ids("--filter", "toolkit:slack flagged:yes")
	if len(viewed) == 0 || !slices.Equal(viewed, byHand) {
		t.Fatalf("the view listed %d, the same filter by hand %d", len(viewed), len(byHand))
	}
	narrowed, _ := ids("--view", "slack-unknown", "--filter", "outcome:ambiguous")
	if len(narrowed) == 0 || len(narrowed) > len(viewed) {
		t.Fatalf("--filter with --view: %d of %d", len(narrowed), len(viewed))
	}
	dups, tri := ids("--view", "dups")
	if len(dups) == 0 {
		t.Fatal("the duplicates view listed nothing")
	}
	for i, tr := range tri {
		if g, _ := tr["duplicate_group"].(string); g == "" {
			t.Fatalf("%s is in no group but the duplicates view lists it", dups[i])
		}
	}
	code, _, errOut := run(t, vars, "list", "--demo", "--view", "nope")
	if code != ExitUsage || !strings.Contains(errOut, "dups, slack-unknown") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("an unknown view: exit %d, %q", code, errOut)
	}
	code, out, errOut := run(t, vars, "watch", "--demo", "--once", "--json", "--view", "slack-unknown", "--journal", filepath.Join(dir, "w.db"))
	if code != ExitOK {
		t.Fatalf("watch --view: %d %s", code, errOut)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var e struct{ Kind, Toolkit string }
		if json.Unmarshal([]byte(line), &e) != nil || e.Toolkit != "slack" {
			t.Fatalf("watch --view told %q", line)
		}
	}
	if err := os.WriteFile(cfg, []byte("[views.bad]\nshow = \"some\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, vars, "list", "--demo", "--view", "bad"); code != ExitUsage || !strings.Contains(errOut, "views.bad.show") {
		t.Fatalf("a show that is none: exit %d, %q", code, errOut)
	}
}

// TestTeamViewsAndBulkWork: a view saved in the journal is everyone's who opens it
// (a second config-less session picks it by name), the config's view of a name comes before
// the journal's, and mark --view / verify --view choose exactly the rows list --view lists
// (the writes among them, for verify); view delete removes it for everyone.
func TestTeamViewsAndBulkWork(t *testing.T) {
	dir := t.TempDir()
	journalDB := filepath.Join(dir, "team.db")
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[views.mine]\nfilter = \"toolkit:github\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "none.toml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ana := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "ana"), "EXECTRIAGE_CONFIG": cfg, "EXECTRIAGE_JOURNAL": journalDB}
	ben := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "ben"), "EXECTRIAGE_CONFIG": filepath.Join(dir, "none.toml"), "EXECTRIAGE_JOURNAL": journalDB}
	mustRun := func(vars map[string]string, args ...string) string {
		t.Helper()
		code, out, errOut := run(t, vars, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		return out
	}
	mustRun(ana, "view", "save", "slack-unknown", "--filter", "toolkit:slack outcome:ambiguous", "--show", "flagged", "--journal", journalDB)
	mustRun(ana, "view", "save", "mine", "--filter", "toolkit:gmail", "--journal", journalDB)
	var listed struct{ Views []map[string]any }
	if err := json.Unmarshal([]byte(mustRun(ben, "view", "list", "--json", "--journal", journalDB)), &listed); err != nil || len(listed.Views) != 2 {
		t.Fatalf("ben's views: %+v %v", listed, err)
	}
	validAnswer(t, "view_list", mustRun(ana, "view", "list", "--json", "--journal", journalDB))
	ids := func(vars map[string]string, args ...string) []string {
		t.Helper()
		var l struct{ Executions []struct{ ID string } }
		if err := json.Unmarshal([]byte(mustRun(vars, append([]string{"list", "--demo", "--json", "--journal", journalDB}, args...)...)), &l); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range l.Executions {
			out = append(out, e.ID)
		}
		return out
	}
	viewed, byHand := ids(ben, "--view", "slack-unknown"), ids(ben, "--filter", "toolkit:slack outcome:ambiguous flagged:yes")
	if len(viewed) == 0 || !slices.Equal(viewed, byHand) {
		t.Fatalf("ben's list of the team's view: %d rows, the same filter by hand %d", len(viewed), len(byHand))
	}
	if mine, github := ids(ana, "--view", "mine"), ids(ana, "--filter", "toolkit:github"); len(mine) == 0 || !slices.Equal(mine, github) {
		t.Fatalf("ana's own view mine did not come before the team's: %d rows, toolkit:github %d", len(mine), len(github))
	}
	if theirs, gmail := ids(ben, "--view", "mine"), ids(ben, "--filter", "toolkit:gmail"); !slices.Equal(theirs, gmail) {
		t.Fatalf("ben's view mine is not the team's: %d rows, toolkit:gmail %d", len(theirs), len(gmail))
	}
	var marked struct {
		Chosen  []string
		Skipped []struct{ ID string }
		Filter  string
	}
	if err := json.Unmarshal([]byte(mustRun(ben, "mark", "--demo", "--view", "slack-unknown", "ignored", "--dry-run", "--json", "--journal", journalDB)), &marked); err != nil {
		t.Fatal(err)
	}
	got := append(append([]string{}, marked.Chosen...), func() (s []string) {
		for _, k := range marked.Skipped {
			s = append(s, k.ID)
		}
		return s
	}()...)
	slices.Sort(got)
	want := slices.Clone(viewed)
	slices.Sort(want)
	if !slices.Equal(got, want) || marked.Filter != "toolkit:slack outcome:ambiguous" {
		t.Fatalf("mark --view chose %d (filter %q), list --view lists %d", len(got), marked.Filter, len(want))
	}
	var checked struct{ Chosen []string }
	if err := json.Unmarshal([]byte(mustRun(ben, "verify", "--demo", "--view", "slack-unknown", "--dry-run", "--json", "--journal", journalDB)), &checked); err != nil {
		t.Fatal(err)
	}
	if len(checked.Chosen) == 0 || len(checked.Chosen) > len(viewed) {
		t.Fatalf("verify --view chose %d of the view's %d", len(checked.Chosen), len(viewed))
	}
	for _, id := range checked.Chosen {
		if !slices.Contains(viewed, id) {
			t.Fatalf("verify --view chose %s, which list --view does not list", id)
		}
	}
	mustRun(ben, "view", "delete", "slack-unknown", "--journal", journalDB)
	if code, _, errOut := run(t, ana, "list", "--demo", "--view", "slack-unknown", "--journal", journalDB); code != ExitUsage || !strings.Contains(errOut, "views: mine") {
		t.Fatalf("a deleted view: exit %d %q", code, errOut)
	}
	if code, _, _ := run(t, ana, "view", "save", "x", "--readonly", "--journal", journalDB); code != ExitUsage {
		t.Fatalf("a read-only session saved a view: exit %d", code)
	}
}

// TestNewCmdView: view's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdView(t *testing.T) {
	newCmdTable(t, NewCmdView, []argvCase[ViewOptions]{
		{argv: "list --json", want: func(o *ViewOptions) string { return differs("Action", o.Action, "list", "json", o.Source.json, true) }},
		{argv: "save slack --filter toolkit:slack --show flagged", want: func(o *ViewOptions) string {
			return differs("Action", o.Action, "save", "Name", o.Name, "slack", "Filter", o.Filter, "toolkit:slack", "Show", o.Show, "flagged")
		}},
		{argv: "delete slack", want: func(o *ViewOptions) string { return differs("Action", o.Action, "delete", "Name", o.Name, "slack") }},
		{argv: "nope", wantErr: "say list, save NAME or delete NAME"},
		{argv: "save", wantErr: "NAME"},
	})
}
