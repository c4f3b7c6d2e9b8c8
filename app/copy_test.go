package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// TestCurlNamesTheSessionsAPIAndQuotesEveryPart: the curl reproduction goes to the API the
// session talks to (--base-url: a sandbox's curl must not target production), and run in a
// shell it sends that one call; a base URL or arguments holding quotes and $(...) cannot end
// the quoting (pasting the curl ran a command).
func TestCurlNamesTheSessionsAPIAndQuotesEveryPart(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed: the copied command cannot be run (.ci/run installs it)")
	}
	ctx := context.Background()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{APIKey: "k-curl", Seed: 5, Size: 30}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	env := func(k string) string { return map[string]string{"COMPOSIO_API_KEY": "k-curl"}[k] }
	a, err := Open(ctx, Options{BaseURL: base, Getenv: env, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	execs, err := a.LoadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var e model.Execution
	for _, x := range execs {
		if x.ToolSlug == "SLACK_SEND_MESSAGE" && x.ConnectedAccountID != "" {
			if e, err = a.Get(ctx, x.ID); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if e.ID == "" {
		t.Fatal("no Slack send in the sandbox's history")
	}
	e.Arguments = []byte(`{"channel":"#general","text":"it's $(touch pwned-args) and ` + "`touch pwned-tick`" + `"}`)
	curl := a.CurlFor(&e).String()
	if !strings.Contains(curl, base+"/api/v3.1/tools/execute/SLACK_SEND_MESSAGE") || strings.Contains(curl, "backend.composio.dev") {
		t.Fatalf("the curl does not name the session's API:\n%s", curl)
	}
	dir := t.TempDir()
	before := testkit.SandboxStats(t, base, "k-curl").ByTool["SLACK_SEND_MESSAGE"]
	cmd := exec.Command("sh", "-c", curl)
	cmd.Dir, cmd.Env = dir, []string{"COMPOSIO_API_KEY=k-curl", "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "successful") {
		t.Fatalf("the copied curl: %v\n%s\n%s", err, out, curl)
	}
	if got := testkit.SandboxStats(t, base, "k-curl").ByTool["SLACK_SEND_MESSAGE"]; got != before+1 {
		t.Errorf("the curl made %d sends, want 1", got-before)
	}

	// a base URL with a quote, from the environment (a file source has no client to ask)
	file := filepath.Join(dir, "one.jsonl")
	if err := os.WriteFile(file, []byte(`{"id":"log_1","timestamp":"2026-03-01T10:00:00Z","status":"failed","metadata":{"tool_slug":"SLACK_SEND_MESSAGE"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hostile := "http://127.0.0.1:1/x'$(touch pwned-base)'"
	b, err := Open(ctx, Options{File: file, Getenv: func(k string) string { return map[string]string{"COMPOSIO_BASE_URL": hostile}[k] }, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	curl = b.CurlFor(&e).String()
	cmd = exec.Command("sh", "-c", curl)
	cmd.Dir, cmd.Env = dir, []string{"COMPOSIO_API_KEY=k", "PATH=" + os.Getenv("PATH")}
	_ = cmd.Run() // port 1: curl fails; nothing else may run
	for _, f := range []string{"pwned-args", "pwned-tick", "pwned-base"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("running the copied curl ran a command (%s):\n%s", f, curl)
		}
	}
}

// TestTheCurlCarriesNoPassword: a base URL with a password (a proxy's) or a token in it was
// copied into the curl reproduction as it was.
func TestTheCurlCarriesNoPassword(t *testing.T) {
	file := filepath.Join(t.TempDir(), "one.jsonl")
	if err := os.WriteFile(file, []byte(`{"id":"log_1","timestamp":"2026-03-01T10:00:00Z","status":"failed","metadata":{"tool_slug":"SLACK_SEND_MESSAGE"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"https://ana:s3cr3t-pw@proxy.example:8443/composio", "http://ana:s3cr3t-pw@[::1]:9/x%zz",
		"https://proxy.example/composio?token=s3cr3t-pw"} {
		b, err := Open(context.Background(), Options{File: file, Getenv: func(k string) string { return map[string]string{"COMPOSIO_BASE_URL": base}[k] }, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		e := model.Execution{ID: "log_1", ToolSlug: "SLACK_SEND_MESSAGE"}
		curl := b.CurlFor(&e).String()
		b.Close()
		if strings.Contains(curl, "s3cr3t-pw") || !strings.Contains(curl, "/api/v3.1/tools/execute/SLACK_SEND_MESSAGE") {
			t.Errorf("the curl of %s:\n%s", base, curl)
		}
	}
}

// TestCopyFallbackIsPrivate: the copy fallback (and a bundle) is a new file in a directory of
// the session's own (0700), made with O_EXCL: a symlink planted under the name it used to have
// in the shared temp directory is never followed.
func TestCopyFallbackIsPrivate(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, name := range []string{"exectriage-copy-log-id-20260302T120000Z.txt", "exectriage-copy-log-id.txt"} {
		if err := os.Symlink(victim, filepath.Join(tmp, name)); err != nil {
			t.Fatal(err)
		}
	}
	a := New(Parts{Now: func() time.Time { return now }})
	p1, err := a.WriteCopy("log id", "log_1")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := a.WriteCopy("log id", "log_2")
	if err != nil {
		t.Fatal(err)
	}
	if p1 == p2 || filepath.Dir(p1) == tmp || filepath.Dir(p1) != filepath.Dir(p2) {
		t.Fatalf("copies at %s and %s (shared temp dir %s)", p1, p2, tmp)
	}
	st, err := os.Stat(filepath.Dir(p1))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the copies' directory: %v %v", st.Mode(), err)
	}
	if st, err := os.Lstat(p1); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Fatalf("the copy: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(p2); string(b) != "log_2" {
		t.Fatalf("the second copy holds %q", b)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Fatal("a planted symlink was followed")
	}
}
