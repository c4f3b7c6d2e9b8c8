package ui

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/model"
)

// The loader is the load pipeline on its own, without the root: it takes the current load's
// pages and drops an older load's, holds the next page back while the builder is behind and
// gives it back when the analysis ends, analyses once at a time (pages that come meanwhile ask
// for another), finds the groups only once the load has ended, and says when a load failed.
func TestLoaderAlone(t *testing.T) {
	e := newEnv(t)
	l := newLoader(e.deps().App.NewFeed(), nil)
	ctx := context.Background()
	l.start(ctx, 0)
	defer l.stop()
	page := func(tag, n int) loadPageMsg {
		if tag == l.tag { // the feed drops an older load's pages
			recs := make([]model.Execution, n)
			for i := range recs {
				recs[i] = model.Execution{ID: fmt.Sprintf("log_%d_%d", l.received, i), Timestamp: time.Now()}
			}
			l.feed.Give(recs)
		}
		return loadPageMsg{tag: tag, n: n, next: func() tea.Msg { return nil }}
	}
	if _, ok := l.page(page(l.tag-1, 10)); ok || l.received != 0 {
		t.Fatalf("an older load's page was counted (%d received)", l.received)
	}
	next, ok := l.page(page(l.tag, 10))
	if !ok || next == nil || l.feed.Pending() != 10 || l.received != 10 || l.pages != 1 {
		t.Fatalf("a page: ok %v, next %v, %d pending, %d received, %d pages", ok, next != nil, l.feed.Pending(), l.received, l.pages)
	}
	cmd := l.analyze(ctx, 0)
	if cmd == nil || !l.analyzing || l.grouping {
		t.Fatalf("analysis while loading: cmd %v, analyzing %v, grouping %v", cmd != nil, l.analyzing, l.grouping)
	}
	if msg, ok := cmd().(analyzedMsg); !ok || msg.ds == nil || msg.ds.Len() != 10 || l.feed.Pending() != 0 {
		t.Fatalf("the first analysis took the queue into the builder and gave the first screen: %v, %d pending", ok, l.feed.Pending())
	}
	// The builder is behind: a full queue holds the next page.
	next, _ = l.page(page(l.tag, maxPending))
	if next != nil || l.held == nil {
		t.Fatal("a page past maxPending while the builder works did not hold the load")
	}
	if cmd := l.analyze(ctx, 0); cmd != nil || !l.dirty {
		t.Fatal("a second analysis started while one runs")
	}
	if _, _, ok := l.analyzed(analyzedMsg{tag: l.analyzeTag - 1}); ok {
		t.Fatal("an older analysis's result was taken")
	}
	held, again, ok := l.analyzed(analyzedMsg{tag: l.analyzeTag})
	if !ok || held == nil || !again || l.held != nil || l.analyzing {
		t.Fatalf("the analysis ended: held %v, again %v, ok %v", held != nil, again, ok)
	}
	// The load ends on an error: failed, and the next analysis finds the groups.
	if l.done(loadDoneMsg{tag: l.tag - 1}) {
		t.Fatal("an older load's end was taken")
	}
	if !l.done(loadDoneMsg{tag: l.tag, err: errors.New("boom")}) || l.loading || !l.failed {
		t.Fatalf("the load's end: loading %v, failed %v", l.loading, l.failed)
	}
	if cmd := l.analyze(ctx, 10); cmd == nil || !l.grouping || !l.busy() {
		t.Fatal("the analysis after the load does not find the groups")
	}
	// A cancelled load did not fail.
	l.start(ctx, 0)
	if l.done(loadDoneMsg{tag: l.tag, err: context.Canceled}); l.failed {
		t.Error("a cancelled load counts as failed")
	}
}
