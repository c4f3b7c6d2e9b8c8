// Command mutants is the hand-mutation run of the guard's surroundings (make mutants): each
// mutant in a list (testdata/mutants.txt) is one edit that breaks a promise, applied to a copy
// of the repository; the tests of its packages must then fail. A mutant whose tests still pass
// survived: a promise no test holds. It prints one line a mutant and the score, and with -doc
// writes the table into a Markdown file between its markers.
//
//	go run ./tools/mutants [-list tools/mutants/testdata/mutants.txt] [-run REGEXP] [-doc docs/mutants.md]
//
// A mutant marked "needs postgres" runs only when EXECTRIAGE_TEST_POSTGRES names a server
// (it is reported as skipped otherwise, and the run fails when any is skipped under -require-all).
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Mutant is one edit: Old, found exactly once in File, becomes New; Test are the packages
// whose tests must kill it.
type Mutant struct {
	Name     string
	Why      string // what it breaks, in words
	File     string
	Test     []string
	Postgres bool
	Old, New string
	line     int // where it starts in the list, for messages
}

// parse reads the list: blocks of
//
//	== NAME
//	why TEXT
//	file PATH
//	test PKG [PKG...]
//	needs postgres            (optional)
//	<<<
//	old text
//	===
//	new text
//	>>>
//
// Lines starting with # outside a block's texts are comments.
func parse(r io.Reader) ([]Mutant, error) {
	var out []Mutant
	var cur *Mutant
	var text *[]string
	var old, nw []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if text != nil {
			switch l {
			case "===":
				text = &nw
				continue
			case ">>>":
				cur.Old, cur.New = strings.Join(old, "\n"), strings.Join(nw, "\n")
				out = append(out, *cur)
				cur, text, old, nw = nil, nil, nil, nil
				continue
			}
			*text = append(*text, l)
			continue
		}
		t := strings.TrimSpace(l)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "== "):
			if cur != nil {
				return nil, fmt.Errorf("line %d: mutant %q has no <<< text", n, cur.Name)
			}
			cur = &Mutant{Name: strings.TrimSpace(t[3:]), line: n}
		case cur == nil:
			return nil, fmt.Errorf("line %d: %q outside a mutant", n, t)
		case strings.HasPrefix(t, "why "):
			cur.Why = strings.TrimSpace(t[4:])
		case strings.HasPrefix(t, "file "):
			cur.File = strings.TrimSpace(t[5:])
		case strings.HasPrefix(t, "test "):
			cur.Test = strings.Fields(t[5:])
		case t == "needs postgres":
			cur.Postgres = true
		case t == "<<<":
			if cur.File == "" || len(cur.Test) == 0 {
				return nil, fmt.Errorf("line %d: mutant %q needs a file and a test", n, cur.Name)
			}
			text = &old
		default:
			return nil, fmt.Errorf("line %d: %q is not a mutant's field", n, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("mutant %q is not closed with >>>", cur.Name)
	}
	return out, nil
}

// result of one mutant.
type result struct {
	m       Mutant
	verdict string // killed, SURVIVED, skipped, INVALID
	detail  string
	took    time.Duration
}

