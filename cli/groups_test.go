package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/sandbox"
)

// Every path reaches the same duplicate groups as show: scan --json's groups over a live
// sandbox load and over the demo (whose list entries carry no arguments, like the Logs API's)
// are the groups show reports for each member, members and all (groups lost their
// last, successful attempt), near-duplicates (agent_retry) included.
func TestScanGroupsAgreeWithShow(t *testing.T) {
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 1, Size: 1500, Now: fixedNow}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, src := range []struct {
		name string
		args []string
	}{{"live sandbox", []string{"--base-url", base}}, {"demo", []string{"--demo"}}} {
		t.Run(src.name, func(t *testing.T) { scanAgreesWithShow(t, src.args) })
	}
}

func scanAgreesWithShow(t *testing.T, source []string) {
	dir := t.TempDir()
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(dir, "j.db"), "COMPOSIO_API_KEY": "k-groups", "XDG_STATE_HOME": dir}
	code, out, errOut := run(t, vars, append([]string{"scan", "--json"}, source...)...)
	if code != ExitOK {
		t.Fatalf("scan: %d %s", code, errOut)
	}
	var scan struct {
		Groups []struct {
			ID           string   `json:"id"`
			Pattern      string   `json:"pattern"`
			ExecutionIDs []string `json:"execution_ids"`
		} `json:"duplicate_groups"`
	}
	if err := json.Unmarshal([]byte(out), &scan); err != nil {
		t.Fatal(err)
	}
	if len(scan.Groups) < 10 {
		t.Fatalf("only %d groups on the demo", len(scan.Groups))
	}
	var all struct {
		Executions []struct {
			ID, Timestamp, ToolSlug string
			UserID                  string `json:"user_id"`
			Account                 string `json:"connected_account_id"`
		} `json:"executions"`
	}
	code, out, errOut = run(t, vars, append([]string{"list", "--json"}, source...)...)
	if code != ExitOK {
		t.Fatalf("list: %d %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for i, e := range all.Executions {
		byID[e.ID] = i
	}
	// the execution of the same tool and caller right after a group's last member (newest
	// first: the one before it in the list): the attempt a lossy grouping left out
	next := func(last string) string {
		i, ok := byID[last]
		if !ok {
			return ""
		}
		e := all.Executions[i]
		for k := i - 1; k >= 0; k-- {
			n := all.Executions[k]
			if n.ToolSlug == e.ToolSlug && n.Account == e.Account && n.UserID == e.UserID {
				return n.ID
			}
		}
		return ""
	}
	checked, agent := 0, 0
	for gi, g := range scan.Groups {
		if g.Pattern == "agent_retry" {
			agent++
		} else if gi >= 15 {
			continue // each show builds the source again: 15 groups and every near-duplicate
		}
		ids := []string{g.ExecutionIDs[0], g.ExecutionIDs[len(g.ExecutionIDs)-1]}
		if n := next(g.ExecutionIDs[len(g.ExecutionIDs)-1]); n != "" {
			ids = append(ids, n)
		}
		for k, id := range ids {
			code, out, errOut := run(t, vars, append([]string{"show", id, "--json"}, source...)...)
			if code != ExitOK {
				t.Fatalf("show %s: %d %s", id, code, errOut)
			}
			var show struct {
				Group *struct {
					ExecutionIDs []string `json:"execution_ids"`
				} `json:"duplicate_group"`
			}
			if err := json.Unmarshal([]byte(out), &show); err != nil {
				t.Fatal(err)
			}
			if show.Group == nil {
				if k < 2 {
					t.Errorf("%s is in scan's group %s but show puts it in none", id, g.ID)
				}
				continue
			}
			a, b := append([]string(nil), g.ExecutionIDs...), append([]string(nil), show.Group.ExecutionIDs...)
			sort.Strings(a)
			sort.Strings(b)
			if strings.Join(a, ",") != strings.Join(b, ",") {
				t.Errorf("group of %s: scan %v, show %v", id, g.ExecutionIDs, show.Group.ExecutionIDs)
			}
			checked++
		}
	}
	if agent == 0 {
		t.Error("no agent_retry (near-duplicate) group to compare")
	}
	t.Logf("%d groups (%d agent_retry), %d members compared", len(scan.Groups), agent, checked)
}

// list --filter pattern:CAUSE keeps the members of the groups with that cause; a typo is
// refused with the closest cause (exit 2), not answered with "0 of N".
func TestListFilterByPattern(t *testing.T) {
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	code, out, errOut := run(t, vars, "list", "--file", "testdata/export.jsonl", "--filter", "pattern:sdk_auto_retry")
	if code != ExitOK || !strings.Contains(errOut, "3 of ") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, id := range []string{"log_G01", "log_G02", "log_G03"} {
		if !strings.Contains(out, id) {
			t.Errorf("%s missing:\n%s", id, out)
		}
	}
	if strings.Contains(out, "log_S04") || strings.Contains(out, "log_H12") {
		t.Errorf("members of other causes listed:\n%s", out)
	}
	code, _, errOut = run(t, vars, "list", "--file", "testdata/export.jsonl", "--filter", "pattern:dobule_submit")
	if code != ExitUsage || !strings.Contains(errOut, "did you mean pattern:double_submit?") {
		t.Errorf("typo: exit %d, %s", code, errOut)
	}
}
