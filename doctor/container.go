package doctor

import (
	"encoding/json"
	"fmt"
	"strings"
)

// parseDockerfile reads the packages a Dockerfile (or Containerfile) installs in its RUN
// instructions: `pip install composio==0.15.2` (pip, pip3, python -m pip, uv pip), and
// `npm install @composio/core@0.13.1` (npm i/install/add, pnpm add, yarn add, bun add): an image
// built from it runs those versions whatever the manifests say. Line continuations are joined;
// comments are skipped.
func parseDockerfile(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: PyPI}
	logical, err := logicalLines(data, true)
	if err != nil {
		return sc, fmt.Errorf("reading the Dockerfile: %w", err)
	}
	for _, line := range logical {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.EqualFold(f[0], "RUN") {
			continue
		}
		// one RUN may chain commands: pip install x && npm i y
		for _, cmd := range splitShell(strings.Join(f[1:], " ")) {
			sc.deps = append(sc.deps, installed(strings.Fields(cmd))...)
		}
	}
	return sc, nil
}

// splitShell splits a shell line at &&, ||, ; and |.
func splitShell(s string) []string {
	return strings.FieldsFunc(strings.NewReplacer("&&", ";", "||", ";", "|", ";").Replace(s), func(r rune) bool { return r == ';' })
}

// installed is the Composio packages one install command names.
func installed(w []string) []dep {
	unquote := func(s string) string { return strings.Trim(s, `"'`) }
	args := func(from int) []string {
		var out []string
		for _, a := range w[from:] {
			if !strings.HasPrefix(a, "-") {
				out = append(out, unquote(a))
			}
		}
		return out
	}
	at := func(name string, i int) bool { return i < len(w) && w[i] == name }
	var out []dep
	switch {
	case len(w) >= 2 && (w[0] == "pip" || w[0] == "pip3") && w[1] == "install",
		len(w) >= 4 && strings.HasPrefix(w[0], "python") && at("-m", 1) && at("pip", 2) && at("install", 3),
		len(w) >= 3 && w[0] == "uv" && at("pip", 1) && at("install", 2):
		from := 2
		if strings.HasPrefix(w[0], "python") {
			from = 4
		} else if w[0] == "uv" {
			from = 3
		}
		for _, a := range args(from) {
			if d, ok := parseRequirement(a); ok {
				out = append(out, d)
			}
		}
	case len(w) >= 2 && w[0] == "npm" && (w[1] == "i" || w[1] == "install" || w[1] == "add"),
		len(w) >= 2 && (w[0] == "pnpm" || w[0] == "yarn" || w[0] == "bun") && (w[1] == "add" || w[1] == "install" || w[1] == "i"):
		for _, a := range args(2) {
			name, version := a, "*"
			if i := strings.LastIndexByte(a, '@'); i > 0 {
				name, version = a[:i], a[i+1:]
			}
			if d, ok := npmDep(name, version); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// parseDenoJSON reads a deno.json(c) import map: "@composio/core": "npm:@composio/core@^0.13.1".
func parseDenoJSON(data []byte) (scanned, error) {
	sc := scanned{kind: kindManifest, eco: NPM}
	var f struct {
		Imports map[string]string `json:"imports"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return sc, fmt.Errorf("reading deno.json: %w", err)
	}
	for _, k := range sortedKeys(f.Imports) {
		v := f.Imports[k]
		if !strings.HasPrefix(v, "npm:") {
			continue
		}
		if d, ok := npmDep(k, v); ok {
			sc.deps = append(sc.deps, d)
		}
	}
	return sc, nil
}
