package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui"
)

// maxBadShown bounds the "skipped" warnings printed for unreadable records; the rest are
// counted.
const maxBadShown = 10

// durationValue is a duration flag that remembers whether it was given.
type durationValue struct {
	d   *time.Duration
	set *bool
}

func (v durationValue) String() string {
	if v.d == nil || *v.d == 0 {
		return "" // no default shown for "not set"
	}
	return v.d.String()
}

// Type names the value in help: a duration takes d and w as well as Go's units.
func (v durationValue) Type() string { return "duration" }

func (v durationValue) Set(s string) error {
	d, err := config.ParseDuration(s)
	if err != nil {
		return err
	}
	*v.d = d
	if v.set != nil {
		*v.set = true
	}
	return nil
}

// sourceFlags are the flags every command that reads executions takes; they become the
// application layer's Options.
type sourceFlags struct {
	demo        bool
	file        string
	baseURL     string
	journal     string
	config      string
	since       time.Duration
	sinceSet    bool
	json        bool
	jq          string        // --jq: the JSON through a jq expression
	lean        bool          // scan: drop what triage does not read as records load
	interactive bool          // the TUI: loads run below the event loop's priority
	jonly       bool          // journal: reads the journal, not a source (the demo's only with --demo)
	timeout     time.Duration // the caller's timeout triage assumes
	timeSet     bool
	// readonly: no retry, verdict or journal write; allowReads lets provider checks run.
	readonly, allowReads bool
	profile              string
	// cache, noCache: --cache keeps even a loopback API's logs, --no-cache none
	cache, noCache bool
	index          string // --index: the team index's DSN
	// viewJournal: the command takes --journal, so a load shows the journal's cases (read
	// only, when the journal exists).
	viewJournal bool
	// view names the config's [views.NAME] the command shows (--view).
	view string
	// tune, when set, changes the session's options last (watch counts requests and logs waits).
	tune func(*app.Options)

	mu       sync.Mutex
	bad      int       // unreadable records met so far
	waitSaid time.Time // when a wait for the rate limit was last said
}

// The groups of shared flags a command may take: each registers only those it uses, so its
// help lists nothing it ignores, and a flag it does not take is refused wherever it stands.
type flagGroups uint8

const (
	withSource   flagGroups = 1 << iota // --demo --file --base-url --since --timeout --profile
	withDemo                            // --demo alone (journal: the demo's journal)
	withJSON                            // --json --jq
	withJournal                         // --journal
	withConfig                          // --config
	withReadOnly                        // --readonly --allow-reads
	withView                            // --view
)

// commandFlags is which shared flags each command takes ("" is the TUI). Every command that
// opens a session takes --readonly: read-only is a property of the session, and an auditor's
// `exectriage --readonly list` must work as `exectriage --readonly retry` must refuse.
func commandFlags(name string) flagGroups {
	switch name {
	case "list":
		return withSource | withJSON | withConfig | withJournal | withReadOnly | withView
	case "scan", "show":
		return withSource | withJSON | withConfig | withJournal | withReadOnly
	case "verify", "mark":
		return withSource | withJSON | withConfig | withJournal | withReadOnly | withView
	case "doctor":
		return withSource | withJSON | withConfig | withReadOnly
	case "cache":
		return withJSON | withReadOnly
	case "export":
		return withSource | withConfig | withReadOnly
	case "sync":
		return withSource | withJSON | withConfig | withReadOnly
	case "watch":
		return withSource | withConfig | withJournal | withReadOnly | withView
	case "retry", "resolve", "info":
		return withSource | withJSON | withConfig | withJournal | withReadOnly
	case "journal", "view":
		return withDemo | withJSON | withJournal | withConfig | withReadOnly
	case "bundle":
		return withSource | withConfig | withJournal | withReadOnly
	case "": // --json only to say it is for commands (hidden)
		return withSource | withConfig | withJournal | withJSON | withReadOnly | withView
	}
	return 0
}

