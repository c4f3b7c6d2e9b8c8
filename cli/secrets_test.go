package cli

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/internal/hostile"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/triage"
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

// The exit status of a retry follows from whether anything was sent.
func TestRetryExit(t *testing.T) {
	att := func(st model.AttemptState) *model.RetryAttempt { return &model.RetryAttempt{State: st} }
	allowed := triage.GuardDecision{Allowed: true}
	boom := errors.New("journal: disk full")
	for _, tt := range []struct {
		name string
		res  retry.Result
		err  error
		want int
	}{
		{"error before the claim", retry.Result{Decision: allowed}, boom, ExitFinding},
		{"journal failed before the send", retry.Result{Decision: allowed, Attempt: att(model.AttemptIntent)}, boom, ExitFinding},
		{"journal failed after the send", retry.Result{Decision: allowed, Attempt: att(model.AttemptSent), Sent: true}, boom, ExitAmbiguous},
		{"refused", retry.Result{}, nil, ExitRefused},
		{"succeeded", retry.Result{Decision: allowed, Attempt: att(model.AttemptSucceeded), Sent: true}, nil, ExitOK},
		{"failed", retry.Result{Decision: allowed, Attempt: att(model.AttemptFailed), Sent: true}, nil, ExitFinding},
		{"indeterminate", retry.Result{Decision: allowed, Attempt: att(model.AttemptIndeterminate), Sent: true}, nil, ExitAmbiguous},
	} {
		if got := retryExit(tt.res, tt.err); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

// doctor --api reports what the logs carry, as counts (the docs' metadata.tool/toolkit keys are
// read as the tool and toolkit), and names what triage cannot do without what is missing; no
// value from the logs is printed.
func TestDoctorAPIShapeReport(t *testing.T) {
	recs := []map[string]any{
		{"id": "log_a", "timestamp": "2026-03-01T10:00:00Z", "status": "failed", "metadata": map[string]any{"tool": "GMAIL_SEND_EMAIL", "toolkit": "gmail", "user_id": "u_value_never_shown"}},
		{"id": "log_b", "timestamp": "2026-03-01T10:01:00Z", "status": "success", "metadata": map[string]any{"tool": "SLACK_SEND_MESSAGE", "toolkit": "slack"}},
	}
	srv := hostile.Serve(t, hostile.IgnoredFilters(recs...))
	code, out, errOut := run(t, map[string]string{"COMPOSIO_API_KEY": "k-shape-test-key"}, "doctor", "--api", "--base-url", srv.URL, "--json", "--since", "1000d")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sh app.Shape
	if err := json.Unmarshal([]byte(out), &sh); err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, f := range sh.Fields {
		found[f.Field] = f.Found
	}
	if sh.Records != 2 || found["tool"] != 2 || found["toolkit"] != 2 || found["arguments"] != 0 || found["SDK version"] != 0 {
		t.Errorf("shape %+v", sh)
	}
	if !strings.Contains(strings.Join(sh.Unavailable, "\n"), "arguments: duplicate groups") {
		t.Errorf("unavailable: %v", sh.Unavailable)
	}
	if strings.Contains(out, "u_value_never_shown") {
		t.Error("the report shows a value from the logs")
	}
	if code, _, _ := run(t, nil, "doctor", "--api", "--file", "testdata/export.jsonl"); code != ExitUsage {
		t.Errorf("--api with --file: exit %d", code)
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
