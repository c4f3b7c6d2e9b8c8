package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

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
