package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// TestATriggerRedeliveryIsOneGroup: in the sandbox, a trigger event delivered again
// after the app's handler answered too late, whose handler wrote each time, is one
// trigger_redelivery group linked to every delivery of the event, read from the live API (the
// deliveries from the trigger logs) and from an export of the same records; the deliveries
// themselves are never grouped as writes.
func TestATriggerRedeliveryIsOneGroup(t *testing.T) {
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 31, Size: 3000, Now: fixedNow, APIKey: "k-redeliver", Events: true})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-redeliver", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	execs := srv.Executions()
	byID := map[string]model.Execution{}
	deliveriesOf := map[string][]model.Execution{} // by event id, oldest first
	for _, e := range execs {
		byID[e.ID] = e
		if e.Delivery != nil {
			deliveriesOf[e.Delivery.EventID] = append(deliveriesOf[e.Delivery.EventID], e)
		}
	}
	for _, ds := range deliveriesOf {
		slices.SortFunc(ds, func(a, b model.Execution) int { return a.Timestamp.Compare(b.Timestamp) })
	}
	export := exportOf(t, execs)
	// the truth: each redelivered event's handler writes
	want := map[string][]string{} // group key -> members, oldest first
	for _, r := range srv.Truth() {
		if r.Case == sandbox.CaseTriggerRedelivery {
			want[r.GroupKey] = append(want[r.GroupKey], r.ID)
		}
	}
	if len(want) < 2 {
		t.Fatalf("the sandbox made %d redelivered events, want 2 or more", len(want))
	}
	// show says what identifies a delivery, and which deliveries a redelivery's write came from
	for _, ds := range deliveriesOf {
		if len(ds) < 2 {
			continue
		}
		d := ds[1]
		code, out, errOut := run(t, vars, "show", d.ID, "--base-url", base, "--since", "2000h")
		if code != ExitOK || !strings.Contains(out, "delivery  event "+d.Delivery.EventID+", attempt 2") {
			t.Errorf("show %s: %d %s\n%.600s", d.ID, code, errOut, out)
		}
		break
	}
	for _, members := range want {
		code, out, _ := run(t, vars, "show", members[0], "--base-url", base, "--since", "2000h")
		if code != ExitOK || !strings.Contains(out, "trigger deliveries: ") || !strings.Contains(out, "trigger   started by delivery ") || !strings.Contains(out, "its trace names the event") {
			t.Errorf("show %s does not name the deliveries:\n%.900s", members[0], out)
		}
		break
	}
	for _, src := range [][]string{{"--base-url", base, "--since", "2000h"}, {"--file", export}} {
		var scan struct {
			Groups []groupJSON `json:"duplicate_groups"`
		}
		code, out, errOut := run(t, vars, append([]string{"scan", "--json"}, src...)...)
		if code != ExitOK || json.Unmarshal([]byte(out), &scan) != nil {
			t.Fatalf("scan %v: %d %s", src, code, errOut)
		}
		for key, members := range want {
			slices.SortFunc(members, func(a, b string) int { ea, eb := byID[a], byID[b]; return ea.Start().Compare(eb.Start()) })
			i := slices.IndexFunc(scan.Groups, func(g groupJSON) bool { return slices.Contains(g.ExecutionIDs, members[0]) })
			if i < 0 {
				t.Errorf("%v: the handler writes of %s (%v) are in no group", src[0], key, members)
				continue
			}
			g := scan.Groups[i]
			event := strings.TrimPrefix(byID[members[0]].TraceID, "evt")
			var dls []string
			for _, d := range deliveriesOf[event] {
				dls = append(dls, d.ID)
			}
			if g.Pattern != string(model.PatternTriggerRedelivery) || !slices.Equal(g.ExecutionIDs, members) || !slices.Equal(g.Deliveries, dls) || len(dls) < 2 {
				t.Errorf("%v: group %s: %s %v deliveries %v, want trigger_redelivery %v deliveries %v\n%s", src[0], g.ID, g.Pattern, g.ExecutionIDs, g.Deliveries, members, dls, g.Reason)
			}
		}
		for _, g := range scan.Groups {
			for _, id := range g.ExecutionIDs {
				if byID[id].Type == model.TypeTriggerMessage {
					t.Errorf("%v: a trigger delivery %s is in group %s", src[0], id, g.ID)
				}
			}
			if g.Pattern == string(model.PatternTriggerRedelivery) && !slices.ContainsFunc(slices.Collect(maps.Values(want)), func(m []string) bool { return slices.Equal(m, g.ExecutionIDs) }) {
				t.Errorf("%v: group %s is named a redelivery but is none: %v", src[0], g.ID, g.ExecutionIDs)
			}
		}
	}
}

