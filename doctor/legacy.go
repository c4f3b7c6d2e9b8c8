package doctor

import (
	"regexp"
	"strings"
)

// Which toolset a file's calls are on: the legacy line's ComposioToolSet (its get_tools,
// execute_action and handle_tool_calls send through legacy composio-core) or the current SDK's
// client and providers.

var (
	// a legacy toolset or its Action enum imported from a Composio package
	pyLegacyToolsetRE = regexp.MustCompile(`^\s*from\s+composio\w*(?:\.\w+)*\s+import\s+.*?\b(\w*ToolSet|Action|App)\b`)
	tsLegacyToolsetRE = regexp.MustCompile(`\b\w*ToolSet\b[^;]*(?:from\s*|require\s*\(\s*)["']composio-core["']`)
)

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
