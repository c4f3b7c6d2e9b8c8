package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// This file owns the HTTP exchange: building a request, one attempt, and the read retry loop
// with its decision and backoff. Reads call do; the write path calls try once and classifies
// the attempt itself (write.go), so nothing else in the package decides to send twice.

// transport is a config plus the HTTP client it drives. Client and WriteClient each own one.
type transport struct {
	cfg  config
	hc   *http.Client
	gate *rateGate // the reads' view of the rate limit; nil for the write client
}

// request is one API call. It is immutable, so every attempt sends the same bytes.
type request struct {
	method    string
	path      string // below apiPrefix, already escaped
	query     url.Values
	body      []byte // JSON; nil for none
	requestID string // sent as x-request-id when set
	// toolRead marks the run of a read tool (a provider check), which a read-only client
	// lets through when told to (WithReadOnly); every other tool run it refuses.
	toolRead bool
	// maxBytes bounds this answer below the client's limit (0: the client's): a page of a
	// known number of records is refused when it is larger than they can be.
	maxBytes int64
}

func (r request) String() string { return r.method + " " + apiPrefix + r.path }

// response is a fully read answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) ok() bool { return r.status >= 200 && r.status <= 299 }

// attempt is what one try produced: a response (status and headers known), an error, or both
// when the body could not be read after the headers arrived.
type attempt struct {
	resp *response
	err  error
	// wrote is true when net/http reported the whole request written (httptrace WroteRequest
	// without error). False with an error means the request never fully left: a server cannot
	// have acted on it. True errs on the safe side: net/http reports it just before the final
	// flush to the socket, so a request whose flush then fails still counts as sent.
	wrote bool
	// timedOut is true when this attempt's own deadline fired (not the caller's context).
	timedOut bool
	// permanent marks errors no retry can fix (a request that cannot be built, a body over
	// the size limit).
	permanent bool
}

// ErrBodyTooLarge is wrapped by the error for a response over the size limit
// (WithMaxResponseBytes).
var ErrBodyTooLarge = errors.New("response body too large")

// try makes exactly one attempt with its own deadline. n is the retry number sent as
// x-stainless-retry-count.
func (t *transport) try(ctx context.Context, r request, n int, timeout time.Duration) attempt {
	if t.cfg.readOnly && strings.HasPrefix(r.path, "/tools/execute/") && !(r.toolRead && t.cfg.toolReads) {
		return attempt{err: fmt.Errorf("%s: %w", r, ErrReadOnly), permanent: true}
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var wrote atomic.Bool // set from net/http's write goroutine
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				wrote.Store(true)
			}
		},
	})
	req, err := t.newRequest(actx, r, n)
	if err != nil {
		return attempt{err: err, permanent: true}
	}
	var a attempt
	res, err := t.hc.Do(req)
	if f := t.cfg.onRequest; f != nil {
		status := 0
		if err == nil {
			status = res.StatusCode
		}
		f(status)
	}
	if err != nil {
		a.err = err
	} else {
		a.resp = &response{status: res.StatusCode, header: res.Header}
		limit := t.cfg.maxResponseBytes
		if r.maxBytes > 0 {
			limit = min(limit, r.maxBytes)
		}
		a.resp.body, a.err = readLimited(res, limit)
		res.Body.Close()
		a.permanent = errors.Is(a.err, ErrBodyTooLarge)
	}
	// net/http waits for its write goroutine before returning a transport error, so the flag
	// is final here whenever it matters (no response).
	a.wrote = wrote.Load()
	a.timedOut = a.err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded)
	return a
}

