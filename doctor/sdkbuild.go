package doctor

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

// The SDK's client is built where the code calls its class (Composio(…), new Composio({…})).
// Python composio hands the max_retries it is built with to the HTTP client that tools.execute,
// the proxy, sessions and every other call send through, so a project whose every client sets
// max_retries=0 sends each write once, whatever the version's default; @composio/core takes a
// maxRetries setting and drops it (sdkversion.RetriesOption, lines.tsv).

var (
	pySDKFromRE   = regexp.MustCompile(`(?m)^\s*from\s+composio\s+import\s+(\([^)]*\)|[^\n]+)`)
	pySDKModuleRE = regexp.MustCompile(`(?m)^\s*import\s+composio(?:\s+as\s+(` + ident + `))?\s*$`)
	tsSDKFromRE   = regexp.MustCompile(`import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["']@composio/core["']`)
	tsSDKStarRE   = regexp.MustCompile(`import\s+\*\s+as\s+(` + ident + `)\s+from\s*["']@composio/core["']`)
	tsSDKReqRE    = regexp.MustCompile(`(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\s*\(\s*["']@composio/core["']\s*\)`)
)

// sdkClassNames are the names a file calls the SDK's client class by: Composio, an alias
// (Composio as ComposioClient), or the module's attribute (composio.Composio, sdk.Composio).
func sdkClassNames(f codeFile) []string {
	raw := strings.Join(f.raw, "\n")
	var out []string
	add := func(list string) {
		for part := range strings.SplitSeq(strings.Trim(list, "() \n"), ",") {
			if m := importNameRE.FindStringSubmatch(strings.TrimSpace(part)); m != nil && m[1] == "Composio" {
				out = append(out, regexp.QuoteMeta(m[1]))
				if m[2] != "" || m[3] != "" {
					out[len(out)-1] = regexp.QuoteMeta(m[2] + m[3])
				}
			}
		}
	}
	switch f.eco {
	case PyPI:
		for _, m := range pySDKFromRE.FindAllStringSubmatch(raw, -1) {
			add(m[1])
		}
		for _, m := range pySDKModuleRE.FindAllStringSubmatch(raw, -1) {
			out = append(out, regexp.QuoteMeta(cmp.Or(m[1], "composio"))+`\s*\.\s*Composio`)
		}
	case NPM:
		for _, m := range tsSDKFromRE.FindAllStringSubmatch(raw, -1) {
			add(m[1])
		}
		for _, m := range tsSDKReqRE.FindAllStringSubmatch(raw, -1) {
			add(m[1])
		}
		for _, m := range tsSDKStarRE.FindAllStringSubmatch(raw, -1) {
			out = append(out, regexp.QuoteMeta(m[1])+`\s*\.\s*Composio`)
		}
	}
	return out
}

// sdkBuilds finds where the code builds the SDK's client and the retries option it sets there
// (-1 when none: the SDK's default): uses of kind "sdk-client".
func sdkBuilds(files []codeFile) []codeUse {
	var out []codeUse
	for _, f := range files {
		out = append(out, buildsIn(f, sdkClassNames(f), "sdk-client")...)
	}
	return out
}

// sdkByBuild judges the SDK's retrying findings by the clients the code under them builds:
// where the SDK hands its retries option to its HTTP client and every client built sets 0,
// each write is sent once on every path; where the SDK drops the option, a client built with
// 0 is said not to help.
func sdkByBuild(found []Finding, uses []codeUse) {
	for i := range found {
		f := &found[i]
		if f.RetriesWrites == nil || !*f.RetriesWrites || packageRole(f.Ecosystem, f.Package) != roleSDK ||
			f.CallPath != "" && f.CallPath != CallToolsExecute && f.CallPath != CallSession {
			continue
		}
		name, honoured, source, ok := sdkversion.RetriesOption(f.Ecosystem, f.Package, f.Version)
		if !ok {
			continue
		}
		var zero, other *codeUse
		for k := range uses {
			u := &uses[k]
			if u.what != "sdk-client" || u.eco != f.Ecosystem || !under(u.rel, f.File) {
				continue
			}
			if u.retries == 0 && zero == nil {
				zero = u
			} else if u.retries != 0 && other == nil {
				other = u
			}
		}
		switch {
		case zero == nil:
		case !honoured:
			f.Reason += fmt.Sprintf("; %s: 0 where the client is built (%s) does not stop it: %s takes the setting and does not "+
				"pass it to its HTTP client (%s)", name, zero.at(), f.Package, source)
		case other != nil:
			f.Reason += fmt.Sprintf("; the client built at %s sets %s=0, the one at %s does not", zero.at(), name, other.at())
		default:
			f.RetriesWrites, f.may, f.Fix = new(false), false, ""
			what := "tools.execute and the proxy send"
			if f.CallPath == CallSession {
				what = "sessions send"
			}
			f.Reason = fmt.Sprintf("every client the code builds sets %s=0 (%s): %s hands it to the HTTP client its %s "+
				"through, so each write is sent once (%s)", name, zero.at(), f.Package, what, source)
		}
	}
}

// sdkSendsOnce reports, per ecosystem, whether the code builds the SDK's client and every
// client built sets the retries option to 0 where the SDK honours it: then no create goes
// through a retrying client either (otherCreateNotes).
func sdkSendsOnce(uses []codeUse) map[Ecosystem]bool {
	out := map[Ecosystem]bool{}
	seen := map[Ecosystem]bool{}
	for _, u := range uses {
		if u.what != "sdk-client" {
			continue
		}
		pkg := sdkversion.TypeScriptSDK
		if u.eco == PyPI {
			pkg = sdkversion.PythonSDK
		}
		_, honoured, _, ok := sdkversion.RetriesOption(u.eco, pkg, "")
		once := ok && honoured && u.retries == 0
		if !seen[u.eco] {
			seen[u.eco], out[u.eco] = true, once
		} else {
			out[u.eco] = out[u.eco] && once
		}
	}
	return out
}
