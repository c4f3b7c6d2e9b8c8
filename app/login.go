package app

import (
	"cmp"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/safefile"
	"github.com/exectriage/exectriage/phrase"
)

// Credentials is the API key a session uses and where it came from: COMPOSIO_API_KEY, else
// the Composio CLI's login (~/.composio/user_data.json, or $COMPOSIO_CACHE_DIR/user_data.json),
// as @composio/core falls back to it. A uak_ key is a user key: it goes in x-user-api-key, with
// COMPOSIO_ORG_ID / COMPOSIO_PROJECT_ID when set.
type Credentials struct {
	Key     string
	BaseURL string         // the login's base_url ("" from the environment)
	From    phrase.KeyFrom // the zero KeyFrom for none
	UserKey bool
	OrgID   string
	Project string
}

// LoginFile is where the Composio CLI keeps its login.
func LoginFile(getenv func(string) string) string {
	if dir := strings.TrimSpace(getenv("COMPOSIO_CACHE_DIR")); dir != "" {
		return filepath.Join(dir, "user_data.json")
	}
	home := getenv("HOME") // no fallback: an environment without HOME (a test's) reads no login
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".composio", "user_data.json")
}

// ResolveCredentials finds the key the options' environment gives.
func ResolveCredentials(o Options) (Credentials, error) {
	c := Credentials{OrgID: strings.TrimSpace(o.getenv("COMPOSIO_ORG_ID")), Project: strings.TrimSpace(o.getenv("COMPOSIO_PROJECT_ID"))}
	if k := strings.TrimSpace(o.getenv("COMPOSIO_API_KEY")); k != "" {
		c.Key, c.From = k, phrase.KeyFrom{Env: "COMPOSIO_API_KEY"}
	} else if path := LoginFile(o.getenv); path != "" {
		b, err := safefile.Read(path, 1<<20)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return c, Usagef("the Composio CLI login: %v", err)
		default:
			var login struct {
				APIKey  string `json:"api_key"`
				BaseURL string `json:"base_url"`
				OrgID   string `json:"org_id"`
				Project string `json:"project_id"`
			}
			if err := json.Unmarshal(b, &login); err != nil {
				return c, Usagef("the Composio CLI login %s is not JSON: %v", path, err)
			}
			if k := strings.TrimSpace(login.APIKey); k != "" {
				c.Key, c.BaseURL, c.From = k, strings.TrimSpace(login.BaseURL), phrase.KeyFrom{Login: path}
				c.OrgID = cmp.Or(c.OrgID, strings.TrimSpace(login.OrgID))
				c.Project = cmp.Or(c.Project, strings.TrimSpace(login.Project))
			}
		}
	}
	c.UserKey = strings.HasPrefix(c.Key, "uak_")
	return c, nil
}

// clientOptions are the client options the credentials need.
func (c Credentials) clientOptions() []client.Option {
	if c.UserKey {
		return []client.Option{client.WithUserAPIKey(c.OrgID, c.Project)}
	}
	return nil
}
