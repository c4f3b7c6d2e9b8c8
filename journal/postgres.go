package journal

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// openPostgres opens a shared journal on PostgreSQL. The schema and statements are the SQLite
// ones; the claim is the same partial unique index, taken with INSERT ... ON CONFLICT DO
// NOTHING RETURNING in a short transaction, so no lock is held while a request is in flight.
func openPostgres(ctx context.Context, dsn string, o options) (*store, error) {
	where := redactDSN(dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", where, err)
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	s := &store{db: db, dialect: postgres, where: where, opt: o}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: connect: %w", where, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// redactDSN drops the password from a PostgreSQL URL so it can appear in messages.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unparsable DSN)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
