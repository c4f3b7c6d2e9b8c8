package app

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/exectriage/exectriage/internal/heap"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/window"
)

// counting is a session's source that counts the pages handed back and the size hints asked,
// and hints ten times the export (more than a builder would grow to on its own).
type counting struct {
	source.Source
	recycled, hints int
}

func (c *counting) Recycle(b []model.Execution) { c.recycled++; c.Source.(source.Recycler).Recycle(b) }
func (c *counting) SizeHint() int {
	c.hints++
	return 10 * c.Source.(interface{ SizeHint() int }).SizeHint()
}

func exportOf(n int) string {
	var lines strings.Builder
	for i := range n {
		if i > 0 {
			lines.WriteByte('\n')
		}
		fmt.Fprintf(&lines, `{"id":"log_%05d","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"u%d"}}`, i, i%9)
	}
	return lines.String()
}

// A feed's load of a whole export asks once how many records it holds, and its builder makes
// room for them after the first page is on screen; each page goes back to the source once
// the builder has taken it; the analyses run under the memory budget, which is done with them.
func TestAFeedReservesAndHandsPagesBack(t *testing.T) {
	a := openExport(t, exportOf(5000), Options{Background: true}) // three pages
	src := &counting{Source: a.src}
	a.src = src
	f := a.NewFeed()
	mem := heap.New(1 << 20)
	ctx := context.Background()
	pages, hint := 0, 0
	err := f.Load(ctx, 0, func(n, h int) error {
		pages++
		hint = h
		_, err := f.Analyze(ctx, mem, false, true) // a front analyses as pages come
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := f.Analyze(ctx, mem, true, true)
	if err != nil || ds.Len() != 5000 {
		t.Fatalf("the last analysis: %v rows, %v", ds.Len(), err)
	}
	if src.hints != 1 || hint < 50_000 {
		t.Errorf("size hints asked %d times, the last %d: want once, at least 50,000", src.hints, hint)
	}
	// Room for the hinted rows: their summaries alone take this much (Builder.Size counts
	// what the arrays hold, written or not).
	if got, least := f.b.Size(), hint*int(unsafe.Sizeof(window.Summary{})); got < least {
		t.Errorf("the builder holds %d bytes, less than the summaries of the %d rows hinted (%d)", got, hint, least)
	}
	if src.recycled != pages || pages < 3 {
		t.Errorf("%d pages handed back of %d read", src.recycled, pages)
	}
	if pct := debug.SetGCPercent(100); mem.Limit() != 0 || pct != 100 {
		t.Errorf("after the load: budget limit %d, the collector's percent %d", mem.Limit(), pct)
	}
}

// Once a newer load has started, an older one's pages are dropped, not queued: a refresh that
// superseded a load never shows the superseded load's records. Records found outside a load
// (Give) are queued whatever load runs.
func TestAFeedDropsAnOlderLoadsPages(t *testing.T) {
	a := openExport(t, exportOf(5000), Options{Background: true})
	f := a.NewFeed()
	ctx := context.Background()
	calls, first := 0, 0
	err := f.Load(ctx, 0, func(n, _ int) error {
		if calls++; calls == 1 {
			first = n
			f.mu.Lock()
			f.gen++ // a newer load starts (Load's first step)
			f.mu.Unlock()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || f.Pending() != first || first == 0 || first == 5000 {
		t.Fatalf("after a newer load began: %d pages told, %d queued, want the first's %d only", calls, f.Pending(), first)
	}
	f.Give([]model.Execution{{ID: "log_found", Timestamp: time.Now()}})
	ds, err := f.Analyze(ctx, nil, true, true)
	if err != nil || ds.Len() != first+1 || ds.Index("log_found") < 0 {
		t.Fatalf("the analysis: %d rows (want %d), found %v, %v", ds.Len(), first+1, ds.Index("log_found") >= 0, err)
	}
}
