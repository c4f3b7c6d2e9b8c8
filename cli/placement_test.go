package cli

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	flag "github.com/spf13/pflag"

	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/sandbox"
)

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
