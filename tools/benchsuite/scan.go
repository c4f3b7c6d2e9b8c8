package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/exectriage/exectriage/internal/testkit/benchdata"
)

// warm reads files through once, into the page cache.
func warm(paths ...string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
	}
	return nil
}

// runScan runs the real binary's scan --json over a file and returns its wall time (s) and
// peak RSS (MB).
func runScan(ctx context.Context, bin, file string) (secs, rssMB float64, err error) {
	return measure(ctx, bin, "scan", "--file", file, "--json")
}

// measure runs a command with its output thrown away and returns its wall time (s) and peak
// RSS (MB, from rusage). The output goes straight to /dev/null: io.Discard would be a pipe this
// process copies from, on the same two cores, as a shell's > /dev/null is not.
func measure(ctx context.Context, name string, args ...string) (secs, rssMB float64, err error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return 0, 0, err
	}
	defer null.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = null
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	secs = time.Since(start).Seconds()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssMB = float64(ru.Maxrss) / (1 << 10) // Maxrss is in KiB on Linux
	}
	return secs, rssMB, nil
}

// scan runs the real binary on the 1M export, for its wall time and peak RSS, and on the 100k
// one: a streaming scan takes ten times as long on ten times the records.
func (s *suite) scan(bin string) func(context.Context) error {
	return func(ctx context.Context) error {
		var secs, rss, small, smallRSS, growth []float64
		// Both files are read once first, so that no run pays for the disk: the 100k export,
		// which nothing before reads, took 7 s instead of 0.5 in a full run's first scan.
		if err := warm(filepath.Join(s.data, "100k.jsonl"), filepath.Join(s.data, "1m.jsonl")); err != nil {
			return err
		}
		for i := range s.count {
			s.logf("exectriage scan --file 100k.jsonl and 1m.jsonl --json (run %d of %d)", i+1, s.count)
			a, ar, err := runScan(ctx, bin, filepath.Join(s.data, "100k.jsonl"))
			if err != nil {
				return err
			}
			b, br, err := runScan(ctx, bin, filepath.Join(s.data, "1m.jsonl"))
			if err != nil {
				return err
			}
			small, smallRSS, secs, rss = append(small, a), append(smallRSS, ar), append(secs, b), append(rss, br)
			growth = append(growth, b/a)
		}
		s.rows = append(s.rows,
			row{figure: "exectriage scan --file 1m.jsonl --json (classification + duplicate groups)", target: "≤ 10 s",
				values: secs, unit: "s", format: "%.1f", pass: func(m float64) bool { return m <= 10 }},
			row{figure: "  its peak RSS (rusage)", target: "≤ 1.5 GB", values: scaled(rss, 1.0/1024), unit: "GB", format: "%.2f",
				pass: func(m float64) bool { return m <= 1.5 }},
			row{figure: "  the same over 100k.jsonl", values: small, unit: "s", format: "%.2f"},
			row{figure: "    its peak RSS", values: smallRSS, unit: "MB", format: "%.0f"},
			row{figure: "  1M / 100k wall, run by run (nothing grows faster than the file)", target: "≤ 11 ×", values: growth, unit: "×",
				format: "%.1f", pass: func(m float64) bool { return m <= 11 }},
		)
		// The reference, in the same run: jq selecting the failed ids of the same file.
		jqSecs, jqRSS, err := s.jqRuns(ctx)
		if errors.Is(err, exec.ErrNotFound) {
			s.rows = append(s.rows, row{figure: "  the reference: jq -c 'select(.status==\"failed\") | .id' over the same file",
				pending: "jq not installed (apt-get install jq)"})
			return nil
		}
		if err != nil {
			return err
		}
		var ratio []float64
		for i := range min(len(secs), len(jqSecs)) {
			ratio = append(ratio, secs[i]/jqSecs[i])
		}
		s.rows = append(s.rows,
			row{figure: "  the reference: jq -c 'select(.status==\"failed\") | .id' over the same file", values: jqSecs, unit: "s",
				format: "%.1f"},
			row{figure: "    its peak RSS", values: jqRSS, unit: "MB", format: "%.0f"},
			row{figure: "  scan / jq, run by run", target: "≤ 0.25 ×", values: ratio, unit: "×", format: "%.2f",
				pass: func(m float64) bool { return m <= 0.25 }},
			row{figure: "  scan's peak RSS", target: "≤ 450 MB", values: rss, unit: "MB", format: "%.0f",
				pass: func(m float64) bool { return m <= 450 }},
		)
		return nil
	}
}

// jqRuns runs the jq reference (selecting the failed ids of the 1M export) count times, once
// per suite: the scan and the TUI load are both compared with it.
func (s *suite) jqRuns(ctx context.Context) (secs, rssMB []float64, err error) {
	if s.jqDone {
		return s.jqSecs, s.jqRSS, s.jqErr
	}
	s.jqDone = true
	jq, err := exec.LookPath("jq")
	if err != nil {
		s.jqErr = err
		return nil, nil, err
	}
	for i := range s.count {
		s.logf("jq select over 1m.jsonl (run %d of %d)", i+1, s.count)
		secs, rss, err := measure(ctx, jq, "-c", `select(.status=="failed") | .id`, filepath.Join(s.data, "1m.jsonl"))
		if err != nil {
			s.jqErr = err
			return nil, nil, err
		}
		s.jqSecs, s.jqRSS = append(s.jqSecs, secs), append(s.jqRSS, rss)
	}
	return s.jqSecs, s.jqRSS, nil
}

