package triage

import (
	"fmt"
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
		{"typescript old", model.Execution{SDKVersion: "0.13.1", Source: model.Source{Language: "TYPESCRIPT_SDK"}}, "Composio SDK 0.13.1 auto-retries writes (TypeScript before 0.14.0, Python before 0.16.0)"},
		{"typescript 0.15 is fixed", model.Execution{SDKVersion: "0.15.0", Source: model.Source{Language: "typescript"}}, ""},
		{"language from framework", model.Execution{SDKVersion: "0.15.0", Source: model.Source{Framework: "python-langchain"}}, "Python composio 0.15.0 auto-retries writes"},
		{"no language, old for both", model.Execution{SDKVersion: "0.12.0"}, "Composio SDK 0.12.0 auto-retries writes (TypeScript before 0.14.0, Python before 0.16.0)"},
		// old in both languages: the same note with or without the language (the list entry
		// and the detail of one execution read the same)
		{"python, old for both", model.Execution{SDKVersion: "0.13.1", Source: model.Source{Language: "python"}}, "Composio SDK 0.13.1 auto-retries writes (TypeScript before 0.14.0, Python before 0.16.0)"},
		{"typescript, old for both", model.Execution{SDKVersion: "0.13.1", Source: model.Source{Language: "typescript"}}, "Composio SDK 0.13.1 auto-retries writes (TypeScript before 0.14.0, Python before 0.16.0)"},
		{"no language, old for python only", model.Execution{SDKVersion: "0.15.0"}, "Composio SDK 0.15.0 (language not in its list entry) auto-retries writes if it is Python composio"},
		{"a detail without a language", model.Execution{SDKVersion: "0.15.0", Detailed: true}, "Composio SDK 0.15.0 (language not recorded) auto-retries writes if it is Python composio"},
		{"no language, new", model.Execution{SDKVersion: "0.16.2"}, ""},
		{"no version", model.Execution{Source: model.Source{Language: "python"}}, ""},
		// Per path: a session execution of TS 0.21.0 is retried, its tools.execute is not.
		{"session on ts 0.21.0", model.Execution{SDKVersion: "0.21.0", SessionID: "trs_1", Source: model.Source{Language: "typescript"}},
			"Composio SDK 0.21.0 retries session writes (TypeScript before 0.23.0, Python before 0.26.0)"},
		{"session on ts 0.22.0, no language", model.Execution{SDKVersion: "0.22.0", SessionID: "trs_1"},
			"Composio SDK 0.22.0 retries session writes (TypeScript before 0.23.0, Python before 0.26.0)"},
		{"tools.execute on ts 0.21.0", model.Execution{SDKVersion: "0.21.0", Source: model.Source{Language: "typescript"}}, ""},
		{"session on ts 0.23.0", model.Execution{SDKVersion: "0.23.0", SessionID: "trs_1", Source: model.Source{Language: "typescript"}}, ""},
		{"meta tool run on python 0.25.1", model.Execution{SDKVersion: "0.25.1", Parent: &model.Parent{LogID: "log_m", ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL"}, Source: model.Source{Language: "python"}},
			"Python composio 0.25.1 retries session writes (fixed in 0.26.0)"},
		{"session on python 0.26.0", model.Execution{SDKVersion: "0.26.0", SessionID: "s", Source: model.Source{Language: "PYTHON_SDK"}}, ""},
		{"session, no language, between the fixes", model.Execution{SDKVersion: "0.24.0", SessionID: "s"},
			"Composio SDK 0.24.0 (language not in its list entry) retries session writes if it is Python composio"},
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

// TestANoteReadsTheSameFromTheListAndTheDetail: for every version on both paths, an
// execution's note from its list entry (no language) is its note from its detail (the
// language recorded), unless NoteNeedsLanguage says the language must be read, which every
// load does from its installation (TestLanguagesNameAnInstallationsEntries; scan said
// "language not recorded" where show named TypeScript).
func TestANoteReadsTheSameFromTheListAndTheDetail(t *testing.T) {
	var versions []string
	for minor := 10; minor <= 28; minor++ {
		for _, patch := range []string{"0", "1", "4"} {
			versions = append(versions, fmt.Sprintf("0.%d.%s", minor, patch))
		}
	}
	needs := 0
	for _, v := range versions {
		for _, session := range []string{"", "trs_1"} {
			entry := model.Execution{SDKVersion: v, SessionID: session}
			for _, lang := range []string{"python", "typescript"} {
				detail := entry
				detail.Source = model.Source{Language: lang, Host: "sdk"}
				if NoteNeedsLanguage(&detail) {
					t.Errorf("%s %s session=%q: a detail needs its language", v, lang, session)
				}
				if NoteNeedsLanguage(&entry) {
					continue
				}
				if a, b := OldSDK(&entry), OldSDK(&detail); a != b {
					t.Errorf("%s %s session=%q: the list entry says %q, the detail %q", v, lang, session, a, b)
				}
			}
			if NoteNeedsLanguage(&entry) {
				needs++
			}
		}
	}
	if needs == 0 {
		t.Error("no version needs its language: the rule was not exercised")
	}
}
