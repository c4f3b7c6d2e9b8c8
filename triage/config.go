package triage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/exectriage/exectriage/model"
)

// Config is exectriage's optional configuration file (TOML), by default
// os.UserConfigDir()/exectriage/config.toml:
//
//	[defaults]
//	window = "10m"            # duplicate window
//	caller_timeout = "60s"    # the caller's request timeout
//	volatile_keys = ["timestamp", "nonce"]
//
//	[theme]                   # colour names → values, read by the UI
//	accent = "#7D56F4"
//
//	[keys]                    # action → keys, read by the UI
//	retry = ["R"]
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
	Path      string              `toml:"-"`
	Defaults  Defaults            `toml:"defaults"`
	Theme     map[string]string   `toml:"theme"`
	Keys      map[string][]string `toml:"keys"`
	Verifiers []VerifierSpec      `toml:"verifier"`
}

// Defaults are the [defaults] section; zero values mean the built-in defaults.
type Defaults struct {
	Window        Duration `toml:"window"`
	CallerTimeout Duration `toml:"caller_timeout"`
	// VolatileKeys replaces model.DefaultVolatileKeys() when set (even to an empty list).
	VolatileKeys []string `toml:"volatile_keys"`
}

// Options returns the triage options the config sets, defaults for the rest.
func (c Config) Options() Options {
	return Options{
		CallerTimeout: time.Duration(c.Defaults.CallerTimeout),
		Window:        time.Duration(c.Defaults.Window),
		VolatileKeys:  c.Defaults.VolatileKeys,
	}.WithDefaults()
}

// Duration is a time.Duration written as "90s", "10m", "1h30m" or a number of seconds.
type Duration time.Duration

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return fmt.Errorf("duration %q is negative", s)
		}
		*d = Duration(f * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (like 90s, 10m, 1h30m)", s)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// VerifierSpec maps a write tool to a read tool that finds its effect (see Config).
type VerifierSpec struct {
	Tool      string            `toml:"tool"`
	ReadTool  string            `toml:"read_tool"`
	Arguments map[string]any    `toml:"arguments"`
	Items     string            `toml:"items"`
	Match     map[string]string `toml:"match"`
	Contains  map[string]string `toml:"contains"`
	TimeField string            `toml:"time_field"`
	IDField   string            `toml:"id_field"`
	PageSize  int               `toml:"page_size"`
}

// DefaultConfigPath is os.UserConfigDir()/exectriage/config.toml.
func DefaultConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("config directory: %w", err)
	}
	return filepath.Join(dir, "exectriage", "config.toml"), nil
}

// LoadConfig reads the config file at path; "" means DefaultConfigPath, where a missing file
// (or no config directory) is an empty Config. A named file that is missing is an error. Every
// problem is reported as "file:line: what is wrong", including unknown keys and invalid
// verifiers.
func LoadConfig(path string) (Config, error) {
	explicit := path != ""
	if !explicit {
		p, err := DefaultConfigPath()
		if err != nil {
			return Config{}, nil
		}
		path = p
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return Config{Path: path}, nil
		}
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return ParseConfig(path, data)
}

var tomlLine = regexp.MustCompile(`^toml: line (\d+)(?: \(last key "([^"]*)"\))?: `)

