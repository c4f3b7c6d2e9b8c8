package e2e

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// writeBigDetail writes to path a log detail of about size bytes: a Gmail fetch whose answer
// lists many messages (a read: the retry guard refuses it after loading it) or a send whose
// arguments carry as many attachments (a write: the guard reads it whole). It is written as it
// is made: the test process itself stays small (a child's peak memory counts its parent's until
// it execs).
func writeBigDetail(t *testing.T, path, id, tool string, size int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	status, open, closing := "success", `"request":{"arguments":{"query":"in:inbox"}},"response":{"data":{"messages":[`, `]},"successful":true}`
	if tool == "GMAIL_SEND_EMAIL" {
		status, open, closing = "failed", `"request":{"arguments":{"recipient_email":"a@b.c","subject":"s","body":"hi","attachments":[`,
			`]}},"error":{"message":"Read timed out","kind":"timeout"}`
	}
	fmt.Fprintf(w, `{"id":"%s","timestamp":"2026-03-01T10:00:00.000Z","type":"tool.execution","status":"%s","level":"info","message":"m",`+
		`"metadata":{"tool_slug":"%s","toolkit_slug":"gmail","user_id":"alice","connected_account_id":"ca_alice"},`+
		`"metrics":{"duration_ms":60000},"parent":null,"timings":{"start_time":1772359200000,"end_time":1772359260000},`+
		`"context":{},"source":{},"data":{%s`, id, status, tool, open)
	for i, n := 0, 0; n < size; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		k, _ := fmt.Fprintf(w, `{"id":"m%07d","threadId":"t%07d","snippet":"hello world %d","labelIds":["INBOX","UNREAD"]}`, i, i, i)
		n += k + 1
	}
	fmt.Fprintf(w, "%s}}", closing)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// watchPeak follows a process's peak resident memory (VmHWM in /proc/PID/status, in kB) until
// the returned function is called (after Wait). Not the rusage of Wait: a child's maxrss counts
// its parent's memory until it execs, and a test binary under -race is large.
func watchPeak(pid int) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		path := "/proc/" + strconv.Itoa(pid) + "/status"
		for {
			if b, err := os.ReadFile(path); err == nil {
				for l := range strings.SplitSeq(string(b), "\n") {
					if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
						if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil && kb > peak.Load() {
							peak.Store(kb)
						}
					}
				}
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		return peak.Load()
	}
}

// TestAHugeDetailStaysWithinMemory: a 60 MB log detail took `show` to 1.9 GB and `retry` past
// 3 GB (decoded into trees several times over). The binary, against a loopback server that
// serves one, stays under 600 MB of resident memory, as the kernel counts it (its peak, read
// while it runs).
func TestAHugeDetailStaysWithinMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 60 MB documents")
	}
	const limitKB = 600 << 10
	home := t.TempDir()
	details := map[string]string{"log_fetch": filepath.Join(home, "fetch.json"), "log_send": filepath.Join(home, "send.json")}
	writeBigDetail(t, details["log_fetch"], "log_fetch", "GMAIL_FETCH_EMAILS", 60<<20)
	writeBigDetail(t, details["log_send"], "log_send", "GMAIL_SEND_EMAIL", 60<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if i := strings.LastIndex(r.URL.Path, "/logs/tool_execution/"); i >= 0 {
			if path, ok := details[r.URL.Path[i+len("/logs/tool_execution/"):]]; ok {
				http.ServeFile(w, r, path) // from the file: the test process holds none of it
				return
			}
		}
		_, _ = w.Write([]byte(`{"logs":[],"items":[],"next_cursor":null}`))
	}))
	defer srv.Close()
	for _, args := range [][]string{
		{"show", "log_fetch"},
		{"show", "log_fetch", "--json"},
		{"show", "log_send"},
		{"retry", "log_send"}, // no confirmation: the guard reads everything, then refuses
		{"retry", "log_fetch", "--confirm-failed", "--reason", "r"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(binPath, append(args, "--base-url", srv.URL, "--journal", filepath.Join(home, "j.db"))...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
				"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "COMPOSIO_API_KEY=" + apiKey}
			devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0) // the record printed is not held here
			if err != nil {
				t.Fatal(err)
			}
			defer devnull.Close()
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = devnull, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			peak := watchPeak(cmd.Process.Pid)
			_ = cmd.Wait() // show exits 0, the refused retries 3
			kb := peak()
			if code := cmd.ProcessState.ExitCode(); code != 0 && code != 3 {
				t.Fatalf("exit %d:\n%.2000s", code, out.String())
			}
			if kb == 0 {
				t.Skip("no /proc/PID/status here: the peak cannot be read")
			}
			t.Logf("peak resident memory %d MB", kb>>10)
			if kb > limitKB {
				t.Fatalf("peak resident memory %d MB, want under 600 MB", kb>>10)
			}
		})
	}
}

