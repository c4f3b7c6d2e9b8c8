package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// want is one expected finding: file (relative to the fixture project), package, the version
// column, and the verdict.
type want struct{ file, pkg, version, verdict string }

func TestScanFixtureProjects(t *testing.T) {
	tests := []struct {
		project string
		want    []want
		retries bool
	}{
		{"py-req-old", []want{{"requirements.txt", "composio", "0.15.2", "RETRIES WRITES"}}, true},
		{"py-req-new", []want{
			{"requirements-prod.txt", "composio", ">= 0.16.0", "ok"},
			{"requirements/dev.txt", "composio-openai", ">=0.16", "unknown"},
		}, false},
		{"py-range-may", []want{{"requirements.txt", "composio", ">=0.15", "may retry writes"}}, true},
		{"py-rc", []want{{"requirements.txt", "composio", "0.16.0rc1", "RETRIES WRITES"}}, true},
		{"py-url", []want{{"requirements.txt", "composio", "@ git+https://github.com/ComposioHQ/composio.git@main#subdirectory=python", "unknown"}}, false},
		{"py-legacy", []want{
			{"requirements.txt", "composio-core", "0.7.15", "RETRIES WRITES"},
			{"requirements.txt", "composio-openai", "0.7.15", "RETRIES WRITES"}, // the legacy 0.7.x provider line
		}, true},
		{"py-unpinned-legacy", []want{ // composio-gemini, unpinned; the code imports ComposioToolSet: the legacy line
			{"requirements.txt", "composio-gemini", "any", "RETRIES WRITES"},
		}, true},
		{"py-unpinned-current", []want{ // the same import, beside composio pinned to a current line
			{"requirements.txt", "composio", "0.17.0", "ok"},
			{"requirements.txt", "composio-gemini", "any", "unknown"},
		}, false},
		{"npm-client-default", []want{ // the generated client built with its default retries
			{"package.json", "@composio/client", "0.1.0-alpha.40", "RETRIES WRITES"},
		}, true},
		{"py-client-once", []want{ // built with max_retries=0
			{"requirements.txt", "composio-client", "1.10.0", "ok"},
		}, false},
		{"py-poetry", []want{
			{"poetry.lock", "composio", "0.16.2", "ok"},
			{"pyproject.toml", "composio", ">=0.15 (locked 0.16.2)", "ok"},
			{"pyproject.toml", "composio-langchain", "^0.16.0", "unknown"},
		}, false},
		{"py-pep621-uv", []want{
			{"pyproject.toml", "composio", ">=0.14,<0.17 (locked 0.15.2)", "RETRIES WRITES"},
			{"pyproject.toml", "composio-openai-agents", ">=0.15", "unknown"},
			{"uv.lock", "composio", "0.15.2", "RETRIES WRITES"},
		}, true},
		{"py-pipenv", []want{
			{"Pipfile.lock", "composio", "0.15.0", "RETRIES WRITES"},
			{"Pipfile.lock", "composio-core", "0.7.10", "RETRIES WRITES"},
		}, true},
		{"npm-old", []want{
			{"package-lock.json", "@composio/core", "0.13.1", "RETRIES WRITES"},
			{"package.json", "@composio/core", "^0.13.1 (locked 0.13.1)", "RETRIES WRITES"},
			{"package.json", "@composio/openai", "^0.13.1", "unknown"},
		}, true},
		{"npm-new", []want{
			{"package-lock.json", "@composio/core", "0.14.2", "ok"},
			{"package.json", "@composio/core", "^0.14.0 (locked 0.14.2)", "ok"},
		}, false},
		{"npm-lock-v1", []want{
			{"package-lock.json", "@composio/core", "0.12.0", "RETRIES WRITES"},
			{"package-lock.json", "@composio/core", "0.14.1", "ok"},
			{"package-lock.json", "composio-core", "0.5.39", "ok"}, // npm's v1 SDK never had retry code
		}, true},
		{"pnpm-v5", []want{{"pnpm-lock.yaml", "@composio/core", "0.12.3", "RETRIES WRITES"}}, true},
		// what an image installs is what runs, whatever the manifests say
		{"docker", []want{
			{"Dockerfile", "@composio/core", "0.13.1", "RETRIES WRITES"},
			{"Dockerfile", "composio", "0.15.2", "RETRIES WRITES"},
			{"Dockerfile", "composio-openai", "0.15.2", "unknown"},
		}, true},
		{"deno", []want{{"deno.json", "@composio/core", "0.14.2", "ok"}}, false},
		// a pre-release published before composio renumbered its releases 0.x: the old code
		{"py-prerenumbered", []want{{"requirements.txt", "composio", "1.0.0rc5", "RETRIES WRITES"}}, true},
		{"pnpm-v6", []want{{"pnpm-lock.yaml", "@composio/core", "0.13.1", "RETRIES WRITES"}}, true},
		{"pnpm-v9", []want{{"pnpm-lock.yaml", "@composio/core", "0.14.1", "ok"}}, false},
		{"yarn-classic", []want{
			{"yarn.lock", "@composio/core", "0.13.1", "RETRIES WRITES"},
			{"yarn.lock", "composio-core", "0.5.39", "ok"},
		}, true},
		{"yarn-berry", []want{
			{"package.json", "@composio/core", ">=0.13.0 (locked 0.15.0)", "ok"},
			{"yarn.lock", "@composio/core", "0.15.0", "ok"},
		}, false},
		{"npm-range-only", []want{
			{"package.json", "@composio/client", "^0.1.0-alpha.40", "unknown"},
			{"package.json", "@composio/core", "~0.13.0", "RETRIES WRITES"},
			{"package.json", "composio-core", "^0.5.0", "ok"},
		}, true},
		{"npm-special", []want{
			{"package.json", "@composio/core", ">=0.12 <0.15", "may retry writes"},
			{"package.json", "@composio/core", "latest", "ok"}, // the newest release; "next" or "beta" stay unknown
			{"package.json", "composio-core", "github:ComposioHQ/composio", "ok"},
		}, true},
		{"py-pipfile", []want{
			{"Pipfile", "composio", ">=0.15 (locked 0.15.2)", "RETRIES WRITES"},
			{"Pipfile", "composio-openai", "any", "unknown"},
			{"Pipfile.lock", "composio", "0.15.2", "RETRIES WRITES"},
		}, true},
		{"py-setupcfg", []want{
			{"setup.cfg", "composio", "0.15.1", "RETRIES WRITES"},
			{"setup.cfg", "composio-openai", ">=0.16", "unknown"},
		}, true},
		{"py-setuppy", []want{
			{"setup.py", "composio", ">=0.16.0,<0.18", "ok"},
			{"setup.py", "composio-core", "0.7.1", "RETRIES WRITES"},
		}, true},
		{"py-pdm", []want{
			{"pdm.lock", "composio", "0.16.1", "ok"},
			{"pyproject.toml", "composio", ">=0.15 (locked 0.16.1)", "ok"},
			{"pyproject.toml", "composio-core", "0.7.2", "RETRIES WRITES"},
		}, true},
		{"py-piptools", []want{
			{"requirements.in", "composio", ">=0.15", "may retry writes"},
			{"requirements.txt", "composio", "0.16.0", "ok"},
		}, true},
		{"npm-overrides", []want{
			{"package.json", "@composio/core", "^0.14.0", "ok"},
			{"package.json", "@composio/core", "0.12.0 (pnpm.overrides)", "RETRIES WRITES"},
			{"package.json", "@composio/core", "0.13.1 (overrides)", "RETRIES WRITES"},
			{"package.json", "@composio/core", "0.13.2 (resolutions)", "RETRIES WRITES"},
			{"package.json", "@composio/core", "0.14.1 (overrides)", "ok"},
			{"package.json", "@composio/openai", "^0.14.0", "unknown"},
		}, true},
		// Code: sessions used with an SDK that re-sends session writes; the same SDK without
		// sessions is fine; the LangChain middleware; @composio/experimental's workbench.
		{"ts-sessions", []want{
			{"package.json", "@composio/core", "0.21.0", "ok"},
			{"package.json", "@composio/core", "0.21.0", "RETRIES WRITES"},
		}, true},
		{"py-sessions", []want{ // a session made and never used: a note, not a finding
			{"requirements.txt", "composio", "0.25.0", "ok"},
		}, false},
		{"py-no-sessions", []want{
			{"requirements.txt", "composio", "0.25.0", "ok"},
		}, false},
		{"langchain-retry", []want{
			{"agent.py:2", "langchain ToolRetryMiddleware", "any", "RETRIES WRITES"},
		}, true},
		{"ts-experimental", []want{
			{"package.json", "@composio/core", "0.23.1", "ok"},
			{"package.json", "@composio/experimental", "0.2.5", "RETRIES WRITES"},
		}, true},
		{"monorepo", []want{
			{"packages/agent/package.json", "@composio/core", "^0.13.0 (locked 0.13.1)", "RETRIES WRITES"},
			{"packages/web/package.json", "@composio/core", "^0.14.0 (locked 0.14.0)", "ok"},
			{"pnpm-lock.yaml", "@composio/core", "0.13.1", "RETRIES WRITES"},
			{"pnpm-lock.yaml", "@composio/core", "0.14.0", "ok"},
			{"services/worker/poetry.lock", "composio", "0.16.0", "ok"},
			{"services/worker/pyproject.toml", "composio", "^0.16 (locked 0.16.0)", "ok"},
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.project, func(t *testing.T) {
			rep := scanTestdata(t, "projects", tt.project)
			var got []want
			for _, f := range rep.Findings {
				got = append(got, want{f.File, f.Package, f.shownVersion(), f.Verdict()})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d:\n%v", len(got), len(tt.want), got)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("finding %d:\n got %+v\nwant %+v\nreason: %s", i, got[i], tt.want[i], rep.Findings[i].Reason)
				}
			}
			if rep.RetriesWrites() != tt.retries {
				t.Errorf("RetriesWrites() = %v, want %v", rep.RetriesWrites(), tt.retries)
			}
			if len(rep.Problems) != 0 {
				t.Errorf("problems: %+v", rep.Problems)
			}
		})
	}
}

