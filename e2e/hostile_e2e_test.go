package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/google/uuid"
)

// runIn runs the real binary in dir with a minimal environment (plus extra) and returns its
// exit status and output; it fails the test when the binary does not end within limit.
func runIn(t *testing.T, dir string, extra []string, limit time.Duration, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "TMPDIR=" + filepath.Join(home)}, extra...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not end within %v:\n%s\n%s", args, limit, out.String(), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A mistyped or keyword PostgreSQL DSN never becomes a SQLite file named after it in the
// working directory, and no message shows its password: a mistyped one is refused (exit 2), a
// keyword DSN is PostgreSQL (here a server that is not there: a run-time failure, exit 1).
func TestJournalDSNsInTheRealBinary(t *testing.T) {
	for _, tt := range []struct {
		dsn  string
		code int
	}{
		{"host=127.0.0.1 port=1 dbname=x user=u password=s3cretpw connect_timeout=2", 1},
		{"postgres://u:s3cretpw@127.0.0.1:1/db?connect_timeout=2", 1},
		{"postgre://u:s3cretpw@127.0.0.1:1/db", 2},
		{"postgres:u:s3cretpw@127.0.0.1/db", 2},
		{"hots=127.0.0.1 passwrd=s3cretpw", 2},
	} {
		dir := t.TempDir()
		for _, args := range [][]string{{"journal", "--journal", tt.dsn}, {"mark", "log_x", "ignored", "--journal", tt.dsn, "--demo"}} {
			r := runIn(t, dir, nil, 60*time.Second, args...)
			if r.code != tt.code {
				t.Errorf("%v: exit %d, want %d: %s", args, r.code, tt.code, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "s3cretpw") {
				t.Errorf("%v printed the password: %s%s", args, r.stdout, r.stderr)
			}
			if strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("%v: want one line of error, got %q", args, r.stderr)
			}
		}
		if names := entries(t, dir); len(names) != 0 {
			t.Errorf("%q: files appeared in the working directory: %v", tt.dsn, names)
		}
	}
}

