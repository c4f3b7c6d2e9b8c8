package triage

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestMetaToolResend: the tools of a meta tool sent again (each member under
// its own run of COMPOSIO_MULTI_EXECUTE_TOOL) are named from those runs: a session's SDK retry
// of the meta tool is session_auto_retry, the reason naming the runs. The near misses are
// named from the members themselves: two children of one run (a batch with an item twice),
// runs outside the window, a member that ran under no meta tool. Analyze and Incremental agree.
func TestMetaToolResend(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(id string, at time.Duration, err *model.ExecError, dur time.Duration) model.Execution {
		e := model.Execution{ID: id, ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL", ToolkitSlug: "composio", UserID: "u1", RetryCount: -1,
			Detailed: true, SessionID: "trs_1", SDKVersion: "0.21.0", Source: model.Source{Host: "sdk", Language: "typescript"},
			Arguments: json.RawMessage(`{"tools":[{"tool_slug":"GMAIL_SEND_EMAIL"}]}`), Status: model.StatusSuccess, Error: err}
		if err != nil {
			e.Status = model.StatusFailed
		}
		e.StartTime, e.Timestamp = t0.Add(at), t0.Add(at)
		if dur > 0 {
			e.EndTime, e.Duration, e.HasDuration = e.StartTime.Add(dur), dur, true
		}
		return e
	}
	child := func(id, parent string, at time.Duration) model.Execution {
		e := model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "u1", ConnectedAccountID: "ca_1", RetryCount: -1,
			Detailed: true, SessionID: "trs_1", Status: model.StatusSuccess,
			Arguments: json.RawMessage(`{"recipient_email":"bob@example.com","subject":"Invoice 42","body":"attached"}`)}
		if parent != "" {
			e.Parent = &model.Parent{LogID: parent, ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL"}
		}
		e.StartTime, e.Timestamp = t0.Add(at), t0.Add(at)
		e.EndTime, e.Duration, e.HasDuration = e.StartTime.Add(sec(0.8)), sec(0.8), true
		return e
	}
	tests := []struct {
		name    string
		execs   []model.Execution
		pattern model.RetryPattern // of the children's group
		meta    bool               // named from the runs
	}{
		{"the session's SDK retry of the meta tool", []model.Execution{
			run("p1", 0, timeoutErr, 0), child("c1", "p1", sec(1)),
			run("p2", sec(60.45), nil, sec(3)), child("c2", "p2", sec(61.5)),
		}, model.PatternSessionAutoRetry, true},
		{"near miss: two children of one run", []model.Execution{
			run("p1", 0, nil, sec(5)), child("c1", "p1", sec(1)), child("c2", "p1", sec(2.5)),
		}, "", false},
		{"near miss: the runs are outside the window", []model.Execution{
			child("c1", "p1", sec(1)), child("c2", "p2", sec(61.5)),
		}, "", false},
		{"near miss: a member under no meta tool", []model.Execution{
			run("p1", 0, timeoutErr, 0), child("c1", "p1", sec(1)), child("c2", "", sec(61.5)),
		}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Analyze(tt.execs, nil, Options{})
			var g *model.DuplicateGroup
			for i := range res.Groups {
				if strings.HasPrefix(res.Groups[i].ExecutionIDs[0], "c") {
					g = &res.Groups[i]
				}
			}
			if g == nil {
				t.Fatalf("the children are in no group: %+v", res.Groups)
			}
			named := strings.Contains(g.Reason, "the meta tool was sent again")
			if named != tt.meta || tt.meta && (g.Pattern != tt.pattern || !strings.Contains(g.Reason, "p1, p2")) {
				t.Fatalf("pattern %s, reason %q; want named from the runs %v (%s)", g.Pattern, g.Reason, tt.meta, tt.pattern)
			}
			inc := NewIncremental(nil, Options{})
			for i := range tt.execs {
				inc.Add(&tt.execs[i])
			}
			groups, _, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return tt.execs[pos], nil })
			if err != nil {
				t.Fatal(err)
			}
			for _, ig := range groups {
				if ig.ID == g.ID && (ig.Pattern != g.Pattern || ig.Reason != g.Reason) {
					t.Errorf("Incremental: %s %q, Analyze: %s %q", ig.Pattern, ig.Reason, g.Pattern, g.Reason)
				}
			}
		})
	}
}

