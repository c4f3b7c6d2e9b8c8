package doctor

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

// The generated API client (@composio/client, composio-client) retries every request twice by
// default, writes included; built with max retries 0 it sends each once. Whether a project's
// client re-sends is in the code that builds it.

// apiClientModules are the generated client's import names, by ecosystem.
var apiClientModules = map[Ecosystem]string{NPM: "@composio/client", PyPI: "composio_client"}

// clientDefaultRetries is the generated client's retries when it is built without a setting.
const clientDefaultRetries = 2

var (
	tsClientImportRE = regexp.MustCompile(`^\s*import\s+(?:(` + ident + `)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s*["']@composio/client["']`)
	tsClientRequire  = regexp.MustCompile(`(?:const|let|var)\s+(` + ident + `)\s*=\s*require\s*\(\s*["']@composio/client["']\s*\)`)
	pyClientImportRE = regexp.MustCompile(`^\s*from\s+composio_client\s+import\s+(.+)$`)
	pyClientModule   = regexp.MustCompile(`^\s*import\s+composio_client(?:\s+as\s+(` + ident + `))?\s*$`)
)

// clientNames are the names a file binds to the generated client's class (a module name ends
// with "."): the module's default export (import ComposioClient from …), its class Composio
// under its name or an alias, the module itself. The module's other names (its error classes
// ComposioError, APIError; BaseModel, omit) build no client.
func clientNames(f codeFile) []string {
	var out []string
	add := func(list string) {
		for part := range strings.SplitSeq(strings.Trim(list, "() "), ",") {
			if m := importNameRE.FindStringSubmatch(strings.TrimSpace(part)); m != nil && m[1] == "Composio" {
				out = append(out, cmp.Or(m[2], m[1]))
			}
		}
	}
	for _, raw := range f.raw {
		switch f.eco {
		case NPM:
			if m := tsClientImportRE.FindStringSubmatch(raw); m != nil {
				if m[1] != "" {
					out = append(out, m[1])
				}
				add(m[2])
			} else if m := tsClientRequire.FindStringSubmatch(raw); m != nil {
				out = append(out, m[1], m[1]+".")
			}
		case PyPI:
			if m := pyClientImportRE.FindStringSubmatch(raw); m != nil {
				add(m[1])
			} else if m := pyClientModule.FindStringSubmatch(raw); m != nil {
				out = append(out, cmp.Or(m[1], "composio_client")+".")
			}
		}
	}
	return out
}

// clientBuilds finds where the code builds the generated client and the retries it sets (-1
// when it sets none: clientDefaultRetries): uses of kind "api-client".
func clientBuilds(files []codeFile) []codeUse {
	var out []codeUse
	for _, f := range files {
		if _, ok := apiClientModules[f.eco]; !ok {
			continue
		}
		var alts []string
		for _, n := range clientNames(f) {
			if strings.HasSuffix(n, ".") {
				alts = append(alts, regexp.QuoteMeta(n)+ident)
			} else {
				alts = append(alts, regexp.QuoteMeta(n))
			}
		}
		for _, u := range buildsIn(f, alts, "api-client") {
			out = append(out, clientSends(f, files, u)...)
		}
	}
	return out
}

var (
	// boundRE is what a build's line binds before the build: NAME =, this.NAME =, a class
	// field (private readonly NAME =), NAME: Type =
	boundRE = regexp.MustCompile(`(?:^|[^\w$.])(?:(?:this|self)\s*\.\s*)?(` + ident + `)\s*(?::[^=]*)?=\s*(?:await\s+)?$`)
	// clientCallRE is a call through the client after its name: .logs.tools.retrieve(
	clientCallRE = regexp.MustCompile(`^\s*\.\s*((?:` + ident + `\s*\.\s*)*)(` + ident + `)\s*\(`)
	// readMethodRE are the generated client's methods that only read: a REST client names a
	// GET list or retrieve (retrieveEnum, list_all), and search, find, count and get read too
	readMethodRE = regexp.MustCompile(`^(?:list|retrieve|get|search|find|count|fetch)(?:[A-Z_]|$)`)
)

// clientSends follows the name a generated client's build binds, in the file that builds it:
// each call through it is a read (readMethodRE) or a write, which it re-sends as it re-sends
// every request. It returns the build as "api-client" when the name cannot be followed (none
// bound, exported, or used other than as NAME.member(…): returned, handed on, imported by
// another file) or when the build sets max retries 0; else "api-client-reads" (the build:
// every call reads) or an "api-client-send" per write (cited where it is sent).
func clientSends(f codeFile, files []codeFile, u codeUse) []codeUse {
	line := f.code[u.line-1]
	at := strings.Index(line, u.text)
	m := boundRE.FindStringSubmatch(line[:max(at, 0)])
	if u.retries == 0 || at < 0 || m == nil || exportedName(f, files, line, m[1]) {
		return []codeUse{u}
	}
	name := regexp.MustCompile(`(?:^|[^\w$.])((?:(?:this|self)\s*\.\s*)?` + regexp.QuoteMeta(m[1]) + `)\b`)
	var sends []codeUse
	for n, code := range f.code {
		if n == u.line-1 {
			continue
		}
		for _, loc := range name.FindAllStringSubmatchIndex(code, -1) {
			call := clientCallRE.FindStringSubmatch(code[loc[3]:])
			if call == nil {
				return []codeUse{u} // the name goes elsewhere: not followed
			}
			if !readMethodRE.MatchString(call[2]) {
				path := strings.Join(strings.Fields(strings.ReplaceAll(call[1], ".", " ")), ".")
				sends = append(sends, codeUse{rel: f.rel, line: f.lineAt(n, loc[3]), eco: f.eco, what: "api-client-send",
					text: strings.TrimPrefix(path+"."+call[2]+"()", "."), retries: u.retries})
			}
		}
	}
	if len(sends) == 0 {
		u.what = "api-client-reads"
		return []codeUse{u}
	}
	return sends
}

