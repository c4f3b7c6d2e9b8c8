package source

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// TestTriggerDeliveriesFromTheTriggerLogs: a load reads the window's trigger
// deliveries from the trigger logs and hands each on once, in place of its logs-list entry,
// with its event id and its attempt counted per event; a server that refuses the trigger logs
// (an internal endpoint a key may not reach) still loads everything, the deliveries as the list
// has them, and is not asked again.
func TestTriggerDeliveriesFromTheTriggerLogs(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 4, Size: 1500, Events: true}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	want := map[string]model.Delivery{}
	for _, e := range srv.Executions() {
		if e.Delivery != nil {
			want[e.ID] = *e.Delivery
		}
	}
	if len(want) < 4 {
		t.Fatalf("the sandbox has %d deliveries", len(want))
	}
	check := func(name, base string, identity bool) {
		t.Helper()
		src, err := Open(ctx, Options{BaseURL: base})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		for range 2 { // a second load of the same source
			seen := map[string]int{}
			for _, e := range collect(t, src, 0) {
				seen[e.ID]++
				w, ok := want[e.ID]
				if !ok {
					continue
				}
				switch {
				case e.Type != model.TypeTriggerMessage:
					t.Errorf("%s: delivery %s has type %q", name, e.ID, e.Type)
				case identity && (e.Delivery == nil || e.Delivery.EventID != w.EventID || e.Delivery.Attempt != w.Attempt || e.Delivery.Error != w.Error):
					t.Errorf("%s: delivery %s: %+v, want %+v", name, e.ID, e.Delivery, w)
				case !identity && e.Delivery != nil:
					t.Errorf("%s: delivery %s has an identity the server never gave: %+v", name, e.ID, e.Delivery)
				}
			}
			for id := range want {
				if seen[id] != 1 {
					t.Errorf("%s: delivery %s handed on %d times", name, id, seen[id])
				}
			}
		}
	}
	check("the sandbox", base, true)

	// a server in front of it that refuses the trigger logs
	target, _ := url.Parse(base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var asked atomic.Int32
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/internal/trigger/") {
			asked.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"error":{"message":"internal endpoint","status":403}}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer refusing.Close()
	check("a server that refuses the trigger logs", refusing.URL, false)
	if n := asked.Load(); n != 1 {
		t.Errorf("the refused trigger logs were asked %d times over two loads, want 1", n)
	}
}
