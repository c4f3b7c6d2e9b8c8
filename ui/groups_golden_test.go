package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// TestGoldenGroupRowsPerPattern: the duplicates view on the demo's history (seed 0, 3000
// executions), with the cursor on the oldest member of the first group of each pattern: the
// group row names the cause, the members show their gaps, and the detail says what matched
// (identical arguments, or the reworded text and its similarity) and the fix.
func TestGoldenGroupRowsPerPattern(t *testing.T) {
	patterns := []model.RetryPattern{model.PatternSDKAutoRetry, model.PatternSessionAutoRetry, model.PatternFrameworkRetry,
		model.PatternAgentRetry, model.PatternAppRetry, model.PatternDoubleSubmit}
	e := newEnvWith(t, sandbox.Config{Seed: 0, Size: 3000, Now: sandboxNow, HoldTimeout: 2 * time.Second})
	for _, p := range patterns {
		t.Run(string(p), func(t *testing.T) {
			h := newHarness(t, e, 120, 40)
			ds := h.m.data.DS
			member := -1
			for i := range ds.Len() {
				if g := ds.Group(i); g != nil && g.Pattern == p && g.ExecutionIDs[0] == ds.ID(i) {
					member = i
					break
				}
			}
			if member < 0 {
				t.Fatalf("the demo has no %s group", p)
			}
			g := *ds.Group(member)
			h.keys("d")
			h.selectRow(member)
			s := h.screen()
			checkFits(t, s, 120, 40)
			if !strings.Contains(s, "DUP×") || !strings.Contains(s, string(p)) {
				t.Errorf("no %s group row on the screen", p)
			}
			if !strings.Contains(s, string(p)+" "+g.SimilarityWord()) {
				t.Errorf("the group row does not say what matched (%q)", g.SimilarityWord())
			}
			if p == model.PatternAgentRetry && !strings.Contains(s, "reworded") {
				t.Error("an agent_retry group does not say its text was reworded")
			}
			golden(t, "group_"+string(p)+"_120x40", s+"\n")
		})
	}
}
