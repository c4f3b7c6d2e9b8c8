package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
