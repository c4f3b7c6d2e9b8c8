package doctor

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/exectriage/exectriage/sdkversion"
)

// Which toolset a file's calls are on: the legacy line's ComposioToolSet (its get_tools,
// execute_action and handle_tool_calls send through legacy composio-core) or the current SDK's
// client and providers.

var (
	// a legacy toolset or its Action enum imported from a Composio package
	pyLegacyToolsetRE = regexp.MustCompile(`^\s*from\s+composio\w*(?:\.\w+)*\s+import\s+.*?\b(\w*ToolSet|Action|App)\b`)
	tsLegacyToolsetRE = regexp.MustCompile(`\b\w*ToolSet\b[^;]*(?:from\s*|require\s*\(\s*)["']composio-core["']`)
)

// legacyRE is a call of the legacy toolset's sending methods: a method on a receiver
// (toolset.get_tools(), ComposioToolSet().execute_action()), never a bare call, which is a
// function of the project's own (def get_tools); a receiver of the project's own object (self,
// this, cls) is not the toolset either. Beside the tools it lists and the actions it executes,
// it runs what a model asked for: handle_tool_calls, and for an OpenAI assistant's run
// handle_assistant_tool_calls, wait_and_handle_assistant_tool_calls (waitAndHandleAssistantToolCalls).
// The line's own client sends through actions.execute (composio.actions.execute(action=…)),
// which the current SDK does not have.
var legacyRE = regexp.MustCompile(
	`(` + ident + `|\))\s*\.\s*(execute_action|executeAction|get_tools|getTools|get_actions|getActions|handle_tool_calls|handleToolCall|` +
		`(?:wait_and_)?handle_assistant_tool_calls|(?:waitAndH|h)andleAssistantToolCalls|handleAssistantMessage|` +
		`execute_request|executeRequest|actions\s*\.\s*execute)\s*\(`,
)

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
	"andle_assistant_tool_calls",
	"andleAssistant",
	"xecute_request",
	"xecuteRequest",
	"ctions.execute",
}

// legacyActionRE is the action an execute_action call names, under action= or as its first
// argument: Action.GMAIL_FETCH_EMAILS, "GMAIL_FETCH_EMAILS".
var legacyActionRE = regexp.MustCompile(`(?:\baction\s*=\s*|^\s*)(?:Action\s*\.\s*)?["']?([A-Z][A-Z0-9_]{2,})\b`)

// legacyActionsRE is the list of actions a get_tools call names (actions=[…], actions: […]), and
// legacyActionName one of its items: Action.TAVILY_TAVILY_SEARCH, "GMAIL_FETCH_EMAILS".
var (
	legacyActionsRE   = regexp.MustCompile(`\bactions\s*[=:]\s*\[([^\]]*)\]`)
	legacyActionName  = regexp.MustCompile(`^\s*(?:Action\s*\.\s*)?["']?([A-Z][A-Z0-9_]{2,})["']?\s*$`)
	legacyOtherToolRE = regexp.MustCompile(`\b(apps|tags|use_case|useCase)\s*[=:]`)
)

// legacyRead is what a legacy sending call on line n names when it names reads only: the read an
// execute_action runs, or the reads a get_tools lists by name (and nothing else: apps or tags
// add tools it cannot name); "" for a write, for a tool the call does not spell out, or for
// another method.
func (f *codeFile) legacyRead(n int, method string) string {
	loc := legacyRE.FindStringIndex(f.raw[n])
	if loc == nil {
		return "" // a chain joined from lines below: the call's arguments are not read here
	}
	args := callArgs(f.raw, n, loc[1])
	switch strings.Join(strings.Fields(method), "") {
	case "execute_action", "executeAction", "actions.execute":
		if m := legacyActionRE.FindStringSubmatch(args); m != nil && isRead(m[1]) {
			return m[1]
		}
	case "get_tools", "getTools", "get_actions", "getActions":
		m := legacyActionsRE.FindStringSubmatch(args)
		if m == nil || legacyOtherToolRE.MatchString(args) {
			return ""
		}
		var reads []string
		for item := range strings.SplitSeq(m[1], ",") {
			if strings.TrimSpace(item) == "" {
				continue
			}
			a := legacyActionName.FindStringSubmatch(item)
			if a == nil || !isRead(a[1]) {
				return ""
			}
			reads = append(reads, a[1])
		}
		return strings.Join(reads, ", ")
	}
	return ""
}

