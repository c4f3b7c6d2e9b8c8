package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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

// TestExitCodeTable: every row of the one exit-status table (--help, README) is what the
// commands return, including the cases that disagreed with it (`show ”` gave 1,
// retry without --reason 3, bundle --out DIR 1).
func TestExitCodeTable(t *testing.T) {
	code, help, _ := run(t, nil, "--help")
	if code != ExitOK {
		t.Fatalf("--help: exit %d", code)
	}
	for _, row := range []string{"0  done", "1  the command ran and found something", "2  bad usage or input", "3  the retry guard refused", "4  the retry was sent and its outcome is unknown"} {
		if !strings.Contains(help, row) {
			t.Errorf("--help lacks the exit-status row %q", row)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), exitCodes) {
		t.Error("the README does not carry the exit-status table as --help prints it")
	}

	dir := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": dir}
	file := []string{"--file", "testdata/export.jsonl"}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr ("" : anything)
	}{
		{"a report", append([]string{"scan"}, file...), ExitOK, ""},
		{"--allow-reads without --readonly", append([]string{"scan", "--allow-reads"}, file...), ExitUsage, "--allow-reads only applies to a read-only session"},
		{"--allow-reads with --readonly", append([]string{"scan", "--readonly", "--allow-reads"}, file...), ExitOK, ""},
		{"version", []string{"version"}, ExitOK, ""},
		{"help of a command", []string{"help", "mark"}, ExitOK, ""},
		{"doctor finds an SDK that retries writes", []string{"doctor", "../doctor/testdata/projects/npm-old"}, ExitFinding, ""},
		{"unknown command", []string{"frobnicate"}, ExitUsage, `unknown command "frobnicate"`},
		{"unknown flag, one line", []string{"scan", "--bogus"}, ExitUsage, "scan: unknown flag: --bogus (see 'exectriage scan --help')"},
		{"a flag the command does not take", []string{"journal", "--file", "x.jsonl"}, ExitUsage, "unknown flag: --file"},
		{"bundle has no --json", []string{"bundle", "log_G01", "--json"}, ExitUsage, "unknown flag: --json"},
		{"an empty id", append([]string{"show", ""}, file...), ExitUsage, "an empty argument"},
		{"an unknown id", append([]string{"show", "log_nope"}, file...), ExitUsage, "no execution log_nope"},
		{"missing argument", []string{"mark", "log_G01"}, ExitUsage, "want an execution id and a verdict"},
		{"retry without --reason", append([]string{"retry", "log_G01", "--confirm-failed"}, file...), ExitUsage, "--confirm-failed needs --reason TEXT"},
		{"a retry timeout past the write client's", []string{"retry", "log_G01", "--demo", "--request-timeout", "2500000h"}, ExitUsage, "--request-timeout is at most 10m0s"},
		{"bundle --out a directory", append([]string{"bundle", "log_G01", "--no-verify", "--out", dir}, file...), ExitUsage, "is a directory"},
		{"a file with no readable record", []string{"list", "--file", "testdata/norecs.jsonl"}, ExitUsage, "no readable record"},
		{"a verdict that does not fit", append([]string{"mark", "log_G08", "duplicate"}, file...), ExitUsage, "does not fit"},
		{"retry of an unknown id", []string{"retry", "log_nope_but_demo", "--demo", "--reason", "x"}, ExitUsage, "no execution"},
		{"--cache and --no-cache together", []string{"scan", "--demo", "--cache", "--no-cache"}, ExitUsage, "scan: --cache and --no-cache contradict each other: give one"},
		{"--cache and --no-cache, listed", []string{"list", "--demo", "--no-cache", "--cache"}, ExitUsage, "--cache and --no-cache contradict each other"},
		{"a missing file is no network error", []string{"list", "--file", "testdata/no-such-export.jsonl"}, ExitUsage, "list: bad file: testdata/no-such-export.jsonl: no such file: check --file"},
		{"a missing file, scanned", []string{"scan", "--file", "testdata/no-such-export.jsonl"}, ExitUsage, "scan: bad file: testdata/no-such-export.jsonl: no such file"},
		{"an edge limit that is no rate", []string{"sandbox", "--edge-limit", "fast"}, ExitUsage, `--edge-limit "fast": want N/s`},
		{"an edge block of nothing", []string{"sandbox", "--edge-limit", "5/s", "--edge-block", "0s"}, ExitUsage, "--edge-block must be positive"},
		{"the guard refuses an unconfirmed retry", []string{"retry", flaggedDemoWrite(t, vars), "--demo"}, ExitRefused, "refused"},
		// 4 (sent, outcome unknown) needs a request that times out after the send: e2e's
		// TestRetryCommandExitStatuses shows it against the sandbox.
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, vars, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, tt.code, tt.want)
			}
			if tt.code == ExitUsage && (strings.Contains(errOut, "Flags:") || strings.Contains(errOut, "Usage:")) {
				t.Errorf("a usage error dumps the usage:\n%s", errOut)
			}
		})
	}
}