// production scans a 1M export shaped like a real project's (benchdata's Production bodies:
// HTML emails, Slack blocks, the providers' whole objects; 4 GB, bench-data/1m-production.jsonl,
// kept for the next run) beside jq over the same file (the generator's short bodies flattered
// scan), and opens it in the TUI.
func (s *suite) production(bin string) func(context.Context) error {
	return func(ctx context.Context) error {
		p := filepath.Join(s.data, "1m-production.jsonl")
		if err := s.generateShaped(ctx, p, benchdata.Config{N: 1_000_000, Seed: 1, Production: true}); err != nil {
			return err
		}
		if err := warm(p); err != nil {
			return err
		}
		jq, jqErr := exec.LookPath("jq")
		var secs, rss, jqSecs, ratio, tuiSecs, tuiPeak, tuiFilterPeak, tuiRatio []float64
		for i := range s.count {
			s.logf("exectriage scan --file 1m-production.jsonl --json, the TUI on it, and jq (run %d of %d)", i+1, s.count)
			a, ar, err := runScan(ctx, bin, p)
			if err != nil {
				return err
			}
			secs, rss = append(secs, a), append(rss, ar)
			tr, err := s.tuiLoad(ctx, bin, "1m-production.jsonl")
			if err != nil {
				return err
			}
			tuiSecs, tuiPeak = append(tuiSecs, tr.secs), append(tuiPeak, tr.peakMB)
			tuiFilterPeak = append(tuiFilterPeak, tr.filterPeakMB)
			if jqErr != nil {
				continue
			}
			j, _, err := measure(ctx, jq, "-c", `select(.status=="failed") | .id`, p)
			if err != nil {
				return err
			}
			jqSecs, ratio, tuiRatio = append(jqSecs, j), append(ratio, a/j), append(tuiRatio, tr.secs/j)
		}
		s.rows = append(s.rows,
			row{figure: "exectriage scan --file 1m-production.jsonl --json (production-shaped bodies, 4.2 KB a record)", values: secs,
				unit: "s", format: "%.1f"},
			row{figure: "  its peak RSS", target: "≤ 450 MB", values: rss, unit: "MB", format: "%.0f",
				pass: func(m float64) bool { return m <= 450 }},
			row{figure: "the TUI binary opens 1m-production.jsonl (pty 120x40): start to the list with its duplicate groups",
				values: tuiSecs, unit: "s", format: "%.1f"},
			row{figure: "  its peak RSS, VmHWM", target: "≤ 800 MB", values: tuiPeak, unit: "MB", format: "%.0f",
				pass: func(m float64) bool { return m <= 800 }},
			row{figure: "  the same after typing filters (" + strings.Join(filterTerms, ", ") + ": a key at a time, kept, erased)",
				target: "≤ 800 MB", values: tuiFilterPeak, unit: "MB", format: "%.0f", pass: func(m float64) bool { return m <= 800 }})
		mem, err := s.goBench(ctx, "./internal/testkit/perfbench", "^BenchmarkMemoryProduction1M$", "1x", 1)
		if err != nil {
			return err
		}
		s.rows = append(s.rows,
			row{figure: "memory per execution, 1m-production.jsonl loaded as the TUI loads it, in process (the generator's file: the " +
				"memory section)",
				target: "≤ 512 B", values: values(mem, "BenchmarkMemoryProduction1M", "B/exec"), unit: "B", format: "%.0f",
				pass: func(m float64) bool { return m <= 512 }})
		if jqErr != nil {
			s.rows = append(s.rows, row{figure: "  the reference: jq over the same file", pending: "jq not installed (apt-get install jq)"})
			return nil
		}
		s.rows = append(s.rows,
			row{figure: "  the reference: jq -c 'select(.status==\"failed\") | .id' over the same file", values: jqSecs, unit: "s",
				format: "%.1f"},
			row{figure: "  scan / jq, run by run", target: "≤ 0.25 ×", values: ratio, unit: "×", format: "%.2f",
				pass: func(m float64) bool { return m <= 0.25 }},
			row{figure: "  the TUI's whole load / jq, run by run", target: "≤ 0.4 ×", values: tuiRatio, unit: "×", format: "%.2f",
				pass: func(m float64) bool { return m <= 0.4 }})
		return nil
	}
}

// scan5m generates a 5M-record export (5 GB, bench-data/5m.jsonl, kept for the next run) and
// scans it: memory must stay within 1 GB (make bench-5m).
func (s *suite) scan5m(bin string) func(context.Context) error {
	return func(ctx context.Context) error {
		p := filepath.Join(s.data, "5m.jsonl")
		if err := s.generate(ctx, p, 5_000_000); err != nil {
			return err
		}
		var secs, rss []float64
		for i := range s.count {
			s.logf("exectriage scan --file 5m.jsonl --json (run %d of %d)", i+1, s.count)
			a, ar, err := runScan(ctx, bin, p)
			if err != nil {
				return err
			}
			secs, rss = append(secs, a), append(rss, ar)
		}
		s.rows = append(s.rows,
			row{figure: "exectriage scan --file 5m.jsonl --json (make bench-5m)", values: secs, unit: "s", format: "%.1f"},
			row{figure: "  its peak RSS", target: "≤ 1 GB", values: rss, unit: "MB", format: "%.0f",
				pass: func(m float64) bool { return m <= 1024 }},
		)
		return nil
	}
}
