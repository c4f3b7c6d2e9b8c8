package sandbox

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Rate limits, as Composio applies them (composio-api.md, round 3): per organisation, in a
// fixed window (a minute), every API request counted; every answer says where the budget
// stands (X-RateLimit, X-RateLimit-Remaining, X-RateLimit-Window-Size), and a request past it
// is answered 429 with Retry-After, the seconds until the window turns. The sandbox is one
// organisation. Config.RateLimit turns it on; RateLimitWindow shortens the window for tests.

// rateLimiter counts the requests of the current window.
type rateLimiter struct {
	limit  int
	window time.Duration

	mu    sync.Mutex
	start time.Time // the current window's start
	used  int
	// Refused counts the requests answered 429.
	refused int
}

func newRateLimiter(limit int, window time.Duration) *rateLimiter {
	if limit <= 0 {
		return nil
	}
	if window <= 0 {
		window = time.Minute
	}
	return &rateLimiter{limit: limit, window: window}
}

// take counts one request at now: the requests left after it, and how long until the window
// turns; ok is false when the budget was spent already.
func (l *rateLimiter) take(now time.Time) (left int, reset time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if start := now.Truncate(l.window); !start.Equal(l.start) {
		l.start, l.used = start, 0
	}
	reset = l.start.Add(l.window).Sub(now)
	if l.used >= l.limit {
		l.refused++
		return 0, reset, false
	}
	l.used++
	return l.limit - l.used, reset, true
}

// limit wraps the API's handler: headers on every answer, 429 past the budget.
func (s *Server) limit(next http.Handler) http.Handler {
	l := s.rate
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		left, reset, ok := l.take(time.Now())
		h := w.Header()
		h.Set("X-RateLimit", strconv.Itoa(l.limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
		h.Set("X-RateLimit-Window-Size", strconv.FormatInt(int64(l.window/time.Second), 10)+"s")
		if !ok {
			secs := int64((reset + time.Second - 1) / time.Second)
			h.Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
			s.writeError(w, r, http.StatusTooManyRequests, 1429, "RateLimit_Exceeded",
				"Rate limit exceeded: "+strconv.Itoa(l.limit)+" requests per "+l.window.String()+" for this organisation",
				"Wait for Retry-After seconds, and spread requests over the window.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RateLimited is how many requests the sandbox answered 429 for its rate limit.
func (s *Server) RateLimited() int {
	if s.rate == nil {
		return 0
	}
	s.rate.mu.Lock()
	defer s.rate.mu.Unlock()
	return s.rate.refused
}
