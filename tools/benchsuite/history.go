package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// The suite keeps every run's medians in a file of the repository (bench/history.jsonl, one
// JSON line a run) and compares each figure with the last earlier run that measured it, so
// that a change that gives back 20% is seen in the run that made it, not a round later.

// regression is the change against the previous run that the comparison calls worse.
const regression = 0.20

// record is one run of the suite in the history file.
type record struct {
	Commit  string            `json:"commit"` // short hash, "-dirty" when the tree had changes
	At      time.Time         `json:"at"`
	Machine string            `json:"machine"`
	Count   int               `json:"count"`
	Figures map[string]figure `json:"figures"`
}

// figure is a row's median and unit.
type figure struct {
	Median float64 `json:"median"`
	Unit   string  `json:"unit,omitempty"`
}

// record is this run's medians.
func (s *suite) record(ctx context.Context) record {
	r := record{Commit: commit(ctx), At: time.Now().UTC().Truncate(time.Second), Machine: machine(), Count: s.count,
		Figures: map[string]figure{}}
	names := figureNames(s.rows)
	for i, row := range s.rows {
		if row.pending == "" && len(row.values) > 0 {
			r.Figures[names[i]] = figure{Median: median(row.values), Unit: row.unit}
		}
	}
	return r
}

// figureNames are the rows' names in the history: a row indented under another (its requests,
// its peak) is named after the rows above it ("live: scan ... / its requests"), so that two
// sections' "its requests" stay two figures.
func figureNames(rows []row) []string {
	out := make([]string, len(rows))
	var path []string // the names of the rows above, by indentation
	for i, r := range rows {
		name := strings.TrimSpace(r.figure)
		depth := (len(r.figure) - len(strings.TrimLeft(r.figure, " "))) / 2
		path = append(path[:min(depth, len(path))], name)
		out[i] = strings.Join(path, " / ")
	}
	return out
}

// commit names the tree the suite measured.
func commit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain",
		"--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "-dirty"
	}
	return c
}

// readHistory reads the runs kept in path (none when it does not exist); a line it cannot read
// is skipped.
func readHistory(path string) ([]record, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) == nil && len(r.Figures) > 0 {
			out = append(out, r)
		}
	}
	return out, sc.Err()
}

// appendHistory adds r to path as one line.
func appendHistory(path string, r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// higherIsBetter says which units grow when things improve (throughput); every other figure
// of the suite is a time, a size, a ratio to a reference or a count, better lower.
func higherIsBetter(unit string) bool { return strings.HasSuffix(unit, "/s") }

// compare writes, for every figure of now that an earlier run measured (in order, the suite's
// rows), the last earlier value beside now's and the change, marking a change of at least
// regression for the worse; it returns how many figures got worse so.
func compare(w io.Writer, history []record, now record, order []string) int {
	type prev struct {
		v      figure
		commit string
	}
	last := map[string]prev{}
	for _, r := range history {
		for name, f := range r.Figures {
			last[name] = prev{f, r.Commit}
		}
	}
	var names []string
	for _, name := range order {
		if _, measured := now.Figures[name]; !measured {
			continue
		}
		if _, ok := last[name]; ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		fmt.Fprintln(w, "\nno earlier run measured these figures: nothing to compare")
		return 0
	}
	fmt.Fprintf(w, "\ncompared with the last earlier run of each figure (bench/history.jsonl; worse by %.0f%% or more is marked):\n\n",
		regression*100)
	fmt.Fprintln(w, "| figure | before | now | change | |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	worse := 0
	for _, name := range names {
		p, n := last[name], now.Figures[name]
		change, mark := "–", ""
		if p.v.Median != 0 {
			c := n.Median/p.v.Median - 1
			change = fmt.Sprintf("%+.0f%%", 100*c)
			if higherIsBetter(n.Unit) {
				c = -c
			}
			if c >= regression {
				mark, worse = "WORSE", worse+1
			}
		}
		fmt.Fprintf(w, "| %s | %s %s (%s) | %s %s | %s | %s |\n", name, num(p.v.Median), p.v.Unit, p.commit, num(n.Median), n.Unit,
			change, mark)
	}
	fmt.Fprintf(w, "\n%d figures worse by %.0f%% or more than their last earlier run\n", worse, regression*100)
	return worse
}

// num prints a median with the digits it needs.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
