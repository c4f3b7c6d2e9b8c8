package app

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/redact"
)

// Info is where exectriage keeps things and what it would use, for `exectriage info`. It is
// found without opening the source or the journal (no network, nothing created) and never
// holds the API key.
type Info struct {
	Version       string        `json:"version"`
	GoVersion     string        `json:"go_version"`
	JournalSchema int           `json:"journal_schema"`
	Config        string        `json:"config"`
	ConfigFound   bool          `json:"config_found"`
	ConfigFrom    string        `json:"config_from"` // --config, EXECTRIAGE_CONFIG, default
	Journal       string        `json:"journal"`     // path or DSN, password redacted
	JournalKind   string        `json:"journal_kind"`
	JournalGuards phrase.Guards `json:"journal_guards"`
	JournalFound  bool          `json:"journal_found"`
	// Index is the team index the session reads and keeps the logs in (location, password
	// redacted; "" for none: the local cache).
	Index        string           `json:"index,omitempty"`
	StateDir     string           `json:"state_dir"`
	DemoAnchor   string           `json:"demo_anchor"`
	Spool        string           `json:"spool"` // where gzipped exports are decompressed while open
	Source       string           `json:"source"`
	SourceWhy    phrase.SourceWhy `json:"source_why"`
	KeyFrom      phrase.KeyFrom   `json:"api_key_from"` // never the key
	Profile      string           `json:"profile,omitempty"`
	Production   bool             `json:"production,omitempty"`
	DashboardURL string           `json:"dashboard_log_url"` // the template `o` opens ("" for none)
}

// GetInfo says what a session with these options would use.
func GetInfo(o Options) (Info, error) {
	o, prof, err := withProfile(o)
	if err != nil {
		return Info{}, err
	}
	in := Info{
		Profile:       prof.Name,
		Production:    prof.Production,
		Version:       o.Version,
		GoVersion:     runtime.Version(),
		JournalSchema: journal.SchemaVersion(),
		Spool:         os.TempDir(),
	}
	switch {
	case o.ConfigPath != "":
		in.Config, in.ConfigFrom = o.ConfigPath, "--config"
	case o.getenv("EXECTRIAGE_CONFIG") != "":
		in.Config, in.ConfigFrom = o.getenv("EXECTRIAGE_CONFIG"), "EXECTRIAGE_CONFIG"
	default:
		p, err := config.DefaultPath()
		if err != nil {
			return in, err
		}
		in.Config, in.ConfigFrom = p, "the default"
	}
	_, err = os.Stat(in.Config)
	in.ConfigFound = err == nil
	in.DashboardURL = o.profileLogURL
	if in.DashboardURL == "" && in.ConfigFound {
		cfg, err := LoadConfig(o)
		if err != nil {
			return in, err
		}
		in.DashboardURL = cfg.Dashboard.LogURL
	}
	creds, err := ResolveCredentials(o)
	if err != nil {
		return in, err
	}
	in.KeyFrom = keyFromLabel(o, creds.From)
	dsn, err := JournalDSN(o)
	if err != nil {
		return in, err
	}
	in.Journal = journal.RedactDSN(dsn)
	if d := indexDSN(o); d != "" {
		in.Index = redact.Location(d)
	}
	in.JournalKind, in.JournalGuards = "SQLite", phrase.Guards{}
	if journal.IsPostgres(dsn) {
		in.JournalKind, in.JournalGuards = "PostgreSQL", phrase.Guards{Postgres: true}
	} else {
		_, err := os.Stat(dsn)
		in.JournalFound = err == nil
	}
	if state, err := journal.DefaultPath(o.getenv); err == nil {
		in.StateDir = filepath.Dir(state)
	}
	if dir, _, err := demoDir(o); err == nil {
		in.DemoAnchor = filepath.Join(dir, DemoAnchorName)
	}
	switch {
	case o.File != "":
		in.Source, in.SourceWhy = "FILE "+o.File, phrase.SourceWhy{By: "--file"}
	case o.BaseURL != "":
		in.Source, in.SourceWhy = "LIVE "+redact.Location(o.BaseURL), phrase.SourceWhy{By: "--base-url"}
	case usesDemo(o, creds):
		in.Source, in.SourceWhy = "DEMO", phrase.SourceWhy{By: "--demo", NoKey: !o.Demo}
	default:
		base := envBase(o, creds)
		in.SourceWhy = phrase.SourceWhy{By: "COMPOSIO_BASE_URL"}
		if base == "" {
			base, in.SourceWhy.PublicAPI = client.DefaultBaseURL, true
		}
		in.Source = "LIVE " + strings.TrimSuffix(redact.Location(base), "/")
		if creds.Key != "" {
			in.SourceWhy.Key = keyFromLabel(o, creds.From) // the one label "API key from" shows
		}
	}
	return in, nil
}
