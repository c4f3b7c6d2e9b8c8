package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTUIRefusesWhatItCannotDo(t *testing.T) {
	notTTY, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer notTTY.Close()
	tests := []struct {
		name   string
		args   []string
		stdout any
		want   string
	}{
		{"a pipe is not a terminal", []string{"--demo"}, notTTY, "the TUI needs a terminal"},
		{"--json is for commands", []string{"--demo", "--json"}, &bytes.Buffer{}, "--json is for commands"},
		{"an unknown word", []string{"--demo", "frobnicate"}, &bytes.Buffer{}, `unknown command "frobnicate"`},
		{"a bad --color", []string{"--demo", "--color", "sometimes"}, &bytes.Buffer{}, `want auto, always or never`},
		// the flag is blamed, not a config file that is not there
		{"an unknown palette", []string{"--demo", "--theme", "neon"}, &bytes.Buffer{}, `exectriage: --theme neon: theme: no palette "neon"`},
		{"an unknown palette in the config", []string{"--demo", "--config", writeConfig(t, "[theme]\npalette = \"neon\"\n")}, &bytes.Buffer{}, `config.toml: [theme]: theme: no palette "neon"`},
		{"a bad theme", []string{"--demo", "--config", writeConfig(t, "[theme]\naccent = \"red; rm\"\n")}, &bytes.Buffer{}, "is not a colour"},
		{"a key meaning two things", []string{"--demo", "--config", writeConfig(t, "[keys]\nretry = [\"q\"]\n")}, &bytes.Buffer{}, `"q" is bound to both`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			env := &Env{Stdin: strings.NewReader(""), Stderr: &stderr, Getenv: func(string) string { return "" }, Now: time.Now}
			switch w := tt.stdout.(type) {
			case *os.File:
				env.Stdout = w
			case *bytes.Buffer:
				env.Stdout = w
			}
			if code := Run(context.Background(), env, tt.args); code != ExitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, ExitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.want)
			}
		})
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
