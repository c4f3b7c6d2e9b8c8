// Command gen writes a seeded JSONL export of the Logs API for benchmarks (see package
// benchdata): go run ./tools/benchdata-gen -n 1000000 -o bench-data/1m.jsonl
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/exectriage/exectriage/internal/testkit/benchdata"
)

func main() {
	n := flag.Int("n", 10_000, "executions to write")
	seed := flag.Uint64("seed", 1, "seed (same seed, same bytes)")
	out := flag.String("o", "", "output `FILE` (written through a temporary file, then renamed)")
	prod := flag.Bool(
		"production",
		false,
		"the bodies of real projects' exports (HTML emails, Slack blocks, providers' whole objects): about 4× the bytes",
	)
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -n N [-seed S] -o FILE")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *out, *n, *seed, *prod); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out string, n int, seed uint64, prod bool) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".gen-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	start := time.Now()
	st, err := benchdata.Write(ctx, tmp, benchdata.Config{N: n, Seed: seed, Production: prod})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	fmt.Fprintf(
		os.Stderr,
		"%s: %d records, %.1f MB (%.0f B/record), %d failed, %d in duplicate bursts, in %s\n",
		out,
		st.Records,
		float64(st.Bytes)/1e6,
		float64(st.Bytes)/float64(max(st.Records, 1)),
		st.Failed,
		st.Duplicates,
		time.Since(start).Round(time.Millisecond),
	)
	return nil
}
