package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to look into the index

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/sandbox"
)

// countedSandbox is a sandbox behind a server that counts the list pages and the detail
// requests it answers.
func countedSandbox(t *testing.T, cfg sandbox.Config) (base string, pages, details *atomic.Int64) {
	t.Helper()
	srv, _ := testkit.StartSandbox(t, cfg)
	h := srv.Handler()
	pages, details = &atomic.Int64{}, &atomic.Int64{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/logs/tool_execution"):
			pages.Add(1)
		case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/logs/tool_execution/"):
			details.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, pages, details
}

// TestATeamIndexIsOneCopyForTheTeam: `sync` copies the window's entries and the
// details triage needs into the team's PostgreSQL; another engineer whose profile names the
// index then scans the same window with a list page or two and no detail request, and says
// what a scan of the API alone says; a second sync adds nothing; a read-only session reads the
// index; an index that cannot be reached is said in one line and the API answers; the key is
// nowhere in the database; sync refuses what it cannot do in one line, exit 2.
func TestATeamIndexIsOneCopyForTheTeam(t *testing.T) {
	dsn := testkit.PostgresOrSkip(t, "cli_index_")
	base, pages, details := countedSandbox(t, sandbox.Config{Seed: 12, Size: 600, Now: fixedNow, APIKey: "k-SECRET-team"})
	requests := func() (int64, int64) { return pages.Swap(0), details.Swap(0) }
	engineer := func() map[string]string {
		return map[string]string{"COMPOSIO_API_KEY": "k-SECRET-team", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	}
	a := engineer()
	a["EXECTRIAGE_INDEX"] = dsn
	// B names the index in a profile, as a team would
	b := engineer()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "[profiles.team]\nbase_url = %q\nindex = %q\n", base, dsn), 0o600); err != nil {
		t.Fatal(err)
	}
	b["EXECTRIAGE_CONFIG"] = cfg

	code, out, errOut := run(t, a, "sync", "--base-url", base, "--since", "720h", "--json")
	validAnswer(t, "sync", out)
	var s struct {
		Executions, NewEntries, NewDetails, Entries, Details int
		Covered                                              []spanJSON
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(out, "_", "")), &s); code != ExitOK || err != nil {
		t.Fatalf("sync: %d %s %s (%v)", code, out, errOut, err)
	}
	if s.Executions != 600 || s.NewEntries != 600 || s.Entries != 600 || s.NewDetails == 0 || s.NewDetails == 600 || len(s.Covered) != 1 {
		t.Fatalf("sync said %+v", s)
	}
	syncPages, syncDetails := requests()

	scan := func(vars map[string]string, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := run(t, vars, append([]string{"scan", "--since", "720h", "--json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("scan %v: %d %s", args, code, errOut)
		}
		return out, errOut
	}
	plain, _ := scan(engineer(), "--base-url", base, "--no-cache")
	plainPages, plainDetails := requests()

	fromIndex, _ := scan(b, "--profile", "team")
	p, d := requests()
	if fromIndex != plain {
		t.Error("the scan from the index differs from the scan of the API")
	}
	if p > 2 || d != 0 {
		t.Errorf("a scan from the index asked the API for %d pages and %d details (the API alone: %d and %d)", p, d, plainPages, plainDetails)
	}
	if m, _ := filepath.Glob(filepath.Join(b["XDG_CACHE_HOME"], "exectriage", "logs-*.db")); len(m) != 0 {
		t.Errorf("a session with an index kept a local cache too: %v", m)
	}
	t.Logf("the API alone: %d pages, %d details; sync: %d pages, %d details; a scan from the index: %d pages, %d details",
		plainPages, plainDetails, syncPages, syncDetails, p, d)

	code, out, _ = run(t, a, "sync", "--base-url", base, "--since", "720h", "--json")
	if err := json.Unmarshal([]byte(strings.ReplaceAll(out, "_", "")), &s); code != ExitOK || err != nil || s.NewEntries != 0 || s.NewDetails != 0 || s.Entries != 600 {
		t.Errorf("a second sync: %d %+v (%v)", code, s, err)
	}
	if p, d := requests(); p > 2 || d != 0 {
		t.Errorf("a second sync asked for %d pages and %d details", p, d)
	}
	if ro, _ := scan(b, "--profile", "team", "--readonly"); ro != plain {
		t.Error("a read-only scan from the index differs")
	}

	// an index that cannot be reached: one line, and the API answers
	down := maps.Clone(a)
	down["EXECTRIAGE_INDEX"] = "postgres://u:pw-SECRET@127.0.0.1:1/x?connect_timeout=2"
	got, errOut := scan(down, "--base-url", base)
	if got != plain || !strings.Contains(errOut, "reading the API instead") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || strings.Contains(errOut, "SECRET") {
		t.Errorf("with the index down: same=%v, stderr %q", got == plain, errOut)
	}

	code, out, _ = run(t, b, "info", "--profile", "team", "--json")
	var info struct{ Index string }
	if err := json.Unmarshal([]byte(out), &info); code != ExitOK || err != nil || info.Index != dsn {
		t.Errorf("info does not name the profile's index: %d %s", code, out)
	} else {
		validAnswer(t, "info", out)
	}

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM exectriage_index_entries WHERE project LIKE '%SECRET%' OR
		encode(entry, 'escape') LIKE '%SECRET%' OR encode(coalesce(detail, ''), 'escape') LIKE '%SECRET%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows hold the key (%v)", n, err)
	}

	for _, bad := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{a, []string{"--base-url", base, "--readonly"}, "read-only"},
		{engineer(), []string{"--base-url", base}, "needs a team index"},
		{a, []string{"--demo"}, "not an export"},
		{a, []string{"--base-url", base, "--no-cache"}, "--no-cache"},
		{a, []string{"--base-url", base, "extra"}, "argument"},
		{a, []string{"--base-url", base, "--index", "/tmp/index.db"}, "want a PostgreSQL DSN"},
	} {
		code, _, errOut := run(t, bad.vars, append([]string{"sync"}, bad.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, bad.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("sync %v: %d %q, want one line with %q and exit 2", bad.args, code, errOut, bad.want)
		}
	}
}

// TestNewCmdSync: sync's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdSync(t *testing.T) {
	newCmdTable(t, NewCmdSync, []argvCase[SyncOptions]{
		{argv: "--details --since 24h --json", want: func(o *SyncOptions) string {
			return differs("Details", o.Details, true, "since", o.Source.since, 24*time.Hour, "json", o.Source.json, true)
		}},
		{argv: "x", wantErr: "unexpected argument"},
	})
}
