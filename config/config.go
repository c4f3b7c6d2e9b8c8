// Package config reads exectriage's configuration file: the [defaults] that tune triage, the
// [[verifier]] entries that teach it provider checks for more tools, and the UI's [theme] and
// [keys] (kept as written: the UI validates them when it applies them, ui.ApplyConfig). It
// reports every problem as "file:line: what is wrong".
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/exectriage/exectriage/internal/safefile"
	"github.com/exectriage/exectriage/verify"

	"github.com/exectriage/exectriage/triage"
)

// Config is exectriage's optional configuration file (TOML), by default
// os.UserConfigDir()/exectriage/config.toml:
//
//	[defaults]
//	window = "10m"            # duplicate window
//	caller_timeout = "60s"    # the caller's request timeout
//	volatile_keys = ["timestamp", "nonce", "(request tokens)"]
//
//	[theme]                   # colour names → values, read by the UI
//	accent = "#7D56F4"
//
//	[keys]                    # action → keys, read by the UI
//	retry = ["R"]
//
//	[dashboard]               # where `o` in the TUI opens a log (a profile may set its own)
//	log_url = "https://dashboard.example/ORG/PROJECT/logs/{log_id}"
//
//	[[verifier]]              # one per write tool; replaces a built-in for the same tool
//	tool = "OUTLOOK_SEND_EMAIL"
//	read_tool = "OUTLOOK_LIST_MESSAGES"
//	items = "value"                        # dotted path to the list in the read's data
//	time_field = "sentDateTime"            # item field with the effect's time (optional)
//	id_field = "id"                        # item field naming the object (optional)
//	page_size = 50                         # a page this full without a match is unknown (optional)
//	arguments = { folder = "sentitems", search = "\"{{.subject}}\"", top = 50 }
//	match = { "toRecipients.emailAddress.address" = "{{.to_email}}", subject = "{{.subject}}" }
//	contains = { "body.content" = "{{.body}}" }   # item field contains the value (optional)
//
// Argument and match values are Go text/template over the original call's arguments; they
// may also use ._since (RFC 3339) and ._since_unix (epoch seconds): the execution's start
// minus the skew. A match value whose template names an argument the call did not record is
// skipped; every other match must hold.
type Config struct {
	Path      string                `toml:"-"`
	Defaults  Defaults              `toml:"defaults"`
	Theme     map[string]string     `toml:"theme"`
	Keys      map[string][]string   `toml:"keys"`
	Verifiers []verify.VerifierSpec `toml:"verifier"`
	Dashboard Dashboard             `toml:"dashboard"`
	// Profiles are named setups for people who triage several projects (--profile NAME,
	// EXECTRIAGE_PROFILE).
	Profiles map[string]Profile `toml:"profiles"`
	// Views are named filters with their view (--view NAME, the TUI's S menu):
	//
	//	[views.gmail-unknown]
	//	filter = "toolkit:gmail outcome:ambiguous"
	//	show = "flagged"            # all (default), flagged or duplicates
	Views map[string]View `toml:"views"`
}

// View is one saved view: a filter and which rows it shows.
type View struct {
	Filter string `toml:"filter"`
	Show   string `toml:"show"`
}

// View shows: every row, flagged writes only, duplicate groups only.
const (
	ShowAll        = "all"
	ShowFlagged    = "flagged"
	ShowDuplicates = "duplicates"
)

// CheckShow says what is wrong with a view's show ("" is all): the config's views, and the
// team's saved with exectriage view save, take the same values.
func CheckShow(show string) error {
	switch show {
	case "", ShowAll, ShowFlagged, ShowDuplicates:
		return nil
	}
	return fmt.Errorf("show %q: want %s, %s or %s", show, ShowAll, ShowFlagged, ShowDuplicates)
}

// Profile is one project's setup:
//
//	[profiles.prod]
//	base_url = "https://backend.composio.dev"
//	api_key_env = "COMPOSIO_API_KEY_PROD"   # the variable holding its key (never the key itself)
//	journal = "postgres://triage@db/exectriage"
//	index = "postgres://triage@db/exectriage"  # the team's copy of the logs (exectriage sync)
//	index_project = "acme-prod"              # the name the team shares it under (optional)
//	production = true                        # a loud header: every action here is real
//	colour = "#ff0000"                       # the profile's colour in the header
//	dashboard_log_url = "https://…/{log_id}"  # this project's page of one log, for `o`
//
//	[profiles.prod.watch]                    # what `exectriage watch` tells, unless its flags say
//	filter = "toolkit:gmail"                 # for which executions (the filter language)
//	tell = ["flagged", "group"]              # which kinds of event
//	digest = "10m"                           # how often a sink sends (default: as found)
type Profile struct {
	BaseURL         string `toml:"base_url"`
	APIKeyEnv       string `toml:"api_key_env"`
	Journal         string `toml:"journal"`
	Index           string `toml:"index"`
	IndexProject    string `toml:"index_project"`
	Production      bool   `toml:"production"`
	Colour          string `toml:"colour"`
	DashboardLogURL string `toml:"dashboard_log_url"`
	Watch           Watch  `toml:"watch"`
}

