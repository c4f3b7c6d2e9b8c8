package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
	"github.com/exectriage/exectriage/triage"
)

// doctor also reads code (.py, .ts, .tsx, .js, .mjs, .cjs) to say which of a retrying SDK's
// call paths the project really uses, and where it sends: tools.execute and the proxy
// (with provider-wrapped tools from tools.get and handleToolCalls), tool-router sessions
// (execute, proxy, meta and session tools; a session used only for its MCP address runs its
// tools over MCP, where the SDK's retries do not apply), the legacy ComposioToolSet API, and
// LangChain's ToolRetryMiddleware (which tools it wraps and how many times it retries). The
// client is followed through assignments, typed parameters, factory functions and imports
// across files, by careful tokenising (comments and the text of strings are blanked first).

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

// codeFile is one code file as doctor reads it.
type codeFile struct {
	rel  string
	eco  Ecosystem
	code []string // the lines, comments removed and the text of strings blanked (quotes kept)
	raw  []string // the lines as written (a middleware's tool names are strings)
}

// readCode splits a code file into its lines, as written and as code only.
func readCode(rel string, eco Ecosystem, data []byte) codeFile {
	text := string(data)
	code := stripCode(text, eco)
	if eco == NPM {
		code = strings.ReplaceAll(code, "?.", " .") // optional chaining: session?.url is session.url
	}
	return codeFile{rel: rel, eco: eco, code: strings.Split(code, "\n"), raw: strings.Split(text, "\n")}
}