// TestAMetaToolResendIsNamedFromItsRuns: in the sandbox (and so the demo), a
// session's meta tool sent again by the SDK after a client timeout ran both its tools again:
// the runs are one session_auto_retry group, and each tool's two runs (a send, a draft) a group
// of its own (two intents), named from the runs of the meta tool and linked to their
// group; the same from the live API and from an export.
func TestAMetaToolResendIsNamedFromItsRuns(t *testing.T) {
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 33, Size: 4000, Now: fixedNow, APIKey: "k-meta", Events: true})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-meta", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	export := exportOf(t, srv.Executions())
	want := map[string][]string{}
	for _, r := range srv.Truth() {
		if r.Case == sandbox.CaseMetaResend {
			want[r.GroupKey] = append(want[r.GroupKey], r.ID)
		}
	}
	if len(want) < 3 {
		t.Fatalf("the sandbox made %d meta-tool groups, want 3 or more", len(want))
	}
	for _, src := range [][]string{{"--base-url", base, "--since", "2000h"}, {"--file", export}} {
		var scan struct {
			Groups []groupJSON `json:"duplicate_groups"`
		}
		code, out, errOut := run(t, vars, append([]string{"scan", "--json"}, src...)...)
		if code != ExitOK || json.Unmarshal([]byte(out), &scan) != nil {
			t.Fatalf("scan %v: %d %s", src, code, errOut)
		}
		children := 0
		for key, members := range want {
			i := slices.IndexFunc(scan.Groups, func(g groupJSON) bool { return slices.Contains(g.ExecutionIDs, members[0]) })
			if i < 0 {
				t.Errorf("%v: %s (%v) is in no group", src[0], key, members)
				continue
			}
			g := scan.Groups[i]
			got := slices.Clone(g.ExecutionIDs)
			slices.Sort(got)
			slices.Sort(members)
			if g.Pattern != string(model.PatternSessionAutoRetry) || !slices.Equal(got, members) {
				t.Errorf("%v: group %s: %s %v, want session_auto_retry %v\n%s", src[0], g.ID, g.Pattern, g.ExecutionIDs, members, g.Reason)
			}
			if g.ToolSlug != "COMPOSIO_MULTI_EXECUTE_TOOL" {
				children++
				runs := slices.IndexFunc(scan.Groups, func(r groupJSON) bool { return r.ID == g.MetaGroup })
				if !strings.Contains(g.Reason, "the meta tool was sent again and ran the tools it holds again") || len(g.ExecutionIDs) != 2 ||
					len(g.MetaRuns) != 2 || runs < 0 || scan.Groups[runs].ToolSlug != "COMPOSIO_MULTI_EXECUTE_TOOL" ||
					!slices.Contains(scan.Groups[runs].ExecutionIDs, g.MetaRuns[0]) {
					t.Errorf("%v: group %s of a meta tool's children is not named from its runs, or not linked to their group: %s (runs %v, group %q)",
						src[0], g.ID, g.Reason, g.MetaRuns, g.MetaGroup)
				}
			}
		}
		if children < 1 || children*3 != len(want)*2 {
			t.Errorf("%v: %d groups of children for %d meta-tool groups", src[0], children, len(want))
		}
	}
}

// exportOf writes the records as an export of the Logs API (detail shape, one per line) and
// returns its path.
func exportOf(t *testing.T, execs []model.Execution) string {
	t.Helper()
	var lines []string
	for _, e := range execs {
		b, err := json.Marshal(model.ToWire(&e, true))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	export := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(export, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return export
}
