// Package doctor finds the Composio SDK versions a project depends on, in its manifests and
// lock files (pip requirements and pip-tools inputs, pyproject.toml for PEP 621, Poetry and
// PDM, setup.cfg, setup.py, Pipfile, poetry.lock, uv.lock, pdm.lock, Pipfile.lock,
// package.json with its overrides and resolutions, package-lock.json, pnpm-lock.yaml,
// yarn.lock), and says whether each one still re-sends timed-out writes: Python composio
// before 0.16.0 and @composio/core before 0.14.0 retry tools.execute and the proxy call like
// any other request, so one intended action can happen two or three times. The legacy
// composio-core packages (PyPI and npm) predate the fix altogether. A lock file says what is
// installed and wins over a manifest's range.
package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

// Ecosystem is the package registry a finding belongs to.
type Ecosystem = sdkversion.Ecosystem

const (
	PyPI = sdkversion.PyPI
	NPM  = sdkversion.NPM
)

// The first SDK releases that send tools.execute / proxy writes exactly once.
const (
	PythonFixedVersion = sdkversion.PythonFixedIn     // PyPI composio
	NPMFixedVersion    = sdkversion.TypeScriptFixedIn // npm @composio/core
)

// Fixes shown for a finding that retries writes.
const (
	PythonFix = "upgrade to composio>=0.16.0"
	NPMFix    = "upgrade to @composio/core@^0.14.0"
)

// Finding is one Composio package found in one file.
type Finding struct {
	File       string    `json:"file"` // relative to the scanned directory, slash-separated
	Ecosystem  Ecosystem `json:"ecosystem"`
	Package    string    `json:"package"`
	Version    string    `json:"version"`    // exact version (lock file, == pin, or the lock that governs a manifest); "" when unknown
	Constraint string    `json:"constraint"` // the range as written in a manifest; "" in a lock file
	// RetriesWrites is true when the package (or a version the range allows) re-sends timed-out
	// writes, false when it cannot, null when it cannot be told (URL or path installs, provider
	// packages, unreadable versions).
	RetriesWrites *bool  `json:"retries_writes"`
	Reason        string `json:"reason"`
	Fix           string `json:"fix,omitempty"`
	// LockFile names the lock file whose version decided a manifest finding.
	LockFile string `json:"lock_file,omitempty"`
	// Via names the package.json field that forces this version in the dependency tree
	// (everywhere, or under the package its key names): "overrides", "resolutions" or
	// "pnpm.overrides"; empty for a plain dependency.
	Via string `json:"via,omitempty"`
	// CallPath is the SDK call path the finding is about: "tools.execute" (tools.execute and
	// the proxy: a version finding), "session" (tool-router session writes) or
	// "langchain_middleware" (a framework's tool retry).
	CallPath string `json:"call_path"`
	// Evidence is the code location (file:line) that uses the path, "" for a version finding
	// that no code location backs.
	Evidence string `json:"evidence,omitempty"`
	// VersionSource says what decided Version: "lock" (a lock file), "manifest" (an exact pin)
	// or "range" (a range as written, no lock); "" when no version is known.
	VersionSource string `json:"version_source,omitempty"`
	// Use says what the code does with the path, when code was read: "used" (Evidence is
	// where it sends), "not_used" (the SDK is present, the code never calls the path: not an
	// alarm), "mcp" (tool-router sessions used only for their MCP address: the tools run
	// over MCP, where the SDK's session retries do not apply); "" when no code was read.
	Use string `json:"use,omitempty"`

	may bool // the range allows both retrying and fixed versions
}

// describe fills the fields every finding carries: its call path and what decided its version.
func (f *Finding) describe() {
	f.CallPath = cmp.Or(f.CallPath, CallToolsExecute)
	switch {
	case f.VersionSource != "":
		// set from the dep (vendored, catalog, constraints)
	case f.LockFile != "" || f.Constraint == "" && f.Version != "":
		f.VersionSource = "lock"
	case f.Version != "":
		f.VersionSource = "manifest"
	case f.Constraint != "":
		f.VersionSource = "range"
	}
}

// What the code does with a finding's path (Finding.Use).
const (
	UseUsed    = "used"
	UseNotUsed = "not_used"
	UseMCP     = "mcp"
)

// The call paths a finding names.
const (
	CallToolsExecute = "tools.execute"
	CallSession      = "session"
	CallMiddleware   = "langchain_middleware"
	CallCLI          = "cli"
	CallWorkbench    = "workbench"
)

// Problem is a file doctor could not read; the scan goes on without it.
type Problem struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

