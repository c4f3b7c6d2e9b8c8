package sandbox

import (
	"cmp"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Rate limits, as Composio applies them (docs/platform.md, "Rate limits"): per organisation, in a
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
			// the documented body is flat, not the error envelope (docs/platform.md, "Rate limits")
			writeJSON(w, http.StatusTooManyRequests, map[string]string{
				"message": "Rate limit exceeded. Limit: " + strconv.Itoa(l.limit) + " requests per " + windowText(l.window)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// windowText says a window as the platform does: "minute", "10 minutes", "30 seconds".
func windowText(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "minute"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " minutes"
	}
	return strconv.FormatInt(int64(max(d/time.Second, 1)), 10) + " seconds"
}

// Composio's edge limits bursts on its own, before the organisation's budget: past it, every
// request is answered 429 {"code":10429,"slug":"HTTP_TooManyRequests"} with no rate-limit
// headers and no Retry-After, for a block of 15-30 s (docs/platform.md, "Rate limits").
// Config.EdgeLimit turns it on: more than EdgeLimit requests within EdgeWindow start a block
// of EdgeBlock.

// Edge limit defaults.
const (
	DefaultEdgeWindow = time.Second
	DefaultEdgeBlock  = 20 * time.Second
)

// edgeLimiter counts the requests of the current edge window and keeps the block.
type edgeLimiter struct {
	limit         int
	window, block time.Duration

	mu      sync.Mutex
	start   time.Time // the current window's start
	used    int
	until   time.Time // the block's end (zero: none)
	refused int
}

func newEdgeLimiter(limit int, window, block time.Duration) *edgeLimiter {
	if limit <= 0 {
		return nil
	}
	return &edgeLimiter{limit: limit, window: cmp.Or(window, DefaultEdgeWindow), block: cmp.Or(block, DefaultEdgeBlock)}
}

// take counts one request at now; ok is false while a block lasts.
func (l *edgeLimiter) take(now time.Time) (ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.until) {
		l.refused++
		return false
	}
	if now.Sub(l.start) >= l.window {
		l.start, l.used = now, 0
	}
	if l.used++; l.used > l.limit {
		l.until, l.start, l.used = now.Add(l.block), time.Time{}, 0
		l.refused++
		return false
	}
	return true
}

// edge wraps the API's handler with the edge limit (outside the budget: a request the edge
// refuses never reaches the organisation's count).
func (s *Server) edge(next http.Handler) http.Handler {
	l := s.edgeLim
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !l.take(time.Now()) {
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"code": 10429, "slug": "HTTP_TooManyRequests"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// EdgeRefused is how many requests the sandbox's edge answered 429.
func (s *Server) EdgeRefused() int {
	if s.edgeLim == nil {
		return 0
	}
	s.edgeLim.mu.Lock()
	defer s.edgeLim.mu.Unlock()
	return s.edgeLim.refused
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
