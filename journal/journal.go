// Package journal is exectriage's durable record of what people decided and what the tool sent:
// confirmations of failure, guarded retry attempts and verdicts. It is the memory that makes
// "one retry per execution" hold across crashes, windows and engineers: an attempt's intent is
// committed before any byte is sent, and the database itself (a partial unique index) refuses a
// second open or succeeded attempt for the same execution. SQLite is the default (one file under
// the user's state directory); PostgreSQL serves a team sharing one journal.
package journal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	osuser "os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Journal records confirmations, retry attempts and verdicts. Every write is one transaction:
// it happens completely or not at all.
type Journal interface {
	// Confirm records a person's confirmation that an execution failed, on its own.
	Confirm(ctx context.Context, c Confirmation) error
	// ClaimAttempt commits the intent of a retry together with the confirmation that allowed
	// it. ok is false, and existing says which attempt holds the execution, when another
	// attempt for the same execution is open (intent, sent, indeterminate) or succeeded.
	ClaimAttempt(ctx context.Context, c Claim) (ok bool, existing *model.RetryAttempt, err error)
	// UpdateAttempt moves an attempt to state. Only forward moves are accepted (see
	// CanTransition); anything else is ErrTransition and changes nothing.
	UpdateAttempt(ctx context.Context, id string, state model.AttemptState, newLogID, detail string, at time.Time) error
	// Attempt returns one attempt by id (ErrNotFound when unknown).
	Attempt(ctx context.Context, id string) (model.RetryAttempt, error)
	// Attempts lists the attempts of an execution ("" = all), newest first.
	Attempts(ctx context.Context, executionID string) ([]model.RetryAttempt, error)
	// Confirmations lists confirmations of an execution ("" = all), newest first.
	Confirmations(ctx context.Context, executionID string) ([]Confirmation, error)
	// Mark records a verdict.
	Mark(ctx context.Context, v VerdictRecord) error
	// Verdicts lists verdicts of an execution ("" = all), newest first.
	Verdicts(ctx context.Context, executionID string) ([]VerdictRecord, error)
	// RecoverOpen turns attempts left in intent or sent by a process that is gone into
	// indeterminate, and returns how many it changed. See the package's recovery rule.
	RecoverOpen(ctx context.Context) (n int, err error)
	// Lease says which process claimed an attempt, until when it may stay in intent or sent,
	// and where its request was sent.
	Lease(ctx context.Context, attemptID string) (Lease, error)
	// Verify reads back from the database the invariants the one-claim guarantee rests on (its
	// partial unique index, the attempts' key and state check): an error wrapping ErrUnguarded
	// says which is missing. ClaimAttempt checks them again in its own transaction and refuses
	// to claim without them.
	Verify(ctx context.Context) error
	// SaveView keeps a saved view for everyone who reads the journal, replacing one of the
	// same name.
	SaveView(ctx context.Context, v View) error
	// DeleteView removes a saved view (ErrNotFound when there is none of that name).
	DeleteView(ctx context.Context, name string) error
	// Views lists the saved views, by name.
	Views(ctx context.Context) ([]View, error)
	// Clock reads the journal's clock: its time, whose clock it is and how far this host's
	// differs (clock.go).
	Clock(ctx context.Context) (Clock, error)
	// Where names the journal for messages: a file path or a DSN without its password.
	Where() string
	Close() error
}

// Confirmation is a person's statement that an execution failed, with the evidence they saw.
type Confirmation struct {
	ID          string    `json:"id"`
	ExecutionID string    `json:"execution_id"`
	AttemptID   string    `json:"attempt_id,omitempty"` // the attempt it allowed, if any
	Who         string    `json:"who"`
	At          time.Time `json:"at"`
	Reason      string    `json:"reason"`
	// The evidence shown when the person confirmed.
	Outcome       model.Outcome       `json:"outcome"`
	OutcomeReason string              `json:"outcome_reason"`
	Provider      model.ProviderState `json:"provider"`
	// Source names what the execution was seen in ("DEMO", "LIVE host", "FILE path"): a demo
	// confirmation is never mistaken for one made against the real API.
	Source string `json:"source,omitempty"`
}

