package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// decodeText returns a text file's bytes as UTF-8: a UTF-8 byte order mark is dropped and
// UTF-16 (little or big endian, told by its mark, as Windows editors and PowerShell's `>` write
// requirements.txt) is decoded, as pip does. Anything else is returned as it is.
func decodeText(data []byte) []byte {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		little := data[0] == 0xFF
		body := data[2:]
		u := make([]uint16, 0, len(body)/2)
		for i := 0; i+1 < len(body); i += 2 {
			if little {
				u = append(u, uint16(body[i])|uint16(body[i+1])<<8)
			} else {
				u = append(u, uint16(body[i])<<8|uint16(body[i+1]))
			}
		}
		out := make([]byte, 0, len(u))
		for _, r := range utf16.Decode(u) {
			out = utf8.AppendRune(out, r)
		}
		return out
	}
	return data
}

// parseCondaEnv reads a conda environment file (environment.yml): its dependencies, and the
// requirements of its pip section, which pip installs into the environment.
func parseCondaEnv(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: PyPI}
	var env struct {
		Dependencies []any `yaml:"dependencies"`
	}
	if err := yaml.Unmarshal(data, &env); err != nil {
		return sc, fmt.Errorf("environment.yml: %w", err)
	}
	for _, d := range env.Dependencies {
		switch v := d.(type) {
		case string: // a conda spec: name, name=1.2, name==1.2, name>=1.2
			spec := v
			if i := strings.IndexAny(spec, "=<>!~ "); i > 0 && spec[i] == '=' && (i+1 >= len(spec) || spec[i+1] != '=') {
				spec = spec[:i] + "==" + spec[i+1:] // conda's single = is an exact pin here
			}
			if dp, ok := parseRequirement(spec); ok {
				sc.deps = append(sc.deps, dp)
			}
		case map[string]any:
			pip, _ := v["pip"].([]any)
			for _, r := range pip {
				s, ok := r.(string)
				if !ok || strings.HasPrefix(strings.TrimSpace(s), "-") {
					continue
				}
				if dp, ok := parseRequirement(s); ok {
					sc.deps = append(sc.deps, dp)
				}
			}
		}
	}
	return sc, nil
}

