package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/redact"
)

// A key with no recognisable shape: only the policy's knowledge of the configured key hides
// it (a key shaped like ak_... is also caught by its pattern, which would hide a bypass).
const shapelessKey = "zz9ShapelessKey0123456789abcdef"

// keyForms are the spellings of the key a record may carry; each is written into a JSON
// string of the export as is.
func keyForms() map[string]string {
	esc, pct := "", ""
	for i := range len(shapelessKey) {
		esc += fmt.Sprintf(`\u%04x`, shapelessKey[i])
		pct += fmt.Sprintf("%%%02X", shapelessKey[i])
	}
	return map[string]string{
		"raw":              shapelessKey,
		"json-escaped":     esc,
		"partly escaped":   `\u007a` + shapelessKey[1:],
		"percent-encoded":  "https://cb.example/?k=" + pct,
		"base64":           base64.StdEncoding.EncodeToString([]byte(shapelessKey)),
		"basic credential": "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+shapelessKey)),
		"in a url":         "https://cb.example/hook?token=x&k=" + shapelessKey,
	}
}

// writeKeyExport writes an export whose records hold the key in every form: in the arguments,
// the error message, and (raw) in the user id.
func writeKeyExport(t *testing.T) (path string, ids []string) {
	t.Helper()
	var b strings.Builder
	n := 0
	for name, form := range keyForms() {
		n++
		id := fmt.Sprintf("log_key%02d", n)
		ids = append(ids, id)
		user := "u_" + strings.ReplaceAll(name, " ", "_")
		if name == "raw" {
			user = shapelessKey
		}
		fmt.Fprintf(&b, `{"id":%q,"timestamp":"2026-03-01T10:%02d:00Z","status":"failed","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","toolkit_slug":"gmail","user_id":%q,"connected_account_id":"ca_1"},`+
			`"error":{"kind":"timeout","message":"upstream said %s"},"data":{"request":{"arguments":{"recipient_email":"a@b.c","subject":"s","note":"%s"}}}}`+"\n",
			id, n, user, form, form)
	}
	path = filepath.Join(t.TempDir(), "keys.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

type keyCommand struct {
	name string
	args []string
}

// commandsOver are the outputs the key must never appear in.
func commandsOver(path string, ids []string) []keyCommand {
	cmds := []keyCommand{
		{"list --json", []string{"list", "--file", path, "--json"}},
		{"list", []string{"list", "--file", path}},
		{"scan --json", []string{"scan", "--file", path, "--json"}},
		{"scan", []string{"scan", "--file", path}},
		{"bundle", append([]string{"bundle", "--file", path, "--no-verify"}, ids...)},
	}
	for _, id := range ids {
		cmds = append(cmds,
			keyCommand{"show", []string{"show", "--file", path, id}},
			keyCommand{"show --json", []string{"show", "--file", path, "--json", id}},
			keyCommand{"show --reveal", []string{"show", "--file", path, "--reveal", id}},
			keyCommand{"show --json --reveal", []string{"show", "--file", path, "--json", "--reveal", id}},
		)
	}
	return cmds
}

func TestTheConfiguredKeyIsNeverPrinted(t *testing.T) {
	path, ids := writeKeyExport(t)
	oracle := redact.NewPolicy(shapelessKey)
	vars := map[string]string{"COMPOSIO_API_KEY": shapelessKey, "EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	for _, c := range commandsOver(path, ids) {
		code, out, errOut := run(t, vars, c.args...)
		if code != ExitOK {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		if oracle.Leaks(out) || oracle.Leaks(errOut) {
			t.Errorf("%v printed the configured key in some form:\n%s\n%s", c.args, out, errOut)
		}
	}
}

// The control: the same commands without the key configured print it (the policy does not
// know it), and the oracle sees it. Were the policy bypassed, the test above would fail.
func TestTheKeyTestCanFail(t *testing.T) {
	path, ids := writeKeyExport(t)
	oracle := redact.NewPolicy(shapelessKey)
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	seen := map[string]bool{}
	for _, c := range commandsOver(path, ids) {
		if _, out, _ := run(t, vars, c.args...); oracle.Leaks(out) {
			seen[c.name] = true
		}
	}
	for _, want := range []string{"list --json", "list", "scan --json", "show --reveal", "show --json --reveal"} {
		if !seen[want] {
			t.Errorf("without the key configured, %q printed no form of it: the oracle or the export is wrong (seen %v)", want, seen)
		}
	}
}

// TestNoPasswordInLocations: info and journal show a journal DSN and a base URL without their
// credentials, whatever the parameter is called (sslpassword and a base URL's
// userinfo were printed).
func TestNoPasswordInLocations(t *testing.T) {
	const secret = "pw-s3cret-77"
	dir := t.TempDir()
	for _, args := range [][]string{
		{"info", "--journal", "host=127.0.0.1 port=9 dbname=d user=u sslpassword=" + secret},
		{"info", "--json", "--journal", "postgres://u:" + secret + "@127.0.0.1:9/d?sslpassword=" + secret},
		{"info", "--base-url", "http://ana:" + secret + "@127.0.0.1:9"},
		{"info", "--json", "--base-url", "http://127.0.0.1:9/?api_key=" + secret},
		{"journal", "--journal", "host=127.0.0.1 port=9 dbname=d user=u connect_timeout=1 sslpassword=" + secret},
		{"journal", "--journal", "postgres://u:" + secret + "@127.0.0.1:9/d?connect_timeout=1"},
	} {
		_, out, errOut := run(t, map[string]string{"XDG_STATE_HOME": dir, "COMPOSIO_API_KEY": "k"}, args...)
		if strings.Contains(out+errOut, secret) || strings.Contains(out+errOut, "s3cret") {
			t.Errorf("%v shows the password:\n%s%s", args, out, errOut)
		}
	}
}