// VerdictRecord is a verdict a person recorded about an execution.
type VerdictRecord struct {
	ID          string        `json:"id"`
	ExecutionID string        `json:"execution_id"`
	Verdict     model.Verdict `json:"verdict"`
	Note        string        `json:"note,omitempty"`
	Who         string        `json:"who"`
	At          time.Time     `json:"at"`
	// Source names what the execution was seen in, as Confirmation.Source.
	Source string `json:"source,omitempty"`
}

// Claim is the durable intent of one retry: the attempt (state intent) and the confirmation
// that allowed it, written in one transaction.
type Claim struct {
	Attempt      model.RetryAttempt
	Confirmation Confirmation
	// Deadline is when the attempt's request must have ended (its write timeout plus a margin).
	// An attempt still in intent or sent after its deadline is presumed abandoned by its process.
	Deadline time.Time
	// Target names where the request goes (the source's name: "LIVE host", "DEMO"), so that
	// resolving it later asks the same witnesses.
	Target string
}

// Lease is who holds an attempt, until when (see the recovery rule in owner.go), and where
// its request was sent.
type Lease struct {
	Owner    Owner     `json:"owner"`
	Deadline time.Time `json:"deadline"`
	Target   string    `json:"target,omitempty"`
}

// Errors callers can test with errors.Is.
var (
	ErrNotFound      = errors.New("journal: no such record")
	ErrTransition    = errors.New("journal: attempt cannot move to that state")
	ErrSchemaTooNew  = errors.New("journal: schema is newer than this exectriage understands")
	ErrNotDurable    = errors.New("journal: durability settings could not be applied")
	ErrInvalidRecord = errors.New("journal: invalid record")
)

// CanTransition reports whether an attempt may move from one state to another. Attempts only
// move forward: intent → sent → succeeded | failed | indeterminate; intent → failed (nothing was
// sent) or indeterminate (crash recovery); indeterminate → succeeded | failed (resolve).
func CanTransition(from, to model.AttemptState) bool {
	return slices.Contains(fromStates(to), from)
}

func fromStates(to model.AttemptState) []model.AttemptState {
	switch to {
	case model.AttemptSent:
		return []model.AttemptState{model.AttemptIntent}
	case model.AttemptSucceeded:
		return []model.AttemptState{model.AttemptSent, model.AttemptIndeterminate}
	case model.AttemptFailed:
		return []model.AttemptState{model.AttemptIntent, model.AttemptSent, model.AttemptIndeterminate}
	case model.AttemptIndeterminate:
		return []model.AttemptState{model.AttemptIntent, model.AttemptSent}
	}
	return nil
}

// Option configures Open.
type Option func(*options)

type options struct {
	now   func() time.Time
	owner Owner
	alive func(Owner) (alive, known bool)
}

// WithClock sets the clock RecoverOpen compares deadlines with (tests).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithOwner sets the process identity stamped on claimed attempts (tests; the default is this
// process: host name, pid and start time).
func WithOwner(owner Owner) Option { return func(o *options) { o.owner = owner } }

// IsPostgres reports whether dsn names a PostgreSQL journal: a postgres:// or postgresql://
// URL, or a keyword DSN (host=... dbname=... user=...).
func IsPostgres(dsn string) bool {
	l := strings.ToLower(strings.TrimSpace(dsn))
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://") || isKeywordDSN(dsn)
}

// ErrBadLocation is wrapped by Open's error for a location that is neither a PostgreSQL DSN nor
// a plain file path (a mistyped scheme, key=value text that is not a DSN): it is refused
// rather than becoming a SQLite file named after it.
var ErrBadLocation = errors.New("not a journal location")

