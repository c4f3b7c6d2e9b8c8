package doctor

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
	"github.com/exectriage/exectriage/triage"
)

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
func codeFindings(uses []codeUse, read map[Ecosystem][]string, found []Finding) ([]Finding, []Note) {
	var out []Finding
	var notes []Note
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
		local := (*codeUse)(nil)
		if what == "legacy" {
			local = localLegacyTools(uses, f)
		}
		if u := sendUnder(uses, f, what); u != nil && local == nil {
			f.Evidence, f.Use = u.at(), UseUsed
			continue
		}
		f.RetriesWrites = new(false)
		f.may = false
		f.Use = UseNotUsed
		f.Reason = f.Reason + "; present, not used: the code under " + dirOf(f.File) + " never calls " + path
		if local != nil {
			f.Reason = strings.TrimSuffix(f.Reason, path) + "a tool that is not one of its local tools: it names only those (" +
				shortList(local.text) + " at " + local.at() + "), which the legacy toolset runs in the SDK's own process, sending nothing " +
				"to the API"
		}
		if r := useUnder(uses, f, what+"-read"); r != nil && (what == "execute" || what == "legacy") {
			f.Reason += " with a write: it sends only reads (" + r.text + " at " + r.at() + "), which, sent again, change nothing"
		}
		f.Fix = ""
	}
	for _, f := range found {
		if out1, ok := sessionFinding(uses, f, &notes); ok {
			out = append(out, out1)
		}
	}
	return out, notes
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
// sending call) or uses sessions only for their MCP address (its own line, not an alarm). A
// session whose sends could not be followed (handed to code doctor cannot read, or never used
// in the code read) is added to notes at its place, never a finding.
func sessionFinding(uses []codeUse, f Finding, notes *[]Note) (Finding, bool) {
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
	if u := sendUnder(uses, &f, "session"); u != nil {
		out.RetriesWrites, out.Evidence, out.Use = new(true), u.at(), UseUsed
		out.Reason = fmt.Sprintf(
			"the project sends through tool-router sessions (%s, %s), and %s a session write that timed out (session writes are sent "+
				"once from %s)",
			u.at(),
			callText(u.text),
			what,
			fix,
		)
		out.Fix = fixText
		return out, true
	}
	if u := useUnder(uses, &f, "session?"); u != nil && useUnder(uses, &f, "mcp") == nil {
		// handed to code doctor cannot read, or never used in the code read: a note, not a finding
		where := "handed on here to code doctor cannot read"
		if nameRE.MatchString(u.text) {
			where = "made here and not used in the code read (another module may import it)"
		}
		*notes = append(*notes, Note{Evidence: u.at(), CallPath: CallSession, Call: u.text,
			Text: "a tool-router session " + where + ", so its sends could not be followed: if that code sends through it, " + what +
				" a session write that timed out (" + fixText + ")"})
		return Finding{}, false
	}
	if u := sendUnder(uses, &f, "session-read"); u != nil {
		out.RetriesWrites, out.Evidence, out.Use = new(false), u.at(), UseUsed
		out.Reason = "the project sends only reads through tool-router sessions (" + u.at() + ", " + u.text +
			"): sent again, a read changes nothing"
		return out, true
	}
	if u := sendUnder(uses, &f, "mcp"); u != nil {
		out.RetriesWrites, out.Evidence, out.Use = new(false), u.at(), UseMCP
		out.Reason = fmt.Sprintf(
			"tools run over MCP (%s, %s): the SDK's session retries do not apply (%s a session write only when the SDK sends it)",
			u.at(),
			callText(u.text),
			what,
		)
		return out, true
	}
	return Finding{}, false
}

// callText is a call as a person reads it: a match that ends at its opening parenthesis
// closed (session.tools( → session.tools()).
func callText(text string) string {
	if strings.HasSuffix(text, "(") {
		return text + ")"
	}
	return text
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

// sendUnder is the send a finding cites: a call that sends a tool (execute, the proxy, a meta
// tool, handle_tool_calls) before a tool list handed on (tools.get, session.tools(), get_tools),
// which sends only when the framework runs a tool, through the call the code makes or the
// framework's own; and in either, the project's code before its tests.
func sendUnder(uses []codeUse, f *Finding, what string) *codeUse {
	var best *codeUse
	for i := range uses {
		u := &uses[i]
		if u.what != what || u.eco != f.Ecosystem || !under(u.rel, f.File) {
			continue
		}
		if best == nil || sendRank(u) < sendRank(best) {
			best = u
		}
	}
	return best
}

// sendRank orders the sends a finding may cite, the lowest first: a call that sends before a tool
// list handed on, the project's code before its tests.
func sendRank(u *codeUse) int {
	r := 0
	if listsTools(u.text) {
		r += 2
	}
	if testCode(u.rel) {
		r++
	}
	return r
}

// testCode reports whether a file is a test's (a tests or spec directory, test_x.py, x_test.py,
// x.test.ts, x.spec.js): a use there is cited only when the project's code has none.
func testCode(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		switch seg {
		case "test", "tests", "__tests__", "spec", "specs", "e2e":
			return true
		}
	}
	base := path.Base(rel)
	stem := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, ".test") ||
		strings.HasSuffix(stem, ".spec") || base == "conftest.py"
}

// listsTools reports whether a use's call gets a tool list rather than sending a tool.
func listsTools(text string) bool {
	call := strings.TrimRight(strings.TrimSpace(text), "( ")
	for _, end := range []string{".tools", ".get", "get_tools", "getTools"} {
		if strings.HasSuffix(call, end) {
			return true
		}
	}
	return false
}

// otherCreateNotes notes each create the SDK's generated client re-sends on a timeout in every
// release read (sdkversion.PathOtherCreate: connected accounts, auth configs, webhook endpoints,
// trigger instances...): no upgrade stops it, so it is a note for whoever handles the timeout
// (an answer lost may leave two), not a finding. They come in the order of their places.
func otherCreateNotes(uses []codeUse, found []Finding) []Note {
	var out []Note
	once := sdkSendsOnce(uses)
	var creates []*codeUse
	for i := range uses {
		if uses[i].what == "other-create" {
			creates = append(creates, &uses[i])
		}
	}
	slices.SortStableFunc(creates, func(a, b *codeUse) int { return cmp.Or(cmp.Compare(a.rel, b.rel), cmp.Compare(a.line, b.line)) })
	for _, u := range creates {
		if once[u.eco] {
			continue // every client built sends each request once (sdkByBuild)
		}
		if !slices.ContainsFunc(found, func(f Finding) bool {
			return f.Ecosystem == u.eco && packageRole(f.Ecosystem, f.Package) == roleSDK && under(u.rel, f.File)
		}) {
			continue // no SDK over this code: the call is another package's (npm composio-core has no retry code)
		}
		pkg := sdkversion.TypeScriptSDK
		if u.eco == PyPI {
			pkg = sdkversion.PythonSDK
		}
		call := strings.Join(strings.Fields(strings.TrimRight(strings.TrimPrefix(u.text, "."), "(,) ")), "")
		out = append(out, Note{Evidence: u.at(), CallPath: string(sdkversion.PathOtherCreate), Call: call,
			Text: call + " goes through the SDK's generated client, which re-sends a timed-out request (2 retries) in every " + pkg +
				" release read: after a timeout, look for the one it made before creating it again"})
	}
	return out
}

// shortList is a list of names joined by commas, its first three and how many more.
func shortList(joined string) string {
	names := slices.Compact(slices.Sorted(strings.SplitSeq(joined, ",")))
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}
