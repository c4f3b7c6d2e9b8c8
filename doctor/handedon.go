package doctor

import (
	"regexp"
	"strings"
)

// What the code does with a session or a tool list it hands on. A session's sends reach the
// SDK only through its own methods; handed to a function of the project's, the parameter is
// followed into that function's body (across files, through imports); handed to code doctor
// cannot read (a framework, a package, a stored field), its sends could not be followed: a note
// with its place, never a finding. A tool list (a session's tools(), a client's tools.get())
// sends only when something runs its tools: handed to a call (an agent, generateText) it is a
// send; only counted, printed or its names listed (a script that lists tools), it is not. A
// method looked up by name at run time and called (getattr(session, m)(…), session[m](…)) is a
// send unless a literal names one that does not send.

// escape is a place where a session leaves the code that holds it.
type escape struct {
	line   int
	callee string // the function it is handed to (its last name; "new X": X's constructor), "" when stored or in a literal
	field  string // the field it is stored on (this.session = s)
	arg    int    // its position among the call's arguments
	key    string // the key it is under in an object literal passed there
	text   string
}

// funcDef is a function or method of the project's: where its body is and its parameters.
type funcDef struct {
	fi, line, end int
	params        []string
}

var (
	// the parameters' text after a function's name: name(...) / name = async (...) =>
	paramsStartRE = regexp.MustCompile(`^\s*(?:=\s*(?:async\s+)?(?:function\s*\*?\s*)?)?(?:<[^>]*>)?\s*\(`)
	// calls and places whose use of a tool list is to look at it: print it, count it, list it
	listingCallRE = regexp.MustCompile(
		`(?:^|[^\w$.])(?:console\s*\.\s*\w+|print|pprint|len|str|repr|Object\s*\.\s*(?:keys|values|entries)|` +
			`JSON\s*\.\s*stringify|(?:logger|logging|log|self\.logger|this\.logger)\s*\.\s*\w+|expect|assert\w*|` +
			`(?:t|test)\s*\.\s*\w+)\s*$`,
	)
	// calls that copy a tool list (its tools, in another list): what they are handed to
	// decides, print(list(tools)) a listing, Agent(tools=list(tools)) a run
	copyCallRE = regexp.MustCompile(`(?:^|[^\w$.])(?:list|tuple|set|frozenset|sorted|reversed|Array\s*\.\s*from)\s*$`)
	// a name called: sessionFor( in run(await sessionFor(id))
	callNameRE = regexp.MustCompile(`(` + ident + `)\s*\(`)
)

// listingMembers are a tool list's members that look at it rather than hand it on.
var listingMembers = map[string]bool{
	"length": true, "keys": true, "values": true, "items": true, "entries": true, "forEach": true, "map": true,
	"name": true, "names": true, "slug": true, "count": true, "size": true, "push": true, "append": true,
	"extend": true, "update": true, "__len__": true, "function": true,
}

// madeHandedOn reads a session that a function of the project's makes (funcs) and the line
// hands straight to a function or class (run(await sessionFor(id))): followed into it by handOn,
// or, where it goes doctor cannot read, a note at the call. It reports whether the line hands one
// on; a session made and bound, or used at once (sessionFor(id).execute), is read elsewhere.
func madeHandedOn(line string, funcs map[string]valueKind, handOn func(col int) bool, use func(what, text string)) bool {
	if !strings.Contains(line, "(") {
		return false
	}
	for _, m := range callNameRE.FindAllStringSubmatchIndex(line, -1) {
		if funcs[line[m[2]:m[3]]] != kindSession || m[2] > 0 && line[m[2]-1] == '.' {
			continue
		}
		if _, _, _, ok := enclosingCall(line, m[2]); !ok {
			continue
		}
		if !handOn(m[2]) {
			end := matching(line, m[1]-1, '(', ')')
			use("session?", line[m[2]:max(end+1, m[1])])
		}
		return true
	}
	return false
}

