package source

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// countingAPI is the sandbox behind a server that counts the list pages and detail requests.
type countingAPI struct {
	srv            *sandbox.Server
	url            string
	pages, details atomic.Int64
}

func newCountingAPI(t *testing.T, cfg sandbox.Config) *countingAPI {
	t.Helper()
	srv, _, err := sandbox.Start(context.Background(), cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a := &countingAPI{srv: srv}
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/logs/tool_execution"):
			a.pages.Add(1)
		case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/logs/tool_execution/"):
			a.details.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	a.url = ts.URL
	return a
}

func (a *countingAPI) requests() (int64, int64) { return a.pages.Load(), a.details.Load() }

// openCached opens an API source on a with the cache at path.
func openCached(t *testing.T, a *countingAPI, path string) Source {
	t.Helper()
	c, err := logcache.Open(context.Background(), path, logcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), Options{BaseURL: a.url, APIKey: "k", Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// loadIDs loads the window and checks the records come newest first, each once.
func loadIDs(t *testing.T, src Source, since time.Duration) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	var last time.Time
	if err := src.Load(context.Background(), since, func(b []model.Execution) error {
		for _, e := range b {
			if seen[e.ID] {
				t.Errorf("%s handed on twice", e.ID)
			}
			seen[e.ID] = true
			if !last.IsZero() && e.Timestamp.After(last) {
				t.Errorf("%s (%v) after an older record (%v): not newest first", e.ID, e.Timestamp, last)
			}
			last = e.Timestamp
			ids = append(ids, e.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestACachedWindowReadsOnlyWhatIsNew: a first load reads every page (in time
// slices at once, newest first all the same) and keeps it; a second reads only the overlap
// before the newest record it has; after 150 new executions, two pages; a detail is fetched
// once across runs; and every load hands on exactly the API's records, newest first.
func TestACachedWindowReadsOnlyWhatIsNew(t *testing.T) {
	api := newCountingAPI(t, sandbox.Config{Seed: 4, Size: 2000, Span: 48 * time.Hour, APIKey: "k"})
	path := filepath.Join(t.TempDir(), "logs.db")
	const since = 72 * time.Hour

	first := loadIDs(t, openCached(t, api, path), since)
	p1, _ := api.requests()
	if len(first) != 2000 || p1 < 20 {
		t.Fatalf("the first load: %d records in %d pages", len(first), p1)
	}
	second := loadIDs(t, openCached(t, api, path), since)
	p2, _ := api.requests()
	if len(second) != len(first) || p2-p1 > 1 {
		t.Fatalf("the second load: %d records, %d pages", len(second), p2-p1)
	}
	for i := range 150 {
		req, _ := http.NewRequest(http.MethodPost, api.srv.URL()+"/api/v3.1/tools/execute/GMAIL_FETCH_EMAILS",
			strings.NewReader(fmt.Sprintf(`{"user_id":"cache-user-%d","arguments":{}}`, i%5)))
		req.Header.Set("x-api-key", "k")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("a new execution: %v %v", res, err)
		}
		res.Body.Close()
	}
	third := loadIDs(t, openCached(t, api, path), since)
	p3, _ := api.requests()
	if len(third) != 2150 || p3-p2 > 2 {
		t.Fatalf("after 150 new: %d records, %d pages", len(third), p3-p2)
	}
	if want := api.srv.LogIDs(); len(want) != len(third) {
		t.Fatalf("the API holds %d records, the load gave %d", len(want), len(third))
	}

	// a detail is fetched once, whichever run asks
	_, d0 := api.requests()
	for range 2 {
		src := openCached(t, api, path)
		e, err := src.Get(context.Background(), third[10])
		if err != nil || !e.Detailed || e.ID != third[10] {
			t.Fatalf("Get: %+v %v", e.ID, err)
		}
	}
	if _, d1 := api.requests(); d1-d0 != 1 {
		t.Errorf("%d detail requests for one detail asked twice", d1-d0)
	}

	// without a cache the parallel slices still give every record once, newest first
	plain, err := Open(context.Background(), Options{BaseURL: api.url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if got := loadIDs(t, plain, since); len(got) != 2150 {
		t.Errorf("without a cache: %d records", len(got))
	}
}

// TestSegments: a window is split into what the cache covers (but each span's last
// logcache.Overlap) and what the API must give, newest first.
func TestSegments(t *testing.T) {
	h := func(n int) time.Time { return time.Date(2026, 3, 2, n, 0, 0, 0, time.UTC) }
	ms := time.Millisecond
	ov := logcache.Overlap
	tests := []struct {
		name  string
		spans []logcache.Span
		want  []segment
	}{
		{"nothing cached", nil, []segment{{logcache.Span{From: h(0), To: h(10)}, false}}},
		{"the older part cached", []logcache.Span{{From: h(0), To: h(6)}},
			[]segment{{logcache.Span{From: h(6).Add(-ov + ms), To: h(10)}, false}, {logcache.Span{From: h(0), To: h(6).Add(-ov)}, true}}},
		{"a hole between two spans", []logcache.Span{{From: h(1), To: h(3)}, {From: h(5), To: h(10)}},
			[]segment{{logcache.Span{From: h(10).Add(-ov + ms), To: h(10)}, false}, {logcache.Span{From: h(5), To: h(10).Add(-ov)}, true},
				{logcache.Span{From: h(3).Add(-ov + ms), To: h(5).Add(-ms)}, false}, {logcache.Span{From: h(1), To: h(3).Add(-ov)}, true},
				{logcache.Span{From: h(0), To: h(1).Add(-ms)}, false}}},
		{"a span shorter than the overlap", []logcache.Span{{From: h(4), To: h(4).Add(ov / 2)}}, []segment{{logcache.Span{From: h(0), To: h(10)}, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := segments(h(0), h(10), tt.spans)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("segments\n = %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestAReopenAsksAtOnceAndReadsTheCacheAhead: a reopen's requests (the trigger deliveries and
// the newest minutes the cache cannot vouch for) are in flight together, not one after the
// other, and the cache is read ahead of the walk meanwhile (at most aheadBatches); the records
// still come newest first, each once, all of them.
func TestAReopenAsksAtOnceAndReadsTheCacheAhead(t *testing.T) {
	srv, _, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 4, Size: 3000, Span: 48 * time.Hour, APIKey: "k"}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var hold atomic.Bool
	var inflight, most atomic.Int64
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() && r.Method == http.MethodPost {
			n := inflight.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			// wait (a second at most) for another request to come meanwhile
			for deadline := time.Now().Add(time.Second); inflight.Load() < 2 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			defer inflight.Add(-1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	api := &countingAPI{srv: srv, url: ts.URL}
	path := filepath.Join(t.TempDir(), "logs.db")
	first := loadIDs(t, openCached(t, api, path), 72*time.Hour)
	hold.Store(true)
	second := loadIDs(t, openCached(t, api, path), 72*time.Hour)
	if len(second) != len(first) || len(first) != 3000 {
		t.Fatalf("the reopen gave %d records of %d", len(second), len(first))
	}
	if most.Load() < 2 {
		t.Errorf("the reopen's requests went one after the other (at most %d in flight)", most.Load())
	}

	// The read ahead: with nobody taking them, the cache's batches fill the buffer.
	c, err := logcache.Open(context.Background(), path, logcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	now := time.Now()
	segs := []segment{{Span: logcache.Span{From: now.Add(-time.Minute), To: now}}, {Span: logcache.Span{From: now.Add(-96 * time.Hour), To: now.Add(-time.Minute)}, cached: true}}
	r := readAhead(context.Background(), c, segs)
	deadline := time.Now().Add(10 * time.Second)
	for len(r.ch) < 3 && time.Now().Before(deadline) { // 3,000 entries: three batches and the end
		time.Sleep(time.Millisecond)
	}
	if len(r.ch) < 3 {
		t.Errorf("%d batches read ahead, want the cache's three", len(r.ch))
	}
	n := 0
	if err := r.each(1, func(b []model.Execution) error { n += len(b); return nil }); err != nil || n == 0 {
		t.Errorf("the segment read ahead: %d records, %v", n, err)
	}
	r.stop()
}
