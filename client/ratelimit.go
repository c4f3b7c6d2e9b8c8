package client

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Composio limits requests per organisation in a fixed window (a minute), and says on every
// answer where the budget stands: X-RateLimit (the window's budget), X-RateLimit-Remaining and
// X-RateLimit-Window-Size; past it the answer is 429 with Retry-After. A read holds back
// before it would be refused: when an answer says nothing remains, the next reads wait for the
// window to turn (its end estimated from when the budget was last seen refilled) instead of
// spending a 429 each; a 429 that comes anyway is waited out as Retry-After says, as often as
// the server asks, without counting against the retries. Every wait is told to the notice
// (WithRateNotice), so a long load says what it waits for instead of seeming to hang.

// RateWait is one wait for the API's rate limit.
type RateWait struct {
	Wait  time.Duration
	Limit int // the window's budget (X-RateLimit), 0 when the server did not say
	// Refused is true for a wait the server asked for with a 429, false for one the client
	// took before the budget ran out.
	Refused bool
}

// WithRateNotice calls f before each wait for the API's rate limit (from the goroutine that
// waits: f must not block).
func WithRateNotice(f func(RateWait)) Option {
	return func(c *config) error {
		c.rateNotice = f
		return nil
	}
}

// maxRateWaits bounds the 429s one read waits out.
const maxRateWaits = 20

// rateGate is what the reads of one client know of the rate limit.
type rateGate struct {
	mu        sync.Mutex
	limit     int
	remaining int       // -1: unknown
	inflight  int       // reads sent and not answered yet: each may spend the last of the budget
	spentAt   time.Time // when the budget was first seen spent (zero: it is not)
	window    time.Duration
	windowEnd time.Time // estimated
}

func newRateGate() *rateGate { return &rateGate{remaining: -1} }

// observe reads an answer's rate-limit headers at now.
func (g *rateGate) observe(h http.Header, now time.Time) {
	rem, err := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Remaining")))
	if err != nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if l, err := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit"))); err == nil {
		g.limit = l
	}
	if w := parseWindow(h.Get("X-RateLimit-Window-Size")); w > 0 {
		g.window = w
	}
	if g.window <= 0 {
		g.window = time.Minute
	}
	// The first answer of a window (the first of all, or one after the estimated end): a window
	// starts about now (the estimate is pessimistic: the server's began before, so a wait is
	// never too short). Within a window the budget only shrinks: reads sent at once come back
	// in any order, an earlier one saying more was left.
	switch {
	case g.remaining < 0 || now.After(g.windowEnd):
		g.windowEnd = now.Add(g.window)
		g.remaining = rem
	case rem < g.remaining:
		g.remaining = rem
	}
}

// parseWindow reads "60s", "60" or "1m".
func parseWindow(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second
	}
	return 0
}

// before holds a read back while the budget is spent, counting the reads in flight as spent
// (several goroutines read at once: a load's time slices and its detail requests), until the
// window turns; then it counts the read as in flight until done.
func (g *rateGate) before(ctx context.Context, notice func(RateWait)) error {
	for {
		g.mu.Lock()
		now := time.Now()
		wait := time.Duration(0)
		switch {
		case g.remaining >= 0 && g.remaining-g.inflight <= 0:
			// Spent: wait a whole window from the moment it was (the server's windows need not
			// be where the estimate puts them: a window that turned unseen and was spent too
			// would refuse a read sent at the estimate's end), and at least to the estimate.
			if g.spentAt.IsZero() {
				g.spentAt = now
			}
			end := g.spentAt.Add(g.window)
			if g.windowEnd.After(end) {
				end = g.windowEnd
			}
			if wait = end.Sub(now) + 50*time.Millisecond; wait <= 0 {
				g.remaining, g.spentAt = -1, time.Time{} // waited: a new window, not yet heard from
			}
		case g.remaining >= 0 && now.After(g.windowEnd):
			g.remaining, g.spentAt = -1, time.Time{} // a new window: the next answer says where it stands
		case g.remaining < 0 && g.limit > 0 && g.inflight >= g.limit:
			// a new window, not yet heard from: no more at once than a whole window allows
			wait = 20 * time.Millisecond
		default:
			g.spentAt = time.Time{}
		}
		if wait <= 0 {
			g.inflight++
			g.mu.Unlock()
			return nil
		}
		limit := g.limit
		g.mu.Unlock()
		if notice != nil && wait > 20*time.Millisecond {
			notice(RateWait{Wait: wait, Limit: limit})
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// done says a read before let through was answered (or failed).
func (g *rateGate) done() {
	g.mu.Lock()
	if g.inflight > 0 {
		g.inflight--
	}
	g.mu.Unlock()
}
