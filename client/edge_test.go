package client

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// edgeBody is what Composio's edge answers past its limit: no rate-limit headers, no
// Retry-After (docs/platform.md, "Rate limits").
const edgeBody = `{"code":10429,"slug":"HTTP_TooManyRequests"}`

// A read that meets the edge's header-less 429 waits the block out (told to the notice, as a
// refused wait) instead of giving up after two quick retries; reads sent meanwhile hold back
// rather than each spending 429s; the retries stay unused (retry count 0 on every attempt).
func TestAnEdgeBlockIsWaitedOut(t *testing.T) {
	const block = 400 * time.Millisecond
	var start time.Time
	var once sync.Once
	var refused atomic.Int32
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		once.Do(func() { start = time.Now() })
		if time.Since(start) < block {
			refused.Add(1)
			writeJSON(w, 429, edgeBody)
			return
		}
		writeJSON(w, 200, `{"id":"log_1","timestamp":"2026-12-01T10:00:00Z","type":"tool.execution","status":"success","level":"info","metadata":{},"metrics":{},"parent":null}`)
	})
	var mu sync.Mutex
	var waits []RateWait
	c := newTestClient(t, srv.URL, WithEdgeWait(50*time.Millisecond, 5*time.Second),
		WithRateNotice(func(w RateWait) { mu.Lock(); waits = append(waits, w); mu.Unlock() }))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			if i > 0 {
				time.Sleep(120 * time.Millisecond) // sent while the first waits
			}
			_, errs[i] = c.GetLog(t.Context(), "log_1")
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("read %d: %v, want it to wait the block out", i, err)
		}
	}
	if got := strings.Join(retryCounts(rc), ","); strings.Trim(got, "0,") != "" {
		t.Errorf("retry counts %s: an edge wait spent a retry", got)
	}
	// the first read's waits double from 50 ms: 50, 100, 200 (+ jitter) cover the block in
	// about 4 requests; the three later reads hold back behind the block
	if n := refused.Load(); n > 7 {
		t.Errorf("%d requests refused during a block of %v, want the reads to hold back", n, block)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) == 0 || !waits[0].Refused {
		t.Errorf("notices %+v, want refused waits told", waits)
	}
}

// A block that never ends is waited for no longer than the bound, and the read then fails
// with the 429; a 429 the server says not to retry is not waited for.
func TestAnEdgeBlockIsWaitedForABoundedTime(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		writeJSON(w, 429, edgeBody)
	})
	c := newTestClient(t, srv.URL, WithEdgeWait(20*time.Millisecond, 300*time.Millisecond))
	began := time.Now()
	_, err := c.GetLog(t.Context(), "log_1")
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("err = %v, want the 429", err)
	}
	if took < 300*time.Millisecond || took > time.Second {
		t.Errorf("gave up after %v, want the 300 ms bound", took)
	}
	if n := rc.count(); n > 12 {
		t.Errorf("%d requests in %v: the waits do not double", n, took)
	}

	stop, rc2 := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		w.Header().Set("x-should-retry", "false")
		writeJSON(w, 429, edgeBody)
	})
	c = newTestClient(t, stop.URL, WithEdgeWait(20*time.Millisecond, 300*time.Millisecond))
	if _, err := c.GetLog(t.Context(), "log_1"); err == nil || rc2.count() != 1 {
		t.Errorf("x-should-retry: false: %v after %d requests, want the error after 1", err, rc2.count())
	}
}

// A write that meets the edge's 429 is sent once and reported rejected: nothing re-sends it.
func TestAnEdgeBlockNeverResendsAWrite(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		writeJSON(w, 429, edgeBody)
	})
	c := newTestClient(t, srv.URL, WithEdgeWait(20*time.Millisecond, 300*time.Millisecond))
	_, err := c.WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("rid-edge"))
	if we := asWriteError(t, err); we.Kind != WriteRejected {
		t.Errorf("kind %s, want rejected", we.Kind)
	}
	if n := rc.count(); n != 1 {
		t.Errorf("the write was sent %d times, want once", n)
	}
}

// A read tool run once (a tool whose definition does not vouch that it only reads) goes
// through the no-retry transport: the edge's 429 is its answer, and nothing sends it again.
func TestAnEdgeBlockNeverResendsAToolRunOnce(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		writeJSON(w, 429, edgeBody)
	})
	c := newTestClient(t, srv.URL, WithEdgeWait(20*time.Millisecond, 300*time.Millisecond))
	if _, err := c.RunReadToolOnce(t.Context(), model.ToolCall{Slug: "GMAIL_FETCH_EMAILS", ConnectedAccountID: "ca_1"}); err == nil {
		t.Error("want the 429")
	}
	if n := rc.count(); n != 1 {
		t.Errorf("the tool was run %d times, want once", n)
	}
}

