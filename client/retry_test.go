package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func retryCounts(rc *recorder) []string {
	var out []string
	for _, r := range rc.all() {
		out = append(out, r.Header.Get("x-stainless-retry-count"))
	}
	return out
}

func TestReadSucceedsOnSecondAttemptAfter503(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		if n == 1 {
			writeJSON(w, 503, `{"error":{"message":"busy","status":503}}`)
			return
		}
		writeJSON(w, 200, toolJSON)
	})
	c := newTestClient(t, srv.URL)
	tool, err := c.GetTool(t.Context(), "GMAIL_FETCH_EMAILS")
	if err != nil {
		t.Fatalf("GetTool: %v", err)
	}
	if tool.Slug != "GMAIL_FETCH_EMAILS" {
		t.Errorf("slug = %q", tool.Slug)
	}
	if got := rc.count(); got != 2 {
		t.Fatalf("attempts = %d, want exactly 2", got)
	}
	if got := strings.Join(retryCounts(rc), ","); got != "0,1" {
		t.Errorf("x-stainless-retry-count values = %s, want 0,1", got)
	}
	for _, r := range rc.all() {
		if r.Header.Get("x-api-key") != testKey {
			t.Errorf("x-api-key not sent on %s", r.Path)
		}
	}
}

func TestReadWaitsAsLongAsTheServerAsks(t *testing.T) {
	const wait = 50 * time.Millisecond
	for _, tc := range []struct{ header, value string }{
		{"retry-after-ms", "50"},
		{"retry-after", "0.05"},
	} {
		t.Run(tc.header, func(t *testing.T) {
			srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
				if n == 1 {
					w.Header().Set(tc.header, tc.value)
					writeJSON(w, 429, `{"error":{"message":"slow down"}}`)
					return
				}
				writeJSON(w, 200, toolJSON)
			})
			// The computed backoff is at most 4ms, so a gap of 50ms can only come from the header.
			c := newTestClient(t, srv.URL)
			if _, err := c.GetTool(t.Context(), "GMAIL_FETCH_EMAILS"); err != nil {
				t.Fatalf("GetTool: %v", err)
			}
			reqs := rc.all()
			if len(reqs) != 2 {
				t.Fatalf("attempts = %d, want 2", len(reqs))
			}
			if gap := reqs[1].At.Sub(reqs[0].At); gap < wait {
				t.Errorf("second attempt came %v after the first, want >= %v", gap, wait)
			}
		})
	}
}

func TestShouldRetryHeaderOverridesStatus(t *testing.T) {
	for _, tc := range []struct {
		status   int
		header   string
		attempts int
	}{
		{503, "false", 1},
		{429, "false", 1},
		{400, "true", 3},
		{404, "true", 3},
		{503, "", 3},
		{400, "", 1},
	} {
		t.Run(fmt.Sprintf("%d_should_retry_%s", tc.status, tc.header), func(t *testing.T) {
			srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
				if tc.header != "" {
					w.Header().Set("x-should-retry", tc.header)
				}
				writeJSON(w, tc.status, `{"error":{"message":"nope"}}`)
			})
			c := newTestClient(t, srv.URL)
			_, err := c.GetTool(t.Context(), "X")
			var api *APIError
			if !errors.As(err, &api) || api.StatusCode != tc.status {
				t.Fatalf("err = %v, want *APIError with status %d", err, tc.status)
			}
			if got := rc.count(); got != tc.attempts {
				t.Errorf("attempts = %d, want %d", got, tc.attempts)
			}
		})
	}
}

func TestReadRetryRuleByStatus(t *testing.T) {
	for _, tc := range []struct {
		status  int
		retried bool
	}{
		{400, false}, {401, false}, {403, false}, {404, false}, {410, false}, {422, false},
		{408, true}, {409, true}, {429, true}, {500, true}, {502, true}, {503, true}, {504, true},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
				if tc.status == 429 {
					// a 429 that says when to come back; one that says nothing is the edge's,
					// waited out (TestAnEdgeBlockIsWaitedOut)
					w.Header().Set("retry-after-ms", "1")
				}
				writeJSON(w, tc.status, `{"error":{"message":"x"}}`)
			})
			c := newTestClient(t, srv.URL)
			if _, err := c.GetLog(t.Context(), "log_1"); err == nil {
				t.Fatal("want an error")
			}
			want := "0"
			if tc.retried {
				want = "0,1,2" // the default: 2 retries, 3 attempts, and no more
			}
			if got := strings.Join(retryCounts(rc), ","); got != want {
				t.Errorf("attempts (retry counts) = %s, want %s", got, want)
			}
		})
	}
}

