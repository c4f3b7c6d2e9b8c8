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
// path. It reads the SDK version (metadata.sdk_version) and, only where the answer depends on
// it, the language from source.language (x-source), falling back to source.framework and
// source.host. A version that re-sends in both languages gets a note that names neither, so
// an execution reads the same whether its language was loaded (a log's detail) or not (its
// list entry: every front says the same of it); one that re-sends in one language only is
// named for that language, or reported "if it is" that language when none is recorded (a load
// reads it from another execution of the same installation, see Languages).
func OldSDK(e *model.Execution) string {
	return oldSDK(strings.TrimSpace(e.SDKVersion), CallPath(e), e.Source, e.Detailed)
}

// oldSDK is OldSDK of an execution of SDK version ver on path whose record carries src;
// detailed says whether the record is a detail (a list entry never carries the language).
func oldSDK(ver string, path sdkversion.Path, src model.Source, detailed bool) string {
	if ver == "" {
		return ""
	}
	ts, tsNote := sdkversion.AutoRetriesOn(sdkversion.TypeScriptSDK, ver, path)
	py, pyNote := sdkversion.AutoRetriesOn(sdkversion.PythonSDK, ver, path)
	what := sdkversion.RetriesWritesNote
	if path == sdkversion.PathSession {
		what = "retries session writes"
	}
	if ts && py {
		return "Composio SDK " + ver + " " + what + " (TypeScript before " + sdkversion.FixedOn(
			sdkversion.NPM,
			sdkversion.TypeScriptSDK,
			path,
		) +
			", Python before " + sdkversion.FixedOn(
			sdkversion.PyPI,
			sdkversion.PythonSDK,
			path,
		) + ")"
	}
	if sdk, _, ok := sdkversion.FromRecord(src.Language, src.Framework, src.Host); ok {
		switch sdk.Name {
		case sdkversion.TypeScriptSDK:
			return tsNote
		case sdkversion.PythonSDK:
			return pyNote
		}
		_, note := sdkversion.AutoRetriesOn(sdk.Name, ver, path)
		return note
	}
	missing := "(language not recorded)"
	if !detailed {
		missing = "(language not in its list entry)" // the Logs API lists entries without their source
	}
	switch {
	case ts:
		return "Composio SDK " + ver + " " + missing + " " + what + " if it is TypeScript @composio/core"
	case py:
		return "Composio SDK " + ver + " " + missing + " " + what + " if it is Python composio"
	}
	return ""
}

// NoteNeedsLanguage reports whether e's old-SDK note depends on a language its record does not
// name (the Logs API lists entries without source; a source may name no SDK): its version re-sends writes in one
// language only, so only a detail, which records the language, could name it: a load fetches
// one such detail for each installation (InstallationOf) and names the others' language from it
// (Languages).
func NoteNeedsLanguage(e *model.Execution) bool {
	return e.SDKVersion != "" && sdkNamed(e.Source) == "" && oneLanguage(strings.TrimSpace(e.SDKVersion), CallPath(e))
}

// sdkNamed is the SDK a record's source names (its language, framework or host), "" for none.
func sdkNamed(src model.Source) string {
	if src == (model.Source{}) {
		return ""
	}
	sdk, _, _ := sdkversion.FromRecord(src.Language, src.Framework, src.Host)
	return sdk.Name
}

// oneLanguage reports whether SDK version ver re-sends writes on path in one of the two
// languages only (OldSDK's note then depends on the language).
func oneLanguage(ver string, path sdkversion.Path) bool {
	ts, _ := sdkversion.AutoRetriesOn(sdkversion.TypeScriptSDK, ver, path)
	py, _ := sdkversion.AutoRetriesOn(sdkversion.PythonSDK, ver, path)
	return ts != py
}
