// Package app is exectriage's application layer: the one place that turns configuration
// (flags, environment, the config file) into a working session — the source, triage
// settings and tool kinds, the verifiers, the journal, the guarded retry, bundles, error
// explanations and the secret policy. The CLI's commands and the TUI both run on it and reach
// no domain package (client, journal, retry, source) on their own; triage stays pure decisions.
// It plays the part soft-serve's pkg/backend plays for its SSH commands and its UI.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/verify"
)

// DefaultAPIWindow is how far back an API source (live or demo) reads when no window is
// given. A file is read whole by default: an export already is the window its author chose.
const DefaultAPIWindow = 7 * 24 * time.Hour

// ErrNotFound is returned (wrapped) for an execution the source does not have.
var ErrNotFound = source.ErrNotFound

// Options is what the caller says about the session: the CLI fills it from flags and the
// environment.
type Options struct {
	Demo bool // the embedded demo sandbox
	// JournalOnly says the command reads the journal, not a source (`exectriage journal`):
	// it is the person's journal unless --demo asks for the demo's.
	JournalOnly bool
	File        string // an export file
	BaseURL     string // the API's base URL (with File: the API verify asks)
	// Journal is the journal DSN as given (--journal); "" means EXECTRIAGE_JOURNAL, else the
	// default file in the user's state directory.
	Journal string
	// ConfigPath is the config file as given (--config); "" means EXECTRIAGE_CONFIG, else the
	// default location (where a missing file is no config).
	ConfigPath string
	// Since is the window to read (SinceSet says it was given; else DefaultAPIWindow for an
	// API source and everything for a file).
	Since    time.Duration
	SinceSet bool
	// CallerTimeout is the caller's request timeout triage assumes (CallerTimeoutSet says it
	// was given; else the config's, else triage.DefaultCallerTimeout).
	CallerTimeout    time.Duration
	CallerTimeoutSet bool
	// Lean drops, as records load, what triage never reads (scan over a million records).
	Lean bool
	// Background parses exports below the OS priority of an interactive loop (the TUI).
	Background bool
	// Gate, for an interactive loop, is where a load's background work (an export's read and
	// parse, the TUI's analysis) waits while the loop holds it after a key; nil never waits.
	Gate *pace.Gate
	// Getenv and Now are the environment and the clock (os.Getenv and time.Now when nil).
	Getenv func(string) string
	Now    func() time.Time
	// OnBad is told about every record that could not be read and was skipped.
	OnBad func(model.RecordError)
	// Version is exectriage's version, named in bundles.
	Version string
	// ReadOnly: no retry, no verdict, no journal write; AllowReads lets provider reads (which
	// run read tools) through. The config's [defaults] readonly turns it on too.
	ReadOnly, AllowReads bool
	// Profile names the config's [profiles.NAME] to use ("": EXECTRIAGE_PROFILE, else none).
	Profile string
	// OnRateWait is told of every wait of the session's reads for the API's rate limit (from
	// the goroutine that waits: it must not block).
	OnRateWait func(RateWait)
	// OnRequest is told of every request the session's client sends to the API, with the
	// status it was answered (0: none came); watch counts them. It must not block.
	OnRequest func(status int)
	// set by withProfile
	profile        ProfileInfo
	profileKeyEnv  string
	profileLogURL  string
	profileApplied bool
	// SourceOptions tunes the source's options before it opens.
	SourceOptions func(*source.Options)
	// DemoSandbox tunes the demo sandbox's configuration before it starts (tests).
	DemoSandbox func(*sandbox.Config)
	// Cache is whether the live API's logs are kept between runs (logcache): CacheAuto keeps
	// them for a remote API, not for a loopback one (a sandbox, whose records do not last).
	Cache CacheMode
	// Index is the team index's PostgreSQL DSN (--index; "" means EXECTRIAGE_INDEX, else the
	// profile's index, else none), and IndexProject the name the team shares a project under
	// (the profile's index_project; "" derives it from the key).
	Index, IndexProject string
}

