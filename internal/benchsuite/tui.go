package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
)

// tuiRun is one load of the 1M export by the real binary in a pty, as a person opens it.
type tuiRun struct {
	secs       float64 // from the start of the process to the list with its duplicate groups
	peakMB     float64 // VmHWM: the process's peak resident memory
	residentMB float64 // VmRSS once the load is in and the memory it no longer needs handed back
}

// tuiLoad runs exectriage on the 1M export in a 120x40 pty and waits for the header's
// "refreshed", which it shows only once the load and the duplicate groups are done; then it
// reads the process's memory from /proc (Linux only, as the suite).
func (s *suite) tuiLoad(ctx context.Context, bin string) (tuiRun, error) {
	home, err := os.MkdirTemp("", "exectriage-tui-*")
	if err != nil {
		return tuiRun{}, err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, "--file", filepath.Join(s.data, "1m.jsonl"), "--readonly")
	cmd.Env = []string{"HOME=" + home, "XDG_STATE_HOME=" + home, "XDG_CONFIG_HOME=" + home, "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	start := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return tuiRun{}, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); f.Close() }()
	done := make(chan time.Time, 1)
	var once sync.Once
	go func() {
		buf := make([]byte, 64<<10)
		var tail []byte // the end of the output so far: "refreshed" may span two reads
		for {
			n, err := f.Read(buf)
			if n > 0 {
				tail = append(tail, buf[:n]...)
				if bytes.Contains(tail, []byte("refreshed")) {
					once.Do(func() { done <- time.Now() })
				}
				tail = tail[max(0, len(tail)-64):]
			}
			if err != nil {
				return
			}
		}
	}()
	var r tuiRun
	select {
	case at := <-done:
		r.secs = at.Sub(start).Seconds()
	case <-time.After(3 * time.Minute):
		return tuiRun{}, fmt.Errorf("tui: the 1M load did not finish within 3 min")
	case <-ctx.Done():
		return tuiRun{}, ctx.Err()
	}
	time.Sleep(time.Second) // what the process hands back after the load is given back by then
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
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
		return tuiRun{}, fmt.Errorf("tui: no VmHWM or VmRSS in /proc/%d/status", cmd.Process.Pid)
	}
	return r, nil
}
