package phrase

import (
	"fmt"
	"time"
)

// RateWait says what a session waits for when the API's rate limit holds its reads back, for a
// progress line: the wait, and the window's budget (limit, 0 when the API did not say) and
// whether the API answered 429 (refused) or the session held back before it would have.
func RateWait(wait time.Duration, limit int, refused bool) string {
	s := fmt.Sprintf("waiting %s for the API's rate limit", wait.Round(time.Second))
	if limit > 0 {
		s += fmt.Sprintf(" (%d requests a window", limit)
		if refused {
			s += ", answered 429"
		}
		s += ")"
	}
	return s
}

// RateWaitForms says the wait in words, longest first, for a line that may be narrow: RateWait,
// then without the budget, then "rate limit: 12s".
func RateWaitForms(wait time.Duration, limit int, refused bool) []string {
	w := wait.Round(time.Second)
	return []string{RateWait(wait, limit, refused), fmt.Sprintf("waiting %s for the API's rate limit", w), fmt.Sprintf("rate limit: %s", w)}
}