// Watch is a profile's [profiles.NAME.watch]: what `exectriage watch` tells when its flags do
// not say (--filter, --tell, --digest).
type Watch struct {
	Filter string   `toml:"filter"`
	Tell   []string `toml:"tell"`
	Digest string   `toml:"digest"`
}

// Dashboard is the [dashboard] section. Composio does not publish the address of one log's
// page in its dashboard (it is per organisation and project), so exectriage does not guess
// it: LogURL is a template the user copies from their browser, with {log_id} where the log's
// id goes.
type Dashboard struct {
	LogURL string `toml:"log_url"`
}

// LogIDPlaceholder is what a dashboard log URL template has where the log's id goes.
const LogIDPlaceholder = "{log_id}"

// ValidateLogURL checks a dashboard log URL template: an absolute http(s) URL with a host, with
// {log_id} once and no other placeholder.
func ValidateLogURL(tmpl string) error {
	if strings.Count(tmpl, LogIDPlaceholder) != 1 {
		return fmt.Errorf("%q must contain %s exactly once (where the log's id goes)", tmpl, LogIDPlaceholder)
	}
	rest := strings.Replace(tmpl, LogIDPlaceholder, "x", 1)
	if strings.ContainsAny(rest, "{}") {
		return fmt.Errorf("%q has a placeholder other than %s", tmpl, LogIDPlaceholder)
	}
	u, err := url.Parse(rest)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return fmt.Errorf("%q is not an http(s) address with a host (and no user or password)", tmpl)
	}
	return nil
}

// Defaults are the [defaults] section; zero values mean the built-in defaults.
type Defaults struct {
	Window        Duration `toml:"window"`
	CallerTimeout Duration `toml:"caller_timeout"`
	// VolatileKeys replaces model.DefaultVolatileKeys() when set (even to an empty list); the
	// entry "(request tokens)" (model.RequestTokens) stands for every key named as a request's
	// token (idempotency key, nonce, dedupe id, request/correlation/trace id, client token).
	VolatileKeys []string `toml:"volatile_keys"`
	// ReadOnly makes every session read-only (--readonly): no retry, no verdict, no journal
	// write, and no provider read (which runs a tool) unless AllowReads.
	ReadOnly   bool `toml:"readonly"`
	AllowReads bool `toml:"allow_reads"`
}

// Options returns the triage options the config sets, defaults for the rest.
func (c Config) Options() triage.Options {
	return triage.Options{
		CallerTimeout: time.Duration(c.Defaults.CallerTimeout),
		Window:        time.Duration(c.Defaults.Window),
		VolatileKeys:  c.Defaults.VolatileKeys,
	}.WithDefaults()
}

// Duration is a time.Duration written as "90s", "10m", "1h30m" or a number of seconds.
type Duration time.Duration

// UnmarshalText implements encoding.TextUnmarshaler: a duration ParseDuration reads, or a
// number of seconds.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return fmt.Errorf("duration %q is negative", s)
		}
		*d = Duration(f * float64(time.Second))
		return nil
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// ParseDuration reads a duration as exectriage takes it everywhere (flags and the config
// file): Go's units (90s, 10m, 1h30m) plus d for days and w for weeks (7d, 2w, 1d12h). It
// refuses negative durations.
func ParseDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	rest := in
	var total time.Duration
	for _, u := range []struct {
		unit string
		d    time.Duration
	}{{"w", 7 * 24 * time.Hour}, {"d", 24 * time.Hour}} {
		i := strings.Index(rest, u.unit)
		if i < 0 {
			continue
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil || i == 0 || strings.ContainsAny(rest[:i], "+-eE") && n < 0 {
			return 0, fmt.Errorf("%q is not a duration (like 90s, 10m, 1h30m, 7d, 2w)", s)
		}
		total += time.Duration(n * float64(u.d))
		rest = rest[i+1:]
	}
	if rest != "" {
		v, err := time.ParseDuration(rest)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration (like 90s, 10m, 1h30m, 7d, 2w)", s)
		}
		total += v
	} else if in == "" {
		return 0, fmt.Errorf("%q is not a duration (like 90s, 10m, 1h30m, 7d, 2w)", s)
	}
	if total < 0 || strings.HasPrefix(in, "-") {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return total, nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// DefaultPath is os.UserConfigDir()/exectriage/config.toml.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("config directory: %w", err)
	}
	return filepath.Join(dir, "exectriage", "config.toml"), nil
}

// maxConfigSize bounds the config file read.
const maxConfigSize = 1 << 20

