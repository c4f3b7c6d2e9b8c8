package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

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
	case triage.KindFromSlug(readTool) != model.KindRead:
		return nil, fmt.Errorf(
			"read_tool %s does not look like a read (no FETCH/GET/LIST/SEARCH/... verb): a verifier must never run a write",
			readTool,
		)
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
