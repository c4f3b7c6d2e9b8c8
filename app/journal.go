package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
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
	if err != nil {
		j.Close()
		return nil, fmt.Errorf("crash recovery: %w", err)
	}
	return &Journal{j: j, Recovered: n}, nil
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

// OpenJournalIfExists opens the journal for reading only when it exists (a bundle, or a
// read-only TUI, never creates, migrates or recovers one); note says why there is none.
func OpenJournalIfExists(ctx context.Context, o Options) (j *Journal, note string) {
	j, err := OpenJournalReadOnly(ctx, o)
	switch {
	case errors.Is(err, journal.ErrNoJournal):
		return nil, "no journal found: nothing was confirmed, retried or marked with exectriage on this machine"
	case err != nil:
		return nil, "journal not read: " + err.Error()
	}
	return j, ""
}

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

// Guards says whom the journal keeps from retrying the same execution twice: a SQLite file
// guards the processes of this machine that use the same file; a PostgreSQL journal everyone
// who uses it. Two journals do not know of each other.
func (j *Journal) Guards() string {
	return j.Kind() + " " + j.Where() + ": " + j.guards()
}

// Kind is "SQLite journal" or "PostgreSQL journal".
func (j *Journal) Kind() string {
	if journal.IsPostgres(j.Where()) {
		return "PostgreSQL journal"
	}
	return "SQLite journal"
}

func (j *Journal) guards() string {
	if journal.IsPostgres(j.Where()) {
		return "guards everyone who uses it"
	}
	return "guards this machine only; teammates on other journals are not guarded (share one PostgreSQL journal)"
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

// HistoryLine is one entry of an execution's journal history, phrased for a person.
type HistoryLine struct {
	Time time.Time
	Text string
}

// History phrases an execution's journal records, oldest first: the one wording the TUI's
// detail pane and the bundles share. in are the session's flags its commands carry.
func History(en Entries, in []string) []HistoryLine {
	var out []HistoryLine
	for _, c := range en.Confirmations {
		out = append(out, HistoryLine{Time: c.At, Text: ConfirmationText(c)})
	}
	for _, a := range en.Attempts {
		at := a.CreatedAt
		if !a.FinishedAt.IsZero() {
			at = a.FinishedAt
		}
		out = append(out, HistoryLine{Time: at, Text: AttemptText(a, in)})
	}
	for _, v := range en.Verdicts {
		out = append(out, HistoryLine{Time: v.At, Text: VerdictText(v)})
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Time.Before(out[k].Time) })
	return out
}

// ConfirmationText phrases a confirmation of failure.
func ConfirmationText(c journal.Confirmation) string {
	return fmt.Sprintf("confirmed failed by %s: %q (outcome %s, provider %s)", c.Who, c.Reason, c.Outcome, orWord(string(c.Provider.State), "unchecked")) + onSource(c.Source)
}

// onSource names the source a record was made against ("" for records older than that).
func onSource(s string) string {
	if s == "" {
		return ""
	}
	return " on " + s
}

// AttemptText phrases a retry attempt and, when it is indeterminate, how to settle it (a
// command line with the session's flags, in). What happened comes first, the attempt's id (a
// long uuid) last.
func AttemptText(a model.RetryAttempt, in []string) string {
	t := fmt.Sprintf("retry %s", a.State)
	if a.NewLogID != "" {
		t += " → new log " + a.NewLogID
	}
	if a.Detail != "" && a.State != model.AttemptSucceeded {
		t += " (" + a.Detail + ")"
	}
	if a.State == model.AttemptIndeterminate {
		t += ": run `" + triage.CommandLine(in, "resolve", a.ID) + "`"
	}
	return t + " · by " + a.Who + " · attempt " + a.ID
}

// VerdictText phrases a verdict.
func VerdictText(v journal.VerdictRecord) string {
	t := fmt.Sprintf("verdict %s by %s", v.Verdict, v.Who)
	if v.Note != "" {
		t += ": " + v.Note
	}
	return t + onSource(v.Source)
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}

// Who names the person in the journal from the environment (EXECTRIAGE_WHO, else user@host).
func Who(getenv func(string) string) string { return journal.Who(getenv) }
