package sdkversion

import (
	"fmt"
	"strings"
)

// This file is the one answer to "does this Composio package, at this version, re-send a
// write on this call path?". doctor asks it of manifests and lock files, triage of log
// records, bundle of the executions it explains.

// Path is a call path whose retry behaviour may differ from release to release; a new path is
// a new constant and its rows in lines.tsv.
type Path string

const (
	// PathExecute is tools.execute and tools.proxy (the SDK's generated client retried them
	// like any other request before the fix).
	PathExecute Path = "tools.execute"
	// PathSession is a tool-router session's execute and proxy_execute (and the session's
	// custom and provider-wrapped tools): still sent through the retrying client by every
	// @composio/core up to 0.22, and by Python before 0.26.0.
	PathSession Path = "session.execute"
	// PathWorkbench is @composio/experimental's workbench execution, re-sent before 0.2.7.
	PathWorkbench Path = "workbench"
	// PathCLI is the Composio CLI's mutations, retried before 0.4.5.
	PathCLI Path = "cli"
	// PathOtherCreate is every other create through the SDK's generated client (connected
	// accounts and their links, auth configs, webhook endpoints and subscriptions, trigger
	// instances, MCP configs, custom toolkits): re-sent in every release read.
	PathOtherCreate Path = "other.create"
)

// The first releases that send a write on each path once, as lines.tsv says them (the code
// quotes them in advice; TestTheConstantsAreTheTable holds them to the table).
const (
	PythonSessionFixedIn     = "0.26.0"
	TypeScriptSessionFixedIn = "0.23.0"
	ExperimentalFixedIn      = "0.2.7"
	CLIFixedIn               = "0.4.5"

	SlimSDK         = "@composio/slim"
	ExperimentalSDK = "@composio/experimental"
	CLIPackage      = "@composio/cli"
)

// fixedIn is the first release of package pkg (as PackageRole normalises it) of eco that
// sends a write on path once (lines.tsv); "" when pkg does not carry that path, or no release
// read does.
func fixedIn(eco Ecosystem, pkg string, path Path) string {
	r, _ := fixOf(eco, pkg, path)
	return r.fixed
}

// FixedOn is the first release of pkg that sends a write on path once ("" when unknown).
func FixedOn(eco Ecosystem, pkg string, path Path) string { return fixedIn(eco, pkg, path) }

// Role is what a package is to Composio's retry story.
type Role int

const (
	RoleNone     Role = iota
	RoleSDK           // composio / @composio/core: the version decides
	RoleLegacy        // composio-core (PyPI, npm): the v1 SDK line (LegacyRetries says whether it re-sends)
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

// nonSDK are packages under Composio's names that neither send nor wrap tool calls: a
// schema converter the SDK depends on is not a provider.
var nonSDK = map[string]bool{"@composio/json-schema-to-zod": true}

// LegacyProvidersBefore is the first release of the Python provider packages (composio-openai,
// composio-crewai, composio-agno, composio-langchain, ...) on the current SDK: before it, the
// 0.7.x line is the legacy ComposioToolSet/Action API on legacy composio-core, which re-sends a
// timed-out execute (up to 3 attempts, the same x-request-id on each; docs/platform.md, "Who re-sends a write").
const LegacyProvidersBefore = "0.8.0"

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
	case nonSDK[name]:
		return RoleNone
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

// carriesNoFix reports whether pkg's version is on a line (lines.tsv) that re-sends on path
// whatever its number says: the 1.0.0 pre-release line of @composio/core branched before
// 0.23.0's session fix; PyPI composio's pre-renumbering 1.0.0 pre-releases carry no fix at all.
// Judged by what they contain, not by their order.
func carriesNoFix(eco Ecosystem, pkg, version string, path Path) bool {
	l, ok := lineOf(eco, pkg, version)
	return ok && (l.resends == "all" || Path(l.resends) == path)
}

// PreRenumbered reports whether version of pkg is on a pre-release line published before the
// package renumbered its releases, and so carries the old code whatever its number says: PyPI
// composio's 1.0.0 pre-releases (1.0.0rc1 to 1.0.0rc5) came out before the project numbered
// its releases 0.x again (lines.tsv).
func PreRenumbered(eco Ecosystem, pkg, version string) bool {
	l, ok := lineOf(eco, pkg, version)
	return ok && l.name == "pre-renumbering"
}

// LegacyRetries reports whether eco's legacy v1 SDK (composio-core) re-sends a timed-out
// write (lines.tsv): PyPI's did (the ComposioToolSet line, up to 3 attempts); npm's never had
// retry code.
func LegacyRetries(eco Ecosystem) bool {
	l, ok := lineOf(eco, packageNames[eco].legacy, "")
	return ok && l.resends != "none"
}

// RetriesWrites reports whether package pkg of eco at the exact version re-sends a timed-out
// write on path. ok is false when that cannot be told: pkg is not a package whose own version
// decides (a provider package, the generated client, anything else), or the version cannot be
// read.
func RetriesWrites(eco Ecosystem, pkg, version string, path Path) (retries, ok bool) {
	if PackageRole(eco, pkg) == RoleLegacy {
		return LegacyRetries(eco), true
	}
	row, carried := fixOf(eco, pkg, path)
	switch {
	case !carried:
		return false, false
	case row.never:
		return true, true // every release read re-sends on this path
	}
	fix := row.fixed
	if carriesNoFix(eco, pkg, version, path) {
		return true, true
	}
	c, _, ok := relateToFix(eco, version, fix)
	if !ok {
		return false, false
	}
	return c < 0, true
}

// AutoRetriesOn is AutoRetries for one call path: whether SDK pkg (see Lookup) at version
// re-sends writes made on path, and the one-line note that says so and names the path and
// the fixing release ("TypeScript @composio/core 0.21.0 retries session writes (fixed in
// 0.23.0)"). note is "" when it does not.
func AutoRetriesOn(pkg, version string, path Path) (retries bool, note string) {
	if path == PathExecute {
		return AutoRetries(pkg, version)
	}
	sdk, ok := Lookup(pkg)
	if !ok {
		return false, ""
	}
	fix := fixedIn(sdk.Eco, sdk.Name, path)
	if fix == "" {
		return false, ""
	}
	shown := strings.TrimSpace(version)
	what := map[Path]string{PathSession: "session writes", PathWorkbench: "workbench executions", PathCLI: "mutations"}[path]
	if carriesNoFix(sdk.Eco, sdk.Name, version, path) {
		return true, fmt.Sprintf("%s %s %s retries %s (a pre-release line without %s's fix)", sdk.Lang, sdk.Name, shown, what, fix)
	}
	c, preOfFix, ok := relateToFix(sdk.Eco, version, fix)
	if !ok || c >= 0 {
		return false, ""
	}
	if preOfFix {
		return true, fmt.Sprintf("%s %s %s (a pre-release of %s) may still retry %s", sdk.Lang, sdk.Name, shown, fix, what)
	}
	return true, fmt.Sprintf("%s %s %s retries %s (fixed in %s)", sdk.Lang, sdk.Name, shown, what, fix)
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
