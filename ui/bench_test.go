package ui

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

func synthetic(n int) []model.Execution {
	execs := make([]model.Execution, n)
	tools := []string{"GMAIL_SEND_EMAIL", "SLACK_SEND_MESSAGE", "GMAIL_FETCH_EMAILS", "GITHUB_CREATE_AN_ISSUE"}
	for i := range execs {
		e := model.Execution{ID: fmt.Sprintf("log_%08d", i), Timestamp: sandboxNow.Add(-time.Duration(i) * time.Second),
			ToolSlug: tools[i%len(tools)], ToolkitSlug: "gmail", UserID: fmt.Sprintf("user_%d", i%50),
			ConnectedAccountID: fmt.Sprintf("ca_%d", i%50), Status: "success", Duration: time.Second, HasDuration: true,
			Arguments: json.RawMessage(fmt.Sprintf(`{"to":"u%d@example.com","subject":"s%d"}`, i%997, i%13)), Detailed: true, RetryCount: -1}
		if i%7 == 0 {
			e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrTimeout, Message: "timed out"}
		}
		execs[i] = e
	}
	return execs
}

// BenchmarkRender measures one frame at 200x50: it must not grow with the number of executions.
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{1_000, 300_000} {
		h := newHarness(b, newEnv(b), 200, 50)
		ds := window.Build(synthetic(n), nil, func(execs []model.Execution) window.Analysis {
			r := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
			return window.Analysis{Triage: r.Triage, Groups: r.Groups}
		})
		h.m.data.DS = ds
		h.m.list.SetItems(window.SelectItems(ds, window.View{}), n/2)
		h.m.refreshPanes()
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = h.m.Render()
			}
		})
		b.Run(fmt.Sprintf("n=%d/key-down", n), func(b *testing.B) {
			for b.Loop() {
				h.keys("j")
			}
		})
	}
}
