package triage

import (
	"testing"

	"github.com/exectriage/exectriage/model"
)

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
		ok   bool
	}{
		{"0.15.2", "0.16.0", -1, true},
		{"0.16.0", "0.16.0", 0, true},
		{"0.16", "0.16.0", 0, true},
		{"v0.13.1", "0.14.0", -1, true},
		{"V0.14.0", "=0.14.0", 0, true},
		{"0.16.0rc1", "0.16.0", -1, true},
		{"0.16.0rc1", "0.15.9", 1, true},
		{"0.16.0a1", "0.16.0b1", -1, true},
		{"0.16.0b2", "0.16.0rc1", -1, true},
		{"0.16.0.dev3", "0.16.0a1", -1, true},
		{"0.16.0.post1", "0.16.0", 1, true},
		{"0.14.0-beta.2", "0.14.0-beta.10", -1, true},
		{"0.14.0-alpha.1", "0.14.0", -1, true},
		{"0.14.0-next.1", "0.14.0-rc.1", -1, true},
		{"0.14.0+build.5", "0.14.0", 0, true},
		{"1.0.0", "0.99.99", 1, true},
		{"0.10.0", "0.9.0", 1, true}, // numeric, not lexical
		{"latest", "0.16.0", 0, false},
		{"", "0.16.0", 0, false},
		{"^0.13.1", "0.14.0", 0, false}, // a range, not a version
	}
	for _, tt := range tests {
		got, ok := CompareVersions(tt.a, tt.b)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CompareVersions(%q, %q) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
		if tt.ok {
			if back, _ := CompareVersions(tt.b, tt.a); back != -tt.want {
				t.Errorf("CompareVersions(%q, %q) = %d, not the opposite of %d", tt.b, tt.a, back, tt.want)
			}
		}
	}
}

func TestSDKAutoRetries(t *testing.T) {
	tests := []struct {
		pkg, version string
		retries      bool
		note         string
	}{
		{"composio", "0.15.2", true, "Python composio 0.15.2 auto-retries writes"},
		{"composio", "0.16.0", false, ""},
		{"composio", "0.16.1", false, ""},
		{"composio", "0.16.0rc1", true, "Python composio 0.16.0rc1 (a pre-release of 0.16.0) may still auto-retry writes"},
		{"composio", "v0.13.1", true, "Python composio v0.13.1 auto-retries writes"},
		{"@composio/core", "0.13.1", true, "TypeScript @composio/core 0.13.1 auto-retries writes"},
		{"@composio/core", "0.14.0", false, ""},
		{"@composio/core", "0.14.0-beta.1", true, "TypeScript @composio/core 0.14.0-beta.1 (a pre-release of 0.14.0) may still auto-retry writes"},
		{"TYPESCRIPT_SDK", "0.13.9", true, "TypeScript @composio/core 0.13.9 auto-retries writes"},
		{"PYTHON_SDK", "0.15.0", true, "Python composio 0.15.0 auto-retries writes"},
		{"javascript", "0.15.0", false, ""},
		{"langchain", "0.1.0", false, ""},
		{"composio", "garbage", false, ""},
	}
	for _, tt := range tests {
		r, note := SDKAutoRetries(tt.pkg, tt.version)
		if r != tt.retries || note != tt.note {
			t.Errorf("SDKAutoRetries(%q, %q) = %v, %q; want %v, %q", tt.pkg, tt.version, r, note, tt.retries, tt.note)
		}
	}
}

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
