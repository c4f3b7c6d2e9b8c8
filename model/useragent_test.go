package model

import "testing"

// TestSDKFromUserAgent: the SDK's version comes from a user agent when the record does not
// carry it ("an SDK version carried elsewhere in the record is not read"), from any
// product token that names Composio, and only from one.
func TestSDKFromUserAgent(t *testing.T) {
	tests := []struct{ ua, version, language string }{
		{"Composio/JS 0.13.1", "0.13.1", "typescript"},
		{"composio-python/0.15.2 CPython/3.11.4", "0.15.2", "python"},
		{"@composio/core/0.21.0 node/20.11.0 linux", "0.21.0", "typescript"},
		{"composio_core/0.7.21 (Python 3.11)", "0.7.21", "python"},
		{"composio-core/0.5.39", "0.5.39", ""}, // npm composio-core or Python composio_core: the product does not say
		{"Composio/Python v0.16.0", "0.16.0", "python"},
		{"composio/1.0.0-beta.1", "1.0.0-beta.1", ""},
		{"composio==1.0.0rc5", "", ""}, // a pip specifier is no user agent
		{"python-requests/2.31.0", "", ""},
		{"node/20.11.0 composio", "", ""},
		{"Mozilla/5.0 (X11; Linux x86_64) Composio Dashboard extra words 1.2.3", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		v, lang := SDKFromUserAgent(tt.ua)
		if v != tt.version || lang != tt.language {
			t.Errorf("%q: %q %q, want %q %q", tt.ua, v, lang, tt.version, tt.language)
		}
	}
	for _, rec := range []string{
		`{"id":"u","metadata":{"user_agent":"Composio/JS 0.13.1"}}`,
		`{"id":"u","context":{"user_agent":"Composio/JS 0.13.1"}}`,
		`{"id":"u","source":{"user_agent":"Composio/JS 0.13.1"}}`,
	} {
		e, err := ParseRecord([]byte(rec))
		if err != nil || e.SDKVersion != "0.13.1" || e.Source.Language != "typescript" {
			t.Errorf("%s: %q %q %v, want 0.13.1 typescript", rec, e.SDKVersion, e.Source.Language, err)
		}
	}
	e, _ := ParseRecord([]byte(`{"id":"u","metadata":{"sdk_version":"0.20.0"},"source":{"language":"python","user_agent":"Composio/JS 0.13.1"}}`))
	if e.SDKVersion != "0.20.0" || e.Source.Language != "python" {
		t.Errorf("the record's own version and language lost to its user agent: %q %q", e.SDKVersion, e.Source.Language)
	}
}
