// Package sdkversion knows the Composio SDK versions: which ones auto-retry writes (Python
// composio before 0.16.0 and TypeScript @composio/core before 0.14.0 retry tools.execute and
// the proxy call like any other request, so one intended action can happen two or three
// times), and the version orderings needed to say so: PEP 440 and SemVer versions, and the
// ranges pip, Poetry, uv and npm write. doctor reads them from manifests and lock files,
// triage from log records.
package sdkversion

import (
	"fmt"
	"strings"
)

// Ecosystem is the package registry an SDK version belongs to; it decides the grammar.
type Ecosystem string

const (
	PyPI Ecosystem = "pypi" // PEP 440 versions, pip/Poetry/uv specifiers
	NPM  Ecosystem = "npm"  // SemVer 2 versions, node-semver ranges
)

// The Composio SDK packages and the first versions whose tools.execute and proxy no longer
// retry.
const (
	PythonSDK         = "composio"
	TypeScriptSDK     = "@composio/core"
	PythonFixedIn     = "0.16.0"
	TypeScriptFixedIn = "0.14.0"
)

// FixedIn is the first release of eco's SDK that sends each write once.
func FixedIn(eco Ecosystem) string {
	if eco == PyPI {
		return PythonFixedIn
	}
	return TypeScriptFixedIn
}

// SDK is one Composio SDK: its language, package name, ecosystem and first fixed release.
type SDK struct {
	Lang, Name, FixedIn string
	Eco                 Ecosystem
}

// Lookup finds the SDK a package name (composio, @composio/core) or a language as records
// carry it (python, PYTHON_SDK, typescript, TYPESCRIPT_SDK, javascript, node) names.
func Lookup(pkg string) (SDK, bool) {
	switch strings.ToLower(strings.TrimSpace(pkg)) {
	case "composio", "python", "python_sdk", "py", "python3", "pypi":
		return SDK{Lang: "Python", Name: PythonSDK, FixedIn: PythonFixedIn, Eco: PyPI}, true
	case "@composio/core", "typescript", "typescript_sdk", "ts", "javascript", "javascript_sdk", "js",
		"node", "nodejs", "npm":
		return SDK{Lang: "TypeScript", Name: TypeScriptSDK, FixedIn: TypeScriptFixedIn, Eco: NPM}, true
	}
	return SDK{}, false
}

// RetriesWritesNote ends the one-line note of an SDK that auto-retries writes.
const RetriesWritesNote = "auto-retries writes"

// AutoRetries reports whether Composio SDK package pkg (see Lookup) at version still
// auto-retries tools.execute and proxy calls, and says so in one line ("Python composio 0.15.2
// auto-retries writes"). The version is read leniently, as log records carry it: a leading v
// or = is ignored, and a version that is not in the SDK's own grammar is read in the other
// one (0.16 for TypeScript, 0.14.0-beta.1 for Python). A pre-release of the fixing version
// (0.16.0rc1) may predate the fix, so it counts as retrying, and the note says "may". note is
// "" when the version is fixed, unreadable, or pkg is not a Composio SDK.
func AutoRetries(pkg, version string) (retries bool, note string) {
	sdk, ok := Lookup(pkg)
	if !ok {
		return false, ""
	}
	shown := strings.TrimSpace(version)
	if PreRenumbered(sdk.Eco, sdk.Name, version) {
		return true, fmt.Sprintf("%s %s %s (a pre-release published before the 0.x renumbering) %s", sdk.Lang, sdk.Name, shown,
			RetriesWritesNote)
	}
	c, preOfFix, ok := relateToFix(sdk.Eco, version, sdk.FixedIn)
	if !ok || c >= 0 {
		return false, ""
	}
	if preOfFix {
		return true, fmt.Sprintf("%s %s %s (a pre-release of %s) may still auto-retry writes", sdk.Lang, sdk.Name, shown, sdk.FixedIn)
	}
	return true, fmt.Sprintf("%s %s %s %s", sdk.Lang, sdk.Name, shown, RetriesWritesNote)
}

