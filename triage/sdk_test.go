package triage

import (
	"testing"

	"github.com/exectriage/exectriage/model"
)

func TestOldSDK(t *testing.T) {
	tests := []struct {
		name string
		e    model.Execution
		want string
	}{
		{"python old", model.Execution{SDKVersion: "0.15.2", Source: model.Source{Language: "python"}}, "Python composio 0.15.2 auto-retries writes"},
		{"python x-source", model.Execution{SDKVersion: "0.15.2", Source: model.Source{Language: "PYTHON_SDK"}}, "Python composio 0.15.2 auto-retries writes"},
		{"python fixed", model.Execution{SDKVersion: "0.16.0", Source: model.Source{Language: "python"}}, ""},
		{"typescript old", model.Execution{SDKVersion: "0.13.1", Source: model.Source{Language: "TYPESCRIPT_SDK"}}, "TypeScript @composio/core 0.13.1 auto-retries writes"},
		{"typescript 0.15 is fixed", model.Execution{SDKVersion: "0.15.0", Source: model.Source{Language: "typescript"}}, ""},
		{"language from framework", model.Execution{SDKVersion: "0.13.0", Source: model.Source{Framework: "node"}}, "TypeScript @composio/core 0.13.0 auto-retries writes"},
		{"no language, old for both", model.Execution{SDKVersion: "0.12.0"}, "Composio SDK 0.12.0 (language not recorded) auto-retries writes"},
		{"no language, old for python only", model.Execution{SDKVersion: "0.15.0"}, "Composio SDK 0.15.0 (language not recorded) auto-retries writes if it is Python composio"},
		{"no language, new", model.Execution{SDKVersion: "0.16.2"}, ""},
		{"no version", model.Execution{Source: model.Source{Language: "python"}}, ""},
		// Per path: a session execution of TS 0.21.0 is retried, its tools.execute is not.
		{"session on ts 0.21.0", model.Execution{SDKVersion: "0.21.0", SessionID: "trs_1", Source: model.Source{Language: "typescript"}},
			"TypeScript @composio/core 0.21.0 retries session writes (fixed in 0.23.0)"},
		{"tools.execute on ts 0.21.0", model.Execution{SDKVersion: "0.21.0", Source: model.Source{Language: "typescript"}}, ""},
		{"session on ts 0.23.0", model.Execution{SDKVersion: "0.23.0", SessionID: "trs_1", Source: model.Source{Language: "typescript"}}, ""},
		{"meta tool run on python 0.25.1", model.Execution{SDKVersion: "0.25.1", Parent: &model.Parent{LogID: "log_m", ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL"}, Source: model.Source{Language: "python"}},
			"Python composio 0.25.1 retries session writes (fixed in 0.26.0)"},
		{"session on python 0.26.0", model.Execution{SDKVersion: "0.26.0", SessionID: "s", Source: model.Source{Language: "PYTHON_SDK"}}, ""},
		{"session, no language, between the fixes", model.Execution{SDKVersion: "0.24.0", SessionID: "s"},
			"Composio SDK 0.24.0 (language not recorded) retries session writes if it is Python composio"},
	}
	for _, tt := range tests {
		if got := OldSDK(&tt.e); got != tt.want {
			t.Errorf("%s: OldSDK = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// One Classifier sees an SDK version on both call paths: each gets its own path's note (the
// memo of notes once keyed them by version and source only, and gave the first path's note
// to both, depending on which came first).
func TestClassifierOldSDKNotePerPath(t *testing.T) {
	execute := model.Execution{ID: "a", ToolSlug: "GMAIL_SEND_EMAIL", SDKVersion: "0.14.8", Source: model.Source{Language: "python"}}
	session := execute
	session.ID, session.SessionID = "b", "trs_1"
	for _, order := range [][]model.Execution{{execute, session}, {session, execute}} {
		c := NewClassifier(NewKinds(), Options{})
		for _, e := range order {
			got, _ := c.Classify(&e)
			if want := OldSDK(&e); got.OldSDK != want {
				t.Errorf("%s after the other: note %q, want %q", e.ID, got.OldSDK, want)
			}
		}
	}
	if OldSDK(&execute) == OldSDK(&session) {
		t.Fatal("the two paths' notes are equal: the test shows nothing")
	}
}