func (s *sourceFlags) register(fs *flag.FlagSet, g flagGroups) {
	s.timeout = triage.DefaultCallerTimeout
	if g&(withSource|withDemo|withJournal) != 0 {
		fs.StringVar(
			&s.profile,
			"profile",
			"",
			"use the config's [profiles.`NAME`]: its base URL, the variable holding its key, its journal (default $EXECTRIAGE_PROFILE)",
		)
	}
	if g&(withSource|withDemo) != 0 {
		fs.BoolVar(&s.demo, "demo", false, "use the embedded demo sandbox (the default when COMPOSIO_API_KEY is not set)")
	}
	if g&withSource != 0 {
		fs.StringVar(&s.file, "file", "", "read an export `FILE`: a list response, a JSON array or JSON Lines (gzip ok)")
		fs.StringVar(
			&s.baseURL,
			"base-url",
			"",
			"Composio API base `URL` (default $COMPOSIO_BASE_URL, else the public API); with --file, used by verify",
		)
		fs.Var(
			durationValue{&s.since, &s.sinceSet},
			"since",
			"only executions of the last `DURATION` (default 168h from the API, everything in a file)",
		)
		fs.Var(durationValue{&s.timeout, &s.timeSet}, "timeout", "the caller's request `DURATION`: a success slower than this is ambiguous")
		fs.BoolVar(
			&s.noCache,
			"no-cache",
			false,
			"read everything from the API: neither use nor keep the local cache of its logs (EXECTRIAGE_CACHE=off does the same)",
		)
		fs.BoolVar(
			&s.cache,
			"cache",
			false,
			"keep the API's logs in the local cache even for a loopback API (a remote one's always are, unless --no-cache)",
		)
		fs.StringVar(
			&s.index,
			"index",
			"",
			"read and keep the API's logs in the team index at `DSN` (postgres://…; default the profile's index, else $EXECTRIAGE_INDEX; "+
				"see exectriage sync)",
		)
	}
	if g&withJSON != 0 {
		fs.BoolVar(&s.json, "json", false, "print JSON (versioned, documented in docs/json.md) instead of text")
		fs.StringVar(&s.jq, "jq", "", "filter the JSON with a jq `EXPRESSION` (implies --json; strings print raw)")
	}
	if g&withJournal != 0 {
		s.viewJournal = true
		fs.StringVar(
			&s.journal,
			"journal",
			"",
			"journal `DSN`: a SQLite path or postgres://... (default $EXECTRIAGE_JOURNAL, else the user state dir)",
		)
	}
	if g&withConfig != 0 {
		fs.StringVar(
			&s.config,
			"config",
			"",
			"config `FILE` (default $EXECTRIAGE_CONFIG, else the user config dir's exectriage/config.toml)",
		)
	}
	if g&withView != 0 {
		fs.StringVar(
			&s.view,
			"view",
			"",
			"show the saved view `NAME` (the config's [views.NAME], else the journal's: exectriage view list): its filter (before the "+
				"command's own) and its rows (all, flagged or duplicates)",
		)
	}
	if g&withReadOnly != 0 {
		fs.BoolVar(
			&s.readonly,
			"readonly",
			false,
			"no retry, no verdict, no journal write, no provider check (safe for demos, audits, screen shares; [defaults] readonly in "+
				"the config)",
		)
		fs.BoolVar(&s.allowReads, "allow-reads", false, "with --readonly: let provider checks (read tools) run")
	}
}

// readOnly reports whether the session is read-only (the flag or the config), for commands
// that must refuse before they open the journal (opening it runs crash recovery, a write).
func (s *sourceFlags) readOnly(env *Env) (bool, error) {
	if s.readonly {
		return true, nil
	}
	cfg, err := app.LoadConfig(s.options(env))
	if err != nil {
		return false, err
	}
	return cfg.Defaults.ReadOnly, nil
}

// refuseIfReadOnly ends a writing command in a read-only session with the reason (exit 2).
func (s *sourceFlags) refuseIfReadOnly(env *Env, cmd, what string) (int, bool) {
	ro, err := s.readOnly(env)
	if err != nil {
		return fail(env, cmd, err), true
	}
	if ro {
		return usageError(env, cmd, "%s: %s", what, phrase.ReadOnlyWrites), true
	}
	return ExitOK, false
}

// options are the application layer's options for these flags in env.
func (s *sourceFlags) options(env *Env) app.Options {
	o := app.Options{
		Demo: s.demo, JournalOnly: s.jonly, File: s.file, BaseURL: s.baseURL, Journal: s.journal, ConfigPath: s.config, Index: s.index,
		Since: s.since, SinceSet: s.sinceSet, CallerTimeout: s.timeout, CallerTimeoutSet: s.timeSet,
		Lean: s.lean, Background: s.interactive, Getenv: env.Getenv, Now: env.Now, Version: programVersion(), ReadOnly: s.readonly,
		AllowReads: s.allowReads, Profile: s.profile,
		OnBad: func(r model.RecordError) { s.warnBad(env, r) },
	}
	if s.interactive {
		o.Gate = &pace.Gate{} // the TUI holds its loads back for a moment after each key
	} else {
		// a command says each wait on stderr; the TUI's header says it (App.RateWaiting)
		o.OnRateWait = func(w app.RateWait) { s.sayWait(env, w) }
	}
	switch {
	case s.noCache:
		o.Cache = app.CacheOff
	case s.cache:
		o.Cache = app.CacheOn
	}
	if s.tune != nil {
		s.tune(&o)
	}
	return o
}