func main() {
	list := flag.String("list", "tools/mutants/testdata/mutants.txt", "the mutants")
	run := flag.String("run", "", "only the mutants whose name matches this `REGEXP`")
	doc := flag.String("doc", "", "write the score table into this Markdown `FILE` (between <!-- mutants --> markers)")
	requireAll := flag.Bool("require-all", false, "fail when a mutant is skipped (no PostgreSQL)")
	timeout := flag.Duration("timeout", 10*time.Minute, "the longest one mutant's tests may take")
	flag.Parse()
	if err := main1(*list, *run, *doc, *requireAll, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func main1(list, run, doc string, requireAll bool, timeout time.Duration) error {
	f, err := os.Open(list)
	if err != nil {
		return err
	}
	ms, err := parse(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", list, err)
	}
	if run != "" {
		re, err := regexp.Compile(run)
		if err != nil {
			return fmt.Errorf("-run: %w", err)
		}
		var keep []Mutant
		for _, m := range ms {
			if re.MatchString(m.Name) {
				keep = append(keep, m)
			}
		}
		ms = keep
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := copyRepo(ctx)
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	pg := os.Getenv("EXECTRIAGE_TEST_POSTGRES") != ""

	// Each mutant's text must be there once, and the unmutated tests must pass: a kill means
	// the mutant, not a broken tree.
	pkgs := map[string]bool{}
	for _, m := range ms {
		src, err := os.ReadFile(filepath.Join(root, m.File))
		if err != nil {
			return fmt.Errorf("mutant %q (line %d): %w", m.Name, m.line, err)
		}
		if c := bytes.Count(src, []byte(m.Old)); c != 1 {
			return fmt.Errorf("mutant %q (line %d): its text is found %d times in %s, want once", m.Name, m.line, c, m.File)
		}
		for _, p := range m.Test {
			pkgs[p] = true
		}
	}
	var all []string
	for p := range pkgs {
		all = append(all, p)
	}
	fmt.Printf("baseline: go test %s\n", strings.Join(all, " "))
	if out, err := goTest(ctx, root, all, timeout); err != nil {
		return fmt.Errorf("the unmutated tests fail, so no kill would mean anything:\n%s", tail(out, 40))
	}

	var results []result
	for _, m := range ms {
		r := result{m: m}
		start := time.Now()
		switch {
		case m.Postgres && !pg:
			r.verdict, r.detail = "skipped", "needs EXECTRIAGE_TEST_POSTGRES"
		default:
			r.verdict, r.detail = try(ctx, root, m, timeout)
		}
		r.took = time.Since(start)
		results = append(results, r)
		fmt.Printf("%-8s %-40s %6.1fs  %s\n", r.verdict, m.Name, r.took.Seconds(), r.detail)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	killed, ran, skipped := 0, 0, 0
	for _, r := range results {
		switch r.verdict {
		case "killed":
			killed++
			ran++
		case "skipped":
			skipped++
		default:
			ran++
		}
	}
	fmt.Printf("score: %d of %d mutants killed (%d skipped)\n", killed, ran, skipped)
	if doc != "" {
		if err := writeDoc(doc, results, killed, ran, skipped); err != nil {
			return err
		}
	}
	switch {
	case killed != ran:
		return fmt.Errorf("%d mutant(s) survived or did not build", ran-killed)
	case requireAll && skipped > 0:
		return fmt.Errorf("%d mutant(s) skipped", skipped)
	}
	return nil
}

// try applies m in root, runs its tests, and puts the file back.
func try(ctx context.Context, root string, m Mutant, timeout time.Duration) (verdict, detail string) {
	path := filepath.Join(root, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return "INVALID", err.Error()
	}
	defer os.WriteFile(path, orig, 0o644) //nolint:errcheck // the copy is thrown away at the end
	if err := os.WriteFile(path, bytes.Replace(orig, []byte(m.Old), []byte(m.New), 1), 0o644); err != nil {
		return "INVALID", err.Error()
	}
	if out, err := run(ctx, root, timeout, "go", append([]string{"vet"}, m.Test...)...); err != nil {
		return "INVALID", "does not build: " + strings.ReplaceAll(tail(out, 2), "\n", " ")
	}
	out, err := goTest(ctx, root, m.Test, timeout)
	if err == nil {
		return "SURVIVED", "every test of " + strings.Join(m.Test, " ") + " passed: " + m.Why
	}
	return "killed", "by " + firstFailure(out)
}

func goTest(ctx context.Context, root string, pkgs []string, timeout time.Duration) (string, error) {
	return run(ctx, root, timeout, "go", append([]string{"test", "-count=1", "-timeout", timeout.String()}, pkgs...)...)
}

func run(ctx context.Context, dir string, timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.String(), err
}

// copyRepo copies the files git tracks (and the work tree's changes to them) into a new
// directory: the mutants never touch the work tree.
func copyRepo(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files (run from the repository's root): %w", err)
	}
	root, err := os.MkdirTemp("", "exectriage-mutants-")
	if err != nil {
		return "", err
	}
	for f := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "" {
			continue
		}
		st, err := os.Lstat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		dst := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return root, err
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return root, err
		}
		if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
			return root, err
		}
	}
	return root, nil
}

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

func firstFailure(out string) string {
	if m := failLine.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return firstLine(out)
}

func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

func tail(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

const begin, end = "<!-- mutants -->", "<!-- /mutants -->"

// writeDoc puts the score table between the markers of file.
func writeDoc(file string, results []result, killed, ran, skipped int) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	i, j := bytes.Index(b, []byte(begin)), bytes.Index(b, []byte(end))
	if i < 0 || j < i {
		return errors.New(file + " has no " + begin + " ... " + end + " markers")
	}
	var t strings.Builder
	fmt.Fprintf(
		&t,
		"%s\n**%d of %d killed** (%d skipped: no PostgreSQL), %s.\n\n",
		begin,
		killed,
		ran,
		skipped,
		time.Now().UTC().Format("2006-01-02"),
	)
	t.WriteString("| mutant | file | what it breaks | verdict |\n|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&t, "| %s | `%s` | %s | %s %s |\n", r.m.Name, r.m.File, r.m.Why, r.verdict, strings.ReplaceAll(r.detail, "|", "\\|"))
	}
	out := append(append(append([]byte{}, b[:i]...), t.String()...), b[j:]...)
	return os.WriteFile(file, out, 0o644)
}