// OlderThanFix reports whether an exact version, in eco's grammar, predates the fix.
func OlderThanFix(eco Ecosystem, version string) (bool, error) {
	var c int
	var err error
	if eco == PyPI {
		c, err = ComparePEP440(version, PythonFixedIn)
	} else {
		c, err = CompareSemver(version, TypeScriptFixedIn)
	}
	return c < 0, err
}

// CheckVersion returns an error when v is not an exact version in eco's grammar.
func CheckVersion(eco Ecosystem, v string) error {
	if eco == PyPI {
		_, err := parsePEP440(v)
		return err
	}
	_, err := parseSemver(v)
	return err
}

// CheckRange returns an error when r is not a range eco's tools read.
func CheckRange(eco Ecosystem, r string) error {
	if eco == PyPI {
		_, err := parsePyRange(r)
		return err
	}
	_, err := parseNpmRange(r)
	return err
}

// RangeSplit reports whether a range allows versions before the fix and versions from it on.
func RangeSplit(eco Ecosystem, constraint string) (old, current bool, err error) {
	return RangeSplitAt(eco, constraint, FixedIn(eco))
}

// RangeSplitAt is RangeSplit around another fix (a call path's: FixedOn).
func RangeSplitAt(eco Ecosystem, constraint, fix string) (old, current bool, err error) {
	if eco == PyPI {
		set, err := parsePyRange(constraint)
		if err != nil {
			return false, false, err
		}
		t, err := parsePEP440(fix)
		if err != nil {
			return false, false, err
		}
		old, current = split(set, t, pyLowest(t.release), comparePy, explicitPrePy)
		return old, current, nil
	}
	set, err := parseNpmRange(constraint)
	if err != nil {
		return false, false, err
	}
	t, err := parseSemver(fix)
	if err != nil {
		return false, false, err
	}
	old, current = split(set, t, semLowest(t.major, t.minor, t.patch), compareSem, explicitPreSem)
	return old, current, nil
}

// RangeAllows reports whether the range allows the exact version v.
func RangeAllows(eco Ecosystem, constraint, v string) (bool, error) {
	if eco == PyPI {
		set, err := parsePyRange(constraint)
		if err != nil {
			return false, err
		}
		pv, err := parsePEP440(v)
		if err != nil {
			return false, err
		}
		return len(intersect(set, exactly(pv), comparePy)) > 0, nil
	}
	set, err := parseNpmRange(constraint)
	if err != nil {
		return false, err
	}
	sv, err := parseSemver(v)
	if err != nil {
		return false, err
	}
	return len(intersect(set, exactly(sv), compareSem)) > 0, nil
}

// relateToFix compares a version as a log record carries it with fix: c is -1, 0 or 1, and
// preOfFix says that v is a pre-release (or dev release) of fix itself. The version is read in
// eco's grammar, or failing that in the other one; ok is false when neither reads it.
func relateToFix(eco Ecosystem, v, fix string) (c int, preOfFix, ok bool) {
	v, fix = loose(v), loose(fix)
	py := func() (int, bool, bool) {
		return relate(parsePEP440, comparePy, func(f pyVersion) pyVersion { return pyLowest(f.release) }, v, fix)
	}
	sem := func() (int, bool, bool) {
		return relate(parseSemver, compareSem, func(f semVersion) semVersion { return semLowest(f.major, f.minor, f.patch) }, v, fix)
	}
	first, second := py, sem
	if eco != PyPI {
		first, second = sem, py
	}
	if c, pre, ok := first(); ok {
		return c, pre, true
	}
	return second()
}

// loose drops what records put before a version: spaces, = and a v.
func loose(v string) string {
	v = strings.TrimLeft(strings.TrimSpace(v), "=")
	return strings.TrimPrefix(strings.TrimPrefix(v, "v"), "V")
}

func relate[V any](parse func(string) (V, error), cmp func(a, b V) int, lowest func(V) V, v, fix string) (c int, preOfFix, ok bool) {
	pv, err := parse(v)
	if err != nil {
		return 0, false, false
	}
	pf, err := parse(fix)
	if err != nil {
		return 0, false, false
	}
	c = cmp(pv, pf)
	return c, c < 0 && cmp(pv, lowest(pf)) >= 0, true
}
