package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

const (
	apiKey = "e2e-test-key"
	tool   = "GMAIL_SEND_EMAIL"
	// holdTimeout is how long timeout_* faults hold the answer: long enough to kill the binary
	// while its request is held, short enough to keep the tests fast.
	holdTimeout = 4 * time.Second
)

// binPath is the exectriage binary built once for this test binary by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "exectriage-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "exectriage")
	goTool := "go"
	build := exec.Command(goTool, "build", "-o", binPath, "github.com/exectriage/exectriage")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building exectriage:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one sandbox, a client to it for setting up and observing, and the journal the binary
// is pointed at.
type env struct {
	t       *testing.T
	srv     *sandbox.Server
	base    string
	c       *client.Client
	home    string
	journal string
	account string
}

func newEnv(t *testing.T, journalDSN string) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: apiKey, Seed: 11, Size: 40, HoldTimeout: holdTimeout}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := client.New(client.WithAPIKey(apiKey), client.WithBaseURL(base), client.WithWriteTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if journalDSN == "" {
		journalDSN = filepath.Join(home, "state", "journal.db")
	}
	e := &env{t: t, srv: srv, base: base, c: c, home: home, journal: journalDSN}
	e.account = testkit.ActiveAccount(t, ctx, c, "gmail")
	return e
}

// command builds a run of the binary pointed at the sandbox and the journal.
func (e *env) command(extraEnv []string, args ...string) *exec.Cmd {
	name := ""
	for _, a := range args { // the command's name: flags may stand before it
		if !strings.HasPrefix(a, "-") {
			name = a
			break
		}
	}
	switch name {
	case "journal": // the journal command reads the journal only
		args = append(args, "--journal", e.journal)
	case "verify": // verify reads the logs and the provider, not the journal
		args = append(args, "--base-url", e.base)
	default:
		args = append(args, "--base-url", e.base, "--journal", e.journal)
	}
	cmd := exec.Command(binPath, args...)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.home,
		"XDG_STATE_HOME=" + filepath.Join(e.home, "xdg-state"),
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, "xdg-config"),
		"COMPOSIO_API_KEY=" + apiKey,
		"EXECTRIAGE_WHO=e2e tester",
	}, extraEnv...)
	return cmd
}

type result struct {
	code           int
	stdout, stderr string
}

