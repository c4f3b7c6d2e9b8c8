package doctor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

func interestingNpm(name string) bool { return packageRole(NPM, name) != roleNone }

// npmDep reads a package.json dependency value. Aliases ("npm:@composio/core@^0.13") name the
// real package; workspace ranges are read as ranges; git, file, link, URL and dist-tag values
// cannot be told.
func npmDep(name, value string) (dep, bool) {
	value = strings.TrimSpace(value)
	if rest, ok := strings.CutPrefix(value, "npm:"); ok {
		at := strings.LastIndexByte(rest, '@')
		if at <= 0 {
			name, value = rest, "*"
		} else {
			name, value = rest[:at], rest[at+1:]
		}
	}
	if !interestingNpm(name) {
		return dep{}, false
	}
	d := dep{eco: NPM, name: name}
	if rest, ok := strings.CutPrefix(value, "workspace:"); ok {
		if rest == "*" || rest == "^" || rest == "~" || rest == "" {
			d.special = "the workspace (" + value + ")"
			return d, true
		}
		value = rest
	}
	switch {
	case strings.HasPrefix(value, "file:"), strings.HasPrefix(value, "link:"), strings.HasPrefix(value, "portal:"),
		strings.HasPrefix(value, "git"), strings.HasPrefix(value, "github:"), strings.HasPrefix(value, "http:"),
		strings.HasPrefix(value, "https:"), strings.Contains(value, "/"):
		d.special, d.constraint = value, value
		return d, true
	}
	d.constraint = value
	if err := sdkversion.CheckVersion(NPM, value); err == nil {
		d.version = strings.TrimLeft(strings.TrimSpace(value), "v=")
	} else if err := sdkversion.CheckRange(NPM, value); err != nil && isTag(value) {
		d.special = "the dist-tag " + value
	}
	return d, true
}

// isTag reports whether v looks like a dist-tag ("latest", "next", "beta").
func isTag(v string) bool {
	if v == "" {
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return !(v[0] >= '0' && v[0] <= '9')
}

// parsePackageJSON reads the dependency maps of package.json, and the fields that force a
// version on the whole tree: npm's overrides, yarn's resolutions and pnpm.overrides.
func parsePackageJSON(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: NPM}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(data, &p); err != nil {
		return sc, fmt.Errorf("package.json: %w", err)
	}
	if raw, ok := p["name"]; ok {
		_ = json.Unmarshal(raw, &sc.defines) // a name that is not a string defines nothing
	}
	if raw, ok := p["version"]; ok {
		_ = json.Unmarshal(raw, &sc.definesVersion)
	}
	for _, field := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"} {
		var deps map[string]any
		if raw, ok := p[field]; !ok || json.Unmarshal(raw, &deps) != nil {
			continue
		}
		for _, name := range sortedKeys(deps) {
			v, ok := deps[name].(string)
			if !ok {
				continue
			}
			if d, ok := npmDep(name, v); ok {
				sc.deps = append(sc.deps, d)
			}
		}
	}
	force := func(via, key, value string) {
		if strings.HasPrefix(value, "$") { // "$@composio/core": the version of the direct dependency, reported above
			return
		}
		if d, ok := npmDep(overrideTarget(key), value); ok {
			d.via = via
			sc.deps = append(sc.deps, d)
		}
	}
	var overrides map[string]any
	if raw, ok := p["overrides"]; ok && json.Unmarshal(raw, &overrides) == nil {
		walkOverrides(overrides, "", func(key, value string) { force("overrides", key, value) })
	}
	var resolutions map[string]any
	if raw, ok := p["resolutions"]; ok && json.Unmarshal(raw, &resolutions) == nil {
		for _, k := range sortedKeys(resolutions) {
			if v, ok := resolutions[k].(string); ok {
				force("resolutions", k, v)
			}
		}
	}
	var pnpm struct {
		Overrides map[string]any `json:"overrides"`
	}
	if raw, ok := p["pnpm"]; ok && json.Unmarshal(raw, &pnpm) == nil {
		for _, k := range sortedKeys(pnpm.Overrides) {
			if v, ok := pnpm.Overrides[k].(string); ok {
				force("pnpm.overrides", k, v)
			}
		}
	}
	return sc, nil
}

// walkOverrides calls f for every package an npm overrides object sets: a string value sets
// its key; an object sets its key to its "." entry and nests overrides for that package's
// dependencies.
func walkOverrides(m map[string]any, parent string, f func(key, value string)) {
	for _, k := range sortedKeys(m) {
		switch v := m[k].(type) {
		case string:
			if k == "." {
				if parent != "" {
					f(parent, v)
				}
				continue
			}
			f(k, v)
		case map[string]any:
			walkOverrides(v, k, f)
		}
	}
}

