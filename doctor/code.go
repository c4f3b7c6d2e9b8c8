package doctor

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

// doctor also reads code (.py, .ts, .tsx, .js, .mjs, .cjs): where a project uses tool-router
// sessions, the session threshold applies to its SDK version (sessions were re-sent by every
// @composio/core before 0.23.0 and Python composio before 0.26.0, long after tools.execute was
// fixed); where it wraps tools in LangChain's ToolRetryMiddleware, a failed tool call (a write
// included) is retried by default.

// codeUse is one line of code that matters.
type codeUse struct {
	rel  string // file, slash path relative to root
	line int
	eco  Ecosystem
	what string // "session" or "middleware"
	text string // the pattern found
}

// maxCodeSize bounds a code file doctor reads (generated bundles are skipped).
const maxCodeSize = 2 << 20

// codeEcosystem says which ecosystem's SDK a code file calls, "" when it is not code doctor
// reads.
func codeEcosystem(rel string) Ecosystem {
	switch strings.ToLower(path.Ext(rel)) {
	case ".py":
		return PyPI
	case ".ts", ".tsx", ".js", ".mjs", ".cjs", ".mts", ".cts":
		if strings.HasSuffix(rel, ".d.ts") || strings.HasSuffix(rel, ".min.js") {
			return ""
		}
		return NPM
	}
	return ""
}

var sessionPatterns = []string{"composio.create(", ".sessions.create(", "composio.use(", "toolRouter", "tool_router",
	"session.execute(", "proxyExecute(", "proxy_execute(", "SessionContext"}

// executePath are the calls of tools.execute's path (fixed in 0.14 / 0.16): a proxyExecute on
// tools, not on a session, is not session use.
var executePath = []string{"tools.proxyExecute(", "tools.proxy_execute(", "tools.proxy("}

// codeOnly is a line without its comment and with the text of its string literals blanked, so
// that a pattern in a comment or a string ("call session.execute( later") is not use.
func codeOnly(line string, eco Ecosystem) string {
	b := []byte(line)
	var quote byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
				continue
			}
			if c == quote {
				quote = 0
				continue
			}
			b[i] = ' '
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '#' && eco == PyPI, c == '/' && i+1 < len(b) && b[i+1] == '/' && eco == NPM:
			return string(b[:i])
		}
	}
	return string(b)
}

var middlewarePatterns = []string{"ToolRetryMiddleware", "toolRetryMiddleware"}

// scanCode finds session use and the retry middleware in one code file.
func scanCode(rel string, eco Ecosystem, data []byte) []codeUse {
	var out []codeUse
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := codeOnly(sc.Text(), eco) // a comment or a string that mentions it uses nothing
		if strings.TrimSpace(line) == "" {
			continue
		}
		for _, p := range sessionPatterns {
			if strings.Contains(line, p) && !seen["session"] {
				if (p == "proxyExecute(" || p == "proxy_execute(") && containsAnyOf(line, executePath) {
					continue // tools.proxyExecute: the execute path
				}
				seen["session"] = true
				out = append(out, codeUse{rel: rel, line: n, eco: eco, what: "session", text: p})
			}
		}
		for _, p := range middlewarePatterns {
			if strings.Contains(line, p) && !seen["middleware"] {
				seen["middleware"] = true
				out = append(out, codeUse{rel: rel, line: n, eco: eco, what: "middleware", text: p})
			}
		}
	}
	return out
}

// codeFindings adds what the code says to the manifest findings: the LangChain middleware, and
// for each SDK version found, the session threshold when the project uses sessions in that
// SDK's language.
func codeFindings(uses []codeUse, found []Finding) []Finding {
	var out []Finding
	var sessions []*codeUse
	for i := range uses {
		u := &uses[i]
		switch u.what {
		case "middleware":
			out = append(out, Finding{File: fmt.Sprintf("%s:%d", u.rel, u.line), Ecosystem: u.eco, Package: "langchain " + u.text,
				RetriesWrites: new(true), CallPath: CallMiddleware, Evidence: fmt.Sprintf("%s:%d", u.rel, u.line),
				Reason: "LangChain's " + u.text + " retries a failed tool call (2 retries, about 1 s then 2 s apart), writes included: one email can go out three times",
				Fix:    "exclude write tools from it (tools=[...reads]), or set retry_on to errors that prove nothing ran"})
		case "session":
			sessions = append(sessions, u)
		}
	}
	for _, f := range found {
		u := sessionUnder(sessions, f)
		if u == nil || f.Version == "" && f.Constraint == "" {
			continue
		}
		pkg := f.Package
		if f.Ecosystem == PyPI {
			pkg = sdkversion.NormalizePy(pkg)
		}
		fix := sdkversion.FixedOn(f.Ecosystem, pkg, sdkversion.PathSession)
		if fix == "" {
			continue
		}
		what := f.Package + " " + f.Version + " re-sends"
		fixText := "upgrade " + f.Package + " to " + fix + " or later"
		retries, ok := false, false
		if f.Version != "" {
			retries, ok = sdkversion.RetriesWrites(f.Ecosystem, pkg, f.Version, sdkversion.PathSession)
			if v, err := semverOrPEP(f.Ecosystem, f.Version); err == nil && v > 0 && retries {
				fixText = "use a release that carries the fix: " + fix + " or a later final release (" + f.Version + " is a pre-release line without it)"
			}
		}
		if !ok && f.Version == "" && f.LockFile == "" {
			// a range: a finding when it admits a release that re-sends (a lock would decide)
			if old, _, err := sdkversion.RangeSplitAt(f.Ecosystem, f.Constraint, fix); err == nil && old {
				retries, ok = true, true
				what = f.Package + " " + f.Constraint + " can install a release before " + fix + ", which re-sends"
			}
		}
		if !ok || !retries {
			continue
		}
		out = append(out, Finding{File: f.File, Ecosystem: f.Ecosystem, Package: f.Package, Version: f.Version, Constraint: f.Constraint,
			RetriesWrites: new(true), LockFile: f.LockFile, CallPath: CallSession, Evidence: fmt.Sprintf("%s:%d", u.rel, u.line),
			Reason: fmt.Sprintf("the project uses tool-router sessions (%s:%d, %s), and %s a session write that timed out (session writes are sent once from %s)",
				u.rel, u.line, u.text, what, fix),
			Fix: fixText})
	}
	return out
}

// semverOrPEP compares a version with its fix's order: 1 when it orders after it (a
// pre-release line that still re-sends), else 0.
func semverOrPEP(eco Ecosystem, v string) (int, error) {
	fix := sdkversion.FixedOn(eco, sdkversion.TypeScriptSDK, sdkversion.PathSession)
	if eco == PyPI {
		fix = sdkversion.FixedOn(eco, sdkversion.PythonSDK, sdkversion.PathSession)
		return sdkversion.ComparePEP440(v, fix)
	}
	return sdkversion.CompareSemver(v, fix)
}

func containsAnyOf(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// sessionUnder is the first session use of f's ecosystem in the directory of f's manifest or
// lock file, or below it: the project that file governs.
func sessionUnder(uses []*codeUse, f Finding) *codeUse {
	dir := path.Dir(f.File)
	for _, u := range uses {
		if u.eco == f.Ecosystem && (dir == "." || strings.HasPrefix(u.rel, dir+"/")) {
			return u
		}
	}
	return nil
}
