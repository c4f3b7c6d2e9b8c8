package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// benchData returns the path of a generated export (make bench-data) of the given name, from
// $EXECTRIAGE_BENCH_DATA or the repository's bench-data/; the benchmark is skipped without it.
func benchData(b *testing.B, name string) (string, int64) {
	dir := os.Getenv("EXECTRIAGE_BENCH_DATA")
	if dir == "" {
		dir = filepath.Join("..", "bench-data")
	}
	p := filepath.Join(dir, name)
	st, err := os.Stat(p)
	if err != nil {
		b.Skipf("%s not found: run make bench-data", p)
	}
	return p, st.Size()
}

// BenchmarkLoadFile1M parses a whole JSONL export of 1M detail records (bench-data/1m.jsonl):
// the MB/s figure is the load path's throughput, parsing on every core.
func BenchmarkLoadFile1M(b *testing.B) {
	path, size := benchData(b, "1m.jsonl")
	b.SetBytes(size)
	for b.Loop() {
		n := 0
		if _, err := LoadFile(context.Background(), path, func(batch []model.Execution) error { n += len(batch); return nil }); err != nil || n != 1_000_000 {
			b.Fatalf("loaded %d: %v", n, err)
		}
	}
}

// BenchmarkFirstBatch1M opens the 1M export as the TUI does (a file source, indexing offsets
// for Get) and measures the time until the first batch is handed over: what the first screen
// waits for. The rest of the load is cancelled.
func BenchmarkFirstBatch1M(b *testing.B) {
	path, _ := benchData(b, "1m.jsonl")
	errFirst := errors.New("first batch")
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		src, err := Open(context.Background(), Options{File: path})
		if err != nil {
			b.Fatal(err)
		}
		var first time.Duration
		err = src.Load(context.Background(), 0, func(batch []model.Execution) error {
			first = time.Since(start)
			return errFirst
		})
		if !errors.Is(err, errFirst) {
			b.Fatalf("load: %v", err)
		}
		total += first
		src.Close()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "first-batch-ms")
}
