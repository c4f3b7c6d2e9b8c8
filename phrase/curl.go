package phrase

import (
	"fmt"
	"strings"
)

// Curl is what a curl command that runs an execution's call again is made of (app.App.CurlFor).
type Curl struct {
	Slug string
	// Plain: the slug is letters, digits, '_' and '-' only; a slug from a hostile log that is
	// not is never put in a shell command.
	Plain bool
	Base  string // the API's base URL, its credentials removed
	URL   string // the execute endpoint of the slug under Base
	Body  string // the request's JSON body, its arguments redacted
}

// String is the command: the key is the shell's $COMPOSIO_API_KEY (never the key), every part is
// single-quoted for a POSIX shell (a quote in a base URL or an argument cannot end the quoting),
// and it says at its top that it sends the call for real.
func (c Curl) String() string {
	switch {
	case c.Slug == "" && !c.Plain: // the zero Curl: nothing could be made
		return ""
	case !c.Plain:
		return fmt.Sprintf("# no curl: the tool slug %q is not a plain slug, so it is not put in a shell command\n", c.Slug)
	}
	return fmt.Sprintf("# sends %s again, for real, to %s: only against a sandbox, or after exectriage's guard said yes\n"+
		"curl -sS -X POST %s \\\n  -H \"x-api-key: $COMPOSIO_API_KEY\" -H 'content-type: application/json' \\\n  -d %s\n",
		c.Slug, c.Base, shellQuote(c.URL), shellQuote(c.Body))
}

// shellQuote quotes s for a POSIX shell: single quotes, each quote in s closed, escaped and
// reopened.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