// open opens the session (config and source) the flags describe, saying on stderr when the
// API key is the Composio CLI's login rather than COMPOSIO_API_KEY.
func (s *sourceFlags) open(ctx context.Context, env *Env) (*app.App, error) {
	if s.cache && s.noCache {
		return nil, app.Usagef("--cache and --no-cache contradict each other: give one")
	}
	a, err := app.Open(ctx, s.options(env))
	if err == nil {
		for _, l := range phrase.Preamble(a.SourceKind() == model.SourceLive, a.KeyFrom(), a.Index().Err) {
			fmt.Fprintf(env.Stderr, "exectriage: %s\n", sanitize.String(l))
		}
	}
	return a, err
}

// copiesOnce says, once, that records sharing a log id were read as one execution.
func copiesOnce(env *Env, n int) {
	switch {
	case n == 1:
		fmt.Fprintln(
			env.Stderr,
			"exectriage: 1 record was another copy of a log id already read (overlapping pages?): one execution, its latest copy kept",
		)
	case n > 1:
		fmt.Fprintf(
			env.Stderr,
			"exectriage: %d records were other copies of log ids already read (overlapping pages?): one execution each, the latest copy "+
				"kept\n",
			n,
		)
	}
}

// streamExport readies the session for an export streamed into rows, as scan reads it (lean,
// with the collector tuned for rows: leanGC); the returned func restores the collector.
func (s *sourceFlags) streamExport(env *Env) (restore func()) {
	if s.file == "" {
		return func() {}
	}
	s.lean = true
	return leanGC(env)
}