// retry --file F --base-url URL decides on the live log, not on the file: an export edited to
// say the email failed does not get a send when the live log records success, and a record the
// live API does not have gets none either.
func TestRetryFromAnEditedExportDecidesOnTheLiveLog(t *testing.T) {
	e := newEnv(t, "")
	ctx := context.Background()
	rid := uuid.NewString()
	args := `{"recipient_email":"dan@example.com","subject":"Edited export","body":"hello"}`
	if _, err := e.c.WithoutRetries().Execute(ctx, tool, client.ExecuteRequest{Arguments: json.RawMessage(args),
		ConnectedAccountID: e.account, UserID: "user-e2e", RequestID: rid}); err != nil {
		t.Fatal(err)
	}
	var live model.Execution
	for page, err := range e.c.ListLogs(ctx, client.LogQuery{Filters: []client.LogFilter{{Field: "request_id", Value: rid}}}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range page.Executions {
			if live, err = e.c.GetLog(ctx, x.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if live.Status != model.StatusSuccess {
		t.Fatalf("setup: live log %+v", live)
	}
	edited := live
	// Edited so that the provider check (on the file's arguments) finds nothing: only the live
	// log can tell that the email went out.
	edited.Arguments = json.RawMessage(`{"recipient_email":"dan@example.com","subject":"Edited export, as the file says","body":"hello"}`)
	edited.Status = "failed"
	edited.Error = &model.ExecError{Kind: model.ErrTimeout, Message: "Request timed out after 60000ms"}
	ghost := edited
	ghost.ID = "log_not_in_the_api"
	var lines []byte
	for _, x := range []model.Execution{edited, ghost} {
		b, err := json.Marshal(model.ToWire(&x, true))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	path := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(path, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	before := e.sends()
	for _, id := range []string{edited.ID, ghost.ID} {
		r := e.run("retry", id, "--file", path, "--confirm-failed", "--reason", "the file says it failed")
		if r.code != 3 {
			t.Errorf("retry %s from the edited export: exit %d, want 3 (refused):\n%s%s", id, r.code, r.stdout, r.stderr)
		}
	}
	if got := e.sends() - before; got != 0 {
		t.Fatalf("%d sends from an edited export, want none", got)
	}
}

// A FIFO or a device as --file or as the config file is refused at once (exit 2), instead of
// blocking forever on open or reading without end.
func TestNonRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "export.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, args := range [][]string{
		{"scan", "--file", fifo},
		{"list", "--file", "/dev/zero"},
		{"show", "log_x", "--file", fifo, "--json"},
		{"scan", "--demo", "--config", fifo},
		{"list", "--demo", "--config", "/dev/zero"},
	} {
		r := runIn(t, dir, nil, 20*time.Second, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("%v: exit %d, want 2 saying it is not a regular file: %s", args, r.code, r.stderr)
		}
	}
}

// gzipBomb writes a small gzip file that decompresses to n bytes of newlines.
func gzipBomb(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	chunk := bytes.Repeat([]byte{'\n'}, 1<<20)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := zw.Write(chunk[:k]); err != nil {
			t.Fatal(err)
		}
		n -= k
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// A gzip bomb (a quarter MB that decompresses to 256 MB) is refused with exit 2 before
// it fills the temporary directory or memory, and leaves nothing behind.
func TestGzipBombIsRefused(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.jsonl.gz")
	gzipBomb(t, bomb, 1<<28)
	st, _ := os.Stat(bomb)
	tmp := t.TempDir()
	cmd := exec.Command(binPath, "scan", "--file", bomb)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + tmp}
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || !strings.Contains(errb.String(), "gzip bomb") {
		t.Fatalf("scan of a %d-byte gzip bomb: %v: %s", st.Size(), err, errb.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 400<<10 {
		t.Errorf("peak RSS %d MB, want under 400 MB", ru.Maxrss>>10)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// A load killed with SIGKILL while it decompresses a gzip export to its spool leaves no spool
// behind (its name is removed as soon as it is made).
func TestKilledGzipLoadLeavesNoSpool(t *testing.T) {
	dir := t.TempDir()
	var plain bytes.Buffer
	for i := range 200_000 {
		fmt.Fprintf(&plain, `{"id":"log_%07d","timestamp":"2026-03-01T12:00:00Z","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"u%d"},"data":{"request":{"arguments":{"subject":"s %d"}}}}`+"\n", i, i%50, i)
	}
	path := filepath.Join(dir, "export.jsonl.gz")
	f, _ := os.Create(path)
	zw := gzip.NewWriter(f)
	zw.Write(plain.Bytes())
	zw.Close()
	f.Close()
	tmp := t.TempDir()
	cmd := exec.Command(binPath, "scan", "--file", path, "--json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + tmp}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it as soon as it is reading the export (its spool open), or at the latest after 2 s.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)); len(fds) > 0 {
			spooling := false
			for _, fd := range fds {
				if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", cmd.Process.Pid, fd.Name())); strings.Contains(l, "exectriage-export-") || strings.HasPrefix(l, tmp) { // named, or unnamed (O_TMPFILE) in TMPDIR
					spooling = true
				}
			}
			if spooling {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("a killed load left %v in TMPDIR", left)
	}
}

// The first ^C (SIGINT) ends a load of a large export promptly.
func TestInterruptEndsALoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	f, _ := os.Create(path)
	w := bufio.NewWriter(f)
	for i := range 600_000 {
		fmt.Fprintf(w, `{"id":"log_%07d","timestamp":"2026-03-01T12:00:00Z","status":"failed","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"u%d"},"data":{"error":{"kind":"timeout"},"request":{"arguments":{"subject":"s %d"}}}}`+"\n", i, i%50, i)
	}
	w.Flush()
	f.Close()
	cmd := exec.Command(binPath, "scan", "--file", path, "--json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the load took %v to end after ^C", d)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the load did not end after ^C")
	}
}
