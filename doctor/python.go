package doctor

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/exectriage/exectriage/sdkversion"
)

func normalizePy(name string) string { return sdkversion.NormalizePy(name) }

// interestingPy reports whether a normalised PyPI name is a Composio package.
func interestingPy(name string) bool { return packageRole(PyPI, name) != roleNone }

// pep508RE splits a PEP 508 requirement: name, extras, the rest (specifiers or "@ url").
var pep508RE = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$`)

// parseRequirement reads one PEP 508 requirement string. ok is false when it names no
// Composio package.
func parseRequirement(s string) (dep, bool) {
	if i := strings.IndexByte(s, ';'); i >= 0 { // environment markers
		s = s[:i]
	}
	m := pep508RE.FindStringSubmatch(s)
	if m == nil {
		return dep{}, false
	}
	name := normalizePy(m[1])
	if !interestingPy(name) {
		return dep{}, false
	}
	d := dep{eco: PyPI, name: name}
	rest := strings.TrimSpace(m[3])
	if after, ok := strings.CutPrefix(rest, "@"); ok {
		d.special = strings.TrimSpace(after)
		d.constraint = "@ " + d.special
		return d, true
	}
	rest = strings.TrimSpace(strings.Trim(rest, "()"))
	d.constraint = rest
	if v, ok := exactPin(rest); ok {
		d.version = v
	}
	return d, true
}

// exactPin returns the version of "==1.2.3" or "===1.2.3" (not a wildcard, nothing else).
func exactPin(spec string) (string, bool) {
	spec = strings.TrimSpace(spec)
	for _, op := range []string{"===", "=="} {
		if strings.HasPrefix(spec, op) {
			v := strings.TrimSpace(spec[len(op):])
			if v != "" && !strings.ContainsAny(v, ",*|<>!=~^ ") {
				return v, true
			}
			return "", false
		}
	}
	return "", false
}

// parseRequirements reads a pip requirements file: one requirement per line, # comments,
// backslash continuations, options (-r, -e, --hash ...) skipped.
func parseRequirements(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: PyPI}
	logical, err := logicalLines(data, false)
	if err != nil {
		return sc, fmt.Errorf("reading requirements: %w", err)
	}
	for _, line := range logical {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "-") {
			opt, arg := requirementOption(line)
			switch opt {
			case "-c", "--constraint":
				sc.constraints = append(sc.constraints, arg)
			case "-e", "--editable":
				sc.editables = append(sc.editables, arg)
			}
			continue
		}
		if i := strings.Index(line, " --"); i >= 0 { // per-requirement options: --hash=...
			line = line[:i]
		}
		if d, ok := parseRequirement(line); ok {
			sc.deps = append(sc.deps, d)
		}
	}
	return sc, nil
}

// requirementOption splits an option line of a requirements file ("-c constraints.txt",
// "--constraint=c.txt", "-e ./vendor/composio") into the option and its argument.
func requirementOption(line string) (opt, arg string) {
	if o, a, ok := strings.Cut(line, "="); ok && strings.HasPrefix(line, "--") && !strings.ContainsAny(o, " \t") {
		return o, strings.TrimSpace(a)
	}
	f := strings.Fields(line)
	switch {
	case len(f) >= 2:
		return f[0], f[1]
	case len(f) == 1 && len(f[0]) > 2 && !strings.HasPrefix(f[0], "--"): // -cconstraints.txt
		return f[0][:2], f[0][2:]
	}
	return line, ""
}

// logicalLines joins the lines a trailing backslash continues (requirements files, a
// Dockerfile's RUN); skipComments drops whole-line # comments first (a Dockerfile's may sit
// inside a continued instruction).
func logicalLines(data []byte, skipComments bool) ([]string, error) {
	var logical []string
	var cur strings.Builder
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 64*1024), 4<<20)
	for s.Scan() {
		line := s.Text()
		if skipComments && strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if before, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), "\\"); ok {
			cur.WriteString(before)
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(line)
		logical = append(logical, cur.String())
		cur.Reset()
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if cur.Len() > 0 {
		logical = append(logical, cur.String())
	}
	return logical, nil
}

type pyprojectFile struct {
	Project struct {
		Name                 string              `toml:"name"`
		Dependencies         []string            `toml:"dependencies"`
		OptionalDependencies map[string][]string `toml:"optional-dependencies"`
	} `toml:"project"`
	DependencyGroups map[string][]any `toml:"dependency-groups"`
	Tool             struct {
		Poetry struct {
			Name            string         `toml:"name"`
			Dependencies    map[string]any `toml:"dependencies"`
			DevDependencies map[string]any `toml:"dev-dependencies"`
			Group           map[string]struct {
				Dependencies map[string]any `toml:"dependencies"`
			} `toml:"group"`
		} `toml:"poetry"`
		UV struct {
			DevDependencies []string       `toml:"dev-dependencies"`
			Sources         map[string]any `toml:"sources"`
			Workspace       struct {
				Members []string `toml:"members"`
				Exclude []string `toml:"exclude"`
			} `toml:"workspace"`
		} `toml:"uv"`
		PDM struct {
			DevDependencies map[string][]string `toml:"dev-dependencies"`
		} `toml:"pdm"`
	} `toml:"tool"`
}

// parsePyproject reads PEP 621 dependencies (and optional ones, PEP 735 groups, uv and PDM
// dev dependencies) and Poetry's dependency tables.
func parsePyproject(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: PyPI}
	var p pyprojectFile
	if err := toml.Unmarshal(data, &p); err != nil {
		return sc, fmt.Errorf("pyproject.toml: %w", err)
	}
	reqs := append([]string(nil), p.Project.Dependencies...)
	for _, k := range sortedKeys(p.Project.OptionalDependencies) {
		reqs = append(reqs, p.Project.OptionalDependencies[k]...)
	}
	for _, k := range sortedKeys(p.DependencyGroups) {
		for _, v := range p.DependencyGroups[k] {
			if s, ok := v.(string); ok { // {include-group = "..."} entries name no package
				reqs = append(reqs, s)
			}
		}
	}
	reqs = append(reqs, p.Tool.UV.DevDependencies...)
	for _, k := range sortedKeys(p.Tool.PDM.DevDependencies) {
		reqs = append(reqs, p.Tool.PDM.DevDependencies[k]...)
	}
	sc.uvMembers, sc.uvExclude, sc.uvSources = p.Tool.UV.Workspace.Members, p.Tool.UV.Workspace.Exclude, uvSources(p.Tool.UV.Sources)
	sc.defines = normalizePy(cmp.Or(p.Project.Name, p.Tool.Poetry.Name))
	for _, r := range reqs {
		if d, ok := parseRequirement(r); ok {
			uvSourced(&d, sc.uvSources)
			sc.deps = append(sc.deps, d)
		}
	}
	tables := []map[string]any{p.Tool.Poetry.Dependencies, p.Tool.Poetry.DevDependencies}
	for _, g := range sortedKeys(p.Tool.Poetry.Group) {
		tables = append(tables, p.Tool.Poetry.Group[g].Dependencies)
	}
	for _, t := range tables {
		for _, name := range sortedKeys(t) {
			n := normalizePy(name)
			if !interestingPy(n) {
				continue
			}
			sc.deps = append(sc.deps, poetryDeps(n, t[name])...)
		}
	}
	return sc, nil
}

// poetryDeps reads a Poetry dependency value: "^0.15", {version = "..."}, {git = "..."},
// or a list of those (one per Python version).
func poetryDeps(name string, v any) []dep {
	switch x := v.(type) {
	case string:
		d := dep{eco: PyPI, name: name, constraint: strings.TrimSpace(x)}
		if ver, ok := poetryExact(d.constraint); ok {
			d.version = ver
		}
		return []dep{d}
	case map[string]any:
		for _, src := range []string{"git", "path", "url", "file"} {
			if s, ok := x[src].(string); ok {
				return []dep{{eco: PyPI, name: name, special: src + " " + s}}
			}
		}
		if s, ok := x["version"].(string); ok {
			return poetryDeps(name, s)
		}
		return []dep{{eco: PyPI, name: name}}
	case []any:
		var out []dep
		for _, e := range x {
			out = append(out, poetryDeps(name, e)...)
		}
		return out
	case []map[string]any:
		var out []dep
		for _, e := range x {
			out = append(out, poetryDeps(name, e)...)
		}
		return out
	}
	return nil
}

// poetryExact returns the version of an exact Poetry constraint: "0.15.2", "==0.15.2", "=0.15.2".
func poetryExact(c string) (string, bool) {
	if v, ok := exactPin(c); ok {
		return v, true
	}
	v := strings.TrimSpace(strings.TrimPrefix(c, "="))
	if v == "" || strings.ContainsAny(v, ",*|<>!=~^ ") {
		return "", false
	}
	if err := sdkversion.CheckVersion(PyPI, v); err != nil {
		return "", false
	}
	return v, true
}

// parseTOMLLock reads poetry.lock and uv.lock: [[package]] tables with name and version.
// uv's entries for the project itself and its workspace members (editable or virtual
// sources) are not installed packages and are skipped.
func parseTOMLLock(data []byte) (scanned, error) {
	sc := scanned{kind: kindLock, eco: PyPI}
	var l struct {
		Package []struct {
			Name    string         `toml:"name"`
			Version string         `toml:"version"`
			Source  map[string]any `toml:"source"`
		} `toml:"package"`
	}
	if err := toml.Unmarshal(data, &l); err != nil {
		return sc, fmt.Errorf("lock file: %w", err)
	}
	for _, p := range l.Package {
		n := normalizePy(p.Name)
		if !interestingPy(n) {
			continue
		}
		if _, ok := p.Source["editable"]; ok {
			continue
		}
		if _, ok := p.Source["virtual"]; ok {
			continue
		}
		d := dep{eco: PyPI, name: n, version: strings.TrimSpace(p.Version)}
		if d.version == "" {
			d.special = "a lock entry without a version"
		}
		sc.deps = append(sc.deps, d)
	}
	return sc, nil
}

// parsePipfileLock reads Pipfile.lock: {"default": {name: {"version": "==x"}}, "develop": ...}.
func parsePipfileLock(data []byte) (scanned, error) {
	sc := scanned{kind: kindLock, eco: PyPI}
	var l map[string]json.RawMessage
	if err := json.Unmarshal(data, &l); err != nil {
		return sc, fmt.Errorf("parsing Pipfile.lock: %w", err)
	}
	for _, section := range []string{"default", "develop"} {
		var pkgs map[string]struct {
			Version string `json:"version"`
			Git     string `json:"git"`
			Path    string `json:"path"`
			File    string `json:"file"`
		}
		if raw, ok := l[section]; !ok || json.Unmarshal(raw, &pkgs) != nil {
			continue
		}
		for _, name := range sortedKeys(pkgs) {
			n := normalizePy(name)
			if !interestingPy(n) {
				continue
			}
			p := pkgs[name]
			d := dep{eco: PyPI, name: n}
			switch {
			case p.Git != "":
				d.special = "git " + p.Git
			case p.Path != "":
				d.special = "path " + p.Path
			case p.File != "":
				d.special = "file " + p.File
			default:
				d.version = strings.TrimSpace(strings.TrimLeft(p.Version, "="))
				if d.version == "" {
					d.special = "a lock entry without a version"
				}
			}
			sc.deps = append(sc.deps, d)
		}
	}
	return sc, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parsePipfile reads a Pipfile (TOML): [packages], [dev-packages] and any other category
// table, each mapping a name to a specifier string ("*", "==0.15.2", ">=0.15") or a table
// (version, or git/path/file for a non-registry source). Pipfile.lock beside it governs it.
func parsePipfile(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: PyPI}
	var p map[string]any
	if err := toml.Unmarshal(data, &p); err != nil {
		return sc, fmt.Errorf("parsing Pipfile: %w", err)
	}
	for _, section := range sortedKeys(p) {
		if section == "source" || section == "requires" || section == "scripts" || section == "pipenv" {
			continue
		}
		pkgs, ok := p[section].(map[string]any)
		if !ok {
			continue
		}
		for _, name := range sortedKeys(pkgs) {
			n := normalizePy(name)
			if !interestingPy(n) {
				continue
			}
			d := dep{eco: PyPI, name: n}
			switch v := pkgs[name].(type) {
			case string:
				d.constraint = pipfileSpec(v)
			case map[string]any:
				switch {
				case v["git"] != nil:
					d.special = fmt.Sprint("git ", v["git"])
				case v["path"] != nil:
					d.special = fmt.Sprint("path ", v["path"])
				case v["file"] != nil:
					d.special = fmt.Sprint("file ", v["file"])
				default:
					s, _ := v["version"].(string)
					d.constraint = pipfileSpec(s)
				}
			default:
				continue
			}
			if v, ok := exactPin(d.constraint); ok {
				d.version = v
			}
			sc.deps = append(sc.deps, d)
		}
	}
	return sc, nil
}

// pipfileSpec turns Pipfile's "*" (any version) into an empty range.
func pipfileSpec(s string) string {
	s = strings.TrimSpace(s)
	if s == "*" {
		return ""
	}
	return s
}

// parseSetupCfg reads setuptools' setup.cfg: install_requires in [options] and every key of
// [options.extras_require], each a list of PEP 508 requirements, one per line (the indented
// continuation lines of the key, or the key's own line).
func parseSetupCfg(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: PyPI}
	section, key := "", ""
	take := func(v string) {
		v = strings.TrimSpace(v)
		if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		if v == "" {
			return
		}
		if section == "options" && key == "install_requires" || section == "options.extras_require" {
			if d, ok := parseRequirement(v); ok {
				sc.deps = append(sc.deps, d)
			}
		}
	}
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 64*1024), 4<<20)
	for s.Scan() {
		line := strings.TrimRight(s.Text(), " \t\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, ";"):
		case strings.HasPrefix(trimmed, "[") && strings.HasSuffix(trimmed, "]"):
			section, key = strings.TrimSpace(trimmed[1:len(trimmed)-1]), ""
		case line[0] == ' ' || line[0] == '\t': // a continuation of key's value
			take(trimmed)
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				k, v, ok = strings.Cut(line, ":")
			}
			if !ok {
				key = ""
				continue
			}
			key = strings.TrimSpace(k)
			take(v)
		}
	}
	if err := s.Err(); err != nil {
		return sc, fmt.Errorf("setup.cfg: %w", err)
	}
	return sc, nil
}

// setupPyListRE finds the start of install_requires=[...] or extras_require={...} in a
// setup.py call (or a dict of keyword arguments).
var setupPyListRE = regexp.MustCompile(`["']?(install_requires|extras_require)["']?\s*[=:]\s*([\[{(])`)

// pyStringRE is a Python string literal without escapes (requirements have none).
var pyStringRE = regexp.MustCompile(`'([^'\\\n]*)'|"([^"\\\n]*)"`)

// parseSetupPy reads the string literals of setup.py's install_requires and extras_require.
// It does not run the file: requirements built at run time (read from another file, joined
// from variables) are not seen, which the report cannot tell apart from none.
func parseSetupPy(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: PyPI}
	src := string(data)
	if m := setupNameRE.FindStringSubmatch(src); m != nil {
		sc.defines = normalizePy(m[1])
	}
	for _, m := range setupPyListRE.FindAllStringSubmatchIndex(src, -1) {
		open := src[m[4]]
		closer := map[byte]byte{'[': ']', '{': '}', '(': ')'}[open]
		body, ok := bracketBody(src[m[4]:], open, closer)
		if !ok {
			continue
		}
		for _, lit := range pyStringRE.FindAllStringSubmatch(body, -1) {
			s := lit[1] + lit[2]
			if d, ok := parseRequirement(s); ok && strings.TrimSpace(s) != "" {
				sc.deps = append(sc.deps, d)
			}
		}
	}
	return sc, nil
}

// bracketBody returns s from its opening bracket to the matching closer (nested brackets of
// the same kind and string literals skipped); ok is false when it never closes.
func bracketBody(s string, open, closer byte) (string, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return "", false
			}
			i += j + 1
		case '#':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return "", false
			}
			i += j
		case open:
			depth++
		case closer:
			depth--
			if depth == 0 {
				return s[:i+1], true
			}
		}
	}
	return "", false
}
