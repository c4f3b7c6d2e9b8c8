package e2e

import (
	"bufio"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/watch"
	"github.com/exectriage/exectriage/watch/watchtest"
)

const watchSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// watcher is a running `exectriage watch` and what it said on stderr.
type watcher struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	said strings.Builder
	done chan struct{}
}

// watchRun starts `exectriage watch` against the env's sandbox and journal, telling a webhook
// and a Slack receiver; extra is more of its environment.
func (e *env) watchRun(t *testing.T, hook, slack string, extra []string, args ...string) *watcher {
	t.Helper()
	args = append([]string{"watch", "--webhook", hook, "--every", "200ms"}, args...)
	w := &watcher{done: make(chan struct{})}
	w.cmd = e.command(append([]string{"EXECTRIAGE_WEBHOOK_SECRET=" + watchSecret, "EXECTRIAGE_SLACK_WEBHOOK=" + slack}, extra...), args...)
	stderr, err := w.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			w.mu.Lock()
			w.said.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
		}
	}()
	return w
}

// wait waits for the watcher to end: its exit code and what it said.
func (w *watcher) wait() (int, string) {
	<-w.done
	_ = w.cmd.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cmd.ProcessState.ExitCode(), w.said.String()
}

// line waits until the watcher said line on stderr.
func (w *watcher) line(t *testing.T, line string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		w.mu.Lock()
		s := w.said.String()
		w.mu.Unlock()
		if strings.Contains(s, line) {
			return
		}
		if time.Now().After(deadline) {
			_ = w.cmd.Process.Kill()
			t.Fatalf("watch did not say %q: %s", line, s)
		}
	}
}

// The real binary is killed with SIGKILL at each step of a delivery, to each sink, and started
// again: the webhook receiver gets every event, each webhook-id counted once (the one whose
// answer was lost comes again with its id), Slack never gets an event twice and is told which
// may not have arrived.
func TestAKilledWatcherTellsNothingTwice(t *testing.T) {
	secret, err := watch.ParseSecret(watchSecret)
	if err != nil {
		t.Fatal(err)
	}
	for _, sink := range []string{"webhook", "slack"} {
		for _, step := range []string{"taken", "sent", "finished"} {
			t.Run(sink+"/"+step, func(t *testing.T) {
				e := newEnv(t, "")
				for i := range 3 {
					e.failedSend(fmt.Sprintf("w%d", i))
				}
				hook, slack := watchtest.NewWebhook(secret), &watchtest.Slack{}
				hs, ss := httptest.NewServer(hook), httptest.NewServer(slack)
				defer hs.Close()
				defer ss.Close()
				pause := "watch-" + step + ":" + sink
				first := e.watchRun(t, hs.URL, ss.URL, []string{"EXECTRIAGE_TEST_PAUSE=" + pause, "EXECTRIAGE_TEST_HOLD=100ms"}, "--once")
				first.line(t, "EXECTRIAGE_TEST_PAUSE "+pause)
				kill(t, first.cmd)
				time.Sleep(200 * time.Millisecond) // its deliveries in flight are stale now
				again := e.watchRun(t, hs.URL, ss.URL, []string{"EXECTRIAGE_TEST_HOLD=100ms"}, "--once")
				if code, out := again.wait(); code != 0 {
					t.Fatalf("the restart exited %d: %s", code, out)
				}
				seen, bad := hook.Seen()
				told, lost, _ := slack.Told()
				if bad != 0 || len(seen) < 3 {
					t.Fatalf("webhook: %d events, %d refused", len(seen), bad)
				}
				twice := 0
				for _, n := range seen {
					twice += n - 1
				}
				if want := map[bool]int{true: 1}[sink == "webhook" && step == "sent"]; twice != want {
					t.Fatalf("webhook: %d messages came again with their id, want %d", twice, want)
				}
				for id, n := range told {
					if n > 1 {
						t.Fatalf("slack was told %s %d times", id, n)
					}
				}
				if wantLost := sink == "slack" && step != "finished"; (len(lost) > 0) != wantLost {
					t.Fatalf("slack said %d alerts may not have arrived (want some: %v)", len(lost), wantLost)
				}
				for id := range seen { // every event reached Slack or was said lost
					if told[id] == 0 && !slices.Contains(lost, id) {
						t.Fatalf("slack: event %s neither told nor said lost (told %v, lost %v)", id, told, lost)
					}
				}
			})
		}
	}
}

