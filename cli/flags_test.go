package cli

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

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
