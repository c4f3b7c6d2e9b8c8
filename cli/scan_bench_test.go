package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchData returns the path of a generated export (make bench-data) of the given name, from
// $EXECTRIAGE_BENCH_DATA or the repository's bench-data/; the benchmark is skipped without it.
func benchData(b *testing.B, name string) string {
	dir := os.Getenv("EXECTRIAGE_BENCH_DATA")
	if dir == "" {
		dir = filepath.Join("..", "bench-data")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s not found: run make bench-data", p)
	}
	return p
}

// BenchmarkScanFile1M is `exectriage scan --file bench-data/1m.jsonl --json` in process: load,
// classification, duplicate groups and the JSON report (to io.Discard). The benchmark suite
// also runs the real binary, for its peak RSS.
func BenchmarkScanFile1M(b *testing.B) {
	path := benchData(b, "1m.jsonl")
	for b.Loop() {
		env := newTestEnv(nil)
		env.Stdout = io.Discard
		if code := Run(context.Background(), env.Env, []string{"scan", "--file", path, "--json"}); code != ExitOK {
			b.Fatalf("exit %d: %s", code, env.err)
		}
	}
}

// BenchmarkScanFileProduction1M is the same scan of the production-shaped export (benchdata's
// Production bodies: 4.2 KB a record, make bench generates bench-data/1m-production.jsonl).
func BenchmarkScanFileProduction1M(b *testing.B) {
	path := benchData(b, "1m-production.jsonl")
	for b.Loop() {
		env := newTestEnv(nil)
		env.Stdout = io.Discard
		if code := Run(context.Background(), env.Env, []string{"scan", "--file", path, "--json"}); code != ExitOK {
			b.Fatalf("exit %d: %s", code, env.err)
		}
	}
}
