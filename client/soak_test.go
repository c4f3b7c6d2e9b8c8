package client_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/sandbox"
)

// Load: the in-process sandbox on loopback and one shared client under many
// concurrent readers (logs pages with filters and paging, log details, tool definitions) for a
// bounded time. Retries are off, so a failed attempt cannot hide behind a successful retry;
// every HTTP attempt is counted at the transport. Zero errors are required, and no goroutine
// may outlive the run once the sandbox is closed and idle connections are dropped.

// TestSoak is the long run behind `make soak`: 200 readers for EXECTRIAGE_SOAK_DURATION
// (default 60s).
func TestSoak(t *testing.T) {
	if os.Getenv("EXECTRIAGE_SOAK") != "1" {
		t.Skip("load test: run it with `make soak` (EXECTRIAGE_SOAK=1; EXECTRIAGE_SOAK_DURATION shortens it, default 60s)")
	}
	d := 60 * time.Second
	if v := os.Getenv("EXECTRIAGE_SOAK_DURATION"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d <= 0 {
			t.Fatalf("EXECTRIAGE_SOAK_DURATION=%q: want a positive duration such as 30s", v)
		}
	}
	runLoad(t, 200, d)
}

// TestShortLoad is the same path, briefly, so `make test` exercises it.
func TestShortLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped under -short")
	}
	runLoad(t, 50, 2*time.Second)
}

// countingTransport counts every HTTP attempt and every failed one (transport error or non-2xx).
type countingTransport struct {
	next             http.RoundTripper
	attempts, failed atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.attempts.Add(1)
	res, err := c.next.RoundTrip(r)
	if err != nil || res.StatusCode < 200 || res.StatusCode > 299 {
		c.failed.Add(1)
	}
	return res, err
}

// readerStats is one reader's tally; merged after the run.
type readerStats struct {
	lat    []time.Duration // per client call
	byOp   [3]int
	errs   int
	sample []string // the first few error messages
}

func (s *readerStats) fail(format string, args ...any) {
	s.errs++
	if len(s.sample) < 3 {
		s.sample = append(s.sample, fmt.Sprintf(format, args...))
	}
}

const loadKey = "sk_live_loadTestK3y_do_not_print"

