package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
)

// keys measures keystroke to frame on the real binary (issue 15): the TUI runs in a
// pseudo-terminal (120x40) over the 1M export; once it has loaded and gone quiet, each key is
// written alone and timed until the first byte of the frame it causes arrives (the TUI writes
// nothing while idle), then the output must stay quiet before the next key. It types filters
// (a letter, "gmsend", "user:42", "timedout"), erases them and moves the cursor.
func (s *suite) keys(bin string) func(context.Context) error {
	return func(ctx context.Context) error {
		home, err := os.MkdirTemp("", "exectriage-keys-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(home)
		cmd := exec.CommandContext(ctx, bin, "--file", filepath.Join(s.data, "1m.jsonl"), "--readonly")
		cmd.Env = []string{"HOME=" + home, "XDG_STATE_HOME=" + home, "XDG_CONFIG_HOME=" + home, "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			return err
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); f.Close() }()

		var mu sync.Mutex
		var seen strings.Builder // everything written, for the load's end
		var last time.Time       // when the newest output arrived
		arrived := make(chan time.Time, 1024)
		go func() {
			buf := make([]byte, 64<<10)
			for {
				n, err := f.Read(buf)
				if n > 0 {
					now := time.Now()
					mu.Lock()
					last = now
					if seen.Len() < 8<<20 {
						seen.Write(buf[:n])
					}
					mu.Unlock()
					select {
					case arrived <- now:
					default:
					}
				}
				if err != nil {
					return
				}
			}
		}()
		quiet := func(d, within time.Duration) bool { // output has been quiet for d
			deadline := time.Now().Add(within)
			for time.Now().Before(deadline) {
				mu.Lock()
				l := last
				mu.Unlock()
				if time.Since(l) >= d {
					return true
				}
				time.Sleep(5 * time.Millisecond)
			}
			return false
		}
		s.logf("keys: loading 1m.jsonl in the TUI (pty 120x40), pressing ? while it loads")
		deadline := time.Now().Add(3 * time.Minute)
		// While the load runs the TUI draws progress frames of its own, so a key is timed to
		// the first output that shows its effect: ? opens the help, whose last line says
		// "or esc to close"; ? closes it again.
		var loading []float64
		for {
			mu.Lock()
			started, done := strings.Contains(seen.String(), "loading"), strings.Contains(seen.String(), "refreshed")
			from := seen.Len()
			mu.Unlock()
			if done || time.Now().After(deadline) {
				break
			}
			if !started {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			start := time.Now()
			if _, err := f.Write([]byte("?")); err != nil {
				return err
			}
			for {
				mu.Lock()
				hit := strings.Contains(seen.String()[from:], "or esc to close")
				over := strings.Contains(seen.String()[from:], "refreshed")
				mu.Unlock()
				if hit {
					loading = append(loading, float64(time.Since(start).Microseconds())/1000)
					break
				}
				if over || time.Since(start) > 5*time.Second {
					break
				}
				time.Sleep(200 * time.Microsecond)
			}
			if _, err := f.Write([]byte("?")); err != nil {
				return err
			}
			time.Sleep(150 * time.Millisecond)
		}
		for {
			mu.Lock()
			done := strings.Contains(seen.String(), "refreshed")
			mu.Unlock()
			if done && quiet(500*time.Millisecond, 30*time.Second) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("keys: the TUI did not finish loading within 3 min")
			}
			time.Sleep(50 * time.Millisecond)
		}
		var seq []string
		for _, q := range []string{"g", "gmsend", "user:42", "timedout"} {
			seq = append(seq, "/")
			for _, r := range q {
				seq = append(seq, string(r))
			}
			for range q {
				seq = append(seq, "\x7f") // backspace
			}
			seq = append(seq, "\x1b") // esc leaves the prompt
		}
		for range 15 {
			seq = append(seq, "j")
		}
		for range 15 {
			seq = append(seq, "k")
		}
		var lat []float64
		for round := range s.count {
			s.logf("keys: %d keystrokes (round %d of %d)", len(seq), round+1, s.count)
			for _, k := range seq {
				for len(arrived) > 0 {
					<-arrived
				}
				start := time.Now()
				if _, err := f.Write([]byte(k)); err != nil {
					return err
				}
				select {
				case at := <-arrived:
					if k != "\x1b" { // esc waits out the terminal's escape timeout: not a frame time
						lat = append(lat, float64(at.Sub(start).Microseconds())/1000)
					}
				case <-time.After(2 * time.Second):
					return fmt.Errorf("keys: no frame within 2 s after %q", k)
				}
				quiet(60*time.Millisecond, 5*time.Second)
			}
		}
		slices.Sort(lat)
		q := func(p float64) float64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		s.rows = append(s.rows,
			row{figure: fmt.Sprintf("keystroke to frame, real binary in a pty, 1M export (%d keys: filters typed and erased, cursor moves): p95", len(lat)), target: "≤ 16 ms",
				values: []float64{q(0.95)}, unit: "ms", format: "%.1f", pass: func(m float64) bool { return m <= 16 }},
			row{figure: "  p99", target: "≤ 33 ms", values: []float64{q(0.99)}, unit: "ms", format: "%.1f", pass: func(m float64) bool { return m <= 33 }},
		)
		s.notes = append(s.notes, fmt.Sprintf("keystroke to frame (ms): p50 %.1f, p90 %.1f, p95 %.1f, p99 %.1f, max %.1f over %d keys", q(0.5), q(0.9), q(0.95), q(0.99), lat[len(lat)-1], len(lat)))
		if len(loading) == 0 {
			s.rows = append(s.rows, row{figure: "  while loading: ? to the help on screen", pending: "the load ended before a key could be timed"})
			return nil
		}
		slices.Sort(loading)
		lq := func(p float64) float64 { return loading[min(len(loading)-1, int(p*float64(len(loading))))] }
		s.rows = append(s.rows,
			row{figure: fmt.Sprintf("  while the 1M load runs (%d presses of ?, timed to the help on screen): p95", len(loading)), target: "≤ 16 ms",
				values: []float64{lq(0.95)}, unit: "ms", format: "%.1f", pass: func(m float64) bool { return m <= 16 }},
		)
		s.notes = append(s.notes, fmt.Sprintf("while loading, ? to help (ms): p50 %.1f, p95 %.1f, max %.1f over %d presses", lq(0.5), lq(0.95), loading[len(loading)-1], len(loading)))
		return nil
	}
}
