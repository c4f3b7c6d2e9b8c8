package perfbench

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

func benchData(b *testing.B, name string) string {
	dir := os.Getenv("EXECTRIAGE_BENCH_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "bench-data")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s not found: run make bench-data", p)
	}
	return p
}

// heapAfterGC returns the live heap, collected twice so that finalizers and sweeping settle.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// peakRSS returns the process's peak resident set (VmHWM), in bytes; 0 when unknown.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// view is what the TUI holds for a loaded export: compact rows, the filter index, the
// triage (classification per row, duplicate groups at the end) and the source, which
// re-reads a full record by offset when a row is opened.
type view struct {
	src     source.Source
	rows    model.Summaries
	index   *filter.Index
	triage  *triage.Incremental
	groups  []model.DuplicateGroup
	members [][]int
}

func load(ctx context.Context, path string, n int) (*view, error) {
	src, err := source.Open(ctx, source.Options{File: path})
	if err != nil {
		return nil, err
	}
	v := &view{src: src, index: filter.NewIndex(n), triage: triage.NewIncremental(triage.NewKinds(), triage.Options{})}
	err = src.Load(ctx, 0, func(batch []model.Execution) error {
		for i := range batch {
			e := &batch[i]
			t := v.triage.Add(e)
			v.rows.Append(e, &t)
			v.index.AppendFields(filter.FieldsOf(&filter.Row{Exec: e, Triage: &t}))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	v.groups, v.members, err = v.triage.Groups(ctx, func(ctx context.Context, pos int) (model.Execution, error) {
		return src.Get(ctx, v.rows.ID(pos))
	})
	if err != nil {
		return nil, err
	}
	for g, ps := range v.members {
		for _, p := range ps {
			v.rows.SetGroup(p, int32(g))
		}
	}
	return v, nil
}

// BenchmarkMemory1M loads bench-data/1m.jsonl the way a compact TUI would and reports the
// live heap it keeps per execution (runtime.MemStats after GC): rows, filter index, triage
// summary and duplicate groups, and the file source's offsets for Get. Run it alone in its
// process (-count 1) for a meaningful peak RSS (VmHWM, which includes the load's garbage).
func BenchmarkMemory1M(b *testing.B) {
	path := benchData(b, "1m.jsonl")
	const n = 1_000_000
	for b.Loop() {
		base := heapAfterGC()
		start := time.Now()
		v, err := load(context.Background(), path, n)
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		if v.rows.Len() != n {
			b.Fatalf("%d rows", v.rows.Len())
		}
		live := heapAfterGC() - base
		b.ReportMetric(float64(live)/n, "B/exec")
		b.ReportMetric(float64(v.rows.Size())/n, "rows-B/exec")
		b.ReportMetric(float64(v.index.Size())/n, "index-B/exec")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
		b.ReportMetric(float64(len(v.groups)), "groups")
		b.ReportMetric(elapsed.Seconds(), "load+triage-s")
		runtime.KeepAlive(v)
	}
}
