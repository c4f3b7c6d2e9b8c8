package triage

import (
	"cmp"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestAFrameworksPolicyByItsName: a framework's tool retry is named by the policy of the
// framework the records name. Three attempts whose waits (0.6 s, then 1.9 s after each failure
// ended) fit LangGraph's RetryPolicy (0.5 s, then 1 s, each with up to 1 s of jitter) but not
// LangChain's ToolRetryMiddleware (0.7-1.6 s first) are framework_retry where the records name
// LangGraph, and not where they name LangChain or nothing. Both paths.
func TestAFrameworksPolicyByItsName(t *testing.T) {
	for _, tt := range []struct {
		framework string
		framed    bool
	}{
		{"langgraph", true},
		{"LangGraph", true},
		{"langchain", false},
		{"", false},
	} {
		t.Run(cmp.Or(tt.framework, "none"), func(t *testing.T) {
			var execs []model.Execution
			at := sec(0)
			for i, wait := range []float64{0.6, 1.9} {
				a := attempt{id: string(rune('a' + i)), at: at, dur: sec(1), retry: -1, err: gatewayErr}
				execs = append(execs, a.exec())
				at += sec(1) + sec(wait)
			}
			last := attempt{id: "c", at: at, dur: sec(1), retry: -1}
			execs = append(execs, last.exec())
			for i := range execs {
				execs[i].Source.Framework = tt.framework
			}
			for _, res := range []*Result{Analyze(execs, NewKinds(), Options{}), analyzeReference(execs, NewKinds(), Options{})} {
				if len(res.Groups) != 1 {
					t.Fatalf("%d groups, want 1", len(res.Groups))
				}
				g := res.Groups[0]
				if got := g.Pattern == model.PatternFrameworkRetry; got != tt.framed {
					t.Fatalf("%s: %s; want framework_retry %v", g.Pattern, g.Reason, tt.framed)
				}
				if tt.framed && !strings.Contains(g.Reason, "LangGraph's RetryPolicy") {
					t.Errorf("reason names no policy: %s", g.Reason)
				}
			}
		})
	}
}
