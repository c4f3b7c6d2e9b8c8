package doctor

import (
	"slices"
	"strings"
)

// A tool list a function returns (return await session.tools()) runs where a caller hands it
// on: to an agent, to generateText, as it is or spread into a list of its own. The send is
// cited there, where a reviewer sees the tools run, followed through returns up to
// maxReturnHops functions up and through lists up to maxListHops; found nowhere, the send stays
// cited where the list is made.
const (
	maxReturnHops = 3
	maxListHops   = 3
)

// returnedRun is the use of a tool list made by the call text on line n of file fi when that
// line returns it and a caller of its function hands it to a call: cited at that call, its text
// saying the path. ok is false when line n does not return it, or no caller runs it in a way
// doctor can read.
func returnedRun(p *project, defs map[string][]funcDef, fi, n int, text string) (codeUse, bool) {
	f := &p.files[fi]
	if !returnRE.MatchString(f.code[n]) {
		return codeUse{}, false
	}
	fn, line, callee, ok := handOff(p, defs, fi, n, 0)
	if !ok {
		return codeUse{}, false
	}
	run := strings.TrimSpace(text) + ") run by " + callee
	return codeUse{rel: p.files[fn].rel, line: line + 1, eco: f.eco, what: "session", text: run}, true
}

// handOff finds where the value returned on line n of file fi is handed to a call by a caller
// of the function that returns it: the caller's file, line (0-based) and the call's name.
func handOff(p *project, defs map[string][]funcDef, fi, n, hops int) (fn, line int, callee string, ok bool) {
	name, d := enclosingDef(defs, fi, n)
	if d == nil || hops >= maxReturnHops {
		return 0, 0, "", false
	}
	for fj := range p.files {
		f := &p.files[fj]
		for m, text := range f.code {
			if fj == d.fi && m == d.line || !strings.Contains(text, name) {
				continue
			}
			for _, at := range wordIndexes(text, name) {
				after := strings.TrimLeft(text[at+len(name):], " \t")
				if !strings.HasPrefix(after, "(") || memberName(strings.TrimRight(text[:at], " \t")) ||
					resolveDef(p, defs, fj, name) != d {
					continue
				}
				switch {
				case returnRE.MatchString(text) && !strings.Contains(text[:at], "("):
					if fn, line, callee, ok = handOff(p, defs, fj, m, hops+1); ok {
						return fn, line, callee, true
					}
				default:
					if c, _, _, in := callAcross(f, m, at); in && !inListing(text, at) {
						return fj, m, c, true
					}
					if b := bindRE.FindStringSubmatchIndex(text); b != nil && b[4] <= at {
						if line, callee, ok = listHandedOn(f, text[b[2]:b[3]], m+1, enclosingEnd(f, m), 0); ok {
							return fj, line, callee, true
						}
					}
				}
			}
		}
	}
	return 0, 0, "", false
}

// listHandedOn finds the first call in lines from..to of f that a tool list bound to name is
// handed to, as it is or spread into another list bound to a name of its own.
func listHandedOn(f *codeFile, name string, from, to, hops int) (line int, callee string, ok bool) {
	for n := from; n <= to && n < len(f.code); n++ {
		text := f.code[n]
		for _, at := range wordIndexes(text, name) {
			before := strings.TrimRight(text[:at], " \t")
			if memberName(before) || inListing(text, at) {
				continue
			}
			if c, _, _, in := callAcross(f, n, at); in {
				return n, c, true
			}
			if b := bindRE.FindStringSubmatchIndex(text); b != nil && b[4] <= at && hops < maxListHops {
				// bound again, or spread into a list of its own: { ...tools, mark_done }
				if line, callee, ok = listHandedOn(f, text[b[2]:b[3]], n+1, to, hops+1); ok {
					return line, callee, true
				}
			}
		}
	}
	return 0, "", false
}

// enclosingDef is the innermost function of the project's whose body holds line n of file fi,
// with its name.
func enclosingDef(defs map[string][]funcDef, fi, n int) (string, *funcDef) {
	var name string
	var found *funcDef
	for k, ds := range defs {
		if strings.HasPrefix(k, "class ") {
			continue
		}
		for i := range ds {
			d := &ds[i]
			if d.fi == fi && d.line < n && n <= d.end && (found == nil || d.line > found.line) {
				name, found = k, d
			}
		}
	}
	return name, found
}

// listMakers names the functions of files that return a tool list: a tools() call's, or
// another such function's (up to maxReturnHops deep). widen reads the files that name one,
// where the list may be run.
func listMakers(files []codeFile) []string {
	if !slices.ContainsFunc(files, returnsTools) {
		return nil // no function returns a tool list: nothing to read the functions for
	}
	defs := funcDefs(files)
	made := map[string]bool{}
	for range maxReturnHops {
		grew := false
		for name, ds := range defs {
			if made[name] || strings.HasPrefix(name, "class ") {
				continue
			}
			for _, d := range ds {
				if returnsList(&files[d.fi], d, made) {
					made[name], grew = true, true
					break
				}
			}
		}
		if !grew {
			break
		}
	}
	out := make([]string, 0, len(made))
	for name := range made {
		out = append(out, name)
	}
	return out
}

// returnsList reports whether a line of d's body returns a tools() call, or a call of a
// function made names.
func returnsList(f *codeFile, d funcDef, made map[string]bool) bool {
	for n := d.line + 1; n <= d.end && n < len(f.code); n++ {
		m := returnRE.FindStringSubmatch(f.code[n])
		if m == nil {
			continue
		}
		if strings.Contains(m[1], ".tools(") {
			return true
		}
		for name := range made {
			if at := wordIndexes(m[1], name); len(at) > 0 && strings.HasPrefix(strings.TrimLeft(m[1][at[0]+len(name):], " "), "(") {
				return true
			}
		}
	}
	return false
}

// returnsTools reports whether a line of f returns a tools() call.
func returnsTools(f codeFile) bool {
	for _, line := range f.code {
		if strings.Contains(line, ".tools(") && returnRE.MatchString(line) {
			return true
		}
	}
	return false
}
