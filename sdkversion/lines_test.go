package sdkversion

import (
	"strings"
	"testing"
)

// TestTheLinesAreData: lines.tsv reads whole, every fact in it names its source, the fixes the
// code quotes in advice are the table's, and what the table says is what the answers say (a
// path no release fixes re-sends in every version; a line re-sends whatever its number says).
func TestTheLinesAreData(t *testing.T) {
	k, err := parseLines(linesText)
	if err != nil {
		t.Fatal(err)
	}
	if len(k.fixes) < 9 || len(k.lines) < 5 {
		t.Fatalf("%d fixes, %d lines", len(k.fixes), len(k.lines))
	}
	for _, r := range k.fixes {
		if len(r.source) < 20 {
			t.Errorf("lines.tsv:%d: no source worth the name: %q", r.line, r.source)
		}
	}
	for _, c := range []struct {
		eco   Ecosystem
		pkg   string
		path  Path
		quote string
	}{
		{PyPI, PythonSDK, PathExecute, PythonFixedIn},
		{NPM, TypeScriptSDK, PathExecute, TypeScriptFixedIn},
		{PyPI, PythonSDK, PathSession, PythonSessionFixedIn},
		{NPM, TypeScriptSDK, PathSession, TypeScriptSessionFixedIn},
		{NPM, ExperimentalSDK, PathWorkbench, ExperimentalFixedIn},
		{NPM, CLIPackage, PathCLI, CLIFixedIn},
	} {
		if got := FixedOn(c.eco, c.pkg, c.path); got != c.quote {
			t.Errorf("%s %s %s: the table says %q, the code quotes %q", c.eco, c.pkg, c.path, got, c.quote)
		}
	}
	for _, c := range []struct {
		eco              Ecosystem
		pkg, version     string
		path             Path
		retries, decided bool
	}{
		{NPM, TypeScriptSDK, "0.30.0", PathOtherCreate, true, true}, // never fixed
		{PyPI, "Composio", "0.27.0", PathOtherCreate, true, true},
		{NPM, TypeScriptSDK, "1.0.0-beta.1", PathSession, true, true},  // a line, past the fix by its number
		{NPM, TypeScriptSDK, "1.0.0-beta.1", PathExecute, false, true}, // the line re-sends sessions only
		{PyPI, PythonSDK, "1.0.0rc5", PathExecute, true, true},         // pre-renumbering: every path
		{PyPI, PythonSDK, "1.0rc1", PathSession, true, true},
		{PyPI, PythonSDK, "1.0.0", PathExecute, false, true},
		{NPM, "@composio/openai", "0.5.0", PathOtherCreate, false, false}, // a provider: its core decides
	} {
		r, ok := RetriesWrites(c.eco, c.pkg, c.version, c.path)
		if r != c.retries || ok != c.decided {
			t.Errorf("%s %s %s on %s: retries %v (decided %v), want %v (%v)", c.eco, c.pkg, c.version, c.path, r, ok, c.retries, c.decided)
		}
	}
	if !LegacyRetries(PyPI) || LegacyRetries(NPM) {
		t.Error("the legacy lines: PyPI's re-sends, npm's does not")
	}
	if s := Source(NPM, TypeScriptSDK, PathOtherCreate); !strings.Contains(s, "connectedAccounts") {
		t.Errorf("source %q", s)
	}
	for _, bad := range []string{
		"npm\t@composio/core\ttools.execute\t0.14.0\n",                      // no source
		"npm\t@composio/core\ttools.execute\tsoon\tthe changelog says so\n", // no version
		"cargo\tcomposio\ttools.execute\t0.1.0\tthe changelog says so\n",    // no such ecosystem
		"line\tnpm\tx\t*\t\tall\tsource\n",                                  // a line without a name
		"option\tpypi\tcomposio\tmax_retries\t-\tmaybe\tsource\n",           // neither honoured nor ignored
		"option\tpypi\tcomposio\tmax_retries\t-\thonoured\t\n",              // no source
	} {
		if _, err := parseLines(bad); err == nil {
			t.Errorf("read %q", bad)
		}
	}
}

// TestRetriesOptions: Python composio hands max_retries to its HTTP client in every release
// read (not 1.0.0rc1, which no one read); @composio/core drops maxRetries.
func TestRetriesOptions(t *testing.T) {
	for _, tt := range []struct {
		eco          Ecosystem
		pkg, version string
		name         string
		honoured, ok bool
	}{
		{PyPI, "composio", "0.15.2", "max_retries", true, true},
		{PyPI, "Composio", "1.0.0rc3", "max_retries", true, true},
		{PyPI, "composio", "", "max_retries", true, true},
		{PyPI, "composio", "1.0.0rc1", "", false, false},
		{PyPI, "composio", "1.0.0-rc1", "", false, false},
		{NPM, "@composio/core", "0.13.1", "maxRetries", false, true},
		{NPM, "@composio/client", "0.1.0", "", false, false},
	} {
		name, honoured, source, ok := RetriesOption(tt.eco, tt.pkg, tt.version)
		if name != tt.name || honoured != tt.honoured || ok != tt.ok || ok && source == "" {
			t.Errorf("%s %s: %q %v %v (%q), want %q %v %v", tt.pkg, tt.version, name, honoured, ok, source, tt.name, tt.honoured, tt.ok)
		}
	}
}
