package client

import (
	"context"
	"fmt"
	"math"
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

// Composio's edge also answers 429 on its own, {"code":10429,"slug":"HTTP_TooManyRequests"},
// with no rate-limit headers and no Retry-After, and keeps refusing for a block of 15-30 s
// (docs/platform.md, "Rate limits"). A read that meets a 429 that says nothing of when to come back
// waits the block out instead of spending its retries in a second and a half: waits that
// double from DefaultEdgeFirstWait, capped at maxEdgeWait each, jittered, DefaultEdgeTotalWait
// in all, each told to the notice; while one read waits, the others hold back too (the
// block is the organisation's). A write never re-sends on any 429: its client has no retries.
const (
	DefaultEdgeFirstWait = time.Second
	DefaultEdgeTotalWait = 2 * time.Minute
	maxEdgeWait          = 30 * time.Second
)

// WithEdgeWait sets the first wait for a 429 that says nothing of when to come back and the
// most a read waits for such 429s in all (tests shorten them).
func WithEdgeWait(first, total time.Duration) Option {
	return func(c *config) error {
		if first <= 0 || total < first {
			return fmt.Errorf("edge wait: first %v, total %v: want 0 < first <= total", first, total)
		}
		c.edgeFirst, c.edgeTotal = first, total
		return nil
	}
}

// edgeBlock reports whether an answer is a 429 that says nothing of when to come back: no
// budget header and no usable Retry-After (and no x-should-retry: false, which wins).
func edgeBlock(status int, h http.Header, now time.Time) bool {
	if status != http.StatusTooManyRequests || h.Get("X-RateLimit-Remaining") != "" ||
		strings.EqualFold(strings.TrimSpace(h.Get("x-should-retry")), "false") {
		return false
	}
	d, ok := retryAfter(h, now)
	return !ok || d <= 0 || d > maxRetryAfter
}

// edgeDelay is the wait after the k-th (from 0) 429 of a block: first·2^k, capped at
// maxEdgeWait, times a jitter in [0.75, 1] drawn from r in [0, 1).
func edgeDelay(k int, first time.Duration, r float64) time.Duration {
	d := min(float64(first)*math.Pow(2, float64(min(k, 30))), float64(maxEdgeWait))
	return time.Duration(d * (1 - 0.25*r))
}

// rateGate is what the reads of one client know of the rate limit.
type rateGate struct {
	mu        sync.Mutex
	heard     bool // an answer came: before one, at most firstReads are sent at once
	limit     int
	remaining int       // -1: unknown
	inflight  int       // reads sent and not answered yet: each may spend the last of the budget
	spentAt   time.Time // when the budget was first seen spent (zero: it is not)
	window    time.Duration
	windowEnd time.Time // estimated
	// An edge block (edge): every read waits until blocked; then one read at a time is let
	// through (probing) until one is answered otherwise. The waits double with the 429s met in
	// a row (streak), whichever read met them.
	blocked time.Time
	streak  int
	probing bool
	epoch   uint64 // counts the blocks set: a 429 of a read sent before the last one is no news
}

// pass is what before tells a read it let through.
type pass struct {
	blocked time.Duration // how long it waited for edge blocks
	epoch   uint64        // the gate's epoch when it was let through
}

// edge is told how the answer to a read let through at epoch came back at now: a 429 of the
// edge (hit) or anything else. For a hit it returns how long the block is now waited. Only a
// read sent under the latest block doubles it (first·2^streak, jittered by r): reads sent
// together before anyone knew of a block all meet it, and are one hit, not many.
func (g *rateGate) edge(hit bool, epoch uint64, now time.Time, first time.Duration, r float64) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.probing = false
	if !hit {
		g.streak = 0
		return 0
	}
	if epoch == g.epoch {
		g.blocked = now.Add(edgeDelay(g.streak, first, r))
		g.streak++
		g.epoch++
	}
	return max(g.blocked.Sub(now), 0)
}

func newRateGate() *rateGate { return &rateGate{remaining: -1} }

// firstReads is how many reads go at once before the API has answered one: its first answers
// say where the budget stands (X-RateLimit-*), and until then the client knows nothing of it.
// Two, so that a load's first requests (its trigger deliveries and its newest page) go together
// and no more are spent blind.
const firstReads = 2

// observe reads an answer's rate-limit headers at now.
func (g *rateGate) observe(h http.Header, now time.Time) {
	g.mu.Lock()
	g.heard = true
	g.mu.Unlock()
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
// window turns, and while an edge block lasts; then it counts the read as in flight until
// done. It returns how long it waited for edge blocks (a read's share of them is bounded).
func (g *rateGate) before(ctx context.Context, notice func(RateWait)) (p pass, err error) {
	for {
		g.mu.Lock()
		now := time.Now()
		wait := time.Duration(0)
		refused := false
		switch {
		case now.Before(g.blocked):
			wait, refused = g.blocked.Sub(now), true
		case g.streak > 0 && g.probing:
			wait = 20 * time.Millisecond // another read is seeing whether the block has passed
		case !g.heard && g.inflight >= firstReads:
			wait = 20 * time.Millisecond // the first answers say what the budget is
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
			g.probing = g.streak > 0
			p.epoch = g.epoch
			g.mu.Unlock()
			return p, nil
		}
		limit := g.limit
		g.mu.Unlock()
		if notice != nil && wait > 20*time.Millisecond {
			notice(RateWait{Wait: wait, Limit: limit, Refused: refused})
		}
		if err := sleep(ctx, wait); err != nil {
			return p, err
		}
		if refused {
			p.blocked += wait
		}
	}
}

// Budget is where the reads' rate-limit budget stands, as the API's last answers said.
type Budget struct {
	Known bool // the API said (X-RateLimit-Remaining); the rest is zero otherwise
	Limit int  // the window's budget, 0 when not said
	// Left is what the window has left for reads not yet sent: the budget the last answer
	// said remained, less the reads in flight (each may spend one); the whole budget, less
	// those, once the window has turned.
	Left int
}

// Budget says where the reads' rate-limit budget stands now: a caller with many reads to make
// (a load's details) sends as many at once as it leaves room for.
func (c *Client) Budget() Budget {
	g := c.t.gate
	if g == nil {
		return Budget{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.remaining >= 0 && !time.Now().After(g.windowEnd):
		return Budget{Known: true, Limit: g.limit, Left: max(g.remaining-g.inflight, 0)}
	case g.limit > 0: // a new window, not yet heard from
		return Budget{Known: true, Limit: g.limit, Left: max(g.limit-g.inflight, 0)}
	}
	return Budget{}
}

// done says a read before let through was answered (or failed).
func (g *rateGate) done() {
	g.mu.Lock()
	if g.inflight > 0 {
		g.inflight--
	}
	g.probing = false
	g.mu.Unlock()
}
