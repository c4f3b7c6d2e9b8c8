package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"go.uber.org/goleak"
)

func collect(t *testing.T, src Source, since time.Duration) []model.Execution {
	t.Helper()
	var all []model.Execution
	if err := src.Load(context.Background(), since, func(b []model.Execution) error {
		all = append(all, b...)
		return nil
	}); err != nil {
		t.Fatalf("Load: %v", err)
	}
	return all
}

// A demo source is an API source on a sandbox the caller started, named DEMO, which closes the
// sandbox with it.
func TestDemoSource(t *testing.T) {
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 1, Size: 120}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), Options{Demo: true, BaseURL: base, Closer: srv})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		src.Close()
		if _, err := http.Get(base + "/api/v3.1/tools"); err == nil {
			t.Error("the demo's sandbox still serves after the source closed")
		}
	}()
	if src.Name() != "DEMO" || src.Client() == nil {
		t.Fatalf("name %q, client %v", src.Name(), src.Client())
	}
	all := collect(t, src, 0)
	if len(all) != 120 {
		t.Fatalf("demo loaded %d executions, want 120", len(all))
	}
	d, err := src.Get(context.Background(), all[0].ID)
	if err != nil || d.ID != all[0].ID || !d.Detailed {
		t.Errorf("Get(%s) = %+v, %v", all[0].ID, d.ID, err)
	}
	if _, err := src.Get(context.Background(), "log_nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "DEMO") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestLiveSourceAgainstSandbox(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 2, Size: 200}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	src, err := Open(ctx, Options{BaseURL: base}) // loopback: no key needed
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if !strings.HasPrefix(src.Name(), "LIVE 127.0.0.1:") {
		t.Errorf("name %q", src.Name())
	}
	all := collect(t, src, 0)
	if len(all) != 200 {
		t.Fatalf("loaded %d, want 200", len(all))
	}
	// since keeps the executions of the window, and only them.
	now := time.Now()
	recent := collect(t, src, 24*time.Hour)
	want := 0
	for _, e := range all {
		if !e.Timestamp.Before(now.Add(-24*time.Hour + time.Second)) {
			want++
		}
	}
	if len(recent) == 0 || len(recent) >= len(all) || abs(len(recent)-want) > 2 {
		t.Errorf("since 24h: %d of %d, about %d expected", len(recent), len(all), want)
	}
	stop := errors.New("stop")
	if err := src.Load(ctx, 0, func([]model.Execution) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v", err)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestLoadFileLeavesNoGoroutines stops loads early every way there is and checks the
// reader and parser goroutines are gone.
func TestLoadFileLeavesNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := filepath.Join(t.TempDir(), "many.jsonl")
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"id":"log_%d","status":"success","metadata":{"tool_slug":"X_GET"}}`+"\n", i)
	}
	b.WriteString(`{"id":"log_trunc","status":`)
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	if _, err := LoadFileWith(context.Background(), p, FileOptions{BatchSize: 100}, func([]model.Execution) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := LoadFileWith(ctx, p, FileOptions{BatchSize: 100}, func([]model.Execution) error {
		if n++; n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}
	total := 0
	_, err = LoadFile(context.Background(), p, func(b []model.Execution) error { total += len(b); return nil })
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 20001 || total != 20000 {
		t.Errorf("truncated last line: %v after %d records", err, total)
	}
}

// TestPageNumberPagingWithRecordsArriving: against a server whose cursor is a page number (the
// real API's) and whose window gains records while it is walked (logs written late), a load
// hands on every record that was there when it began, and no record twice; a plain walk of the
// same pages repeats records and misses others, so the test can fail.
func TestPageNumberPagingWithRecordsArriving(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 4, Size: 10_000, Cursor: sandbox.CursorPage, ArrivalsPerPage: 3}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	before := map[string]bool{}
	for _, id := range srv.LogIDs() {
		before[id] = true
	}
	src, err := Open(ctx, Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := map[string]int{}
	if err := src.Load(ctx, 30*24*time.Hour, func(b []model.Execution) error {
		for _, e := range b {
			got[e.ID]++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, n := range got {
		if n > 1 {
			t.Fatalf("%s handed on %d times", id, n)
		}
	}
	missed := 0
	for id := range before {
		if got[id] == 0 {
			missed++
		}
	}
	if missed > 0 || len(got) < len(before) {
		t.Fatalf("the load missed %d of the %d records there at its start (loaded %d)", missed, len(before), len(got))
	}
	// the same pages walked plainly, as a client that trusts them would
	plain := map[string]int{}
	c := src.Client()
	for p, err := range c.ListLogs(ctx, client.LogQuery{Limit: 100, From: time.Now().Add(-30 * 24 * time.Hour), To: time.Now()}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Executions {
			plain[e.ID]++
		}
	}
	repeats, plainMissed := 0, 0
	for _, n := range plain {
		repeats += n - 1
	}
	for _, id := range srv.LogIDs() {
		if plain[id] == 0 {
			plainMissed++
		}
	}
	if repeats == 0 || plainMissed == 0 {
		t.Fatalf("a plain walk repeated %d and missed %d: the server shifts nothing, so the test cannot fail", repeats, plainMissed)
	}
	t.Logf("10k records, 3 arriving a page: the load handed on %d, each once; a plain walk repeated %d and missed %d", len(got), repeats, plainMissed)
}

// TestALoadWaitsOutTheRateLimit: a load of more pages than the rate limit's window allows
// completes, holding its reads back before the budget runs out (no 429 while it reads alone)
// and saying what it waits for; when something else spends the budget, the 429s it gets are
// waited out as Retry-After says, and it still completes.
func TestALoadWaitsOutTheRateLimit(t *testing.T) {
	ctx := t.Context()
	// 3,000 records are 30 or more reads of 100: more than two windows' budget, so the load must
	// wait whatever the phase of the windows (1,500 fitted in two when a window ended mid-load,
	// and the test failed on a busy machine with no wait to see)
	const size = 3000
	srv, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 4, Size: size, RateLimit: 10, RateLimitWindow: time.Second}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var waits []client.RateWait
	var mu sync.Mutex
	notice := client.WithRateNotice(func(w client.RateWait) { mu.Lock(); waits = append(waits, w); mu.Unlock() })
	src, err := Open(ctx, Options{BaseURL: base, ClientOptions: []client.Option{notice}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := 0
	if err := src.Load(ctx, 0, func(b []model.Execution) error { got += len(b); return nil }); err != nil {
		t.Fatal(err)
	}
	if got != size || srv.RateLimited() != 0 || len(waits) == 0 {
		t.Fatalf("loaded %d of %d, %d answered 429, %d waits said", got, size, srv.RateLimited(), len(waits))
	}
	for _, w := range waits {
		if w.Refused || w.Wait <= 0 || w.Wait > 2*time.Second || w.Limit != 10 {
			t.Errorf("a wait: %+v", w)
		}
	}
	// another caller spends the budget: every fourth read meets a 429 of the rate limit, which
	// the load waits out as Retry-After says, and it completes (1,500 records are enough here)
	srv.Close()
	srv, _, err = sandbox.Start(ctx, sandbox.Config{Seed: 4, Size: 1500, RateLimit: 10, RateLimitWindow: time.Second}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	n := 0
	var nmu sync.Mutex
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nmu.Lock()
		n++
		k := n
		nmu.Unlock()
		if k%4 == 0 {
			w.Header().Set("X-RateLimit", "10")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit exceeded","status":429}}`)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	defer front.Close()
	waits = nil
	shared, err := Open(ctx, Options{BaseURL: front.URL, ClientOptions: []client.Option{notice}})
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	got = 0
	err = shared.Load(ctx, 0, func(b []model.Execution) error { got += len(b); return nil })
	refused := 0
	for _, w := range waits {
		if w.Refused {
			refused++
		}
	}
	if err != nil || got != 1500 || refused == 0 {
		t.Fatalf("shared budget: loaded %d, err %v, %d waits after a 429 of %d", got, err, refused, len(waits))
	}
}