// overrideTarget is the package an override or resolution key names: the last package of a
// path ("pkg/@composio/core", "**/@composio/core", pnpm's "pkg>@composio/core") without a
// version selector ("@composio/core@<0.14").
func overrideTarget(key string) string {
	if i := strings.LastIndexByte(key, '>'); i >= 0 {
		key = key[i+1:]
	}
	parts := strings.Split(key, "/")
	name := parts[len(parts)-1]
	if len(parts) >= 2 && strings.HasPrefix(parts[len(parts)-2], "@") {
		name = parts[len(parts)-2] + "/" + name
	}
	if i := strings.IndexByte(name[min(1, len(name)):], '@'); i >= 0 {
		name = name[:i+1]
	}
	return name
}

type npmLockV1Dep struct {
	Version      string                  `json:"version"`
	Dependencies map[string]npmLockV1Dep `json:"dependencies"`
}

// parsePackageLock reads package-lock.json (lockfileVersion 1, 2 and 3) and
// npm-shrinkwrap.json: v2/v3 "packages" keyed by install path, else v1's nested
// "dependencies".
func parsePackageLock(data []byte) (scanned, error) {
	sc := scanned{kind: kindLock, eco: NPM}
	var l struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Version string `json:"version"`
			Name    string `json:"name"`
			Link    bool   `json:"link"`
		} `json:"packages"`
		Dependencies map[string]npmLockV1Dep `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return sc, fmt.Errorf("package-lock.json: %w", err)
	}
	if len(l.Packages) > 0 {
		for _, key := range sortedKeys(l.Packages) {
			i := strings.LastIndex(key, "node_modules/")
			if i < 0 {
				continue // the root project or a workspace folder
			}
			p := l.Packages[key]
			name := key[i+len("node_modules/"):]
			if p.Name != "" {
				name = p.Name // an alias installed under another folder name
			}
			if p.Link || !interestingNpm(name) || p.Version == "" {
				continue
			}
			sc.deps = append(sc.deps, lockDep(name, p.Version))
		}
		return sc, nil
	}
	var walk func(deps map[string]npmLockV1Dep, depth int)
	walk = func(deps map[string]npmLockV1Dep, depth int) {
		if depth > 64 {
			return
		}
		for _, name := range sortedKeys(deps) {
			d := deps[name]
			n, v := name, d.Version
			if rest, ok := strings.CutPrefix(v, "npm:"); ok { // alias: "npm:@composio/core@0.13.1"
				if at := strings.LastIndexByte(rest, '@'); at > 0 {
					n, v = rest[:at], rest[at+1:]
				}
			}
			if interestingNpm(n) && v != "" {
				sc.deps = append(sc.deps, lockDep(n, v))
			}
			walk(d.Dependencies, depth+1)
		}
	}
	walk(l.Dependencies, 0)
	return sc, nil
}

// lockDep is a lock entry: an exact version, or a non-registry source.
func lockDep(name, version string) dep {
	d := dep{eco: NPM, name: name, version: strings.TrimSpace(version)}
	if err := sdkversion.CheckVersion(NPM, d.version); err != nil &&
		(strings.Contains(d.version, ":") || strings.Contains(d.version, "/")) {
		d.special, d.version = d.version, ""
	}
	return d
}

// npmTargets are the names whose versions lock files are searched for.
var npmTargets = []string{"@composio/core", "composio-core"}

// parsePnpmLock reads pnpm-lock.yaml with a line scanner (no YAML dependency): package keys
// "/@composio/core/0.13.1:" (v5), "/@composio/core@0.13.1(peer):" (v6), "'@composio/core@0.13.1':"
// (v9), and dependency lines "'@composio/core': 0.13.1(peer)". Peer suffixes are dropped.
func parsePnpmLock(data []byte) (scanned, error) {
	sc := scanned{kind: kindLock, eco: NPM}
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 64*1024), 4<<20)
	seen := map[string]bool{}
	add := func(name, v string) {
		v = pnpmVersion(v)
		if v == "" || seen[name+"@"+v] {
			return
		}
		seen[name+"@"+v] = true
		sc.deps = append(sc.deps, lockDep(name, v))
	}
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, _ := strings.Cut(line, ": ")
		key = strings.TrimSuffix(strings.TrimSpace(key), ":")
		key = strings.Trim(key, `'"`)
		value = strings.Trim(strings.TrimSpace(value), `'"`)
		key = strings.TrimPrefix(key, "/")
		if i := strings.Index(key, "/@composio/"); i > 0 && !strings.HasPrefix(key, "@") { // registry host prefix
			key = key[i+1:]
		}
		for _, t := range npmTargets {
			switch {
			case key == t && value != "":
				add(t, value) // dependency line
			case strings.HasPrefix(key, t+"@"):
				add(t, key[len(t)+1:])
			case strings.HasPrefix(key, t+"/"):
				add(t, key[len(t)+1:])
			}
		}
	}
	if err := s.Err(); err != nil {
		return sc, fmt.Errorf("pnpm-lock.yaml: %w", err)
	}
	return sc, nil
}

