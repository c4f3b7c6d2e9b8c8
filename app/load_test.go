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
