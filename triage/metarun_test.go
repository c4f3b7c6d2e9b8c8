package triage

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestMetaToolResend (issues 29, 31): the tools of a meta tool sent again (each member under
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