// TestParallelReadsStayWithinTheRateLimit: a window's time slices walked at once and
// sixteen detail requests beside them share one budget: the reads in flight count as spent, so
// none is refused with a 429, and everything is read.
func TestParallelReadsStayWithinTheRateLimit(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 4, Size: 1200, Span: 48 * time.Hour, RateLimit: 20, RateLimitWindow: time.Second}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	src, err := Open(ctx, Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var ids []string
	if err := src.Load(ctx, 72*time.Hour, func(b []model.Execution) error {
		for _, e := range b {
			ids = append(ids, e.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1200 {
		t.Fatalf("loaded %d of 1200", len(ids))
	}
	var wg sync.WaitGroup
	work := make(chan string)
	for range 16 {
		wg.Go(func() {
			for id := range work {
				if _, err := src.Get(ctx, id); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for _, id := range ids[:120] {
		work <- id
	}
	close(work)
	wg.Wait()
	if n := srv.RateLimited(); n != 0 {
		t.Errorf("%d reads were refused with 429", n)
	}
}

// TestTheRateGateMeetsWindowsItCannotSee: the server's rate windows turn on the clock's
// seconds, not when the load began: a load started late in one spends windows the gate's own
// estimate straddles, and must still get no 429 (the 100k bench got 16 before).
func TestTheRateGateMeetsWindowsItCannotSee(t *testing.T) {
	ctx := t.Context()
	srv, _, err := sandbox.Start(ctx, sandbox.Config{Seed: 5, Size: 2000, Span: 48 * time.Hour, RateLimit: 8, RateLimitWindow: time.Second}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond) // counted late, as behind a remote API
		srv.Handler().ServeHTTP(w, r)
	}))
	defer slow.Close()
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1900 * time.Millisecond))) // late in a window
	src, err := Open(ctx, Options{BaseURL: slow.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	n := 0
	if err := src.Load(ctx, 72*time.Hour, func(b []model.Execution) error { n += len(b); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 2000 || srv.RateLimited() != 0 {
		t.Errorf("loaded %d of 2000; %d reads refused with 429", n, srv.RateLimited())
	}
}