func TestLockWinsOverManifestRange(t *testing.T) {
	rep := scanTestdata(t, "projects", "py-poetry")
	for _, f := range rep.Findings {
		if f.File == "pyproject.toml" && f.Package == "composio" {
			if f.LockFile != "poetry.lock" || f.Version != "0.16.2" || f.RetriesWrites == nil || *f.RetriesWrites {
				t.Fatalf("range >=0.15 with poetry.lock at 0.16.2: got %+v", f)
			}
			return
		}
	}
	t.Fatal("pyproject.toml composio finding missing")
}

func TestScanSkipsInstalledPackagesAndEnvironments(t *testing.T) {
	rep := scanTestdata(t, "projects", "monorepo")
	for _, f := range rep.Findings {
		for _, skipped := range []string{"node_modules/", "env/", ".venv/", "dist/"} {
			if strings.Contains(f.File, skipped) {
				t.Errorf("finding from a skipped directory: %+v", f)
			}
		}
	}
}

func TestScanReportsUnreadableFilesAndGoesOn(t *testing.T) {
	rep := scanTestdata(t, "projects", "broken")
	if len(rep.Problems) != 1 || rep.Problems[0].File != "package.json" {
		t.Fatalf("problems = %+v, want package.json", rep.Problems)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].File != "requirements.txt" {
		t.Fatalf("findings = %+v", rep.Findings)
	}
}

func TestScanBadRoot(t *testing.T) {
	if _, err := Scan(context.Background(), filepath.Join("testdata", "does-not-exist")); err == nil {
		t.Fatal("missing directory accepted")
	}
	_, err := Scan(context.Background(), filepath.Join("testdata", "projects", "py-rc", "requirements.txt"))
	if !errors.Is(err, ErrNotDir) {
		t.Fatalf("a file as root: err = %v, want ErrNotDir", err)
	}
}

func TestScanStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, filepath.Join("testdata", "projects")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestHostileFileContentIsSanitisedInText(t *testing.T) {
	dir := t.TempDir()
	pkg := `{"dependencies": {"@composio/core": "0.13.1\u001b]0;pwned\u0007", "composio-core": "\u001b[2J\u202e"}}`
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o600); err != nil {
		t.Fatal(err)
	}
	req := "composio==0.15.2\x1b[31m\ncomposio-core==\x9b2J\n"
	if err := os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte(req), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, dir, false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") {
		t.Fatalf("control characters reached the text report:\n%q", out)
	}
	if !strings.Contains(out, `\x1b`) {
		t.Fatalf("escapes not shown visibly:\n%s", out)
	}
}

