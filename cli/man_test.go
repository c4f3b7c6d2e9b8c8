package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The committed man pages are what `make man` writes from the command definitions now.
func TestManPagesAreCurrent(t *testing.T) {
	dir := t.TempDir()
	if err := WriteManPages(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	want, _ := filepath.Glob("../man/*.1")
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("%d pages generated, %d committed: run make man", len(got), len(want))
	}
	for _, g := range got {
		a, _ := os.ReadFile(g)
		b, err := os.ReadFile(filepath.Join("../man", filepath.Base(g)))
		if err != nil || string(a) != string(b) {
			t.Errorf("man/%s is not what the commands define now: run make man", filepath.Base(g))
		}
	}
}

// Every man page has ENVIRONMENT, FILES and EXIT STATUS before SEE ALSO, and
// ENVIRONMENT names every variable the program reads (found in its sources), so a new one
// cannot go undocumented.
func TestManPagesHaveEnvironmentFilesAndExitStatus(t *testing.T) {
	pages, _ := filepath.Glob("../man/*.1")
	if len(pages) == 0 {
		t.Fatal("no man pages")
	}
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		s := string(b)
		env, files, exit, see := strings.Index(s, ".SH ENVIRONMENT"), strings.Index(s, ".SH FILES"), strings.Index(s, ".SH EXIT STATUS"), strings.Index(s, ".SH SEE ALSO")
		if env < 0 || files < env || exit < files || (see >= 0 && see < exit) {
			t.Errorf("%s: ENVIRONMENT %d, FILES %d, EXIT STATUS %d, SEE ALSO %d", filepath.Base(p), env, files, exit, see)
		}
		for _, code := range []string{`\fB0\fP`, `\fB2\fP`, `\fB4\fP`} {
			if !strings.Contains(s[max(exit, 0):], code) {
				t.Errorf("%s: EXIT STATUS lacks %s", filepath.Base(p), code)
			}
		}
	}
	root, _ := os.ReadFile("../man/exectriage.1")
	envSection := string(root)
	envSection = envSection[strings.Index(envSection, ".SH ENVIRONMENT"):strings.Index(envSection, ".SH FILES")]
	read := regexp.MustCompile(`[gG]etenv\("([A-Z_]+)"\)`)
	generic := map[string]bool{"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "TERM": true, "DISPLAY": true, "WAYLAND_DISPLAY": true,
		"GOGC": true, "GOMEMLIMIT": true, "GOMAXPROCS": true}
	seen := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "tools" || d.Name() == "testkit" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir // programs of the repository's own, and test helpers
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range read.FindAllStringSubmatch(string(b), -1) {
			seen++
			if !generic[m[1]] && !strings.Contains(envSection, m[1]) {
				t.Errorf("%s reads %s, which the man page's ENVIRONMENT does not name", path, m[1])
			}
		}
		return nil
	})
	if err != nil || seen < 10 {
		t.Fatalf("walked the sources: %d reads found, %v", seen, err)
	}
}