// App is one session of exectriage over one source.
type App struct {
	o      Options
	cfg    config.Config
	src    source.Source
	topt   triage.Options
	kinds  *triage.Kinds
	policy *redact.Policy

	verifiersOnce sync.Once
	verifiers     *verify.Verifiers

	mu       sync.Mutex
	learned  map[string]bool            // slugs whose tool definition was asked for
	hydrated map[string]model.Execution // full records a streaming load fetched (at most maxHydrated)

	creds     Credentials
	j         *Journal // the session's journal, nil when none is open
	jerr      error    // why the journal could not be opened, when it could not
	ownJ      bool     // the app closes j (ViewJournal)
	bundleDir string
	outDir    string // the session's private directory for its files (writeOut), made on first use

	index IndexState      // the session's team index
	cache *logcache.Cache // the logs' cache the source reads (it closes it), nil when none

	listed   atomic.Int64 // executions the session's loads have listed (RateWait.Read)
	rateMu   sync.Mutex
	rateWait RateWait // the latest wait for the rate limit (RateWaiting)
	who      string   // overrides journal.Who
}

// Parts builds an App from parts already open: tests use it over a sandbox source.
type Parts struct {
	Source  source.Source
	Journal journal.Journal // nil: none (retry refused, no history)
	Config  config.Config
	// Triage tunes classification; the zero value means Config.Options().
	Triage triage.Options
	// Kinds says which tools write; nil starts an empty cache.
	Kinds *triage.Kinds
	// Verifiers check the provider; nil builds them from the source's client and the config.
	Verifiers *verify.Verifiers
	Who       string // the person in the journal (default journal.Who)
	BundleDir string // where bundles are written (default the system temp directory)
	APIKey    string // the configured key, never shown
	Version   string
	Now       func() time.Time
}

// New builds an App from parts.
func New(p Parts) *App {
	o := Options{Version: p.Version, Now: p.Now}
	a := &App{o: o, cfg: p.Config, src: p.Source, topt: p.Triage, kinds: p.Kinds, policy: redact.NewPolicy(p.APIKey),
		j: WrapJournal(p.Journal), bundleDir: p.BundleDir, who: p.Who}
	if a.topt.CallerTimeout == 0 && a.topt.Window == 0 && a.topt.VolatileKeys == nil {
		a.topt = p.Config.Options()
	}
	a.topt = a.topt.WithDefaults()
	if a.kinds == nil {
		a.kinds = triage.NewKinds()
	}
	if p.Verifiers != nil {
		a.verifiersOnce.Do(func() { a.verifiers = p.Verifiers })
	}
	return a
}

// UsageError is bad input: flags, a config file, an unreadable export, an unknown id. The
// CLI exits 2 on it.
type UsageError struct {
	Msg string
	Err error // what it wraps, when it wraps something (errors.Is sees through it)
}

func (e *UsageError) Error() string { return e.Msg }

// Unwrap is the error a UsageError wraps.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// IsUsage reports whether err is bad input rather than a run-time failure.
func IsUsage(err error) bool {
	var ue *UsageError
	var fe *source.FileError
	return errors.As(err, &ue) || errors.As(err, &fe) || errors.Is(err, source.ErrNotFound) || errors.Is(err, journal.ErrBadLocation) ||
		errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) || errors.Is(err, source.ErrNoAPIKey)
}

func (o *Options) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