// ErrNotDir is returned by Scan for a root that is not a readable directory.
var ErrNotDir = errors.New("not a directory")

// skipDirs are never descended into: installed packages and build output say nothing about
// what the project asks for, and are large.
var skipDirs = map[string]bool{
	"node_modules": true, ".git": true, ".hg": true, ".svn": true, ".venv": true, "venv": true,
	"vendor": true, "dist": true, "build": true, "__pycache__": true, ".tox": true, ".nox": true,
	".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true, ".next": true, ".turbo": true,
	".yarn": true, "bower_components": true, "site-packages": true,
}

// maxFileSize bounds what doctor reads; lock files of large monorepos stay well below.
const maxFileSize = 64 << 20

// dep is one dependency entry read from a file.
type dep struct {
	eco        Ecosystem
	name       string // normalised
	version    string // exact, when the file pins one
	constraint string // the range as written (manifests)
	special    string // a non-registry source (git, path, url, workspace, tag): verdict unknown
	via        string // set when the entry forces a version in the tree: "overrides", "resolutions", "pnpm.overrides"
	// source says where a version that is not written in the entry came from (resolve): the
	// VersionSource "vendored", "workspace", "catalog" or "constraints"; from names that file.
	source, from string
}

type fileKind int

const (
	kindManifest fileKind = iota
	kindLock
)

// scanned is what one file yielded.
type scanned struct {
	rel  string // slash path relative to root
	dir  string // slash dir relative to root ("." for the root)
	base string
	kind fileKind
	eco  Ecosystem
	deps []dep
	// requirements files only: the files its -c options constrain it with and the paths its
	// -e options install, as written (resolve reads them).
	constraints, editables []string
	// pyproject.toml only: a uv workspace's members and exclusions (globs, relative to its
	// dir), and where [tool.uv.sources] says a package comes from (workspace.go)
	uvMembers, uvExclude []string
	uvSources            map[string]string
	// defines is the package a manifest describes (its own name, normalised for PyPI): a
	// Composio package defined in the tree is the SDK's own source (sdkSourceDirs)
	defines string
	// definesVersion is its version, where the manifest states it (package.json)
	definesVersion string
}

// Scan walks root and reports every Composio package its manifests and lock files name.
// Directories of installed packages, virtual environments and build output are skipped.
// The error is non-nil only when root itself cannot be scanned or ctx ends.
func Scan(ctx context.Context, root string) (*Report, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("cannot scan: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: %w", root, ErrNotDir)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // WalkDir does not descend into a root that is a symlink
	}
	rep := &Report{Findings: []Finding{}}
	var files []scanned
	var code []codeFile
	var later []laterFile            // code files that name nothing doctor knows yet
	read := map[Ecosystem][]string{} // every code file read, by ecosystem
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel := relSlash(root, p)
		if err != nil {
			if p == root {
				return err
			}
			rep.Problems = append(rep.Problems, Problem{File: rel, Error: err.Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != root && (skipDirs[d.Name()] || isVirtualenv(p)) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // symlinks, devices, sockets
		}
		parse := parserFor(rel)
		if parse == nil {
			if eco := codeEcosystem(rel); eco != "" {
				if fi, err := d.Info(); err == nil && fi.Size() <= maxCodeSize {
					if data, err := os.ReadFile(p); err == nil {
						read[eco] = append(read[eco], rel)
						if data = decodeText(data); relevant(data) {
							code = append(code, readCode(ctx, rel, eco, data))
						} else {
							later = append(later, laterFile{path: p, rel: rel, eco: eco})
						}
					}
				}
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{File: rel, Error: err.Error()})
			return nil
		}
		if fi.Size() > maxFileSize {
			rep.Problems = append(rep.Problems, Problem{File: rel, Error: fmt.Sprintf("larger than %d MiB, skipped", maxFileSize>>20)})
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{File: rel, Error: err.Error()})
			return nil
		}
		sc, err := parse(decodeText(data))
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{File: rel, Error: err.Error()})
			return nil
		}
		sc.rel, sc.dir, sc.base = rel, path.Dir(rel), path.Base(rel)
		files = append(files, sc)
		return nil
	})
	if walkErr != nil {
		return nil, fmt.Errorf("scanning %s: %w", root, walkErr)
	}
	rep.Problems = append(rep.Problems, resolve(root, files)...)
	rep.Problems = append(rep.Problems, resolveWorkspaces(root, files)...)
	rep.Findings = append(rep.Findings, findings(files)...)
	code, later = withoutSDKSource(files, code, later, read)
	code = widen(ctx, code, later)
	var uses []codeUse
	for _, eco := range []Ecosystem{PyPI, NPM} {
		uses = append(uses, scanProject(ofEcosystem(code, eco))...)
	}
	uses = append(uses, clientBuilds(code)...)
	uses = append(uses, sdkBuilds(code)...)
	legacyByImport(rep.Findings, uses)
	clientByBuild(rep.Findings, uses, read)
	more, notes := codeFindings(uses, read, rep.Findings)
	rep.Findings = append(rep.Findings, more...)
	rep.Findings = append(rep.Findings, undeclaredFindings(uses, rep.Findings, code)...)
	sdkByBuild(rep.Findings, uses)
	rep.Notes = append(otherCreateNotes(uses, rep.Findings), notes...)
	rep.Notes = append(rep.Notes, undeclaredNotes(rep.Findings, code)...)
	for i := range rep.Findings {
		rep.Findings[i].describe()
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Constraint < b.Constraint
	})
	return rep, nil
}