// stripCode blanks comments (# in Python; // and /* */ in TypeScript and JavaScript) and the
// text inside string literals (Python's triple-quoted ones and template literals across
// lines), keeping every newline and quote, so a pattern in a comment or a string ("call
// session.execute( later") is not use and line numbers stay true.
func stripCode(s string, eco Ecosystem) string {
	b := []byte(s)
	const (
		code = iota
		str
		lineComment
		blockComment
	)
	state := code
	var quote byte
	triple := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch state {
		case code:
			switch {
			case c == '#' && eco == PyPI, c == '/' && i+1 < len(b) && b[i+1] == '/' && eco == NPM:
				state = lineComment
				b[i] = ' '
			case c == '/' && i+1 < len(b) && b[i+1] == '*' && eco == NPM:
				state = blockComment
				b[i], b[i+1] = ' ', ' '
				i++
			case c == '"' || c == '\'' || c == '`' && eco == NPM:
				quote, state = c, str
				triple = eco == PyPI && i+2 < len(b) && b[i+1] == c && b[i+2] == c
				if triple {
					i += 2
				}
			}
		case str:
			switch {
			case c == '\\' && i+1 < len(b):
				b[i] = ' '
				if b[i+1] != '\n' {
					b[i+1] = ' '
				}
				i++
			case c == quote && (!triple || i+2 < len(b) && b[i+1] == quote && b[i+2] == quote):
				if triple {
					i += 2
				}
				state = code
			case c == '\n':
				if !triple && quote != '`' {
					state = code // an unclosed string ends with its line
				}
			default:
				b[i] = ' '
			}
		case lineComment:
			if c == '\n' {
				state = code
			} else {
				b[i] = ' '
			}
		case blockComment:
			if c == '*' && i+1 < len(b) && b[i+1] == '/' {
				b[i], b[i+1] = ' ', ' '
				i++
				state = code
			} else if c != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// What a name holds, as far as doctor follows it.
type valueKind int

const (
	kindNone valueKind = iota
	kindClient
	kindSession
)

const ident = `[A-Za-z_$][\w$]*`

var (
	// NAME [: type] = [await] <right-hand side>, the last name of a dotted target (this.x, self.x)
	bindRE = regexp.MustCompile(`(` + ident + `)\s*(?::\s*[\w$.<>\[\]|, ]+?\s*)?=\s*(?:await\s+)?(.+)$`)
	// a parameter or field typed as the client: composio: Composio
	typedRE = regexp.MustCompile(`(` + ident + `)\s*\??:\s*(?:typing\.)?(?:Optional\[)?(Composio|ToolRouterSession)\b`)
	// return <right-hand side>
	returnRE = regexp.MustCompile(`\breturn\s+(?:await\s+)?(.+)$`)
	// the name a function header or a one-line arrow or lambda defines
	funcHeaderRE = regexp.MustCompile(
		`(?:\bdef\s+(` + ident + `)\s*\(|\bfunction\s*\*?\s*(` + ident + `)\s*\(|(` + ident + `)\s*=\s*(?:async\s*)?(?:\([^)]*\)|` + ident + `)\s*(?::\s*[^=]+)?=>|(` + ident + `)\s*=\s*(?:async\s+)?function\b|(` + ident + `)\s*=\s*lambda\b|^\s*(?:(?:public|private|protected|static|async)\s+)*(` + ident + `)\s*\([^)]*\)\s*(?::\s*[^{]+)?\{)`,
	)
	// a client constructed: new Composio( / Composio(
	newClientRE = regexp.MustCompile(`^(?:new\s+)?(?:` + ident + `\.)*Composio\s*\(`)
	// a session created on a client: <recv>.create( / .use( / .toolRouter.create( ...
	// (the receiver may be a call of a client factory: getComposio().toolRouter.use(id))
	createRE = regexp.MustCompile(
		`(` + ident + `)(\s*\([^()]*\))?\s*\.\s*(?:create|use|(?:toolRouter|tool_router)\s*\.\s*(?:create|use)|sessions\s*\.\s*create|experimental\s*\.\s*create|experimental\s*\.\s*(?:toolRouter\s*\.\s*createSession|tool_router\s*\.\s*create_session))\s*\(`,
	)
	createSessionRE = regexp.MustCompile(`^(` + ident + `)\s*\.\s*createSession\s*\(`)
	// a call of a function: NAME(
	callRE = regexp.MustCompile(`^(?:` + ident + `\.)*(` + ident + `)\s*\(`)
	// a bare name
	nameRE = regexp.MustCompile(`^(` + ident + `)\s*[;,)]?\s*$`)
	// imports: TypeScript { a, b as c } and default; Python from m import a, b as c
	tsImportRE   = regexp.MustCompile(`(?:import|export)\s+(?:type\s+)?(?:(` + ident + `)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\b`)
	tsRequireRE  = regexp.MustCompile(`(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\s*\(`)
	pyImportRE   = regexp.MustCompile(`\bfrom\s+[\w.]+\s+import\s+(\([^)]*\)|[^\n]+)`)
	importNameRE = regexp.MustCompile(`(` + ident + `)(?:\s+as\s+(` + ident + `)|\s*:\s*(` + ident + `))?`)
)

// rhsKind is the kind of value an expression gives, given the names known so far.
func rhsKind(rhs string, names, funcs map[string]valueKind) valueKind {
	rhs = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rhs), "await "))
	if newClientRE.MatchString(rhs) {
		return kindClient
	}
	// composio.createSession({headers}) is the client again, with its own request options
	if m := createSessionRE.FindStringSubmatch(rhs); m != nil && names[m[1]] == kindClient {
		return kindClient
	}
	if m := createRE.FindStringSubmatch(rhs); m != nil && strings.Index(rhs, m[0]) <= 64 && isClient(m, names, funcs) {
		return kindSession
	}
	if m := callRE.FindStringSubmatch(rhs); m != nil && funcs[m[1]] != kindNone {
		return funcs[m[1]]
	}
	if m := nameRE.FindStringSubmatch(rhs); m != nil {
		return names[m[1]]
	}
	return kindNone
}

// isClient reports whether a createRE match's receiver is a client: a name that holds one, or
// a call of a function that returns one.
func isClient(m []string, names, funcs map[string]valueKind) bool {
	if m[2] != "" {
		return funcs[m[1]] == kindClient
	}
	return names[m[1]] == kindClient
}

// project is what doctor knows of one ecosystem's code across files.
type project struct {
	files []codeFile
	// exported: names bound at a file's top level (module-level in Python, top-level const
	// in TypeScript) and functions, by kind: what another file may import.
	exported map[string]valueKind
	funcs    map[string]valueKind
	// per file: the names it binds or imports, by kind
	names []map[string]valueKind
}

