package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/sandbox"
)

// watchSoak runs `exectriage watch --json` on a live sandbox for s.watchFor while traffic comes
// at 10 executions a second, one in ten a Slack send that fails after the provider took it (a
// flagged write), and measures the delay from each such send to its event on the watcher's
// stdout, and the watcher's CPU and peak memory. `make soak-watch` runs it for an hour.
func (s *suite) watchSoak(bin string) func(context.Context) error {
	return func(ctx context.Context) error {
		srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: liveKey, Seed: 3, Size: 500, Span: 2 * time.Hour}, "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer srv.Close()
		home, err := os.MkdirTemp("", "exectriage-watch-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(home)
		cmd := exec.CommandContext(ctx, bin, "watch", "--json", "--every", "2s", "--cache", "--base-url", base, "--since", "3h",
			"--journal", filepath.Join(home, "journal.db"), "--tell", "flagged")
		cmd.Env = append(os.Environ(), "COMPOSIO_API_KEY="+liveKey, "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
			"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		var mu sync.Mutex
		sentAt := map[string]time.Time{} // request id → when its flagged write was sent
		seenAt := map[string]time.Time{} // log id → when its event was read
		go func() {
			sc := bufio.NewScanner(out)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var e struct {
					ExecutionIDs []string `json:"execution_ids"`
				}
				if json.Unmarshal(sc.Bytes(), &e) == nil && len(e.ExecutionIDs) > 0 {
					mu.Lock()
					seenAt[e.ExecutionIDs[0]] = time.Now()
					mu.Unlock()
				}
			}
		}()
		acct, user := "", ""
		for _, x := range srv.Executions() {
			if x.ToolSlug == "SLACK_SEND_MESSAGE" && x.ConnectedAccountID != "" && x.UserID != "" {
				acct, user = x.ConnectedAccountID, x.UserID
			}
		}
		time.Sleep(5 * time.Second) // the first pass over the history
		start := time.Now()
		cpu0 := cpuSeconds(cmd.Process.Pid)
		tick := time.NewTicker(100 * time.Millisecond)
		for i := 0; time.Since(start) < s.watchFor; i++ {
			<-tick.C
			rid := fmt.Sprintf("bench-watch-%d", i)
			path, body := "GMAIL_FETCH_EMAILS", fmt.Sprintf(`{"user_id":"bench-user-%d","arguments":{}}`, i%7)
			if i%10 == 0 {
				srv.ArmFault(sandbox.FaultRule{ToolSlug: "SLACK_SEND_MESSAGE", Mode: sandbox.Fault5xxAfterCommit, Count: 1})
				path = "SLACK_SEND_MESSAGE"
				body = fmt.Sprintf(`{"connected_account_id":%q,"user_id":%q,"arguments":{"channel":"C0BENCH","text":"bench %d"}}`, acct, user, i)
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v3.1/tools/execute/"+path, strings.NewReader(body))
			req.Header.Set("x-api-key", liveKey)
			req.Header.Set("x-request-id", rid)
			t := time.Now()
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
			if path == "SLACK_SEND_MESSAGE" {
				mu.Lock()
				sentAt[rid] = t
				mu.Unlock()
			}
		}
		tick.Stop()
		time.Sleep(10 * time.Second) // the last passes
		cpu := cpuSeconds(cmd.Process.Pid) - cpu0
		peak := peakMB(cmd.Process.Pid)
		elapsed := time.Since(start).Seconds()
		var delays []float64
		missed := 0
		mu.Lock()
		for _, x := range srv.Executions() {
			t, ok := sentAt[x.RequestID]
			if !ok {
				continue
			}
			if seen, ok := seenAt[x.ID]; ok {
				delays = append(delays, seen.Sub(t).Seconds())
			} else {
				missed++
			}
		}
		mu.Unlock()
		slices.Sort(delays)
		med, p95 := 0.0, 0.0
		if len(delays) > 0 {
			med, p95 = delays[len(delays)/2], delays[len(delays)*95/100]
		}
		s.rows = append(s.rows,
			row{figure: fmt.Sprintf("watch: a flagged write to its event, %s of sandbox traffic at 10 executions/s (--every 2s), median",
				s.watchFor), target: "≤ 5 s",
				values: []float64{med}, unit: "s", format: "%.2f", pass: func(m float64) bool { return m <= 5 }},
			row{figure: "  p95 of that delay", values: []float64{p95}, unit: "s", format: "%.2f"},
			row{figure: "  flagged writes never told (of " + strconv.Itoa(len(delays)+missed) + ")", target: "0",
				values: []float64{float64(missed)}, unit: "", format: "%.0f", pass: func(m float64) bool { return m == 0 }},
			row{figure: "  the watcher's CPU, share of one core", values: []float64{100 * cpu / elapsed}, unit: "%", format: "%.1f"},
			row{figure: "  the watcher's peak RSS (VmHWM)", values: []float64{peak}, unit: "MB", format: "%.0f"},
		)
		return nil
	}
}

// cpuSeconds is a process's user and system CPU time so far (/proc/PID/stat, clock ticks of 1/100 s).
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100
}

// peakMB is a process's peak resident memory (VmHWM) in MB.
func peakMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