// TestARepeatedRecordExportStaysWithinMemory: a 2.4 MB gzip export of 22 million tiny records
// took scan to 1.1 GB (one record repeated), and 2.6 GB and list to 19 GB (two records in
// turn), every copy held until the load was in; a record equal to the latest of its id within
// the last ids a gzip stream can repeat is dropped as it is read, and counted as a copy, so
// every command stays under 600 MB.
func TestARepeatedRecordExportStaysWithinMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 22 million records")
	}
	tests := []struct {
		name       string
		ids, times int  // ids in turn, rounds of them
		flip       bool // each id's status flips each round: refused (source.MaxChanges)
	}{
		{"one record", 1, 22_000_000, false},
		{"two in turn", 2, 11_000_000, false},
		{"a thousand in turn", 1000, 5_000, false},
		{"one record whose status flips", 1, 22_000_000, true},
	}
	for _, tt := range tests {
		home := t.TempDir()
		path := filepath.Join(home, "tiny.jsonl.gz")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
		var round strings.Builder
		for i := range tt.ids {
			fmt.Fprintf(&round, `{"id":"log_%d","status":"success"}`+"\n", i)
			if tt.flip {
				fmt.Fprintf(&round, `{"id":"log_%d","status":"failed"}`+"\n", i)
			}
		}
		per := max(1, 100_000/tt.ids) // rounds a write
		chunk := []byte(strings.Repeat(round.String(), per))
		for n := 0; n < tt.times; n += per {
			if _, err := zw.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		records := tt.ids * ((tt.times + per - 1) / per * per)
		for _, command := range []string{"scan", "list"} {
			t.Run(tt.name+"/"+command, func(t *testing.T) {
				cmd := exec.Command(binPath, command, "--file", path, "--json")
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
					"EXECTRIAGE_MAX_GZIP_RATIO=10000"} // past the gzip-bomb guard's 100×, to read every record
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				peak := watchPeak(cmd.Process.Pid)
				err := cmd.Wait()
				kb := peak()
				if tt.flip {
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(errb.String(), `bad file: `+path+`: log id "log_0" comes more than`) {
						t.Errorf("%s: %v, want exit 2 naming the id that keeps changing:\n%s", command, err, errb.String())
					}
				} else if err != nil {
					t.Fatalf("%s: %v\n%s", command, err, errb.String())
				}
				executions := fmt.Sprintf(`"executions":%d,`, tt.ids) // scan's summary
				if command == "list" {
					executions = fmt.Sprintf(`"matched": %d,`, tt.ids)
				}
				copies := fmt.Sprintf("%d records were other copies", records-tt.ids)
				if !tt.flip && (!strings.Contains(out.String(), executions) || !strings.Contains(errb.String(), copies)) {
					t.Errorf("%s does not say %d executions (%s), %d copies of them:\n%.1500s\n%s", command, tt.ids, executions, records-tt.ids, out.String(), errb.String())
				}
				if kb == 0 {
					t.Skip("no /proc/PID/status here: the peak cannot be read")
				}
				t.Logf("peak resident memory %d MB", kb>>10)
				if kb > 600<<10 {
					t.Fatalf("peak resident memory %d MB, want under 600 MB", kb>>10)
				}
			})
		}
	}
}