// resolve fills in the versions a file names only by reference, reading the files it points
// to (all inside root): a pnpm `catalog:` range from the nearest pnpm-workspace.yaml, a
// requirements file's `-c` constraints, and a vendored SDK's own version (`composio @
// file:./third_party/composio`, `-e ./third_party/composio`, `"file:./vendor/core"`). What it
// cannot read is a problem, and the entry stays as it was.
func resolve(root string, files []scanned) []Problem {
	var problems []Problem
	catalogs := map[string]*pnpmCatalogs{}
	for fi := range files {
		f := &files[fi]
		pins := map[string]string{}
		for _, c := range f.constraints {
			rel, data, err := readInside(root, f.dir, c)
			if err != nil {
				problems = append(problems, Problem{File: f.rel, Error: fmt.Sprintf("constraints file %s: %v", c, err)})
				continue
			}
			cs, err := parseRequirements(decodeText(data))
			if err != nil {
				problems = append(problems, Problem{File: rel, Error: err.Error()})
				continue
			}
			for _, d := range cs.deps {
				if d.version != "" {
					pins[d.name] = d.version + "\x00" + rel
				}
			}
		}
		for _, e := range f.editables {
			dir := strings.TrimPrefix(e, "file:")
			if strings.Contains(dir, "://") || strings.HasPrefix(dir, "git+") {
				continue
			}
			name, version, rel, err := vendoredPy(root, f.dir, dir)
			if err != nil || !interestingPy(name) {
				continue // an editable install of something else
			}
			f.deps = append(f.deps, dep{eco: PyPI, name: name, version: version, constraint: "-e " + e, source: "vendored", from: rel})
		}
		for di := range f.deps {
			d := &f.deps[di]
			switch {
			case d.eco == NPM && strings.HasPrefix(d.constraint, "catalog:"):
				ws, ok := catalogs[f.dir]
				if !ok {
					ws = nearestCatalogs(root, f.dir)
					catalogs[f.dir] = ws
				}
				name := strings.TrimPrefix(d.constraint, "catalog:")
				if ws == nil {
					problems = append(
						problems,
						Problem{
							File:  f.rel,
							Error: d.name + ": " + d.constraint + " names a pnpm catalog, and no pnpm-workspace.yaml above it has one",
						},
					)
					continue
				}
				rng, ok := ws.lookup(name, d.name)
				if !ok {
					problems = append(
						problems,
						Problem{File: f.rel, Error: fmt.Sprintf("%s: %s: %s has no such entry", d.name, d.constraint, ws.file)},
					)
					continue
				}
				nd, ok := npmDep(d.name, rng)
				if !ok {
					continue
				}
				nd.via, nd.source, nd.from = d.via, "catalog", ws.file
				*d = nd
			case d.special != "" && vendoredRef(d.special) != "" && (packageRole(d.eco, d.name) == roleSDK || packageRole(d.eco,
				d.name) == roleLegacy):
				dir := vendoredRef(d.special)
				var name, version, rel string
				var err error
				if d.eco == NPM {
					name, version, rel, err = vendoredNpm(root, f.dir, dir)
				} else {
					name, version, rel, err = vendoredPy(root, f.dir, dir)
				}
				if err != nil {
					problems = append(problems, Problem{File: f.rel, Error: fmt.Sprintf("%s from %s: %v", d.name, dir, err)})
					continue
				}
				if version == "" || name != "" && name != d.name {
					continue
				}
				d.version, d.special, d.source, d.from = version, "", "vendored", rel
			case d.version == "" && d.special == "" && pins[d.name] != "":
				v, rel, _ := strings.Cut(pins[d.name], "\x00")
				d.version, d.source, d.from = v, "constraints", rel
			}
		}
	}
	return problems
}

// vendoredRef is the local directory a non-registry source names ("file:./x", "./x", "path
// ../x" as the lock parsers write it), "" when it names none (git, a URL, a workspace).
func vendoredRef(special string) string {
	s := strings.TrimSpace(special)
	for _, p := range []string{"path ", "file "} {
		s = strings.TrimPrefix(s, p)
	}
	switch {
	case strings.HasPrefix(s, "file://"):
		return ""
	case strings.HasPrefix(s, "file:"):
		return strings.TrimPrefix(s, "file:")
	case strings.HasPrefix(s, "link:"):
		return strings.TrimPrefix(s, "link:")
	case strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"):
		return s
	}
	return ""
}

