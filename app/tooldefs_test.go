package app

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// TestToolDefinitionsAreFetchedOnceADay: a session that keeps the logs keeps the
// tool definitions it fetched with them; a session reopened within a day asks the tools
// endpoint nothing and judges every tool as the first did, while it reads the logs from the
// same cache (more than one page of it); a day later it asks again.
func TestToolDefinitionsAreFetchedOnceADay(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	var tools atomic.Int64
	base, env, dir := behind(t, sandbox.Config{Seed: 4, Size: 3000, Now: now}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v3.1/tools/") {
				tools.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	session := func(at time.Time) (asked int64, kinds map[string]model.ToolKind) {
		t.Helper()
		before := tools.Load()
		a := openBehind(t, base, env, dir, at, func(o *Options) { o.Cache = CacheOn })
		l, err := a.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		kinds = map[string]model.ToolKind{}
		for _, e := range l.Execs {
			kinds[e.ToolSlug] = a.Kinds().Kind(e.ToolSlug)
		}
		return tools.Load() - before, kinds
	}
	first, kinds := session(now)
	if first == 0 || first > int64(len(kinds)) {
		t.Fatalf("the first session asked for %d tool definitions, %d tools named", first, len(kinds))
	}
	again, kinds2 := session(now.Add(time.Hour))
	if again != 0 {
		t.Errorf("a session reopened an hour later asked for %d tool definitions, want 0", again)
	}
	for slug, k := range kinds {
		if kinds2[slug] != k {
			t.Errorf("%s: %s from the tools endpoint, %s from the kept definition", slug, k, kinds2[slug])
		}
	}
	if later, _ := session(now.Add(ToolMaxAge + time.Hour)); later != first {
		t.Errorf("a session a day later asked for %d tool definitions, the first %d", later, first)
	}
}

// A kept definition serves while it is younger than a day and no execution after its fetch ran
// another version of the tool.
func TestAKeptToolDefinitionIsFreshUntilTheToolChanges(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	fetched := now.Add(-2 * time.Hour)
	def := model.Tool{Slug: "GMAIL_SEND_EMAIL", Version: "v2"}
	for _, c := range []struct {
		name  string
		at    time.Time
		def   model.Tool
		ran   map[string]toolRun
		fresh bool
	}{
		{"no execution names a version", fetched, def, nil, true},
		{"the kept version ran after the fetch", fetched, def, map[string]toolRun{"GMAIL_SEND_EMAIL": {"v2", now}}, true},
		{"another version ran before the fetch", fetched, def, map[string]toolRun{"GMAIL_SEND_EMAIL": {"v1", fetched.Add(-time.Minute)}}, true},
		{"another version ran after the fetch", fetched, def, map[string]toolRun{"GMAIL_SEND_EMAIL": {"v3", fetched.Add(time.Minute)}}, false},
		{"a definition without a version", fetched, model.Tool{Slug: "GMAIL_SEND_EMAIL"}, map[string]toolRun{"GMAIL_SEND_EMAIL": {"v3", now}}, true},
		{"a day old", now.Add(-ToolMaxAge), def, nil, false},
		{"fetched in the future (a clock moved back)", now.Add(time.Hour), def, nil, false},
	} {
		k := keptTools{now: now, ran: c.ran}
		if got := k.fresh("GMAIL_SEND_EMAIL", c.def, c.at); got != c.fresh {
			t.Errorf("%s: fresh %v, want %v", c.name, got, c.fresh)
		}
	}
}
