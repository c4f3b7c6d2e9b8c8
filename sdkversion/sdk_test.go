package sdkversion

import "testing"

// TestRelateToFix reads versions as log records carry them: either grammar, a leading v or =.
func TestRelateToFix(t *testing.T) {
	tests := []struct {
		eco      Ecosystem
		a, b     string
		want     int
		preOfFix bool // a < b, and a is from b's release on (0.16.0.dev0 <= a)
		ok       bool
	}{
		{PyPI, "0.15.2", "0.16.0", -1, false, true},
		{PyPI, "0.16.0", "0.16.0", 0, false, true},
		{PyPI, "0.16", "0.16.0", 0, false, true},
		{NPM, "0.16", "0.16.0", 0, false, true}, // not SemVer: read as PEP 440
		{NPM, "v0.13.1", "0.14.0", -1, false, true},
		{NPM, "V0.14.0", "=0.14.0", 0, false, true},
		{PyPI, "0.16.0rc1", "0.16.0", -1, true, true},
		{NPM, "0.16.0rc1", "0.16.0", -1, true, true}, // not SemVer: read as PEP 440
		{PyPI, "0.16.0rc1", "0.15.9", 1, false, true},
		{PyPI, "0.16.0a1", "0.16.0b1", -1, true, true},
		{PyPI, "0.16.0b2", "0.16.0rc1", -1, true, true},
		{PyPI, "0.16.0.dev3", "0.16.0a1", -1, true, true},
		{PyPI, "0.16.0.dev3", "0.16.0", -1, true, true},
		{PyPI, "0.16.0.post1", "0.16.0", 1, false, true},
		{PyPI, "0.15.99.post1", "0.16.0", -1, false, true},
		{NPM, "0.14.0-beta.2", "0.14.0-beta.10", -1, true, true},
		{NPM, "0.14.0-alpha.1", "0.14.0", -1, true, true},
		{PyPI, "0.14.0-alpha.1", "0.14.0", -1, true, true},
		{NPM, "0.14.0-next.1", "0.14.0-rc.1", -1, true, true},
		{PyPI, "0.14.0-next.1", "0.14.0", -1, true, true}, // not PEP 440: read as SemVer
		{NPM, "0.14.0+build.5", "0.14.0", 0, false, true},
		{NPM, "1.0.0", "0.99.99", 1, false, true},
		{PyPI, "0.10.0", "0.9.0", 1, false, true}, // numeric, not lexical
		{PyPI, "latest", "0.16.0", 0, false, false},
		{NPM, "", "0.16.0", 0, false, false},
		{NPM, "^0.13.1", "0.14.0", 0, false, false}, // a range, not a version
	}
	for _, tt := range tests {
		got, pre, ok := relateToFix(tt.eco, tt.a, tt.b)
		if got != tt.want || pre != tt.preOfFix || ok != tt.ok {
			t.Errorf("relateToFix(%s, %q, %q) = %d, %v, %v; want %d, %v, %v", tt.eco, tt.a, tt.b, got, pre, ok, tt.want, tt.preOfFix, tt.ok)
		}
		if tt.ok {
			if back, _, _ := relateToFix(tt.eco, tt.b, tt.a); back != -tt.want {
				t.Errorf("relateToFix(%s, %q, %q) = %d, not the opposite of %d", tt.eco, tt.b, tt.a, back, tt.want)
			}
		}
	}
}

func TestAutoRetries(t *testing.T) {
	tests := []struct {
		pkg, version string
		retries      bool
		note         string
	}{
		{"composio", "0.15.2", true, "Python composio 0.15.2 auto-retries writes"},
		{"composio", "0.16.0", false, ""},
		{"composio", "0.16.1", false, ""},
		{"composio", "0.16.0.post1", false, ""},
		{"composio", "0.16.0rc1", true, "Python composio 0.16.0rc1 (a pre-release of 0.16.0) may still auto-retry writes"},
		{"composio", "0.16.0.dev3", true, "Python composio 0.16.0.dev3 (a pre-release of 0.16.0) may still auto-retry writes"},
		{"composio", "v0.13.1", true, "Python composio v0.13.1 auto-retries writes"},
		{"@composio/core", "0.13.1", true, "TypeScript @composio/core 0.13.1 auto-retries writes"},
		{"@composio/core", "0.13", true, "TypeScript @composio/core 0.13 auto-retries writes"},
		{"@composio/core", "0.14.0", false, ""},
		{"@composio/core", "0.14.0-beta.1", true, "TypeScript @composio/core 0.14.0-beta.1 (a pre-release of 0.14.0) may still auto-retry writes"},
		{"TYPESCRIPT_SDK", "0.13.9", true, "TypeScript @composio/core 0.13.9 auto-retries writes"},
		{"PYTHON_SDK", "0.15.0", true, "Python composio 0.15.0 auto-retries writes"},
		{"javascript", "0.15.0", false, ""},
		{"langchain", "0.1.0", false, ""},
		{"composio", "garbage", false, ""},
	}
	for _, tt := range tests {
		r, note := AutoRetries(tt.pkg, tt.version)
		if r != tt.retries || note != tt.note {
			t.Errorf("AutoRetries(%q, %q) = %v, %q; want %v, %q", tt.pkg, tt.version, r, note, tt.retries, tt.note)
		}
	}
}

