package source

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
)

// A consumer that keeps each batch a while (the TUI's pages wait for its analysis) hands it
// back with Recycle once done: the load fills those arrays again instead of making new ones,
// and the records stay exactly a plain load's. After the load, Recycle keeps nothing.
func TestRecycleRefillsArrays(t *testing.T) {
	var lines strings.Builder
	for i := range 40_000 { // twenty chunks: more than the load can parse ahead of its consumer
		fmt.Fprintf(&lines, `{"id":"log_%05d","message":"%s","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"u%d"}}`+"\n", i, strings.Repeat("m", i%30), i%7)
	}
	p := writeFile(t, "r.jsonl", lines.String())
	want, _, err := loadAll(t, p, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), Options{File: p})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r, ok := src.(Recycler)
	if !ok {
		t.Fatal("a file source is no Recycler")
	}
	consumer := testkit.NewRefills(r.Recycle)
	var got []model.Execution
	err = src.Load(context.Background(), 0, func(b []model.Execution) error {
		got = append(got, b...)
		consumer.Take(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if len(got) != len(want) || string(gj) != string(wj) {
		t.Fatalf("%d records, want %d; the same: %v", len(got), len(want), string(gj) == string(wj))
	}
	if consumer.Refilled == 0 {
		t.Errorf("none of %d batches was an array handed back", consumer.Batches)
	}
	held := consumer.Held()
	r.Recycle(held) // after the load: nothing keeps it
	fs := src.(*fileSource)
	fs.mu.Lock()
	spare := fs.spare
	fs.mu.Unlock()
	if spare != nil {
		t.Errorf("the source keeps %d arrays after its load", len(spare))
	}
	if held[0].ID == "" {
		t.Error("Recycle after the load cleared a batch nothing will fill again")
	}
}

// The load's chunks go back to the reader once merged: a load of forty chunks makes no more
// than can be in flight at once, and its records are a plain load's.
func TestChunksAreFilledAgain(t *testing.T) {
	var lines strings.Builder
	for i := range 40 * chunkLines {
		fmt.Fprintf(&lines, `{"id":"log_%06d","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"u%d"}}`+"\n", i, i%7)
	}
	p := writeFile(t, "c.jsonl", lines.String())
	l := newLoader(p, FileOptions{})
	n := 0
	l.emit = func(b []model.Execution) error {
		for _, e := range b {
			if want := fmt.Sprintf("log_%06d", n); e.ID != want {
				t.Fatalf("record %d is %s, want %s", n, e.ID, want)
			}
			n++
		}
		return nil
	}
	if err := l.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n != 40*chunkLines {
		t.Fatalf("%d records, want %d", n, 40*chunkLines)
	}
	if most := spareArrays(cores.N()) + 2; l.made > most {
		t.Errorf("the load made %d chunks for 40, want at most %d (the ones in flight)", l.made, most)
	}
}

// A parser held up on the first chunk (a machine busy elsewhere) does not let cut run ahead
// without end: the later chunks wait for it, and the load makes no more chunks than can be
// in flight, however long the wait (before, it made one for every chunk of the file).
func TestAHeldUpChunkHoldsTheReaderBack(t *testing.T) {
	var lines strings.Builder
	for i := range 40 * chunkLines {
		fmt.Fprintf(&lines, `{"id":"log_%06d"}`+"\n", i)
	}
	p := writeFile(t, "held.jsonl", lines.String())
	l := newLoader(p, FileOptions{})
	l.parsing = func(seq int) {
		if seq == 0 {
			time.Sleep(300 * time.Millisecond) // long enough for cut to reach the file's end
		}
	}
	n := 0
	l.emit = func(b []model.Execution) error { n += len(b); return nil }
	if err := l.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n != 40*chunkLines {
		t.Fatalf("%d records, want %d", n, 40*chunkLines)
	}
	if most := chunksAhead(cores.N()) + 1; l.made > most {
		t.Errorf("the load made %d chunks for 40 while one was held up, want at most %d", l.made, most)
	}
}

// Reading a record again goes through its handle's buffer, which the next read uses too: the
// TUI's groups read tens of thousands of records, and each made a buffer of its size.
func TestGetReusesItsReadBuffer(t *testing.T) {
	pad := strings.Repeat("x", 32<<10) // a field the parser skips: the buffer is most of a read's memory
	var lines strings.Builder
	for i := range 100 {
		fmt.Fprintf(&lines, `{"id":"log_%03d","padding":"%s","metadata":{"tool_slug":"GMAIL_SEND_EMAIL"}}`+"\n", i, pad)
	}
	src, err := Open(context.Background(), Options{File: writeFile(t, "g.jsonl", lines.String())})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.Load(context.Background(), 0, func([]model.Execution) error { return nil }); err != nil {
		t.Fatal(err)
	}
	get := func(i int) {
		if e, err := src.Get(context.Background(), fmt.Sprintf("log_%03d", i)); err != nil || e.ID != fmt.Sprintf("log_%03d", i) {
			t.Fatalf("Get %d: %v, %v", i, e.ID, err)
		}
	}
	get(0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range 100 {
		get(i)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > 8<<10 {
		t.Errorf("a Get of a 32 KB record allocates %d bytes: its read buffer is not used again", per)
	}
}