func (o *Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// LoadConfig reads the config file the options name.
func LoadConfig(o Options) (config.Config, error) {
	path := o.ConfigPath
	path = cmp.Or(path, o.getenv("EXECTRIAGE_CONFIG"))
	cfg, err := config.Load(path)
	if err != nil {
		return config.Config{}, &UsageError{Msg: err.Error()}
	}
	return cfg, nil
}

// Open reads the config and opens the source: File, then BaseURL, then Demo, then the live
// API when COMPOSIO_API_KEY is set (at COMPOSIO_BASE_URL when set), then COMPOSIO_BASE_URL
// alone when it is a loopback address (a local `exectriage sandbox`), else the demo.
func Open(ctx context.Context, o Options) (*App, error) {
	if o.Demo && (o.File != "" || o.BaseURL != "") {
		return nil, Usagef("--demo cannot be combined with --file or --base-url")
	}
	cfg, err := LoadConfig(o) // the config names the profiles; a profile does not move it
	if err != nil {
		return nil, err
	}
	if name := profileName(o); name != "" && !o.profileApplied {
		if o, _, err = applyProfile(o, cfg, name); err != nil {
			return nil, err
		}
	}
	if o.AllowReads && !o.ReadOnly && !cfg.Defaults.ReadOnly { // it lifts a read-only session's ban, and there is none
		return nil, Usagef(
			"--allow-reads only applies to a read-only session: add --readonly (or readonly = true in the config's [defaults] or the " +
				"profile)",
		)
	}
	o.ReadOnly = o.ReadOnly || cfg.Defaults.ReadOnly // the demo's anchor must know it (demoAnchor)
	o.AllowReads = o.AllowReads || cfg.Defaults.AllowReads
	topt := cfg.Options() // the config's, defaults for the rest
	if o.CallerTimeoutSet && o.CallerTimeout > 0 {
		topt.CallerTimeout = o.CallerTimeout
	}
	if d := indexDSN(o); d != "" && !journal.IsPostgres(d) {
		return nil, Usagef("team index %q: want a PostgreSQL DSN (postgres://… or host=… dbname=…)", redact.Location(d))
	}
	creds, err := ResolveCredentials(o)
	if err != nil {
		return nil, err
	}
	if err := keyStaysWithItsHost(o, creds); err != nil {
		return nil, err
	}
	creds.From = keyFromLabel(o, creds.From)
	a := &App{o: o, cfg: cfg, topt: topt.WithDefaults(), kinds: triage.NewKinds(), policy: redact.NewPolicy(creds.Key), creds: creds}
	if a.src, a.cache, err = openSource(ctx, &o, creds, &a.index, a.rateNotice(&o)); err != nil {
		return nil, err
	}
	return a, nil
}

// keyStaysWithItsHost refuses to send the Composio CLI login's key to another API than the
// login's own (its base_url, else the public API): a --base-url, a COMPOSIO_BASE_URL or a
// profile's base URL that is not that API needs an explicit key (COMPOSIO_API_KEY, or the
// profile's api_key_env). A login key is a person's, for every project they can see.
func keyStaysWithItsHost(o Options, creds Credentials) error {
	if creds.Key == "" || creds.From.Env != "" || usesDemo(o, creds) || o.File != "" && o.BaseURL == "" {
		return nil
	}
	target := strings.TrimSpace(o.BaseURL)
	target = cmp.Or(target, strings.TrimSpace(o.getenv("COMPOSIO_BASE_URL")))
	own := creds.BaseURL
	own = cmp.Or(own, client.DefaultBaseURL)
	if target == "" || sameAPI(target, own) {
		return nil
	}
	return Usagef("the API key of %s is for %s, not %s: set COMPOSIO_API_KEY (or the profile's api_key_env) to the key of that API",
		creds.From, redact.Location(own), redact.Location(target))
}

// sameAPI reports whether two base URLs name the same API: scheme, host and port (the
// default port of the scheme when none), case aside.
func sameAPI(a, b string) bool {
	ua, errA := url.Parse(strings.TrimSpace(a))
	ub, errB := url.Parse(strings.TrimSpace(b))
	if errA != nil || errB != nil {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub) &&
		strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/")
}

// KeyFrom says where the API key came from (COMPOSIO_API_KEY, the Composio CLI login), ""
// envBase is the base URL from the environment: COMPOSIO_BASE_URL, else the Composio CLI
// login's (as @composio/core reads it) when the key came from that login.
func envBase(o Options, creds Credentials) string {
	if v := strings.TrimSpace(o.getenv("COMPOSIO_BASE_URL")); v != "" {
		return v
	}
	if creds.BaseURL != "" && creds.From.Env == "" {
		return creds.BaseURL
	}
	return ""
}

// usesDemo reports whether the options open the embedded demo: --demo, or no file, no base
// URL, no API key and no local sandbox at COMPOSIO_BASE_URL. The journal asks too, so that
// the demo never writes into the person's real journal.
func usesDemo(o Options, creds Credentials) bool {
	switch {
	case o.File != "", o.BaseURL != "":
		return false
	case o.Demo:
		return true
	case creds.Key != "":
		return false
	}
	base := envBase(o, creds)
	return base == "" || !source.Loopback(base)
}

// maxGzipRatio is EXECTRIAGE_MAX_GZIP_RATIO (0: the default).
func maxGzipRatio(o Options) (int, error) {
	v := strings.TrimSpace(o.getenv("EXECTRIAGE_MAX_GZIP_RATIO"))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, Usagef("EXECTRIAGE_MAX_GZIP_RATIO=%q: want a whole number of at least 1 (default %d)", v, source.DefaultMaxGzipRatio)
	}
	return n, nil
}