func (e *env) run(args ...string) result {
	e.t.Helper()
	cmd := e.command(nil, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			e.t.Fatalf("run %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return result{code, out.String(), errb.String()}
}

func (e *env) retry(id string) result {
	return e.run("retry", id, "--confirm-failed", "--reason", "customer says no email arrived", "--json")
}

// journalState is `exectriage journal ID --json`.
type journalState struct {
	Recovered     int `json:"recovered"`
	Confirmations []struct {
		AttemptID string `json:"attempt_id"`
	} `json:"confirmations"`
	Attempts []model.RetryAttempt `json:"attempts"`
}

func (e *env) journalOf(id string) journalState {
	e.t.Helper()
	r := e.run("journal", id, "--json")
	if r.code == 2 && strings.Contains(r.stderr, "has nothing for "+id) {
		return journalState{} // nothing recorded: exit 2, one line
	}
	if r.code != 0 {
		e.t.Fatalf("journal: exit %d: %s", r.code, r.stderr)
	}
	var js journalState
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil {
		e.t.Fatalf("journal --json: %v: %s", err, r.stdout)
	}
	return js
}

// sends is how many POSTs to tools/execute/GMAIL_SEND_EMAIL reached the sandbox (GET
// /_sandbox/stats); effectsOf counts the committed effects of one set of arguments
// (GET /_sandbox/effects).
func (e *env) sends() int {
	e.t.Helper()
	return testkit.SandboxStats(e.t, e.base, apiKey).ByTool[tool]
}

func (e *env) effectsOf(argHash string) int {
	e.t.Helper()
	n := 0
	for _, x := range testkit.SandboxEffects(e.t, e.base, apiKey) {
		if x.ArgumentHash == argHash {
			n++
		}
	}
	return n
}

// target is an execution to retry: a Gmail send that got a 503 before the provider ran it, so
// its log says failed (ambiguous to triage) and the provider has nothing.
type target struct {
	id, argHash string
}

func (e *env) failedSend(tag string) target {
	e.t.Helper()
	ctx := context.Background()
	args := fmt.Sprintf(`{"recipient_email":"carol+%s@example.com","subject":"Order %s shipped","body":"Your order is on its way."}`, tag, tag)
	e.srv.ArmFault(sandbox.FaultRule{ToolSlug: tool, Mode: sandbox.Fault5xxBeforeCommit, Count: 1})
	rid := uuid.NewString()
	_, _ = e.c.WithoutRetries().Execute(ctx, tool, client.ExecuteRequest{
		Arguments: json.RawMessage(args), ConnectedAccountID: e.account, UserID: "user-e2e", RequestID: rid})
	for page, err := range e.c.ListLogs(ctx, client.LogQuery{Filters: []client.LogFilter{{Field: "request_id", Value: rid}}}) {
		if err != nil {
			e.t.Fatal(err)
		}
		for _, x := range page.Executions {
			return target{id: x.ID, argHash: model.ArgumentHash(json.RawMessage(args), model.DefaultVolatileKeys())}
		}
	}
	e.t.Fatalf("no log for request id %s", rid)
	return target{}
}

// paused starts `retry` with the test hook set to step and returns once the binary printed the
// hook's marker; the caller kills it.
func (e *env) paused(id, step string) (*exec.Cmd, func() string) {
	e.t.Helper()
	cmd := e.command([]string{"EXECTRIAGE_TEST_PAUSE=" + step}, "retry", id, "--confirm-failed", "--reason", "customer says no email arrived")
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen strings.Builder
	)
	marker := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			mu.Lock()
			seen.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if !once && sc.Text() == "EXECTRIAGE_TEST_PAUSE "+step {
				once = true
				close(marker)
			}
		}
	}()
	logs := func() string {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return seen.String()
	}
	select {
	case <-marker:
	case <-done:
		cmd.Wait()
		e.t.Fatalf("the binary ended before reaching %s: %s", step, logs())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		e.t.Fatalf("the binary did not reach %s: %s", step, logs())
	}
	return cmd, logs
}