// SIGTERM while a message is in flight: the watcher waits for its answer, records it, and exits
// 0; started again, it sends nothing twice. Its log never shows the secret or the Slack URL.
func TestAWatcherStopsOnSIGTERMAfterTheMessageInFlight(t *testing.T) {
	secret, _ := watch.ParseSecret(watchSecret)
	e := newEnv(t, "")
	e.failedSend("term")
	hook, slack := watchtest.NewWebhook(secret), &watchtest.Slack{}
	hook.SetHold(1500 * time.Millisecond)
	hs, ss := httptest.NewServer(hook), httptest.NewServer(slack)
	defer hs.Close()
	defer ss.Close()
	w := e.watchRun(t, hs.URL, ss.URL+"/services/T000/B000/s3cr3tpath", nil, "--log-format", "json")
	select {
	case <-hook.Got():
	case <-time.After(30 * time.Second):
		t.Fatal("no message reached the webhook")
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	code, said := w.wait()
	if code != 0 {
		t.Fatalf("SIGTERM: exit %d: %s", code, said)
	}
	if d := time.Since(stopped); d < time.Second {
		t.Fatalf("the watcher exited %s after SIGTERM, before the message's answer", d)
	}
	for _, secretText := range []string{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "s3cr3tpath", apiKey} {
		if strings.Contains(said, secretText) {
			t.Fatalf("the log shows a secret: %s", said)
		}
	}
	first, _ := hook.Seen()
	hook.SetHold(0)
	again := e.watchRun(t, hs.URL, ss.URL, nil, "--once")
	if code, said := again.wait(); code != 0 {
		t.Fatalf("restart: exit %d: %s", code, said)
	}
	seen, _ := hook.Seen()
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("event %s came %d times", id, n)
		}
	}
	if len(seen) < len(first) {
		t.Fatal("events lost")
	}
}

// Two watcher processes on one journal (SQLite and the team's PostgreSQL): one sends; killed
// with SIGKILL, the other takes over and tells what came after; every webhook-id arrives once
// and Slack never gets an event twice.
func TestTwoWatcherProcessesTellOnce(t *testing.T) {
	secret, _ := watch.ParseSecret(watchSecret)
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			dsn := ""
			if name == "postgres" {
				dsn = testkit.PostgresOrSkip(t, "w_")
			}
			e := newEnv(t, dsn)
			e.failedSend("two-a")
			hook, slack := watchtest.NewWebhook(secret), &watchtest.Slack{}
			hs, ss := httptest.NewServer(hook), httptest.NewServer(slack)
			defer hs.Close()
			defer ss.Close()
			one := e.watchRun(t, hs.URL, ss.URL, nil)
			two := e.watchRun(t, hs.URL, ss.URL, nil)
			waitFor(t, "the first event", func() bool { seen, _ := hook.Seen(); return len(seen) > 0 })
			time.Sleep(time.Second) // several passes of both
			leader, other := one, two
			for _, w := range []*watcher{one, two} {
				w.mu.Lock()
				if strings.Contains(w.said.String(), "this watcher sends") {
					leader = w
				}
				w.mu.Unlock()
			}
			if leader == two {
				other = one
			}
			before, _ := hook.Seen()
			kill(t, leader.cmd)
			e.failedSend("two-b")
			waitFor(t, "the other watcher to tell the new write", func() bool { seen, _ := hook.Seen(); return len(seen) > len(before) })
			other.line(t, "this watcher sends")
			if err := other.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code, said := other.wait(); code != 0 {
				t.Fatalf("the second watcher exited %d: %s", code, said)
			}
			seen, bad := hook.Seen()
			for id, n := range seen {
				if n != 1 || bad != 0 {
					t.Fatalf("webhook-id %s arrived %d times (%d refused)", id, n, bad)
				}
			}
			told, _, _ := slack.Told()
			for id, n := range told {
				if n != 1 {
					t.Fatalf("slack was told %s %d times", id, n)
				}
			}
		})
	}
}