// TestAutoRetriesAgreesWithOlderThanFix: for an exact version in the SDK's own grammar, the
// lenient reading of log records and the strict one of manifests give the same answer.
func TestAutoRetriesAgreesWithOlderThanFix(t *testing.T) {
	cases := []struct {
		eco          Ecosystem
		pkg, version string
	}{
		{PyPI, PythonSDK, "0.15.2"},
		{PyPI, PythonSDK, "0.15.99"},
		{PyPI, PythonSDK, "0.16.0rc1"},
		{PyPI, PythonSDK, "0.16.0.dev3"},
		{PyPI, PythonSDK, "0.16.0"},
		{PyPI, PythonSDK, "0.16.0.post1"},
		{PyPI, PythonSDK, "0.17.2"},
		{PyPI, PythonSDK, "1.0.0"},
		{NPM, TypeScriptSDK, "0.13.1"},
		{NPM, TypeScriptSDK, "0.14.0-beta.2"},
		{NPM, TypeScriptSDK, "0.14.0-0"},
		{NPM, TypeScriptSDK, "0.14.0"},
		{NPM, TypeScriptSDK, "0.14.1"},
		{NPM, TypeScriptSDK, "0.20.0"},
	}
	for _, c := range cases {
		strict, err := OlderThanFix(c.eco, c.version)
		lenient, _ := AutoRetries(c.pkg, c.version)
		if err != nil || strict != lenient {
			t.Errorf("%s %s: OlderThanFix = %v (err %v), AutoRetries = %v", c.pkg, c.version, strict, err, lenient)
		}
	}
}

func TestLookupAndFixedIn(t *testing.T) {
	for _, tt := range []struct {
		pkg string
		eco Ecosystem
		ok  bool
	}{{"composio", PyPI, true}, {" Python ", PyPI, true}, {"node", NPM, true}, {"@composio/core", NPM, true}, {"langchain", "", false}} {
		sdk, ok := Lookup(tt.pkg)
		if ok != tt.ok || sdk.Eco != tt.eco {
			t.Errorf("Lookup(%q) = %+v, %v", tt.pkg, sdk, ok)
		}
		if ok && sdk.FixedIn != FixedIn(sdk.Eco) {
			t.Errorf("Lookup(%q).FixedIn = %s, FixedIn(%s) = %s", tt.pkg, sdk.FixedIn, sdk.Eco, FixedIn(sdk.Eco))
		}
	}
}

func TestRangeAllows(t *testing.T) {
	for _, tt := range []struct {
		eco      Ecosystem
		rng, v   string
		want, ok bool
	}{
		{PyPI, ">=0.15,<0.16", "0.15.2", true, true},
		{PyPI, ">=0.15,<0.16", "0.16.0", false, true},
		{PyPI, "~=0.15", "0.16.1", true, true},
		{NPM, "^0.13.1", "0.13.9", true, true},
		{NPM, "^0.13.1", "0.14.0", false, true},
		{NPM, "0.12.0 - 0.13.5", "0.13.5", true, true},
		{NPM, "latest", "0.13.5", false, false},
		{NPM, "^0.13.1", "0.13", false, false},
		{PyPI, ">=0.15", "newest", false, false},
	} {
		got, err := RangeAllows(tt.eco, tt.rng, tt.v)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("RangeAllows(%s, %q, %q) = %v, %v; want %v (ok %v)", tt.eco, tt.rng, tt.v, got, err, tt.want, tt.ok)
		}
	}
}