// readInside reads name relative to dir (both slash paths under root), refusing a path that
// leaves root. rel is the file's slash path relative to root.
func readInside(root, dir, name string) (rel string, data []byte, err error) {
	rel = path.Clean(path.Join(dir, filepath.ToSlash(name)))
	if path.IsAbs(filepath.ToSlash(name)) || rel == ".." || strings.HasPrefix(rel, "../") {
		return rel, nil, fmt.Errorf("outside the scanned directory")
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Stat(p)
	if err != nil {
		return rel, nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxFileSize {
		return rel, nil, fmt.Errorf("not a regular file of at most %d MiB", maxFileSize>>20)
	}
	data, err = os.ReadFile(p)
	return rel, data, err
}

// vendoredNpm reads the name and version of the package in a vendored directory.
func vendoredNpm(root, dir, ref string) (name, version, rel string, err error) {
	rel, data, err := readInside(root, dir, path.Join(ref, "package.json"))
	if err != nil {
		return "", "", rel, err
	}
	var p struct{ Name, Version string }
	if err := json.Unmarshal(decodeText(data), &p); err != nil {
		return "", "", rel, fmt.Errorf("%s: %w", rel, err)
	}
	return p.Name, p.Version, path.Dir(rel), nil
}

var (
	setupVersionRE = regexp.MustCompile(`\bversion\s*=\s*["']([^"']+)["']`)
	setupNameRE    = regexp.MustCompile(`\bname\s*=\s*["']([^"']+)["']`)
	dunderRE       = regexp.MustCompile(`(?m)^__version__\s*(?::\s*str\s*)?=\s*["']([^"']+)["']`)
)

// vendoredPy reads the name (normalised) and version of the Python project in a vendored
// directory: pyproject.toml's [project] or [tool.poetry], else setup.py, else PKG-INFO; a
// dynamic version from the package's __version__.
func vendoredPy(root, dir, ref string) (name, version, rel string, err error) {
	base := path.Clean(path.Join(dir, ref))
	if _, data, err := readInside(root, dir, path.Join(ref, "pyproject.toml")); err == nil {
		var p struct {
			Project struct{ Name, Version string } `toml:"project"`
			Tool    struct {
				Poetry struct{ Name, Version string } `toml:"poetry"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(decodeText(data)), &p); err == nil {
			name, version = p.Project.Name, p.Project.Version
			if name == "" {
				name, version = p.Tool.Poetry.Name, p.Tool.Poetry.Version
			}
		}
	}
	if name == "" || version == "" {
		for _, f := range []string{"setup.py", "PKG-INFO"} {
			_, data, err := readInside(root, dir, path.Join(ref, f))
			if err != nil {
				continue
			}
			text := string(decodeText(data))
			if f == "PKG-INFO" {
				for l := range strings.Lines(text) {
					if v, ok := strings.CutPrefix(l, "Name: "); ok && name == "" {
						name = strings.TrimSpace(v)
					}
					if v, ok := strings.CutPrefix(l, "Version: "); ok && version == "" {
						version = strings.TrimSpace(v)
					}
				}
				continue
			}
			if m := setupNameRE.FindStringSubmatch(text); m != nil && name == "" {
				name = m[1]
			}
			if m := setupVersionRE.FindStringSubmatch(text); m != nil && version == "" {
				version = m[1]
			}
		}
	}
	if name != "" && version == "" { // a dynamic version: the package's __version__
		pkg := strings.ReplaceAll(normalizePy(name), "-", "_")
		for _, f := range []string{pkg + "/__version__.py", pkg + "/version.py", pkg + "/__init__.py", "src/" + pkg + "/__version__.py",
			"src/" + pkg + "/__init__.py"} {
			if _, data, err := readInside(root, dir, path.Join(ref, f)); err == nil {
				if m := dunderRE.FindSubmatch(decodeText(data)); m != nil {
					version = string(m[1])
					break
				}
			}
		}
	}
	if name == "" {
		return "", "", base, fmt.Errorf("no pyproject.toml, setup.py or PKG-INFO that names the project")
	}
	return normalizePy(name), version, base, nil
}

// pnpmCatalogs is a pnpm-workspace.yaml's default catalog and its named ones.
type pnpmCatalogs struct {
	file    string
	Catalog map[string]string            `yaml:"catalog"`
	Named   map[string]map[string]string `yaml:"catalogs"`
}

// lookup is the range catalog name ("" or "default": the default one) gives pkg.
func (c *pnpmCatalogs) lookup(name, pkg string) (string, bool) {
	if name == "" || name == "default" {
		if v, ok := c.Catalog[pkg]; ok {
			return v, true
		}
		name = "default"
	}
	v, ok := c.Named[name][pkg]
	return v, ok
}

// nearestCatalogs reads the pnpm-workspace.yaml in dir or the nearest directory above it (up
// to root) that has one; nil when none does or it cannot be read.
func nearestCatalogs(root, dir string) *pnpmCatalogs {
	for {
		rel, data, err := readInside(root, dir, "pnpm-workspace.yaml")
		if err == nil {
			var c pnpmCatalogs
			if yaml.Unmarshal(decodeText(data), &c) != nil {
				return nil
			}
			c.file = rel
			return &c
		}
		if dir == "." || dir == "" || dir == "/" {
			return nil
		}
		dir = path.Dir(dir)
	}
}
