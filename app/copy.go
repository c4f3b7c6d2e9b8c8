package app

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
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

// CurlFor is what a curl command that runs the execution's call again needs, for a bug report
// or a test against the sandbox (phrase.Curl writes the command): the session's own API (the
// base URL the session talks to: --base-url, a profile's, the demo's sandbox, its credentials
// removed), the arguments redacted; never the key. A slug from a hostile log is not plain and
// is never put in a command (Curl.Plain false).
func (a *App) CurlFor(e *model.Execution) phrase.Curl {
	c := phrase.Curl{Slug: e.ToolSlug, Plain: true}
	for _, r := range e.ToolSlug {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			c.Plain = false
			return c
		}
	}
	c.Base = redact.Location(a.apiBase()) // the one rule for a location's credentials: a copied command carries none
	c.URL = c.Base + "/api/v3.1/tools/execute/" + e.ToolSlug
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
		return phrase.Curl{} // says nothing
	}
	c.Body = string(b)
	return c
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

// WriteCopy writes what the copy menu would have put on the clipboard to a new 0600 file (in
// a private directory: writeOut), for a terminal that cannot take OSC 52, and returns its path.
func (a *App) WriteCopy(what, text string) (string, error) {
	return a.writeOut("exectriage-copy-"+safeName(strings.ReplaceAll(what, " ", "-"))+"-*.txt", []byte(text))
}