// ParseConfig parses config text; name is used in error messages.
func ParseConfig(name string, data []byte) (Config, error) {
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
	for i := range c.Verifiers {
		if err := c.Verifiers[i].Validate(); err != nil {
			return Config{}, fmt.Errorf("%s:%d: verifier %d: %w", name, tableLine(text, "verifier", i), i+1, err)
		}
	}
	seen := map[string]int{}
	for i, v := range c.Verifiers {
		t := strings.ToUpper(strings.TrimSpace(v.Tool))
		if j, dup := seen[t]; dup {
			return Config{}, fmt.Errorf("%s:%d: verifier %d: tool %s already has verifier %d", name, tableLine(text, "verifier", i), i+1, v.Tool, j+1)
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

// Validate checks a spec: tool and read_tool named, the read tool looks like a read (a
// verifier must never run a write), at least one match or contains rule, templates that parse.
func (s VerifierSpec) Validate() error {
	_, err := s.compile()
	return err
}

func (s VerifierSpec) compile() (*check, error) {
	tool := strings.ToUpper(strings.TrimSpace(s.Tool))
	readTool := strings.ToUpper(strings.TrimSpace(s.ReadTool))
	switch {
	case tool == "":
		return nil, errors.New("tool is missing")
	case readTool == "":
		return nil, errors.New("read_tool is missing")
	case tool == readTool:
		return nil, errors.New("read_tool is the tool itself")
	case KindFromSlug(readTool) != model.KindRead:
		return nil, fmt.Errorf("read_tool %s does not look like a read (no FETCH/GET/LIST/SEARCH/... verb): a verifier must never run a write", readTool)
	case len(s.Match)+len(s.Contains) == 0:
		return nil, errors.New("match or contains is missing: nothing would tell the effect apart")
	case s.PageSize < 0:
		return nil, errors.New("page_size is negative")
	}
	args, err := compileArgs(s.Arguments, "arguments")
	if err != nil {
		return nil, err
	}
	c := &check{
		name: "config " + tool, tool: tool, readTool: readTool, pageSize: s.PageSize,
		args: func(orig map[string]any, since time.Time) (map[string]any, error) {
			out, err := args.render(templateData(orig, since))
			if err != nil {
				return nil, err
			}
			m, _ := out.(map[string]any)
			if m == nil {
				m = map[string]any{}
			}
			return m, nil
		},
	}
	if s.Items != "" {
		c.lists = []string{strings.TrimPrefix(strings.TrimSpace(s.Items), "data.")}
		if p := strings.TrimSpace(s.Items); p != c.lists[0] {
			c.lists = append(c.lists, p)
		}
	}
	for _, set := range []struct {
		m    map[string]string
		mode matchMode
		name string
	}{{s.Match, matchAuto, "match"}, {s.Contains, matchContains, "contains"}} {
		keys := make([]string, 0, len(set.m))
		for k := range set.m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			t, err := parseTemplate(set.name+"."+k, set.m[k])
			if err != nil {
				return nil, err
			}
			c.rules = append(c.rules, rule{item: []string{k}, mode: set.mode, want: templateWant(t)})
		}
	}
	if s.TimeField != "" {
		c.times = []string{s.TimeField}
	}
	c.ids = []string{"id", "messageId", "ts", "number"}
	if s.IDField != "" {
		c.ids = []string{s.IDField}
	}
	c.what = func(orig map[string]any) string { return "effect of " + tool }
	return c, nil
}

// sinceKeys are the extra template fields.
const (
	sinceKey     = "_since"
	sinceUnixKey = "_since_unix"
)

func templateData(orig map[string]any, since time.Time) map[string]any {
	d := make(map[string]any, len(orig)+2)
	maps.Copy(d, orig)
	d[sinceKey] = since.UTC().Format(time.RFC3339)
	d[sinceUnixKey] = since.Unix()
	return d
}

func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"lower": strings.ToLower,
		"upper": strings.ToUpper,
		"trim":  strings.TrimSpace,
		"join": func(sep string, v any) string {
			l, _ := v.([]any)
			parts := make([]string, len(l))
			for i, x := range l {
				parts[i] = scalarText(x)
			}
			return strings.Join(parts, sep)
		},
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}
}

func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(templateFuncs()).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

func execTemplate(t *template.Template, data map[string]any) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// templateWant renders a match value; a template over an argument the call did not record
// (or rendering to nothing) means the rule does not apply.
func templateWant(t *template.Template) func(map[string]any) ([]string, bool, error) {
	return func(orig map[string]any) ([]string, bool, error) {
		s, err := execTemplate(t, templateData(orig, time.Time{}))
		if err != nil || strings.TrimSpace(s) == "" {
			return nil, false, nil
		}
		return []string{s}, true, nil
	}
}

// argTemplate is a compiled arguments value: strings are templates, tables and arrays are
// walked, other values are kept.
type argTemplate struct {
	tmpl  *template.Template
	obj   map[string]*argTemplate
	arr   []*argTemplate
	plain any
}

func compileArgs(v any, at string) (*argTemplate, error) {
	switch t := v.(type) {
	case nil:
		return &argTemplate{obj: map[string]*argTemplate{}}, nil
	case string:
		tm, err := parseTemplate(at, t)
		if err != nil {
			return nil, err
		}
		return &argTemplate{tmpl: tm}, nil
	case map[string]any:
		a := &argTemplate{obj: make(map[string]*argTemplate, len(t))}
		for k, x := range t {
			c, err := compileArgs(x, at+"."+k)
			if err != nil {
				return nil, err
			}
			a.obj[k] = c
		}
		return a, nil
	case []any:
		a := &argTemplate{arr: make([]*argTemplate, 0, len(t))}
		for i, x := range t {
			c, err := compileArgs(x, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, err
			}
			a.arr = append(a.arr, c)
		}
		return a, nil
	case []map[string]any:
		l := make([]any, len(t))
		for i := range t {
			l[i] = t[i]
		}
		return compileArgs(l, at)
	}
	return &argTemplate{plain: v}, nil
}

func (a *argTemplate) render(data map[string]any) (any, error) {
	switch {
	case a.tmpl != nil:
		s, err := execTemplate(a.tmpl, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.tmpl.Name(), err)
		}
		return s, nil
	case a.obj != nil:
		out := make(map[string]any, len(a.obj))
		for k, c := range a.obj {
			v, err := c.render(data)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case a.arr != nil:
		out := make([]any, len(a.arr))
		for i, c := range a.arr {
			v, err := c.render(data)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return a.plain, nil
}
