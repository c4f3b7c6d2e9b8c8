package cli

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"
)

// argvCase is one row of a command's TestNewCmdX table, as gh writes them: an argv, and either
// what the options it binds must say (want: "" when they say it, else what differs) or the
// error the command gives for it before anything runs (runF is then never called).
type argvCase[O any] struct {
	argv    string
	want    func(o *O) string
	wantErr string
}

// newCmdTable runs a command's argv table through newCmd, with a runF that only captures the
// options it is given.
func newCmdTable[O any](t *testing.T, newCmd func(*Env, func(context.Context, *O) error) *cobra.Command, cases []argvCase[O]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.argv, func(t *testing.T) {
			var got *O
			cmd := newCmd(newTestEnv(nil).Env, func(_ context.Context, o *O) error { got = o; return nil })
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			cmd.SetArgs(splitArgv(tt.argv))
			err := cmd.Execute()
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one saying %q", err, tt.wantErr)
				}
				if got != nil {
					t.Errorf("runF ran for a refused argv, with %+v", got)
				}
			case err != nil:
				t.Fatal(err)
			case got == nil:
				t.Fatal("runF did not run")
			default:
				if d := tt.want(got); d != "" {
					t.Error(d)
				}
			}
		})
	}
}

// differs says which of the (name, got, want) triples differ; "" when none does.
func differs(triples ...any) string {
	var out []string
	for i := 0; i+2 < len(triples); i += 3 {
		if !reflect.DeepEqual(triples[i+1], triples[i+2]) {
			out = append(out, fmt.Sprintf("%v = %#v, want %#v", triples[i], triples[i+1], triples[i+2]))
		}
	}
	return strings.Join(out, "; ")
}

// splitArgv splits an argv written as a shell would read it, with single quotes only.
func splitArgv(s string) []string {
	var out []string
	var cur strings.Builder
	in, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
			}
			in = false
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func TestSplitArgv(t *testing.T) {
	if got := splitArgv(`list --filter 'a b' '' x`); !reflect.DeepEqual(got, []string{"list", "--filter", "a b", "", "x"}) {
		t.Errorf("%q", got)
	}
	if d := differs("a", 1, 1, "b", "x", "y"); d != `b = "x", want "y"` {
		t.Errorf("differs: %q", d)
	}
}

// Named profiles: --profile NAME or EXECTRIAGE_PROFILE picks the base URL, the
// variable holding the key (never the key) and the journal; info says which; a missing profile
// or an unset key variable is a usage error, never a silent fall-back to the demo.
func TestProfiles(t *testing.T) {
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 3, Size: 200, Now: fixedNow, APIKey: "k-prod-SECRET"}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	pj := filepath.Join(dir, "prod.db")
	text := fmt.Sprintf("[profiles.prod]\nbase_url = %q\napi_key_env = \"EXAMPLE_PROD_KEY\"\njournal = %q\nproduction = true\n\n[profiles.staging]\nbase_url = \"https://staging.example\"\napi_key_env = \"EXAMPLE_STAGING_KEY\"\n", base, pj)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"EXECTRIAGE_CONFIG": cfg, "EXAMPLE_PROD_KEY": "k-prod-SECRET", "XDG_STATE_HOME": dir}

	for _, how := range [][]string{{"--profile", "prod"}, nil} {
		v := vars
		if how == nil {
			v = map[string]string{"EXECTRIAGE_PROFILE": "prod"}
			maps.Copy(v, vars)
		}
		code, out, errOut := run(t, v, append([]string{"info"}, how...)...)
		if code != ExitOK {
			t.Fatalf("info %v: %d %s", how, code, errOut)
		}
		for _, want := range []string{"source        LIVE " + base, "API key from  $EXAMPLE_PROD_KEY (profile prod)", "SQLite " + pj} {
			if !strings.Contains(out, want) {
				t.Errorf("info %v lacks %q:\n%s", how, want, out)
			}
		}
		if strings.Contains(out, "SECRET") {
			t.Errorf("info shows the key:\n%s", out)
		}
		// the profile's source and key really are used
		if code, out, errOut := run(t, v, append([]string{"scan"}, how...)...); code != ExitOK || !strings.Contains(out+errOut, "200") {
			t.Errorf("scan %v: %d %s %s", how, code, out, errOut)
		}
	}
	if code, _, errOut := run(t, vars, "scan", "--profile", "nope"); code != ExitUsage || !strings.Contains(errOut, `no profile "nope"`) || !strings.Contains(errOut, "prod, staging") {
		t.Errorf("unknown profile: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, vars, "scan", "--profile", "staging"); code != ExitUsage || !strings.Contains(errOut, "$EXAMPLE_STAGING_KEY, where its API key is, is not set") {
		t.Errorf("unset key variable: %d %s", code, errOut)
	}
}

