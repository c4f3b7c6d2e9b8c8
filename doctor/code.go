package doctor

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// doctor also reads code (.py, .ts, .tsx, .js, .mjs, .cjs) to say which of a retrying SDK's
// call paths the project really uses, and where it sends: tools.execute and the proxy
// (with provider-wrapped tools from tools.get and handleToolCalls), tool-router sessions
// (execute, proxy, meta and session tools; a session used only for its MCP address runs its
// tools over MCP, where the SDK's retries do not apply), the legacy ComposioToolSet API, and
// LangChain's ToolRetryMiddleware (which tools it wraps and how many times it retries). The
// client is followed through assignments, typed parameters, factory functions and imports
// across files, line by line over the code as the language's grammar parses it (tree-sitter:
// comments and the text of literals blanked first, a template's ${…} and an f-string's {…}
// kept as code), or, in a build without cgo, as doctor's own tokenizer reads it.

// TokenizerMisses is what doctor's own tokenizer (a build without cgo: CodeReader) cannot
// follow, which the languages' grammars do.
const TokenizerMisses = "a send inside a template literal's ${…} or an f-string's {…}, or after a regular expression " +
	"holding a quote or a backtick"

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
	// joined are the lines a method chain's next lines were put at the end of (joinChains)
	joined map[int][]chainPart
}

