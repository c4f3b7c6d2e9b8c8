package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/internal/testkit/benchdata"
)

// referenceScan is scan as it was before it streamed: every record loaded whole (nothing
// dropped), triaged by Analyze over all of them, then printed.
func referenceScan(t *testing.T, vars map[string]string, file string, asJSON bool, since ...time.Duration) string {
	t.Helper()
	env := newTestEnv(vars)
	ctx := context.Background()
	o := app.Options{File: file, Getenv: env.Getenv, Now: env.Now}
	if len(since) > 0 {
		o.Since, o.SinceSet = since[0], true
	}
	a, err := app.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	l, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sc := app.ScannedOf(l)
	r := newScanReport(env.Env, a, sc)
	r.indexFirstMembers()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if asJSON {
		if err := r.writeScanJSON(w); err != nil {
			t.Fatal(err)
		}
	} else {
		r.scanReport(w, env.Now())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// scanVariants writes one generated history in the shapes an export comes in: newest first
// (as the generator writes), oldest first, shuffled, with repeated records, blank and bad
// lines, and gzipped.
func scanVariants(t *testing.T, dir string, seed uint64, n int) map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := benchdata.Write(context.Background(), &buf, benchdata.Config{N: n, Seed: seed, Span: 3 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	r := rand.New(rand.NewPCG(seed, 11))
	out := map[string]string{}
	write := func(name string, ls [][]byte, gz bool) {
		p := filepath.Join(dir, fmt.Sprintf("%d-%s.jsonl", seed, name))
		data := bytes.Join(ls, nil)
		if gz {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			data, p = z.Bytes(), p+".gz"
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	write("newest-first", lines, false)
	rev := slices.Clone(lines)
	slices.Reverse(rev)
	write("oldest-first", rev, false)
	shuf := slices.Clone(lines)
	r.Shuffle(len(shuf), func(a, b int) { shuf[a], shuf[b] = shuf[b], shuf[a] })
	write("shuffled", shuf, false)
	var messy [][]byte
	for i, l := range shuf {
		messy = append(messy, l)
		switch {
		case i%97 == 0:
			messy = append(messy, l) // the same record twice
		case i%89 == 0:
			messy = append(messy, []byte("\n"), []byte("{\"id\": \"broken\n"))
		}
	}
	write("messy", messy, false)
	write("gzip", lines, true)
	return out
}

// The streaming scan prints byte for byte what the in-memory scan prints, as JSON and as
// text, over exports in every order and shape, including a gzip export whose decompressed
// copy cannot be made (its candidates are then kept whole as they stream).
func TestStreamingScanMatchesLoadingEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("generates exports")
	}
	dir := t.TempDir()
	groups := 0
	for _, seed := range []uint64{1, 2, 3} {
		for name, file := range scanVariants(t, dir, seed, 1500+int(seed)*700) {
			for _, asJSON := range []bool{true, false} {
				args := []string{"scan", "--file", file}
				if asJSON {
					args = append(args, "--json")
				}
				code, got, errOut := run(t, nil, args...)
				if code != ExitOK {
					t.Fatalf("%s: exit %d: %s", name, code, errOut)
				}
				want := referenceScan(t, nil, file, asJSON)
				if got != want {
					t.Fatalf("seed %d %s (json %v): the streaming scan differs from loading everything:\n%s", seed, name, asJSON, testkit.LineDiff(want, got))
				}
				if asJSON {
					groups += bytes.Count([]byte(got), []byte(`"pattern":`))
				}
			}
		}
	}
	if groups < 50 {
		t.Fatalf("only %d groups over all files: the comparison says little", groups)
	}
	// a window cut from the file (--since): the rows, the candidates and the groups of what is
	// inside it only
	shuffled := scanVariants(t, dir, 5, 3000)["shuffled"]
	since := fixedNow.Sub(time.Date(2026, 2, 28, 22, 30, 0, 0, time.UTC)) // half the history
	code, got, errOut := run(t, nil, "scan", "--file", shuffled, "--json", "--since", since.String())
	want := referenceScan(t, nil, shuffled, true, since)
	if code != ExitOK || got != want {
		t.Fatalf("--since: exit %d %s\n%s", code, errOut, testkit.LineDiff(want, got))
	}
	all := referenceScan(t, nil, shuffled, true)
	if strings.Count(got, `"id":"log_`) == 0 || strings.Count(got, `"id":"log_`) >= strings.Count(all, `"id":"log_`) {
		t.Fatalf("--since kept %d of %d executions: the window cut nothing or everything", strings.Count(got, `"id":"log_`), strings.Count(all, `"id":"log_`))
	}
	// a gzip export whose decompressed copy cannot be written
	file := scanVariants(t, dir, 4, 2000)["gzip"]
	want = referenceScan(t, nil, file, true)
	t.Setenv("TMPDIR", filepath.Join(dir, "no-such-dir"))
	code, got, errOut = run(t, nil, "scan", "--file", file, "--json")
	if code != ExitOK || got != want {
		t.Fatalf("gzip without a spool: exit %d %s\n%s", code, errOut, testkit.LineDiff(want, got))
	}
}
