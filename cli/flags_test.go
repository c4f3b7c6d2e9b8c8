package cli

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/sandbox"
	"github.com/spf13/cobra"
)

// argvCase is one row of a command's TestNewCmdX table, as gh writes them: an argv, and either
// what the options it binds must say (want: "" when they say it, else what differs) or the
// error the command gives for it before anything runs (runF is then never called).
type argvCase[O any] struct {
	argv    string
	want    func(o *O) string
	wantErr string
}

// newCmdTable runs a command's argv table through newCmd, with a runF that only captures the
// options it is given.
func newCmdTable[O any](t *testing.T, newCmd func(*Env, func(context.Context, *O) error) *cobra.Command, cases []argvCase[O]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.argv, func(t *testing.T) {
			var got *O
			cmd := newCmd(newTestEnv(nil).Env, func(_ context.Context, o *O) error { got = o; return nil })
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			cmd.SetArgs(splitArgv(tt.argv))
			err := cmd.Execute()
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one saying %q", err, tt.wantErr)
				}
				if got != nil {
					t.Errorf("runF ran for a refused argv, with %+v", got)
				}
			case err != nil:
				t.Fatal(err)
			case got == nil:
				t.Fatal("runF did not run")
			default:
				if d := tt.want(got); d != "" {
					t.Error(d)
				}
			}
		})
	}
}

// differs says which of the (name, got, want) triples differ; "" when none does.
func differs(triples ...any) string {
	var out []string
	for i := 0; i+2 < len(triples); i += 3 {
		if !reflect.DeepEqual(triples[i+1], triples[i+2]) {
			out = append(out, fmt.Sprintf("%v = %#v, want %#v", triples[i], triples[i+1], triples[i+2]))
		}
	}
	return strings.Join(out, "; ")
}

// splitArgv splits an argv written as a shell would read it, with single quotes only.
func splitArgv(s string) []string {
	var out []string
	var cur strings.Builder
	in, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
			}
			in = false
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func TestSplitArgv(t *testing.T) {
	if got := splitArgv(`list --filter 'a b' '' x`); !reflect.DeepEqual(got, []string{"list", "--filter", "a b", "", "x"}) {
		t.Errorf("%q", got)
	}
	if d := differs("a", 1, 1, "b", "x", "y"); d != `b = "x", want "y"` {
		t.Errorf("differs: %q", d)
	}
}

// Named profiles: --profile NAME or EXECTRIAGE_PROFILE picks the base URL, the
// variable holding the key (never the key) and the journal; info says which; a missing profile
// or an unset key variable is a usage error, never a silent fall-back to the demo.
func TestProfiles(t *testing.T) {
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 3, Size: 200, Now: fixedNow, APIKey: "k-prod-SECRET"}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	pj := filepath.Join(dir, "prod.db")
	text := fmt.Sprintf("[profiles.prod]\nbase_url = %q\napi_key_env = \"EXAMPLE_PROD_KEY\"\njournal = %q\nproduction = true\n\n[profiles.staging]\nbase_url = \"https://staging.example\"\napi_key_env = \"EXAMPLE_STAGING_KEY\"\n", base, pj)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"EXECTRIAGE_CONFIG": cfg, "EXAMPLE_PROD_KEY": "k-prod-SECRET", "XDG_STATE_HOME": dir}

	for _, how := range [][]string{{"--profile", "prod"}, nil} {
		v := vars
		if how == nil {
			v = map[string]string{"EXECTRIAGE_PROFILE": "prod"}
			maps.Copy(v, vars)
		}
		code, out, errOut := run(t, v, append([]string{"info"}, how...)...)
		if code != ExitOK {
			t.Fatalf("info %v: %d %s", how, code, errOut)
		}
		for _, want := range []string{"source        LIVE " + base, "API key from  $EXAMPLE_PROD_KEY (profile prod)", "SQLite " + pj} {
			if !strings.Contains(out, want) {
				t.Errorf("info %v lacks %q:\n%s", how, want, out)
			}
		}
		if strings.Contains(out, "SECRET") {
			t.Errorf("info shows the key:\n%s", out)
		}
		// the profile's source and key really are used
		if code, out, errOut := run(t, v, append([]string{"scan"}, how...)...); code != ExitOK || !strings.Contains(out+errOut, "200") {
			t.Errorf("scan %v: %d %s %s", how, code, out, errOut)
		}
	}
	if code, _, errOut := run(t, vars, "scan", "--profile", "nope"); code != ExitUsage || !strings.Contains(errOut, `no profile "nope"`) || !strings.Contains(errOut, "prod, staging") {
		t.Errorf("unknown profile: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, vars, "scan", "--profile", "staging"); code != ExitUsage || !strings.Contains(errOut, "$EXAMPLE_STAGING_KEY, where its API key is, is not set") {
		t.Errorf("unset key variable: %d %s", code, errOut)
	}
}

// Durations take days and weeks wherever a duration is taken (the tool itself says "since 7d").
func TestDurationsTakeDaysAndWeeks(t *testing.T) {
	for _, args := range [][]string{
		{"list", "--file", "testdata/export.jsonl", "--since", "7d"},
		{"list", "--file", "testdata/export.jsonl", "--since", "2w", "--timeout", "1d"},
	} {
		if code, _, errOut := run(t, nil, args...); code != ExitOK {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if code, _, errOut := run(t, nil, "list", "--file", "testdata/export.jsonl", "--since", "7days"); code != ExitUsage || !strings.Contains(errOut, "7d") {
		t.Errorf("--since 7days: exit %d: %s", code, errOut)
	}
}