func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait() // reap it: its pid is gone, as after a real crash
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the binary was not killed by SIGKILL: %v", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The binary is killed with SIGKILL at each step of the protocol and started again: the
// journal opens, the attempt is absent or indeterminate as the step dictates, nothing is sent
// again until a person resolves it, and the provider holds at most one effect.
func TestCrashAtEachStepOfTheProtocol(t *testing.T) {
	e := newEnv(t, "")
	cases := []struct {
		step    string
		fault   sandbox.FaultMode // armed for the retry's request
		sent    int               // sends that reached the sandbox before the kill
		effects int               // effects before the kill
		attempt bool              // is there an attempt after the crash?
		resolve model.AttemptState
	}{
		{step: "before-intent", attempt: false},
		{step: "after-intent", attempt: true, resolve: model.AttemptFailed},
		{step: "in-flight", fault: sandbox.FaultTimeoutAfterCommit, sent: 1, effects: 1, attempt: true, resolve: model.AttemptSucceeded},
	}
	for _, tc := range cases {
		t.Run(tc.step, func(t *testing.T) {
			e.t = t
			x := e.failedSend(tc.step)
			sends0 := e.sends()
			if tc.fault != "" {
				e.srv.ArmFault(sandbox.FaultRule{ToolSlug: tool, Mode: tc.fault, Count: 1})
			}
			cmd, logs := e.paused(x.id, tc.step)
			if tc.sent > 0 {
				// The request reached the sandbox and committed; its answer is being held.
				waitFor(t, "the retry's request to arrive", func() bool { return e.sends() == sends0+tc.sent })
				waitFor(t, "the effect to commit", func() bool { return e.effectsOf(x.argHash) == tc.effects })
			}
			kill(t, cmd)
			t.Logf("killed at %s; its stderr: %q", tc.step, logs())
			if got := e.sends() - sends0; got != tc.sent {
				t.Fatalf("%d sends reached the sandbox before the kill, want %d", got, tc.sent)
			}

			// Restart: the journal opens and recovery shows the attempt as the step dictates.
			js := e.journalOf(x.id)
			if !tc.attempt {
				if len(js.Attempts) != 0 || len(js.Confirmations) != 0 {
					t.Fatalf("killed before the intent committed, the journal holds %+v", js)
				}
				// Nothing was sent and nothing is recorded: a retry is safe and sends once.
				if r := e.retry(x.id); r.code != 0 {
					t.Fatalf("retry after the crash: exit %d: %s", r.code, r.stderr)
				}
				if e.sends()-sends0 != 1 || e.effectsOf(x.argHash) != 1 {
					t.Fatalf("after the retry: %d sends, %d effects; want 1 and 1", e.sends()-sends0, e.effectsOf(x.argHash))
				}
				if r := e.retry(x.id); r.code != 3 {
					t.Fatalf("second retry: exit %d, want 3 (refused)", r.code)
				}
				return
			}
			if len(js.Attempts) != 1 || js.Attempts[0].State != model.AttemptIndeterminate || js.Recovered != 1 {
				t.Fatalf("after the crash the journal shows %+v (recovered %d), want one indeterminate attempt", js.Attempts, js.Recovered)
			}
			a := js.Attempts[0]
			if len(js.Confirmations) != 1 || js.Confirmations[0].AttemptID != a.ID {
				t.Fatalf("the attempt's confirmation: %+v", js.Confirmations)
			}

			// No second send without a person's resolve.
			r := e.retry(x.id)
			if r.code != 3 || !strings.Contains(r.stderr, "indeterminate") || !strings.Contains(r.stderr, "exectriage resolve "+a.ID) {
				t.Fatalf("retry over an indeterminate attempt: exit %d: %s", r.code, r.stderr)
			}
			if got := e.sends() - sends0; got != tc.sent {
				t.Fatalf("a retry over an indeterminate attempt sent: %d sends", got)
			}

			// A person resolves it from the logs and the provider; resolve never sends.
			r = e.run("resolve", a.ID, "--json")
			if r.code != 0 {
				t.Fatalf("resolve: exit %d: %s %s", r.code, r.stdout, r.stderr)
			}
			var res struct {
				Attempt  model.RetryAttempt `json:"attempt"`
				Evidence []string           `json:"findings"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatal(err)
			}
			t.Logf("resolve evidence: %q", res.Evidence)
			if res.Attempt.State != tc.resolve {
				t.Fatalf("resolved to %s, want %s; evidence %q", res.Attempt.State, tc.resolve, res.Evidence)
			}
			if got := e.sends() - sends0; got != tc.sent {
				t.Fatalf("resolve sent a request")
			}

			r = e.retry(x.id)
			switch tc.resolve {
			case model.AttemptSucceeded:
				// The held request took effect: never again.
				if r.code != 3 {
					t.Fatalf("retry after a resolved success: exit %d, want 3", r.code)
				}
			case model.AttemptFailed:
				// Nothing was ever sent: a new confirmed retry sends once.
				if r.code != 0 || e.sends()-sends0 != 1 {
					t.Fatalf("retry after a resolved failure: exit %d, %d sends: %s", r.code, e.sends()-sends0, r.stderr)
				}
				if r := e.retry(x.id); r.code != 3 {
					t.Fatalf("retry after the successful retry: exit %d, want 3", r.code)
				}
			}
			if got := e.effectsOf(x.argHash); got != 1 {
				t.Fatalf("the provider holds %d effects of this execution, want exactly 1", got)
			}
		})
	}
}

// Eight copies of the binary retry the same execution at the same moment on one journal:
// exactly one request leaves, the others are refused.
func TestRacingProcessesSendOnce(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			dsn := ""
			if name == "postgres" {
				dsn = testkit.PostgresOrSkip(t, "e_")
			}
			e := newEnv(t, dsn) // a fresh journal: the racers also race to create it
			x := e.failedSend("race-" + name)
			// Hold the winner's request a moment so the losers run while it is in flight.
			e.srv.ArmFault(sandbox.FaultRule{ToolSlug: tool, Mode: sandbox.FaultLatency, Count: 1, Latency: 500 * time.Millisecond})
			sends0 := e.sends()
			const n = 8
			cmds := make([]*exec.Cmd, n)
			outs := make([]*strings.Builder, n)
			for i := range cmds {
				cmds[i] = e.command(nil, "retry", x.id, "--confirm-failed", "--reason", "race", "--json")
				outs[i] = &strings.Builder{}
				cmds[i].Stdout, cmds[i].Stderr = io.Discard, outs[i]
			}
			for _, c := range cmds {
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
			}
			codes := map[int]int{}
			for i, c := range cmds {
				err := c.Wait()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				codes[code]++
				if code != 0 && code != 3 {
					t.Errorf("racer %d: exit %d: %s", i, code, outs[i].String())
				}
			}
			if codes[0] != 1 || codes[3] != n-1 {
				t.Fatalf("exit codes %v, want one 0 and %d refusals (3)", codes, n-1)
			}
			if got := e.sends() - sends0; got != 1 {
				t.Fatalf("%d requests reached the sandbox, want exactly 1", got)
			}
			if got := e.effectsOf(x.argHash); got != 1 {
				t.Fatalf("%d effects, want 1", got)
			}
			js := e.journalOf(x.id)
			if len(js.Attempts) != 1 || js.Attempts[0].State != model.AttemptSucceeded || len(js.Confirmations) != 1 {
				t.Fatalf("journal after the race: %+v", js)
			}
		})
	}
}

// The commands' exit statuses and their guard: refusals send nothing, an ambiguous retry exits
// 4 and blocks, resolve settles it, mark records a verdict the guard obeys.
func TestRetryCommandExitStatuses(t *testing.T) {
	e := newEnv(t, "")
	x := e.failedSend("cli")
	sends0 := e.sends()

	if r := e.run("retry", x.id); r.code != 3 || !strings.Contains(r.stderr, "--confirm-failed --reason") {
		t.Fatalf("retry without confirmation: exit %d: %s", r.code, r.stderr)
	}
	if r := e.run("retry", "log_doesNotExist", "--confirm-failed", "--reason", "x"); r.code != 2 {
		t.Fatalf("retry of an unknown id: exit %d: %s", r.code, r.stderr)
	}
	if r := e.run("retry"); r.code != 2 {
		t.Fatalf("retry without an id: exit %d", r.code)
	}
	if e.sends() != sends0 {
		t.Fatal("a refused retry sent a request")
	}

	// The retry's own request times out before the provider ran it: exit 4, indeterminate.
	e.srv.ArmFault(sandbox.FaultRule{ToolSlug: tool, Mode: sandbox.FaultTimeoutBeforeCommit, Count: 1, Latency: 200 * time.Millisecond})
	r := e.retry(x.id)
	if r.code != 4 {
		t.Fatalf("ambiguous retry: exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		State   model.AttemptState  `json:"state"`
		Attempt *model.RetryAttempt `json:"attempt"`
		Sent    bool                `json:"sent"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.State != model.AttemptIndeterminate || out.Attempt == nil || !out.Sent {
		t.Fatalf("retry --json: %v %s", err, r.stdout)
	}
	if r := e.retry(x.id); r.code != 3 {
		t.Fatalf("retry over an indeterminate attempt: exit %d", r.code)
	}
	// Too soon to call it failed: the call might still be running.
	if r := e.run("resolve", x.id); r.code != 4 || !strings.Contains(r.stdout, "resolve again after") {
		t.Fatalf("early resolve: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	// Neither the log nor the provider has it, and the settle time has passed: failed.
	if r := e.run("resolve", x.id, "--settle", "1ms"); r.code != 0 || !strings.Contains(r.stdout, "now failed") {
		t.Fatalf("resolve: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if e.sends()-sends0 != 1 || e.effectsOf(x.argHash) != 0 {
		t.Fatalf("%d sends, %d effects after resolve; want 1 and 0", e.sends()-sends0, e.effectsOf(x.argHash))
	}

	// A person's verdict blocks the retry; the journal shows all of it.
	if r := e.run("mark", x.id, "duplicate", "--note", "the customer got it via another thread"); r.code != 0 {
		t.Fatalf("mark: exit %d: %s", r.code, r.stderr)
	}
	if r := e.run("mark", x.id, "maybe"); r.code != 2 {
		t.Fatalf("mark with an unknown verdict: exit %d", r.code)
	}
	if r := e.retry(x.id); r.code != 3 || !strings.Contains(r.stderr, "duplicate") {
		t.Fatalf("retry after a duplicate verdict: exit %d: %s", r.code, r.stderr)
	}
	r = e.run("journal")
	for _, want := range []string{"verdict  " + x.id + " duplicate by e2e tester", "FAILED", "confirm  " + x.id} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("journal does not show %q:\n%s", want, r.stdout)
		}
	}
	if e.sends()-sends0 != 1 {
		t.Fatalf("%d sends in all, want 1", e.sends()-sends0)
	}
}

// TestReadOnlyBeforeOrAfterTheCommand: the real binary under --readonly, given before the
// command's name or after its arguments, refuses retry, mark, resolve and verify with exit 2,
// sends nothing (the sandbox's effects and execute requests are unchanged) and leaves the
// journal file byte-identical; the same retry without --readonly sends once (flags
// before the command were dropped, and `exectriage --readonly retry` sent).
func TestReadOnlyBeforeOrAfterTheCommand(t *testing.T) {
	e := newEnv(t, "")
	x := e.failedSend("ro")
	if r := e.run("mark", "log_unrelated_but_fine", "ignored"); r.code != 2 { // an unknown id changes nothing
		t.Fatalf("mark of an unknown id: exit %d %s", r.code, r.stderr)
	}
	if r := e.run("journal"); r.code != 0 {
		t.Fatalf("journal: exit %d %s", r.code, r.stderr)
	}
	journalBytes := func() string {
		b, err := os.ReadFile(e.journal)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := journalBytes()
	effects := len(testkit.SandboxEffects(t, e.base, apiKey))
	sends := e.sends()
	for _, args := range [][]string{
		{"retry", x.id, "--confirm-failed", "--reason", "customer says no email arrived"},
		{"mark", x.id, "confirmed_failed", "--note", "n"},
		{"resolve", x.id, "--as", "failed", "--reason", "r"},
		{"verify", x.id},
	} {
		for _, placed := range [][]string{append([]string{"--readonly"}, args...), append(append([]string{}, args...), "--readonly")} {
			r := e.run(placed...)
			if r.code != 2 || !strings.Contains(r.stderr, "read-only") {
				t.Errorf("%v: exit %d, stderr %q", placed, r.code, r.stderr)
			}
			if n := len(testkit.SandboxEffects(t, e.base, apiKey)); n != effects || e.sends() != sends {
				t.Fatalf("%v: %d new effects, %d new execute requests", placed, n-effects, e.sends()-sends)
			}
			if journalBytes() != before {
				t.Fatalf("%v changed the journal file", placed)
			}
		}
	}
	// the check can fail: without --readonly the same retry sends, once
	if r := e.retry(x.id); r.code != 0 || e.sends() != sends+1 {
		t.Fatalf("retry without --readonly: exit %d, %d sends: %s", r.code, e.sends()-sends, r.stderr)
	}
}
