package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// listRow matches a row of the execution list (the focused list box, a date and time).
var listRow = regexp.MustCompile(`^┃.. \d\d-\d\d \d\d:\d\d:\d\d `)

// TestEndToEndInTmux runs the real binary in a real terminal (tmux at 120x40): the demo loads,
// the list shows, the filter narrows it, the help screen opens and closes, and q exits leaving
// the terminal as it was (normal screen, cursor shown, mouse reporting off).
func TestEndToEndInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed, so the end-to-end test cannot run: install it (apt-get install -y tmux); .ci/run does")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "exectriage")
	build := exec.Command("go", "build", "-o", bin, "github.com/exectriage/exectriage")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	sock := fmt.Sprintf("exectriage-e2e-%d", os.Getpid())
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { tm("kill-server") })

	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color EXECTRIAGE_WHO=e2e %q --demo --journal %q; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin, filepath.Join(dir, "journal.db"))
	if out, err := tm("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "sh", "-c", script); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}

	capture := func() string {
		out, err := tm("capture-pane", "-p", "-t", "e2e")
		if err != nil {
			t.Fatalf("capture-pane: %v\n%s", err, out)
		}
		return out
	}
	waitFor := func(what string, ok func(screen string) bool) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		var s string
		for time.Now().Before(deadline) {
			s = capture()
			if ok(s) {
				return s
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		return ""
	}
	contains := func(texts ...string) func(string) bool {
		return func(s string) bool {
			for _, x := range texts {
				if !strings.Contains(s, x) {
					return false
				}
			}
			return true
		}
	}
	send := func(keys ...string) {
		t.Helper()
		if out, err := tm(append([]string{"send-keys", "-t", "e2e"}, keys...)...); err != nil {
			t.Fatalf("send-keys: %v\n%s", err, out)
		}
	}
	display := func(format string) string {
		out, _ := tm("display-message", "-p", "-t", "e2e", format)
		return strings.TrimSpace(out)
	}

	// The list, once the demo has loaded.
	s := waitFor("the demo to load", contains("[DEMO]", "execs", "refreshed", "TIME", "TOOL", "STATUS"))
	if display("#{alternate_on}") != "1" {
		t.Error("the TUI is not on the alternate screen")
	}
	lines := strings.Split(s, "\n")
	if len(lines) < 40 {
		t.Errorf("the screen has %d lines", len(lines))
	}
	rows := 0
	for _, l := range lines {
		if listRow.MatchString(l) {
			rows++
		}
	}
	if rows < 5 {
		t.Errorf("the list shows %d execution rows:\n%s", rows, s)
	}

	// The filter: a field term keeps only Gmail sends.
	send("/")
	waitFor("the filter prompt", contains("/gmail send"))
	send("-l", "tool:GMAIL_SEND_EMAIL")
	send("Enter")
	s = waitFor("the filtered list", contains("Executions · /tool:GMAIL_SEND_EMAIL"))
	kept := 0
	for _, l := range strings.Split(s, "\n") {
		if !listRow.MatchString(l) {
			continue
		}
		if !strings.Contains(l, "GMAIL_SEND_EMAIL") {
			t.Errorf("a row that is not a Gmail send survived the filter: %q", l)
		}
		kept++
	}
	if kept == 0 {
		t.Errorf("the filter kept no rows:\n%s", s)
	}
	send("Escape")
	waitFor("the filter to clear", func(s string) bool { return !strings.Contains(s, "/tool:GMAIL_SEND_EMAIL") })

	// The help screen.
	send("?")
	waitFor("the help screen", contains("Keys", "Navigate", "Act on selection", "Program", "? or esc to close"))
	send("?")
	waitFor("the help screen to close", func(s string) bool { return !strings.Contains(s, "Act on selection") })

	// A clean exit: the shell's next line runs and the terminal is as it was.
	send("q")
	s = waitFor("exit", contains("EXITED:0"))
	if strings.Contains(s, "Executions") || strings.Contains(s, "[DEMO]") {
		t.Errorf("the TUI's screen is still visible after exit:\n%s", s)
	}
	for format, want := range map[string]string{"#{alternate_on}": "0", "#{cursor_flag}": "1", "#{mouse_any_flag}": "0"} {
		if got := display(format); got != want {
			t.Errorf("after exit %s = %q, want %q", format, got, want)
		}
	}
}
