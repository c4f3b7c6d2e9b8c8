// Command testsummary reads `go test -json` on stdin and prints what a person needs from a
// long run: each package's result line as it finishes, the whole output of every failed test,
// and at the end the tests that were skipped with their reasons (a PostgreSQL, tmux or Node
// suite that did not run is otherwise invisible in a green run). It exits 1 when anything
// failed or the input was not test output, so `make test` keeps its meaning.
//
//	go test -race -json ./... | go run ./tools/testsummary
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

// summary accumulates a run.
type summary struct {
	out     io.Writer
	buf     map[key][]string // output of tests still running
	skipped []skip
	failed  int // tests
	broken  int // packages that failed (a failed test, a build error, a panic) and stray lines
	passed  int
}

type skip struct{ pkg, test, why string }

func main() {
	s := &summary{out: os.Stdout, buf: map[key][]string{}}
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	s.report()
	if s.failed > 0 || s.broken > 0 {
		os.Exit(1)
	}
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			// not an event (a build error printed by go itself): show it, count it as a failure
			fmt.Fprintln(s.out, sc.Text())
			s.broken++
			continue
		}
		s.add(e)
	}
	return sc.Err()
}

func (s *summary) add(e event) {
	k := key{e.Package, e.Test}
	switch e.Action {
	case "build-output":
		// a compile error (Go 1.24+ reports it apart from the package's output)
		fmt.Fprint(s.out, e.Output)
	case "output":
		if e.Test == "" {
			// package lines: "ok  pkg 1.2s", "FAIL pkg", build errors, coverage
			if !strings.HasPrefix(e.Output, "PASS") && !strings.HasPrefix(e.Output, "=== ") {
				fmt.Fprint(s.out, e.Output)
			}
			return
		}
		s.buf[k] = append(s.buf[k], e.Output)
	case "pass":
		if e.Test != "" {
			s.passed++
		}
		delete(s.buf, k)
	case "skip":
		if e.Test != "" {
			s.skipped = append(s.skipped, skip{e.Package, e.Test, reason(s.buf[k])})
		}
		delete(s.buf, k)
	case "fail":
		if e.Test == "" {
			s.broken++
			return
		}
		s.failed++
		fmt.Fprintf(s.out, "--- FAIL: %s %s (%.2fs)\n", e.Package, e.Test, e.Elapsed)
		for _, l := range s.buf[k] {
			fmt.Fprint(s.out, l)
		}
		delete(s.buf, k)
	}
}

// reason is the skip message of a test's output: its lines other than the run/skip markers.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		// "file_test.go:12: message" → "message"
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// report prints the totals and the skips, one line per package and reason (a suite skipped
// for want of PostgreSQL is one line, not one per test).
func (s *summary) report() {
	fmt.Fprintf(s.out, "\n%d tests passed, %d failed, %d skipped", s.passed, s.failed, len(s.skipped))
	if s.broken > 0 {
		fmt.Fprintf(s.out, "; %d package or build failures", s.broken)
	}
	fmt.Fprintln(s.out)
	if len(s.skipped) == 0 {
		return
	}
	type group struct {
		pkg, why string
		tests    []string
	}
	var groups []*group
	byKey := map[[2]string]*group{}
	for _, k := range s.skipped {
		why := k.why
		why = cmp.Or(why, "(no reason given)")
		g := byKey[[2]string{k.pkg, why}]
		if g == nil {
			g = &group{pkg: k.pkg, why: why}
			byKey[[2]string{k.pkg, why}] = g
			groups = append(groups, g)
		}
		g.tests = append(g.tests, k.test)
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].pkg < groups[j].pkg })
	fmt.Fprintln(s.out, "skipped (each line says how to run it):")
	for _, g := range groups {
		sort.Strings(g.tests)
		names := strings.Join(g.tests[:min(len(g.tests), 3)], ", ")
		if len(g.tests) > 3 {
			names += fmt.Sprintf(" and %d more", len(g.tests)-3)
		}
		fmt.Fprintf(s.out, "  %s (%s): %s\n", strings.TrimPrefix(g.pkg, "github.com/exectriage/exectriage/"), names, g.why)
	}
}