// namesLegacyToolset reports whether a file imports the legacy toolset (ComposioToolSet,
// OpenAIToolSet, its Action or App enums) from a Composio package: the legacy line's sending
// calls (get_tools, execute_action, handle_tool_calls) are its toolset's, and a file that never
// names one calls methods of that name on objects of the project's own (agent.get_tools()),
// unless the receiver is named for a toolset (composio_toolset, self.toolset).
func namesLegacyToolset(f *codeFile) bool {
	for _, raw := range f.raw {
		if !strings.Contains(raw, "composio") {
			continue
		}
		if f.eco == PyPI && pyLegacyToolsetRE.MatchString(raw) || f.eco == NPM && tsLegacyToolsetRE.MatchString(raw) {
			return true
		}
	}
	return false
}

// providerImportRE is a current provider class imported from a Composio package (OpenAIProvider,
// LangchainProvider): the 0.8.0+ providers, whose handle_tool_calls sends through the SDK.
var providerImportRE = regexp.MustCompile(`^\s*from\s+composio\w*\s+import\s+.*?\b\w+Provider\b|` +
	`\b\w+Provider\b[^;]*from\s*["']@composio/`)

// namesProvider reports whether a file imports a current provider class.
func namesProvider(f *codeFile) bool {
	for _, raw := range f.raw {
		if strings.Contains(raw, "Provider") && providerImportRE.MatchString(raw) {
			return true
		}
	}
	return false
}

// legacyByImport judges an unpinned Python provider package (no version, no range: pip takes
// the newest that resolves) whose code imports ComposioToolSet or Action from a composio
// package: those names exist only in the legacy 0.7.x line, so the code runs on that line,
// which re-sends a timed-out execute; the finding cites the import.
func legacyByImport(found []Finding, uses []codeUse) {
	current := map[string]bool{} // files that pin the SDK to a line that sends once: the provider resolves with it
	for _, f := range found {
		if f.Ecosystem == PyPI && packageRole(PyPI, f.Package) == roleSDK && f.RetriesWrites != nil && !*f.RetriesWrites {
			current[f.File] = true
		}
	}
	for i := range found {
		f := &found[i]
		if f.Ecosystem != PyPI || f.Version != "" || f.RetriesWrites != nil || packageRole(PyPI, f.Package) != roleProvider ||
			current[f.File] {
			continue
		}
		if f.Constraint != "" { // a range that admits the legacy line: the code's imports say which line it runs on
			if old, _, err := sdkversion.RangeSplitAt(PyPI, f.Constraint, sdkversion.LegacyProvidersBefore); err != nil || !old {
				continue
			}
		}
		u := useUnder(uses, f, "legacy-import")
		if u == nil {
			continue
		}
		f.RetriesWrites = new(true)
		f.Evidence = fmt.Sprintf("%s:%d", u.rel, u.line)
		f.Use = UseUsed
		pinned := "is not pinned"
		if f.Constraint != "" {
			pinned = "allows the legacy line (" + f.Constraint + ")"
		}
		f.Reason = fmt.Sprintf("%s %s, and the code imports %s (%s), a name only the legacy line (before 0.8.0) has: that line "+
			"re-sends a timed-out execute up to 3 times with the same x-request-id", f.Package, pinned, u.text, f.Evidence)
		f.Fix = "migrate to " + strings.TrimPrefix(PythonFix, "upgrade to ") + " and its " + sdkversion.LegacyProvidersBefore +
			"+ providers (pin them)"
	}
}

// legacyProvider judges a Python provider package of the legacy 0.7.x line (composio_openai,
// composio_crewai, composio_agno, composio_langchain ... before 0.8.0): the ComposioToolSet/Action
// API on legacy composio-core, which re-sends a timed-out execute. Its own version decides; it
// reports false (and leaves f alone) for a later provider or a version it cannot tell.
func legacyProvider(f *Finding, d dep) bool {
	before := sdkversion.LegacyProvidersBefore
	legacy := false
	if d.version != "" {
		c, err := sdkversion.ComparePEP440(d.version, before)
		legacy = err == nil && c < 0
	} else if d.special == "" && d.constraint != "" {
		old, current, err := sdkversion.RangeSplitAt(PyPI, d.constraint, before)
		legacy = err == nil && old && !current
	}
	if !legacy {
		return false
	}
	f.RetriesWrites = new(true)
	f.Reason = fmt.Sprintf(
		"%s %s is the legacy line (before 0.8.0: ComposioToolSet/Action on legacy composio-core), which re-sends a timed-out "+
			"execute up to 3 times with the same x-request-id",
		d.name,
		cmp.Or(d.version, d.constraint),
	)
	f.Fix = "migrate to " + strings.TrimPrefix(PythonFix, "upgrade to ") + " and its " + before + "+ providers"
	return true
}

