package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// info names the config, journal (and whom it guards), state, source and where the key came
// from — never the key, never a journal password — without opening anything.
func TestInfo(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		vars  map[string]string
		args  []string
		want  []string
		avoid []string
	}{
		{"live with a key and a team journal",
			map[string]string{"COMPOSIO_API_KEY": "ak_live_SECRET_1234", "EXECTRIAGE_JOURNAL": "postgres://ana:hunter2@db.internal/exectriage", "XDG_STATE_HOME": dir},
			nil,
			[]string{"source        LIVE https://backend.composio.dev (the public API, key from COMPOSIO_API_KEY)", "API key from  COMPOSIO_API_KEY",
				"PostgreSQL postgres://ana:xxxxx@db.internal/exectriage", "guards      everyone who uses it", "schema      4"},
			[]string{"SECRET", "hunter2"}},
		{"the demo, without a key",
			map[string]string{"XDG_STATE_HOME": dir},
			nil,
			[]string{"source        DEMO (no API key", "SQLite " + filepath.Join(dir, "exectriage", "demo-journal.db"), "demo anchor   " + filepath.Join(dir, "exectriage", "demo-anchor"), "API key from  none"},
			nil},
		{"a file", map[string]string{"XDG_STATE_HOME": dir}, []string{"--file", "testdata/export.jsonl", "--journal", filepath.Join(dir, "j.db")},
			[]string{"source        FILE testdata/export.jsonl (--file)", "SQLite " + filepath.Join(dir, "j.db") + " (not there yet)", "config        testdata/config.toml (from EXECTRIAGE_CONFIG)"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.vars, append([]string{"info"}, tt.args...)...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(out, a) {
					t.Errorf("shows %q:\n%s", a, out)
				}
			}
			_, js, _ := run(t, tt.vars, append([]string{"info", "--json"}, tt.args...)...)
			var in map[string]any
			if err := json.Unmarshal([]byte(js), &in); err != nil || in["source"] == nil || in["api_key_from"] == nil {
				t.Errorf("info --json: %v %s", err, js)
			}
			for _, a := range tt.avoid {
				if strings.Contains(js, a) {
					t.Errorf("info --json shows %q", a)
				}
			}
		})
	}
}

// info names the dashboard address `o` opens, or how to configure one.
func TestInfoDashboard(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[dashboard]\nlog_url = \"https://dash.example/acme/main/logs/{log_id}\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, map[string]string{"EXECTRIAGE_CONFIG": cfg, "XDG_STATE_HOME": dir}, "info")
	if code != ExitOK || !strings.Contains(out, "dashboard     https://dash.example/acme/main/logs/{log_id}") {
		t.Errorf("exit %d %s\n%s", code, errOut, out)
	}
	code, out, _ = run(t, map[string]string{"EXECTRIAGE_CONFIG": filepath.Join(dir, "none.toml"), "XDG_STATE_HOME": dir}, "info")
	if code != ExitOK || !strings.Contains(out, "dashboard     none: set [dashboard] log_url") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestNewCmdInfo: info's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdInfo(t *testing.T) {
	newCmdTable(t, NewCmdInfo, []argvCase[InfoOptions]{
		{argv: "--json --profile prod", want: func(o *InfoOptions) string {
			return differs("json", o.Source.json, true, "profile", o.Source.profile, "prod")
		}},
		{argv: "--journal 'postgres://h/db'", want: func(o *InfoOptions) string { return differs("journal", o.Source.journal, "postgres://h/db") }},
		{argv: "x", wantErr: "unexpected argument"},
	})
}

// info names one key source: a profile's key variable on the source line as on the key line,
// even with COMPOSIO_API_KEY set as well (two different sources on two lines).
func TestInfoNamesOneKeySource(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[profiles.prod]\napi_key_env = \"EXAMPLE_PROD_KEY\"\nproduction = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, extra := range []map[string]string{nil, {"COMPOSIO_API_KEY": "ak_other"}} {
		vars := map[string]string{"EXECTRIAGE_CONFIG": cfg, "EXAMPLE_PROD_KEY": "ak_prod", "XDG_STATE_HOME": dir}
		maps.Copy(vars, extra)
		code, out, errOut := run(t, vars, "info", "--profile", "prod")
		if code != ExitOK {
			t.Fatalf("info: %d %s", code, errOut)
		}
		var sources []string
		for l := range strings.SplitSeq(out, "\n") {
			if _, after, ok := strings.Cut(l, "key from"); ok {
				sources = append(sources, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(after), ")")))
			}
		}
		if len(sources) != 2 || !strings.HasPrefix(sources[0], "$EXAMPLE_PROD_KEY") || !strings.HasPrefix(sources[1], "$EXAMPLE_PROD_KEY") {
			t.Errorf("with %v the key sources are %q:\n%s", extra, sources, out)
		}
	}
}