// The budget's window may be ten minutes (X-RateLimit-Window-Size: 600s, the API reference's):
// a spent budget holds reads back until that window turns, not a minute.
func TestATenMinuteWindowIsWaitedWhole(t *testing.T) {
	g := newRateGate()
	h := http.Header{}
	h.Set("X-RateLimit", "100000")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Window-Size", "600s")
	g.observe(h, time.Now())
	var told []RateWait
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.before(ctx, func(w RateWait) { told = append(told, w) }); err == nil {
		t.Fatal("a read went through a spent budget")
	}
	if len(told) != 1 || told[0].Wait < 599*time.Second || told[0].Wait > 601*time.Second || told[0].Limit != 100000 {
		t.Errorf("waits told %+v, want one of about 10 minutes", told)
	}
}

// A walk of the logs and their details through the sandbox's edge limit (a burst of 8 a
// second, then 300 ms blocked) reads every record: each block is waited out, none gives up.
func TestAWalkThroughTheSandboxsEdgeLimit(t *testing.T) {
	srv, base, err := sandbox.Start(t.Context(), sandbox.Config{APIKey: testKey, Seed: 4, Size: 120,
		EdgeLimit: 8, EdgeWindow: time.Second, EdgeBlock: 300 * time.Millisecond}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := newTestClient(t, base, WithEdgeWait(50*time.Millisecond, 10*time.Second))
	var ids []string
	for page, err := range c.ListLogs(t.Context(), LogQuery{Limit: 10, From: time.Now().Add(-30 * 24 * time.Hour)}) {
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		for _, e := range page.Executions {
			ids = append(ids, e.ID)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for _, id := range ids[:min(len(ids), 40)] {
		wg.Go(func() {
			if _, err := c.GetLog(t.Context(), id); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("detail: %v", err)
	}
	if len(ids) != srv.Stats().Logs {
		t.Errorf("listed %d records of %d", len(ids), srv.Stats().Logs)
	}
	if srv.EdgeRefused() == 0 {
		t.Error("the edge never refused: the test did not exercise it")
	}
}

// Budget says what the window has left for reads not yet sent: nothing known before an answer
// says it; the remaining budget less the reads in flight; the whole budget once the window has
// turned; never below zero.
func TestTheBudgetLeftCountsTheReadsInFlight(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:1")
	if b := c.Budget(); b.Known {
		t.Fatalf("a budget before any answer: %+v", b)
	}
	g := c.t.gate
	h := http.Header{}
	h.Set("X-RateLimit", "2000")
	h.Set("X-RateLimit-Remaining", "100")
	h.Set("X-RateLimit-Window-Size", "60s")
	g.observe(h, time.Now())
	if b := c.Budget(); !b.Known || b.Limit != 2000 || b.Left != 100 {
		t.Errorf("after an answer: %+v, want 100 of 2000 left", b)
	}
	for range 30 {
		if _, err := g.before(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if b := c.Budget(); b.Left != 70 {
		t.Errorf("with 30 reads in flight: %+v, want 70 left", b)
	}
	g.mu.Lock()
	g.windowEnd = time.Now().Add(-time.Second) // the window turned
	g.mu.Unlock()
	if b := c.Budget(); !b.Known || b.Left != 2000-30 {
		t.Errorf("a new window: %+v, want the whole budget less the reads in flight", b)
	}
	g.mu.Lock()
	g.windowEnd, g.remaining = time.Now().Add(time.Minute), 10
	g.mu.Unlock()
	if b := c.Budget(); b.Left != 0 {
		t.Errorf("fewer left than in flight: %+v, want 0", b)
	}
}

// TestBeforeAnAnswerFewReadsGoAtOnce: until the API has answered a read, the client knows
// nothing of its budget and sends at most firstReads at once; any answer (with budget headers or
// without: a server that sends none is not held back for ever) lets the rest go.
func TestBeforeAnAnswerFewReadsGoAtOnce(t *testing.T) {
	for _, headers := range []bool{true, false} {
		c := newTestClient(t, "http://127.0.0.1:1")
		g := c.t.gate
		for range firstReads {
			if _, err := g.before(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		if _, err := g.before(ctx, nil); err == nil {
			t.Fatalf("read %d went before any answer", firstReads+1)
		}
		cancel()
		h := http.Header{}
		if headers {
			h.Set("X-RateLimit", "2000")
			h.Set("X-RateLimit-Remaining", "1998")
		}
		g.observe(h, time.Now())
		g.done()
		for range 10 {
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			if _, err := g.before(ctx, nil); err != nil {
				t.Fatalf("headers %v: a read after the first answer waited: %v", headers, err)
			}
			cancel()
		}
	}
}
