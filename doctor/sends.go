package doctor

import (
	"regexp"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// How code reaches a send other than by a call on one line: a method chain a formatter broke
// across lines, a send method taken as a value and handed on, the client's tools taken on
// their own.

// joinChains puts each line that goes on with a method chain (it starts with .name: formatters
// break a long chain before each call, composio.tools then .execute( on the next line), and a
// method handed on as the first argument of a call opened on the line before (methodArgRE), at
// the end of the line the chain or call starts on, and leaves it blank, so that the chain reads as the one
// line it is; every line keeps its number, and f.joined remembers where each part came from
// (lineAt), so that a send is cited at the line of its call.
func (f *codeFile) joinChains() {
	prev := -1 // the last line with code
	for i, l := range f.code {
		t := strings.TrimLeft(l, " \t\r")
		if t == "" {
			continue
		}
		if prev >= 0 && (len(t) > 1 && t[0] == '.' && (t[1] == '_' || t[1] == '$' || 'a' <= t[1]|0x20 && t[1]|0x20 <= 'z') ||
			strings.HasSuffix(strings.TrimRight(f.code[prev], " \t\r"), "(") && methodArgRE.MatchString(t)) {
			p := strings.TrimRight(f.code[prev], " \t\r")
			if f.eco == PyPI {
				p = strings.TrimSuffix(p, "\\") // a backslash continuation
			}
			if f.joined == nil {
				f.joined = map[int][]chainPart{}
			}
			f.joined[prev] = append(f.joined[prev], chainPart{col: len(p) + 1, line: i + 1})
			f.code[prev], f.code[i] = p+" "+t, ""
			continue // the chain may go on
		}
		prev = i
	}
}

// methodArgRE is a method taken as a value, the first argument of a call opened on the line
// before: asyncio.to_thread(\n    self._composio.create,\n ...) hands the method on to be called.
var methodArgRE = regexp.MustCompile(`^(?:` + ident + `\s*\.\s*)+` + ident + `\s*,`)

// chainPart is a part of a joined line (joinChains): from column col on, it is line's code.
type chainPart struct{ col, line int }

// lineAt is the line (1-based) the code at column col of line index n was written on.
func (f *codeFile) lineAt(n, col int) int {
	ln := n + 1
	for _, p := range f.joined[n] {
		if col >= p.col {
			ln = p.line
		}
	}
	return ln
}

// executeRefRE is a sending method of the client's tools taken as a value, not called here:
// handed to a call (asyncio.to_thread, run_in_executor, functools.partial, a retry wrapper) or
// bound to a name, to be called there.
var executeRefRE = regexp.MustCompile(`\.\s*tools\s*\.\s*(?:execute|proxyExecute|proxy_execute)\b`)

// lookers are the calls that take a method to look at it, not to call it: a test's assertions
// and mocks.
var lookers = regexp.MustCompile(`\b(?:expect|assert\w*|spyOn|mock\w*|typeof|isinstance|hasattr|callable)\s*\(?\s*$`)

// executeRef returns a sending method of the client's tools handed on or bound (executeRefRE),
// "" for none or one a test only looks at.
func executeRef(line string) string {
	loc := executeRefRE.FindStringIndex(line)
	if loc == nil {
		return ""
	}
	start := strings.LastIndexAny(line[:loc[0]], " \t(,=") + 1 // the receiver: composio, self.client, …
	before := strings.TrimRight(line[:start], " \t")
	after := strings.TrimSpace(line[loc[1]:])
	bound := strings.HasSuffix(before, "=") && !strings.HasSuffix(before, "==") && (after == "" || after == ";")
	if !bound && !handedOn(line, start, loc[1]) {
		return ""
	}
	return line[start:loc[1]]
}

// handedOn reports whether the expression line[from:to] (a method taken as a value) is an
// argument of a call that is not a test's or a check's look at it: after ( or , and before , or ).
func handedOn(line string, from, to int) bool {
	before := strings.TrimRight(line[:from], " \t")
	after := strings.TrimLeft(line[to:], " \t")
	return (strings.HasSuffix(before, "(") || strings.HasSuffix(before, ",")) && after != "" && (after[0] == ',' || after[0] == ')') &&
		!lookers.MatchString(before)
}

// toolsSendRE is a call of a sending method on a name: NAME.execute(, .proxyExecute(, …
var toolsSendRE = regexp.MustCompile(`(?:^|[^\w$.])(` + ident + `)\s*\.\s*(execute|proxyExecute|proxy_execute|proxy|executeMetaTool|execute_meta_tool|` +
	`executeSessionTool)\s*\(`)

// toolsSend returns a call of a sending method on a name that holds the client's tools
// (kindTools), and whether it is a session's (the meta tool's execute_meta, a session tool's
// execute); "" for none.
func toolsSend(line string, names map[string]valueKind) (call string, meta bool) {
	for _, m := range toolsSendRE.FindAllStringSubmatchIndex(line, -1) {
		if names[line[m[2]:m[3]]] != kindTools || defines(line, line[m[2]:m[1]]) {
			continue
		}
		method := line[m[4]:m[5]]
		return line[m[2]:m[1]], method == "executeMetaTool" || method == "execute_meta_tool" || method == "executeSessionTool"
	}
	return "", false
}

var (
	// a send's method and its opening parenthesis, on the line of its call
	sendCallRE = regexp.MustCompile(`\b(execute|proxyExecute|proxy_execute|proxy)\s*\(`)
	// the tool a call names by a literal: its first argument, or under slug= / slug:
	slugFirstRE = regexp.MustCompile("^\\s*[\"'`]([A-Z][A-Z0-9_]{2,})[\"'`]")
	slugKeyRE   = regexp.MustCompile("\\bslug\\s*[=:]\\s*[\"'`]([A-Z][A-Z0-9_]{2,})[\"'`]")
	// a first argument that is a name (slug= / slug: before it allowed)
	firstNameRE = regexp.MustCompile(`^\s*(?:slug\s*[=:]\s*)?(` + ident + `)\s*[,)\n]`)
	// a name bound at a module's top level to a tool's slug: SEARCH_TOOL = "…", export const X = '…'
	constSlugRE = regexp.MustCompile("^(?:export\\s+)?(?:const\\s+|let\\s+|var\\s+)?(" + ident + ")\\s*(?::\\s*[\\w.\\[\\]]+\\s*)?=\\s*[\"'`]([A-Z][A-Z0-9_]{2,})[\"'`]\\s*;?\\s*(?:#.*|//.*)?$")
	// a proxied request's method named by a literal
	proxyMethodRE = regexp.MustCompile("\\bmethod\\s*[=:]\\s*[\"'`]([A-Za-z]+)[\"'`]")
)

// readSend reports whether the direct send on line at (1-based) names what it sends by a
// literal that reads: tools.execute("GMAIL_FETCH_EMAILS", …), whose tool is a read by its
// kind (Composio's own tags, else its verb), or a proxied GET. Sent twice, a read changes
// nothing; a tool named by a variable may be any, and counts as a write.
func (f *codeFile) readSend(at int) (string, bool) {
	if at < 1 || at > len(f.raw) {
		return "", false
	}
	raw := f.raw[at-1]
	loc := sendCallRE.FindStringSubmatchIndex(raw)
	if loc == nil {
		return "", false
	}
	args := callArgs(f.raw, at-1, loc[1])
	if strings.HasPrefix(raw[loc[2]:loc[3]], "proxy") {
		if m := proxyMethodRE.FindStringSubmatch(args); m != nil && strings.EqualFold(m[1], "GET") {
			return "a GET", true
		}
		return "", false
	}
	if slug, name := f.slugNamed(args); slug != "" {
		return slug, isRead(slug)
	} else if name != "" {
		return f.paramReads(at-1, name) // execute(slug, …) in a function every call of which names a read
	}
	return "", false
}

// slugNamed is the tool a call's arguments name: by a literal, first or under slug= / slug:,
// or by a name bound to one at the module's top (SEARCH_TOOL = "COMPOSIO_SEARCH_DUCK_DUCK_GO");
// name is the first argument's name when it is a name bound to no slug ("" otherwise).
func (f *codeFile) slugNamed(args string) (slug, name string) {
	if m := slugFirstRE.FindStringSubmatch(args); m != nil {
		return m[1], ""
	} else if m := slugKeyRE.FindStringSubmatch(args); m != nil {
		return m[1], ""
	} else if m := firstNameRE.FindStringSubmatch(args); m != nil {
		if slug = f.constant(m[1]); slug != "" {
			return slug, ""
		}
		return "", m[1]
	}
	return "", ""
}

// isRead reports whether a tool's slug names a read (Composio's own tags, else its verb).
func isRead(slug string) bool { return (*triage.Kinds)(nil).Kind(slug) == model.KindRead }

// constant is the tool slug a name is bound to at the file's top level (one binding only: a
// name bound twice, or not to a slug, is "").
func (f *codeFile) constant(name string) string {
	slug := ""
	for _, raw := range f.raw {
		if !strings.Contains(raw, name) {
			continue
		}
		if m := constSlugRE.FindStringSubmatch(raw); m != nil && m[1] == name { // anchored at column 0: the top level
			if slug != "" && slug != m[2] {
				return ""
			}
			slug = m[2]
		}
	}
	return slug
}

// attrByName reads getattr(name, "member"[, default]) and hasattr(name, "member") at the name's
// index at in line (code, strings blanked; raw keeps them): a member named by a literal is that
// member, read (getattr) or only tested for (hasattr: member ""). ok is false for anything else,
// a name computed at run time included (dynamicSend reads that when it is called).
func attrByName(code, raw string, at int, name string) (member string, ok bool) {
	before := strings.TrimRight(code[:at], " \t")
	getattr := strings.HasSuffix(before, "getattr(")
	if !getattr && !strings.HasSuffix(before, "hasattr(") {
		return "", false
	}
	rest := strings.TrimLeft(code[at+len(name):], " \t")
	if !strings.HasPrefix(rest, ",") || len(raw) != len(code) {
		return "", false
	}
	from := len(code) - len(rest) + 1
	arg := strings.TrimLeft(raw[from:], " \t")
	if arg == "" || arg[0] != '"' && arg[0] != '\'' {
		return "", false
	}
	end := strings.IndexByte(arg[1:], arg[0])
	if end < 0 {
		return "", false
	}
	if !getattr {
		return "", true
	}
	return arg[1 : end+1], true
}

// sessionSends are a session's methods that send a tool's call (tools: its tools, when run).
var sessionSends = map[string]bool{
	"execute":       true,
	"proxyExecute":  true,
	"proxy_execute": true,
	"executeMeta":   true,
	"execute_meta":  true,
	"tools":         true,
}

// sessionCreates are a session's methods that create through the generated client, which every
// release re-sends on a timeout (sdkversion.PathOtherCreate): authorize is the session's link, a
// new connection request each call (@composio/core 0.21.0: toolRouter.session.link).
var sessionCreates = map[string]bool{"authorize": true}

// takenMember is what a session's member taken by name (attrByName) is a use of: "mcp" for its
// MCP address (mcp, url), "session" for a send method taken to be called, "" for anything else.
func takenMember(member string) string {
	switch {
	case member == "mcp" || member == "url":
		return "mcp"
	case member != "tools" && sessionSends[member]:
		return "session"
	}
	return ""
}
