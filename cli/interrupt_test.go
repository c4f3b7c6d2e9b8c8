package cli

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/sandbox"
)

// TestCtrlCIsQuietAndExits130: a command stopped by Ctrl-C (its context
// cancelled) while it reads the API exits 130 and prints no "context canceled" line; the same
// command left alone exits 0.
func TestCtrlCIsQuietAndExits130(t *testing.T) {
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 6, Size: 3000, Now: fixedNow, APIKey: "k-int", PageLatency: 150 * time.Millisecond})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-int", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	args := []string{"scan", "--base-url", base, "--since", "720h", "--no-cache"}
	for _, cmd := range [][]string{args, append([]string{"list"}, args[1:]...)} {
		env := newTestEnv(vars)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(400*time.Millisecond, cancel) // mid-walk: the walk takes several pages of 150 ms
		code := Run(ctx, env.Env, cmd)
		cancel()
		if code != ExitInterrupted || env.err.Len() != 0 {
			t.Errorf("%s stopped by Ctrl-C: exit %d, stderr %q; want 130 and nothing", cmd[0], code, env.err.String())
		}
	}
	if code, _, errOut := run(t, vars, args...); code != ExitOK {
		t.Fatalf("the same scan left alone: %d %s", code, errOut)
	}
}

// TestARateLimitedScanSaysWhatItRead: while scan waits for the API's rate
// limit, its stderr line says how many executions it has read so far, as the TUI's header does.
func TestARateLimitedScanSaysWhatItRead(t *testing.T) {
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 6, Size: 600, Now: fixedNow, APIKey: "k-rate", RateLimit: 20, RateLimitWindow: time.Second})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-rate", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	code, _, errOut := run(t, vars, "scan", "--base-url", base, "--since", "720h", "--no-cache")
	if code != ExitOK {
		t.Fatalf("scan: %d %s", code, errOut)
	}
	m := regexp.MustCompile(`waiting \S+ for the API's rate limit[^\n]*; (\d+) executions read so far`).FindStringSubmatch(errOut)
	if m == nil || m[1] == "0" {
		t.Fatalf("the waits do not say what was read: %q", errOut)
	}
}