func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// isVirtualenv reports whether dir is a Python virtual environment (any name).
func isVirtualenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// parserFor returns the parser for a file, or nil when doctor does not read it.
func parserFor(rel string) func([]byte) (scanned, error) {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	switch {
	case base == "pyproject.toml":
		return parsePyproject
	case base == "poetry.lock", base == "uv.lock", base == "pdm.lock":
		return parseTOMLLock
	case base == "Pipfile":
		return parsePipfile
	case base == "Pipfile.lock":
		return parsePipfileLock
	case base == "setup.cfg":
		return parseSetupCfg
	case base == "setup.py":
		return parseSetupPy
	case base == "package.json":
		return parsePackageJSON
	case base == "package-lock.json", base == "npm-shrinkwrap.json":
		return parsePackageLock
	case base == "pnpm-lock.yaml":
		return parsePnpmLock
	case base == "yarn.lock":
		return parseYarnLock
	case base == "bun.lock":
		return parseBunLock
	case base == "deno.json", base == "deno.jsonc":
		return parseDenoJSON
	case base == "environment.yml", base == "environment.yaml":
		return parseCondaEnv
	case base == "Dockerfile", base == "Containerfile", strings.HasSuffix(lower, ".dockerfile"), strings.HasPrefix(base, "Dockerfile."):
		return parseDockerfile
	case strings.HasPrefix(lower, "requirements") && (strings.HasSuffix(lower, ".txt") || strings.HasSuffix(lower, ".in")),
		(strings.HasSuffix(lower, ".txt") || strings.HasSuffix(lower, ".in")) && path.Base(path.Dir(rel)) == "requirements":
		return parseRequirements
	}
	return nil
}

// packageRole is what a package is to doctor (package sdkversion decides).
func packageRole(eco Ecosystem, name string) sdkversion.Role {
	return sdkversion.PackageRole(eco, name)
}

const (
	roleNone     = sdkversion.RoleNone
	roleSDK      = sdkversion.RoleSDK
	roleLegacy   = sdkversion.RoleLegacy
	roleClient   = sdkversion.RoleClient
	roleProvider = sdkversion.RoleProvider
)

func fixFor(eco Ecosystem) string {
	if eco == PyPI {
		return PythonFix
	}
	return NPMFix
}

func sdkName(eco Ecosystem) string {
	if eco == PyPI {
		return "composio"
	}
	return "@composio/core"
}