// when there is none; never the key itself.
func (a *App) KeyFrom() phrase.KeyFrom { return a.creds.From }

// Close closes the source.
func (a *App) Close() error {
	err := a.src.Close()
	if a.ownJ {
		err = errors.Join(err, a.j.Close())
		a.j, a.ownJ = nil, false
	}
	return err
}

// Config is the config file in force.
func (a *App) Config() config.Config { return a.cfg }

// TriageOptions are the triage settings in force (config, flags, defaults).
func (a *App) TriageOptions() triage.Options { return a.topt }

// Kinds says which tools read and which write (learned from the tools endpoint as tools
// appear, from the slug's verb otherwise).
func (a *App) Kinds() *triage.Kinds { return a.kinds }

// Hold holds the session's background load work (read, parse, analysis) back for d at its
// gate (Options.Gate; nothing when none), so that the frame of a key just pressed gets the
// cores. It never blocks.
func (a *App) Hold(d time.Duration) { a.o.Gate.Hold(d) }

// Policy is the secret policy: the configured API key is never shown.
func (a *App) Policy() *redact.Policy { return a.policy }

// Who names the person in the journal.
func (a *App) Who() string {
	if a.who != "" {
		return a.who
	}
	return journal.Who(a.o.getenv)
}

// Now is the session's clock.
func (a *App) Now() time.Time { return a.o.now() }

// Version is exectriage's version.
func (a *App) Version() string { return a.o.Version }

// ownRetries marks the effects of e's guarded retries in a check of e (triage.OwnRetries), from
// the journal's attempts; without a journal the state stays as the provider gave it.
func (a *App) ownRetries(ctx context.Context, e *model.Execution, ps model.ProviderState) model.ProviderState {
	if a.j == nil || ps.State != model.ProviderFound {
		return ps
	}
	atts, err := a.j.j.Attempts(ctx, e.ID)
	if err != nil {
		return triage.OwnRetriesUnread(ps, err)
	}
	return triage.OwnRetries(ps, atts)
}

// ErrReadOnly is why a read-only session refuses an action.
var ErrReadOnly = errors.New("read-only")

// ReadOnly reports whether the session may not retry, mark or write to the journal.
func (a *App) ReadOnly() bool { return a.o.ReadOnly || a.cfg.Defaults.ReadOnly }

// CheckWrite refuses, in a read-only session, anything that sends or writes (a retry, a
// verdict, a resolution).
func (a *App) CheckWrite(what string) error {
	if a.ReadOnly() {
		return &UsageError{Msg: fmt.Sprintf("%s: %v: %s", what, ErrReadOnly, phrase.ReadOnlyWrites)}
	}
	return nil
}

// HideKnown hides the configured API key (in every form the policy knows) in text the CLI
// prints outside a session (errors from before one opened).
func HideKnown(text, apiKey string) string { return redact.NewPolicy(apiKey).Text(text, true) }