// readCode splits a code file into its lines, as written and as code only: as its grammar
// parses it (parseCode), else as stripCode tokenises it.
func readCode(ctx context.Context, rel string, eco Ecosystem, data []byte) codeFile {
	text := string(data)
	code, ok := parseCode(ctx, rel, eco, data)
	if !ok {
		code = stripCode(text, eco)
	}
	if eco == NPM {
		code = strings.ReplaceAll(code, "?.", " .") // optional chaining: session?.url is session.url
	}
	f := codeFile{rel: rel, eco: eco, code: strings.Split(code, "\n"), raw: strings.Split(text, "\n")}
	f.joinChains()
	return f
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

// codeUse is one line of code that matters.
type codeUse struct {
	rel  string // file, slash path relative to root
	line int
	eco  Ecosystem
	// what: "execute" (tools.execute, the proxy, provider-wrapped tools), "workbench" (a file
	// that imports @composio/experimental), "legacy" (the legacy
	// ComposioToolSet API's sending calls), "session" (a session's sending call), "session?"
	// (a session whose sends could not be followed: a note, not a finding), "mcp" (a session's MCP address),
	// "middleware", "legacy-import" (Python code importing ComposioToolSet or Action from a
	// composio package: the legacy line's names), "legacy-tools" (the tools a legacy file names,
	// text their names joined by commas: legacy.go), "other-create" (a create every release
	// re-sends: a note, not a finding)
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
	// a call on a name: recv.method( or recv.mcp
	memberRE      = regexp.MustCompile(`(` + ident + `)\s*\.\s*(` + ident + `)\s*(\()?`)
	destructureRE = regexp.MustCompile(`\{([^}]*)\}\s*=\s*(?:await\s+)?(` + ident + `)\s*;?\s*$`)
	middlewareRE  = regexp.MustCompile(`\b(ToolRetryMiddleware|toolRetryMiddleware)\s*\(`)
	maxRetriesRE  = regexp.MustCompile(`\b(?:max_retries|maxRetries)\s*[=:]\s*(\d+)`)
	// legacyImportRE imports ComposioToolSet or Action from a composio package: names only the
	// legacy 0.7.x line has (the current SDK has neither).
	legacyImportRE = regexp.MustCompile(`^\s*from\s+composio\w*(?:\.\w+)*\s+import\s+.*?\b(ComposioToolSet|Action)\b`)
	// metaToolRE is a client's tools.executeMetaTool (execute_meta_tool) or executeSessionTool: they
	// go to a tool router session's execute_meta or execute endpoint, the session path, not
	// tools.execute (@composio/core 0.13.0 to 0.21.0: toolRouter.session.execute).
	metaToolRE = regexp.MustCompile(`\.\s*tools\s*\.\s*(?:executeMetaTool|execute_meta_tool|executeSessionTool)\s*\(`)
	// otherCreateRE is a create through the SDK's generated client that every release re-sends on
	// a timeout (sdkversion.PathOtherCreate): a connected account's initiate or link, an auth
	// config, a webhook endpoint or subscription, a trigger instance, an MCP config, a custom
	// toolkit (@composio/core 0.21.0's names, and the Python SDK's); toolkits.authorize is an
	// initiate (a new link each call, an auth config first when there is none).
	otherCreateRE = regexp.MustCompile(`\.\s*(?:(?:connectedAccounts|connected_accounts)\s*\.\s*(?:initiate|link)|toolkits\s*\.\s*authorize|` +
		`(?:authConfigs|auth_configs|triggers|mcp)\s*\.\s*create|webhooks\s*\.\s*(?:endpoints|subscriptions)\s*\.\s*create|` +
		`(?:customToolkits|custom_toolkits)\s*\.\s*upsert)\s*[(,)]`) // called, or handed to a runner (asyncio.to_thread)
	toolsArgRE = regexp.MustCompile(`\btools\s*[=:]\s*\[([^\]]*)\]`)
)

// scanProject finds the uses in every file of one ecosystem's code.
func scanProject(files []codeFile) []codeUse {
	p := follow(files)
	var defs map[string][]funcDef // read when a session is first handed on
	var out []codeUse
	for fi := range files {
		f := &files[fi]
		names := p.names[fi]
		type sess struct {
			line              int
			sends, mcp, other bool
			escaped, returned bool
			re                *regexp.Regexp // the name as a word
			escapes           []escape
		}
		sessions := map[string]*sess{}
		var order []string
		legacyHere := namesLegacyToolset(f)
		legacyOnly := legacyHere && len(sdkClassNames(*f)) == 0 && !namesProvider(f)
		out = append(out, legacyToolsOf(f, legacyHere)...) // the tools its legacy toolset names (legacy.go)
		for n, line := range f.code {
			ln := n + 1
			use := func(what, text string) {
				at := ln // a chain joined into this line: the line its call is on
				if c := strings.Index(line, text); c >= 0 && text != "" {
					at = f.lineAt(n, c+len(text)-1)
				}
				out = append(out, codeUse{rel: f.rel, line: at, eco: f.eco, what: what, text: strings.TrimSpace(text)})
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			// (each expression only where a cheap test says it can match: doctor reads whole trees)
			tools := strings.Contains(line, "tools")
			if m := ""; tools || strings.Contains(line, "andle") || strings.Contains(line, "oolCall") ||
				strings.Contains(line, "ool_call") || strings.Contains(line, "xecute") || strings.Contains(line, "proxy") {
				if m = metaToolRE.FindString(line); m != "" && !defines(line, m) {
					use("session", m) // the session's execute_meta, not tools.execute
				} else if m = executeRE.FindString(line); m != "" && !defines(line, m) {
					if legacyOnly && !strings.Contains(m, "tools") {
						use("legacy", m) // handle_tool_calls in code that has only the legacy toolset: its send
					} else if c := strings.Index(line, m); c < 0 || !strings.Contains(m, "tools") {
						use("execute", m)
					} else if tool, read := f.readSend(f.lineAt(n, c+len(m)-1)); read {
						use("execute-read", tool) // a read sent twice changes nothing: not a write's send
					} else {
						use("execute", m)
					}
				} else if m = executeRef(line); m != "" {
					use("execute", m) // the method handed on to be called (asyncio.to_thread(composio.tools.execute, …))
				} else if m, meta := toolsSend(line, names); m != "" {
					// the client's tools taken on their own (const { tools } = composio); its
					// executeMetaTool is the session's execute_meta
					if meta {
						use("session", m)
					} else {
						use("execute", m)
					}
				} else if m := toolsGetRE.FindStringSubmatchIndex(line); tools && m != nil && names[line[m[2]:m[3]]] == kindClient &&
					toolsRun(f, n, m[2]) {
					use("execute", line[m[0]:m[1]])
				}
			}
			if strings.Contains(line, "reate") || strings.Contains(line, "nitiate") || strings.Contains(line, "link") ||
				strings.Contains(line, "psert") || strings.Contains(line, "uthorize") {
				if m := otherCreateRE.FindString(line); m != "" && !defines(line, m) {
					use("other-create", m)
				}
			}
			if raw := f.raw[n]; strings.Contains(raw, "@composio/experimental") &&
				(strings.Contains(raw, "import") || strings.Contains(raw, "require(")) {
				use("workbench", "@composio/experimental") // the package's paths are reachable from here
			}
			if raw := f.raw[n]; f.eco == PyPI && strings.Contains(raw, "import") && strings.Contains(raw, "composio") {
				if m := legacyImportRE.FindStringSubmatch(raw); m != nil {
					use("legacy-import", m[1])
				}
			}
			if containsAnyOf(line, legacyHints) {
				if m := legacyRE.FindStringSubmatch(line); m != nil && m[1] != "self" && m[1] != "this" && m[1] != "cls" &&
					(legacyHere || strings.Contains(strings.ToLower(m[1]), "toolset") || m[1] == ")" && strings.Contains(line, "ToolSet(")) {
					if read := f.legacyRead(n, m[2]); read != "" {
						use("legacy-read", read) // execute_action of a read: sent again, it changes nothing
					} else {
						use("legacy", m[0])
					}
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
			// handOn follows a session made at col and handed straight to a function or class of
			// the project's (Mailer(composio.create(…))): true when it sends or is used there
			handOn := func(col int) bool {
				callee, arg, key, ok := enclosingCall(line, col)
				if !ok {
					return false
				}
				if defs == nil {
					defs = funcDefs(files)
				}
				d := resolveDef(p, defs, fi, callee)
				if d == nil || paramFor(d, arg, key) == "" {
					return false
				}
				r := followParam(p, defs, d, paramFor(d, arg, key), 0, map[[2]int]bool{}, &out)
				return r.sends || r.mcp
			}
			// sessions: created, then what is done with them
			created := false
			if m := bindIn(line); m != nil && rhsKind(m[2], names, p.funcs) == kindSession && mcpAddressOf(m[2]) {
				use("mcp", createRE.FindString(m[2])) // (await composio.create(id)).mcp.url: the address, not the session
				created = true
			} else if c := createRE.FindStringIndex(line); m != nil && c != nil && rhsKind(m[2], names, p.funcs) == kindSession &&
				handOn(c[0]) {
				created = true // what is bound is what the function or class made of it
			} else if m != nil && rhsKind(m[2], names, p.funcs) == kindSession {
				if sessions[m[1]] == nil {
					order = append(order, m[1])
				}
				sessions[m[1]] = &sess{line: ln, re: wordRE(m[1])}
				created = true
			}
			for _, m := range typedIn(line) {
				if p.types[m[2]] == kindSession && sessions[m[1]] == nil {
					sessions[m[1]] = &sess{line: ln, re: wordRE(m[1])}
					order = append(order, m[1])
					created = true
				}
			}
			created = storedUse(f, n, names, p.funcs, use) || created // sessions kept in a container (stores.go)
			created = created || madeHandedOn(line, p.funcs, handOn, use)
			if !created && (strings.Contains(line, "create") || strings.Contains(line, "use") || strings.Contains(line, "Session")) {
				if m := createRE.FindStringSubmatch(line); m != nil && isClient(m, names, p.funcs) && !returnRE.MatchString(line) {
					// a session made and used in one expression, or handed on: not followed
					at := strings.Index(line, m[0])
					rest := line[at:]
					toolsAt := strings.Index(rest, ".tools(")
					switch {
					case strings.Contains(rest, ".execute(") || toolsAt >= 0 && toolsRun(f, n, at+toolsAt) ||
						strings.Contains(rest, ".proxyExecute(") || strings.Contains(rest, ".proxy_execute("):
						use("session", m[0])
					case strings.Contains(rest, ".mcp") || strings.Contains(line, "mcp") && strings.Contains(line, "{"):
						use("mcp", m[0])
					case handOn(at):
					default:
						use("session?", m[0])
					}
				}
			}
			if len(sessions) == 0 {
				continue
			}
			for _, mi := range memberRE.FindAllStringSubmatchIndex(line, -1) {
				m := []string{line[mi[0]:mi[1]], line[mi[2]:mi[3]], line[mi[4]:mi[5]], ""}
				if mi[6] >= 0 {
					m[3] = "("
				}
				s := sessions[m[1]]
				if s == nil {
					continue
				}
				switch {
				case m[3] == "(" && m[2] == "tools" && !toolsRun(f, n, mi[2]):
					s.other = true // its tools listed, not run
				case m[3] == "(" && sessionSends[m[2]]:
					s.sends = true
					u, ok := codeUse{}, false
					if m[2] == "tools" && returnRE.MatchString(line) { // a tool list returned: run where a caller hands it on
						if defs == nil {
							defs = funcDefs(files)
						}
						u, ok = returnedRun(p, defs, fi, n, m[0])
					}
					if ok {
						out = append(out, u)
					} else {
						use(f.sessionSend(n, mi[1]-1, m[2], m[0]))
					}
				case m[2] != "tools" && sessionSends[m[2]] && handedOn(line, mi[0], mi[1]):
					s.sends = true // the send method handed on to be called (asyncio.to_thread(session.execute, …))
					use("session", strings.TrimSpace(m[0]))
				case m[3] == "(" && sessionCreates[m[2]]:
					s.other = true
					use("other-create", m[0])
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
				if text, ok := dynamicSend(line, f.raw[n], name); ok && s.line != ln {
					s.sends = true
					use("session", text) // a method looked up by name at run time and called
				} else if s.line != ln && strings.Contains(line, name+"[") {
					s.other = true // a member looked up by a name that does not send
				}
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
					if member, ok := attrByName(line, f.raw[n], idx[2], name); ok {
						switch what := takenMember(member); { // getattr(session, "mcp", None): as session.mcp
						case what == "mcp":
							if !s.mcp {
								use("mcp", name+"."+member)
							}
							s.mcp = true
						case what == "session":
							s.sends = true
							use("session", name+"."+member)
						default:
							s.other = true
						}
						continue
					}
					after := strings.TrimLeft(line[idx[3]:], " \t")
					before := strings.TrimRight(line[:idx[2]], " \t")
					if _, _, _, in := callAcross(f, n, idx[2]); !in && strings.HasPrefix(strings.TrimSpace(line), "return") {
						s.returned = true // a factory's: its callers are followed (handed to a call, it is that call's)
						continue
					}
					if strings.HasPrefix(after, ".") || strings.HasPrefix(after, "[") || memberName(before) {
						continue
					}
					s.escaped = true
					callee, arg, key, _ := callAcross(f, n, idx[2])
					e := escape{line: ln, callee: callee, arg: arg, key: key, text: strings.TrimSpace(line)}
					if m := fieldRE.FindStringSubmatch(line[:idx[2]]); m != nil {
						e.field = m[1]
					}
					s.escapes = append(s.escapes, e)
				}
			}
		}
		for _, name := range order {
			s := sessions[name]
			if s.sends {
				continue
			}
			if c := f.code[s.line-1]; strings.Contains(c, "self."+name) || strings.Contains(c, "this."+name) {
				// made on a field (self._session = …): its uses are the field's across the file
				if r := followField(f, name, &out); r.sends || r.mcp {
					continue
				}
			}
			// handed to the project's own functions: followed into them; handed to code
			// doctor cannot read, or never used here (a module-level session may be
			// imported), its sends could not be followed; used only for other calls
			// (authorize) or its MCP address, it sends nothing through the SDK
			var lost *codeUse
			sends := false
			for _, e := range s.escapes {
				if defs == nil {
					defs = funcDefs(files)
				}
				if e.field != "" {
					r := followField(f, e.field, &out)
					sends = sends || r.sends
					if !r.sends && !r.mcp {
						lost = cmp.Or(lost, &codeUse{rel: f.rel, line: e.line, eco: f.eco, what: "session?", text: e.text})
					}
					continue
				}
				d := (*funcDef)(nil)
				if e.callee != "" {
					d = resolveDef(p, defs, fi, e.callee)
				}
				if d == nil || paramFor(d, e.arg, e.key) == "" {
					lost = cmp.Or(lost, &codeUse{rel: f.rel, line: e.line, eco: f.eco, what: "session?", text: e.text})
					continue
				}
				r := followParam(p, defs, d, paramFor(d, e.arg, e.key), 0, map[[2]int]bool{}, &out)
				sends = sends || r.sends
				if r.lost != nil {
					lost = cmp.Or(lost, &codeUse{rel: r.lostRel, line: r.lost.line, eco: f.eco, what: "session?", text: r.lost.text})
				}
			}
			switch {
			case sends:
			case lost != nil:
				out = append(out, *lost)
			case !s.escaped && !s.mcp && !s.other && !s.returned:
				out = append(out, codeUse{rel: f.rel, line: s.line, eco: f.eco, what: "session?", text: name})
			}
		}
	}
	return out
}

// mcpAddressOf says a right-hand side that creates a session keeps only its MCP address: the
// create call is followed by .mcp, .url or ["url"] (`(await composio.create(id)).mcp.url`),
// so what is bound is a URL and the session never sends from here.
func mcpAddressOf(rhs string) bool {
	loc := createRE.FindStringIndex(rhs)
	if loc == nil {
		return false
	}
	depth := 1
	for i := loc[1]; i < len(rhs); i++ {
		switch rhs[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				rest := strings.TrimLeft(rhs[i+1:], ") \t")
				return strings.HasPrefix(rest, ".mcp") || strings.HasPrefix(rest, ".url") ||
					strings.HasPrefix(rest, `["url"]`) || strings.HasPrefix(rest, "['url']")
			}
		}
	}
	return false
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

// typedIn is typedRE's matches in line, tested cheaply first: a colon followed by a capital
// letter (a type's name: Composio, MailClient, Optional[...]), typing. or a quote (a forward
// reference).
func typedIn(line string) [][]string {
	for rest := line; ; {
		i := strings.IndexByte(rest, ':')
		if i < 0 {
			return nil
		}
		rest = strings.TrimLeft(rest[i+1:], " \t")
		if rest != "" && (rest[0] >= 'A' && rest[0] <= 'Z' || rest[0] == '"' || rest[0] == '\'' || strings.HasPrefix(rest, "typing.")) {
			return typedRE.FindAllStringSubmatch(line, -1)
		}
	}
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
	for _, w := range []string{
		"omposio", "ession", "oolRetryMiddleware", "tools.", "andle_tool_calls", "andleToolCall", "xecute_action", "xecuteAction",
		"get_tools", "getTools",
	} {
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
			for _, m := range []map[string]valueKind{p.exported, p.funcs, p.types} {
				for name, k := range m {
					if k != kindNone && name != "default" && name != "composio" {
						words[eco] = append(words[eco], name)
					}
				}
			}
			words[eco] = append(words[eco], listMakers(p.files)...) // where a returned tool list may run
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
				code = append(code, readCode(ctx, l.rel, l.eco, data))
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