// pnpmVersion cuts a pnpm version reference to the version: "0.13.1(zod@3.23.8)" and
// "0.13.1_zod@3.23.8" become "0.13.1"; links and specifiers are not versions.
func pnpmVersion(v string) string {
	if i := strings.IndexAny(v, "(_"); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	if v == "" || v[0] < '0' || v[0] > '9' {
		return ""
	}
	return v
}

// parseYarnLock reads yarn.lock, classic (v1: `"@composio/core@^0.13.1":` then `version "0.13.1"`)
// and berry (`"@composio/core@npm:^0.13.1":` then `version: 0.13.1`). Workspace entries are
// the project's own packages and are skipped.
func parseYarnLock(data []byte) (scanned, error) {
	sc := scanned{kind: kindLock, eco: NPM}
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 64*1024), 4<<20)
	var current string // the target the current entry resolves, "" when none
	workspace := false
	seen := map[string]bool{}
	for s.Scan() {
		raw := s.Text()
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		if raw[0] != ' ' && raw[0] != '\t' {
			current, workspace = "", false
			header := strings.TrimSuffix(strings.TrimSpace(raw), ":")
			for desc := range strings.SplitSeq(header, ",") {
				name, rng := splitDescriptor(strings.Trim(strings.TrimSpace(desc), `"'`))
				if rest, ok := strings.CutPrefix(rng, "npm:"); ok && strings.Contains(rest, "@") && !startsWithDigitOrOp(rest) {
					name, _ = splitDescriptor(rest) // alias: foo@npm:@composio/core@^0.13
				}
				if strings.HasPrefix(rng, "workspace:") || strings.HasPrefix(rng, "link:") || strings.HasPrefix(rng, "portal:") {
					workspace = true
				}
				for _, t := range npmTargets {
					if name == t {
						current = t
					}
				}
			}
			continue
		}
		if current == "" || workspace {
			continue
		}
		line := strings.TrimSpace(raw)
		var v string
		switch {
		case strings.HasPrefix(line, "version:"):
			v = strings.TrimSpace(strings.TrimPrefix(line, "version:"))
		case strings.HasPrefix(line, "version "):
			v = strings.TrimSpace(strings.TrimPrefix(line, "version "))
		default:
			continue
		}
		v = strings.Trim(v, `"'`)
		if v == "" || strings.Contains(v, "use.local") || seen[current+"@"+v] {
			continue
		}
		seen[current+"@"+v] = true
		sc.deps = append(sc.deps, lockDep(current, v))
	}
	if err := s.Err(); err != nil {
		return sc, fmt.Errorf("yarn.lock: %w", err)
	}
	return sc, nil
}

// parseBunLock reads bun.lock (Bun's text lock, JSON with trailing commas): each package of
// "packages" is `"key": ["name@version", ...]`; workspace packages are the project's own.
func parseBunLock(data []byte) (scanned, error) {
	sc := scanned{kind: kindLock, eco: NPM}
	text := string(data)
	i := strings.Index(text, `"packages"`)
	if i < 0 {
		return sc, nil
	}
	seen := map[string]bool{}
	for rest := text[i:]; ; {
		j := strings.Index(rest, `: ["`)
		if j < 0 {
			break
		}
		rest = rest[j+4:]
		end := strings.IndexByte(rest, '"')
		if end < 0 {
			break
		}
		name, v := splitDescriptor(rest[:end])
		rest = rest[end:]
		if v == "" || strings.HasPrefix(v, "workspace:") || strings.HasPrefix(v, "link:") || strings.HasPrefix(v, "file:") {
			continue
		}
		if rv, ok := strings.CutPrefix(v, "npm:"); ok {
			name, v = splitDescriptor(rv)
		}
		for _, t := range npmTargets {
			if name == t && !seen[t+"@"+v] {
				seen[t+"@"+v] = true
				sc.deps = append(sc.deps, lockDep(t, v))
			}
		}
	}
	return sc, nil
}

// splitDescriptor splits "name@range" where a scoped name starts with @.
func splitDescriptor(desc string) (name, rng string) {
	i := strings.IndexByte(desc[min(1, len(desc)):], '@')
	if i < 0 {
		return desc, ""
	}
	i++
	return desc[:i], desc[i+1:]
}

func startsWithDigitOrOp(s string) bool {
	return s != "" && strings.ContainsRune("0123456789^~<>=*", rune(s[0]))
}
