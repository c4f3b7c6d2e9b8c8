package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sandbox"
)

// TestReadOnlySessionCannotWrite: read-only is a property of the session, held below every
// front. A read-only session, by the flag or by the config's [defaults] readonly,
// opens the journal read-only at the driver (writes refused even when the front skips the
// session's checks), has no sender for the guard, and its client refuses a tool run that a
// front would reach around the app: the sandbox commits nothing and the journal file is
// byte-identical.
func TestReadOnlySessionCannotWrite(t *testing.T) {
	ctx := context.Background()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: "k-ro", Seed: 5, Size: 30}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	jpath := filepath.Join(dir, "journal.db")
	roConfig := filepath.Join(dir, "ro.toml")
	if err := os.WriteFile(roConfig, []byte("[defaults]\nreadonly = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		return map[string]string{"COMPOSIO_API_KEY": "k-ro", "XDG_STATE_HOME": dir, "EXECTRIAGE_WHO": "ro"}[k]
	}
	// a journal in use, with a record
	w, err := OpenJournal(ctx, Options{Journal: jpath, Getenv: env, BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Mark(ctx, journal.VerdictRecord{ExecutionID: "log_x", Verdict: model.VerdictIgnored, Who: "ro", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	effects := len(testkit.SandboxEffects(t, base, "k-ro")) // the generated history's

	for name, o := range map[string]Options{
		"--readonly":          {ReadOnly: true},
		"[defaults] readonly": {ConfigPath: roConfig},
	} {
		t.Run(name, func(t *testing.T) {
			o.Journal, o.Getenv, o.BaseURL = jpath, env, base
			a, err := Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if !a.ReadOnly() {
				t.Fatal("the session is not read-only")
			}
			j, err := OpenJournal(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if !j.ReadOnly() {
				t.Fatal("a read-only session opened the journal for writing")
			}
			a.UseJournal(j)
			// a front that skips the session's checks and writes to the journal itself
			if err := j.Mark(ctx, journal.VerdictRecord{ExecutionID: "log_y", Verdict: model.VerdictIgnored, Who: "ro", At: time.Now()}); !errors.Is(err, journal.ErrReadOnly) {
				t.Fatalf("Mark on the read-only journal: %v", err)
			}
			if _, _, err := j.j.ClaimAttempt(ctx, journal.Claim{}); err == nil {
				t.Fatal("a claim on the read-only journal succeeded")
			}
			// the guard has nobody to send with
			if d := a.RetryDeps(j); d.Sender != nil {
				t.Fatal("a read-only session's guard has a sender")
			}
			execs, err := a.LoadAll(ctx)
			if err != nil || len(execs) == 0 {
				t.Fatalf("load: %d %v", len(execs), err)
			}
			var write model.Execution
			for _, e := range execs {
				if a.Kinds().Kind(e.ToolSlug).IsWrite() {
					write = e
					break
				}
			}
			// the protocol itself, given the session's dependencies, sends nothing
			d := a.RetryDeps(j)
			if res, _ := retry.Run(ctx, d, retry.Request{Execution: write, Confirmed: true, Reason: "r"}); res.Sent || res.Attempt != nil {
				t.Errorf("retry.Run on a read-only session's dependencies sent or claimed: %+v", res)
			}
			// and the session's client refuses a tool run a front would reach around the app
			_, err = a.src.Client().WithoutRetries().Execute(ctx, write.ToolSlug, client.ExecuteRequest{Arguments: json.RawMessage(`{}`)})
			if !errors.Is(err, client.ErrReadOnly) {
				t.Fatalf("the read-only session's client sent a write: %v", err)
			}
			a.UseJournal(j)
			if _, err := a.Retry(ctx, retry.Request{Execution: write, Confirmed: true, Reason: "r"}, RetryHooks{}); err == nil {
				t.Error("Retry in a read-only session did not refuse")
			}
			if n := len(testkit.SandboxEffects(t, base, "k-ro")); n != effects {
				t.Fatalf("the sandbox committed %d effects", n-effects)
			}
			after, err := os.ReadFile(jpath)
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != string(before) {
				t.Fatal("a read-only session changed the journal file")
			}
		})
	}
}

// TestStateFilesAreReadLikeExports: a FIFO or a link to /dev/zero where exectriage keeps its
// demo anchor, its journal or the CLI login is refused at once with a clear error, never read
// (a FIFO anchor hung the demo and tab completion, /dev/zero grew without bound).
func TestStateFilesAreReadLikeExports(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "exectriage")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env := func(k string) string { return map[string]string{"XDG_STATE_HOME": state, "HOME": state}[k] }
	plant := func(path, what string) {
		os.Remove(path)
		var err error
		if what == "fifo" {
			err = syscall.Mkfifo(path, 0o600)
		} else {
			err = os.Symlink("/dev/zero", path)
		}
		if err != nil {
			t.Skipf("cannot plant a %s: %v", what, err)
		}
	}
	for _, what := range []string{"fifo", "zero"} {
		done := make(chan error, 3)
		go func() {
			plant(filepath.Join(dir, DemoAnchorName), what)
			_, err := Open(ctx, Options{Demo: true, Getenv: env})
			done <- err
			os.Remove(filepath.Join(dir, DemoAnchorName))
			plant(filepath.Join(dir, "journal.db"), what)
			_, err = OpenJournal(ctx, Options{Journal: filepath.Join(dir, "journal.db"), Getenv: env})
			done <- err
			os.Remove(filepath.Join(dir, "journal.db"))
			os.MkdirAll(filepath.Join(state, ".composio"), 0o700)
			plant(filepath.Join(state, ".composio", "user_data.json"), what)
			_, err = ResolveCredentials(Options{Getenv: env})
			done <- err
			os.Remove(filepath.Join(state, ".composio", "user_data.json"))
		}()
		for i, name := range []string{"demo anchor", "journal", "CLI login"} {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "regular file") {
					t.Errorf("%s as a %s: %v", name, what, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s as a %s hung (step %d)", name, what, i)
			}
		}
	}
}
