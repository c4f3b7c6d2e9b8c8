package ui

import (
	"context"
	"errors"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/model"
)

// The loader is the load pipeline on its own, without the root: it takes the current load's
// pages and drops an older load's, holds the next page back while the builder is behind and
// gives it back when the analysis ends, analyses once at a time (pages that come meanwhile ask
// for another), finds the groups only once the load has ended, and says when a load failed.
func TestLoaderAlone(t *testing.T) {
	e := newEnv(t)
	l := newLoader(NewBackend(e.deps()), nil)
	ctx := context.Background()
	l.start(ctx, 0)
	defer l.stop()
	page := func(tag, n int) loadPageMsg {
		return loadPageMsg{tag: tag, batch: make([]model.Execution, n), next: func() tea.Msg { return nil }}
	}
	if _, ok := l.page(page(l.tag-1, 10)); ok || l.pendingN != 0 {
		t.Fatalf("an older load's page was taken (%d pending)", l.pendingN)
	}
	next, ok := l.page(page(l.tag, 10))
	if !ok || next == nil || l.pendingN != 10 || l.received != 10 || l.pages != 1 {
		t.Fatalf("a page: ok %v, next %v, %d pending, %d received, %d pages", ok, next != nil, l.pendingN, l.received, l.pages)
	}
	if cmd := l.analyze(ctx, 0); cmd == nil || !l.analyzing || l.grouping || l.pendingN != 0 {
		t.Fatalf("analysis while loading: cmd %v, analyzing %v, grouping %v, %d pending", cmd != nil, l.analyzing, l.grouping, l.pendingN)
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
