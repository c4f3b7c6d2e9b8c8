//go:build !race

package sandbox

import (
	"testing"
	"time"
)

// TestLargeHistory builds the largest history the demo is meant to page through (skipped
// under -race, which makes it slow, and with -short).
func TestLargeHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("large history")
	}
	s, err := New(Config{Seed: 9, Size: 100_000, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	execs := s.Executions()
	if len(execs) != 100_000 || len(s.Truth()) != 100_000 {
		t.Fatalf("%d executions", len(execs))
	}
	ids := make(map[string]bool, len(execs))
	for i, e := range execs {
		if ids[e.ID] {
			t.Fatalf("duplicate id %s", e.ID)
		}
		ids[e.ID] = true
		if i > 0 && e.Timestamp.After(execs[i-1].Timestamp) {
			t.Fatal("not newest first")
		}
		if e.Timestamp.Before(testNow.Add(-DefaultSpan)) || e.EndTime.After(testNow.Add(time.Second)) {
			t.Fatalf("%s outside the span", e.ID)
		}
	}
}
