package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bad input to watch is one line and exit 2, before anything is read or sent, and never repeats
// a URL or a secret; a profile's [profiles.NAME.watch] says what the flags do not.
func TestWatchInput(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(`
[profiles.demo]
journal = "`+filepath.Join(dir, "profile-journal.db")+`"
[profiles.demo.watch]
filter = "toolkit:slack"
tell = ["flagged"]
[profiles.bad]
[profiles.bad.watch]
tell = ["everything"]
[profiles.slow]
[profiles.slow.watch]
digest = "soon"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"XDG_STATE_HOME": dir, "EXECTRIAGE_CONFIG": cfg}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no sink", []string{"watch", "--demo", "--once"}, nil, "nowhere to tell"},
		{"a webhook without a secret", []string{"watch", "--demo", "--once", "--webhook", "https://ops.example/hook"}, nil, "needs a signing secret"},
		{"a bad secret", []string{"watch", "--demo", "--once", "--webhook", "https://ops.example/hook"}, map[string]string{"EXECTRIAGE_WEBHOOK_SECRET": "hunter2"}, "whsec_"},
		{"a Slack URL that is not one", []string{"watch", "--demo", "--once", "--slack", "ftp://x/s3cr3t"}, nil, "not an http(s) URL"},
		{"a kind that is none", []string{"watch", "--demo", "--once", "--json", "--tell", "flagged,everything"}, nil, "not a kind of event"},
		{"a bad filter", []string{"watch", "--demo", "--once", "--json", "--filter", "bogus:x"}, nil, "--filter"},
		{"every 0", []string{"watch", "--demo", "--once", "--json", "--every", "0s"}, nil, "--every"},
		{"a bad log format", []string{"watch", "--demo", "--once", "--json", "--log-format", "xml"}, nil, "--log-format"},
		{"a profile's kind that is none", []string{"watch", "--demo", "--once", "--json", "--profile", "bad"}, nil, "profile bad's watch tell"},
		{"a profile's digest that is none", []string{"watch", "--demo", "--once", "--json", "--profile", "slow"}, nil, "profile slow's watch digest"},
		{"read-only", []string{"watch", "--demo", "--once", "--json", "--readonly"}, nil, "read-only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := map[string]string{}
			maps.Copy(v, vars)
			maps.Copy(v, c.env)
			code, out, errOut := run(t, v, c.args...)
			if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
				t.Fatalf("exit %d, stderr %q, stdout %.80q: want exit 2 and one line with %q", code, errOut, out, c.want)
			}
			if strings.Contains(errOut, "s3cr3t") || strings.Contains(errOut, "hunter2") {
				t.Fatalf("the error repeats a secret: %s", errOut)
			}
		})
	}
	// The profile's filter and kinds, and a flag that overrides them.
	kinds := func(args ...string) map[string]int {
		t.Helper()
		code, out, errOut := run(t, vars, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		n := map[string]int{}
		for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
			var e struct{ Kind, Toolkit string }
			if json.Unmarshal([]byte(line), &e) != nil {
				t.Fatalf("not an event: %q", line)
			}
			n[e.Kind+"/"+e.Toolkit]++
		}
		return n
	}
	got := kinds("watch", "--demo", "--once", "--json", "--profile", "demo", "--journal", filepath.Join(dir, "a.db"))
	if len(got) != 1 || got["flagged/slack"] == 0 {
		t.Fatalf("with the profile's filter and kinds: %v, want flagged Slack writes only", got)
	}
	got = kinds("watch", "--demo", "--once", "--json", "--profile", "demo", "--journal", filepath.Join(dir, "b.db"), "--filter", "toolkit:gmail")
	if len(got) != 1 || got["flagged/gmail"] == 0 {
		t.Fatalf("--filter over the profile's: %v, want flagged Gmail writes only", got)
	}
}

// TestNewCmdWatch: watch's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdWatch(t *testing.T) {
	newCmdTable(t, NewCmdWatch, []argvCase[WatchOptions]{
		{argv: "--once --json --every 30s --tell flagged,groups", want: func(o *WatchOptions) string {
			return differs("Once", o.Once, true, "JSON", o.JSON, true, "Every", o.Every, 30*time.Second, "Tell", o.Tell, []string{"flagged", "groups"})
		}},
		{argv: "--webhook https://example.com/h --webhook-secret-file s.txt --filter flagged:yes", want: func(o *WatchOptions) string {
			return differs("Webhook", o.Webhook, "https://example.com/h", "SecretFile", o.SecretFile, "s.txt", "Filter", o.Filter, "flagged:yes")
		}},
		{argv: "--every 0s", wantErr: "--every must be positive"},
		{argv: "--log-format xml", wantErr: "--log-format must be text or json"},
		{argv: "x", wantErr: "unexpected argument"},
	})
}