// Durations take days and weeks wherever a duration is taken (the tool itself says "since 7d").
func TestDurationsTakeDaysAndWeeks(t *testing.T) {
	for _, args := range [][]string{
		{"list", "--file", "testdata/export.jsonl", "--since", "7d"},
		{"list", "--file", "testdata/export.jsonl", "--since", "2w", "--timeout", "1d"},
	} {
		if code, _, errOut := run(t, nil, args...); code != ExitOK {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if code, _, errOut := run(t, nil, "list", "--file", "testdata/export.jsonl", "--since", "7days"); code != ExitUsage || !strings.Contains(errOut, "7d") {
		t.Errorf("--since 7days: exit %d: %s", code, errOut)
	}
}

// runAt is run with the session's clock at now.
func runAt(t *testing.T, now time.Time, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	env := newTestEnv(vars)
	env.Now = func() time.Time { return now }
	code := Run(context.Background(), env.Env, args)
	return code, env.out.String(), env.err.String()
}

type demoList struct {
	Executions []struct {
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Tool      string `json:"tool_slug"`
		Flagged   bool   `json:"flagged"`
		Outcome   string `json:"outcome"`
		Kind      string `json:"kind"`
	} `json:"executions"`
}

func listDemo(t *testing.T, now time.Time, vars map[string]string) (demoList, map[string]string) {
	t.Helper()
	code, out, errOut := runAt(t, now, vars, "list", "--demo", "--json")
	if code != ExitOK {
		t.Fatalf("list --demo: %d %s", code, errOut)
	}
	var l demoList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, e := range l.Executions {
		byID[e.ID] = e.Tool + " " + e.Timestamp
	}
	return l, byID
}

// TestDemoIsTheSameWorldInEveryCommand: the demo's ids name the same executions
// in every command and minute, so a retry done once is refused when asked again later under
// the same id; after DemoMaxAge a new world starts with an empty demo journal.
func TestDemoIsTheSameWorldInEveryCommand(t *testing.T) {
	state := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": state}
	t0 := time.Date(2026, 3, 2, 12, 0, 30, 0, time.UTC)

	l1, first := listDemo(t, t0, vars)
	_, later := listDemo(t, t0.Add(7*time.Minute+13*time.Second), vars)
	// (the oldest few leave the 7-day window as the clock moves on)
	if len(first) < 2000 || len(later) < len(first)-20 {
		t.Fatalf("%d executions, then %d", len(first), len(later))
	}
	for id, what := range later {
		if first[id] != what {
			t.Fatalf("%s was %q, seven minutes later %q", id, first[id], what)
		}
	}

	// retry one flagged write; asked again minutes later, the guard refuses it
	retried := ""
	for _, e := range l1.Executions {
		if !e.Flagged || e.Kind != "write" {
			continue
		}
		code, _, _ := runAt(t, t0.Add(2*time.Minute), vars, "retry", e.ID, "--demo", "--confirm-failed", "--reason", "the customer saw no email")
		if code == ExitOK {
			retried = e.ID
			break
		}
	}
	if retried == "" {
		t.Fatal("no flagged write of the demo could be retried")
	}
	code, _, errOut := runAt(t, t0.Add(11*time.Minute), vars, "retry", retried, "--demo", "--confirm-failed", "--reason", "again")
	if code != ExitRefused || !strings.Contains(errOut, "already succeeded") {
		t.Fatalf("second retry of %s nine minutes later: exit %d, %s", retried, code, errOut)
	}

	// every record says which source it was made against
	if code, out, errOut := runAt(t, t0.Add(12*time.Minute), vars, "mark", retried, "confirmed_failed", "--demo"); code != ExitOK {
		t.Fatalf("mark: %d %s %s", code, out, errOut)
	}
	code, out, errOut := runAt(t, t0.Add(12*time.Minute), vars, "journal", "--demo")
	if code != ExitOK || strings.Count(out, "; on DEMO") != 2 {
		t.Errorf("journal --demo: the confirmation and the verdict do not both name the demo (%d):\n%s%s", code, out, errOut)
	}

	// a day on: a new world, and the old world's claims are gone with its journal
	next := t0.Add(app.DemoMaxAge + time.Hour)
	code, out, errOut = runAt(t, next, vars, "journal", "--demo", "--json")
	if code != ExitOK {
		t.Fatalf("journal --demo: %d %s", code, errOut)
	}
	if strings.Contains(out, retried) {
		t.Errorf("the new demo world's journal still holds the old world's retry of %s", retried)
	}
	b, err := os.ReadFile(filepath.Join(state, "exectriage", app.DemoAnchorName))
	if err != nil || !strings.HasPrefix(string(b), next.Truncate(time.Minute).Format(time.RFC3339)) {
		t.Errorf("demo anchor %q (%v), want %s", b, err, next.Truncate(time.Minute).Format(time.RFC3339))
	}
	if _, err := os.Stat(filepath.Join(state, "exectriage", "journal.db")); err == nil {
		t.Error("the demo created the real journal")
	}
}

// A read-only demo session writes nothing: no anchor file, and a stale world's journal is not
// reset (the read-only promise: no journal write).
func TestReadOnlyDemoWritesNothing(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "exectriage")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	anchor := filepath.Join(dir, app.DemoAnchorName)
	journal := filepath.Join(dir, app.DemoJournalName)
	for _, f := range []struct{ path, text string }{{anchor, old.Format(time.RFC3339) + "\n"}, {journal, "a journal"}} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"XDG_STATE_HOME": state}
	code, _, errOut := runAt(t, old.Add(3*app.DemoMaxAge), vars, "verify", "log_x", "--demo", "--readonly")
	if code != ExitUsage || !strings.Contains(errOut, "read-only") {
		t.Fatalf("verify --readonly: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(anchor); !strings.HasPrefix(string(b), old.Format(time.RFC3339)) {
		t.Errorf("the anchor was rewritten: %q", b)
	}
	if b, err := os.ReadFile(journal); err != nil || string(b) != "a journal" {
		t.Errorf("the demo journal was reset: %q %v", b, err)
	}
}

// A placement: a shared flag and its value, given before the command's name or after its
// arguments. Issue 25: `exectriage --readonly retry ...` sent the retry, because each command
// parsed its arguments again from its own name onwards.

// sharedFlag is one shared flag with a value to give it; source flags replace the
// invocation's own source.
type sharedFlag struct {
	name   string
	value  []string
	source bool
}

// invocation is a command run the placement test varies.
type invocation struct {
	cmd    string
	args   []string // after the name: arguments and the command's own flags
	source []string // the source it reads unless the flag under test is one
	writes bool     // a command that writes the journal or sends
}

// placementWorld is what every run starts from: a state directory holding a journal with
// records and the demo's anchor, a config with a profile, and a sandbox for --base-url.
type placementWorld struct {
	template string // the state directory every run gets a copy of
	config   string
	base     string
}

func newPlacementWorld(t *testing.T) *placementWorld {
	t.Helper()
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 3, Size: 60, Now: fixedNow, APIKey: "k-place"}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	w := &placementWorld{template: filepath.Join(dir, "state"), config: filepath.Join(dir, "config.toml"), base: base}
	text := fmt.Sprintf("[profiles.p]\nbase_url = %q\napi_key_env = \"PLACE_KEY\"\njournal = \"{STATE}/profile.db\"\n", base)
	if err := os.WriteFile(w.config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	// the journal and the demo's anchor exist with records, as on a machine in use
	vars := w.varsFor(w.template)
	for _, args := range [][]string{
		{"mark", "log_G01", "ignored", "--file", "testdata/export.jsonl"},
		{"mark", "log_S04", "ignored", "--file", "testdata/export.jsonl", "--journal", w.template + "/other.db"},
		{"list", "--demo", "--limit", "1"},
	} {
		if code, _, errOut := run(t, vars, args...); code != ExitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
	}
	return w
}

// varsFor is the environment of a run whose state directory is state, with a config of its
// own there (the profile's journal is in it).
func (w *placementWorld) varsFor(state string) map[string]string {
	text, err := os.ReadFile(w.config)
	if err == nil {
		err = os.MkdirAll(state, 0o700)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(state, "config.toml"), []byte(strings.ReplaceAll(string(text), "{STATE}", state)), 0o600)
	}
	if err != nil {
		panic(err)
	}
	return map[string]string{
		"XDG_STATE_HOME": state, "EXECTRIAGE_JOURNAL": state + "/journal.db", "EXECTRIAGE_CONFIG": filepath.Join(state, "config.toml"),
		"COMPOSIO_API_KEY": "k-place", "PLACE_KEY": "k-place", "EXECTRIAGE_WHO": "placement",
	}
}