// exportedName reports whether the name a line binds may be used by another file: the line
// exports it, or (a module's top level in Python) another file imports the name.
func exportedName(f codeFile, files []codeFile, line, name string) bool {
	if strings.Contains(line, "export ") || strings.Contains(line, "module.exports") {
		return true
	}
	if f.eco != PyPI || strings.TrimLeft(line, " \t") != line {
		return false
	}
	imported := regexp.MustCompile(`\bimport\b.*\b` + regexp.QuoteMeta(name) + `\b`)
	for _, o := range files {
		if o.rel == f.rel || o.eco != f.eco {
			continue
		}
		if slices.ContainsFunc(o.code, imported.MatchString) {
			return true
		}
	}
	return false
}

// buildsIn finds where file f builds a client by a class one of alts (regular expressions)
// names, called (Python) or constructed with new (TypeScript), and the retries its call sets
// (max_retries / maxRetries; -1 when none): uses of kind what.
func buildsIn(f codeFile, alts []string, what string) []codeUse {
	if len(alts) == 0 {
		return nil
	}
	prefix := `(?:^|[^\w$.])`
	if f.eco == NPM {
		prefix = `\bnew\s+`
	}
	build := regexp.MustCompile(prefix + `(?:` + strings.Join(alts, "|") + `)\s*\(`)
	var out []codeUse
	for n, line := range f.code {
		loc := build.FindStringIndex(line)
		if loc == nil || strings.Contains(line[:loc[0]], "import") || strings.HasPrefix(strings.TrimSpace(line), "class ") {
			continue
		}
		retries := -1
		if r := maxRetriesRE.FindStringSubmatch(callArgs(f.code, n, loc[1])); r != nil {
			retries, _ = strconv.Atoi(r[1])
		}
		out = append(out, codeUse{rel: f.rel, line: n + 1, eco: f.eco, what: what,
			text: strings.TrimSpace(strings.TrimLeft(line[loc[0]:loc[1]], "=(,:[ \t")), retries: retries})
	}
	return out
}

// clientByBuild judges the generated client's findings by the clients the code builds under
// them: one built without max retries 0 re-sends a timed-out write (cited where it is built);
// when every one sets 0, each write is sent once. With none found in the code read under it, the
// project never sends through it: "not used" (an SDK that depends on it sends through its own
// paths, judged on their own); with no code read, the finding stays as the manifest left it.
func clientByBuild(found []Finding, uses []codeUse, read map[Ecosystem][]string) {
	for i := range found {
		f := &found[i]
		if f.RetriesWrites != nil || packageRole(f.Ecosystem, f.Package) != roleClient {
			continue
		}
		var sent, retrying, once, reads *codeUse
		for k := range uses {
			u := &uses[k]
			if !strings.HasPrefix(u.what, "api-client") || u.eco != f.Ecosystem || !under(u.rel, f.File) {
				continue
			}
			switch {
			case u.what == "api-client-send" && sent == nil:
				sent = u
			case u.what == "api-client-reads" && reads == nil:
				reads = u
			case u.what == "api-client" && u.retries != 0 && retrying == nil:
				retrying = u
			case u.what == "api-client" && u.retries == 0 && once == nil:
				once = u
			}
		}
		set := func(u *codeUse) string {
			if u.retries < 0 {
				return fmt.Sprintf("without max retries 0 (it retries %d times by default)", clientDefaultRetries)
			}
			return fmt.Sprintf("with max retries %d", u.retries)
		}
		switch {
		case sent != nil || retrying != nil:
			f.RetriesWrites, f.Use = new(true), UseUsed
			f.Fix = "build it with max retries 0, or use " + sdkName(f.Ecosystem) + " >= " + sdkversion.FixedIn(f.Ecosystem)
			if sent != nil {
				f.Evidence = sent.at()
				f.Reason = fmt.Sprintf("the generated API client, built %s, sends a write at %s (%s), and re-sends it when it "+
					"times out as it does every request", set(sent), f.Evidence, sent.text)
				break
			}
			f.Evidence = retrying.at()
			f.Reason = fmt.Sprintf("the generated API client is built at %s %s, and re-sends a timed-out write as it does every "+
				"request", f.Evidence, set(retrying))
		case once != nil:
			f.RetriesWrites, f.Use = new(false), UseUsed
			f.Evidence = once.at()
			f.Reason = "every generated API client the code builds sets max retries 0 (" + f.Evidence + "): each write is sent once"
			if reads != nil {
				f.Reason = "the generated API client built at " + f.Evidence + " sets max retries 0, and the one at " + reads.at() +
					" only reads: each write is sent once"
			}
		case reads != nil:
			f.RetriesWrites, f.Use = new(false), UseUsed
			f.Evidence = reads.at()
			f.Reason = "the generated API client built at " + f.Evidence + " only reads (every call through it lists or " +
				"retrieves): a read sent again changes nothing"
		case codeUnder(read[f.Ecosystem], f.File):
			f.RetriesWrites, f.Use = new(false), UseNotUsed
			f.Reason = "present, not used: the code under " + dirOf(f.File) + " never builds the generated API client " +
				"(an SDK that depends on it sends through its own paths, judged on their own)"
		}
	}
}
