package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each figure is compared with the last earlier run that measured it; a change of 20% or more
// for the worse is marked (a throughput that falls, a time or a size that grows), a smaller
// one or one for the better is not, and a figure no earlier run measured is not compared.
func TestTheHistoryMarksWhatGotWorse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	old := record{Commit: "aaaaaaa", At: time.Unix(0, 0).UTC(), Count: 3, Figures: map[string]figure{
		"scan":       {Median: 10, Unit: "s"},
		"parse":      {Median: 100, Unit: "MB/s"},
		"peak":       {Median: 400, Unit: "MB"},
		"requests":   {Median: 0},
		"only later": {Median: 5, Unit: "s"},
	}}
	newer := record{Commit: "bbbbbbb", Figures: map[string]figure{"only later": {Median: 4, Unit: "s"}}}
	for _, r := range []record{old, newer} {
		if err := appendHistory(path, r); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("not json\n")
	f.Close()
	hist, err := readHistory(path)
	if err != nil || len(hist) != 2 || hist[0].Figures["scan"].Median != 10 {
		t.Fatalf("read back %+v (%v)", hist, err)
	}
	now := record{Figures: map[string]figure{
		"scan":       {Median: 12.5, Unit: "s"},  // +25%: worse
		"parse":      {Median: 70, Unit: "MB/s"}, // -30% of a throughput: worse
		"peak":       {Median: 300, Unit: "MB"},  // -25%: better
		"requests":   {Median: 3},                // from 0: no ratio
		"only later": {Median: 4.6, Unit: "s"},   // +15% on bbbbbbb's 4: not marked
		"brand new":  {Median: 1, Unit: "s"},
	}}
	var out strings.Builder
	worse := compare(&out, hist, now, []string{"scan", "parse", "peak", "requests", "only later", "brand new"})
	if worse != 2 {
		t.Errorf("%d figures worse, want 2:\n%s", worse, out.String())
	}
	for _, want := range []string{"| scan | 10.0 s (aaaaaaa) | 12.5 s | +25% | WORSE |", "| parse | 100 MB/s (aaaaaaa) | 70.0 MB/s | -30% | WORSE |",
		"| peak | 400 MB (aaaaaaa) | 300 MB | -25% |  |", "| only later | 4 s (bbbbbbb) | 4.6 s | +15% |  |", "| requests | 0  (aaaaaaa) | 3  | – |  |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no line %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "brand new") {
		t.Errorf("a figure no earlier run measured was compared:\n%s", out.String())
	}
	var none strings.Builder
	if compare(&none, nil, now, []string{"scan"}) != 0 || !strings.Contains(none.String(), "nothing to compare") {
		t.Errorf("without history: %s", none.String())
	}
}

// A row indented under another is named after it: two sections' "its requests" are two figures.
func TestIndentedFiguresAreNamedAfterTheirSection(t *testing.T) {
	got := figureNames([]row{{figure: "live 10k"}, {figure: "  its requests"}, {figure: "    per page"}, {figure: "live 100k"}, {figure: "  its requests"}})
	want := []string{"live 10k", "live 10k / its requests", "live 10k / its requests / per page", "live 100k", "live 100k / its requests"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
}