// TestReportGolden pins the text table and the JSON shape for every fixture project at once.
func TestReportGolden(t *testing.T) {
	rep := scanTestdata(t, "projects")
	var text, js bytes.Buffer
	if err := rep.WriteText(&text, "testdata/projects", false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt.golden", text.Bytes())
	golden(t, "report.json.golden", js.Bytes())

	// the documented shape: every finding has these keys, retries_writes is true, false or null
	var shape struct {
		Findings []map[string]json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(js.Bytes(), &shape); err != nil {
		t.Fatal(err)
	}
	for _, f := range shape.Findings {
		for _, k := range []string{"file", "ecosystem", "package", "version", "constraint", "retries_writes", "reason"} {
			if _, ok := f[k]; !ok {
				t.Fatalf("finding without %q: %v", k, f)
			}
		}
		switch string(f["retries_writes"]) {
		case "true", "false", "null":
		default:
			t.Fatalf("retries_writes = %s", f["retries_writes"])
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestOverrideTarget(t *testing.T) {
	for key, want := range map[string]string{
		"@composio/core":            "@composio/core",
		"**/@composio/core":         "@composio/core",
		"some-lib/@composio/core":   "@composio/core",
		"@scope/lib/@composio/core": "@composio/core",
		"foo>@composio/core@<0.14":  "@composio/core",
		"@composio/core@0.13.x":     "@composio/core",
		"composio-core@^0.5":        "composio-core",
		"composio-core":             "composio-core",
		"":                          "",
	} {
		if got := overrideTarget(key); got != want {
			t.Errorf("overrideTarget(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestPythonManifestShapes: the forms setup.py, setup.cfg and Pipfile take beyond the
// fixtures, each with the requirements doctor must (and must not) see.
func TestPythonManifestShapes(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte) (scanned, error)
		src   string
		want  string // name constraint|special, one per dep
	}{
		{"setup.py from a variable", parseSetupPy, "REQS = open('r.txt').read().split()\nsetup(install_requires=REQS)\n", ""},
		{"setup.py unclosed", parseSetupPy, "setup(install_requires=['composio==0.15.0'\n", ""},
		{"setup.py tuple and dict kwargs", parseSetupPy, "kw = {'install_requires': ('composio==0.15.0', \"composio-core\")}\nsetup(**kw)\n",
			"composio ==0.15.0;composio-core "},
		{"setup.py bracket inside a string", parseSetupPy, "setup(install_requires=['composio[openai]>=0.16', 'x]'])",
			"composio >=0.16"},
		{"setup.cfg one line", parseSetupCfg, "[options]\ninstall_requires = composio==0.15.0\n", "composio ==0.15.0"},
		{"setup.cfg other sections ignored", parseSetupCfg, "[metadata]\nname = composio==0.1\n[options]\nzip_safe = false\n", ""},
		{"Pipfile git and star", parsePipfile, "[packages]\ncomposio = {git = \"https://github.com/ComposioHQ/composio.git\", ref = \"main\"}\n[dev-packages]\ncomposio-core = {version = \"==0.7.1\"}\ncomposio-openai = \"*\"\n",
			"composio-core ==0.7.1;composio-openai ;composio git https://github.com/ComposioHQ/composio.git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := tt.parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range sc.deps {
				got = append(got, d.name+" "+d.constraint+d.special)
			}
			if s := strings.Join(got, ";"); s != tt.want {
				t.Errorf("deps %q, want %q", s, tt.want)
			}
		})
	}
}

// FuzzManifestParsers: no input makes a manifest parser panic (doctor reads whatever a
// project holds), and every dependency a parser returns names a Composio package.
func FuzzManifestParsers(f *testing.F) {
	f.Add([]byte("setup(install_requires=['composio==0.15.0', \"x\"], extras_require={'a': ['composio-core']})"))
	f.Add([]byte("[options]\ninstall_requires =\n    composio>=0.16\n"))
	f.Add([]byte("[packages]\ncomposio = {version = \"==0.15\"}\n"))
	f.Add([]byte(`{"overrides":{"a":{"@composio/core":"0.13.1",".":"1"}},"resolutions":{"**/@composio/core":"0.13.2"},"pnpm":{"overrides":{"x>@composio/core@<1":"0.1"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, parse := range []func([]byte) (scanned, error){parseSetupPy, parseSetupCfg, parsePipfile, parsePackageJSON, parsePyproject, parseTOMLLock} {
			sc, _ := parse(data)
			for _, d := range sc.deps {
				if packageRole(d.eco, d.name) == roleNone {
					t.Fatalf("a parser returned %q (%s), which is no Composio package", d.name, d.eco)
				}
			}
		}
	})
}

// TestSessionFindingsFromCallPaths: a session finding needs the code to use
// sessions and an SDK that re-sends them: a caret or a PEP 440 range that admits such a
// release, and the 1.0.0-beta.1 pre-release line, are findings; tools.proxyExecute alone, or
// the session calls in a comment or a string, are not session use; bun.lock is read.
func TestSessionFindingsFromCallPaths(t *testing.T) {
	tests := []struct {
		dir     string
		session bool
		also    string // a finding of another file that must be there
	}{
		{"caret", true, ""},
		{"beta", true, ""},
		{"pyrange", true, ""},
		{"proxyonly", false, ""},
		{"comment", false, ""},
		{"bun", false, "bun.lock"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			r := scanTestdata(t, "callpaths", tt.dir)
			session, also := false, tt.also == ""
			for _, f := range r.Findings {
				if f.CallPath == CallSession && f.RetriesWrites != nil && *f.RetriesWrites {
					session = true
					if f.Evidence == "" {
						t.Errorf("a session finding without its evidence: %+v", f)
					}
				}
				if tt.also != "" && f.File == tt.also && f.Version == "0.13.1" && f.RetriesWrites != nil && *f.RetriesWrites {
					also = true
				}
			}
			if session != tt.session {
				t.Errorf("session finding %v, want %v: %+v", session, tt.session, r.Findings)
			}
			if !also {
				t.Errorf("no retrying finding of %s: %+v", tt.also, r.Findings)
			}
		})
	}
}

// TestFileKindsAreRead: versions named by reference or in files doctor did not read
// are found: a UTF-16 requirements file (pip reads it), a conda environment's pip section, a
// -c constraints file, a vendored SDK (a file: path, an editable install, a vendored npm
// package), pnpm catalogs, the CLI's own threshold, and the legacy 0.7.x provider line; a
// schema converter under Composio's name is no provider.
func TestFileKindsAreRead(t *testing.T) {
	type got struct{ file, pkg, version, verdict, source string }
	tests := []struct {
		dir  string
		want []got
	}{
		{"utf16", []got{{"requirements.txt", "composio", "0.15.2", "RETRIES WRITES", "manifest"}}},
		{"conda", []got{{"environment.yml", "composio", "0.15.2", "RETRIES WRITES", "manifest"}}},
		{"constraints", []got{{"requirements.txt", "composio", ">=0.14 (locked 0.15.1)", "RETRIES WRITES", "constraints"}}},
		{"vendored-py", []got{{"requirements.txt", "composio", "0.15.0", "RETRIES WRITES", "vendored"}}},
		{"editable", []got{{"requirements.txt", "composio", "0.16.1", "ok", "vendored"}}},
		{"vendored-npm", []got{{"package.json", "@composio/core", "0.13.1", "RETRIES WRITES", "vendored"}}},
		{"catalog", []got{
			{"packages/a/package.json", "@composio/core", "^0.13.1", "RETRIES WRITES", "catalog"},
			{"packages/b/package.json", "@composio/core", "0.21.0", "ok", "catalog"},
		}},
		{"cli", []got{{"package.json", "@composio/cli", "0.4.2", "RETRIES WRITES", "manifest"}}},
		{"legacy-range", []got{{"requirements.txt", "composio-agno", "<0.8", "RETRIES WRITES", "range"}}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			r := scanTestdata(t, "filekinds", tt.dir)
			if len(r.Problems) > 0 {
				t.Errorf("problems: %+v", r.Problems)
			}
			var all []got
			for _, f := range r.Findings {
				all = append(all, got{f.File, f.Package, f.shownVersion(), f.Verdict(), f.VersionSource})
			}
			if !slices.Equal(all, tt.want) {
				t.Errorf("findings\n got %+v\nwant %+v", all, tt.want)
				for _, f := range r.Findings {
					t.Logf("%s: %s", f.File, f.Reason)
				}
			}
		})
	}
}

func TestDecodeText(t *testing.T) {
	for name, in := range map[string][]byte{
		"utf-8 bom": append([]byte{0xEF, 0xBB, 0xBF}, "composio==1\n"...),
		"utf-16le":  {0xFF, 0xFE, 'c', 0, 'o', 0, 'm', 0, 'p', 0, 'o', 0, 's', 0, 'i', 0, 'o', 0, '=', 0, '=', 0, '1', 0, '\n', 0},
		"utf-16be":  {0xFE, 0xFF, 0, 'c', 0, 'o', 0, 'm', 0, 'p', 0, 'o', 0, 's', 0, 'i', 0, 'o', 0, '=', 0, '=', 0, '1', 0, '\n'},
		"plain":     []byte("composio==1\n"),
	} {
		if got := string(decodeText(in)); got != "composio==1\n" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

// TestCallPathsFromTheCode: a retrying SDK path is an alarm only where the code uses
// it, cited at the call that sends; the client is followed through imports across files,
// aliases, factory functions and typed parameters; a session used only for its MCP address is
// its own line; the middleware is judged by the tools it wraps and the retries it is set to.
func TestCallPathsFromTheCode(t *testing.T) {
	type got struct{ file, path, verdict, evidence, use string }
	tests := []struct {
		dir  string
		want []got
	}{
		{"mcponly", []got{
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "over MCP", "agent.ts:8", UseMCP},
		}},
		{"noexecute", []got{{"package.json", CallToolsExecute, "not used", "", UseNotUsed}}},
		// the generated client: the name its build binds is followed in its file; a finding
		// cites a write sent through it, a client that only lists and retrieves re-sends no
		// write, and one that leaves the file (exported) is cited where it is built
		{"client-reads-ts", []got{{"package.json", CallToolsExecute, "ok", "src/logs.ts:5", UseUsed}}},
		{"client-field-send-ts", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "sender.ts:11", UseUsed}}},
		{"client-exported-ts", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "client.ts:4", UseUsed}}},
		{"client-reads-py", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "audit.py:12", UseUsed}}},
		// the client module's error classes constructed (new ComposioError(…)) build no client
		{"client-error-class-ts", []got{{"package.json", CallToolsExecute, "not used", "", UseNotUsed}}},
		// a session's execute whose tool is a parameter of a helper: what every call of the helper
		// names (reads only: no write re-sent; a write among them: the send is a write's)
		{"session-param-reads-ts", []got{
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "ok", "tools.ts:13", UseUsed},
		}},
		{"session-param-write-ts", []got{
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "tools.ts:12", UseUsed},
		}},
		{"execute-param-reads-py", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		{"session-param-reads-py", []got{
			{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed},
			{"requirements.txt", CallSession, "ok", "agent.py:11", UseUsed},
		}},
		// code that imports the SDK and sends through it with no manifest or lock of its ecosystem
		// naming any Composio package (scripts run with what is installed): the version cannot be
		// told, the imports say which line; where a manifest of the ecosystem names the SDK, code
		// outside it is left to what the project declared
		{"undeclared", []got{
			{"package-lock.json", CallToolsExecute, "not used", "", UseNotUsed},
			{"package-lock.json", CallSession, "over MCP", "connect.ts:12", UseMCP},
			{"package.json", CallToolsExecute, "not used", "", UseNotUsed},
			{"package.json", CallSession, "over MCP", "connect.ts:12", UseMCP},
			{"post_update.py", CallToolsExecute, "may retry writes", "post_update.py:8", UseUsed},
		}},
		{"undeclared-elsewhere", []got{{"api/requirements.txt", CallToolsExecute, "ok", "", ""}}},
		// sessions a server keeps per user in a map or a dict, read back where it sends (or reads
		// its MCP address): what is read out of a container a session was stored into is a session
		{"stored-sessions-ts", []got{
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "server.ts:14", UseUsed},
		}},
		{"stored-sessions-py", []got{
			{"requirements.txt", CallToolsExecute, "ok", "", ""},
			{"requirements.txt", CallSession, "RETRIES WRITES", "agent.py:16", UseUsed},
		}},
		{"made-session-used", []got{ // a session a function makes, sent through where it is called
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "notify.ts:10", UseUsed},
		}},
		{"wrapped-factory", []got{ // a one-line arrow a higher-order call wraps (React's cache) is the factory
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "session.ts:11", UseUsed},
		}},
		{"stored-sessions-oneline", []got{ // stored and sent on one-line functions, through optional chaining
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "a.ts:5", UseUsed},
		}},
		{"stored-sessions-mcp", []got{
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "over MCP", "route.ts:8", UseMCP},
		}},
		{"undeclared-legacy-npm", []got{{"send.js", CallToolsExecute, "ok", "send.js:5", UseUsed}}},
		// the SDK's own repository: a package its workspace takes from the tree is the member's
		// version, whatever a pin or a range says; the SDK's own source is no use of it
		{"uv-workspace-sdk", []got{
			{"pyproject.toml", CallToolsExecute, "RETRIES WRITES", "python/examples/send_email.py:5", UseUsed},
			{"python/providers/openai/pyproject.toml", CallToolsExecute, "RETRIES WRITES", "", ""},
		}},
		{"npm-workspace-sdk", []got{{"ts/examples/send/package.json", CallToolsExecute, "RETRIES WRITES", "ts/examples/send/index.ts:5", UseUsed}}},
		{"crossfile", []got{
			{"package.json", CallToolsExecute, "RETRIES WRITES", "src/agent.ts:5", UseUsed},
			{"package.json", CallToolsExecute, "unknown", "", ""}, // @composio/vercel: a provider
		}},
		// code the hand tokenizer blanked: after a regular expression with a backtick (it opened a
		// template literal to the end of the file), inside a template's ${…}, an f-string's {…}
		{"fence-regex", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "index.ts:9", UseUsed}}},
		{"template-send", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "index.ts:6", UseUsed}}},
		{"fstring-send", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "main.py:7", UseUsed}}},
		// a chain a formatter broke before each call (composio.tools then .execute( on the next
		// line, in parentheses or after a backslash in Python), cited at the call's line
		{"chain-ts", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "index.ts:7", UseUsed}}},
		{"chain-py", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "main.py:9", UseUsed}}},
		{"chain-session", []got{ // const session = await composio\n.create(…); session\n.execute(…)
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "index.ts:9", UseUsed},
		}},
		// the client's tools taken on their own, destructured and renamed, exported, imported
		{"tools-alias-ts", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "src/send.ts:4", UseUsed}}},
		{"tools-alias-py", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "app/mailer.py:5", UseUsed}}},
		// const { tools } = registry: the project's own tools, whose execute is no send
		{"tools-alias-own", []got{{"package.json", CallToolsExecute, "not used", "", UseNotUsed}}},
		// the send method handed on to be called (asyncio.to_thread), or only looked at by a test
		{"method-ref", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "main.py:9", UseUsed}}},
		{"method-ref-test", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		{"legacy-read", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		{"legacy-write", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "bot.py:7", UseUsed}}}, // handle_tool_calls sends, get_tools lists
		// execute_action of reads only (Action.X, under action= or first): sent again they change
		// nothing; beside a write (its action a string, after params=), the write is the send cited
		// an OpenAI assistant's run handled by the legacy toolset: the handling call is the send
		// cited, not get_tools (the shape of a sheet-to-database sync found by search)
		{"legacy-assistant", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "sync.py:12", UseUsed}}},
		// tools got inside an if whose condition holds no parentheses, run after it: an if (…) { is
		// no method's header, so the function goes on past it (the shape of ComposioHQ/t3chat-composio)
		{"tools-in-if-block", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "app/route.ts:12", UseUsed}}},
		// get_tools naming its tools one by one, reads only: no write to re-send; beside a write
		// or an app's tools, the first list with a write is the send cited (the shape of
		// Sandyyy123/langgraph-composio-agents)
		{"legacy-get-tools-reads", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		{"legacy-get-tools-mixed", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "agent.py:6", UseUsed}}},
		// the legacy client's own send (composio.actions.execute), beside a read it makes the same
		// way (the shape of RubyRaja2025/google-meet-composio-agent's old-SDK branch)
		{"legacy-client-actions", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "tools.py:9", UseUsed}}},
		{"legacy-execute-read", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		{"legacy-execute-mixed", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "calendar.py:15", UseUsed}}},
		// the legacy line runs its local tools (FILETOOL...) in the SDK's process: a toolset that
		// names only those sends nothing to the API (the shape of ComposioHQ/ai-agents-workshop-07-25);
		// one remote tool beside them, named as a string, is a send
		{"legacy-local", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		{"legacy-local-mixed", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "agent.py:8", UseUsed}}},
		// a range that admits the legacy line, and code that imports its names: that line (the shape
		// of yash-desai-naik/composio-agno-fastapi)
		{"legacy-range", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "app/services/mail.py:10", UseUsed}}},
		// get_tools() on the project's own agents, in code that never imports the legacy toolset:
		// not its send (the shape of maulana-tech/composio-agennt)
		{"legacy-foreign-receiver", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		// handle_tool_calls in code that has only the legacy toolset is that toolset's send, not the
		// SDK's (the shape of Taofiqq/crewai-composio-mcp-server)
		{"legacy-handle-calls", []got{
			{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "calendar_check.py:9", UseUsed}, // composio-openai 0.7.15
			{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed},                       // composio 0.12.0
		}},
		{"legacy-own", []got{ // def get_tools / execute_action of the project's own, called bare
			{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed},
		}},
		{"pyfactory", []got{
			{"requirements.txt", CallToolsExecute, "ok", "", ""},
			{"requirements.txt", CallSession, "RETRIES WRITES", "agent.py:10", UseUsed},
		}},
		{"mw-reads", []got{{"agent.py:8", CallMiddleware, "ok", "agent.py:8", UseUsed}}},
		{"mw-writes", []got{{"agent.py:3", CallMiddleware, "RETRIES WRITES", "agent.py:3", UseUsed}}},
		{"authorize", []got{{"requirements.txt", CallToolsExecute, "ok", "", ""}}},
		{"cachedmcp", []got{ // a cached client, a session factory in another file, optional chaining
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "over MCP", "app/api/mcp/route.ts:7", UseMCP},
		}},
		{"destructured", []got{ // const { mcp, sessionId } = session
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "over MCP", "index.ts:6", UseMCP},
		}},
		{"clientsession", []got{ // composio.createSession({headers}) is a client
			{"package.json", CallToolsExecute, "RETRIES WRITES", "index.ts:6", UseUsed},
		}},
		{"reexport", []got{ // export { client as composioClient } from "./client" in index.ts
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "src/slack.ts:5", UseUsed},
		}},
		{"pyreexport", []got{ // from .client import client as cx in __init__.py
			{"requirements.txt", CallToolsExecute, "ok", "", ""},
			{"requirements.txt", CallSession, "RETRIES WRITES", "app/worker.py:6", UseUsed},
		}},
		{"workbench-used", []got{ // a file imports @composio/experimental
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallWorkbench, "RETRIES WRITES", "index.ts:2", UseUsed},
		}},
		{"workbench-unused", []got{ // the package is there, no file imports it
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallWorkbench, "not used", "", UseNotUsed},
		}},
		{"typed", []got{
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "send.ts:6", UseUsed},
		}},
		{"metatool", []got{ // tools.executeMetaTool goes to the session's execute_meta
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "RETRIES WRITES", "index.ts:3", UseUsed},
		}},
		{"metatool-fixed", []got{{"package.json", CallToolsExecute, "ok", "", ""}}},
		// tools.executeSessionTool runs a session's tool by slug: the session's execute (the shape
		// of k3-2o/pi-composio)
		{"session-tool", []got{
			{"package.json", CallToolsExecute, "not used", "", UseNotUsed},
			{"package.json", CallSession, "RETRIES WRITES", "index.ts:13", UseUsed},
		}},
		// Python composio hands max_retries to its HTTP client: every client built with 0 sends
		// each write once, on tools.execute and on sessions; one built without it still re-sends;
		// @composio/core drops maxRetries, so 0 there changes nothing
		{"sdk-once-py", []got{{"requirements.txt", CallToolsExecute, "ok", "main.py:13", UseUsed}}},
		{"sdk-once-mixed-py", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "main.py:8", UseUsed}}},
		{"sdk-once-session-py", []got{
			{"requirements.txt", CallToolsExecute, "ok", "", ""},
			{"requirements.txt", CallSession, "ok", "agent.py:8", UseUsed},
		}},
		{"sdk-maxretries-ts", []got{{"package.json", CallToolsExecute, "RETRIES WRITES", "index.ts:6", UseUsed}}},
		// a session's tools() spread into the agent's tool set ({...remote, ...own}): handed on,
		// not another object's member (the shape of ComposioHQ/trustclaw)
		{"spread-tools", []got{
			{"package.json", CallToolsExecute, "not used", "", UseNotUsed},
			{"package.json", CallSession, "RETRIES WRITES", "src/agent/run.ts:16", UseUsed},
			{"package.json", CallToolsExecute, "unknown", "", ""}, // @composio/vercel: a provider
		}},
		// tools.execute of read tools named by a literal, a proxied GET: reads, which re-sent
		// change nothing (not a write's send)
		{"read-only-execute", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		// the tool named by a module constant: its slug decides (the shape of sr-nagaraj/ComposioAI)
		{"read-by-constant", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}}},
		// the generated client pinned beside the SDK and never built by the code: not used (the shape
		// of SubodhKumarSahu2826/composio-app-research-agent)
		{"client-not-built", []got{{"requirements.txt", CallToolsExecute, "not used", "", UseNotUsed}, {"requirements.txt", CallToolsExecute, "ok", "", ""}}},
		{"write-by-constant", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "mailer.py:9", UseUsed}}},
		// a test sends the write too: the project's send is cited (the shape of Kjdragan/universal_agent)
		{"send-in-tests", []got{{"requirements.txt", CallToolsExecute, "RETRIES WRITES", "mailer/send.py:7", UseUsed}}},
		// tools.get(), each tool copied in a loop into the set the agent gets: run (the shape of
		// kai-feinberg/composio-exodus)
		{"tools-loop-copied", []got{
			{"package.json", CallToolsExecute, "RETRIES WRITES", "lib/tools.ts:11", UseUsed},
			{"package.json", CallToolsExecute, "unknown", "", ""}, // @composio/vercel: a provider
		}},
		{"mcpaddress", []got{ // (await composio.create(id)).mcp.url: only the address is kept
			{"package.json", CallToolsExecute, "ok", "", ""},
			{"package.json", CallSession, "over MCP", "index.ts:3", UseMCP},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			if parserOnly[tt.dir] && CodeReader != "tree-sitter" {
				t.Skipf("a build without cgo reads code with the tokenizer, which misses this send (doctor says so on stderr)")
			}
			r := scanTestdata(t, "callpaths", tt.dir)
			var all []got
			for _, f := range r.Findings {
				all = append(all, got{f.File, f.CallPath, f.Verdict(), f.Evidence, f.Use})
			}
			slices.SortStableFunc(all, func(a, b got) int { return strings.Compare(a.file+a.path+a.verdict, b.file+b.path+b.verdict) })
			want := slices.Clone(tt.want)
			slices.SortStableFunc(want, func(a, b got) int { return strings.Compare(a.file+a.path+a.verdict, b.file+b.path+b.verdict) })
			if !slices.Equal(all, want) {
				t.Errorf("findings\n got %+v\nwant %+v", all, want)
				for _, f := range r.Findings {
					t.Logf("%s %s: %s", f.File, f.Package, f.Reason)
				}
			}
		})
	}
	// the wording a person reads
	r := scanTestdata(t, "callpaths", "mw-writes")
	if !strings.Contains(r.Findings[0].Reason, "3 retries") || !strings.Contains(r.Findings[0].Reason, "4 times") {
		t.Errorf("the middleware's reason does not say what max_retries=3 does: %s", r.Findings[0].Reason)
	}
}

// FuzzCodeScan: no code makes the code reader panic or loop (doctor reads whatever a project
// holds), in either language.
func FuzzCodeScan(f *testing.F) {
	f.Add([]byte("const s = await composio.create('u');\nconst { mcp } = s;\nawait s.execute('X', {})\n/* unclosed"))
	f.Add([]byte("def f():\n    return Composio()\nc = f()\ns = c.tool_router.create(user_id='u')\n'''unclosed"))
	f.Add([]byte("ToolRetryMiddleware(max_retries=3, tools=[\"GMAIL_SEND_EMAIL\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, eco := range []Ecosystem{PyPI, NPM} {
			ctx := context.Background()
			uses := scanProject([]codeFile{readCode(ctx, codeName("a", eco), eco, data), readCode(ctx, codeName("b", eco), eco, data)})
			for _, u := range uses {
				if u.line < 1 {
					t.Fatalf("a use at line %d", u.line)
				}
			}
		}
	})
}

// An undeclared SDK's finding cites the send a version finding would, the project's code before
// its tests, and its reason names that send, not the first one read.
func TestAnUndeclaredFindingCitesTheProjectsSend(t *testing.T) {
	r := scanTestdata(t, "callpaths", "undeclared-tests")
	if len(r.Findings) != 1 {
		t.Fatalf("findings %+v", r.Findings)
	}
	f := r.Findings[0]
	if f.File != "b.py" || f.Evidence != "b.py:7" || !strings.Contains(f.Reason, "at b.py:7") || strings.Contains(f.Reason, "a_test.py") {
		t.Errorf("finding %+v", f)
	}
}

// Code that imports the SDK no manifest declares and sends no write through it is a note at the
// import: nothing to judge, no finding, and the report says no Composio package is declared
// rather than that none was found.
func TestAnUndeclaredImportThatSendsNothingIsANote(t *testing.T) {
	r := scanTestdata(t, "callpaths", "undeclared-read")
	if len(r.Findings) != 0 || len(r.Notes) != 1 {
		t.Fatalf("findings %+v, notes %+v; want one note", r.Findings, r.Notes)
	}
	if n := r.Notes[0]; n.Evidence != "checks/catalog.py:6" || n.CallPath != "import" || n.Call != "from composio import Composio" {
		t.Errorf("note %+v", n)
	}
	var text strings.Builder
	if err := r.WriteText(&text, "undeclared-read", true); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text.String(), "no Composio package declared under undeclared-read\n") {
		t.Errorf("text:\n%s", text.String())
	}
}

// A create that every SDK release re-sends on a timeout (a connected account's initiate or link,
// a webhook endpoint, an auth config: sdkversion's other.create path) is a note at the call,
// never a finding: no upgrade stops it, and the project's verdict and exit status stay what
// its SDK's paths make them. A call named in a comment is none.
func TestOtherCreatesAreNotesNotFindings(t *testing.T) {
	for _, tt := range []struct {
		dir   string
		notes []string // evidence and call
	}{
		// toolkits.authorize starts a link (connectedAccounts.initiate, a new one each call)
		{"othercreate", []string{"index.ts:4 connectedAccounts.initiate", "index.ts:8 webhooks.endpoints.create",
			"index.ts:15 toolkits.authorize"}},
		// the last link handed to asyncio.to_thread, not called (the shape of dheeraj3587/composio-toolkit-ops-agent)
		{"othercreate-py", []string{"app.py:9 connected_accounts.link", "app.py:13 auth_configs.create", "app.py:17 toolkits.authorize",
			"app.py:22 connected_accounts.link"}},
		// a session's authorize is its link (a new connection request each call): on a session
		// from the project's factory in another file (the shape of unainr/working-composio-agents
		// and customclaw/composio), one handed on to a function, one in a field
		{"session-authorize", []string{"src/connect.ts:6 session.authorize", "src/connect.ts:16 s.authorize"}},
		{"session-authorize-py", []string{"app.py:11 self._session.authorize", "app.py:16 session.authorize"}},
	} {
		r := scanTestdata(t, "callpaths", tt.dir)
		if r.RetriesWrites() {
			t.Errorf("%s: a note counted as an alarm: %+v", tt.dir, r.Findings)
		}
		var got []string
		for _, n := range r.Notes {
			got = append(got, n.Evidence+" "+n.Call)
			if n.CallPath != "other.create" || !strings.Contains(n.Text, "every") {
				t.Errorf("%s: note %+v", tt.dir, n)
			}
		}
		if !slices.Equal(got, tt.notes) {
			t.Errorf("%s: notes %q, want %q", tt.dir, got, tt.notes)
		}
		var text strings.Builder
		if err := r.WriteText(&text, tt.dir, true); err != nil || !strings.Contains(text.String(), "notes (no alarm):") {
			t.Errorf("%s: the text report lacks the notes (%v):\n%s", tt.dir, err, text.String())
		}
	}
}

// TestSessionsAreFollowedWhereTheyGo: a session handed to a function of the project's is
// followed into it (across files, through methods and a second hand-on) and judged by what that
// function does with it, cited at the send; handed to code doctor cannot read, it is a note at
// the place it leaves, never a finding; a tool list only printed, counted or listed sends
// nothing, handed to a framework it is a send.
func TestSessionsAreFollowedWhereTheyGo(t *testing.T) {
	type got struct{ path, verdict, evidence string }
	// andSession: tools.execute not re-sending (0.21.0, 0.25.0) and the session path's verdict
	andSession := func(verdict, evidence string) []got {
		return []got{{CallToolsExecute, "ok", ""}, {CallSession, verdict, evidence}}
	}
	for _, tt := range []struct {
		dir      string
		findings []got
		notes    []string // evidence and call path
	}{
		{"handedon", []got{{CallToolsExecute, "ok", ""}}, []string{"index.ts:6 session"}},
		{"handedon-followed", andSession("RETRIES WRITES", "agent-loop.ts:4"), nil},
		{"handedon-mcp", andSession("over MCP", "app/agent.py:5"), nil},
		{"handedon-deep", andSession("RETRIES WRITES", "worker.py:9"), nil},
		{"handedon-framework", andSession("RETRIES WRITES", "app/route.ts:9"), nil},
		// a tool list returned by a function (through another, in another file): run where a
		// caller hands it to a call, as it is or spread into a list of its own
		{"returned-tools", andSession("RETRIES WRITES", "lib/agent.ts:10"), nil},
		// a session handed to a function of the project's on a return line: that function's,
		// not a session the factory returns
		{"handedon-returned", andSession("RETRIES WRITES", "index.ts:7"), nil},
		{"handedon-returned-py", andSession("RETRIES WRITES", "app.py:6"), nil},
		// a session the project's factory makes, handed straight to a function of the project's
		// (deliver(await sessionFor(id))): followed; to code doctor cannot read, a note
		{"made-session-handed", andSession("RETRIES WRITES", "src/send.ts:9"), nil},
		{"made-session-handed-py", andSession("RETRIES WRITES", "app.py:11"), nil},
		{"made-session-lost", []got{{CallToolsExecute, "ok", ""}}, []string{"index.ts:11 session"}},
		{"returned-tools-py", andSession("RETRIES WRITES", "agent.py:9"), nil},
		{"tools-listed", []got{{CallToolsExecute, "ok", ""}}, nil},
		{"tools-listed-py", []got{{CallToolsExecute, "ok", ""}}, nil},
		// a copy of a tool list (list(), sorted()) is what it is handed to: printed, a listing;
		// handed to an agent as a keyword argument, a run
		{"tools-copied-py", andSession("RETRIES WRITES", "agent.py:10"), nil},
		{"tools-listed-old", []got{{CallToolsExecute, "not used", ""}}, nil}, // tools.get of a retrying release, only listed
		// getattr(session, method)(…): a method looked up at run time
		{"dynamic-getattr", andSession("RETRIES WRITES", "main.py:6"), nil},
		{"dynamic-index", andSession("RETRIES WRITES", "index.ts:6"), nil}, // session[method](…)
		{"dynamic-literal-read", []got{{CallToolsExecute, "ok", ""}}, nil}, // session["authorize"](…) sends nothing
		{"importlib", []got{{CallToolsExecute, "RETRIES WRITES", "main.py:8"}}, nil},
		// the client's class imported under another name (Composio as ComposioClient)
		{"class-alias-py", andSession("RETRIES WRITES", "main.py:8"), nil},
		{"class-alias-ts", andSession("RETRIES WRITES", "index.ts:7"), nil},
		// asyncio.to_thread(session.execute, …): the send method handed on to be called
		{"session-method-ref", andSession("RETRIES WRITES", "main.py:10"), nil},
		// runAgent({ composioSession: s }) into a destructured, renamed parameter
		{"handedon-object", andSession("RETRIES WRITES", "src/agent.ts:6"), nil},
		// run_agent(\n "text",\n session,\n): one argument to a line
		{"handedon-multiline", andSession("RETRIES WRITES", "agent.py:5"), nil},
		// new SlackBot(session): the constructor stores it, a method sends
		{"class-field-ts", andSession("RETRIES WRITES", "src/bot.ts:11"), nil},
		// Mailer(create(…)) stores it on self.session; another class's field is MCP only
		{"class-field-py", andSession("RETRIES WRITES", "agent.py:18"), nil},
		// the project's own interface (a Protocol) for the client and the session, each the declared
		// return of a function returning one; the send through a parameter typed with it (the shape
		// of Kumar-s75/composio-api-research-agent); a queue's interface and `any` stay silent
		{"typed-by-interface", andSession("RETRIES WRITES", "src/mail/report.ts:4"), nil},
		{"typed-by-protocol", andSession("RETRIES WRITES", "app/report.py:5"), nil},
		{"typed-not-composio", []got{{CallToolsExecute, "ok", ""}}, nil},
		// getattr(session, "mcp", None): the member, as session.mcp is (the shape of
		// harryfrzz/composio-app-research); getattr(session, "execute") taken to be called sends
		{"getattr-mcp", andSession("over MCP", "agent.py:16"), nil},
		{"getattr-send", andSession("RETRIES WRITES", "worker.py:8"), nil},
		// asyncio.to_thread(self._composio.create, …) awaited onto self, its execute handed to
		// asyncio.to_thread (the shape of Kjdragan/universal_agent)
		{"runner-create", andSession("RETRIES WRITES", "agent_setup.py:24"), nil},
		// session.tools() handed to a chat API as schemas, each call run by session.execute: the
		// execute is the send cited (the shape of Rishi9696/composio-tha-final)
		{"session-list-then-execute", append(andSession("RETRIES WRITES", "agent.py:18"), got{CallToolsExecute, "unknown", ""}), nil},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			r := scanTestdata(t, "callpaths", tt.dir)
			var all []got
			for _, f := range r.Findings {
				all = append(all, got{f.CallPath, f.Verdict(), f.Evidence})
			}
			if !slices.Equal(all, tt.findings) {
				t.Errorf("findings\n got %+v\nwant %+v", all, tt.findings)
				for _, f := range r.Findings {
					t.Logf("%s %s: %s", f.File, f.Package, f.Reason)
				}
			}
			var notes []string
			for _, n := range r.Notes {
				notes = append(notes, n.Evidence+" "+n.CallPath)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes %q, want %q", notes, tt.notes)
			}
			if len(tt.notes) > 0 && r.RetriesWrites() {
				t.Errorf("a note counted as an alarm")
			}
		})
	}
}

// A tool list is run when the code hands it on (to a call, a literal, a return), and only looked
// at when it is printed, counted, asserted on or iterated for its names.
func TestWhenAToolListIsRun(t *testing.T) {
	for _, tt := range []struct {
		eco  Ecosystem
		code string
		run  bool
	}{
		{NPM, "const r = await generateText({ model, tools: await s.tools(), prompt });", true},
		{NPM, "console.log(Object.keys(await s.tools()));", false},
		{NPM, "for (const t of await s.tools()) {}", false},
		{NPM, "function f() {\n  const tools = await s.tools();\n  return streamText({ model, tools });\n}", true},
		{NPM, "function f() {\n  const tools = await s.tools();\n  expect(tools).toHaveLength(3);\n}", false},
		{NPM, "function f() {\n  const tools = await s.tools();\n  return tools;\n}", true},
		{NPM, "function f() {\n  const tools = await s.tools();\n  agent.run(tools.filter(keep));\n}", true},
		{NPM, "function f() {\n  const tools = await s.tools();\n  log(tools.length, tools.map(t => t.name));\n}", false},
		{NPM, "export const tools = await s.tools();", true}, // another module may import it
		{PyPI, "def f():\n    tools = s.tools()\n    agent = Agent(tools=tools)\n", true},
		{PyPI, "def f():\n    tools = s.tools()\n    print(len(tools))\n    for t in tools:\n        print(t.name)\n", false},
		{PyPI, "def f():\n    tools = s.tools()\n    names = [t.name for t in tools]\n", false},
		{PyPI, "agent = Agent(tools=s.tools())", true},
	} {
		f := readCode(context.Background(), codeName("a", tt.eco), tt.eco, []byte(tt.code))
		n := slices.IndexFunc(f.code, func(l string) bool { return strings.Contains(l, ".tools(") })
		if got := toolsRun(&f, n, strings.Index(f.code[n], "s.tools(")); got != tt.run {
			t.Errorf("%q: run %v, want %v", tt.code, got, tt.run)
		}
	}
}

// A function's parameters as a caller passes them: types, defaults and nested brackets are not
// parameters, self and cls are not passed, a destructured one has no name, a list may run over
// lines.
func TestParametersAsACallerPassesThem(t *testing.T) {
	for _, tt := range []struct {
		eco  Ecosystem
		code string
		want []string
	}{
		{NPM, "export async function run(session: ToolRouterSession, opts = { a: [1, 2] }) {", []string{"session", "opts"}},
		{NPM, "const go = async (s, { prompt, model: m }: Args) => s.tools()", []string{"s", "{ prompt, model: m }"}},
		{NPM, "function send<T>(\n  s: Map<string, T>,\n  text: string,\n) {", []string{"s", "text"}},
		{PyPI, "    def _post(self, s, channel: str = \"#ops\", *rest, **kw):", []string{"s", "channel", "rest", "kw"}},
		{PyPI, "def f():", nil},
	} {
		f := readCode(context.Background(), codeName("a", tt.eco), tt.eco, []byte(tt.code))
		defs := funcDefs([]codeFile{f})
		var got []string
		for _, ds := range defs {
			got = ds[0].params
		}
		if len(defs) != 1 || !slices.Equal(got, tt.want) {
			t.Errorf("%q: %d functions, params %q, want %q", tt.code, len(defs), got, tt.want)
		}
	}
}

// parserOnly are the call paths only the languages' grammars read: the tokenizer blanked their
// sends.
var parserOnly = map[string]bool{"fence-regex": true, "template-send": true, "fstring-send": true}

// codeName is a code file's name in eco's language.
func codeName(stem string, eco Ecosystem) string {
	if eco == PyPI {
		return stem + ".py"
	}
	return stem + ".ts"
}

// scanTestdata scans a directory under testdata.
func scanTestdata(t *testing.T, parts ...string) *Report {
	t.Helper()
	r, err := Scan(context.Background(), filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Where a call takes what is handed to it: the argument's position, or its key in an object
// literal, read back through the function's parameters (destructured, renamed, defaulted).
func TestWhereACallTakesWhatIsHandedToIt(t *testing.T) {
	for _, tt := range []struct {
		line   string
		params []string
		callee string
		want   string // the parameter's name in the body, "" when none
	}{
		{"await run(a, session, b)", []string{"x", "s", "y"}, "run", "s"},
		{"await run({ session, prompt })", []string{"{ session, prompt }"}, "run", "session"},
		{"await run({ prompt, sess: session })", []string{"{ prompt, sess: s = null }"}, "run", "s"},
		{"await run({ session })", []string{"opts"}, "run", ""},    // the object itself: not followed
		{"await run(session)", []string{"{ session }"}, "run", ""}, // a destructured parameter
		{"new Bot(1, session)", []string{"n", "s"}, "new Bot", "s"},
		{"await run([session])", []string{"xs"}, "", ""},
		{"await run({ a: { session } })", []string{"{ a }"}, "", ""},
	} {
		at := strings.LastIndex(tt.line, "session")
		callee, arg, key, ok := enclosingCall(tt.line, at)
		if callee != tt.callee {
			t.Errorf("%q: callee %q (%v), want %q", tt.line, callee, ok, tt.callee)
			continue
		}
		if got := paramFor(&funcDef{params: tt.params}, arg, key); ok && got != tt.want || !ok && tt.want != "" {
			t.Errorf("%q with %q: param %q, want %q", tt.line, tt.params, got, tt.want)
		}
	}
}

// The grammars' reading (parseCode) keeps every line and every byte of code in its place, only
// blanking (comments, the text of literals), as the tokenizer's does, on every code file of the
// testdata; where the two differ, the tokenizer blanked code or kept a comment's or a literal's
// text, and the fixtures above show what that cost.
func TestTheParserOnlyBlanks(t *testing.T) {
	if CodeReader != "tree-sitter" {
		t.Skip("a build without cgo has no grammars")
	}
	differ := 0
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		eco := codeEcosystem(p)
		if eco == "" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		got, ok := parseCode(context.Background(), p, eco, src)
		if !ok {
			t.Errorf("%s: not parsed", p)
			return nil
		}
		if len(got) != len(src) {
			t.Errorf("%s: %d bytes read as %d", p, len(src), len(got))
			return nil
		}
		for i := range src {
			if got[i] != src[i] && (got[i] != ' ' || src[i] == '\n') {
				t.Errorf("%s: byte %d %q read as %q", p, i, src[i], got[i])
				return nil
			}
		}
		if got != stripCode(string(src), eco) {
			differ++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d code files read otherwise by the tokenizer", differ)
}

// A parse whose context ends is no reading: readCode falls back to the tokenizer.
func TestAStoppedParseIsNoReading(t *testing.T) {
	if CodeReader != "tree-sitter" {
		t.Skip("a build without cgo has no grammars")
	}
	ctx, cancel := context.WithCancel(context.Background())
	src := []byte(strings.Repeat("const a = `x ${b}`; // c\n", 20000))
	if _, ok := parseCode(ctx, "a.ts", NPM, src); !ok {
		t.Fatal("a parse with its context alive was no reading")
	}
	cancel()
	if _, ok := parseCode(ctx, "a.ts", NPM, src); ok {
		t.Error("a parse whose context ended was taken for a reading")
	}
}

// A send method taken as a value is a send where it is handed on to be called or bound to a
// name, not where a test or a check only looks at it.
func TestASendMethodHandedOn(t *testing.T) {
	for line, want := range map[string]string{
		"    return await asyncio.to_thread(composio.tools.execute, \"X\", user_id=u)":   "composio.tools.execute",
		"loop.run_in_executor(None, functools.partial(self.client.tools.execute, slug))": "self.client.tools.execute",
		"send = composio.tools.execute":                      "composio.tools.execute",
		"const send = composio.tools.proxyExecute;":          "composio.tools.proxyExecute",
		"expect(composio.tools.execute).toHaveBeenCalled();": "",
		"assert callable(composio.tools.execute)":            "",
		"if typeof(composio.tools.execute) == fn:":           "",
		"if x == composio.tools.execute:":                    "",
		"await composio.tools.execute(\"X\", {})":            "",
		"const e = composio.tools.executeMetaTool":           "",
	} {
		if got := executeRef(line); got != want {
			t.Errorf("%q: %q, want %q", line, got, want)
		}
	}
}

// TestTheSDKsRetriesOption: what doctor says of a retries option given where the SDK's client
// is built (lines.tsv: Python composio hands max_retries to its HTTP client, @composio/core
// drops maxRetries): the finding's reason names the builds, and a create that no upgrade stops
// (connected_accounts.initiate) is a note only while some client retries. A project that sends
// only reads says which (read-only-execute).
func TestTheSDKsRetriesOption(t *testing.T) {
	for _, tt := range []struct {
		dir, reason string
		notes       int
	}{
		{"sdk-once-py", "every client the code builds sets max_retries=0 (main.py:6): composio hands it to the HTTP client", 0},
		{"sdk-once-mixed-py", "the client built at main.py:3 sets max_retries=0, the one at main.py:4 does not", 1},
		{"sdk-maxretries-ts", "maxRetries: 0 where the client is built (index.ts:3) does not stop it", 0},
		{"read-only-execute", "never calls tools.execute, the proxy or provider-wrapped tools (tools.get, handleToolCalls) with a write: " +
			"it sends only reads (HACKERNEWS_GET_USER at main.py:6)", 0},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			r := scanTestdata(t, "callpaths", tt.dir)
			if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Reason, tt.reason) {
				t.Fatalf("findings %+v, want a reason with %q", r.Findings, tt.reason)
			}
			if len(r.Notes) != tt.notes {
				t.Errorf("%d notes, want %d: %+v", len(r.Notes), tt.notes, r.Notes)
			}
		})
	}
}

// TestOtherCreateNotesNeedTheSDK: a create the SDK's generated client re-sends is noted only
// where the SDK is the project's (othercreate: @composio/core); npm composio-core's client, the
// legacy package with no retry code, makes no such note (legacy-npm-initiate).
func TestOtherCreateNotesNeedTheSDK(t *testing.T) {
	if r := scanTestdata(t, "callpaths", "othercreate"); len(r.Notes) == 0 {
		t.Errorf("othercreate: no note")
	}
	if r := scanTestdata(t, "callpaths", "legacy-npm-initiate"); len(r.Notes) != 0 {
		t.Errorf("legacy-npm-initiate: notes %+v", r.Notes)
	}
}

// A test's file is known by its path, in either language; the project's code is not.
func TestTestCodeIsKnownByItsPath(t *testing.T) {
	for rel, want := range map[string]bool{
		"tests/integration/test_regression.py": true, "checks/test_send.py": true, "app/mail_test.py": true,
		"src/__tests__/mail.ts": true, "src/mail.test.ts": true, "src/mail.spec.js": true, "conftest.py": true,
		"src/mail.ts": false, "mailer/send.py": false, "src/testing_utils/latest.py": false, "contest.py": false,
		"src/attest.ts": false,
	} {
		if got := testCode(rel); got != want {
			t.Errorf("testCode(%q) = %v, want %v", rel, got, want)
		}
	}
}

// A name typed with a type is read in every spelling a type takes (typing.Optional, a forward
// reference in quotes, TypeScript's optional field), and a line whose colons type nothing
// with a name is passed over (the test that keeps the expression off most lines).
func TestTypedNamesAreRead(t *testing.T) {
	for _, tt := range []struct {
		line string
		want string // name=Type of the first match, "" for none
	}{
		{"def f(c: typing.Optional[Composio]) -> None:", "c=Composio"},
		{"def f(c: Optional[MailClient], n: int):", "c=MailClient"},
		{`def send(session: "MailSession", to: str):`, "session=MailSession"},
		{"  readonly client?: MailClient;", "client=MailClient"},
		{"def f(x: str, y: int) -> dict:", ""},
		{`config = {"toolkits": toolkits, "user": user_id}`, ""},
	} {
		got := ""
		if m := typedIn(tt.line); len(m) > 0 {
			got = m[0][1] + "=" + m[0][2]
		}
		if got != tt.want {
			t.Errorf("typedIn(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestAWorkspacePackageIsTheMembers: in the SDK's own repository every requirement its
// workspace takes from the tree is the member's version (the manifest's), from "workspace", and
// no finding nor note cites the SDK's own source.
func TestAWorkspacePackageIsTheMembers(t *testing.T) {
	for dir, want := range map[string]string{"uv-workspace-sdk": "0.15.0", "npm-workspace-sdk": "0.13.0"} {
		rep, err := Scan(context.Background(), filepath.Join("testdata", "callpaths", dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) == 0 {
			t.Fatalf("%s: no findings", dir)
		}
		for _, f := range rep.Findings {
			if f.Version != want || f.VersionSource != "workspace" {
				t.Errorf("%s: %s %s: version %q from %q, want %s from the workspace", dir, f.File, f.Package, f.Version, f.VersionSource, want)
			}
			if strings.Contains(f.Evidence, "/composio/") || strings.Contains(f.Evidence, "composio_openai") || strings.Contains(f.Evidence, "/src/") {
				t.Errorf("%s: %s cites the SDK's own source: %s", dir, f.File, f.Evidence)
			}
		}
		for _, n := range rep.Notes {
			if strings.Contains(n.Evidence, "/src/") || strings.Contains(n.Evidence, "/composio/") {
				t.Errorf("%s: a note cites the SDK's own source: %+v", dir, n)
			}
		}
	}
}

// TestAWorkspaceSourceWithoutAWorkspace: a requirement whose source is the workspace where no
// uv workspace holds it is said so (a problem), and its version stays unknown, not a guess.
func TestAWorkspaceSourceWithoutAWorkspace(t *testing.T) {
	dir := t.TempDir()
	pp := "[project]\nname = \"app\"\ndependencies = [\"composio==0.10.0\"]\n\n[tool.uv.sources]\ncomposio = { workspace = true }\n"
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(pp), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error, "no uv workspace above it") {
		t.Errorf("problems = %+v, want one saying no workspace holds it", rep.Problems)
	}
	for _, f := range rep.Findings {
		if f.Package == "composio" && (f.Version != "" || f.Verdict() != "unknown") {
			t.Errorf("composio: version %q, verdict %q; want no version, unknown", f.Version, f.Verdict())
		}
	}
}

// A version reads alike however the project names it: pinned in the manifest, or locked in a
// lock file under a range. The line decides where the number misleads (a pre-release published
// before the renumbering carries the old code, whatever its number), on both paths.
func TestAPinAndALockReadAlike(t *testing.T) {
	write := func(dir string, files map[string]string) {
		t.Helper()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	verdicts := func(dir, pkg string) []string {
		t.Helper()
		r, err := Scan(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range r.Findings {
			if f.Package == pkg && f.CallPath == CallToolsExecute {
				out = append(out, f.File+" "+f.Verdict())
			}
		}
		return out
	}
	for _, v := range []string{"0.15.2", "0.16.0", "0.27.0", "1.0.0rc5", "1.0.0rc10"} {
		pinned, locked := t.TempDir(), t.TempDir()
		write(pinned, map[string]string{"requirements.txt": "composio==" + v + "\n"})
		write(locked, map[string]string{
			"pyproject.toml": "[project]\nname = \"app\"\nversion = \"1.0.0\"\ndependencies = [\"composio>=0.8\"]\n",
			"uv.lock": "version = 1\n\n[[package]]\nname = \"composio\"\nversion = \"" + v +
				"\"\nsource = { registry = \"https://pypi.org/simple\" }\n",
		})
		p, l := verdicts(pinned, "composio"), verdicts(locked, "composio")
		if len(p) != 1 || len(l) != 2 {
			t.Fatalf("%s: findings %q and %q", v, p, l)
		}
		want := strings.TrimPrefix(p[0], "requirements.txt ")
		for _, got := range l {
			if _, verdict, _ := strings.Cut(got, " "); verdict != want {
				t.Errorf("composio %s: pinned %s, locked %s", v, want, got)
			}
		}
	}
}
