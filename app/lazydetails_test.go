package app

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"sync/atomic"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// The most telling details come first: writes that did not succeed, then their neighbours,
// each in the order they were asked for; a closed queue ends once it is empty.
func TestLazyDetailsMostTellingFirst(t *testing.T) {
	l := newLazyDetails(context.Background(), nil, 0, false)
	l.want([]model.Execution{{ID: "ok1", Status: "success"}, {ID: "bad1", Status: "failed"}})
	l.want([]model.Execution{{ID: "ok2", Status: "success"}, {ID: "bad2", Status: "error"}})
	var got []string
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	for {
		e, ok := l.next()
		if !ok {
			break
		}
		got = append(got, e.ID)
	}
	if strings.Join(got, " ") != "bad1 bad2 ok1 ok2" {
		t.Errorf("fetch order %v, want the failed writes first", got)
	}
}

// TestAPageDoesNotWaitForItsDetails: the stream hands each page on as list entries
// while the details triage needs are still being fetched (here: held by the server until the
// first page has arrived), and by its end every execution that Load fetches the detail of has
// come again, detailed.
func TestAPageDoesNotWaitForItsDetails(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	defer open()
	base, env, dir := behind(t, sandbox.Config{Seed: 9, Size: 800, Now: now}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/logs/tool_execution/") {
				<-release
			}
			h.ServeHTTP(w, r)
		})
	})
	a := openBehind(t, base, env, dir, now, nil)

	// Held details would hold the first page with them: the test gives up waiting after a while
	// and lets them go, so that it fails rather than hangs.
	timer := time.AfterFunc(20*time.Second, open)
	defer timer.Stop()
	latest := map[string]model.Execution{}
	first := true
	if err := a.Stream(ctx, a.Window(), func(b []model.Execution) error {
		if first {
			first = false
			select {
			case <-release:
				t.Error("the first page came only after its details were let through")
			default:
			}
			open()
		}
		for _, e := range b {
			if old, ok := latest[e.ID]; !ok || !old.Detailed || e.Detailed {
				latest[e.ID] = e
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	l, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	detailed := 0
	for _, e := range l.Execs {
		if !e.Detailed {
			continue
		}
		detailed++
		if !latest[e.ID].Detailed {
			t.Errorf("%s: Load fetched its detail, the stream did not", e.ID)
		}
	}
	if detailed == 0 || len(latest) != len(l.Execs) {
		t.Fatalf("%d detailed of %d loaded; the stream gave %d executions", detailed, len(l.Execs), len(latest))
	}
}

// Details are fetched as many at once as the budget leaves room for: half of what is left,
// between 4 and 64; 16 when the API does not say.
func TestDetailConcurrencyFollowsTheBudget(t *testing.T) {
	for _, c := range []struct {
		b    client.Budget
		want int
	}{
		{client.Budget{}, 16},
		{client.Budget{Known: true, Limit: 10_000, Left: 9_000}, 64},
		{client.Budget{Known: true, Limit: 2_000, Left: 60}, 30},
		{client.Budget{Known: true, Limit: 2_000, Left: 3}, 4},
		{client.Budget{Known: true, Limit: 2_000, Left: 0}, 4},
	} {
		if got := detailConcurrency(c.b); got != c.want {
			t.Errorf("%+v: %d at once, want %d", c.b, got, c.want)
		}
	}
}

// TestALoadFetchesAsManyDetailsAtOnceAsTheBudgetAllows: behind a server that says
// its budget is large, a load's details go more than 16 at once (the fixed number before),
// without a 429; one that says nothing of its budget gets 16 at most.
func TestALoadFetchesAsManyDetailsAtOnceAsTheBudgetAllows(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	peak := func(limit int) (most int64, refused int64) {
		t.Helper()
		var inflight, top, limited atomic.Int64
		base, env, dir := behind(t, sandbox.Config{Seed: 9, Size: 3000, Now: now, RateLimit: limit}, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/logs/tool_execution/") {
					n := inflight.Add(1)
					for m := top.Load(); n > m && !top.CompareAndSwap(m, n); m = top.Load() {
					}
					defer inflight.Add(-1)
					time.Sleep(20 * time.Millisecond) // an API's latency: the fetches overlap
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				if rec.Code == http.StatusTooManyRequests {
					limited.Add(1)
				}
				maps.Copy(w.Header(), rec.Header())
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
			})
		})
		a := openBehind(t, base, env, dir, now, nil)
		if _, err := a.Load(ctx); err != nil {
			t.Fatal(err)
		}
		return top.Load(), limited.Load()
	}
	if most, _ := peak(0); most > detailWorkers {
		t.Errorf("a server that says nothing of its budget got %d details at once, want at most %d", most, detailWorkers)
	}
	if most, refused := peak(100_000); most <= detailWorkers || most > maxDetailWorkers || refused > 0 {
		t.Errorf("a large budget got %d details at once (want more than %d, at most %d) and %d 429s", most, detailWorkers, maxDetailWorkers, refused)
	}
}
