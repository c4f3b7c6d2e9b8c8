package app

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"pgregory.net/rapid"
)

func TestSortNewestFirstIsAStableSort(t *testing.T) {
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 80).Draw(rt, "n")
		order := rapid.SampledFrom([]string{"random", "sorted", "reversed"}).Draw(rt, "order")
		execs := make([]model.Execution, n)
		for i := range execs {
			execs[i] = model.Execution{
				ID:        fmt.Sprintf("log_%d", rapid.IntRange(0, 5).Draw(rt, "id")),
				Timestamp: base.Add(time.Duration(rapid.IntRange(0, 8).Draw(rt, "t")) * time.Second),
				Message:   fmt.Sprint(i), // tells equal records apart
			}
		}
		switch order {
		case "sorted":
			slices.SortStableFunc(execs, func(a, b model.Execution) int { return newerFirst(&a, &b) })
		case "reversed":
			slices.SortStableFunc(execs, func(a, b model.Execution) int { return newerFirst(&b, &a) })
		}
		want := slices.Clone(execs)
		slices.SortStableFunc(want, func(a, b model.Execution) int { return newerFirst(&a, &b) })
		SortNewestFirst(execs)
		for i := range execs {
			if execs[i].Message != want[i].Message {
				rt.Fatalf("position %d: got record %s, want %s", i, execs[i].Message, want[i].Message)
			}
		}
	})
}

// The retry dialog's next steps name keys, not commands the person would have to leave the
// TUI for (issue 16.8).
func TestKeysForNext(t *testing.T) {
	tests := []struct{ next, want string }{
		{"do not retry; mark it: `exectriage mark log_a-B1 confirmed_succeeded` (only a fresh `exectriage verify log_a-B1` that no longer finds it changes this)",
			"do not retry; mark it: press m and record confirmed_succeeded (only a fresh check (v) that no longer finds it changes this)"},
		{"check it first: `exectriage verify log_1`", "check it first: press v"},
		{"do not retry; if that verdict is wrong, record the correction first: `exectriage mark log_1 confirmed_failed --note TEXT`",
			"do not retry; if that verdict is wrong, record the correction first: press m and record confirmed_failed"},
		{"settle it first: `exectriage resolve 3f2a`", "settle it first: in a shell: `exectriage resolve 3f2a`"},
		{"wait until 10:00:00Z, then retry", "wait until 10:00:00Z, then retry"},
	}
	for _, tt := range tests {
		if got := KeysForNext(tt.next); got != tt.want {
			t.Errorf("KeysForNext(%q)\n = %q\nwant %q", tt.next, got, tt.want)
		}
	}
}