// follow works out, to a fixed point, which names hold a client or a session in each file and
// which functions return one.
func follow(files []codeFile) *project {
	p := &project{
		files:    files,
		exported: map[string]valueKind{},
		funcs:    map[string]valueKind{},
		names:    make([]map[string]valueKind, len(files)),
	}
	// what each line says, read once: the rounds below only propagate kinds
	type fact struct {
		fn        string // the function this line is in (its header's name, or the last one seen)
		fnBody    string // a one-line arrow's or lambda's body
		bindName  string
		bindRHS   string
		exported  bool
		typed     [][]string
		returnRHS string
		deflt     string // export default <rhs>
	}
	facts := make([][]fact, len(files))
	imps := make([][][2]string, len(files))
	for fi, f := range files {
		p.names[fi] = map[string]valueKind{"composio": kindClient} // the canonical name, however it arrives
		imps[fi] = imports(strings.Join(f.code, "\n"), f.eco)
		fn := ""
		for _, line := range f.code {
			var ft fact
			if mayHeader(line) {
				if m := funcHeaderRE.FindStringSubmatch(line); m != nil {
					for _, g := range m[1:] {
						if g != "" && g != "if" && g != "for" && g != "while" && g != "switch" && g != "catch" {
							fn = g
							break
						}
					}
					// a one-line arrow: const getClient = () => new Composio()
					if _, body, ok := strings.Cut(line, "=>"); ok {
						ft.fnBody = body
					} else if _, body, ok := strings.Cut(line, "lambda"); ok {
						if _, e, ok := strings.Cut(body, ":"); ok {
							ft.fnBody = e
						}
					}
				}
			}
			ft.fn = fn
			if strings.Contains(line, "Composio") || strings.Contains(line, "ToolRouterSession") {
				ft.typed = typedRE.FindAllStringSubmatch(line, -1)
			}
			if strings.Contains(line, "=") && !strings.Contains(line, "==") {
				if m := bindRE.FindStringSubmatch(line); m != nil {
					ft.bindName, ft.bindRHS = m[1], m[2]
					ft.exported = line == strings.TrimLeft(line, " \t") || strings.HasPrefix(strings.TrimSpace(line), "export ")
				}
			}
			if strings.Contains(line, "return") {
				if m := returnRE.FindStringSubmatch(line); m != nil {
					ft.returnRHS = m[1]
				}
			}
			if _, rhs, ok := strings.Cut(line, "export default"); ok {
				ft.deflt = rhs
			}
			facts[fi] = append(facts[fi], ft)
		}
	}
	for range 6 {
		changed := false
		set := func(m map[string]valueKind, k string, v valueKind) {
			if v != kindNone && m[k] < v {
				m[k] = v
				changed = true
			}
		}
		for fi := range files {
			names := p.names[fi]
			for _, imp := range imps[fi] {
				if v := p.exported[imp[0]]; v != kindNone {
					set(names, imp[1], v)
					set(p.exported, imp[1], v) // a module's imports are its re-exports (__init__.py, index.ts)
				}
				if v := p.funcs[imp[0]]; v != kindNone {
					set(p.funcs, imp[1], v)
				}
			}
			for _, ft := range facts[fi] {
				if ft.fnBody != "" && ft.fn != "" {
					set(p.funcs, ft.fn, rhsKind(ft.fnBody, names, p.funcs))
				}
				for _, m := range ft.typed {
					k := kindClient
					if m[2] == "ToolRouterSession" {
						k = kindSession
					}
					set(names, m[1], k)
				}
				if ft.bindName != "" {
					v := rhsKind(ft.bindRHS, names, p.funcs)
					set(names, ft.bindName, v)
					if v != kindNone && ft.exported {
						set(p.exported, ft.bindName, v)
					}
				}
				if ft.returnRHS != "" && ft.fn != "" {
					set(p.funcs, ft.fn, rhsKind(ft.returnRHS, names, p.funcs))
				}
				if ft.deflt != "" {
					set(p.exported, "default", rhsKind(ft.deflt, names, p.funcs))
				}
			}
		}
		if !changed {
			break
		}
	}
	return p
}

// mayHeader reports whether a line can be a function header (a cheap test before the
// expression).
func mayHeader(line string) bool {
	return strings.Contains(line, "def ") || strings.Contains(line, "function") || strings.Contains(line, "=>") ||
		strings.Contains(line, "lambda") || strings.HasSuffix(strings.TrimRight(line, " \t"), "{")
}

