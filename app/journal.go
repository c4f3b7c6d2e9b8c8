package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/triage"
	"github.com/google/uuid"
)

// The journal's records, as the commands print them.

// ErrNoJournal is returned (wrapped) when a read-only session finds no journal: none is made.
var ErrNoJournal = journal.ErrNoJournal

// ErrNoSuchAttempt is returned (wrapped) for an attempt or execution the journal does not know.
var ErrNoSuchAttempt = journal.ErrNotFound

// JournalDSN picks the journal: the one given, else EXECTRIAGE_JOURNAL, else the default file
// $XDG_STATE_HOME/exectriage/journal.db (~/.local/state/... without XDG_STATE_HOME). A
// postgres:// or postgresql:// URL names a shared PostgreSQL journal.
//
// The demo has a journal of its own: without --journal, its confirmations, retries and
// verdicts go to demo-journal.db beside the journal it would otherwise use (the default
// file's directory when that journal is PostgreSQL), never into the person's real journal.
func JournalDSN(o Options) (string, error) {
	o, _, err := withProfile(o)
	if err != nil {
		return "", err
	}
	if v := strings.TrimSpace(o.Journal); v != "" {
		return v, nil
	}
	demo := journalIsDemo(o)
	if v := strings.TrimSpace(o.getenv("EXECTRIAGE_JOURNAL")); v != "" {
		if !demo {
			return v, nil
		}
		if filepath.IsAbs(v) && !journal.IsPostgres(v) {
			return filepath.Join(filepath.Dir(v), DemoJournalName), nil
		}
	}
	p, err := journal.DefaultPath(o.getenv)
	if err != nil || !demo {
		return p, err
	}
	return filepath.Join(filepath.Dir(p), DemoJournalName), nil
}

// journalIsDemo: the journal asked for is the demo's.
func journalIsDemo(o Options) bool {
	creds, _ := ResolveCredentials(o) // an unreadable login fails in Open, not here
	return o.Demo || !o.JournalOnly && usesDemo(o, creds)
}

// DemoJournalName is the file name of the demo's own journal.
const DemoJournalName = "demo-journal.db"

// Journal is an open journal with the number of attempts crash recovery found abandoned.
type Journal struct {
	j journal.Journal
	// Recovered is how many attempts left in flight by a process that is gone recovery made
	// indeterminate when the journal was opened.
	Recovered int
	readOnly  bool
	// ClockWarning is why this host recovered no other host's attempts at open (its clock
	// differs from the shared journal's: journal.ErrClockSkew), nil when it did.
	ClockWarning error
	// unguarded is why the journal's one-claim guarantee is not in force (journal.Verify at
	// open), nil when it is: claims refuse then, and the journal says so wherever it names
	// what it guards.
	unguarded error
}

// sessionReadOnly is whether the options open a read-only session: --readonly, or the
// config's [defaults] readonly.
func sessionReadOnly(o Options) (bool, error) {
	if o.ReadOnly {
		return true, nil
	}
	cfg, err := LoadConfig(o)
	if err != nil {
		return false, err
	}
	return cfg.Defaults.ReadOnly, nil
}

// OpenJournal opens the journal the options name. A read-only session (Options.ReadOnly, or
// [defaults] readonly in the config) opens it read-only at the driver (OpenJournalReadOnly):
// nothing is created, migrated or recovered and every write is refused, whatever the front
// asks. Otherwise the journal is created as needed (its directories 0700) with its schema,
// and crash recovery runs.
func OpenJournal(ctx context.Context, o Options) (*Journal, error) {
	o, _, err := withProfile(o) // once: the calls below see it applied
	if err != nil {
		return nil, err
	}
	ro, err := sessionReadOnly(o)
	if err != nil {
		return nil, err
	}
	if ro {
		o.ReadOnly = true
		return OpenJournalReadOnly(ctx, o)
	}
	if journalIsDemo(o) {
		if _, err := demoAnchor(o); err != nil { // a new demo world empties its journal first
			return nil, err
		}
	}
	dsn, err := JournalDSN(o)
	if err != nil {
		return nil, err
	}
	j, err := journal.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	n, err := j.RecoverOpen(ctx)
	var clockWarning error
	if errors.Is(err, journal.ErrClockSkew) { // this host's own dead attempts were recovered; the rest wait for a host whose clock is right
		clockWarning, err = err, nil
	}
	if err != nil {
		j.Close()
		return nil, fmt.Errorf("crash recovery: %w", err)
	}
	return &Journal{j: j, Recovered: n, unguarded: j.Verify(ctx), ClockWarning: clockWarning}, nil
}