// choose is load for show and bundle: the executions ids names (app.Choose), or with ids nil
// those of session sid (app.ChooseSession).
func (s *sourceFlags) choose(ctx context.Context, env *Env, ids []string, sid string) (*app.App, *app.Chosen, error) {
	defer s.streamExport(env)() // the records chosen are read again whole
	var c *app.Chosen
	a, err := s.loadWith(ctx, env, func(a *app.App) (err error) {
		if ids == nil {
			c, err = a.ChooseSession(ctx, sid)
		} else {
			c, err = a.Choose(ctx, ids)
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	s.detailErrors(env, a, c.DetailErrors, c.FirstDetailError)
	copiesOnce(env, c.Duplicates)
	return a, c, nil
}

// scan is load for scan: rows, streamed from an export file.
func (s *sourceFlags) scan(ctx context.Context, env *Env) (*app.App, *app.Scanned, error) {
	var sc *app.Scanned
	a, err := s.loadWith(ctx, env, func(a *app.App) (err error) {
		sc, err = a.Scan(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	s.detailErrors(env, a, sc.DetailErrors, sc.FirstDetailError)
	copiesOnce(env, sc.Duplicates)
	return a, sc, nil
}

// loadWith opens the session and runs load on it, then says how many unreadable records were
// skipped; on an error the app is closed.
func (s *sourceFlags) loadWith(ctx context.Context, env *Env, load func(*app.App) error) (*app.App, error) {
	a, err := s.open(ctx, env)
	if err != nil {
		return nil, err
	}
	if s.viewJournal {
		if err := a.ViewJournal(ctx); err != nil && !errors.Is(err, journal.ErrNoJournal) {
			fmt.Fprintf(env.Stderr, "exectriage: %s\n", sanitize.String(err.Error()))
		}
	}
	err = load(a)
	s.mu.Lock()
	if s.bad > maxBadShown {
		fmt.Fprintf(env.Stderr, "exectriage: %d unreadable records skipped in all\n", s.bad)
	}
	s.mu.Unlock()
	if err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// detailErrors says on stderr that some details could not be fetched.
func (s *sourceFlags) detailErrors(env *Env, a *app.App, n int, first error) {
	if n > 0 {
		fmt.Fprintf(env.Stderr, "exectriage: could not fetch the detail of %d executions (triaged from their list entries): %s\n",
			n, sanitize.String(a.Policy().Text(first.Error(), false)))
	}
}

// openJournal opens the journal the flags name and runs crash recovery, telling the person on
// stderr about attempts it found abandoned. Every journal command starts with it.
func (s *sourceFlags) openJournal(ctx context.Context, env *Env) (*app.Journal, error) {
	j, err := app.OpenJournal(ctx, s.options(env))
	return s.reported(env, j, err)
}

// openExistingJournal is openJournal for a command that only reads it: none is made
// (app.OpenExistingJournal).
func (s *sourceFlags) openExistingJournal(ctx context.Context, env *Env) (*app.Journal, error) {
	j, err := app.OpenExistingJournal(ctx, s.options(env))
	return s.reported(env, j, err)
}

// reported says on stderr what opening the journal found (recovered attempts, a clock).
func (s *sourceFlags) reported(env *Env, j *app.Journal, err error) (*app.Journal, error) {
	if err != nil {
		return nil, err
	}
	if j.Recovered > 0 {
		in := app.SessionArgsOf(s.options(env))
		hint := func(verb string, args ...string) string { return "`" + triage.CommandLine(in, verb, args...) + "`" }
		fmt.Fprintf(env.Stderr, "exectriage: %s\n", phrase.Recovered(j.Recovered, hint))
	}
	if j.ClockWarning != nil {
		fmt.Fprintf(env.Stderr, "exectriage: %v\n", j.ClockWarning)
	}
	return j, nil
}

// sayWait says on stderr that the load waits for the API's rate limit, at most every two
// seconds (reads waiting side by side say it once), so a long wait is not taken for a hang.
func (s *sourceFlags) sayWait(env *Env, w app.RateWait) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := time.Now(); now.Sub(s.waitSaid) >= 2*time.Second {
		s.waitSaid = now
		read := ""
		if w.Read > 0 {
			read = fmt.Sprintf("; %d executions read so far", w.Read)
		}
		fmt.Fprintf(env.Stderr, "exectriage: %s%s\n", phrase.RateWait(w.Wait, w.Limit, w.Refused), read)
	}
}

// warnBad reports an unreadable record on stderr; past maxBadShown it only counts.
func (s *sourceFlags) warnBad(env *Env, r model.RecordError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bad++
	if s.bad > maxBadShown {
		return
	}
	where := "the API answer"
	if s.file != "" {
		where = s.file
	}
	fmt.Fprintf(env.Stderr, "exectriage: skipped an unreadable record in %s: %s\n", sanitize.String(where), sanitize.String(r.Err.Error()))
}

// fail prints err for cmd, explained (what happened and what to do) with its secrets hidden,
// and returns its exit status: bad input (flags, an unreadable file, an unknown id) is
// ExitUsage, anything else a run-time failure (ExitFinding).
func fail(env *Env, cmd string, err error) int {
	code := ExitFinding
	if app.IsUsage(err) {
		code = ExitUsage
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted // the person stopped it: nothing to explain
	}
	msg := phrase.Explain(err, phrase.AgainCLI)
	msg = app.HideKnown(msg, env.Getenv("COMPOSIO_API_KEY"))
	fmt.Fprintf(env.Stderr, "%s: %s\n", progName(cmd), sanitize.String(msg))
	return code
}

// registerFlagCompletions completes the values of the flags whose values are a known set: the
// filter's terms, resolve's --as, --color, --theme and the config's profiles.
func registerFlagCompletions(cmd *cobra.Command, env *Env) {
	fixed := func(name string, values ...string) {
		if cmd.Flags().Lookup(name) != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	if cmd.Flags().Lookup("filter") != nil {
		_ = cmd.RegisterFlagCompletionFunc("filter", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var out []string
			for _, f := range filter.FieldNames() {
				out = append(out, f+":")
			}
			for _, p := range model.Patterns() {
				out = append(out, "pattern:"+string(p))
			}
			return append(
				out,
				"flagged:yes",
				"outcome:ambiguous",
				"kind:write",
			), cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
		})
	}
	fixed("as", string(model.AttemptSucceeded), string(model.AttemptFailed))
	fixed("color", ui.ColorAuto, ui.ColorAlways, ui.ColorNever)
	fixed("theme", "default", "high-contrast", "ansi16")
	if cmd.Flags().Lookup("profile") != nil {
		_ = cmd.RegisterFlagCompletionFunc("profile", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			path, _ := c.Flags().GetString("config")
			cfg, err := app.LoadConfig(app.Options{ConfigPath: path, Getenv: env.Getenv})
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			names := slices.Sorted(maps.Keys(cfg.Profiles))
			return names, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

// refuseIfNoReads ends a command that runs a provider check in a read-only session that does
// not allow reads (the app refuses it too; this says so before anything opens).
func (s *sourceFlags) refuseIfNoReads(env *Env, cmd string) (int, bool) {
	ro, err := s.readOnly(env)
	if err != nil {
		return fail(env, cmd, err), true
	}
	if !ro || s.allowReads {
		return ExitOK, false
	}
	cfg, err := app.LoadConfig(s.options(env))
	if err != nil {
		return fail(env, cmd, err), true
	}
	if cfg.Defaults.AllowReads {
		return ExitOK, false
	}
	return usageError(env, cmd, "%s", phrase.ReadOnlyChecks), true
}

// savedView is --view's filter and show ("" and "all" without --view), the config's view of
// that name or else the journal's; an unknown view is a usage error that names the views there
// are.
func (s *sourceFlags) savedView(ctx context.Context, env *Env) (filter, show string, err error) {
	if strings.TrimSpace(s.view) == "" {
		return "", "", nil
	}
	v, err := app.SavedView(ctx, s.options(env), strings.TrimSpace(s.view))
	return v.Filter, v.Show, err
}