func TestMaxRetriesOption(t *testing.T) {
	for _, retries := range []int{0, 1, 4} {
		t.Run(strconv.Itoa(retries), func(t *testing.T) {
			srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
				writeJSON(w, 500, `{}`)
			})
			c := newTestClient(t, srv.URL, WithMaxRetries(retries))
			if _, err := c.GetTool(t.Context(), "X"); err == nil {
				t.Fatal("want an error")
			}
			if got := rc.count(); got != retries+1 {
				t.Errorf("attempts = %d, want %d", got, retries+1)
			}
		})
	}
}

func TestReadRetriesDroppedConnection(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		if n == 1 {
			dropConnection(t, w)
			return
		}
		writeJSON(w, 200, toolJSON)
	})
	c := newTestClient(t, srv.URL)
	if _, err := c.GetTool(t.Context(), "GMAIL_FETCH_EMAILS"); err != nil {
		t.Fatalf("GetTool: %v", err)
	}
	if got := rc.count(); got != 2 {
		t.Errorf("attempts = %d, want 2", got)
	}
}

func TestReadRetriesAttemptTimeout(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		if n == 1 {
			<-r.Context().Done() // never answer; the client's attempt deadline fires
			return
		}
		writeJSON(w, 200, toolJSON)
	})
	c := newTestClient(t, srv.URL, WithReadTimeout(150*time.Millisecond))
	if _, err := c.GetTool(t.Context(), "GMAIL_FETCH_EMAILS"); err != nil {
		t.Fatalf("GetTool: %v", err)
	}
	if got := rc.count(); got != 2 {
		t.Errorf("attempts = %d, want 2", got)
	}
}

func TestReadTimeoutOnEveryAttemptReportsTimeout(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		<-r.Context().Done()
	})
	c := newTestClient(t, srv.URL, WithReadTimeout(20*time.Millisecond))
	_, err := c.GetTool(t.Context(), "X")
	if err == nil || !strings.Contains(err.Error(), "no answer within 20ms") || !strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("err = %v, want a timeout after 3 attempts", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err does not wrap context.DeadlineExceeded: %v", err)
	}
	if got := rc.count(); got != 3 {
		t.Errorf("attempts = %d, want 3", got)
	}
}

func TestCancelStopsWaitingForRetry(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		w.Header().Set("retry-after", "60") // the longest wait a server may ask for
		writeJSON(w, 503, `{}`)
	})
	c := newTestClient(t, srv.URL)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.GetTool(ctx, "X")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := rc.count(); got != 1 {
		t.Errorf("attempts = %d, want 1", got)
	}
	// Not a performance bound: the server asked for 60 s, so returning in under 30 s is only
	// possible if cancellation interrupted the wait.
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("returned after %v: the wait was not interrupted", elapsed)
	}
}

