package doctor

import (
	"cmp"
	"regexp"
	"strings"
)

// A send whose tool is a parameter of the function it is in (a helper execute(slug, args) that
// calls session.execute(slug, args)) sends what the function's callers name: when every call of
// the function in its file names a read by a literal or a constant (execute(SEARCH_TOOL, …)),
// the send sends reads only. A function called nowhere in its file, or once with anything else,
// may be given any tool: its send counts as a write's.

// sessionSend is the use a session's send method called at column col of code line n makes:
// "session-read" and the tool when it is execute naming a read (readSend), else "session" and
// the call's text.
func (f *codeFile) sessionSend(n, col int, member, text string) (what, said string) {
	if member == "execute" {
		if tool, read := f.readSend(f.lineAt(n, col)); read {
			return "session-read", tool
		}
	}
	return "session", text
}

// paramReads reports whether name is a parameter of the function whose body holds line n (0-based,
// raw lines) and every call of that function in the file names a read at the parameter's place;
// tool is the first read named.
func (f *codeFile) paramReads(n int, name string) (tool string, ok bool) {
	fn, pos := "", -1
	for l := n; l >= 0 && l > n-200; l-- {
		header, end, isHeader := funcHeader(f.code[l])
		if !isHeader {
			continue
		}
		open := strings.IndexByte(f.raw[l][min(end, len(f.raw[l])):], '(')
		if open < 0 {
			return "", false
		}
		params := topLevel(callArgs(f.raw, l, end+open+1))
		if len(params) > 0 && (paramName(params[0]) == "self" || paramName(params[0]) == "cls") {
			params = params[1:] // a method's receiver is not passed at its calls
		}
		for p, text := range params {
			if paramName(text) == name {
				fn, pos = header, p
			}
		}
		if fn != "" {
			break
		}
		return "", false // the nearest function does not take it: a value from further out
	}
	if fn == "" {
		return "", false
	}
	call := regexp.MustCompile(`(?:^|[^\w$.]|\b(?:this|self)\s*\.\s*)` + regexp.QuoteMeta(fn) + `\s*\(`)
	calls := 0
	for l, code := range f.code {
		for _, loc := range call.FindAllStringIndex(code, -1) {
			if h, _, isHeader := funcHeader(code); isHeader && h == fn {
				continue // its own header
			}
			args := topLevel(callArgs(f.raw, l, loc[1]))
			if len(args) > 0 && typedParamRE.MatchString(args[0]) {
				continue // a method's signature in a type (execute(slug: string, …)), not a call
			}
			if pos >= len(args) {
				return "", false
			}
			slug, _ := f.slugNamed(args[pos] + ")")
			if slug == "" || !isRead(slug) {
				return "", false
			}
			tool = cmp.Or(tool, slug)
			calls++
		}
	}
	return tool, calls > 0
}

// topLevel splits a call's or a header's arguments at the commas outside brackets and strings.
func topLevel(args string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, args[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(args[start:]) != "" {
		out = append(out, args[start:])
	}
	return out
}

// typedParamRE is a parameter declared with its type (slug: string, options?: Options).
var typedParamRE = regexp.MustCompile(`^\s*` + ident + `\s*\??\s*:`)

// paramName is a parameter's name: the identifier it starts with (a rest's dots, a type or a
// default after it dropped).
var paramNameRE = regexp.MustCompile(`^\s*(?:\.\.\.|\*{1,2})?(` + ident + `)`)

func paramName(p string) string {
	if m := paramNameRE.FindStringSubmatch(p); m != nil {
		return m[1]
	}
	return ""
}
