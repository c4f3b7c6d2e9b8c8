package journal

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/exectriage/exectriage/redact"
)

// openPostgres opens a shared journal on PostgreSQL. The schema and statements are the SQLite
// ones; the claim is the same partial unique index, taken with INSERT ... ON CONFLICT DO
// NOTHING RETURNING in a short transaction, so no lock is held while a request is in flight.
func openPostgres(ctx context.Context, dsn string, o options) (*store, error) {
	where := redactDSN(dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %s", where, scrubPassword(err.Error(), dsn))
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	s := &store{db: db, dialect: postgres, where: where, opt: o}
	if err := pingWithin(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: connect: %s", where, scrubPassword(err.Error(), dsn))
	}
	if err := s.checkPostgres(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// pingWithin connects, giving up after 15 seconds: an unreachable server must not hang a command.
func pingWithin(ctx context.Context, db *sql.DB) error {
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return db.PingContext(pctx)
}

// checkPostgres reads back the settings the guard's durability rests on, as checkSQLite does
// for SQLite: with synchronous_commit off, a committed intent can be lost in a crash of the
// server, and the retry it allowed could then be claimed again.
func (s *store) checkPostgres(ctx context.Context) error {
	var sc string
	if err := s.db.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&sc); err != nil {
		return fmt.Errorf("journal %s: read synchronous_commit: %w", s.where, err)
	}
	if strings.EqualFold(strings.TrimSpace(sc), "off") {
		return fmt.Errorf(
			"%w: %s: synchronous_commit is off: a committed retry intent could be lost in a server crash",
			ErrNotDurable,
			s.where,
		)
	}
	return nil
}

// redactDSN drops the credentials from a PostgreSQL URL or keyword DSN so it can appear in
// messages: the one rule for locations (redact.Location: the URL's password, and every
// parameter named like a password, sslpassword included).
func redactDSN(dsn string) string { return redact.Location(dsn) }

// scrubPassword removes the DSN's credentials from an error text (a driver may quote the DSN).
func scrubPassword(text, dsn string) string { return redact.ScrubLocation(text, dsn) }

// RedactDSN is the journal location as messages may show it: a PostgreSQL DSN without its
// password; a file path as it is.
func RedactDSN(dsn string) string {
	if IsPostgres(dsn) {
		return redactDSN(dsn)
	}
	return dsn
}