// TestAResentMetaToolsToolsAreGroupsOfTheirOwn: a meta tool sent again
// whose two tools (an email and a Slack message) both ran again makes a group of each tool's
// runs (two intents, not one: joining them made false pairs of an email and a message), each
// named by why the meta tool was sent again and linked to the runs' group (MetaRuns,
// MetaGroup); each front's builder (Analyze, Incremental, the Grouper scan uses) says so,
// members and all. Two tools of two runs that are not each other's re-send (a third run,
// another email) stay apart.
func TestAResentMetaToolsToolsAreGroupsOfTheirOwn(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	run := func(id string, at time.Duration, err *model.ExecError) model.Execution {
		e := model.Execution{ID: id, ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL", ToolkitSlug: "composio", UserID: "u1", RetryCount: -1,
			Detailed: true, SessionID: "trs_1", SDKVersion: "0.21.0", Source: model.Source{Host: "sdk", Language: "typescript"},
			Arguments: json.RawMessage(`{"tools":[{"tool_slug":"GMAIL_SEND_EMAIL"},{"tool_slug":"SLACK_SEND_MESSAGE"}]}`), Status: model.StatusSuccess, Error: err}
		if err != nil {
			e.Status = model.StatusFailed
		} else {
			e.EndTime, e.Duration, e.HasDuration = t0.Add(at+sec(3)), sec(3), true
		}
		e.StartTime, e.Timestamp = t0.Add(at), t0.Add(at)
		return e
	}
	child := func(id, tool, args, parent string, at time.Duration) model.Execution {
		e := model.Execution{ID: id, ToolSlug: tool, ToolkitSlug: strings.ToLower(strings.SplitN(tool, "_", 2)[0]), UserID: "u1", ConnectedAccountID: "ca_" + tool[:5],
			RetryCount: -1, Detailed: true, SessionID: "trs_1", Status: model.StatusSuccess, Arguments: json.RawMessage(args),
			Parent: &model.Parent{LogID: parent, ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL"}}
		e.StartTime, e.Timestamp = t0.Add(at), t0.Add(at)
		e.EndTime, e.Duration, e.HasDuration = e.StartTime.Add(sec(0.8)), sec(0.8), true
		return e
	}
	const mail, slack = `{"recipient_email":"bob@example.com","subject":"Invoice 42","body":"attached"}`, `{"channel":"#billing","text":"Invoice 42 sent to Bob"}`
	execs := []model.Execution{
		run("p1", 0, timeoutErr), child("m1", "GMAIL_SEND_EMAIL", mail, "p1", sec(1)), child("s1", "SLACK_SEND_MESSAGE", slack, "p1", sec(1.5)),
		run("p2", sec(60.45), nil), child("m2", "GMAIL_SEND_EMAIL", mail, "p2", sec(61.5)), child("s2", "SLACK_SEND_MESSAGE", slack, "p2", sec(62)),
		// a later, separate run that sends another email: its own story
		run("p3", sec(600), nil), child("m3", "GMAIL_SEND_EMAIL", `{"recipient_email":"bob@example.com","subject":"Invoice 43","body":"attached"}`, "p3", sec(601)),
	}
	res := Analyze(execs, nil, Options{})
	var children []model.DuplicateGroup
	runsGroup := ""
	for _, g := range res.Groups {
		if strings.HasPrefix(g.ExecutionIDs[0], "p") {
			if slices.Contains(g.ExecutionIDs, "p1") && slices.Contains(g.ExecutionIDs, "p2") {
				runsGroup = g.ID
			}
			continue
		}
		children = append(children, g)
	}
	if len(children) != 2 || runsGroup == "" {
		t.Fatalf("%d groups of the children, want two, and the runs' group %q: %+v", len(children), runsGroup, res.Groups)
	}
	want := map[string]string{"m1 m2": "GMAIL_SEND_EMAIL", "s1 s2": "SLACK_SEND_MESSAGE"}
	for _, g := range children {
		ids := strings.Join(g.ExecutionIDs, " ")
		tool, ok := want[ids]
		if !ok || g.Pattern != model.PatternSessionAutoRetry || !strings.Contains(g.Reason, tool) || !strings.Contains(g.Reason, "p1, p2") ||
			strings.Join(g.MetaRuns, " ") != "p1 p2" || g.MetaGroup != runsGroup {
			t.Errorf("a child group: %s %s %q runs %v meta group %q (the runs' %q)", ids, g.Pattern, g.Reason, g.MetaRuns, g.MetaGroup, runsGroup)
		}
		for _, id := range g.ExecutionIDs {
			if res.Triage[index(execs, id)].GroupID != g.ID {
				t.Errorf("%s is not in its group %s", id, g.ID)
			}
		}
	}
	if res.Triage[index(execs, "m3")].GroupID != "" {
		t.Error("the separate run's email joined a group")
	}

	inc := NewIncremental(nil, Options{})
	for i := range execs {
		inc.Add(&execs[i])
	}
	groups, members, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return execs[pos], nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != len(res.Groups) {
		t.Errorf("Incremental found %d groups, Analyze %d", len(groups), len(res.Groups))
	}
	for _, g := range children {
		found := false
		for k, ig := range groups {
			if ig.ID != g.ID {
				continue
			}
			found = true
			var ids []string
			for _, p := range members[k] {
				ids = append(ids, execs[p].ID)
			}
			if ig.Pattern != g.Pattern || ig.Reason != g.Reason || !slices.Equal(ig.ExecutionIDs, g.ExecutionIDs) || !slices.Equal(ids, g.ExecutionIDs) ||
				ig.MetaGroup != g.MetaGroup || !slices.Equal(ig.MetaRuns, g.MetaRuns) {
				t.Errorf("Incremental: %s %q %v members %v meta %q", ig.Pattern, ig.Reason, ig.ExecutionIDs, ids, ig.MetaGroup)
			}
		}
		if !found {
			t.Errorf("Incremental lacks %s", g.ID)
		}
	}

	// the Grouper, as scan feeds it: one caller's candidates a batch at a time
	opt := Options{MetaRuns: NewMetaRuns()}
	for i := range execs {
		opt.MetaRuns.Add(&execs[i], res.Triage[i].Outcome)
	}
	gr := NewGrouper(nil, opt)
	var byNumber [][]string
	for _, batch := range [][]model.Execution{{execs[1], execs[4]}, {execs[2], execs[5]}} {
		for _, in := range gr.Add(batch) {
			var ids []string
			for _, j := range in {
				ids = append(ids, batch[j].ID)
			}
			byNumber = append(byNumber, ids)
		}
	}
	sg, order := gr.Groups()
	if len(sg) != 2 || len(byNumber) != 2 || order[0] == order[1] {
		t.Fatalf("the Grouper: %d groups %+v, order %v", len(sg), sg, order)
	}
	for n, ids := range byNumber {
		g := sg[order[n]]
		if !slices.Equal(g.ExecutionIDs, ids) || !slices.Equal(g.MetaRuns, []string{"p1", "p2"}) {
			t.Errorf("the Grouper's group %d: %v runs %v, want %v under p1 p2", n, g.ExecutionIDs, g.MetaRuns, ids)
		}
	}
}

func index(execs []model.Execution, id string) int {
	for i := range execs {
		if execs[i].ID == id {
			return i
		}
	}
	return -1
}

// TestABatchReplayIsTheAppsRetry: a job that sent three messages and was run again
// five minutes later sent each again: three groups, each the app's retry of a batch (not a
// double submit), in Analyze and in Incremental alike; two such pairs are not a batch.
func TestABatchReplayIsTheAppsRetry(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	send := func(id, to string, at time.Duration) model.Execution {
		e := model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "u1", ConnectedAccountID: "ca_1", RetryCount: -1,
			Detailed: true, Status: model.StatusSuccess, Arguments: json.RawMessage(`{"recipient_email":"` + to + `","subject":"Your receipt","body":"Thanks"}`)}
		e.StartTime, e.Timestamp = t0.Add(at), t0.Add(at)
		e.EndTime, e.Duration, e.HasDuration = e.StartTime.Add(sec(0.8)), sec(0.8), true
		return e
	}
	for _, tt := range []struct {
		name  string
		n     int
		batch bool
	}{{"three messages sent again", 3, true}, {"near miss: two", 2, false}} {
		t.Run(tt.name, func(t *testing.T) {
			var execs []model.Execution
			for i := range tt.n {
				to := fmt.Sprintf("buyer%d@example.com", i)
				execs = append(execs, send(fmt.Sprintf("a%d", i), to, sec(float64(2*i))), send(fmt.Sprintf("b%d", i), to, 5*time.Minute+sec(float64(2*i))))
			}
			res := Analyze(execs, nil, Options{})
			inc := NewIncremental(nil, Options{})
			for i := range execs {
				inc.Add(&execs[i])
			}
			ig, _, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return execs[pos], nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Groups) != tt.n || len(ig) != tt.n {
				t.Fatalf("%d groups (Incremental %d), want %d", len(res.Groups), len(ig), tt.n)
			}
			for k, g := range res.Groups {
				want := model.PatternDoubleSubmit
				if tt.batch {
					want = model.PatternAppRetry
				}
				if g.Pattern != want || tt.batch != strings.Contains(g.Reason, "a batch of 3 writes") {
					t.Errorf("%v: %s %q, want %s", g.ExecutionIDs, g.Pattern, g.Reason, want)
				}
				if ig[k].ID != g.ID || ig[k].Pattern != g.Pattern || ig[k].Reason != g.Reason {
					t.Errorf("Incremental says %s %q", ig[k].Pattern, ig[k].Reason)
				}
			}
		})
	}
}
