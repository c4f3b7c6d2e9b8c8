package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/sandbox"
)

// TestTheCacheCommandsAndFlags: a loopback API is not cached unless --cache says so;
// a cached scan says the same as an uncached one, `cache info` shows what is kept (never the
// key), a read-only session neither creates nor grows a cache, --no-cache reads the API alone,
// and `cache clear` removes it all.
func TestTheCacheCommandsAndFlags(t *testing.T) {
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 6, Size: 300, Now: fixedNow, APIKey: "k-SECRET-cache"})
	cacheHome := t.TempDir()
	dir := filepath.Join(cacheHome, "exectriage")
	vars := map[string]string{"COMPOSIO_API_KEY": "k-SECRET-cache", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": cacheHome}
	files := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "logs-*.db"))
		return m
	}
	scan := func(extra ...string) string {
		t.Helper()
		code, out, errOut := run(t, vars, append([]string{"scan", "--base-url", base, "--since", "720h", "--json"}, extra...)...)
		if code != ExitOK {
			t.Fatalf("scan %v: %d %s", extra, code, errOut)
		}
		return out
	}
	plain := scan()
	if len(files()) != 0 {
		t.Fatalf("a loopback API was cached without --cache: %v", files())
	}
	if got := scan("--cache", "--readonly"); got != plain || len(files()) != 0 {
		t.Fatalf("a read-only session made a cache (%v) or said something else", files())
	}
	if got := scan("--cache"); got != plain {
		t.Errorf("the first cached scan differs from the plain one")
	}
	if got := scan("--cache"); got != plain {
		t.Errorf("the scan from the cache differs from the plain one")
	}
	if len(files()) != 1 {
		t.Fatalf("cache files %v, want one", files())
	}
	raw, _ := os.ReadFile(files()[0])
	if strings.Contains(string(raw), "SECRET") {
		t.Error("the key is in the cache")
	}
	code, out, _ := run(t, vars, "cache", "info", "--json")
	validAnswer(t, "cache", out)
	var info struct {
		Dir   string `json:"dir"`
		Files []struct {
			Entries int `json:"entries"`
			Details int `json:"details"`
			Covered []struct{ From, To string }
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &info); code != ExitOK || err != nil || info.Dir != dir || len(info.Files) != 1 ||
		info.Files[0].Entries != 300 || info.Files[0].Details == 0 || len(info.Files[0].Covered) != 1 {
		t.Fatalf("cache info: %d %s (%v)", code, out, err)
	}
	before, _ := os.Stat(files()[0])
	if got := scan("--cache", "--readonly"); got != plain {
		t.Error("a read-only scan from the cache differs")
	}
	if after, _ := os.Stat(files()[0]); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Error("a read-only session wrote to the cache")
	}
	if got := scan("--no-cache"); got != plain {
		t.Error("--no-cache differs")
	}
	if code, _, errOut := run(t, vars, "cache", "clear", "--readonly"); code != ExitUsage || !strings.Contains(errOut, "read-only") || len(files()) != 1 {
		t.Errorf("cache clear --readonly: %d %s", code, errOut)
	}
	if code, out, _ := run(t, vars, "cache", "clear"); code != ExitOK || !strings.Contains(out, "removed 1 cache file") || len(files()) != 0 {
		t.Errorf("cache clear: %d %s %v", code, out, files())
	}
	for _, bad := range [][]string{{"cache"}, {"cache", "wipe"}, {"cache", "info", "extra"}} {
		if code, _, errOut := run(t, vars, bad...); code != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: %d %q, want one line and exit 2", bad, code, errOut)
		}
	}
}

// TestAnExportJudgesAsItsWindow: `export` writes the window as JSON Lines (list
// entries, and the details the load fetched), and `scan --file` over it says what scan of the
// API said of every execution; --out writes a private file; --details fetches every detail.
func TestAnExportJudgesAsItsWindow(t *testing.T) {
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 8, Size: 400, Now: fixedNow, APIKey: "k-export"})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-export", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	out := filepath.Join(t.TempDir(), "window.jsonl")
	if code, _, errOut := run(t, vars, "export", "--base-url", base, "--since", "720h", "--out", out); code != ExitOK || !strings.Contains(errOut, "400 executions written") {
		t.Fatalf("export: %d %s", code, errOut)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the export file: %v %v", st.Mode(), err)
	}
	judged := func(args ...string) map[string]execJSON {
		t.Helper()
		code, o, errOut := run(t, vars, append([]string{"scan", "--json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("scan %v: %d %s", args, code, errOut)
		}
		var sc struct {
			Executions []execJSON `json:"executions"`
		}
		if err := json.Unmarshal([]byte(o), &sc); err != nil {
			t.Fatal(err)
		}
		m := map[string]execJSON{}
		for _, e := range sc.Executions {
			m[e.ID] = e
		}
		return m
	}
	// the file beside the API it came from, which says which tools are idempotent (a file alone
	// judges tools by their slugs)
	live, file := judged("--base-url", base, "--since", "720h"), judged("--file", out, "--base-url", base)
	if len(live) != 400 || len(file) != 400 {
		t.Fatalf("%d live, %d from the export", len(live), len(file))
	}
	details := 0
	for id, l := range live {
		f := file[id]
		if f.Kind != l.Kind || f.Outcome != l.Outcome || f.Flagged != l.Flagged || f.Reason != l.Reason || f.OldSDK != l.OldSDK ||
			(f.DuplicateGroup == nil) != (l.DuplicateGroup == nil) || f.DuplicateGroup != nil && *f.DuplicateGroup != *l.DuplicateGroup {
			t.Errorf("%s: the export says %+v, the API %+v", id, f, l)
		}
	}
	raw, _ := os.ReadFile(out)
	for line := range strings.Lines(string(raw)) {
		if strings.Contains(line, `"data":`) {
			details++
		}
	}
	if details == 0 || details == 400 {
		t.Errorf("%d records of 400 carry their detail: want the ones triage fetched", details)
	}
	code, all, _ := run(t, vars, "export", "--base-url", base, "--since", "720h", "--details")
	if n := strings.Count(all, `"data":`); code != ExitOK || n < 390 {
		t.Errorf("export --details: %d, %d of 400 with their detail", code, n)
	}
}

// TestNewCmdCache: cache's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdCache(t *testing.T) {
	newCmdTable(t, NewCmdCache, []argvCase[CacheOptions]{
		{argv: "info --json", want: func(o *CacheOptions) string { return differs("Action", o.Action, "info", "json", o.Source.json, true) }},
		{argv: "clear", want: func(o *CacheOptions) string { return differs("Action", o.Action, "clear") }},
		{argv: "nope", wantErr: "say info or clear"},
		{argv: "", wantErr: "info or clear"},
		{argv: "info --demo", wantErr: "unknown flag: --demo"},
	})
}