// classify fills the verdict of a finding from its exact version or its range.
func classify(f *Finding, d dep) {
	eco, name := d.eco, d.name
	switch packageRole(eco, name) {
	case roleLegacy:
		if !sdkversion.LegacyRetries(eco) {
			f.RetriesWrites = new(false)
			f.Reason = fmt.Sprintf("%s is the legacy v1 SDK, replaced by %s; it has no retry code: each write is sent once", name,
				sdkName(eco))
			return
		}
		f.RetriesWrites = new(true)
		f.Reason = fmt.Sprintf(
			"%s is the legacy v1 SDK, replaced by %s; it predates the change that stopped re-sending timed-out writes",
			name,
			sdkName(eco),
		)
		f.Fix = "migrate to " + strings.TrimPrefix(fixFor(eco), "upgrade to ")
		return
	case roleClient:
		f.Reason = "the generated API client retries every request by default (2 retries), writes included; " +
			"send tools.execute/proxy through it with max retries 0, or use " + sdkName(eco) + " >= " + sdkversion.FixedIn(eco)
		return
	case roleProvider:
		if eco == NPM && name == sdkversion.CLIPackage {
			classifyCLI(f, d)
			return
		}
		if eco == PyPI && legacyProvider(f, d) {
			return
		}
		if eco == NPM && name == sdkversion.ExperimentalSDK && d.version != "" {
			f.CallPath = CallWorkbench
			if retries, ok := sdkversion.RetriesWrites(eco, name, d.version, sdkversion.PathWorkbench); ok {
				f.RetriesWrites = new(retries)
				if retries {
					f.Reason = fmt.Sprintf(
						"%s %s re-sends workbench executions (fixed in %s)",
						name,
						d.version,
						sdkversion.ExperimentalFixedIn,
					)
					f.Fix = "upgrade to " + name + "@^" + sdkversion.ExperimentalFixedIn
				} else {
					f.Reason = fmt.Sprintf("%s %s sends each workbench execution once", name, d.version)
				}
				return
			}
		}
		f.Reason = "provider package: writes go through " + sdkName(eco) + ", whose version decides; " +
			"pin " + sdkName(eco) + " >= " + sdkversion.FixedIn(eco) + " or keep a lock file"
		return
	}
	fixed := sdkversion.FixedIn(eco)
	switch {
	case d.special == "the dist-tag latest" && eco == NPM:
		// the newest release, every fix in it: what a fresh install gets (a lock would say otherwise)
		f.RetriesWrites = new(false)
		f.Reason = fmt.Sprintf("installed from the dist-tag latest: the newest release, which sends each write once (fixed in %s); "+
			"an install made before keeps what it had: a lock file or a pinned version says which", fixed)
	case d.special != "":
		f.Reason = fmt.Sprintf("installed from %s: the version cannot be told from here; make sure it is %s or later", d.special, fixed)
	case d.version != "":
		old, err := sdkversion.OlderThanFix(eco, d.version)
		switch {
		case sdkversion.PreRenumbered(eco, name, d.version):
			f.RetriesWrites = new(true)
			f.Reason = fmt.Sprintf(
				"%s %s is a pre-release published before %s renumbered its releases 0.x: it carries the code before %s and re-sends "+
					"timed-out writes",
				name, d.version, name, fixed)
			f.Fix = fixFor(eco)
		case err != nil:
			f.Reason = fmt.Sprintf("cannot read version %q", d.version)
		case old:
			f.RetriesWrites = new(true)
			f.Reason = fmt.Sprintf("%s %s re-sends a timed-out tools.execute/proxy write up to twice (fixed in %s)", name, d.version, fixed)
			f.Fix = fixFor(eco)
		default:
			f.RetriesWrites = new(false)
			f.Reason = fmt.Sprintf("%s %s sends each tools.execute/proxy write once", name, d.version)
		}
	default:
		old, current, err := sdkversion.RangeSplit(eco, d.constraint)
		shown := d.constraint
		shown = cmp.Or(shown, "no version constraint")
		switch {
		case err != nil:
			f.Reason = fmt.Sprintf("cannot read version range %q: %v", d.constraint, err)
		case !old && !current:
			f.Reason = fmt.Sprintf("%q allows no version", d.constraint)
		case old && !current:
			f.RetriesWrites = new(true)
			f.Reason = fmt.Sprintf("%s: every version it allows is older than %s and re-sends timed-out writes", shown, fixed)
			f.Fix = fixFor(eco)
		case old:
			f.RetriesWrites = new(true)
			f.may = true
			f.Reason = fmt.Sprintf(
				"%s may resolve to a version older than %s, which re-sends timed-out writes (an existing environment keeps what it has)",
				shown,
				fixed,
			)
			f.Fix = fixFor(eco)
		default:
			f.RetriesWrites = new(false)
			f.Reason = fmt.Sprintf("%s only allows %s or later", shown, fixed)
		}
	}
}

