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
	}
	for _, tt := range tests {
		if got := OldSDK(&tt.e); got != tt.want {
			t.Errorf("%s: OldSDK = %q, want %q", tt.name, got, tt.want)
		}
	}
}