// enclosingCall finds, walking back from at in line, the innermost call whose parentheses hold
// at: its callee's last name and at's argument position, and, when at is a value in an object
// literal passed to it (run({ session, prompt }), run({ s: session })), the key it is under.
// ok is false when at sits in an array or a nested literal, or in no call on this line.
func enclosingCall(line string, at int) (callee string, arg int, key string, ok bool) {
	depth, inObject := 0, false
	for i := at - 1; i >= 0; i-- {
		switch line[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth > 0 {
				depth--
				continue
			}
			if line[i] == '[' || inObject {
				return "", 0, "", false
			}
			inObject, arg = true, 0
			piece := line[i+1 : at]
			if c := strings.LastIndex(piece, ","); c >= 0 {
				piece = piece[c+1:]
			}
			if piece = strings.TrimSpace(piece); piece == "" {
				key = identAt(line, at) // shorthand: { session }
			} else if k, rest, found := strings.Cut(piece, ":"); found && strings.TrimSuffix(strings.TrimSpace(rest), "await") == "" {
				key = strings.TrimSpace(k)
			} else {
				return "", 0, "", false
			}
		case ',':
			if depth == 0 {
				arg++
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			before := strings.TrimRight(line[:i], " \t")
			j := len(before)
			for j > 0 && (isIdentByte(before[j-1])) {
				j--
			}
			if j == len(before) {
				return "", 0, "", false // a parenthesised expression
			}
			if k := strings.TrimRight(before[:j], " \t"); strings.HasSuffix(k, "new") {
				return "new " + before[j:], arg, key, true // a class's constructor
			}
			return before[j:], arg, key, true
		}
	}
	return "", 0, "", false
}

// callAcross is enclosingCall for the name at col of line n of f, where a call's arguments may
// stand one to a line (prettier's form): a name that starts its line is looked for in the
// lines before it.
func callAcross(f *codeFile, n, col int) (callee string, arg int, key string, ok bool) {
	line := f.code[n]
	if callee, arg, key, ok = enclosingCall(line, col); ok || strings.TrimSpace(line[:col]) != "" {
		return callee, arg, key, ok
	}
	joined := line
	for k := n - 1; k >= 0 && k >= n-8; k-- {
		joined = f.code[k] + " " + joined
		col += len(f.code[k]) + 1
		if callee, arg, key, ok = enclosingCall(joined, col); ok {
			return callee, arg, key, ok
		}
	}
	return "", 0, "", false
}

// identAt is the name that starts at at in line.
func identAt(line string, at int) string {
	j := at
	for j < len(line) && isIdentByte(line[j]) {
		j++
	}
	return line[at:j]
}

// paramFor is the name a function's body gives an argument passed at position arg, or under
// key in an object literal passed there ({ session, prompt }: the destructured name). "" when
// the function takes no such argument.
func paramFor(d *funcDef, arg int, key string) string {
	if arg >= len(d.params) {
		return ""
	}
	p := d.params[arg]
	if key == "" {
		if strings.HasPrefix(p, "{") {
			return ""
		}
		return p
	}
	if !strings.HasPrefix(p, "{") {
		return "" // the object itself: its fields are not followed
	}
	for part := range strings.SplitSeq(strings.Trim(p, "{} "), ",") {
		k, local, renamed := strings.Cut(part, ":")
		if strings.TrimSpace(k) != key {
			continue
		}
		if !renamed {
			local = k
		}
		local, _, _ = strings.Cut(local, "=") // a default
		return strings.TrimSpace(local)
	}
	return ""
}

// wordIndexes lists where name stands in line as a whole word (two may be one character
// apart: f(tools=tools)).
func wordIndexes(line, name string) []int {
	var out []int
	for from := 0; name != ""; {
		i := strings.Index(line[from:], name)
		if i < 0 {
			return out
		}
		at, end := from+i, from+i+len(name)
		if (at == 0 || !isIdentByte(line[at-1])) && (end == len(line) || !isIdentByte(line[end])) {
			out = append(out, at)
		}
		from = end
	}
	return out
}

// memberName reports whether the text before a name makes it another object's member (x.name),
// not the value itself: a spread (...name) hands the value on, into the literal it is spread in.
func memberName(before string) bool {
	return strings.HasSuffix(before, ".") && !strings.HasSuffix(before, "...")
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// inListing reports whether the text before at puts it inside a call that only looks at its
// argument (print, len, Object.keys, console.log, expect) or a loop over it.
func inListing(line string, at int) bool {
	before := strings.TrimRight(line[:at], " \t")
	before = strings.TrimRight(strings.TrimSuffix(before, "await"), " \t")
	if strings.HasSuffix(before, " in") || strings.HasSuffix(before, " of") || before == "in" || before == "of" {
		return true // for t in tools / for (const t of tools)
	}
	depth := 0
	for i := len(before) - 1; i >= 0; i-- {
		switch before[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth > 0 {
				depth--
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			if !copyCallRE.MatchString(before[:i]) && listingCallRE.MatchString(before[:i]) {
				return true
			}
		}
	}
	return false
}

// toolsRun reports whether the tool list a call at col of line n gives is run: handed to a
// call or returned (an agent, a framework), rather than only printed, counted or listed.
func toolsRun(f *codeFile, n, col int) bool {
	line := f.code[n]
	if m := bindRE.FindStringSubmatchIndex(line); m != nil && m[4] <= col && strings.Contains(line, "=") &&
		!strings.Contains(line[:m[4]], "==") && !keywordArg(f, n, m[2]) {
		name, end := line[m[2]:m[3]], enclosingEnd(f, n)
		run, seen := listRun(f, name, n+1, end)
		// bound at a module's top level and not used there: another file may import it
		return run || !seen && end == len(f.code)-1
	}
	return !inListing(line, col)
}

// keywordArg reports whether the name at col of line n is a keyword argument of a call
// (Agent(name="x", tools=…), or one argument to a line), not a name bound.
func keywordArg(f *codeFile, n, col int) bool {
	_, _, _, in := callAcross(f, n, col)
	return in
}

// listRun reports whether the tool list bound to name is handed on anywhere in lines from..to,
// and whether it is used there at all.
func listRun(f *codeFile, name string, from, to int) (run, seen bool) {
	for n := from; n <= to && n < len(f.code); n++ {
		line := f.code[n]
		for _, at := range wordIndexes(line, name) {
			before := strings.TrimRight(line[:at], " \t")
			after := strings.TrimLeft(line[at+len(name):], " \t")
			seen = true
			switch {
			case memberName(before):
				continue // another object's member of the same name
			case strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") && !strings.HasPrefix(after, "=>"),
				strings.HasPrefix(after, ":") && !strings.HasPrefix(after, "::"):
				continue // bound again, or a key or keyword's name (its value is what follows)
			case strings.HasPrefix(after, "["):
				continue
			case strings.HasPrefix(after, "."):
				if m := memberRE.FindStringSubmatch(line[at:]); m != nil && listingMembers[m[2]] {
					continue
				}
				return true, true
			case inListing(line, at):
				if loopHands(f, n) {
					return true, true // each tool handed on in the loop's body
				}
				continue
			}
			return true, true
		}
	}
	return false, seen
}

// loopHeadRE is a loop's header and the names it binds each element to: for (const [name, tool]
// of Object.entries(tools)), for name, tool in tools.items():
var (
	loopHeadRE = regexp.MustCompile(`\bfor\s*\(\s*(?:const|let|var)\s+(\[[^\]]*\]|\{[^}]*\}|` + ident + `)\s+(?:of|in)\b|` +
		`^\s*(?:async\s+)?for\s+(.+?)\s+in\b`)
	identRE = regexp.MustCompile(ident)
)

// loopHands reports whether the loop whose header is line n hands the elements it binds on in
// its body (validate(tool), out[name] = tool: a tool list copied into another that is run),
// rather than only looking at them (print(tool.name)): a loop over a tool list is a listing
// only when its body is.
func loopHands(f *codeFile, n int) bool {
	m := loopHeadRE.FindStringSubmatch(f.code[n])
	if m == nil {
		return false
	}
	end := bodyEnd(f, n)
	for _, v := range identRE.FindAllString(m[1]+" "+m[2], -1) {
		if run, _ := listRun(f, v, n+1, end); run {
			return true
		}
	}
	return false
}

// enclosingEnd is the last line of the function that holds line n, or the file's last line.
func enclosingEnd(f *codeFile, n int) int {
	for h := n; h >= 0 && n-h < 400; h-- {
		if _, _, ok := funcHeader(f.code[h]); !ok {
			continue
		}
		if end := bodyEnd(f, h); end >= n {
			return end
		}
	}
	return len(f.code) - 1
}

// bodyEnd is the last line of the body of the function whose header is line h: the line that
// closes its braces, or (Python) the last line indented deeper than the header.
func bodyEnd(f *codeFile, h int) int {
	if f.eco == PyPI {
		indent := len(f.code[h]) - len(strings.TrimLeft(f.code[h], " \t"))
		end := h
		for n := h + 1; n < len(f.code); n++ {
			l := f.code[n]
			if strings.TrimSpace(l) == "" {
				continue
			}
			if len(l)-len(strings.TrimLeft(l, " \t")) <= indent {
				break
			}
			end = n
		}
		return end
	}
	depth, opened := 0, false
	for n := h; n < len(f.code) && n < h+2000; n++ {
		for _, c := range f.code[n] {
			switch c {
			case '{':
				depth++
				opened = true
			case '}':
				depth--
			}
		}
		if opened && depth <= 0 || !opened && n == h && strings.Contains(f.code[n], "=>") &&
			!strings.HasSuffix(strings.TrimSpace(f.code[n]), "=>") {
			return n
		}
	}
	return h
}

// funcDefs lists the project's functions by name, with their parameters and bodies, and its
// classes' bodies under "class NAME".
func funcDefs(files []codeFile) map[string][]funcDef {
	out := map[string][]funcDef{}
	for fi := range files {
		f := &files[fi]
		for h, line := range f.code {
			if strings.Contains(line, "class") {
				if m := classRE.FindStringSubmatch(line); m != nil {
					out["class "+m[1]] = append(out["class "+m[1]], funcDef{fi: fi, line: h, end: bodyEnd(f, h)})
				}
			}
			name, nameEnd, ok := funcHeader(line)
			if !ok {
				continue
			}
			params, ok := paramsOf(f, h, nameEnd)
			if !ok {
				continue
			}
			out[name] = append(out[name], funcDef{fi: fi, line: h, end: bodyEnd(f, h), params: params})
		}
	}
	return out
}

// paramsOf reads the parameter names after a function's name at col of line h (a list may
// run over a few lines); self and cls are not arguments a caller passes. A destructured
// parameter has no name ("").
func paramsOf(f *codeFile, h, col int) ([]string, bool) {
	text := f.code[h][col:]
	loc := paramsStartRE.FindStringIndex(text)
	if loc == nil {
		return nil, false
	}
	var sb strings.Builder
	sb.WriteString(text[loc[1]:])
	for n := h + 1; n < len(f.code) && n <= h+12 && strings.Count(sb.String(), "(")+1 > strings.Count(sb.String(), ")"); n++ {
		sb.WriteString(" " + f.code[n])
	}
	all, depth, start := sb.String(), 0, 0
	var params []string
	add := func(p string) {
		p = strings.TrimLeft(strings.TrimSpace(p), "*.")
		if strings.HasPrefix(p, "{") {
			if end := matching(p, 0, '{', '}'); end > 0 {
				params = append(params, p[:end+1]) // destructured: paramFor reads its names
				return
			}
		}
		j := 0
		for j < len(p) && isIdentByte(p[j]) {
			j++
		}
		if name := p[:j]; name != "self" && name != "cls" && strings.TrimSpace(p) != "" {
			params = append(params, name)
		}
	}
	for i := 0; i < len(all); i++ {
		switch all[i] {
		case '(', '[', '{', '<':
			depth++
		case ']', '}', '>':
			depth--
		case ')':
			if depth == 0 {
				add(all[start:i])
				return params, true
			}
			depth--
		case ',':
			if depth == 0 {
				add(all[start:i])
				start = i + 1
			}
		}
	}
	return nil, false
}

// resolveDef finds the function a call in file fi names: one of the project's, under its own
// name or the name an import gave it.
func resolveDef(p *project, defs map[string][]funcDef, fi int, callee string) *funcDef {
	if class, ok := strings.CutPrefix(callee, "new "); ok {
		return constructorOf(p, defs, fi, class)
	}
	name := callee
	for _, imp := range p.imports[fi] {
		if imp[1] == callee && imp[0] != "default" {
			name = imp[0]
		}
	}
	var found *funcDef
	for i, d := range defs[name] {
		if d.fi == fi {
			return &defs[name][i]
		}
		found = &defs[name][i]
	}
	if found == nil {
		return constructorOf(p, defs, fi, name) // Python: a class called
	}
	return found
}

// followed is what a session handed to a function's parameter does there.
type followed struct {
	sends, mcp bool
	lost       *escape // a place it went on to that could not be followed
	lostRel    string
}

// followParam follows a session bound to param through the body of d: the uses it finds are
// added to out; handed on again to a function of the project's, it is followed there too.
func followParam(p *project, defs map[string][]funcDef, d *funcDef, param string, depth int, seen map[[2]int]bool,
	out *[]codeUse,
) followed {
	var r followed
	f := &p.files[d.fi]
	if param == "" || depth > 4 || seen[[2]int{d.fi, d.line}] {
		return r
	}
	seen[[2]int{d.fi, d.line}] = true
	for n := d.line; n <= d.end && n < len(f.code); n++ {
		line := f.code[n]
		if n == d.line {
			// the header: only a one-line body after its arrow
			_, body, ok := strings.Cut(line, "=>")
			if !ok {
				continue
			}
			line = strings.Repeat(" ", len(line)-len(body)) + body
		}
		if !strings.Contains(line, param) {
			continue
		}
		use := func(what, text string) {
			*out = append(*out, codeUse{rel: f.rel, line: n + 1, eco: f.eco, what: what, text: strings.TrimSpace(text)})
		}
		if text, ok := dynamicSend(line, f.raw[n], param); ok {
			r.sends = true
			use("session", text)
		}
		for _, m := range memberRE.FindAllStringSubmatchIndex(line, -1) {
			if line[m[2]:m[3]] != param || m[2] > 0 && line[m[2]-1] == '.' {
				continue
			}
			member := line[m[4]:m[5]]
			switch {
			case m[6] >= 0 && sessionSends[member] && (member != "tools" || toolsRun(f, n, m[2])):
				r.sends = true
				use(f.sessionSend(n, m[1]-1, member, line[m[0]:m[1]]))
			case member == "mcp" || member == "url":
				r.mcp = true
				use("mcp", line[m[0]:m[1]])
			case m[6] >= 0 && sessionCreates[member]:
				use("other-create", line[m[0]:m[1]])
			}
		}
		for _, at := range wordIndexes(line, param) {
			if member, ok := attrByName(line, f.raw[n], at, param); ok {
				if what := takenMember(member); what != "" { // getattr(session, "mcp", None): as session.mcp
					r.mcp, r.sends = r.mcp || what == "mcp", r.sends || what == "session"
					use(what, param+"."+member)
				}
				continue
			}
			after := strings.TrimLeft(line[at+len(param):], " \t")
			before := strings.TrimRight(line[:at], " \t")
			if strings.HasPrefix(after, ".") || strings.HasPrefix(after, "[") || memberName(before) ||
				strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") || strings.HasPrefix(after, ":") {
				continue
			}
			if m := fieldRE.FindStringSubmatch(line[:at]); m != nil {
				sub := followField(f, m[1], out)
				r.sends, r.mcp = r.sends || sub.sends, r.mcp || sub.mcp
				continue
			}
			callee, arg, key, ok := callAcross(f, n, at)
			e := escape{line: n + 1, callee: callee, arg: arg, key: key, text: strings.TrimSpace(line)}
			if !ok {
				r.lost, r.lostRel = &e, f.rel
				continue
			}
			next := resolveDef(p, defs, d.fi, callee)
			if next == nil || paramFor(next, arg, key) == "" {
				r.lost, r.lostRel = &e, f.rel
				continue
			}
			sub := followParam(p, defs, next, paramFor(next, arg, key), depth+1, seen, out)
			r.sends = r.sends || sub.sends
			r.mcp = r.mcp || sub.mcp
			if sub.lost != nil {
				r.lost, r.lostRel = sub.lost, sub.lostRel
			}
		}
	}
	return r
}

// dynamicSend finds a method of name looked up at run time and called (getattr(session, m)(…),
// session[m](…)) in line (code, strings blanked) and reports whether it may send: the name a
// literal gives (read in raw) when it is one, else any of the session's methods, sends included.
func dynamicSend(code, raw, name string) (text string, ok bool) {
	for _, at := range wordIndexes(code, name) {
		after := code[at+len(name):]
		rest := strings.TrimLeft(after, " \t")
		open := at + len(name) + len(after) - len(rest)
		var closeAt int
		switch before := strings.TrimRight(code[:at], " \t"); {
		case strings.HasPrefix(rest, "["):
			closeAt = matching(code, open, '[', ']')
		case strings.HasSuffix(before, "getattr(") && strings.HasPrefix(rest, ","):
			open = strings.LastIndex(before, "(")
			closeAt = matching(code, open, '(', ')')
		default:
			continue
		}
		if closeAt < 0 || !strings.HasPrefix(strings.TrimLeft(code[closeAt+1:], " \t"), "(") {
			continue
		}
		if len(raw) != len(code) {
			raw = code // (the two differ only where strings are blanked)
		}
		inner := strings.TrimSpace(raw[open+1 : closeAt])
		if i := strings.LastIndex(inner, ","); code[open] == '(' && i >= 0 {
			inner = strings.TrimSpace(inner[i+1:])
		}
		if lit := strings.Trim(inner, `"'`+"`"); lit != inner && !sessionSends[lit] {
			continue // a method named by a literal that does not send
		}
		return strings.TrimSpace(code[at : closeAt+1]), true
	}
	return "", false
}

// matching is the index of the bracket that closes the one at open in s, or -1.
func matching(s string, open int, o, c byte) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case o:
			depth++
		case c:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// constructorOf finds the constructor of the project's class named class (a TypeScript
// constructor, Python's __init__ when the class is called), preferring file fi's.
func constructorOf(p *project, defs map[string][]funcDef, fi int, class string) *funcDef {
	var found *funcDef
	for _, c := range defs["class "+class] {
		for _, name := range []string{"constructor", "__init__"} {
			for i, d := range defs[name] {
				if d.fi == c.fi && d.line > c.line && d.line <= c.end && (found == nil || c.fi == fi) {
					found = &defs[name][i]
				}
			}
		}
	}
	return found
}

// classRE is a class's header: class SlackBot / export class SlackBot extends Base / class Mailer:
var classRE = regexp.MustCompile(`(?:^|[^\w$.])class\s+(` + ident + `)`)

// fieldRE is a name stored on an object's field: this.session = / self.session =
var fieldRE = regexp.MustCompile(`\b(?:this|self)\s*\.\s*(` + ident + `)\s*=\s*$`)

// followField follows a session stored on a field (this.session = s) through every use of that
// field in the file: this.session.execute(…) sends.
func followField(f *codeFile, field string, out *[]codeUse) followed {
	var r followed
	re := regexp.MustCompile(`\b(?:this|self)\s*\.\s*` + regexp.QuoteMeta(field) + `\s*\.\s*(` + ident + `)\s*(\()?`)
	for n, line := range f.code {
		if !strings.Contains(line, field) {
			continue
		}
		for _, mi := range re.FindAllStringSubmatchIndex(line, -1) {
			m := []string{line[mi[0]:mi[1]], line[mi[2]:mi[3]], ""}
			if mi[4] >= 0 {
				m[2] = "("
			}
			switch {
			case m[2] == "(" && sessionSends[m[1]],
				m[1] != "tools" && sessionSends[m[1]] && handedOn(line, mi[0], mi[3]): // asyncio.to_thread(self.s.execute, …)
				r.sends = true
				what, text := f.sessionSend(n, mi[1]-1, m[1], strings.TrimSpace(m[0]))
				*out = append(*out, codeUse{rel: f.rel, line: n + 1, eco: f.eco, what: what, text: text})
			case m[1] == "mcp" || m[1] == "url":
				r.mcp = true
				*out = append(*out, codeUse{rel: f.rel, line: n + 1, eco: f.eco, what: "mcp", text: strings.TrimSpace(m[0])})
			case m[2] == "(" && sessionCreates[m[1]]:
				*out = append(*out, codeUse{rel: f.rel, line: n + 1, eco: f.eco, what: "other-create", text: strings.TrimSpace(m[0])})
			}
		}
	}
	return r
}
