package doctor

import (
	"regexp"
	"strings"
)

// What a name holds, as far as doctor follows it.
type valueKind int

const (
	kindNone valueKind = iota
	kindClient
	kindSession
	kindTools    // the client's tools (composio.tools): its execute and proxy send as the client's do
	kindSessions // a container sessions are kept in (stores.go): what is read out of it is a session
)

const ident = `[A-Za-z_$][\w$]*`

var (
	// NAME [: type] = [await] <right-hand side>, the last name of a dotted target (this.x, self.x)
	bindRE = regexp.MustCompile(`(` + ident + `)\s*(?::\s*[\w$.<>\[\]|, ]+?\s*)?=\s*(?:await\s+)?(.+)$`)
	// a parameter or field typed: composio: Composio, session?: Optional["MailSession"]
	typedRE = regexp.MustCompile(`(` + ident + `)\s*\??:\s*(?:typing\.)?(?:Optional\[|Readonly<)?["']?(` + ident + `)\b`)
	// a function's declared return type, on its header or on the line closing its parameters:
	// ): Promise<MailClient> {   ) -> Optional[MailClient]:
	tsReturnsRE = regexp.MustCompile(`\)\s*:\s*(?:Promise\s*<\s*)?(` + ident + `)[\w\s<>|\[\],.]*(?:\{|=>)`)
	pyReturnsRE = regexp.MustCompile(`\)\s*->\s*(?:typing\.)?(?:Optional\[|Awaitable\[)?["']?(` + ident + `)`)
	// a type the project declares (an interface, a type alias, a class, a Protocol), and an
	// alias of another type: type MailClient = Composio
	declaredRE = regexp.MustCompile(`^\s*(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:interface|type|class)\s+(` + ident + `)`)
	aliasRE    = regexp.MustCompile(`^\s*(?:export\s+)?type\s+(` + ident + `)\s*=\s*(` + ident + `)\s*;?\s*$`)
	// return <right-hand side>
	returnRE = regexp.MustCompile(`\breturn\s+(?:await\s+)?(.+)$`)
	// the name a function header or a one-line arrow or lambda defines
	funcHeaderRE = regexp.MustCompile(
		`(?:\bdef\s+(` + ident + `)\s*\(|\bfunction\s*\*?\s*(` + ident + `)\s*(?:<[^>]*>)?\s*\(|(` + ident + `)\s*=\s*(?:async\s*)?(?:\([^)]*\)|` + ident + `)\s*(?::\s*[^=]+)?=>|(` + ident + `)\s*=\s*(?:async\s+)?function\b|(` + ident + `)\s*=\s*lambda\b|^\s*(?:(?:public|private|protected|static|async)\s+)*(` + ident + `)\s*\([^)]*\)\s*(?::\s*[^{]+)?\{|` +
			// a one-line arrow a higher-order call wraps is the function it wraps: cache(async (id) => …),
			// memoize(…); an arrow with a block body there is a callback (arr.map((x) => {), not followed
			`(` + ident + `)\s*=\s*(?:` + ident + `\s*\.\s*)*` + ident + `\s*\(\s*(?:async\s*)?(?:\([^)]*\)|` + ident + `)\s*(?::\s*[^=]+)?=>\s*[^\s{])`,
	)
	// a client constructed: new Composio( / Composio(
	newClientRE = regexp.MustCompile(`^(?:new\s+)?(?:` + ident + `\.)*Composio\s*\(`)
	// a session created on a client: <recv>.create( / .use( / .toolRouter.create( ...
	// (the receiver may be a call of a client factory: getComposio().toolRouter.use(id))
	createRE = regexp.MustCompile(
		`(` + ident + `)(\s*\([^()]*\))?\s*\.\s*(?:create|use|(?:toolRouter|tool_router)\s*\.\s*(?:create|use)|sessions\s*\.\s*create|experimental\s*\.\s*create|experimental\s*\.\s*(?:toolRouter\s*\.\s*createSession|tool_router\s*\.\s*create_session))\s*\(`,
	)
	createSessionRE = regexp.MustCompile(`^(` + ident + `)\s*\.\s*createSession\s*\(`)
	// a session's create handed to a runner to be called there: asyncio.to_thread(composio.create,
	// user_id=…), loop.run_in_executor(None, composio.create, …), functools.partial(…)
	runnerCreateRE = regexp.MustCompile(`\b(?:to_thread|run_in_executor|partial|submit)\s*\(\s*(?:None\s*,\s*)?(?:` + ident +
		`\s*\.\s*)*?(` + ident + `)\s*\.\s*(?:create|use|(?:toolRouter|tool_router)\s*\.\s*(?:create|use))\s*[,)]`)
	// a call of a function: NAME(
	callRE = regexp.MustCompile(`^(?:` + ident + `\.)*(` + ident + `)\s*\(`)
	// <expression>.tools, the client's tools taken on their own
	toolsMemberRE = regexp.MustCompile(`^(.*\S)\s*\.\s*tools\s*[;,)]?\s*$`)
	// const { tools, other: alias } = <right-hand side>
	destructBindRE = regexp.MustCompile(`(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:await\s+)?(.+)$`)
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
	if strings.Contains(rhs, "tools") {
		if m := toolsMemberRE.FindStringSubmatch(rhs); m != nil {
			if rhsKind(m[1], names, funcs) == kindClient {
				return kindTools
			}
			return kindNone
		}
	}
	if loc := newClientRE.FindStringIndex(rhs); loc != nil {
		// the client, unless a member of it is taken: Composio().create(…) is a session
		if end := matching(rhs, loc[1]-1, '(', ')'); end < 0 || !strings.HasPrefix(strings.TrimSpace(rhs[end+1:]), ".") {
			return kindClient
		}
	}
	// composio.createSession({headers}) is the client again, with its own request options
	if m := createSessionRE.FindStringSubmatch(rhs); m != nil && names[m[1]] == kindClient {
		return kindClient
	}
	if m := createRE.FindStringSubmatch(rhs); m != nil && strings.Index(rhs, m[0]) <= 64 && isClient(m, names, funcs) {
		return kindSession
	}
	if m := runnerCreateRE.FindStringSubmatch(rhs); m != nil && names[m[1]] == kindClient {
		return kindSession // what the runner gives back, awaited, is the session
	}
	if m := callRE.FindStringSubmatch(strings.TrimPrefix(rhs, "new ")); m != nil && funcs[m[1]] != kindNone {
		return funcs[m[1]]
	}
	if m := nameRE.FindStringSubmatch(rhs); m != nil {
		return names[m[1]]
	}
	if storedRead(rhs, names) {
		return kindSession
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
	// per file: the names it imports, as [exported name, local name]
	imports [][][2]string
	// types: what a name typed with a type holds. Composio's own, and a type the project
	// declares that one of its functions is declared to return while returning a client or a
	// session (its own narrow surface of the SDK: interface MailClient, a Protocol). Type names
	// are taken as the project's, one each.
	types map[string]valueKind
}

// follow works out, to a fixed point, which names hold a client or a session in each file and
// which functions return one.
func follow(files []codeFile) *project {
	p := &project{
		files:    files,
		exported: map[string]valueKind{},
		funcs:    map[string]valueKind{"Composio": kindClient}, // the class builds one: Composio().create(…)
		names:    make([]map[string]valueKind, len(files)),
		types:    map[string]valueKind{"Composio": kindClient, "ToolRouterSession": kindSession},
	}
	declared := map[string]bool{}
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
		// const { tools, … } = <rhs>: the members taken, as [member, local name]
		members   [][2]string
		membersOf string
		returns   string    // the type the function this line is in is declared to return
		alias     [2]string // type A = B
		// a value stored into a container (stores.go): the container and the value
		store, storeRHS string
	}
	facts := make([][]fact, len(files))
	imps := make([][][2]string, len(files))
	p.imports = imps
	for fi, f := range files {
		p.names[fi] = map[string]valueKind{"composio": kindClient} // the canonical name, however it arrives
		imps[fi] = imports(strings.Join(f.code, "\n"), f.eco)
		for _, imp := range imps[fi] {
			if imp[0] == "Composio" && imp[1] != "Composio" {
				p.funcs[imp[1]] = kindClient // the client's class under another name: Composio as ComposioClient
			}
		}
		fn := ""
		for _, line := range f.code {
			var ft fact
			if name, _, ok := funcHeader(line); ok {
				fn = name
				// a one-line arrow: const getClient = () => new Composio()
				if _, body, ok := strings.Cut(line, "=>"); ok {
					ft.fnBody = body
				} else if _, body, ok := strings.Cut(line, "lambda"); ok {
					if _, e, ok := strings.Cut(body, ":"); ok {
						ft.fnBody = e
					}
				}
			}
			ft.fn = fn
			ft.typed = typedIn(line)
			if strings.Contains(line, ")") && (strings.Contains(line, ":") || strings.Contains(line, "->")) {
				re := tsReturnsRE
				if f.eco == PyPI {
					re = pyReturnsRE
				}
				if m := re.FindStringSubmatch(line); m != nil {
					ft.returns = m[1]
				}
			}
			if name := declaredIn(line); name != "" {
				declared[name] = true
				if a := aliasRE.FindStringSubmatch(line); a != nil {
					ft.alias = [2]string{a[1], a[2]}
				}
			}
			if strings.Contains(line, "=") && !strings.Contains(line, "==") {
				if m := bindRE.FindStringSubmatch(line); m != nil {
					ft.bindName, ft.bindRHS = m[1], m[2]
					ft.exported = exportedLine(line)
				}
			}
			if strings.Contains(line, "{") && strings.Contains(line, "tools") {
				if m := destructBindRE.FindStringSubmatch(line); m != nil {
					for part := range strings.SplitSeq(m[1], ",") {
						member, local, renamed := strings.Cut(strings.TrimSpace(part), ":")
						if member = strings.TrimSpace(member); !renamed {
							local = member
						}
						ft.members = append(ft.members, [2]string{member, strings.TrimSpace(local)})
					}
					ft.membersOf = m[2]
					ft.exported = exportedLine(line)
				}
			}
			if strings.Contains(line, "return") {
				if m := returnRE.FindStringSubmatch(line); m != nil {
					ft.returnRHS = m[1]
				}
			}
			if strings.Contains(line, "[") || strings.Contains(line, ".set") {
				ft.store, ft.storeRHS = storeIn(line)
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
					set(names, m[1], p.types[m[2]])
				}
				if ft.returns != "" && ft.fn != "" && declared[ft.returns] {
					set(p.types, ft.returns, p.funcs[ft.fn])
				}
				if ft.alias[0] != "" {
					set(p.types, ft.alias[0], p.types[ft.alias[1]])
				}
				if ft.bindName != "" {
					v := rhsKind(ft.bindRHS, names, p.funcs)
					set(names, ft.bindName, v)
					if v != kindNone && ft.exported {
						set(p.exported, ft.bindName, v)
					}
				}
				if ft.membersOf != "" && rhsKind(ft.membersOf, names, p.funcs) == kindClient {
					for _, m := range ft.members {
						if m[0] == "tools" {
							set(names, m[1], kindTools)
							if ft.exported {
								set(p.exported, m[1], kindTools)
							}
						}
					}
				}
				if ft.store != "" && rhsKind(ft.storeRHS, names, p.funcs) == kindSession {
					set(names, ft.store, kindSessions)
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

// declaredIn is the type a line declares (declaredRE), tested cheaply first; "" for none.
func declaredIn(line string) string {
	if !containsAnyOf(line, []string{"interface", "type", "class"}) {
		return ""
	}
	if m := declaredRE.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// exportedLine reports whether what a line binds may be imported by another file: bound at
// the top level (no indent) or exported.
func exportedLine(line string) bool {
	return line == strings.TrimLeft(line, " \t") || strings.HasPrefix(strings.TrimSpace(line), "export ")
}

// funcHeader reads a function's header on a line: its name and where the name ends. A control
// statement shaped as a method's header (if (…) {, for, while, switch, catch) is none.
func funcHeader(line string) (name string, nameEnd int, ok bool) {
	if !mayHeader(line) {
		return "", 0, false
	}
	m := funcHeaderRE.FindStringSubmatchIndex(line)
	if m == nil {
		return "", 0, false
	}
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 {
			name, nameEnd = line[m[g]:m[g+1]], m[g+1]
			break
		}
	}
	switch name {
	case "", "if", "for", "while", "switch", "catch", "with", "elif":
		return "", 0, false
	}
	return name, nameEnd, true
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