// copyDir copies the template state directory to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stateOf is a state directory as text, twice: exact (every file's name and bytes) and by
// rows (a journal's rows with their ids as UUID, other files' bytes). SQLite's coordination
// files are left out when they hold nothing (a reader makes them; no record is in them). Two
// placements compare by rows (a retry draws its attempt id anew); a run and the template
// compare exactly, so a read-only run must leave the journal byte-identical.
func stateOf(t *testing.T, dir string) (exact, rows string) {
	t.Helper()
	var e, r strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, "-shm") || strings.HasSuffix(p, "-wal") && st.Size() == 0 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&e, "%s %d %x\n", rel, len(data), sha256.Sum256(data))
		switch {
		case rel == "config.toml": // the run's own, written with its path
		case strings.HasSuffix(p, ".db"):
			fmt.Fprintf(&r, "%s\n%s", rel, journalRows(t, p))
		default:
			fmt.Fprintf(&r, "%s %x\n", rel, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return e.String(), r.String()
}

// journalRows is every row of a SQLite journal, uuids as UUID: two journals that recorded the
// same things (with ids drawn anew) read the same.
func journalRows(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, table := range []string{"schema_version", "confirmations", "attempts", "verdicts"} {
		rows, err := db.Query(`SELECT * FROM ` + table)
		if err != nil {
			fmt.Fprintf(&b, "  %s: %v\n", table, err)
			continue
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, uuidRE.ReplaceAllString(fmt.Sprint(vals...), "UUID"))
		}
		rows.Close()
		slices.Sort(lines)
		fmt.Fprintf(&b, "  %s: %s\n", table, strings.Join(lines, " | "))
	}
	return b.String()
}

