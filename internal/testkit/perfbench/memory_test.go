package perfbench

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/heap"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
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
func peakRSS() uint64 { return procStatus("VmHWM:") }

// residentRSS returns the process's resident set now (VmRSS), in bytes; 0 when unknown.
func residentRSS() uint64 { return procStatus("VmRSS:") }

// procStatus reads a size in kB from /proc/self/status, in bytes.
func procStatus(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte(field)); ok {
			kb, _ := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// view is what the TUI holds for a loaded export: its dataset builder (compact rows, the
// filter index, the triage of each row and the duplicate groups) and a dataset of everything,
// and the source, which re-reads a full record by offset when a row is opened. It is loaded the
// way the TUI loads it: pages streamed into a window.Builder, groups found at the end.
type view struct {
	src source.Source
	b   *window.Builder
	ds  *window.Dataset
}

func load(ctx context.Context, path string, n int) (*view, error) {
	// as the TUI's session opens an export (app.Options.Background): the records come without
	// the arguments and the responses triage never reads
	src, err := source.Open(ctx, source.Options{File: path, SkipArguments: true, KeepResponse: triage.ResponseMayFail})
	if err != nil {
		return nil, err
	}
	v := &view{src: src, b: window.NewBuilder(triage.NewKinds(), triage.Options{})}
	mem := heap.New(640 << 20) // the TUI's memory budget (ui.Run), its collector off while loading
	defer mem.Load()()
	if h, ok := src.(interface{ SizeHint() int }); ok {
		v.b.Reserve(h.SizeHint()) // as the TUI's analysis does before a load's first page
	}
	err = src.Load(ctx, 0, func(batch []model.Execution) error {
		v.b.Add(batch)
		src.(source.Recycler).Recycle(batch) // as the TUI's analysis hands its pages back
		mem.Fit()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := v.b.Groups(ctx, src.Get); err != nil {
		return nil, err
	}
	v.ds = v.b.Snapshot()
	return v, nil
}

// BenchmarkMemory1M loads bench-data/1m.jsonl as the TUI does (a window.Builder fed page by
// page) and reports the live heap it keeps per execution (runtime.MemStats after GC): rows,
// filter index, triage summary and duplicate groups, a dataset of everything, and the file
// source's offsets for Get; and what the load cost the collector (its cycles, and the bytes
// allocated). Run it alone in its process (-count 1) for a meaningful peak RSS (VmHWM, which
// includes the load's garbage).
func BenchmarkMemory1M(b *testing.B) { benchMemory(b, "1m.jsonl") }

// BenchmarkMemoryProduction1M is BenchmarkMemory1M on the production-shaped export
// (bench-data/1m-production.jsonl: long bodies, the providers' whole objects): memory per
// execution must not grow with the bodies the TUI does not keep.
func BenchmarkMemoryProduction1M(b *testing.B) { benchMemory(b, "1m-production.jsonl") }

func benchMemory(b *testing.B, name string) {
	path := benchData(b, name)
	const n = 1_000_000
	for b.Loop() {
		base := heapAfterGC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		v, err := load(context.Background(), path, n)
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.NumGC-before.NumGC), "GCs")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "alloc-MB")
		if v.ds.Len() != n {
			b.Fatalf("%d rows", v.ds.Len())
		}
		live := heapAfterGC() - base
		b.ReportMetric(float64(live)/n, "B/exec")
		b.ReportMetric(float64(v.b.Size()+v.ds.Size())/n, "dataset-B/exec")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
		debug.FreeOSMemory() // as the TUI does after a big load (ui analyzeCmd)
		b.ReportMetric(float64(residentRSS())/(1<<20), "resident-after-MB")
		b.ReportMetric(float64(len(v.ds.Groups)), "groups")
		b.ReportMetric(elapsed.Seconds(), "load+triage-s")
		runtime.KeepAlive(v)
	}
}
