package doctor

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A uv workspace builds its members from the tree: a package its [tool.uv.sources] names with
// `workspace = true` is the member of that name, whatever version a requirement pins or
// leaves open, as npm's `workspace:` names the tree's own package. Its version is the member's
// own (its pyproject.toml, or setup.py), not a registry's release, so a tree that defines the
// SDK (the SDK's own repository, a fork) is judged by the SDK it holds.

// uvSources reads [tool.uv.sources]: a package's source as "workspace", "path DIR" (as the
// lock parsers write a path) or "" for the others (git, a URL, an index).
func uvSources(raw map[string]any) map[string]string {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]string, len(raw))
	for name, v := range raw {
		t, ok := v.(map[string]any)
		if !ok {
			continue
		}
		switch {
		case t["workspace"] == true:
			out[normalizePy(name)] = "workspace"
		case t["path"] != nil:
			out[normalizePy(name)] = fmt.Sprint("path ", t["path"])
		}
	}
	return out
}

// uvSourced marks a requirement its manifest's [tool.uv.sources] takes from the tree: from the
// workspace (resolveWorkspaces gives its version) or a path (resolve reads it as vendored).
func uvSourced(d *dep, sources map[string]string) {
	switch src := sources[d.name]; {
	case src == "workspace":
		d.version, d.special = "", "the workspace"
	case strings.HasPrefix(src, "path "):
		d.version, d.special = "", src
	}
}

// resolveWorkspaces gives each Python manifest's requirement that its workspace takes from
// the tree (its own [tool.uv.sources], or its workspace root's: the nearest pyproject.toml
// above it whose members include its folder) the version of the member that defines it.
func resolveWorkspaces(root string, files []scanned) []Problem {
	var roots []*scanned
	for i := range files {
		if len(files[i].uvMembers) > 0 {
			roots = append(roots, &files[i])
		}
	}
	var problems []Problem
	resolveNpmWorkspaces(files)
	members := map[string][]string{} // a root's member folders, relative to root
	for fi := range files {
		f := &files[fi]
		if f.eco != PyPI || f.kind != kindManifest || !packageMetadata(f.base) {
			continue // a requirements file is pip's, which reads no workspace
		}
		ws := workspaceOf(root, f.dir, roots)
		for di := range f.deps {
			d := &f.deps[di]
			if d.special != "the workspace" && (ws == nil || ws.uvSources[d.name] != "workspace") {
				continue
			}
			if ws == nil {
				problems = append(problems, Problem{File: f.rel,
					Error: d.name + ": its source is the workspace, and no uv workspace above it has members"})
				continue
			}
			if _, ok := members[ws.dir]; !ok {
				members[ws.dir] = memberDirs(root, ws)
			}
			found := false
			for _, m := range members[ws.dir] {
				name, version, rel, err := vendoredPy(root, ".", m)
				if err != nil || normalizePy(name) != d.name || version == "" {
					continue
				}
				d.version, d.special, d.source, d.from, found = version, "", "workspace", rel, true
				break
			}
			if !found {
				d.version, d.special = "", "the workspace (no member of "+ws.rel+" defines "+d.name+" with a version)"
			}
		}
	}
	return problems
}

// resolveNpmWorkspaces gives a `workspace:` dependency the version of the one package.json in
// the tree that defines it (its name and version); one defined twice, or without a version,
// stays the workspace's, unknown.
func resolveNpmWorkspaces(files []scanned) {
	defined := map[string][]*scanned{}
	for i := range files {
		if f := &files[i]; f.eco == NPM && f.kind == kindManifest && f.defines != "" {
			defined[f.defines] = append(defined[f.defines], f)
		}
	}
	for fi := range files {
		f := &files[fi]
		if f.eco != NPM {
			continue
		}
		for di := range f.deps {
			d := &f.deps[di]
			if !strings.HasPrefix(d.special, "the workspace (") {
				continue
			}
			if def := defined[d.name]; len(def) == 1 && def[0].definesVersion != "" {
				d.version, d.special, d.source, d.from = def[0].definesVersion, "", "workspace", def[0].dir
			}
		}
	}
}

// workspaceOf is the uv workspace whose members include dir: the nearest root at or above it.
func workspaceOf(root, dir string, roots []*scanned) *scanned {
	var best *scanned
	for _, r := range roots {
		rel, ok := within(r.dir, dir)
		if !ok || best != nil && len(r.dir) <= len(best.dir) {
			continue
		}
		if rel == "." || slices.ContainsFunc(memberDirs(root, r), func(m string) bool { return m == dir }) {
			best = r
		}
	}
	return best
}

// within is dir relative to base when dir is base or under it.
func within(base, dir string) (string, bool) {
	if base == "." {
		return dir, true
	}
	if dir == base {
		return ".", true
	}
	rest, ok := strings.CutPrefix(dir, base+"/")
	return rest, ok
}

// memberDirs is a workspace's member folders (its globs expanded, its exclusions dropped),
// relative to root, sorted.
func memberDirs(root string, ws *scanned) []string {
	var out []string
	for _, pat := range ws.uvMembers {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(path.Join(ws.dir, pat))))
		if err != nil {
			continue
		}
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			if err != nil {
				continue
			}
			rel = filepath.ToSlash(rel)
			if st, err := os.Stat(m); err != nil || !st.IsDir() || excluded(ws, rel) {
				continue
			}
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// excluded reports whether a workspace's exclusions name the member folder rel.
func excluded(ws *scanned, rel string) bool {
	in, _ := within(ws.dir, rel)
	for _, pat := range ws.uvExclude {
		if ok, _ := path.Match(pat, in); ok {
			return true
		}
	}
	return false
}

// packageMetadata: a file that describes a package of the workspace (a member's), which uv
// resolves by the workspace's sources.
func packageMetadata(base string) bool {
	return base == "pyproject.toml" || base == "setup.py" || base == "setup.cfg"
}

// The SDK's own source is no use of it. Where the tree defines a Composio package (the SDK's
// repository, a fork, a copy vendored into a workspace), the files of that package's import
// root are the SDK's code, whose sends are its implementation; its examples and tests, beside
// them, are the project's uses and stay.

// sdkSourceDirs is the import roots of the Composio packages the tree's manifests define: a
// Python package's folder named for it (composio-openai: composio_openai) beside its manifest
// or under src/; an npm package's src, lib and dist.
func sdkSourceDirs(files []scanned) []string {
	var out []string
	for _, f := range files {
		if f.kind != kindManifest || f.defines == "" || packageRole(f.eco, f.defines) == roleNone {
			continue
		}
		var subs []string
		if f.eco == PyPI {
			imp := strings.ReplaceAll(f.defines, "-", "_")
			subs = []string{imp, "src/" + imp}
		} else {
			subs = []string{"src", "lib", "dist"}
		}
		for _, sub := range subs {
			out = append(out, path.Join(f.dir, sub))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// withoutSDKSource drops the code files under the SDK's own source (sdkSourceDirs) from what
// is read for uses.
func withoutSDKSource(files []scanned, code []codeFile, later []laterFile, read map[Ecosystem][]string) ([]codeFile, []laterFile) {
	dirs := sdkSourceDirs(files)
	if len(dirs) == 0 {
		return code, later
	}
	inSDK := func(rel string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { _, ok := within(d, rel); return ok })
	}
	code = slices.DeleteFunc(code, func(c codeFile) bool { return inSDK(c.rel) })
	later = slices.DeleteFunc(later, func(l laterFile) bool { return inSDK(l.rel) })
	for eco, rels := range read {
		read[eco] = slices.DeleteFunc(rels, inSDK)
	}
	return code, later
}
