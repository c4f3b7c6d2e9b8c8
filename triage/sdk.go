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

// OldSDK returns a one-line note when the execution names a Composio SDK that auto-retries
// writes ("Python composio 0.15.2 auto-retries writes"), else "". It reads the SDK version
// (metadata.sdk_version) and the language from source.language (x-source), falling back to
// source.framework and source.host. Without a known language, a version below both fixes
// (< 0.14.0) is old in either SDK; one in between is reported as old only if it is Python's.
func OldSDK(e *model.Execution) string {
	ver := strings.TrimSpace(e.SDKVersion)
	if ver == "" {
		return ""
	}
	if sdk, _, ok := sdkversion.FromRecord(e.Source.Language, e.Source.Framework, e.Source.Host); ok {
		_, note := sdkversion.AutoRetries(sdk.Name, ver)
		return note
	}
	if r, _ := sdkversion.AutoRetries(sdkversion.TypeScriptSDK, ver); r {
		return "Composio SDK " + ver + " (language not recorded) " + sdkversion.RetriesWritesNote
	}
	if r, _ := sdkversion.AutoRetries(sdkversion.PythonSDK, ver); r {
		return "Composio SDK " + ver + " (language not recorded) auto-retries writes if it is Python composio"
	}
	return ""
}