// Load reads the config file at path; "" means DefaultPath, where a missing file
// (or no config directory) is an empty Config. A named file that is missing is an error. Every
// problem is reported as "file:line: what is wrong", including unknown keys and invalid
// verifiers.
func Load(path string) (Config, error) {
	explicit := path != ""
	if !explicit {
		p, err := DefaultPath()
		if err != nil {
			return Config{}, nil
		}
		path = p
	}
	// A FIFO (or /dev/zero) would block, or never end: a regular file only, at most 1 MiB.
	data, err := safefile.Read(path, maxConfigSize)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return Config{Path: path}, nil
		}
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data)
}

var tomlLine = regexp.MustCompile(`^toml: line (\d+)(?: \(last key "([^"]*)"\))?: `)

// colourValue is a colour as the theme spells it.
var colourValue = regexp.MustCompile(`^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[0-9]{1,3})$`)

// keyEnvName is the name of the variable that holds a profile's key: upper case, digits and
// underscores, as environment variables are named. A lower-case letter is what an API key
// (ak_..., uak_...) has and a variable's name has not: such a value is refused unshown.
var keyEnvName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// Parse parses config text; name is used in error messages.
func Parse(name string, data []byte) (Config, error) {
	c := Config{Path: name}
	text := string(data)
	md, err := toml.Decode(text, &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := pe.Message
			if pe.LastKey != "" {
				msg = pe.LastKey + ": " + msg
			}
			return Config{}, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, msg)
		}
		msg := err.Error()
		if m := tomlLine.FindStringSubmatch(msg); m != nil {
			rest := msg[len(m[0]):]
			if m[2] != "" {
				rest = m[2] + ": " + rest
			}
			return Config{}, fmt.Errorf("%s:%s: %s", name, m[1], rest)
		}
		return Config{}, fmt.Errorf("%s: %s", name, strings.TrimPrefix(msg, "toml: "))
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return Config{}, fmt.Errorf("%s:%d: unknown key %q", name, keyLine(text, k), k.String())
	}
	for n, v := range c.Views {
		if err := CheckShow(v.Show); err != nil {
			return Config{}, fmt.Errorf("%s: views.%s.%w", name, n, err)
		}
	}
	for i := range c.Verifiers {
		if err := c.Verifiers[i].Validate(); err != nil {
			return Config{}, fmt.Errorf("%s:%d: verifier %d: %w", name, tableLine(text, "verifier", i), i+1, err)
		}
	}
	if c.Dashboard.LogURL != "" {
		if err := ValidateLogURL(c.Dashboard.LogURL); err != nil {
			return Config{}, fmt.Errorf("%s: dashboard.log_url: %w", c.Path, err)
		}
	}
	for name, p := range c.Profiles {
		if p.DashboardLogURL != "" {
			if err := ValidateLogURL(p.DashboardLogURL); err != nil {
				return Config{}, fmt.Errorf("%s: profiles.%s: dashboard_log_url: %w", c.Path, name, err)
			}
		}
		if p.Colour != "" && !colourValue.MatchString(p.Colour) {
			return Config{}, fmt.Errorf("%s: profiles.%s: colour %q is not a colour (#rrggbb, #rgb or 0-255)", c.Path, name, p.Colour)
		}
		if p.APIKeyEnv != "" && !keyEnvName.MatchString(p.APIKeyEnv) {
			// Never repeated: what stands where a variable's name goes may be the key itself.
			return Config{}, fmt.Errorf(
				"%s: profiles.%s: api_key_env is not an upper-case variable name such as COMPOSIO_API_KEY_PROD (it names where the key "+
					"is, never the key; its value is not shown, as it may be one)",
				c.Path,
				name,
			)
		}
	}
	seen := map[string]int{}
	for i, v := range c.Verifiers {
		t := strings.ToUpper(strings.TrimSpace(v.Tool))
		if j, dup := seen[t]; dup {
			return Config{}, fmt.Errorf(
				"%s:%d: verifier %d: tool %s already has verifier %d",
				name,
				tableLine(text, "verifier", i),
				i+1,
				v.Tool,
				j+1,
			)
		}
		seen[t] = i
	}
	return c, nil
}

// keyLine finds, best effort, the line where a key is set (the decoder does not say).
func keyLine(text string, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	last := k[len(k)-1]
	header := "[" + strings.Join(k, ".") + "]"
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == header || t == "["+header+"]" {
			return i + 1
		}
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		for _, cand := range []string{last, `"` + last + `"`} {
			if rest, ok := strings.CutPrefix(t, cand); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
				return i + 1
			}
		}
		if strings.Contains(t, last+" =") || strings.Contains(t, last+"=") {
			return i + 1
		}
	}
	return 0
}

// tableLine finds the line of the n-th [[name]] header.
func tableLine(text, name string, n int) int {
	seen := 0
	for i, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "[["+name+"]]" {
			if seen == n {
				return i + 1
			}
			seen++
		}
	}
	return 0
}