// imports lists the names a file imports as [exported name, local name] pairs; a default
// import is ["default", local].
func imports(code string, eco Ecosystem) [][2]string {
	var out [][2]string
	add := func(list string) {
		for part := range strings.SplitSeq(list, ",") {
			m := importNameRE.FindStringSubmatch(strings.TrimSpace(part))
			if m == nil {
				continue
			}
			local := m[1]
			if m[2] != "" {
				local = m[2]
			} else if m[3] != "" {
				local = m[3]
			}
			out = append(out, [2]string{m[1], local})
		}
	}
	if eco == PyPI {
		for _, m := range pyImportRE.FindAllStringSubmatch(code, -1) {
			add(strings.Trim(m[1], "()"))
		}
		return out
	}
	for _, m := range tsImportRE.FindAllStringSubmatch(code, -1) {
		if m[1] != "" {
			out = append(out, [2]string{"default", m[1]})
		}
		add(m[2])
	}
	for _, m := range tsRequireRE.FindAllStringSubmatch(code, -1) {
		add(m[1])
	}
	return out
}

// codeUse is one line of code that matters.
type codeUse struct {
	rel  string // file, slash path relative to root
	line int
	eco  Ecosystem
	// what: "execute" (tools.execute, the proxy, provider-wrapped tools), "workbench" (a file
	// that imports @composio/experimental), "legacy" (the legacy
	// ComposioToolSet API's sending calls), "session" (a session's sending call), "session?"
	// (a session created whose calls could not be followed), "mcp" (a session's MCP address),
	// "middleware"
	what string
	text string // the call found
	// middleware only: the retries it makes and the tools it wraps (nil: all)
	retries int
	tools   []string
}

func (u *codeUse) at() string { return fmt.Sprintf("%s:%d", u.rel, u.line) }

var (
	executeRE = regexp.MustCompile(
		`\.\s*tools\s*\.\s*(execute|proxyExecute|proxy_execute|proxy)\s*\(|\b(handleToolCalls|handle_tool_calls|executeToolCall|execute_tool_call)\s*\(`,
	)
	toolsGetRE = regexp.MustCompile(`(` + ident + `)\s*\.\s*tools\s*\.\s*get\s*\(`)
	legacyRE   = regexp.MustCompile(
		`\b(execute_action|executeAction|get_tools|getTools|get_actions|getActions|handle_tool_calls|handleToolCall|execute_request|executeRequest)\s*\(`,
	)
	// a call on a name: recv.method( or recv.mcp
	memberRE      = regexp.MustCompile(`(` + ident + `)\s*\.\s*(` + ident + `)\s*(\()?`)
	destructureRE = regexp.MustCompile(`\{([^}]*)\}\s*=\s*(?:await\s+)?(` + ident + `)\s*;?\s*$`)
	middlewareRE  = regexp.MustCompile(`\b(ToolRetryMiddleware|toolRetryMiddleware)\s*\(`)
	maxRetriesRE  = regexp.MustCompile(`\b(?:max_retries|maxRetries)\s*[=:]\s*(\d+)`)
	toolsArgRE    = regexp.MustCompile(`\btools\s*[=:]\s*\[([^\]]*)\]`)
)

var sessionSends = map[string]bool{
	"execute":       true,
	"proxyExecute":  true,
	"proxy_execute": true,
	"executeMeta":   true,
	"execute_meta":  true,
	"tools":         true,
}

