package sdkversion

import (
	"strings"
	"testing"
)

func TestRetriesWrites(t *testing.T) {
	tests := []struct {
		eco              Ecosystem
		pkg, version     string
		retries, decided bool
	}{
		{PyPI, "composio", "0.15.2", true, true},
		{PyPI, "composio", "0.16.0rc1", true, true},
		{PyPI, "composio", "0.16.0", false, true},
		{PyPI, "Composio", "0.17.1", false, true},
		{PyPI, "composio_core", "0.7.15", true, true},
		{NPM, "@composio/core", "0.13.1", true, true},
		{NPM, "@composio/core", "0.14.0-beta.2", true, true},
		{NPM, "@composio/core", "0.14.0", false, true},
		{NPM, "composio-core", "0.5.39", false, true}, // npm's v1 SDK never had retry code (npm pack, 0.1.1-0.5.39)
		{PyPI, "composio", "1.0.0rc5", true, true},    // a pre-release published before the 0.x renumbering
		{PyPI, "composio", "1.0.0", false, true},
		{NPM, "@composio/openai", "0.13.1", false, false},
		{PyPI, "composio", "not-a-version", false, false},
		{PyPI, "requests", "2.0.0", false, false},
		{NPM, "@composio/client", "0.1.0", false, false},
		{PyPI, "composio", "v0.15.2", true, true},
	}
	for _, tt := range tests {
		retries, decided := RetriesWrites(tt.eco, tt.pkg, tt.version, PathExecute)
		if retries != tt.retries || decided != tt.decided {
			t.Errorf("RetriesWrites(%s, %s, %s) = %v, %v; want %v, %v", tt.eco, tt.pkg, tt.version, retries, decided, tt.retries, tt.decided)
		}
	}
}

func TestFromRecord(t *testing.T) {
	tests := []struct {
		hints []string
		want  string
		ok    bool
	}{
		{[]string{"PYTHON_SDK", ""}, PythonSDK, true},
		{[]string{"", "langchain-python"}, PythonSDK, true},
		{[]string{"TYPESCRIPT", ""}, TypeScriptSDK, true},
		{[]string{"", "", "nodejs-20"}, TypeScriptSDK, true},
		{[]string{"ruby", "rails"}, "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		sdk, _, ok := FromRecord(tt.hints...)
		if ok != tt.ok || sdk.Name != tt.want {
			t.Errorf("FromRecord(%q) = %q, %v; want %q, %v", tt.hints, sdk.Name, ok, tt.want, tt.ok)
		}
	}
}

// TestPreReleaseLinesWithoutTheFix: @composio/core 1.0.0-beta.1 is past 0.23.0 by SemVer
// order but re-sends session writes (measured with the published package): it is judged by
// what it contains; its tools.execute is fixed, and 1.0.0 itself is not listed.
func TestPreReleaseLinesWithoutTheFix(t *testing.T) {
	if r, ok := RetriesWrites(NPM, TypeScriptSDK, "1.0.0-beta.1", PathSession); !r || !ok {
		t.Errorf("1.0.0-beta.1 session: %v %v", r, ok)
	}
	if r, note := AutoRetriesOn(TypeScriptSDK, "1.0.0-beta.1", PathSession); !r || !strings.Contains(note, "pre-release line") {
		t.Errorf("1.0.0-beta.1 note: %v %q", r, note)
	}
	if r, _ := RetriesWrites(NPM, TypeScriptSDK, "1.0.0-beta.1", PathExecute); r {
		t.Error("1.0.0-beta.1 tools.execute said to retry")
	}
	if r, _ := RetriesWrites(NPM, TypeScriptSDK, "0.23.0", PathSession); r {
		t.Error("0.23.0 session said to retry")
	}
}
