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
