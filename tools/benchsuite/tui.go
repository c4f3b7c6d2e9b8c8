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
}

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
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.cmd.Process.Pid))
	if err != nil {
		return tuiRun{}, fmt.Errorf("tui: %w", err)
	}
	for l := range strings.Lines(string(status)) {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmHWM:":
			r.peakMB = kb / 1024
		case "VmRSS:":
			r.residentMB = kb / 1024
		}
	}
	if r.peakMB == 0 || r.residentMB == 0 {
		return tuiRun{}, fmt.Errorf("tui: no VmHWM or VmRSS in /proc/%d/status", t.cmd.Process.Pid)
	}
	return r, nil
}
