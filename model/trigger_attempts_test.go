package model

import (
	"testing"
	"time"
)

// TestNumberAttemptsCountsOnlyAfterAFailure: the trigger logs record no attempt; a
// delivery of an event is its next attempt only after a delivery of it that failed (Composio
// delivers again only then); after one that succeeded it went to another endpoint, and is an
// attempt 1 of its own. An attempt the record carries is kept.
func TestNumberAttemptsCountsOnlyAfterAFailure(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	dl := func(id, event, status string, at time.Duration, attempt int) Execution {
		return Execution{ID: id, Type: TypeTriggerMessage, Status: status, Timestamp: t0.Add(at), Delivery: &Delivery{EventID: event, Attempt: attempt}}
	}
	for _, tc := range []struct {
		name string
		recs []Execution
		want []int
	}{
		{"a failure, then its redelivery", []Execution{dl("a", "e", StatusFailed, 0, 0), dl("b", "e", StatusSuccess, time.Minute, 0)}, []int{1, 2}},
		{"two failures, then a success", []Execution{dl("a", "e", StatusFailed, 0, 0), dl("b", "e", StatusFailed, time.Minute, 0), dl("c", "e", StatusSuccess, 2*time.Minute, 0)}, []int{1, 2, 3}},
		{"a success, then another delivery: another endpoint", []Execution{dl("a", "e", StatusSuccess, 0, 0), dl("b", "e", StatusSuccess, 5*time.Millisecond, 0)}, []int{1, 1}},
		{"out of order in the list", []Execution{dl("b", "e", StatusSuccess, time.Minute, 0), dl("a", "e", StatusFailed, 0, 0)}, []int{2, 1}},
		{"two events", []Execution{dl("a", "e", StatusFailed, 0, 0), dl("b", "f", StatusSuccess, time.Minute, 0)}, []int{1, 1}},
		{"recorded attempts are kept", []Execution{dl("a", "e", StatusSuccess, 0, 3), dl("b", "e", StatusFailed, time.Minute, 0), dl("c", "e", StatusSuccess, 2*time.Minute, 0)}, []int{3, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NumberAttempts(tc.recs)
			for i, e := range tc.recs {
				if e.Delivery.Attempt != tc.want[i] {
					t.Errorf("%s: attempt %d, want %d", e.ID, e.Delivery.Attempt, tc.want[i])
				}
			}
		})
	}
}