// OpenJournalReadOnly opens the journal the options name for reading only, at the driver
// (journal.OpenReadOnly): a journal that does not exist yet is an error wrapping
// journal.ErrNoJournal, never created.
func OpenJournalReadOnly(ctx context.Context, o Options) (*Journal, error) {
	dsn, err := JournalDSN(o)
	if err != nil {
		return nil, err
	}
	j, err := journal.OpenReadOnly(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return &Journal{j: j, readOnly: true}, nil
}

// OpenExistingJournal is OpenJournal for a command that only reads the journal: it opens (and
// recovers) one that exists, and makes none: without one it returns ErrNoJournal, so a
// mistyped --journal creates no file and no directory.
func OpenExistingJournal(ctx context.Context, o Options) (*Journal, error) {
	o, _, err := withProfile(o)
	if err != nil {
		return nil, err
	}
	probe, err := OpenJournalReadOnly(ctx, o)
	if err != nil {
		return nil, err
	}
	_ = probe.Close()
	return OpenJournal(ctx, o)
}

// OpenJournalIfExists opens the journal for reading only when it exists (a bundle, or a
// read-only TUI, never creates, migrates or recovers one); the error says why there is none:
// none there yet (errors.Is journal.ErrNoJournal), or one that could not be read.
func OpenJournalIfExists(ctx context.Context, o Options) (*Journal, error) {
	j, err := OpenJournalReadOnly(ctx, o)
	switch {
	case errors.Is(err, journal.ErrNoJournal):
		return nil, noneFound{err}
	case err != nil:
		return nil, fmt.Errorf("journal not read: %w", err)
	}
	return j, nil
}

// noneFound is OpenJournalIfExists's error when there is no journal yet.
type noneFound struct{ err error }

func (noneFound) Error() string {
	return "no journal found: nothing was confirmed, retried or marked with exectriage on this machine"
}

func (e noneFound) Unwrap() error { return e.err }

// ReadOnly reports whether the journal was opened read-only (every write is refused).
func (j *Journal) ReadOnly() bool { return j != nil && j.readOnly }

// WrapJournal makes an open journal an app Journal (tests).
func WrapJournal(j journal.Journal) *Journal {
	if j == nil {
		return nil
	}
	return &Journal{j: j}
}

// Close closes the journal.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	return j.j.Close()
}

// Where names the journal (a path, or the PostgreSQL DSN without its password).
func (j *Journal) Where() string { return j.j.Where() }

// Guards says whom the journal keeps from retrying the same execution twice (phrase.Guards).
func (j *Journal) Guards() phrase.Guards {
	return phrase.Guards{Postgres: journal.IsPostgres(j.Where()), Unguarded: j.unguarded}
}

// Kind is "SQLite journal" or "PostgreSQL journal".
func (j *Journal) Kind() string {
	if journal.IsPostgres(j.Where()) {
		return "PostgreSQL journal"
	}
	return "SQLite journal"
}

// Entries are the journal's records of one execution ("": of all), newest first.
type Entries struct {
	Confirmations []journal.Confirmation
	Attempts      []model.RetryAttempt
	Verdicts      []journal.VerdictRecord
}

// Entries reads the journal's records of execID ("": all).
func (j *Journal) Entries(ctx context.Context, execID string) (Entries, error) {
	var out Entries
	var err error
	if out.Confirmations, err = j.j.Confirmations(ctx, execID); err != nil {
		return out, err
	}
	if out.Attempts, err = j.j.Attempts(ctx, execID); err != nil {
		return out, err
	}
	if out.Verdicts, err = j.j.Verdicts(ctx, execID); err != nil {
		return out, err
	}
	return out, nil
}

// Lease is the lease of an attempt in flight.
func (j *Journal) Lease(ctx context.Context, attemptID string) (journal.Lease, error) {
	return j.j.Lease(ctx, attemptID)
}

// Mark records a verdict.
func (j *Journal) Mark(ctx context.Context, rec journal.VerdictRecord) error {
	return j.j.Mark(ctx, rec)
}

// Who names the person in the journal from the environment (EXECTRIAGE_WHO, else user@host).
func Who(getenv func(string) string) string { return journal.Who(getenv) }

// UseJournal makes j the session's journal (the TUI's retries and verdicts go to it).
func (a *App) UseJournal(j *Journal) {
	if a.ownJ { // a journal ViewJournal opened gives way
		_ = a.j.Close()
		a.ownJ = false
	}
	a.j = j
}

// NoJournal records why the journal could not be opened, so that retries and verdicts refuse
// with the real reason rather than advice to pass a flag that was passed.
func (a *App) NoJournal(err error) { a.jerr = err }

// JournalProblem is why there is no journal ("" when one is open or none was tried).
func (a *App) JournalProblem() string {
	if a.j != nil || a.jerr == nil {
		return ""
	}
	return a.jerr.Error()
}

// ViewJournal opens the journal, when it exists, for reading only, so that a reading command
// shows each execution's case as every other front does (it never creates, migrates or
// recovers one); the app closes it. It returns why there is none (OpenJournalIfExists's
// error; nil when one is open).
func (a *App) ViewJournal(ctx context.Context) error {
	if a.j != nil {
		return nil
	}
	j, err := OpenJournalIfExists(ctx, a.o)
	if j != nil {
		a.j, a.ownJ = j, true
	}
	return err
}

// Journal is the session's journal, nil when none is open.
func (a *App) Journal() *Journal { return a.j }