// scanProject finds the uses in every file of one ecosystem's code.
func scanProject(files []codeFile) []codeUse {
	p := follow(files)
	var out []codeUse
	for fi, f := range files {
		names := p.names[fi]
		type sess struct {
			line              int
			sends, mcp, other bool
			escaped, returned bool
			re                *regexp.Regexp // the name as a word
		}
		sessions := map[string]*sess{}
		var order []string
		for n, line := range f.code {
			ln := n + 1
			use := func(what, text string) {
				out = append(out, codeUse{rel: f.rel, line: ln, eco: f.eco, what: what, text: strings.TrimSpace(text)})
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			// (each expression only where a cheap test says it can match: doctor reads whole trees)
			tools := strings.Contains(line, "tools")
			if m := ""; tools || strings.Contains(line, "andle") || strings.Contains(line, "oolCall") ||
				strings.Contains(line, "ool_call") {
				if m = executeRE.FindString(line); m != "" && !defines(line, m) {
					use("execute", m)
				} else if m := toolsGetRE.FindStringSubmatch(line); tools && m != nil && names[m[1]] == kindClient {
					use("execute", m[0])
				}
			}
			if raw := f.raw[n]; strings.Contains(raw, "@composio/experimental") &&
				(strings.Contains(raw, "import") || strings.Contains(raw, "require(")) {
				use("workbench", "@composio/experimental") // the package's paths are reachable from here
			}
			if containsAnyOf(line, legacyHints) {
				if m := legacyRE.FindString(line); m != "" {
					use("legacy", m)
				}
			}
			if m := middlewareIn(line); m != nil {
				u := codeUse{rel: f.rel, line: ln, eco: f.eco, what: "middleware", text: line[m[2]:m[3]], retries: 2}
				args := callArgs(f.raw, n, m[1])
				if r := maxRetriesRE.FindStringSubmatch(args); r != nil {
					u.retries, _ = strconv.Atoi(r[1])
				}
				if t := toolsArgRE.FindStringSubmatch(args); t != nil {
					u.tools = []string{}
					for x := range strings.SplitSeq(t[1], ",") {
						if x = strings.Trim(strings.TrimSpace(x), `"'`+"`"); x != "" {
							u.tools = append(u.tools, x)
						}
					}
				}
				out = append(out, u)
			}
			// sessions: created, then what is done with them
			created := false
			if m := bindIn(line); m != nil && rhsKind(m[2], names, p.funcs) == kindSession {
				if sessions[m[1]] == nil {
					order = append(order, m[1])
				}
				sessions[m[1]] = &sess{line: ln, re: wordRE(m[1])}
				created = true
			}
			for _, m := range typedIn(line) {
				if m[2] == "ToolRouterSession" && sessions[m[1]] == nil {
					sessions[m[1]] = &sess{line: ln, re: wordRE(m[1])}
					order = append(order, m[1])
					created = true
				}
			}
			if !created && (strings.Contains(line, "create") || strings.Contains(line, "use") || strings.Contains(line, "Session")) {
				if m := createRE.FindStringSubmatch(line); m != nil && isClient(m, names, p.funcs) && !returnRE.MatchString(line) {
					// a session made and used in one expression, or handed on: not followed
					rest := line[strings.Index(line, m[0]):]
					switch {
					case strings.Contains(rest, ".execute(") || strings.Contains(rest, ".tools(") || strings.Contains(rest, ".proxyExecute(") || strings.Contains(rest, ".proxy_execute("):
						use("session", m[0])
					case strings.Contains(rest, ".mcp") || strings.Contains(line, "mcp") && strings.Contains(line, "{"):
						use("mcp", m[0])
					default:
						use("session?", m[0])
					}
				}
			}
			if len(sessions) == 0 {
				continue
			}
			for _, m := range memberRE.FindAllStringSubmatch(line, -1) {
				s := sessions[m[1]]
				if s == nil {
					continue
				}
				switch {
				case m[3] == "(" && sessionSends[m[2]]:
					s.sends = true
					use("session", m[0])
				case m[2] == "mcp" || m[2] == "url": // url: the experimental session's MCP address
					if !s.mcp {
						use("mcp", m[0])
					}
					s.mcp = true
				default:
					s.other = true
				}
			}
			for name, s := range sessions {
				if raw := f.raw[n]; s.line != ln &&
					(strings.Contains(raw, name+"['url']") || strings.Contains(raw, name+`["url"]`) || strings.Contains(raw, name+"['mcp']") || strings.Contains(raw, name+`["mcp"]`)) {
					if !s.mcp {
						use("mcp", name+"[url]")
					}
					s.mcp = true
				}
			}
			// const { mcp, sessionId } = session: the members taken are what is used
			destructured := ""
			if m := destructureRE.FindStringSubmatch(line); m != nil && sessions[m[2]] != nil && sessions[m[2]].line != ln {
				s, text := sessions[m[2]], m[0]
				destructured = m[2]
				for part := range strings.SplitSeq(m[1], ",") {
					member, _, _ := strings.Cut(strings.TrimSpace(part), ":")
					switch member = strings.TrimSpace(member); {
					case sessionSends[member]:
						s.sends = true
						use("session", text)
					case member == "mcp" || member == "url":
						if !s.mcp {
							use("mcp", text)
						}
						s.mcp = true
					case member != "":
						s.other = true
					}
				}
			}
			// a session handed to a call or stored: where it sends cannot be followed here
			for name, s := range sessions {
				if s.line == ln || name == destructured {
					continue
				}
				for _, idx := range s.re.FindAllStringSubmatchIndex(line, -1) {
					after := strings.TrimLeft(line[idx[3]:], " \t")
					before := strings.TrimRight(line[:idx[2]], " \t")
					if strings.HasPrefix(strings.TrimSpace(line), "return") {
						s.returned = true // a factory's: its callers are followed
						continue
					}
					if strings.HasPrefix(after, ".") || strings.HasPrefix(after, "[") || strings.HasSuffix(before, ".") {
						continue
					}
					s.escaped = true
				}
			}
		}
		for _, name := range order {
			// handed on, or never used here (a module-level session may be imported): its
			// sends cannot be followed; used only for other calls (authorize) or its MCP
			// address, it sends nothing through the SDK
			if s := sessions[name]; !s.sends && (s.escaped || !s.mcp && !s.other && !s.returned) {
				out = append(out, codeUse{rel: f.rel, line: s.line, eco: f.eco, what: "session?", text: name})
			}
		}
	}
	return out
}

// legacyHints are the words legacyRE needs.
var legacyHints = []string{
	"xecute_action",
	"xecuteAction",
	"get_tools",
	"getTools",
	"get_actions",
	"getActions",
	"andle_tool_calls",
	"andleToolCall",
	"xecute_request",
	"xecuteRequest",
}

// defines reports whether the call text m on line is a definition (def execute_tool_call(,
// function handleToolCalls(, async handleToolCalls(...) {), not a call.
func defines(line, m string) bool {
	before := strings.TrimRight(line[:strings.Index(line, m)], " \t")
	return strings.HasSuffix(before, "def") || strings.HasSuffix(before, "function") || strings.HasSuffix(before, "async") ||
		before == "" && strings.HasSuffix(strings.TrimRight(line, " \t"), "{")
}

// bindIn is bindRE's match in line (not a comparison), tested cheaply first.
func bindIn(line string) []string {
	if !strings.Contains(line, "=") || strings.Contains(line, "==") {
		return nil
	}
	return bindRE.FindStringSubmatch(line)
}

// middlewareIn is middlewareRE's match in line, tested cheaply first.
func middlewareIn(line string) []int {
	if !strings.Contains(line, "oolRetryMiddleware") {
		return nil
	}
	return middlewareRE.FindStringSubmatchIndex(line)
}

// typedIn is typedRE's matches in line, tested cheaply first.
func typedIn(line string) [][]string {
	if !strings.Contains(line, "Composio") && !strings.Contains(line, "ToolRouterSession") {
		return nil
	}
	return typedRE.FindAllStringSubmatch(line, -1)
}

// containsAnyOf reports whether s contains any of subs.
func containsAnyOf(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// wordRE matches name as a whole word.
func wordRE(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w$])(` + regexp.QuoteMeta(name) + `)(?:$|[^\w$])`)
}

// relevant reports whether a code file can matter to doctor: it names Composio, a session,
// the middleware, or one of the SDK's calls. Other files are not kept.
func relevant(text []byte) bool {
	for _, w := range []string{"omposio", "ession", "oolRetryMiddleware", "tools.", "andle_tool_calls", "andleToolCall", "xecute_action", "xecuteAction", "get_tools", "getTools"} {
		if bytes.Contains(text, []byte(w)) {
			return true
		}
	}
	return false
}

// laterFile is a code file set aside: it names nothing doctor follows, yet.
type laterFile struct {
	path, rel string
	eco       Ecosystem
}

// widen adds the set-aside files that name a client, a session or a function returning one
// that the kept files define (a module that imports the client under another name, a package's
// __init__.py that re-exports it), until no file is added. Files are read again rather than
// kept: most code in a tree never names Composio.
func widen(ctx context.Context, code []codeFile, later []laterFile) []codeFile {
	for round := 0; round < 6 && len(later) > 0 && ctx.Err() == nil; round++ {
		words := map[Ecosystem][]string{}
		for _, eco := range []Ecosystem{PyPI, NPM} {
			p := follow(ofEcosystem(code, eco))
			for _, m := range []map[string]valueKind{p.exported, p.funcs} {
				for name, k := range m {
					if k != kindNone && name != "default" && name != "composio" {
						words[eco] = append(words[eco], name)
					}
				}
			}
		}
		var rest []laterFile
		added := false
		for _, l := range later {
			if len(words[l.eco]) == 0 {
				rest = append(rest, l)
				continue
			}
			data, err := os.ReadFile(l.path)
			if err != nil {
				continue
			}
			if data = decodeText(data); containsAnyOf(string(data), words[l.eco]) {
				code = append(code, readCode(l.rel, l.eco, data))
				added = true
			} else {
				rest = append(rest, l)
			}
		}
		later = rest
		if !added {
			break
		}
	}
	return code
}

// ofEcosystem is the code files of one ecosystem.
func ofEcosystem(code []codeFile, eco Ecosystem) []codeFile {
	var out []codeFile
	for _, c := range code {
		if c.eco == eco {
			out = append(out, c)
		}
	}
	return out
}

// callArgs is the text of a call's arguments from column col of line n on, across lines until
// its parentheses close (at most 40 lines).
func callArgs(lines []string, n, col int) string {
	var b strings.Builder
	depth := 1
	for i := n; i < len(lines) && i < n+40; i++ {
		s := lines[i]
		if i == n {
			s = s[min(col, len(s)):]
		}
		for j := 0; j < len(s); j++ {
			switch s[j] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
				if depth == 0 {
					b.WriteString(s[:j])
					return b.String()
				}
			}
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}

// codeFindings adds what the code says to the manifest findings: the LangChain middleware,
// which paths of each retrying SDK the code uses (a path it never uses is "present, not used",
// not an alarm), and the session threshold where the project sends through sessions.
func codeFindings(uses []codeUse, read map[Ecosystem][]string, found []Finding) []Finding {
	var out []Finding
	for i := range uses {
		if u := &uses[i]; u.what == "middleware" {
			out = append(out, middlewareFinding(u))
		}
	}
	for fi := range found {
		f := &found[fi]
		if f.RetriesWrites == nil || !*f.RetriesWrites ||
			f.CallPath != "" && f.CallPath != CallToolsExecute && f.CallPath != CallWorkbench {
			continue
		}
		role := packageRole(f.Ecosystem, f.Package)
		what, path := "execute", "tools.execute, the proxy or provider-wrapped tools (tools.get, handleToolCalls)"
		switch {
		case f.CallPath == CallWorkbench:
			what, path = "workbench", "the package (no file imports @composio/experimental)"
		case role == roleLegacy || role == roleProvider:
			what, path = "legacy", "the legacy toolset's sending calls (execute_action, get_tools, handle_tool_calls)"
		case role != roleSDK:
			continue
		}
		if !codeUnder(read[f.Ecosystem], f.File) {
			continue // no code read: the version alone speaks
		}
		if u := useUnder(uses, f, what); u != nil {
			f.Evidence, f.Use = u.at(), UseUsed
			continue
		}
		f.RetriesWrites = new(false)
		f.may = false
		f.Use = UseNotUsed
		f.Reason = f.Reason + "; present, not used: the code under " + dirOf(f.File) + " never calls " + path
		f.Fix = ""
	}
	for _, f := range found {
		if out1, ok := sessionFinding(uses, f); ok {
			out = append(out, out1)
		}
	}
	return out
}

// middlewareFinding judges one ToolRetryMiddleware: retries over write tools (or all tools)
// are an alarm; retries over read tools only, or none, are not.
func middlewareFinding(u *codeUse) Finding {
	f := Finding{File: u.at(), Ecosystem: u.eco, Package: "langchain " + u.text, CallPath: CallMiddleware, Evidence: u.at(), Use: UseUsed}
	times := fmt.Sprintf("%d retries", u.retries)
	if u.retries == 1 {
		times = "1 retry"
	}
	var writes []string
	for _, t := range u.tools {
		if triage.KindFromSlug(t) != model.KindRead {
			writes = append(writes, t)
		}
	}
	switch {
	case u.retries == 0:
		f.RetriesWrites = new(false)
		f.Reason = "LangChain's " + u.text + " is set to 0 retries"
	case u.tools != nil && len(writes) == 0:
		f.RetriesWrites = new(false)
		f.Reason = fmt.Sprintf(
			"LangChain's %s (%s) wraps only read tools (%s): a retried read sends nothing",
			u.text,
			times,
			strings.Join(u.tools, ", "),
		)
	case u.tools != nil:
		f.RetriesWrites = new(true)
		f.Reason = fmt.Sprintf("LangChain's %s retries a failed call of %s (%s, about 1 s then 2 s apart): one write can happen %d times",
			u.text, strings.Join(writes, ", "), times, u.retries+1)
		f.Fix = "keep write tools out of its tools=[...], or set retry_on to errors that prove nothing ran"
	default:
		f.RetriesWrites = new(true)
		f.Reason = fmt.Sprintf(
			"LangChain's %s retries every failed tool call (%s, about 1 s then 2 s apart), writes included: one email can go out %d times",
			u.text,
			times,
			u.retries+1,
		)
		f.Fix = "exclude write tools from it (tools=[...reads]), or set retry_on to errors that prove nothing ran"
	}
	return f
}

// sessionFinding is the session threshold for a manifest finding f of an SDK whose session
// writes re-send, where the code under f's directory sends through sessions (cited at the
// sending call), creates sessions it hands on (cited at the creation), or uses sessions only
// for their MCP address (its own line, not an alarm).
func sessionFinding(uses []codeUse, f Finding) (Finding, bool) {
	if f.Version == "" && f.Constraint == "" {
		return Finding{}, false
	}
	pkg := f.Package
	if f.Ecosystem == PyPI {
		pkg = sdkversion.NormalizePy(pkg)
	}
	fix := sdkversion.FixedOn(f.Ecosystem, pkg, sdkversion.PathSession)
	if fix == "" {
		return Finding{}, false
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
		return Finding{}, false
	}
	out := Finding{File: f.File, Ecosystem: f.Ecosystem, Package: f.Package, Version: f.Version, Constraint: f.Constraint,
		LockFile: f.LockFile, CallPath: CallSession, VersionSource: f.VersionSource}
	if u := useUnder(uses, &f, "session"); u != nil {
		out.RetriesWrites, out.Evidence, out.Use = new(true), u.at(), UseUsed
		out.Reason = fmt.Sprintf(
			"the project sends through tool-router sessions (%s, %s), and %s a session write that timed out (session writes are sent once from %s)",
			u.at(),
			u.text,
			what,
			fix,
		)
		out.Fix = fixText
		return out, true
	}
	if u := useUnder(uses, &f, "session?"); u != nil {
		out.RetriesWrites, out.Evidence, out.Use = new(true), u.at(), UseUsed
		out.Reason = fmt.Sprintf(
			"the project creates a tool-router session (%s) whose sends could not be followed (it is handed on, or used from elsewhere); %s a session write that timed out (session writes are sent once from %s)",
			u.at(),
			what,
			fix,
		)
		out.Fix = fixText
		return out, true
	}
	if u := useUnder(uses, &f, "mcp"); u != nil {
		out.RetriesWrites, out.Evidence, out.Use = new(false), u.at(), UseMCP
		out.Reason = fmt.Sprintf(
			"tools run over MCP (%s, %s): the SDK's session retries do not apply (%s a session write only when the SDK sends it)",
			u.at(),
			u.text,
			what,
		)
		return out, true
	}
	return Finding{}, false
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

// dirOf is the directory a manifest governs, as the report names it.
func dirOf(file string) string {
	if d := path.Dir(file); d != "." {
		return d + "/"
	}
	return "the scanned directory"
}

// under reports whether the code file rel is in the project f's manifest or lock file governs:
// its directory or below.
func under(rel, file string) bool {
	dir := path.Dir(file)
	return dir == "." || strings.HasPrefix(rel, dir+"/")
}

// codeUnder reports whether any code file of the list is under file's directory.
func codeUnder(files []string, file string) bool {
	for _, r := range files {
		if under(r, file) {
			return true
		}
	}
	return false
}

// useUnder is the first use of kind what in f's ecosystem under f's directory.
func useUnder(uses []codeUse, f *Finding, what string) *codeUse {
	for i := range uses {
		if u := &uses[i]; u.what == what && u.eco == f.Ecosystem && under(u.rel, f.File) {
			return u
		}
	}
	return nil
}
