// Command benchsuite runs exectriage's performance suite and prints one table: each
// figure, its target, the median of the runs, and whether it passes. It generates the
// bench-data exports when they are missing, runs the Go benchmarks of the filter, the load
// path and the memory of a compact view (go test -bench, parsed), and runs the real binary's
// `scan --file bench-data/1m.jsonl --json` for its wall time and peak RSS (rusage).
//
//	go run ./tools/benchsuite [-count 3] [-data bench-data]
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/internal/testkit/benchdata"
)

func main() {
	count := flag.Int("count", 3, "runs of each measurement (the table shows the median)")
	dataDir := flag.String("data", "bench-data", "directory of the generated exports (created when missing)")
	only := flag.String("only", "", "run only these sections, comma-separated: "+strings.Join(sectionNames, ","))
	watchFor := flag.Duration("watch-for", 2*time.Minute, "how long the watch section's traffic runs (make soak-watch: an hour)")
	history := flag.String("history", "", "a `FILE` of earlier runs' medians (JSON lines): this run's are compared with them and added "+
		"(make bench: bench/history.jsonl)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s := &suite{count: max(*count, 1), log: os.Stderr, watchFor: *watchFor, history: *history}
	if *only != "" {
		s.only = map[string]bool{}
		for n := range strings.SplitSeq(*only, ",") {
			if !slices.Contains(sectionNames, n) {
				fmt.Fprintf(os.Stderr, "benchsuite: no section %q (the sections: %s)\n", n, strings.Join(sectionNames, ", "))
				os.Exit(2)
			}
			s.only[n] = true
		}
	}
	if err := s.run(ctx, *dataDir); err != nil {
		fmt.Fprintln(os.Stderr, "benchsuite:", err)
		os.Exit(1)
	}
}

// sectionNames are the parts of the suite, in the order they run.
// scan5m and live100k are not among the defaults: the one generates a 5 GB export first (make
// bench-5m), the other waits minutes for a rate limit (make bench BENCH_ONLY=live100k).
//
// scan runs first: a child's peak RSS from rusage includes this process's peak when it was
// spawned (Go starts children with vfork, and exec keeps the old peak), and the filter section
// grows this process by hundreds of megabytes (its in-process index of the 1M rows).
var sectionNames = []string{"scan", "production", "scan5m", "keys", "keystmux", "filter", "ui", "memory", "load", "live", "live100k",
	"live100kpager",
	"watch"}

type suite struct {
	jqSecs, jqRSS []float64 // the jq reference's runs, measured once (see jqRuns)
	jqErr         error
	jqDone        bool
	count         int
	only          map[string]bool // nil: every section
	watchFor      time.Duration   // how long the watch section's traffic runs
	data          string          // absolute
	log           io.Writer
	rows          []row
	notes         []string
	history       string // the file of earlier runs' medians ("" : none kept)
}

type row struct {
	figure, target string
	values         []float64
	unit           string
	format         string                 // for the median, e.g. "%.1f"
	pass           func(med float64) bool // nil: information only
	pending        string                 // set: not measured, and why
}

var sizes = []struct {
	name string
	n    int
}{{"10k.jsonl", 10_000}, {"100k.jsonl", 100_000}, {"1m.jsonl", 1_000_000}}

func (s *suite) run(ctx context.Context, dataDir string) error {
	start := time.Now()
	var err error
	if s.data, err = filepath.Abs(dataDir); err != nil {
		return err
	}
	needsData := s.only == nil
	for n := range s.only {
		needsData = needsData || !strings.HasPrefix(n, "live") // the live sections make their own
	}
	if needsData {
		if err := s.ensureData(ctx); err != nil {
			return err
		}
	}
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("exectriage-bench-%d", os.Getpid()))
	defer os.Remove(bin)
	s.logf("building %s", bin)
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	steps := []func(context.Context) error{s.scan(bin), s.production(bin), s.scan5m(bin), s.keys(bin), s.keysTmux(bin), s.filter, s.ui,
		s.memory(bin),
		s.load, s.live(bin), s.live100k(bin), func(ctx context.Context) error { return s.live100kAgainstThePager(ctx, bin) },
		s.watchSoak(bin)}
	for i, step := range steps {
		optIn := sectionNames[i] == "scan5m" || strings.HasPrefix(sectionNames[i], "live100k") // minutes each: asked by name
		if s.only != nil && !s.only[sectionNames[i]] || s.only == nil && optIn {
			continue
		}
		if err := step(ctx); err != nil {
			return err
		}
	}
	s.print(os.Stdout, time.Since(start))
	if s.history == "" {
		return nil
	}
	earlier, err := readHistory(s.history)
	if err != nil {
		return fmt.Errorf("the bench history: %w", err)
	}
	now := s.record(ctx)
	compare(os.Stdout, earlier, now, figureNames(s.rows))
	if err := appendHistory(s.history, now); err != nil {
		return fmt.Errorf("the bench history: %w", err)
	}
	s.logf("this run's medians are added to %s (commit it with the change it measured)", s.history)
	return nil
}