// placementRun is one run's result, normalized: the run's own state directory reads STATE,
// and uuids (attempt ids, drawn anew each run) read UUID.
type placementRun struct {
	code           int
	stdout, stderr string
	state          string
	changed        bool // the state directory is not the template's any more
}

// withoutConfig drops the config.toml line of an exact state.
func withoutConfig(exact string) string {
	var keep []string
	for l := range strings.SplitSeq(exact, "\n") {
		if !strings.HasPrefix(l, "config.toml ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// runPlaced runs args in a fresh copy of the template state.
func (w *placementWorld) runPlaced(t *testing.T, args []string) placementRun {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	copyDir(t, w.template, state)
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "{STATE}", state)
	}
	code, out, errOut := run(t, w.varsFor(state), args...)
	norm := func(s string) string { return uuidRE.ReplaceAllString(strings.ReplaceAll(s, state, "STATE"), "UUID") }
	exact, rows := stateOf(t, state)
	was, _ := stateOf(t, w.template)
	// the run's own config is the template's with its path: not a change the run made
	return placementRun{code: code, stdout: norm(out), stderr: norm(errOut), state: strings.ReplaceAll(rows, state, "STATE"),
		changed: withoutConfig(exact) != withoutConfig(was)}
}

// TestFlagsMeanTheSameWherever: every shared flag, before the command's name and after its
// arguments, gives the same exit status, output and state; a flag a command does not take is
// refused (exit 2) in both places; the writing commands under --readonly refuse in both places
// and leave the journal byte-identical.
func TestFlagsMeanTheSameWherever(t *testing.T) {
	w := newPlacementWorld(t)
	file := []string{"--file", "testdata/export.jsonl"}
	flags := []sharedFlag{
		{"--readonly", nil, false},
		{"--demo", nil, true},
		{"--file", []string{"testdata/export.jsonl"}, true},
		{"--base-url", []string{w.base}, true},
		{"--profile", []string{"p"}, false},
		{"--journal", []string{"{STATE}/other.db"}, false},
		{"--json", nil, false},
		{"--since", []string{"720h"}, false},
		{"--timeout", []string{"30s"}, false},
		{"--color", []string{"never"}, false},
		{"--theme", []string{"ansi16"}, false},
	}
	demoWrite := flaggedDemoWrite(t, w.varsFor(w.template))
	invocations := []invocation{
		{cmd: "scan", source: file},
		{cmd: "list", args: []string{"--limit", "5"}, source: file},
		{cmd: "show", args: []string{"log_G01"}, source: file},
		{cmd: "verify", args: []string{"log_G01"}, source: file},
		{cmd: "retry", args: []string{demoWrite, "--confirm-failed", "--reason", "r"}, source: []string{"--demo"}, writes: true},
		{cmd: "resolve", args: []string{"log_G01", "--as", "failed", "--reason", "r"}, source: file, writes: true},
		{cmd: "mark", args: []string{"log_G02", "ignored", "--note", "n"}, source: file, writes: true},
		{cmd: "journal"},
		{cmd: "bundle", args: []string{"log_G01", "--no-verify"}, source: file},
		{cmd: "doctor", args: []string{"../doctor/testdata/projects/npm-old"}},
		{cmd: "info"},
		{cmd: "sandbox", args: []string{"--size", "-1"}}, // refused before it listens
		{cmd: "version"},
	}
	// a tree of its own each time: cobra's Find writes to the tree, and the runs are parallel
	takes := func(t *testing.T, cmd, flag string) bool {
		t.Helper()
		root := NewRootCmd(newTestEnv(nil).Env)
		c, _, err := root.Find([]string{cmd})
		if err != nil || c == root {
			t.Fatalf("no command %s", cmd)
		}
		return c.Flags().Lookup(strings.TrimPrefix(flag, "--")) != nil
	}
	// the promise's core, whatever the tree says: these take --readonly
	for _, c := range []string{"retry", "mark", "resolve", "verify", "bundle", "journal", "scan", "list", "show"} {
		if !takes(t, c, "--readonly") {
			t.Errorf("%s does not take --readonly", c)
		}
	}
	for _, inv := range invocations {
		for _, f := range flags {
			t.Run(inv.cmd+" "+f.name, func(t *testing.T) {
				t.Parallel()
				source := inv.source
				if f.source {
					source = nil
				}
				given := append([]string{f.name}, f.value...)
				body := append(append([]string{}, inv.args...), source...)
				before := w.runPlaced(t, append(append(slices.Clone(given), inv.cmd), body...))
				after := w.runPlaced(t, append(append([]string{inv.cmd}, body...), given...))
				if !takes(t, inv.cmd, f.name) {
					for where, r := range map[string]placementRun{"before": before, "after": after} {
						if r.code != ExitUsage || !strings.Contains(r.stderr, "unknown flag: "+f.name) || r.changed {
							t.Errorf("%s, which %s does not take, %s it: exit %d, %q", f.name, inv.cmd, where, r.code, r.stderr)
						}
					}
					return
				}
				if before.code != after.code || before.stdout != after.stdout || before.stderr != after.stderr {
					t.Errorf("%s before and after %s differ:\nbefore: exit %d\n%s\n%s\nafter: exit %d\n%s\n%s",
						f.name, inv.cmd, before.code, before.stdout, before.stderr, after.code, after.stdout, after.stderr)
				}
				if before.state != after.state {
					t.Errorf("%s before and after %s leave different journals:\n%s\n%s", f.name, inv.cmd, before.state, after.state)
				}
				if inv.writes && f.name == "--readonly" {
					for where, r := range map[string]placementRun{"before": before, "after": after} {
						if r.code != ExitUsage || !strings.Contains(r.stderr, "read-only") || r.changed {
							t.Errorf("--readonly %s %s: exit %d, state changed %v: %s", where, inv.cmd, r.code, r.changed, r.stderr)
						}
					}
				}
			})
		}
	}
}

// TestReadOnlyRefusesEverywhere: the writing commands and verify under --readonly, before or
// after the command, exit 2, say why, and leave the journal byte-identical; the same commands
// without it do write (so the check can fail).
func TestReadOnlyRefusesEverywhere(t *testing.T) {
	w := newPlacementWorld(t)
	demoWrite := flaggedDemoWrite(t, w.varsFor(w.template))
	for _, args := range [][]string{
		{"retry", demoWrite, "--demo", "--confirm-failed", "--reason", "r"},
		{"mark", "log_G02", "ignored", "--file", "testdata/export.jsonl"},
		{"verify", "log_G01", "--base-url", w.base},
	} {
		why := phrase.ReadOnlyWrites // in the words every front gives (the TUI's: ui TestReadOnlySessionRefusesWritingKeys)
		if args[0] == "verify" {
			why = phrase.ReadOnlyChecks
		}
		for _, placed := range [][]string{append([]string{"--readonly"}, args...), append(slices.Clone(args), "--readonly")} {
			r := w.runPlaced(t, placed)
			if r.code != ExitUsage || !strings.Contains(r.stderr, why) || r.changed || r.stdout != "" {
				t.Errorf("%v: exit %d, journal changed %v, %q %q", placed, r.code, r.changed, r.stdout, r.stderr)
			}
		}
	}
	// without --readonly the same runs write: the check above can see a write
	for _, args := range [][]string{
		{"retry", demoWrite, "--demo", "--confirm-failed", "--reason", "r"},
		{"mark", "log_G02", "ignored", "--file", "testdata/export.jsonl"},
	} {
		if r := w.runPlaced(t, args); !r.changed {
			t.Errorf("%v wrote nothing without --readonly: exit %d %s", args, r.code, r.stderr)
		}
	}
}

// TestUnknownTopicsAndShells: an unknown help topic, completion shell or command is exit 2 with
// what may have been meant, never the help and exit 0.
func TestUnknownTopicsAndShells(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "nosuch"}, `unknown help topic "nosuch"`},
		{[]string{"help", "sacn"}, "did you mean scan?"},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh": want bash, zsh, fish, powershell`},
		{[]string{"completion", "bsh"}, "did you mean bash"},
		{[]string{"completion"}, "want one shell"},
		{[]string{"lsit"}, "did you mean list?"},
	} {
		code, out, errOut := run(t, nil, tt.args...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q (want %q), stdout %.60q", tt.args, code, errOut, tt.want, out)
		}
	}
	if code, out, _ := run(t, nil, "help", "retry"); code != ExitOK || !strings.Contains(out, "--confirm-failed") {
		t.Errorf("help retry: exit %d", code)
	}
}