func TestResponseBodyLimit(t *testing.T) {
	big := `{"slug":"X","description":"` + strings.Repeat("a", 4096) + `"}`
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
				w.Header().Set("Content-Type", "application/json")
				if chunked {
					w.WriteHeader(200)
					w.Write([]byte(big[:100]))
					w.(http.Flusher).Flush() // no Content-Length: the client must count
					w.Write([]byte(big[100:]))
					return
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(big)))
				w.Write([]byte(big))
			})
			c := newTestClient(t, srv.URL, WithMaxResponseBytes(1024))
			_, err := c.GetTool(t.Context(), "X")
			if !errors.Is(err, ErrBodyTooLarge) || !strings.Contains(err.Error(), "1024") {
				t.Fatalf("err = %v, want a too-large error naming the limit", err)
			}
			if got := rc.count(); got != 1 {
				t.Errorf("attempts = %d, want 1 (a size limit is not retried)", got)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const initial, max = 500 * time.Millisecond, 8 * time.Second
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		n      int
		r      float64
		want   time.Duration
	}{
		{"first retry, no jitter", nil, 0, 0, 500 * time.Millisecond},
		{"first retry, full jitter", nil, 0, 1, 375 * time.Millisecond},
		{"second retry", nil, 1, 0, time.Second},
		{"second retry, full jitter", nil, 1, 1, 750 * time.Millisecond},
		{"capped", nil, 4, 0, 8 * time.Second},
		{"capped far out", nil, 5000, 0, 8 * time.Second},
		{"retry-after-ms", h("retry-after-ms", "250"), 0, 0.5, 250 * time.Millisecond},
		{"retry-after-ms fractional", h("retry-after-ms", "1.5"), 0, 0, 1500 * time.Microsecond},
		{"retry-after seconds", h("retry-after", "2"), 0, 0.5, 2 * time.Second},
		{"retry-after date", h("retry-after", now.Add(3*time.Second).Format(http.TimeFormat)), 0, 0.5, 3 * time.Second},
		{"retry-after-ms wins", h("retry-after-ms", "100", "retry-after", "5"), 0, 0, 100 * time.Millisecond},
		{"retry-after 60 s honoured", h("retry-after", "60"), 0, 0, 60 * time.Second},
		{"retry-after over 60 s ignored", h("retry-after", "61"), 1, 0, time.Second},
		{"retry-after-ms over 60 s ignored", h("retry-after-ms", "60001"), 0, 0, 500 * time.Millisecond},
		{"retry-after huge ignored", h("retry-after", "1e300"), 0, 0, 500 * time.Millisecond},
		{"retry-after zero ignored", h("retry-after", "0"), 0, 0, 500 * time.Millisecond},
		{"retry-after negative ignored", h("retry-after", "-3"), 0, 0, 500 * time.Millisecond},
		{"retry-after past date ignored", h("retry-after", now.Add(-time.Minute).Format(http.TimeFormat)), 0, 0, 500 * time.Millisecond},
		{"retry-after garbage ignored", h("retry-after", "soon"), 0, 0, 500 * time.Millisecond},
		{"retry-after-ms garbage falls through", h("retry-after-ms", "x", "retry-after", "1"), 0, 0, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryDelay(tc.header, tc.n, initial, max, now, tc.r); got != tc.want {
				t.Errorf("retryDelay = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRetryDelayJitterRange(t *testing.T) {
	for i := range 200 {
		r := float64(i) / 200
		d := retryDelay(nil, 1, 500*time.Millisecond, 8*time.Second, time.Now(), r)
		if d < 750*time.Millisecond || d > time.Second {
			t.Fatalf("retryDelay(n=1, r=%v) = %v, want within [0.75 s, 1 s]", r, d)
		}
	}
}

// TestATimeBeforeTheEpochAsksFromItsStart: a --since of a million hours reached the API as a
// negative epoch, which it refuses (exit 1); the query asks from the epoch instead.
func TestATimeBeforeTheEpochAsksFromItsStart(t *testing.T) {
	now := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	q := LogQuery{From: now.Add(-1000000 * time.Hour)}.withDefaults(now)
	b, err := q.body("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"from":0`) || strings.Contains(string(b), `"from":-`) {
		t.Fatalf("the query's time range: %s", b)
	}
}

// TestAnEndlessBodyIsCutAtTheLimit: a server that never ends its body is read up to the limit
// and refused there, not read until the timeout (a body read without a limit, then checked,
// holds everything the server sends: a gzip bomb or an endless stream takes the memory first).
func TestAnEndlessBodyIsCutAtTheLimit(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"slug":"X","description":"`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	c := newTestClient(t, srv.URL, WithMaxResponseBytes(1<<20), WithReadTimeout(5*time.Second), WithMaxRetries(0))
	_, err := c.GetTool(t.Context(), "X")
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("err = %v, want the body refused at the limit (not a timeout)", err)
	}
}