func (t *transport) newRequest(ctx context.Context, r request, n int) (*http.Request, error) {
	u := t.cfg.baseURL + apiPrefix + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("%s: building request: %w", r, err)
	}
	h := req.Header
	if t.cfg.userKey {
		h.Set("x-user-api-key", t.cfg.apiKey())
		if t.cfg.orgID != "" {
			h.Set("x-org-id", t.cfg.orgID)
		}
		if t.cfg.projectID != "" {
			h.Set("x-project-id", t.cfg.projectID)
		}
	} else {
		h.Set("x-api-key", t.cfg.apiKey())
	}
	h.Set("Accept", "application/json")
	h.Set("x-stainless-retry-count", strconv.Itoa(n))
	if t.cfg.userAgent != "" {
		h.Set("User-Agent", t.cfg.userAgent)
	}
	if r.body != nil {
		h.Set("Content-Type", "application/json")
	}
	if r.requestID != "" {
		h.Set("x-request-id", r.requestID)
	}
	return req, nil
}

// readLimited reads a response body, refusing one larger than limit bytes.
func readLimited(res *http.Response, limit int64) ([]byte, error) {
	if res.ContentLength > limit {
		return nil, fmt.Errorf("%w: %d bytes announced, limit %d", ErrBodyTooLarge, res.ContentLength, limit)
	}
	// Read at most one byte past the limit, into a buffer of the announced size when there is
	// one (ReadAll's doubling would hold up to twice the body).
	buf := bytes.NewBuffer(make([]byte, 0, min(max(res.ContentLength, 0), limit)+bytes.MinRead+1))
	_, err := buf.ReadFrom(io.LimitReader(res.Body, limit+1))
	b := buf.Bytes()
	if err != nil {
		return b, fmt.Errorf("reading response body: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than the %d-byte limit", ErrBodyTooLarge, limit)
	}
	return b, nil
}

// do sends a read and retries it the way the Stainless SDKs do. It returns the 2xx response,
// an *APIError for any other answer, or the transport error of the last attempt.
func (t *transport) do(ctx context.Context, r request) (*response, error) {
	rateWaits := 0
	var edgeWaited time.Duration
	var epoch uint64 // the rate gate's, when this read's latest attempt was let through
	for n := 0; ; n++ {
		if t.gate != nil {
			p, err := t.gate.before(ctx, t.cfg.rateNotice)
			if err != nil {
				return nil, fmt.Errorf("%s: waiting for the rate limit: %w", r, err)
			}
			edgeWaited += p.blocked
			epoch = p.epoch
		}
		a := t.try(ctx, r, n, t.cfg.readTimeout)
		var h http.Header
		if a.resp != nil {
			h = a.resp.header
			if t.gate != nil {
				t.gate.observe(h, time.Now())
			}
		}
		if t.gate != nil {
			t.gate.done()
		}
		if a.err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", r, ctx.Err())
		}
		// A 429 of the rate limit (it says where the budget stands, X-RateLimit-Remaining) that
		// says how long to wait is waited out as often as the server asks (up to maxRateWaits):
		// it is the budget of a window, not a fault, and does not use a retry. Any other 429 is
		// retried as the SDKs do.
		if a.resp != nil && a.resp.status == http.StatusTooManyRequests && h.Get("X-RateLimit-Remaining") != "" &&
			rateWaits < maxRateWaits {
			if d, ok := retryAfter(h, time.Now()); ok && d > 0 && d <= maxRetryAfter {
				rateWaits++
				n--
				if t.cfg.rateNotice != nil {
					t.cfg.rateNotice(RateWait{Wait: d, Limit: atoi(h.Get("X-RateLimit")), Refused: true})
				}
				if err := sleep(ctx, d); err != nil {
					return nil, fmt.Errorf("%s: waiting %v for the rate limit: %w", r, d.Round(time.Millisecond), err)
				}
				continue
			}
		}
		// A 429 that says nothing of when to come back (the edge's): wait the block out, within
		// edgeTotal, without using a retry (ratelimit.go). Only a client that retries sends a
		// request again: the no-retry transport (writes, and reads run once) has no gate.
		if t.gate != nil && t.cfg.maxRetries > 0 && a.resp != nil {
			hit := edgeBlock(a.resp.status, h, time.Now())
			wait := t.gate.edge(hit, epoch, time.Now(), t.cfg.edgeFirst, rand.Float64())
			if hit && edgeWaited >= t.cfg.edgeTotal {
				return t.finish(r, a, n+1) // no retries into a block that outlasted the wait
			}
			if hit {
				d := min(wait, t.cfg.edgeTotal-edgeWaited)
				edgeWaited += d
				n--
				if t.cfg.rateNotice != nil {
					t.cfg.rateNotice(RateWait{Wait: d, Refused: true})
				}
				if err := sleep(ctx, d); err != nil {
					return nil, fmt.Errorf("%s: waiting %v for the API's rate limit (HTTP 429): %w", r, d.Round(time.Millisecond), err)
				}
				continue
			}
		}
		if n >= t.cfg.maxRetries || !shouldRetry(a) {
			return t.finish(r, a, n+1)
		}
		d := retryDelay(h, n, t.cfg.backoffInitial, t.cfg.backoffMax, time.Now(), rand.Float64())
		if err := sleep(ctx, d); err != nil {
			return nil, fmt.Errorf("%s: waiting %v to retry: %w", r, d.Round(time.Millisecond), err)
		}
	}
}

