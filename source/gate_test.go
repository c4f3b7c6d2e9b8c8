package source

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/model"
)

// heldSource is a source over an export of content whose gate is held.
func heldSource(t *testing.T, content string) (*pace.Gate, Source) {
	t.Helper()
	gate := &pace.Gate{}
	gate.Hold(time.Hour)
	src, err := Open(context.Background(), Options{File: writeFile(t, "held.jsonl", content), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return gate, src
}

// While an interactive loop holds the gate, an export's read and parse wait: no batch arrives
// until it is released, and then every record does.
func TestGateHoldsTheLoad(t *testing.T) {
	var b strings.Builder
	const n = 3000
	for i := range n {
		fmt.Fprintf(&b, `{"id":"log_%05d","tool_slug":"GMAIL_SEND_EMAIL","status":"success","created_at":"2026-03-01T10:00:00Z"}`+"\n", i)
	}
	gate, src := heldSource(t, b.String())
	got := make(chan int, n)
	done := make(chan error, 1)
	go func() {
		done <- src.Load(context.Background(), 0, func(batch []model.Execution) error {
			got <- len(batch)
			return nil
		})
	}()
	select {
	case k := <-got:
		t.Fatalf("a batch of %d arrived while the gate was held", k)
	case err := <-done:
		t.Fatalf("the load ended while the gate was held: %v", err)
	case <-time.After(150 * time.Millisecond):
	}
	gate.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	total := 0
	for len(got) > 0 {
		total += <-got
	}
	if total != n {
		t.Fatalf("%d records after the release, want %d", total, n)
	}
}

// A held gate does not keep a cancelled load waiting.
func TestGateYieldsToCancel(t *testing.T) {
	_, src := heldSource(t, `{"id":"log_a1"}`+"\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Load(ctx, 0, func([]model.Execution) error { return nil }) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled, held load reported success")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled load stayed held")
	}
}

// A chunk's parse waits at the gate as it goes, not only between chunks: a hold that starts
// while a chunk is being parsed stops it within gateLines lines. The chunk's records are a
// plain parse's.
func TestParseWaitsWithinAChunk(t *testing.T) {
	c := &chunk{}
	for i := range chunkLines {
		rec := fmt.Appendf(nil, `{"id":"log_%05d","tool_slug":"GMAIL_SEND_EMAIL","status":"success"}`, i)
		c.lines = append(c.lines, lineMeta{num: i + 1, start: len(c.data), end: len(c.data) + len(rec)})
		c.data = append(c.data, rec...)
	}
	var gate pace.Gate
	const hold = 150 * time.Millisecond
	gate.Hold(hold)
	start := time.Now()
	parseChunk(context.Background(), c, &model.Parser{}, nil, &gate, maphash.MakeSeed())
	if took := time.Since(start); took < hold*2/3 {
		t.Errorf("a chunk parsed in %v while the gate was held for %v", took, hold)
	}
	if len(c.execs) != chunkLines || c.execs[chunkLines-1].ID != fmt.Sprintf("log_%05d", chunkLines-1) {
		t.Fatalf("%d records parsed, want %d", len(c.execs), chunkLines)
	}
}