func shownRange(c string) string {
	if c == "" {
		return "no version constraint"
	}
	return c
}

// The legacy Python line runs its local tools in the SDK's own process: ComposioToolSet's
// execute_action (and handle_tool_calls through it) calls _execute_local for an action whose app
// is a local tool, and sends nothing to the API (ComposioHQ/composio v0.7.20,
// python/composio/tools/toolset.py; the tools under python/composio/tools/local, each app's enum
// its class name in upper snake case, its actions' the app's followed by the action's). A
// project whose legacy toolset names only local tools re-sends nothing over HTTP.
var legacyLocalApps = []string{"FILETOOL", "SHELLTOOL", "SHELL_TOOL", "CODE_ANALYSIS_TOOL", "CODE_FORMAT_TOOL", "BROWSER_TOOL",
	"CLIPBOARDTOOL", "EMBED_TOOL", "IMAGE_ANALYSER", "MATHEMATICAL", "RAGTOOL", "GIT", "HISTORY_FETCHER", "WORKSPACE_TOOL",
	"SPIDERTOOL", "SQLTOOL", "SYSTEM_TOOLS", "WEBTOOL", "ZEPTOOL"}

var (
	// an Action or App member named in code (Action.FILETOOL_CREATE_FILE, App.GITHUB), or a tool
	// named as a string ("GITHUB_STAR_A_REPOSITORY", "github")
	legacyToolRefRE = regexp.MustCompile(`\b(?:Action|App)\.([A-Z][A-Z0-9_]*)`)
	legacyToolStrRE = regexp.MustCompile(`\b(?:actions|apps|tools)\s*=\s*\[([^\]]*)\]`)
)

// legacyToolsOf is the tools a file of the legacy toolset (legacy) names: one "legacy-tools" use
// whose text is their names joined by commas (App and Action members, and the strings of an
// actions=, apps= or tools= list), at the first; none when it names none or is no such file.
func legacyToolsOf(f *codeFile, legacy bool) []codeUse {
	if !legacy {
		return nil
	}
	var names []string
	first := 0
	for n, raw := range f.raw {
		found := legacyToolRefRE.FindAllStringSubmatch(raw, -1)
		for _, m := range legacyToolStrRE.FindAllStringSubmatch(raw, -1) {
			for x := range strings.SplitSeq(m[1], ",") {
				if x = strings.TrimSpace(x); len(x) > 2 && (x[0] == '"' || x[0] == '\'') {
					found = append(found, []string{x, strings.ToUpper(strings.Trim(x, `"'`))})
				}
			}
		}
		if len(found) > 0 && len(names) == 0 {
			first = n + 1
		}
		for _, m := range found {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		return nil
	}
	return []codeUse{{rel: f.rel, line: first, eco: f.eco, what: "legacy-tools", text: strings.Join(names, ",")}}
}

// localLegacyTools is, when every tool the legacy files under a finding's directory name is a
// local tool's (legacyLocalApps), the use that names them; nil when one is not, or none is named.
func localLegacyTools(uses []codeUse, f *Finding) *codeUse {
	var first *codeUse
	for i := range uses {
		u := &uses[i]
		if u.what != "legacy-tools" || u.eco != f.Ecosystem || !under(u.rel, f.File) {
			continue
		}
		for name := range strings.SplitSeq(u.text, ",") {
			if !localLegacyTool(name) {
				return nil
			}
		}
		if first == nil {
			first = u
		}
	}
	return first
}

// localLegacyTool reports whether an App or Action name is a legacy local tool's: the app itself,
// or one of its actions (FILETOOL_CREATE_FILE; GITHUB_STAR is no GIT action).
func localLegacyTool(name string) bool {
	for _, app := range legacyLocalApps {
		if name == app || strings.HasPrefix(name, app+"_") {
			return true
		}
	}
	return false
}
