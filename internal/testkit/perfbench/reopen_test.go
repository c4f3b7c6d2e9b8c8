package perfbench

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/cli"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/sandbox"
)

// BenchmarkCachedReopen100k is `make bench`'s live100kpager reopen in process, without the
// proxy's latency: scan --json --cache of 100k executions (the live sections' sandbox) whose
// logs a first scan has cached, each loop a second scan over the same window with nothing new.
// What it times is the part of the reopen the machine's speed decides: the cache read back,
// the triage and the report written.
func BenchmarkCachedReopen100k(b *testing.B) {
	const key = "bench-reopen-key"
	_, base := testkit.StartSandbox(b, sandbox.Config{Seed: 2, Size: 100_000, Span: 600 * time.Hour, APIKey: key})
	home := b.TempDir()
	vars := map[string]string{
		"COMPOSIO_API_KEY": key, "HOME": home, "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
	}
	scan := func(out io.Writer) {
		var errb bytes.Buffer
		env := &cli.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb, Now: time.Now,
			Getenv: func(k string) string { return vars[k] }}
		if code := cli.Run(context.Background(), env, []string{"scan", "--base-url", base, "--since", "720h", "--json", "--cache"}); code != 0 {
			b.Fatalf("scan: exit %d: %s", code, errb.String())
		}
	}
	var first bytes.Buffer
	fill := func() { scan(&first) } // its own frame: a profile of the loop can leave it out
	fill()
	if !strings.Contains(first.String(), `"executions":100000,`) {
		b.Fatalf("the first scan did not report 100000 executions: %.200s", first.String())
	}
	for b.Loop() {
		scan(io.Discard)
	}
}