func runLoad(t *testing.T, readers int, d time.Duration) {
	leaks := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: loadKey, Seed: 11, Size: 5000,
		Now: time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			srv.Close()
		}
	}()

	// What the readers ask for, drawn from the sandbox's own history.
	execs := srv.Executions()
	if len(execs) < 100 {
		t.Fatalf("the sandbox history has %d executions", len(execs))
	}
	var ids, users []string
	slugSet := map[string]bool{}
	for i, e := range execs {
		if i%7 == 0 {
			ids = append(ids, e.ID)
		}
		if e.UserID != "" && len(users) < 50 && !slices.Contains(users, e.UserID) {
			users = append(users, e.UserID)
		}
		slugSet[e.ToolSlug] = true
	}
	var slugs []string
	for s := range slugSet {
		slugs = append(slugs, s)
	}
	slices.Sort(slugs)
	from, to := execs[len(execs)-1].Timestamp, execs[0].Timestamp

	tr := newTransport()
	tr.MaxIdleConns = 2 * readers
	tr.MaxIdleConnsPerHost = 2 * readers // else most connections close after each request
	ct := &countingTransport{next: tr}
	c, err := client.New(client.WithAPIKey(loadKey), client.WithBaseURL(base), client.WithHTTPClient(&http.Client{Transport: ct}),
		client.WithMaxRetries(0), client.WithReadTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}

	filters := func(r *rand.Rand) client.LogQuery {
		q := client.LogQuery{Limit: 10 + r.IntN(41)}
		switch r.IntN(6) {
		case 0:
			q.Filters = []client.LogFilter{{Field: "tool_slug", Value: slugs[r.IntN(len(slugs))]}}
		case 1:
			q.Filters = []client.LogFilter{{Field: "toolkit_slug", Value: "gmail"}, {Field: "status", Value: "failed"}}
		case 2:
			q.Filters = []client.LogFilter{{Field: "user_id", Value: users[r.IntN(len(users))]}}
		case 3:
			q.Filters = []client.LogFilter{{Field: "tool_slug", Operator: "contains", Value: "SEND"}, {Field: "status", Operator: "!=", Value: "success"}}
		case 4:
			span := to.Sub(from)
			q.From = from.Add(time.Duration(r.Int64N(int64(span))))
			q.To = q.From.Add(span / 10)
		}
		return q
	}

	deadline := time.Now().Add(d)
	stats := make([]readerStats, readers)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range readers {
		wg.Go(func() {
			st := &stats[i]
			r := rand.New(rand.NewPCG(11, uint64(i)))
			timed := func(op int, f func() error) {
				t0 := time.Now()
				err := f()
				st.lat = append(st.lat, time.Since(t0))
				st.byOp[op]++
				if err != nil {
					st.fail("%v", err)
				}
			}
			for time.Now().Before(deadline) {
				switch n := r.IntN(10); {
				case n < 4: // a query and up to three of its pages
					q, cursor := filters(r), ""
					for range 1 + r.IntN(3) {
						var next string
						timed(0, func() error {
							p, err := c.ListLogsPage(ctx, q, cursor)
							if err != nil {
								return err
							}
							if len(p.Bad) > 0 {
								return fmt.Errorf("list logs: %d records could not be parsed: %v", len(p.Bad), p.Bad[0].Err)
							}
							if len(p.Executions) > q.Limit {
								return fmt.Errorf("list logs: %d records on a page of %d", len(p.Executions), q.Limit)
							}
							next = p.NextCursor
							return nil
						})
						if next == "" {
							break
						}
						cursor = next
					}
				case n < 7:
					id := ids[r.IntN(len(ids))]
					timed(1, func() error {
						e, err := c.GetLog(ctx, id)
						if err == nil && e.ID != id {
							err = fmt.Errorf("get log %s: got %s", id, e.ID)
						}
						return err
					})
				default:
					slug := slugs[r.IntN(len(slugs))]
					timed(2, func() error {
						tool, err := c.GetTool(ctx, slug)
						if err == nil && !strings.EqualFold(tool.Slug, slug) {
							err = fmt.Errorf("get tool %s: got %s", slug, tool.Slug)
						}
						return err
					})
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	cancel()
	if err := srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("closing the sandbox: %v", err)
	}
	closed = true
	tr.CloseIdleConnections()

	var all []time.Duration
	var byOp [3]int
	errs := 0
	var sample []string
	for _, st := range stats {
		all = append(all, st.lat...)
		for k := range byOp {
			byOp[k] += st.byOp[k]
		}
		errs += st.errs
		if len(sample) < 5 {
			sample = append(sample, st.sample...)
		}
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(p*float64(len(all))))]
	}
	attempts := ct.attempts.Load()
	t.Logf("load: %d readers for %v on loopback: %d calls (%d logs pages, %d log details, %d tools), %d HTTP requests, %.0f requests/s; "+
		"latency p50 %v, p99 %v, max %v; %d errors, %d failed HTTP attempts",
		readers, elapsed.Round(time.Millisecond), len(all), byOp[0], byOp[1], byOp[2], attempts, float64(attempts)/elapsed.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond), errs, ct.failed.Load())
	if len(all) == 0 || byOp[0] == 0 || byOp[1] == 0 || byOp[2] == 0 {
		t.Errorf("the load did not exercise every operation: %v", byOp)
	}
	if errs > 0 || ct.failed.Load() > 0 {
		t.Errorf("%d errors, %d failed HTTP attempts under load; first: %s", errs, ct.failed.Load(), strings.Join(sample, " | "))
	}
	if int64(len(all)) != attempts {
		t.Errorf("%d calls made %d HTTP requests: with retries off they must match", len(all), attempts)
	}
	goleak.VerifyNone(t, leaks)
}
