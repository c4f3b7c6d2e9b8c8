package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// show prints the whole record: secrets in it are redacted unless --reveal is given, and the
// configured API key is never printed, with or without it.
func TestShowRedactsSecrets(t *testing.T) {
	const key = "ak_live_0123456789abcdefSECRET"
	rec := `{"id":"log_sec","timestamp":"2026-03-01T10:00:00Z","status":"success","metadata":{"tool_slug":"GITHUB_CREATE_AN_ISSUE","toolkit_slug":"github"},` +
		`"data":{"request":{"arguments":{"title":"t","access_token":"ghp_abcdefghijklmnopqrstuvwxyz0123456789","note":"key ` + key + `"}}}}`
	path := filepath.Join(t.TempDir(), "sec.jsonl")
	if err := os.WriteFile(path, []byte(rec+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"COMPOSIO_API_KEY": key}
	for _, args := range [][]string{{"show", "--file", path, "log_sec"}, {"show", "--file", path, "--json", "log_sec"}} {
		code, out, stderr := run(t, vars, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(out, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || strings.Contains(out, key) {
			t.Errorf("%v printed a secret:\n%s", args, out)
		}
		if !strings.Contains(out, "REDACTED") {
			t.Errorf("%v: no redaction marker:\n%s", args, out)
		}
	}
	code, out, _ := run(t, vars, "show", "--file", path, "--reveal", "log_sec")
	if code != ExitOK || !strings.Contains(out, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("--reveal did not show the token (exit %d):\n%s", code, out)
	}
	if strings.Contains(out, key) {
		t.Errorf("--reveal printed the API key:\n%s", out)
	}
}

// TestNewCmdShow: show's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdShow(t *testing.T) {
	newCmdTable(t, NewCmdShow, []argvCase[ShowOptions]{
		{argv: "log_1 --reveal --json", want: func(o *ShowOptions) string {
			return differs("ID", o.ID, "log_1", "Reveal", o.Reveal, true, "json", o.Source.json, true)
		}},
		{argv: "--session trs_1", want: func(o *ShowOptions) string { return differs("Session", o.Session, "trs_1", "ID", o.ID, "") }},
		{argv: "", wantErr: "want exactly one execution ID"},
		{argv: "a b", wantErr: "want exactly one execution ID"},
	})
}