// TestEveryFlagHasOneArity: a flag name means the same kind of value in every command that
// takes it, and the root knows it: so cobra can tell a flag's value from a command's name
// before the command, and the command parses it as it would after.
func TestEveryFlagHasOneArity(t *testing.T) {
	root := NewRootCmd(newTestEnv(nil).Env)
	seen := map[string]string{}
	for _, c := range append(root.Commands(), root) {
		c.LocalFlags().VisitAll(func(f *flag.Flag) {
			kind := f.Value.Type() + "/" + f.NoOptDefVal
			if prev, ok := seen[f.Name]; ok && prev != kind {
				t.Errorf("--%s is %s in one command and %s in %s", f.Name, prev, kind, c.Name())
			}
			seen[f.Name] = kind
			if root.Flags().Lookup(f.Name) == nil {
				t.Errorf("the root does not know --%s of %s", f.Name, c.Name())
			}
		})
	}
	if len(seen) < 20 {
		t.Fatalf("only %d flags seen", len(seen))
	}
}

// A read-only session (--readonly, or [defaults] readonly in the config) refuses every writing
// command with the reason (exit 2) and writes nothing, not even a journal file; provider
// checks run tools, so they wait for --allow-reads.
func TestReadOnlyRefusesEveryWrite(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ro.toml")
	if err := os.WriteFile(cfg, []byte("[defaults]\nreadonly = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(dir, "journal.db")
	for _, how := range []struct {
		name string
		vars map[string]string
		flag []string
	}{
		{"--readonly", map[string]string{"EXECTRIAGE_JOURNAL": jpath, "XDG_STATE_HOME": dir}, []string{"--readonly"}},
		{"the config's default", map[string]string{"EXECTRIAGE_JOURNAL": jpath, "XDG_STATE_HOME": dir, "EXECTRIAGE_CONFIG": cfg}, nil},
	} {
		t.Run(how.name, func(t *testing.T) {
			for _, args := range [][]string{
				{"retry", "log_G01", "--demo", "--confirm-failed", "--reason", "r"},
				{"mark", "log_G01", "duplicate", "--file", "testdata/export.jsonl"},
				{"resolve", "58d9c377-02a2-4e36-bbf0-e7a96fec6de9", "--demo"},
				{"verify", "log_G01", "--file", "testdata/export.jsonl"},
			} {
				args = append(args, how.flag...)
				code, out, errOut := run(t, how.vars, args...)
				if code != ExitUsage || !strings.Contains(errOut, "read-only") || out != "" {
					t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
				}
			}
			if _, err := os.Stat(jpath); err == nil {
				t.Fatal("a read-only session created the journal")
			}
			if _, err := os.Stat(filepath.Join(dir, "exectriage", "demo-journal.db")); err == nil {
				t.Fatal("a read-only session created the demo journal")
			}
			// reading is fine, and --allow-reads lets a provider check run
			if code, _, errOut := run(t, how.vars, "scan", "--file", "testdata/export.jsonl"); code != ExitOK {
				t.Errorf("scan: exit %d %s", code, errOut)
			}
			if code, _, errOut := run(t, how.vars, append([]string{"verify", "log_G01", "--file", "testdata/export.jsonl", "--allow-reads"}, how.flag...)...); code == ExitUsage {
				t.Errorf("verify --allow-reads: exit %d %s", code, errOut)
			}
		})
	}
}

// TestReadOnlyJournalCommandRecoversAndCreatesNothing: under [defaults] readonly, `journal`
// runs no crash recovery (an abandoned intent stays as it is: recovering is a write), creates
// no journal and no demo file, and `bundle` reads a schema-1 journal without migrating it.
func TestReadOnlyJournalCommandRecoversAndCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ro.toml")
	if err := os.WriteFile(cfg, []byte("[defaults]\nreadonly = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	vars := map[string]string{"XDG_STATE_HOME": state, "EXECTRIAGE_CONFIG": cfg}
	for _, args := range [][]string{{"journal"}, {"journal", "--demo"}, {"journal", "--json"}, {"list", "--demo", "--limit", "1"}} {
		if code, _, errOut := run(t, vars, args...); code != ExitOK {
			t.Errorf("%v: exit %d %s", args, code, errOut)
		}
	}
	if _, err := os.Stat(state); err == nil {
		t.Fatal("a read-only session made its state directory")
	}
	// an attempt left in intent by a process that is gone
	jpath := filepath.Join(dir, "j.db")
	host, _ := os.Hostname()
	j, err := journal.Open(context.Background(), jpath, journal.WithOwner(journal.Owner{Host: host, PID: 1 << 30}))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	a := model.RetryAttempt{ID: "0b6f3b0e-6d1c-4c1e-9a52-3c1f7c1d2e01", ExecutionID: "log_x", ToolSlug: "GMAIL_SEND_EMAIL", ArgumentHash: "h", Who: "w", CreatedAt: at}
	if ok, _, err := j.ClaimAttempt(context.Background(), journal.Claim{Attempt: a, Deadline: at.Add(time.Minute),
		Confirmation: journal.Confirmation{Who: "w", At: at, Reason: "r"}}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	j.Close()
	before, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	ro := map[string]string{"XDG_STATE_HOME": state, "EXECTRIAGE_JOURNAL": jpath, "EXECTRIAGE_CONFIG": cfg}
	if code, out, errOut := run(t, ro, "journal", "--journal", jpath); code != ExitOK || strings.Contains(errOut, "now indeterminate") || !strings.Contains(out, "INTENT") {
		t.Errorf("journal under readonly: exit %d %s %s", code, out, errOut)
	}
	if after, _ := os.ReadFile(jpath); string(after) != string(before) {
		t.Error("a read-only journal command changed the journal (recovery ran)")
	}
	// bundle reads a journal, never migrates it: a schema-1 journal stays schema 1
	old := filepath.Join(dir, "old.db")
	raw, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE schema_version (version BIGINT NOT NULL); INSERT INTO schema_version (version) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	oldBytes, _ := os.ReadFile(old)
	for _, ro := range [][]string{nil, {"--readonly"}} {
		args := append([]string{"bundle", "log_G01", "--no-verify", "--file", "testdata/export.jsonl", "--journal", old}, ro...)
		if code, out, errOut := run(t, map[string]string{"XDG_STATE_HOME": state}, args...); code != ExitOK || !strings.Contains(out+errOut, "schema version 1") {
			t.Errorf("%v: exit %d, %.200s %s", args, code, out, errOut)
		}
		if after, _ := os.ReadFile(old); string(after) != string(oldBytes) {
			t.Errorf("%v migrated the journal", args)
		}
	}
}
