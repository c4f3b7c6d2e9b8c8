package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tuiRun is one load of the 1M export by the real binary in a pty, as a person opens it.
type tuiRun struct {
	secs       float64 // from the start of the process to the list with its duplicate groups
	peakMB     float64 // VmHWM: the process's peak resident memory
	residentMB float64 // VmRSS once the load is in and the memory it no longer needs handed back
	// filterPeakMB is VmHWM again after a filter is typed (the list filtered as each key comes),
	// erased and another typed: the peak a person's first minute reaches (typeFilters).
	filterPeakMB float64
}

// filterTerms are typed into the TUI's filter, one key at a time, after a load (tuiRun.filterPeakMB).
var filterTerms = []string{"gmail send", "timeout", "user:4"}

// tuiLoad runs exectriage on an export (name, in the data directory) in a 120x40 pty and waits for the header's
// "refreshed", which it shows only once the load and the duplicate groups are done; then it
// reads the process's memory from /proc (Linux only, as the suite).
func (s *suite) tuiLoad(ctx context.Context, bin, name string) (tuiRun, error) {
	start := time.Now()
	t, err := startTUIWith(ctx, bin, nil, "--file", filepath.Join(s.data, name), "--readonly")
	if err != nil {
		return tuiRun{}, err
	}
	defer t.close()
	var r tuiRun
	h, ok := t.wait(ctx, t.watchFor(0, "refreshed"), 3*time.Minute)
	if !ok {
		if err := ctx.Err(); err != nil {
			return tuiRun{}, err
		}
		return tuiRun{}, fmt.Errorf("tui: the load of %s did not finish within 3 min", name)
	}
	r.secs = h.at.Sub(start).Seconds()
	time.Sleep(time.Second) // what the process hands back after the load is given back by then
	if r.peakMB, r.residentMB, err = memoryOf(t.cmd.Process.Pid); err != nil {
		return tuiRun{}, err
	}
	if !t.quiet(500*time.Millisecond, 30*time.Second) {
		return tuiRun{}, fmt.Errorf("tui: the screen of %s did not settle", name)
	}
	press := func(k string, settle time.Duration) error {
		if _, err := t.f.Write([]byte(k)); err != nil {
			return err
		}
		t.quiet(settle, 10*time.Second)
		return nil
	}
	for _, term := range filterTerms {
		// typed a key at a time and kept (enter), then opened again and erased a key at a
		// time (each shorter query filtered again), then left (esc)
		keys := append(append([]string{"/"}, strings.Split(term, "")...), "\r", "/")
		for range term {
			keys = append(keys, "\x7f")
		}
		for _, k := range append(keys, "\x1b") {
			if err := press(k, 60*time.Millisecond); err != nil {
				return tuiRun{}, err
			}
		}
		t.quiet(200*time.Millisecond, 10*time.Second)
	}
	if r.filterPeakMB, _, err = memoryOf(t.cmd.Process.Pid); err != nil {
		return tuiRun{}, err
	}
	return r, nil
}

// memoryOf reads a process's peak (VmHWM) and resident (VmRSS) memory, in MB, from /proc.
func memoryOf(pid int) (peakMB, residentMB float64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("tui: %w", err)
	}
	for l := range strings.Lines(string(status)) {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmHWM:":
			peakMB = kb / 1024
		case "VmRSS:":
			residentMB = kb / 1024
		}
	}
	if peakMB == 0 || residentMB == 0 {
		return 0, 0, fmt.Errorf("tui: no VmHWM or VmRSS in /proc/%d/status", pid)
	}
	return peakMB, residentMB, nil
}