// flaggedDemoWrite is the id of a flagged write of the demo (under vars' state directory).
func flaggedDemoWrite(t *testing.T, vars map[string]string) string {
	t.Helper()
	_, out, _ := run(t, vars, "list", "--demo", "--json", "--filter", "flagged:yes kind:write")
	var l struct {
		Executions []struct {
			ID string `json:"id"`
		} `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Executions) == 0 {
		t.Fatalf("no flagged write in the demo: %v", err)
	}
	return l.Executions[0].ID
}

// Each command's help lists its own flags only, with its arguments in the synopsis, an
// example, and the exit-status table on the root.
func TestHelpComesFromTheCommandDefinitions(t *testing.T) {
	tests := []struct {
		args        []string
		want, avoid []string
	}{
		{[]string{"mark", "--help"}, []string{"exectriage mark ID VERDICT", "confirmed_failed, confirmed_succeeded, duplicate, ignored", "--note", "Examples:"}, nil},
		{[]string{"help", "journal"}, []string{"--journal", "--demo", "--json"}, []string{"--file", "--since", "--timeout", "--base-url"}},
		{[]string{"help", "bundle"}, []string{"--out", "--no-verify"}, []string{"--json"}},
		{[]string{"retry", "-h"}, []string{"--request-timeout", "--timeout", "--confirm-failed", "--reason"}, nil},
		{[]string{"sandbox", "--help"}, []string{"--addr", "--fault"}, []string{"--journal", "--file"}},
		{[]string{"help", "scan"}, []string{"exectriage scan [flags]", "--since"}, []string{"the TUI"}},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, nil, tt.args...)
		if code != ExitOK {
			t.Errorf("%v: exit %d %s", tt.args, code, errOut)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v lacks %q:\n%s", tt.args, w, out)
			}
		}
		for _, a := range tt.avoid {
			if regexp.MustCompile(regexp.QuoteMeta(a) + `\b`).MatchString(out) {
				t.Errorf("%v lists %q, which it does not take", tt.args, a)
			}
		}
	}
	_, out, _ := run(t, nil, "--version")
	if !regexp.MustCompile(`^exectriage \S+ \(.*go1\.\d+`).MatchString(out) {
		t.Errorf("--version %q lacks the Go version", out)
	}
}

// The completion scripts come from the same definitions and load in their shells (bash -n,
// zsh -n where installed); completion offers the verdicts, the filter fields and patterns.
func TestCompletions(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errOut := run(t, nil, "completion", sh)
		if code != ExitOK || !strings.Contains(out, "exectriage") {
			t.Fatalf("completion %s: exit %d %s", sh, code, errOut)
		}
		bin := map[string]string{"bash": "bash", "zsh": "zsh"}[sh]
		if bin == "" {
			continue
		}
		path, err := exec.LookPath(bin)
		if err != nil {
			t.Logf("%s not installed: its script is not syntax-checked", bin)
			continue
		}
		f := filepath.Join(t.TempDir(), "exectriage."+sh)
		if err := os.WriteFile(f, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command(path, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", bin, err, b)
		}
	}
	_, out, _ := run(t, nil, "__complete", "mark", "log_1", "")
	for _, v := range []string{"confirmed_failed", "confirmed_succeeded", "duplicate", "ignored"} {
		if !strings.Contains(out, v) {
			t.Errorf("mark's second argument does not complete %s:\n%s", v, out)
		}
	}
	_, out, _ = run(t, nil, "__complete", "list", "--filter", "")
	for _, v := range []string{"outcome:", "pattern:agent_retry", "flagged:yes"} {
		if !strings.Contains(out, v) {
			t.Errorf("--filter does not complete %s:\n%s", v, out)
		}
	}
}

// Execution ids complete where it is cheap: from an export file (or the demo), newest first,
// with their tool; against the live API nothing is listed on a tab.
func TestIDsComplete(t *testing.T) {
	_, out, _ := run(t, nil, "__complete", "show", "--file", "testdata/export.jsonl", "log_G0")
	for _, id := range []string{"log_G01\tGMAIL_SEND_EMAIL", "log_G02", "log_G08"} {
		if !strings.Contains(out, id) {
			t.Errorf("show --file ... log_G0<tab> lacks %q:\n%s", id, out)
		}
	}
	if strings.Contains(out, "log_H") {
		t.Errorf("ids without the typed prefix offered:\n%s", out)
	}
	if i, j := strings.Index(out, "log_G08"), strings.Index(out, "log_G01"); i < 0 || j < 0 || i > j {
		t.Errorf("not newest first:\n%s", out)
	}
	_, out, _ = run(t, map[string]string{"COMPOSIO_API_KEY": "k"}, "__complete", "show", "--base-url", "http://127.0.0.1:9", "")
	if strings.Contains(out, "log_") {
		t.Errorf("the live API was listed for a completion:\n%s", out)
	}
	_, out, _ = run(t, nil, "__complete", "mark", "--file", "testdata/export.jsonl", "log_S0")
	if !strings.Contains(out, "log_S04") {
		t.Errorf("mark's first argument does not complete ids:\n%s", out)
	}
}

// --color, --theme and --profile complete their values, before or after a command, the
// profiles from the config the session would read (EXECTRIAGE_CONFIG too) (32.14).
func TestFlagValuesComplete(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[profiles.prod]\napi_key_env = \"K_PROD\"\n[profiles.staging]\napi_key_env = \"K_STAGING\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "--color", ""}, []string{"auto", "always", "never"}},
		{[]string{"__complete", "--theme", ""}, []string{"default", "high-contrast", "ansi16"}},
		{[]string{"__complete", "list", "--profile", ""}, []string{"prod", "staging"}},
		{[]string{"__complete", "--profile", ""}, []string{"prod", "staging"}},
	} {
		_, out, _ := run(t, map[string]string{"EXECTRIAGE_CONFIG": cfg}, tt.args...)
		for _, w := range tt.want {
			if !strings.Contains(out, w+"\n") {
				t.Errorf("%v: no %q in\n%s", tt.args, w, out)
			}
		}
	}
}

// TestMessagesSayEachThingOnce: an unknown id is named once, not as
// "no execution X in S: no such execution: X in S"; a sandbox that cannot listen says
// "sandbox" once; a count of one execution is not "1 execution(s)".
func TestMessagesSayEachThingOnce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "one.jsonl")
	for _, tt := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"show", "log_nope", "--file", "testdata/export.jsonl"}, "exectriage show: no execution log_nope in FILE export.jsonl: it may have aged out", "no such execution"},
		{[]string{"sandbox", "--addr", "127.0.0.1:99999"}, "exectriage sandbox: listen on 127.0.0.1:99999", "sandbox: sandbox"},
		{[]string{"bundle", "log_G01", "--no-verify", "--file", "testdata/export.jsonl", "--out", out + ".md"}, "1 execution written", "(s)"},
		{[]string{"export", "--file", "testdata/export.jsonl", "--out", out}, "18 executions written", "(s)"},
	} {
		_, _, errOut := run(t, nil, tt.args...)
		if !strings.Contains(errOut, tt.want) || strings.Contains(errOut, tt.not) {
			t.Errorf("%v: %q, want %q and no %q", tt.args, errOut, tt.want, tt.not)
		}
	}
}