// atoi is a header's number, 0 when it holds none.
func atoi(v string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(v))
	return n
}

// finish turns the last attempt of a read into the result.
func (t *transport) finish(r request, a attempt, attempts int) (*response, error) {
	if a.resp != nil && !a.resp.ok() {
		return nil, t.apiError(a.resp, a.err)
	}
	if a.err == nil {
		return a.resp, nil
	}
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" (%d attempts)", attempts)
	}
	if a.timedOut {
		return nil, t.redact(fmt.Errorf("%s%s: no answer within %v: %w", r, tries, t.cfg.readTimeout, a.err))
	}
	return nil, t.redact(fmt.Errorf("%s%s: %w", r, tries, a.err))
}

// shouldRetry is the SDK rule: connection errors and timeouts, HTTP 408, 409, 429 and 5xx; an
// x-should-retry header wins over the status.
func shouldRetry(a attempt) bool {
	if a.permanent {
		return false
	}
	if a.resp == nil || a.err != nil {
		return a.err != nil // no answer, or the connection broke while reading it
	}
	switch strings.ToLower(strings.TrimSpace(a.resp.header.Get("x-should-retry"))) {
	case "true":
		return true
	case "false":
		return false
	}
	s := a.resp.status
	return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
}

// maxRetryAfter is the longest server-requested delay honoured; longer ones fall back to the
// computed backoff, as in the SDKs.
const maxRetryAfter = 60 * time.Second

// retryDelay is the wait before retry number n+1 (n counts retries already made): the
// server's retry-after-ms, else retry-after (seconds or an HTTP date), when 0 < d <= 60 s;
// otherwise min(initial*2^n, max) times a jitter in [0.75, 1] drawn from r in [0, 1).
func retryDelay(h http.Header, n int, initial, max time.Duration, now time.Time, r float64) time.Duration {
	if d, ok := retryAfter(h, now); ok && d > 0 && d <= maxRetryAfter {
		return d
	}
	backoff := math.Min(float64(initial)*math.Pow(2, float64(min(n, 1000))), float64(max))
	return time.Duration(backoff * (1 - 0.25*r))
}

// retryAfter reads the server's requested delay, if any.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(ms) && !math.IsInf(ms, 0) {
			if ms > float64(maxRetryAfter/time.Millisecond) {
				return maxRetryAfter + 1, true // out of range: avoid overflowing a Duration
			}
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(s) && !math.IsInf(s, 0) {
		if s > maxRetryAfter.Seconds() {
			return maxRetryAfter + 1, true // out of range: avoid overflowing a Duration
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return at.Sub(now), true
	}
	return 0, false
}

// sleep waits d or until ctx is done, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
