package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/exectriage/exectriage/internal/sqlitero"
)

// ErrReadOnly is returned (wrapped) by every write to a journal opened with OpenReadOnly.
var ErrReadOnly = errors.New("journal: opened read-only")

// ErrNoJournal is returned (wrapped) by OpenReadOnly for a journal that does not exist yet:
// a read-only session never creates one.
var ErrNoJournal = errors.New("journal: there is no journal there yet")

// OpenReadOnly opens the journal named by dsn for reading only, at the driver: a SQLite file
// with mode=ro and query_only (it is never created, migrated, chmod-ed or recovered), a
// PostgreSQL journal in read-only transactions (default_transaction_read_only). A schema it
// cannot read (older or newer than this build's, or none) is a clear error rather than a
// migration. Every write method fails with ErrReadOnly before it reaches the database.
func OpenReadOnly(ctx context.Context, dsn string, opts ...Option) (Journal, error) {
	o := options{now: time.Now, owner: CurrentOwner(), alive: Alive}
	for _, f := range opts {
		f(&o)
	}
	var s *store
	var err error
	if IsPostgres(dsn) {
		s, err = openPostgresReadOnly(ctx, dsn, o)
	} else {
		if err := checkPath(dsn); err != nil {
			return nil, err
		}
		if dsn == "" {
			if dsn, err = DefaultPath(os.Getenv); err != nil {
				return nil, err
			}
		}
		s, err = openSQLiteReadOnly(ctx, dsn, o)
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkSchema(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// openSQLiteReadOnly opens an existing SQLite journal with mode=ro: SQLite itself refuses any
// write on the connection, and query_only refuses it again in case the file's mode allows it.
func openSQLiteReadOnly(ctx context.Context, path string, o options) (*store, error) {
	if strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("journal: %q: give a plain file path (no file: URI, no ? or #)", path)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w: %s (reading makes none: the first confirmation, retry or mark does)", ErrNoJournal, path)
	case err != nil:
		return nil, fmt.Errorf("journal: %s: %w", path, err)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("journal: %s is not a regular file", path)
	}
	q := url.Values{}
	sqlitero.Set(q, path) // nothing created beside it, on read-only media too
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	s := &store{db: db, dialect: sqlite, where: path, opt: o, readOnly: true, file: st}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: open %s read-only: %w", path, err)
	}
	return s, nil
}

// openPostgresReadOnly connects with default_transaction_read_only on: the server refuses any
// write, DDL included, whatever a statement says.
func openPostgresReadOnly(ctx context.Context, dsn string, o options) (*store, error) {
	where := redactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %s", where, scrubPassword(err.Error(), dsn))
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(2)
	s := &store{db: db, dialect: postgres, where: where, opt: o, readOnly: true}
	if err := pingWithin(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: connect: %s", where, scrubPassword(err.Error(), dsn))
	}
	return s, nil
}

// checkSchema refuses a journal whose schema this build cannot read without migrating it.
func (s *store) checkSchema(ctx context.Context) error {
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v)
	if err != nil {
		return fmt.Errorf("journal %s holds no exectriage journal (no schema_version table): nothing to read", s.where)
	}
	switch cur := int(v.Int64); {
	case cur > SchemaVersion():
		return fmt.Errorf(
			"%w: %s is at version %d, this build knows up to %d: upgrade exectriage",
			ErrSchemaTooNew,
			s.where,
			cur,
			SchemaVersion(),
		)
	case cur < SchemaVersion():
		return fmt.Errorf(
			"journal %s is at schema version %d and this build reads version %d: a read-only session does not migrate it (open it once "+
				"without --readonly to upgrade it)",
			s.where,
			cur,
			SchemaVersion(),
		)
	}
	return nil
}

// refuseWrite is the error of every write to a read-only journal.
func (s *store) refuseWrite(what string) error {
	return fmt.Errorf("%w: %s: %s was not written", ErrReadOnly, s.where, what)
}
