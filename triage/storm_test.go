package triage

import (
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestRetryStorms: a long run of attempts that falls into rounds, each an inner
// retry (a framework's tool retry), is named by the inner cause with the outer loop noted; a
// loop of single attempts is the application's retry, not a storm.
func TestRetryStorms(t *testing.T) {
	round := func(prefix string, at float64, last *model.ExecError) []attempt {
		return []attempt{
			{id: prefix + "1", at: sec(at), dur: sec(0.3), err: gatewayErr, retry: -1},
			{id: prefix + "2", at: sec(at + 1.3), dur: sec(0.3), err: gatewayErr, retry: -1},
			{id: prefix + "3", at: sec(at + 3.6), dur: sec(0.3), err: last, retry: -1},
		}
	}
	tests := []struct {
		name    string
		as      []attempt
		pattern model.RetryPattern
		storm   bool
	}{
		{"a framework retry inside an app loop", append(append(round("a", 0, gatewayErr), round("b", 34, gatewayErr)...), round("c", 68, nil)...),
			model.PatternFrameworkRetry, true},
		{"near miss: an app loop of single attempts", []attempt{
			{id: "a", at: 0, dur: sec(0.3), err: gatewayErr, retry: -1},
			{id: "b", at: sec(30.3), dur: sec(0.3), err: gatewayErr, retry: -1},
			{id: "c", at: sec(60.6), dur: sec(0.3), err: gatewayErr, retry: -1},
			{id: "d", at: sec(90.9), dur: sec(0.3), retry: -1},
		}, model.PatternAppRetry, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var execs []model.Execution
			for _, a := range tt.as {
				execs = append(execs, a.exec())
			}
			res := Analyze(execs, NewKinds(), Options{})
			if len(res.Groups) != 1 {
				t.Fatalf("%d groups: %+v", len(res.Groups), res.Groups)
			}
			g := res.Groups[0]
			if g.Pattern != tt.pattern || strings.Contains(g.Reason, "retry storm") != tt.storm {
				t.Fatalf("%s: %s, want %s (storm %v)", g.Pattern, g.Reason, tt.pattern, tt.storm)
			}
			if tt.storm && !strings.Contains(g.Reason, "3 rounds") {
				t.Errorf("the reason does not count the rounds: %s", g.Reason)
			}
		})
	}
}
