package triage

import (
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
)

// The first versions whose tools.execute and proxy no longer retry (Python composio 0.16.0,
// TypeScript @composio/core 0.14.0); see package sdkversion.
const (
	PythonSDKFixedIn     = sdkversion.PythonFixedIn
	TypeScriptSDKFixedIn = sdkversion.TypeScriptFixedIn
)

// CallPath is the call path an execution came through, as far as its log tells: a
// tool-router session's execution (context.session_id, or the run of a meta tool such as
// COMPOSIO_MULTI_EXECUTE_TOOL) or tools.execute/proxy.
func CallPath(e *model.Execution) sdkversion.Path {
	if e.SessionID != "" || e.Parent != nil && strings.HasPrefix(strings.ToUpper(e.Parent.ToolSlug), "COMPOSIO_") {
		return sdkversion.PathSession
	}
	return sdkversion.PathExecute
}

// OldSDK returns a one-line note when the execution names a Composio SDK that re-sends writes
// on the path it came through ("Python composio 0.15.2 auto-retries writes"; "TypeScript
// @composio/core 0.21.0 retries session writes (fixed in 0.23.0)"), else "": never for a fixed
// path. It reads the SDK version (metadata.sdk_version) and the language from source.language
// (x-source), falling back to source.framework and source.host. Without a known language, a
// version below both SDKs' fixes is old in either; one in between is reported as old only if it
// is Python's.
func OldSDK(e *model.Execution) string {
	ver := strings.TrimSpace(e.SDKVersion)
	if ver == "" {
		return ""
	}
	path := CallPath(e)
	if sdk, _, ok := sdkversion.FromRecord(e.Source.Language, e.Source.Framework, e.Source.Host); ok {
		_, note := sdkversion.AutoRetriesOn(sdk.Name, ver, path)
		return note
	}
	what := sdkversion.RetriesWritesNote
	if path == sdkversion.PathSession {
		what = "retries session writes"
	}
	if r, _ := sdkversion.AutoRetriesOn(sdkversion.TypeScriptSDK, ver, path); r {
		return "Composio SDK " + ver + " (language not recorded) " + what
	}
	if r, _ := sdkversion.AutoRetriesOn(sdkversion.PythonSDK, ver, path); r {
		return "Composio SDK " + ver + " (language not recorded) " + what + " if it is Python composio"
	}
	return ""
}
