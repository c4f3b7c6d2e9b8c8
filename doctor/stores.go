package doctor

import (
	"regexp"
	"strings"
)

// Sessions kept in a container: a server that makes one tool-router session per user keeps it in
// a map (sessions.set(userId, await composio.create(userId)), self._sessions[user_id] =
// composio.create(...)) and reads it back where it sends (sessions.get(userId).execute(...),
// return self._sessions[user_id]). A container a session is stored into holds sessions
// (kindSessions), and what is read out of it by a key is a session.

var (
	// NAME[key] = <rhs>, the last name of a dotted target (self._sessions[user_id] = ...)
	storeIndexRE = regexp.MustCompile(`(` + ident + `)\s*\[[^\]]+\]\s*=\s*(?:await\s+)?(.+)$`)
	// NAME.set(key, <rhs>)
	storeSetRE = regexp.MustCompile(`(` + ident + `)\s*\.\s*set\s*\(\s*[^,()]+(?:\([^()]*\))?\s*,\s*(?:await\s+)?(.+?)\)?\s*\)\s*;?\s*\}*\s*$`)
	// NAME[key] or NAME.get(key), read whole: a value out of a container
	storeReadRE = regexp.MustCompile(`^(?:` + ident + `\s*\.\s*)*(` + ident + `)\s*(?:\[[^\]]+\]|\.\s*get\s*\([^()]*\))\s*[;,)]?\s*$`)
	// FUNC(args).member(: a session a function of the project's makes, used at once
	// (get_or_create_session(user_id).tools(), sessionFor(userId).execute(...))
	// ((await sessionFor(userId)).execute(...) too)
	madeUseRE = regexp.MustCompile(`(` + ident + `)\s*\([^()]*\)\s*\)?\s*\.\s*(` + ident + `)\s*\(`)
	// NAME[key].member: a session read and used at once (sessions.get(userId).execute(...),
	// sessions[userId].mcp.url)
	storeSendRE = regexp.MustCompile(`(` + ident + `)\s*(?:\[[^\]]+\]|\.\s*get\s*\([^()]*\))\s*\.\s*(` + ident + `)\s*(\()?`)
)

// storeIn is the container a line stores a value into and the value's expression ("" for none).
func storeIn(line string) (container, rhs string) {
	if m := storeSetRE.FindStringSubmatch(line); m != nil {
		return m[1], m[2]
	}
	if m := storeIndexRE.FindStringSubmatch(line); m != nil {
		return m[1], m[2]
	}
	return "", ""
}

// storedRead reports whether an expression reads a value out of a container that holds
// sessions.
func storedRead(rhs string, names map[string]valueKind) bool {
	m := storeReadRE.FindStringSubmatch(rhs)
	return m != nil && names[m[1]] == kindSessions
}

// storedSend is a session read out of a container and used in one expression, as written: what
// it is (a use's what: "session" for a send, sessions.get(userId).execute(...), "mcp" for its
// address, sessions[userId].mcp.url) and the expression; "" for none.
func storedSend(line string, names map[string]valueKind) (what, text string) {
	for _, m := range storeSendRE.FindAllStringSubmatch(line, -1) {
		switch {
		case names[m[1]] != kindSessions:
		case m[3] != "" && sessionSends[m[2]]:
			return "session", m[0]
		case m[3] == "" && (m[2] == "mcp" || m[2] == "url"):
			return "mcp", m[0]
		}
	}
	return "", ""
}

// storedUse reads what line n does with sessions no name holds: it reports true when the line
// stores a session into a container (not a session left unfollowed: it is followed where it is
// read out), and calls use when the line reads one out of a container, or gets one from a
// function of the project's, and uses it at once (its execute, its tools when they are run, its
// MCP address).
func storedUse(f *codeFile, n int, names, funcs map[string]valueKind, use func(what, text string)) (kept bool) {
	line := f.code[n]
	// (cheap tests first: doctor reads whole trees)
	if strings.Contains(line, "]") || strings.Contains(line, ".set") {
		if c, rhs := storeIn(line); c != "" && names[c] == kindSessions && rhsKind(rhs, names, funcs) == kindSession {
			return true
		}
	}
	called := strings.Contains(line, ").") || strings.Contains(line, ") .")
	if called || strings.Contains(line, "].") || strings.Contains(line, "] .") {
		if what, text := storedSend(line, names); what != "" {
			use(what, text)
		}
	}
	if !called {
		return false
	}
	for _, m := range madeUseRE.FindAllStringSubmatchIndex(line, -1) {
		fn, method := line[m[2]:m[3]], line[m[4]:m[5]]
		// a tool list returned is run where a caller hands it on, which is not followed from here
		if funcs[fn] == kindSession && sessionSends[method] && (method != "tools" || !returnRE.MatchString(line) && toolsRun(f, n, m[0])) {
			use("session", line[m[0]:m[1]])
		}
	}
	return false
}