func (s *suite) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "benchsuite: "+format+"\n", args...)
}

func (s *suite) ensureData(ctx context.Context) error {
	if err := os.MkdirAll(s.data, 0o755); err != nil {
		return err
	}
	for _, sz := range sizes {
		if err := s.generate(ctx, filepath.Join(s.data, sz.name), sz.n); err != nil {
			return err
		}
	}
	return nil
}

// generate writes the seeded export of n records to p unless it is there already.
func (s *suite) generate(ctx context.Context, p string, n int) error {
	return s.generateShaped(ctx, p, benchdata.Config{N: n, Seed: 1})
}

// generateShaped writes the export cfg describes to p unless it is there already.
func (s *suite) generateShaped(ctx context.Context, p string, cfg benchdata.Config) error {
	n := cfg.N
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	s.logf("generating %s (%d executions)", p, n)
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = benchdata.Write(ctx, f, cfg)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// bench is one benchmark result line: the name without the -GOMAXPROCS suffix and its
// metrics by unit.
type bench struct {
	name    string
	metrics map[string]float64
}

// goBench runs go test benchmarks and returns every result line.
func (s *suite) goBench(ctx context.Context, pkg, pattern, benchtime string, count int) ([]bench, error) {
	args := []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, "-count", strconv.Itoa(count), "-timeout", "30m",
		pkg}
	s.logf("go %s", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), "EXECTRIAGE_BENCH_DATA="+s.data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test %s: %v\n%s", pkg, err, out)
	}
	var res []bench
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			if strings.Contains(sc.Text(), "SKIP") || strings.HasPrefix(strings.TrimSpace(sc.Text()), "bench") {
				s.logf("%s", sc.Text())
			}
			continue
		}
		b := bench{name: f[0], metrics: map[string]float64{}}
		if i := strings.LastIndexByte(b.name, '-'); i > 0 {
			if _, err := strconv.Atoi(b.name[i+1:]); err == nil {
				b.name = b.name[:i]
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				b.metrics[f[i+1]] = v
			}
		}
		res = append(res, b)
	}
	return res, nil
}