// JournalStateOf returns what the journal holds about one execution.
func (a *App) JournalStateOf(ctx context.Context, id string) (JournalState, error) {
	if a.j == nil {
		return JournalState{}, nil
	}
	en, err := a.j.Entries(ctx, id)
	if err != nil {
		return JournalState{}, err
	}
	return journalState(en), nil
}

// JournalStates returns the journal's state of every execution that has any.
func (a *App) JournalStates(ctx context.Context) (map[string]JournalState, error) {
	out := map[string]JournalState{}
	if a.j == nil {
		return out, nil
	}
	all, err := a.j.Entries(ctx, "")
	if err != nil {
		return nil, err
	}
	by := map[string]*Entries{}
	get := func(id string) *Entries {
		if by[id] == nil {
			by[id] = &Entries{}
		}
		return by[id]
	}
	for _, c := range all.Confirmations {
		get(c.ExecutionID).Confirmations = append(get(c.ExecutionID).Confirmations, c)
	}
	for _, at := range all.Attempts {
		get(at.ExecutionID).Attempts = append(get(at.ExecutionID).Attempts, at)
	}
	for _, v := range all.Verdicts {
		get(v.ExecutionID).Verdicts = append(get(v.ExecutionID).Verdicts, v)
	}
	for id, en := range by {
		out[id] = journalState(*en)
	}
	return out, nil
}

// Cases returns the journal's case of every execution it holds anything about, the executions
// exectriage's retries made included (RetryOf); nil without a journal.
func (a *App) Cases(ctx context.Context) (map[string]*model.Case, error) {
	if a.j == nil {
		return nil, nil
	}
	states, err := a.JournalStates(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the journal: %w", err)
	}
	return casesOf(states), nil
}

// Mark records a verdict in the session's journal and says what it changed for the guard.
func (a *App) Mark(ctx context.Context, id string, v model.Verdict, note string) (MarkResult, error) {
	if err := a.CheckWrite("nothing was marked"); err != nil {
		return MarkResult{}, err
	}
	if a.j == nil {
		return MarkResult{}, a.noJournal("nothing was marked")
	}
	before, err := a.j.j.Verdicts(ctx, id)
	if err != nil {
		return MarkResult{}, err
	}
	rec := journal.VerdictRecord{
		ID:          uuid.NewString(),
		ExecutionID: id,
		Verdict:     v,
		Note:        note,
		Who:         a.Who(),
		At:          a.Now().UTC(),
		Source:      a.SourceName(),
	}
	if err := a.j.Mark(ctx, rec); err != nil {
		return MarkResult{}, err
	}
	was := decidingVerdict(before)
	return MarkResult{
		Record:   rec,
		Deciding: decidingVerdict(append([]journal.VerdictRecord{rec}, before...)),
		Effect:   triage.VerdictEffect(v, was),
	}, nil
}

// VerdictsFor are the verdicts the mark dialog and `mark` offer for an execution.
func (a *App) VerdictsFor(e *model.Execution, t *model.Triage) []model.Verdict {
	return triage.VerdictsFor(t.Kind, t.Outcome, t.GroupID != "")
}

// noJournal is the error of an action that needs the journal.
func (a *App) noJournal(what string) error {
	if p := a.JournalProblem(); p != "" {
		return fmt.Errorf("the journal could not be opened (%s): %s", p, what)
	}
	return errors.New("no journal is open: " + what)
}

// JournalState is the journal's records of one execution (a front phrases them: package phrase)
// and the verdict the guard goes by.
type JournalState struct {
	Entries
	Verdict model.Verdict // the one the guard goes by (triage.DecidingVerdict), "" when none
}

func journalState(en Entries) JournalState {
	return JournalState{Entries: en, Verdict: decidingVerdict(en.Verdicts)}
}

// decidingVerdict is the verdict, of records newest first, that the guard goes by.
func decidingVerdict(records []journal.VerdictRecord) model.Verdict {
	vs := make([]model.Verdict, len(records))
	for i, r := range records {
		vs[i] = r.Verdict
	}
	if i := triage.DecidingVerdict(vs); i >= 0 {
		return vs[i]
	}
	return ""
}

// MarkResult is what recording a verdict changed: the verdict the guard now goes by, and
// what that means for a retry, in a line.
type MarkResult struct {
	Record   journal.VerdictRecord
	Deciding model.Verdict
	Effect   string
}

// casesOf is the case of each execution of states and of each log their retries made.
func casesOf(states map[string]JournalState) map[string]*model.Case {
	retryOf := map[string]string{}
	for id, st := range states {
		for _, at := range st.Attempts {
			if at.NewLogID != "" {
				retryOf[at.NewLogID] = id
			}
		}
	}
	out := make(map[string]*model.Case, len(states)+len(retryOf))
	for id, st := range states {
		var vs []model.Verdict
		if st.Verdict != "" {
			vs = []model.Verdict{st.Verdict}
		}
		if c := triage.CaseOf(vs, st.Attempts, retryOf[id]); c != nil {
			out[id] = c
		}
	}
	for log, of := range retryOf {
		if out[log] == nil {
			out[log] = triage.CaseOf(nil, nil, of)
		}
	}
	return out
}