// classifyCLI judges the Composio CLI (@composio/cli): before 0.4.5 it retried its mutations
// (`composio execute` included); before 0.5.0 it exited 0 when an execution failed, so a
// script that checks the exit status took a failure for success.
func classifyCLI(f *Finding, d dep) {
	f.CallPath = CallCLI
	fix := sdkversion.CLIFixedIn
	if d.version == "" {
		if old, _, err := sdkversion.RangeSplitAt(NPM, d.constraint, fix); err == nil && old && d.special == "" {
			f.RetriesWrites, f.may = new(true), true
			f.Reason = fmt.Sprintf(
				"%s can install a CLI before %s, which retries its mutations (composio execute included)",
				shownRange(d.constraint),
				fix,
			)
			f.Fix = "upgrade to " + d.name + "@^0.5.0"
			return
		}
		f.Reason = "the CLI's version cannot be told from " + shownRange(d.constraint) + "; before " + fix + " it retried its mutations"
		return
	}
	retries, ok := sdkversion.RetriesWrites(NPM, d.name, d.version, sdkversion.PathCLI)
	if !ok {
		f.Reason = fmt.Sprintf("cannot read version %q", d.version)
		return
	}
	f.RetriesWrites = new(retries)
	exit := ""
	if c, err := sdkversion.CompareSemver(d.version, "0.5.0"); err == nil && c < 0 {
		exit = "; it also exits 0 when an execution fails (fixed in 0.5.0), so a script cannot tell"
	}
	if retries {
		f.Reason = fmt.Sprintf("%s %s retries its mutations, composio execute included (fixed in %s)%s", d.name, d.version, fix, exit)
		f.Fix = "upgrade to " + d.name + "@^0.5.0"
		return
	}
	f.Reason = fmt.Sprintf("%s %s sends each mutation once%s", d.name, d.version, exit)
}

// findings turns the parsed files into findings, letting a lock file decide a manifest's
// version: pyproject.toml is governed by poetry.lock, uv.lock or pdm.lock, package.json by
// package-lock.json, pnpm-lock.yaml or yarn.lock, in its directory or the nearest parent that
// has one (workspaces); a Pipfile by the Pipfile.lock beside it. requirements files, setup.cfg
// and setup.py are what pip installs from and have no lock.
func findings(files []scanned) []Finding {
	// lock versions by directory, lock family and package
	type lockKey struct {
		dir  string
		fam  string
		name string
	}
	type locked struct {
		file     string
		versions []string
	}
	locks := map[lockKey][]locked{}
	lockDirs := map[string]map[string]bool{}
	for _, f := range files {
		fam := lockFamily(f.base)
		if f.kind != kindLock || fam == "" {
			continue
		}
		if lockDirs[f.dir] == nil {
			lockDirs[f.dir] = map[string]bool{}
		}
		lockDirs[f.dir][fam] = true
		byName := map[string][]string{}
		var order []string
		for _, d := range f.deps {
			if d.version == "" {
				continue
			}
			if _, seen := byName[d.name]; !seen {
				order = append(order, d.name)
			}
			if !contains(byName[d.name], d.version) {
				byName[d.name] = append(byName[d.name], d.version)
			}
		}
		for _, n := range order {
			k := lockKey{f.dir, fam, n}
			locks[k] = append(locks[k], locked{file: f.rel, versions: byName[n]})
		}
	}
	var out []Finding
	for _, f := range files {
		seen := map[string]bool{}
		for _, d := range f.deps {
			r := packageRole(d.eco, d.name)
			if r == roleNone {
				continue
			}
			// lock files list every transitive package: the client and providers there are
			// implementation details of the SDK, which is reported on its own
			if f.kind == kindLock && (r == roleClient || r == roleProvider) {
				continue
			}
			key := d.name + "\x00" + d.version + "\x00" + d.constraint + "\x00" + d.special + "\x00" + d.via
			if seen[key] {
				continue
			}
			seen[key] = true
			fd := Finding{
				File:          f.rel,
				Ecosystem:     d.eco,
				Package:       d.name,
				Version:       d.version,
				Constraint:    d.constraint,
				VersionSource: d.source,
			}
			if d.source == "constraints" {
				fd.LockFile = d.from
			}
			if d.special != "" && fd.Constraint == "" {
				fd.Constraint = d.special
			}
			classify(&fd, d)
			if fam := manifestFamily(f.base); fam != "" && r == roleSDK && d.version == "" && d.special == "" {
				if lk, ok := nearestLock(f.dir, fam, lockDirs); ok {
					for _, l := range locks[lockKey{lk, fam, d.name}] {
						applyLock(&fd, d, l.file, l.versions)
						break
					}
				}
			}
			switch d.source {
			case "vendored":
				fd.Reason = "vendored at " + d.from + " (its own metadata says " + d.version + "): " + fd.Reason
			case "workspace":
				fd.Reason = "the workspace's own package at " + d.from + " (its manifest says " + d.version + "): " + fd.Reason
			case "catalog":
				fd.Reason = "from the pnpm catalog in " + d.from + ": " + fd.Reason
			case "constraints":
				fd.Reason = "pinned to " + d.version + " by the constraints file " + d.from + ": " + fd.Reason
			}
			if d.via != "" {
				fd.Via = d.via
				fd.Reason = "forced by package.json's " + d.via + ": " + fd.Reason
			}
			out = append(out, fd)
		}
	}
	return out
}
