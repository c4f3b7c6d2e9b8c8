package main

import (
	"os"
	"strings"
	"testing"
)

// TestTheListParses: the kept list reads whole, each mutant with a file, its tests and a
// change, and each text is found exactly once in its file (a mutant that no longer applies is
// caught here, not in a five-minute run).
func TestTheListParses(t *testing.T) {
	f, err := os.Open("testdata/mutants.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 20 {
		t.Fatalf("%d mutants", len(ms))
	}
	names := map[string]bool{}
	for _, m := range ms {
		if names[m.Name] || m.Why == "" || m.Old == m.New || m.Old == "" {
			t.Errorf("mutant %q: duplicate, without a why, or changing nothing", m.Name)
		}
		names[m.Name] = true
		src, err := os.ReadFile("../../" + m.File)
		if err != nil {
			t.Errorf("mutant %q: %v", m.Name, err)
			continue
		}
		if c := strings.Count(string(src), m.Old); c != 1 {
			t.Errorf("mutant %q: its text is in %s %d times, want once", m.Name, m.File, c)
		}
	}
}

func TestAMalformedListIsRefused(t *testing.T) {
	for name, text := range map[string]string{
		"no file":      "== m\ntest ./x/\n<<<\na\n===\nb\n>>>\n",
		"not closed":   "== m\nfile f.go\ntest ./x/\n<<<\na\n===\nb\n",
		"stray field":  "== m\nfile f.go\nbogus 1\n",
		"outside":      "file f.go\n",
		"two open one": "== a\nfile f.go\ntest ./x/\n== b\n",
	} {
		if _, err := parse(strings.NewReader(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ms, err := parse(strings.NewReader("# c\n== m\nwhy w\nfile f.go\ntest ./x/ ./y/\nneeds postgres\n<<<\n\tline one\n\tline two\n===\n\tnew\n>>>\n"))
	if err != nil || len(ms) != 1 || ms[0].Old != "\tline one\n\tline two" || ms[0].New != "\tnew" || !ms[0].Postgres || len(ms[0].Test) != 2 {
		t.Fatalf("%+v %v", ms, err)
	}
}