// values collects one metric of the results named name.
func values(res []bench, name, unit string) []float64 {
	var out []float64
	for _, b := range res {
		if v, ok := b.metrics[unit]; ok && b.name == name {
			out = append(out, v)
		}
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

var queries = []string{"gmsend", "user:42", "timedout"}

func (s *suite) filter(ctx context.Context) error {
	res, err := s.goBench(ctx, "./filter", "^(BenchmarkFilter1M|BenchmarkSahilmFuzzy1M)$", "1x", s.count)
	if err != nil {
		return err
	}
	for _, q := range queries {
		s.rows = append(s.rows, row{
			figure: fmt.Sprintf("filter p95 per keystroke, 1M rows, %q typed key by key", q), target: "≤ 50 ms",
			values: values(res, "BenchmarkFilter1M/"+q, "p95-ms/key"), unit: "ms", format: "%.1f",
			pass: func(m float64) bool { return m <= 50 },
		})
	}
	for _, q := range queries {
		ours, theirs := values(res, "BenchmarkFilter1M/"+q, "ms/key"), values(res, "BenchmarkSahilmFuzzy1M/"+q, "ms/key")
		var ratios []float64
		for i := range min(len(ours), len(theirs)) {
			if ours[i] > 0 {
				ratios = append(ratios, theirs[i]/ours[i])
			}
		}
		s.rows = append(s.rows, row{
			figure: fmt.Sprintf("filter vs sahilm/fuzzy Find, mean per keystroke, %q", q), target: "≥ 50×",
			values: ratios, unit: "×", format: "%.0f", pass: func(m float64) bool { return m >= 50 },
		})
	}
	if v := values(res, "BenchmarkFilter1M/"+queries[0], "index-B/row"); len(v) > 0 {
		s.notes = append(s.notes, fmt.Sprintf("filter index: %.0f B/row; sahilm p95 per keystroke %s ms", median(v), s.sahilmP95(res)))
	}
	// The TUI's selection of a key over the 1M export as it loads it (matches and rows, the
	// tmux bench's keys typed and erased): what the settled list waits for, without a terminal.
	// And "gmsend" typed a key every 30 ms: how long after the last key its matches come, with
	// each key stopping the search before it (as the TUI does) and with every search finishing.
	keys, err := s.goBench(ctx, "./internal/testkit/perfbench", "^(BenchmarkFilterKeys1M|BenchmarkFilterBurst1M)$", "3x", s.count)
	if err != nil {
		return err
	}
	s.rows = append(s.rows,
		row{figure: "a filter key's selection on the 1M export (matches and rows, in process, the tmux bench's keys): p95",
			values: values(keys, "BenchmarkFilterKeys1M", "key-p95-ms"), unit: "ms", format: "%.1f"},
		row{figure: "  mean", values: values(keys, "BenchmarkFilterKeys1M", "key-ms"), unit: "ms", format: "%.1f"},
		row{figure: "  \"gmsend\" a key every 30 ms: the last key's matches after it, each key stopping the search before it",
			values: values(keys, "BenchmarkFilterBurst1M", "last-key-ms-stopping"), unit: "ms", format: "%.1f"},
		row{figure: "  the same with every search left to finish", values: values(keys, "BenchmarkFilterBurst1M",
			"last-key-ms-finishing"), unit: "ms", format: "%.1f"})
	return s.fzfReference(ctx)
}

func (s *suite) sahilmP95(res []bench) string {
	var parts []string
	for _, q := range queries {
		parts = append(parts, fmt.Sprintf("%s %.0f", q, median(values(res, "BenchmarkSahilmFuzzy1M/"+q, "p95-ms/key"))))
	}
	return strings.Join(parts, ", ")
}

// ui runs the TUI's Update+View benchmark when the ui package has one (BenchmarkUpdateView*,
// reporting ms/key or ns/op); until then the row says so.
func (s *suite) ui(ctx context.Context) error {
	r := row{figure: "TUI Update+View per keystroke or cursor move, 1M executions", target: "≤ 4 ms", unit: "ms", format: "%.2f",
		pass: func(m float64) bool { return m <= 4 }}
	out, err := exec.CommandContext(ctx, "go", "test", "-list", "^BenchmarkUpdateView", "./ui").CombinedOutput()
	var names []string
	for l := range strings.SplitSeq(string(out), "\n") {
		if strings.HasPrefix(l, "BenchmarkUpdateView") {
			names = append(names, strings.TrimSpace(l))
		}
	}
	if err != nil || len(names) == 0 {
		r.pending = "pending ui (no BenchmarkUpdateView in ./ui yet)"
		s.rows = append(s.rows, r)
		return nil
	}
	res, err := s.goBench(ctx, "./ui", "^BenchmarkUpdateView", "1s", s.count)
	if err != nil {
		r.pending = "pending ui (its benchmark failed: " + firstLine(err.Error()) + ")"
		s.rows = append(s.rows, r)
		return nil
	}
	for _, b := range res {
		if v, ok := b.metrics["ms/key"]; ok {
			r.values = append(r.values, v)
		} else if v, ok := b.metrics["ns/op"]; ok && strings.Contains(b.name, "1M") {
			r.values = append(r.values, v/1e6)
		}
	}
	if len(r.values) == 0 {
		r.pending = "pending ui (BenchmarkUpdateView reports no ms/key at 1M)"
	}
	s.rows = append(s.rows, r)
	// Independent of N: each run's 1M figure over its 10k figure, per sub-benchmark.
	ratio := row{figure: "  the same at 1M over 10k (cursor, filter key; per run)", target: "≤ 1.5×", unit: "×", format: "%.2f",
		pass: func(m float64) bool { return m <= 1.5 }}
	small := map[string][]float64{}
	for _, b := range res {
		if v, ok := b.metrics["ms/key@10k"]; ok {
			k := strings.Replace(b.name, "/10k/", "/", 1)
			small[k] = append(small[k], v)
		}
	}
	seen := map[string]int{}
	for _, b := range res {
		v, ok := b.metrics["ms/key"]
		k := strings.Replace(b.name, "/1M/", "/", 1)
		if !ok || len(small[k]) <= seen[k] {
			continue
		}
		ratio.values = append(ratio.values, v/small[k][seen[k]])
		seen[k]++
	}
	if len(ratio.values) > 0 {
		s.rows = append(s.rows, ratio)
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// memory runs BenchmarkMemory1M once per process, so each peak RSS is its own, and loads the
// 1M export in the real binary: the TUI's targets are the binary's figures (the
// in-process load leaves out what the TUI adds: pages waiting for the analysis, a snapshot and
// a list selection after each, frames).
func (s *suite) memory(bin string) func(context.Context) error {
	return func(ctx context.Context) error {
		var all []bench
		var tuiSecs, tuiPeak, tuiRes []float64
		for i := range s.count {
			res, err := s.goBench(ctx, "./internal/testkit/perfbench", "^BenchmarkMemory1M$", "1x", 1)
			if err != nil {
				return err
			}
			all = append(all, res...)
			s.logf("the TUI opens 1m.jsonl in a pty (run %d of %d)", i+1, s.count)
			r, err := s.tuiLoad(ctx, bin, "1m.jsonl")
			if err != nil {
				return err
			}
			tuiSecs, tuiPeak, tuiRes = append(tuiSecs, r.secs), append(tuiPeak, r.peakMB), append(tuiRes, r.residentMB)
		}
		// The TUI's dataset on synthetic records (ui) and on the realistic 1M export as the TUI
		// loads a file (perfbench: builder fed page by page, groups re-read from the file).
		tui, err := s.goBench(ctx, "./ui", "^BenchmarkDatasetMemory$", "1x", 1)
		if err != nil {
			return err
		}
		s.rows = append(s.rows,
			row{figure: "memory per execution held by the TUI's dataset + list rows, 1M synthetic (ui BenchmarkDatasetMemory)",
				target: "≤ 512 B",
				values: values(tui, "BenchmarkDatasetMemory", "B/exec"), unit: "B", format: "%.0f",
				pass: func(m float64) bool { return m <= 512 }},
			row{figure: "memory per execution, 1M export loaded as the TUI loads it, in process: dataset + triage + groups + source " +
				"offsets (MemStats)", target: "≤ 512 B",
				values: values(all, "BenchmarkMemory1M", "B/exec"), unit: "B", format: "%.0f",
				pass: func(m float64) bool { return m <= 512 }},
			row{figure: "  of which the dataset's own arrays (rows, ids, filter index, triage, id map)", values: values(all,
				"BenchmarkMemory1M", "dataset-B/exec"), unit: "B", format: "%.0f"},
			row{figure: "  load + triage + duplicate groups in that process", values: values(all, "BenchmarkMemory1M", "load+triage-s"),
				unit: "s", format: "%.1f"},
			row{figure: "  allocated by that load (the collector's work while a person types)", values: values(all, "BenchmarkMemory1M",
				"alloc-MB"), unit: "MB", format: "%.0f"},
			row{figure: "  collector cycles during that load", values: values(all, "BenchmarkMemory1M", "GCs"), format: "%.0f"},
			row{figure: "  peak RSS of that process (VmHWM)", values: values(all, "BenchmarkMemory1M", "peak-RSS-MB"), unit: "MB",
				format: "%.0f"},
			row{figure: "  resident after its load, memory handed back as the TUI does", values: values(all, "BenchmarkMemory1M",
				"resident-after-MB"), unit: "MB", format: "%.0f"},
			row{figure: "the TUI binary opens the 1M export (pty 120x40): start to the list with its duplicate groups", values: tuiSecs,
				unit: "s", format: "%.1f"},
			row{figure: "  its peak RSS, VmHWM", target: "≤ 800 MB", values: tuiPeak, unit: "MB", format: "%.0f",
				pass: func(m float64) bool { return m <= 800 }},
			row{figure: "  resident after the load, VmRSS", target: "≤ 450 MB", values: tuiRes, unit: "MB", format: "%.0f",
				pass: func(m float64) bool { return m <= 450 }},
		)
		jqSecs, _, err := s.jqRuns(ctx)
		switch {
		case errors.Is(err, exec.ErrNotFound):
			s.rows = append(s.rows, row{figure: "  load / jq select over the same file", pending: "jq not installed (apt-get install jq)"})
		case err != nil:
			return err
		default:
			var ratio []float64
			for i := range min(len(tuiSecs), len(jqSecs)) {
				ratio = append(ratio, tuiSecs[i]/jqSecs[i])
			}
			s.rows = append(s.rows, row{figure: "  load / jq select over the same file, run by run", target: "≤ 0.4 ×", values: ratio,
				unit: "×", format: "%.2f", pass: func(m float64) bool { return m <= 0.4 }})
		}
		return nil
	}
}

func (s *suite) load(ctx context.Context) error {
	res, err := s.goBench(ctx, "./source", "^BenchmarkLoadFile1M$", "1x", s.count)
	if err != nil {
		return err
	}
	first, err := s.goBench(ctx, "./source", "^BenchmarkFirstBatch1M$", "10x", s.count)
	if err != nil {
		return err
	}
	screen, err := s.goBench(ctx, "./ui", "^BenchmarkFirstScreen1M$", "10x", s.count)
	if err != nil {
		return err
	}
	one, err := s.goBench(ctx, "./model", "^BenchmarkParseRecord$", "1s", s.count)
	if err != nil {
		return err
	}
	s.rows = append(s.rows,
		row{figure: "first screen of a 1M JSONL export in the TUI (Init to the first frame listing rows)", target: "≤ 150 ms",
			values: values(screen, "BenchmarkFirstScreen1M", "first-screen-ms"), unit: "ms", format: "%.0f",
			pass: func(m float64) bool { return m <= 150 }},
		row{figure: "  of which the file source's first batch", values: values(first, "BenchmarkFirstBatch1M", "first-batch-ms"),
			unit: "ms", format: "%.0f"},
		row{figure: "parse the whole 1M export (source.LoadFile, all cores)", target: "≥ 150 MB/s",
			values: values(res, "BenchmarkLoadFile1M", "MB/s"), unit: "MB/s", format: "%.0f",
			pass: func(m float64) bool { return m >= 150 }},
		row{figure: "  the same parse on one core (model.Parser)", values: values(one, "BenchmarkParseRecord/parser", "MB/s"),
			unit: "MB/s", format: "%.0f"},
	)
	if v := values(one, "BenchmarkParseRecord/reference", "MB/s"); len(v) > 0 {
		s.notes = append(s.notes, fmt.Sprintf("one-core parse: model.Parser %.0f MB/s, the encoding/json reference parser %.0f MB/s",
			median(values(one, "BenchmarkParseRecord/parser", "MB/s")), median(v)))
	}
	return nil
}

func (s *suite) print(w io.Writer, took time.Duration) {
	fmt.Fprintf(w, "exectriage benchmark suite — %s\n", machine())
	var files []string
	for _, sz := range sizes {
		if st, err := os.Stat(filepath.Join(s.data, sz.name)); err == nil {
			files = append(files, fmt.Sprintf("%s %.0f MB", sz.name, float64(st.Size())/1e6))
		}
	}
	fmt.Fprintf(w, "data: %s (seeded, make bench-data); median of %d runs; suite took %s\n", strings.Join(files, ", "), s.count,
		took.Round(time.Second))
	if s.only != nil {
		var ran []string
		for _, n := range sectionNames {
			if s.only[n] {
				ran = append(ran, n)
			}
		}
		fmt.Fprintf(w, "partial run (-only): sections %s\n", strings.Join(ran, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| figure | target | median | runs | result |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	failed := 0
	for _, r := range s.rows {
		target := r.target
		target = cmp.Or(target, "–")
		if r.pending != "" {
			fmt.Fprintf(w, "| %s | %s | – | – | %s |\n", r.figure, target, r.pending)
			continue
		}
		if len(r.values) == 0 {
			fmt.Fprintf(w, "| %s | %s | – | – | not measured |\n", r.figure, target)
			if r.pass != nil {
				failed++
			}
			continue
		}
		med := median(r.values)
		var runs []string
		for _, v := range r.values {
			runs = append(runs, fmt.Sprintf(r.format, v))
		}
		result := "info"
		if r.pass != nil {
			result = "pass"
			if !r.pass(med) {
				result, failed = "FAIL", failed+1
			}
		}
		fmt.Fprintf(w, "| %s | %s | "+r.format+" %s | %s | %s |\n", r.figure, target, med, r.unit, strings.Join(runs, " "), result)
	}
	for _, n := range s.notes {
		fmt.Fprintf(w, "\n%s", n)
	}
	fmt.Fprintf(w, "\n\n%d of the targets failed\n", failed)
}

// machine describes where the suite ran: CPU model, cores, Go version, load at the end.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for l := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = ", load average " + strings.Join(f[:3], " ")
		}
	}
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s %s/%s%s", model, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(),
		runtime.GOOS, runtime.GOARCH, load)
}

// scaled multiplies every value by f (GB to MB, say).
func scaled(vs []float64, f float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v * f
	}
	return out
}