// TestADistinctRecordExportStaysWithinMemory: a 2.5 MB gzip export of a million distinct tiny
// records took list to 1.2 GB, show and bundle to 1.6 GB and export to 1.8 GB (every record
// held whole, with its triage and its window row); list, show and bundle now stream an export
// into rows as scan does (list with the filter's index), show and bundle read only the records
// they name again, and export each record again in order, so every command stays under 600 MB.
func TestADistinctRecordExportStaysWithinMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a million records a command")
	}
	const n = 1_000_000
	home := t.TempDir()
	path := filepath.Join(home, "distinct.jsonl.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	bw := bufio.NewWriterSize(zw, 1<<20)
	for i := range n {
		fmt.Fprintf(bw, `{"id":"log_%d","status":"success"}`+"\n", i)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	t.Logf("%d distinct records in %.1f MB of gzip", n, float64(st.Size())/1e6)
	for _, tt := range []struct {
		args []string
		want string // on stdout
	}{
		{[]string{"scan", "--json"}, fmt.Sprintf(`"executions":%d,`, n)},
		{[]string{"list", "--json"}, fmt.Sprintf(`"matched": %d,`, n)},
		{[]string{"list", "--filter", "id:log_99999*"}, "log_999999\n"},
		{[]string{"show", "log_777777", "--json"}, `"id": "log_777777"`},
		{[]string{"bundle", "log_5", "log_999999"}, "log_999999"},
		{[]string{"export"}, `{"id":"log_0",`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := exec.Command(binPath, append(tt.args, "--file", path)...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			peak := watchPeak(cmd.Process.Pid)
			err := cmd.Wait()
			kb := peak()
			if err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("stdout does not say %q:\n%.1500s", tt.want, out.String())
			}
			if kb == 0 {
				t.Skip("no /proc/PID/status here: the peak cannot be read")
			}
			t.Logf("peak resident memory %d MB", kb>>10)
			if kb > 600<<10 {
				t.Fatalf("peak resident memory %d MB, want under 600 MB", kb>>10)
			}
		})
	}
}

// TestAServerIgnoringThePageSizeStaysWithinMemory: a server that ignores limit and answers
// every page with tens of thousands of records took list past 1.4 GB (eight slices of the
// window at once, each holding its page); such a page is refused before its records are read
// (more records than asked for), or as it is read (larger than the records asked for can be).
func TestAServerIgnoringThePageSizeStaysWithinMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("serves 25 MB pages")
	}
	home := t.TempDir()
	for _, tt := range []struct {
		name    string
		records int
		message int
	}{
		{"many small records", 60000, 250},
		{"fewer, larger records", 60000, 800},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(home, "page.json")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			w := bufio.NewWriter(f)
			w.WriteString(`{"logs":[`)
			msg := strings.Repeat("x", tt.message)
			for i := range tt.records {
				if i > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `{"id":"log_%d","timestamp":"2026-12-04T10:00:00.000Z","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","toolkit_slug":"gmail"},"message":"%s"}`, i, msg)
			}
			w.WriteString(`],"next_cursor":"again"}`)
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/logs/tool_execution") {
					http.ServeFile(w, r, path)
					return
				}
				_, _ = w.Write([]byte(`{"items":[],"next_cursor":null}`))
			}))
			defer srv.Close()
			cmd := exec.Command(binPath, "list", "--base-url", srv.URL, "--no-cache")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "COMPOSIO_API_KEY=" + apiKey}
			var errb strings.Builder
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			peak := watchPeak(cmd.Process.Pid)
			_ = cmd.Wait()
			kb := peak()
			if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(errb.String(), "page") && !strings.Contains(errb.String(), "too large") {
				t.Fatalf("list of a server ignoring the page size: exit %d: %s", cmd.ProcessState.ExitCode(), errb.String())
			}
			if kb == 0 {
				t.Skip("no /proc/PID/status here: the peak cannot be read")
			}
			t.Logf("peak resident memory %d MB: %s", kb>>10, strings.TrimSpace(errb.String()))
			if kb > 600<<10 {
				t.Fatalf("peak resident memory %d MB, want under 600 MB", kb>>10)
			}
		})
	}
}