// keywordKey is one key=value pair of a libpq keyword DSN.
var keywordKey = regexp.MustCompile(`^[a-z_]+\s*=`)

// keywordKeys are the libpq connection keys a keyword DSN starts with (any of them).
var keywordKeys = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "sslmode": true, "connect_timeout": true, "application_name": true,
	"target_session_attrs": true, "service": true, "options": true, "sslrootcert": true, "sslcert": true, "sslkey": true,
	"search_path": true}

// isKeywordDSN reports whether dsn is a libpq keyword DSN: key=value pairs, at least one of
// them a connection key.
func isKeywordDSN(dsn string) bool {
	t := strings.TrimSpace(dsn)
	if !keywordKey.MatchString(t) {
		return false
	}
	for f := range strings.FieldsSeq(t) {
		if k, _, ok := strings.Cut(f, "="); ok && keywordKeys[strings.ToLower(strings.TrimSpace(k))] {
			return true
		}
	}
	return false
}

// checkPath refuses a location that is not a plain file path. The message never repeats the
// location but as a redacted URL: a mistyped DSN may hold a password anywhere.
func checkPath(dsn string) error {
	t := strings.TrimSpace(dsn)
	l := strings.ToLower(t)
	shown := "the journal location given"
	if u, err := url.Parse(t); err == nil && u.Scheme != "" && strings.Contains(t, "://") {
		shown = strconv.Quote(u.Redacted())
	}
	switch {
	case strings.Contains(t, "://"):
		return fmt.Errorf(
			"journal: %s: %w: only postgres:// and postgresql:// URLs name a journal server; a SQLite journal is a file path",
			shown,
			ErrBadLocation,
		)
	case strings.HasPrefix(l, "postgres:") || strings.HasPrefix(l, "postgresql:") || strings.HasPrefix(l, "pg:"):
		return fmt.Errorf("journal: %s: %w: did you mean postgres://...?", shown, ErrBadLocation)
	case strings.Contains(t, "="):
		return fmt.Errorf(
			"journal: %s: %w: a keyword DSN needs host=, dbname=, user=... (libpq's names); a file path cannot hold =",
			shown,
			ErrBadLocation,
		)
	}
	return nil
}

// Open opens (creating and migrating as needed) the journal named by dsn: a postgres:// or
// postgresql:// URL opens PostgreSQL, anything else is a SQLite file path, and "" is the
// default file under the user's state directory (see DefaultPath).
func Open(ctx context.Context, dsn string, opts ...Option) (Journal, error) {
	o := options{now: time.Now, owner: CurrentOwner(), alive: Alive}
	for _, f := range opts {
		f(&o)
	}
	if IsPostgres(dsn) {
		return openPostgres(ctx, dsn, o)
	}
	if err := checkPath(dsn); err != nil {
		return nil, err
	}
	if dsn == "" {
		p, err := DefaultPath(os.Getenv)
		if err != nil {
			return nil, err
		}
		dsn = p
	}
	return openSQLite(ctx, dsn, o)
}

// DefaultPath is $XDG_STATE_HOME/exectriage/journal.db, or ~/.local/state/exectriage/journal.db
// when XDG_STATE_HOME is unset or not absolute (as the XDG spec requires).
func DefaultPath(getenv func(string) string) (string, error) {
	base := getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("journal: no XDG_STATE_HOME and no home directory: %w", err)
			}
			home = h
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "exectriage", "journal.db"), nil
}

// Who names the person running exectriage: EXECTRIAGE_WHO when set, else user@host.
func Who(getenv func(string) string) string {
	if w := strings.TrimSpace(getenv("EXECTRIAGE_WHO")); w != "" {
		return w
	}
	user := getenv("USER")
	user = cmp.Or(user, getenv("LOGNAME"))
	if user == "" {
		if u, err := osuser.Current(); err == nil && u.Username != "" {
			user = u.Username
		} else {
			user = "unknown"
		}
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return user + "@" + host
}
