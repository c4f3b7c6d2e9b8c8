package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/retry"
)

// RecordJSON is the execution's record as the Logs API would show it, secrets redacted, for
// the copy menu.
func (a *App) RecordJSON(e *model.Execution) string {
	rec, err := json.Marshal(model.ToWire(e, true))
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, a.policy.JSON(rec, false), "", "  "); err != nil {
		return string(a.policy.JSON(rec, false))
	}
	return buf.String()
}

// CurlFor is a curl command that would run the execution's call again, for a bug report or a
// test against the sandbox: it names the session's own API (the base URL the session talks
// to: --base-url, a profile's, the demo's sandbox), the key is the shell's $COMPOSIO_API_KEY
// (never the key), the arguments are redacted, every part is single-quoted for a POSIX shell
// (a quote in a base URL or an argument cannot end the quoting), and it says at its top that
// it sends the call for real.
func (a *App) CurlFor(e *model.Execution) string {
	for _, r := range e.ToolSlug { // a slug from a hostile log is never put in a command
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return "# no curl: the tool slug " + fmt.Sprintf(
				"%q",
				e.ToolSlug,
			) + " is not a plain slug, so it is not put in a shell command\n"
		}
	}
	base := redact.Location(a.apiBase()) // the one rule for a location's credentials: a copied command carries none
	args := json.RawMessage("{}")
	if len(e.Arguments) > 0 {
		args = a.policy.JSON(e.Arguments, false)
	}
	version, _ := retry.ToolVersionOf(e)
	body := map[string]any{"arguments": args, "version": version}
	if e.ConnectedAccountID != "" {
		body["connected_account_id"] = e.ConnectedAccountID
	}
	if e.UserID != "" {
		body["user_id"] = e.UserID
	}
	b, err := json.Marshal(body)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("# sends %s again, for real, to %s: only against a sandbox, or after exectriage's guard said yes\n"+
		"curl -sS -X POST %s \\\n  -H \"x-api-key: $COMPOSIO_API_KEY\" -H 'content-type: application/json' \\\n  -d %s\n",
		e.ToolSlug, base, shellQuote(base+"/api/v3.1/tools/execute/"+e.ToolSlug), shellQuote(string(b)))
}

// apiBase is the API base URL the session talks to: its client's, else the one the
// environment names, else the public API.
func (a *App) apiBase() string {
	if c := a.src.Client(); c != nil {
		return c.BaseURL()
	}
	if a.o.BaseURL != "" {
		return strings.TrimSuffix(a.o.BaseURL, "/")
	}
	if b := strings.TrimSuffix(envBase(a.o, a.creds), "/"); b != "" {
		return b
	}
	return client.DefaultBaseURL
}

// shellQuote quotes s for a POSIX shell: single quotes, each quote in s closed, escaped and
// reopened.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// WriteCopy writes what the copy menu would have put on the clipboard to a new 0600 file (in
// a private directory: writeOut), for a terminal that cannot take OSC 52, and returns its path.
func (a *App) WriteCopy(what, text string) (string, error) {
	return a.writeOut("exectriage-copy-"+safeName(strings.ReplaceAll(what, " ", "-"))+"-*.txt", []byte(text))
}
