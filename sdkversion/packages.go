package sdkversion

import "strings"

// This file is the one answer to "does this Composio package, at this version, re-send a
// write on this call path?". doctor asks it of manifests and lock files, triage of log
// records, bundle of the executions it explains.

// Path is a call path whose retry behaviour changed at a release. Only tools.execute and
// tools.proxy are known so far; a new path is a new constant and a row in fixedIn.
type Path string

const (
	// PathExecute is tools.execute and tools.proxy (the SDK's generated client retried them
	// like any other request before the fix).
	PathExecute Path = "tools.execute"
)

// fixedIn is the first release of an SDK package that sends a write on path once.
func fixedIn(eco Ecosystem, path Path) string {
	switch path {
	case PathExecute:
		return FixedIn(eco)
	}
	return ""
}

// Role is what a package is to Composio's retry story.
type Role int

const (
	RoleNone     Role = iota
	RoleSDK           // composio / @composio/core: the version decides
	RoleLegacy        // composio-core (PyPI, npm): the v1 SDK line, which always retried
	RoleClient        // the generated API client used directly: retries every request by default
	RoleProvider      // a provider package (composio-openai, @composio/langchain): its core SDK decides
)

// NormalizePy normalises a PyPI project name (PEP 503): lower case, runs of - _ . become -.
func NormalizePy(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(strings.TrimSpace(name)) {
		if c == '-' || c == '_' || c == '.' {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		dash = false
		b.WriteRune(c)
	}
	return b.String()
}

// packageNames are each ecosystem's Composio packages: the SDK, the legacy v1 SDK, the
// generated client, and the prefix of provider packages.
var packageNames = map[Ecosystem]struct{ sdk, legacy, client, provider string }{
	PyPI: {PythonSDK, "composio-core", "composio-client", "composio-"},
	NPM:  {TypeScriptSDK, "composio-core", "@composio/client", "@composio/"},
}

// PackageRole says what package name (as the registry spells it; PyPI names are normalised
// here) is in eco.
func PackageRole(eco Ecosystem, name string) Role {
	n, ok := packageNames[eco]
	if !ok {
		return RoleNone
	}
	if eco == PyPI {
		name = NormalizePy(name)
	}
	switch {
	case name == n.sdk:
		return RoleSDK
	case name == n.legacy:
		return RoleLegacy
	case name == n.client:
		return RoleClient
	case strings.HasPrefix(name, n.provider):
		return RoleProvider
	}
	return RoleNone
}

// RetriesWrites reports whether package pkg of eco at the exact version re-sends a timed-out
// write on path. ok is false when that cannot be told: pkg is not a package whose own version
// decides (a provider package, the generated client, anything else), or the version cannot be
// read.
func RetriesWrites(eco Ecosystem, pkg, version string, path Path) (retries, ok bool) {
	switch PackageRole(eco, pkg) {
	case RoleLegacy:
		return true, true
	case RoleSDK:
		fix := fixedIn(eco, path)
		if fix == "" {
			return false, false
		}
		c, _, ok := relateToFix(eco, version, fix)
		if !ok {
			return false, false
		}
		return c < 0, true
	}
	return false, false
}

// FromRecord names the SDK a log record's source hints (source.language as x-source sends it,
// then source.framework, then source.host) point at: an exact name first (Lookup), else a
// hint that mentions python, typescript, javascript or node. ok is false when none does.
func FromRecord(hints ...string) (sdk SDK, hint string, ok bool) {
	for _, h := range hints {
		if s, ok := Lookup(h); ok {
			return s, h, true
		}
	}
	for _, h := range hints {
		l := strings.ToLower(h)
		switch {
		case strings.Contains(l, "python"):
			s, _ := Lookup(PythonSDK)
			return s, h, true
		case strings.Contains(l, "typescript"), strings.Contains(l, "javascript"), strings.Contains(l, "node"):
			s, _ := Lookup(TypeScriptSDK)
			return s, h, true
		}
	}
	return SDK{}, "", false
}
