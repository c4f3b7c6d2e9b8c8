package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations are the schema versions, in order; migrations[i] brings the schema to version i+1.
// The same statements run on SQLite and PostgreSQL. Times are unix nanoseconds (UTC) so that
// both databases order and compare them identically. Never edit a released migration: append.
var migrations = [][]string{
	{ // 1: confirmations, attempts with the one-claim index, verdicts
		`CREATE TABLE confirmations (
			id             TEXT PRIMARY KEY,
			execution_id   TEXT NOT NULL,
			attempt_id     TEXT NOT NULL DEFAULT '',
			who            TEXT NOT NULL,
			at             BIGINT NOT NULL,
			reason         TEXT NOT NULL,
			outcome        TEXT NOT NULL,
			outcome_reason TEXT NOT NULL,
			provider_state TEXT NOT NULL,
			provider_json  TEXT NOT NULL
		)`,
		`CREATE INDEX confirmations_execution ON confirmations (execution_id, at)`,
		`CREATE TABLE attempts (
			id            TEXT PRIMARY KEY,
			execution_id  TEXT NOT NULL,
			tool_slug     TEXT NOT NULL,
			argument_hash TEXT NOT NULL,
			state         TEXT NOT NULL CHECK (state IN ('intent', 'sent', 'succeeded', 'failed', 'indeterminate')),
			new_log_id    TEXT NOT NULL DEFAULT '',
			who           TEXT NOT NULL,
			detail        TEXT NOT NULL DEFAULT '',
			owner_host    TEXT NOT NULL DEFAULT '',
			owner_pid     BIGINT NOT NULL DEFAULT 0,
			owner_start   TEXT NOT NULL DEFAULT '',
			target        TEXT NOT NULL DEFAULT '',
			created_at    BIGINT NOT NULL,
			sent_at       BIGINT,
			finished_at   BIGINT,
			deadline      BIGINT NOT NULL
		)`,
		// The claim: at most one attempt per execution that is open or succeeded. This index,
		// not the guard's reading of the journal, is what makes two racing processes (or two
		// engineers on PostgreSQL) unable to both claim the same execution.
		`CREATE UNIQUE INDEX attempts_one_claim ON attempts (execution_id)
			WHERE state IN ('intent', 'sent', 'indeterminate', 'succeeded')`,
		`CREATE INDEX attempts_execution ON attempts (execution_id, created_at)`,
		`CREATE INDEX attempts_open ON attempts (state) WHERE state IN ('intent', 'sent')`,
		`CREATE TABLE verdicts (
			id           TEXT PRIMARY KEY,
			execution_id TEXT NOT NULL,
			verdict      TEXT NOT NULL CHECK (verdict IN ('confirmed_failed', 'confirmed_succeeded', 'duplicate', 'ignored')),
			note         TEXT NOT NULL DEFAULT '',
			who          TEXT NOT NULL,
			at           BIGINT NOT NULL
		)`,
		`CREATE INDEX verdicts_execution ON verdicts (execution_id, at)`,
	},
	{ // 2: the source each confirmation and verdict was made against ("DEMO", "LIVE host", "FILE path")
		`ALTER TABLE confirmations ADD COLUMN source TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE verdicts ADD COLUMN source TEXT NOT NULL DEFAULT ''`,
	},
	{ // 3: watch's outbox (outbox.go): the events it found, their deliveries, the sender's lease
		`CREATE TABLE watch_events (
			id         TEXT PRIMARY KEY,
			kind       TEXT NOT NULL,
			body       TEXT NOT NULL,
			created_at BIGINT NOT NULL
		)`,
		`CREATE TABLE watch_deliveries (
			event_id TEXT NOT NULL,
			sink     TEXT NOT NULL,
			state    TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'failed', 'unclear')),
			tries    BIGINT NOT NULL DEFAULT 0,
			next_at  BIGINT NOT NULL,
			deadline BIGINT NOT NULL DEFAULT 0,
			owner    TEXT NOT NULL DEFAULT '',
			detail   TEXT NOT NULL DEFAULT '',
			done_at  BIGINT,
			PRIMARY KEY (event_id, sink)
		)`,
		`CREATE INDEX watch_deliveries_due ON watch_deliveries (sink, state, next_at)`,
		`CREATE TABLE watch_leases (
			name     TEXT PRIMARY KEY,
			holder   TEXT NOT NULL,
			until_at BIGINT NOT NULL
		)`,
	},
	{ // 4: the team's saved views (views.go): a named filter and the rows it shows
		`CREATE TABLE views (
			name   TEXT PRIMARY KEY,
			filter TEXT NOT NULL,
			show   TEXT NOT NULL CHECK (show IN ('all', 'flagged', 'duplicates')),
			who    TEXT NOT NULL,
			at     BIGINT NOT NULL
		)`,
	},
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int { return len(migrations) }

// migrate brings the schema up to date inside one write transaction (begun IMMEDIATE on SQLite,
// serialised by an advisory lock on PostgreSQL), so concurrent openers apply each migration
// once and a failed migration leaves the previous version intact.
func (s *store) migrate(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if s.dialect == postgres {
			// Concurrent CREATE TABLE IF NOT EXISTS can still collide in PostgreSQL's catalog.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7346921650131)`); err != nil {
				return fmt.Errorf("lock schema: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)`); err != nil {
			return fmt.Errorf("create schema_version: %w", err)
		}
		var v sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read schema version: %w", err)
		}
		cur := int(v.Int64)
		if cur > len(migrations) {
			return fmt.Errorf("%w: %s is at version %d, this build knows up to %d: upgrade exectriage",
				ErrSchemaTooNew, s.where, cur, len(migrations))
		}
		for i := cur; i < len(migrations); i++ {
			for _, stmt := range migrations[i] {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migration %d: %w", i+1, err)
				}
			}
		}
		if cur == len(migrations) {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			return fmt.Errorf("record schema version: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_version (version) VALUES (?)`), len(migrations)); err != nil {
			return fmt.Errorf("record schema version: %w", err)
		}
		return nil
	})
}
