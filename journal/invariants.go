package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ErrUnguarded is wrapped by the error of a claim on a journal that lacks an invariant the
// one-claim guarantee rests on: the partial unique index attempts_one_claim (unique, valid,
// on execution_id, over the four states that hold a claim), the attempts' primary key and the
// check on their states. A restore that skipped post-data, or a copy made by hand, opens on
// schema_version alone; nothing is claimed on it until the schema is whole again.
var ErrUnguarded = errors.New("journal: the one-claim guarantee is not in force")

// queryer is a database or a transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// attemptStates are every state the attempts' check allows; claimStateList those the one-claim
// index covers.
var (
	attemptStates  = []string{"intent", "sent", "succeeded", "failed", "indeterminate"}
	claimStateList = []string{"intent", "sent", "indeterminate", "succeeded"}
)

// oneClaimIndex is the statement that makes the index (migration 1), for the repair hint.
const oneClaimIndex = `CREATE UNIQUE INDEX attempts_one_claim ON attempts (execution_id) WHERE state IN ` + claimStates

// checkInvariants reads the schema's guarantees back from the database's catalog: nil when
// they all hold, else an error wrapping ErrUnguarded that says which is missing and how to
// restore it.
func (s *store) checkInvariants(ctx context.Context, q queryer) error {
	var problems []string
	var err error
	if s.dialect == postgres {
		problems, err = postgresInvariants(ctx, q)
	} else {
		problems, err = sqliteInvariants(ctx, q)
	}
	if err != nil {
		return fmt.Errorf("journal %s: read its schema's guarantees: %w", s.where, err)
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf(
		"%w: journal %s: %s: a second retry of one execution could be claimed, so none is; restore the schema (%s) or use a new journal",
		ErrUnguarded,
		s.where,
		strings.Join(problems, "; "),
		oneClaimIndex,
	)
}

// squash lowercases text and collapses its white space, to compare SQL written in any layout.
func squash(sqlText string) string {
	return strings.ToLower(strings.Join(strings.Fields(sqlText), " "))
}

// namesEvery reports whether text quotes each of the states, as SQL literals.
func namesEvery(text string, states []string) bool {
	for _, st := range states {
		if !strings.Contains(text, "'"+st+"'") {
			return false
		}
	}
	return true
}

// sqliteInvariants reads SQLite's catalog: the index's definition as written by migration 1
// (unique, partial, on execution_id alone), and the attempts table's key and state check.
func sqliteInvariants(ctx context.Context, q queryer) ([]string, error) {
	var problems []string
	var def sql.NullString
	err := q.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'attempts_one_claim' AND tbl_name = 'attempts'`).
		Scan(&def)
	switch {
	case errors.Is(err, sql.ErrNoRows) || (err == nil && !def.Valid):
		problems = append(problems, "its one-claim index attempts_one_claim is missing")
	case err != nil:
		return nil, err
	case squash(def.String) != squash(oneClaimIndex):
		problems = append(problems, "its one-claim index attempts_one_claim is not the one exectriage made ("+squash(def.String)+")")
	}
	var table sql.NullString
	err = q.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'attempts'`).Scan(&table)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		problems = append(problems, "it has no attempts table")
	case err != nil:
		return nil, err
	default:
		t := squash(table.String)
		if !strings.Contains(t, "id text primary key") {
			problems = append(problems, "its attempts have no primary key on id")
		}
		check := strings.Index(t, "check (state in (")
		if check < 0 || !namesEvery(t[check:], attemptStates) {
			problems = append(problems, "its attempts' states are not checked")
		}
	}
	return problems, nil
}

// postgresInvariants reads PostgreSQL's catalog in the journal's schema: the index unique,
// valid and ready (a failed CREATE INDEX CONCURRENTLY leaves one that is not), on
// execution_id, over exactly the claim states; the primary key; the state check, validated.
func postgresInvariants(ctx context.Context, q queryer) ([]string, error) {
	var problems []string
	var (
		unique, valid, ready bool
		def                  string
	)
	err := q.QueryRowContext(ctx, `SELECT i.indisunique, i.indisvalid, i.indisready, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_class t ON t.oid = i.indrelid
		WHERE c.relname = 'attempts_one_claim' AND t.relname = 'attempts' AND n.nspname = current_schema()`).Scan(&unique, &valid, &ready, &def)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		problems = append(problems, "its one-claim index attempts_one_claim is missing")
	case err != nil:
		return nil, err
	default:
		d := squash(def)
		on, where, _ := strings.Cut(d, " where ")
		switch {
		case !unique:
			problems = append(problems, "its one-claim index attempts_one_claim is not unique")
		case !valid || !ready:
			problems = append(problems, "its one-claim index attempts_one_claim is not valid (a failed concurrent build?)")
		case !strings.HasSuffix(on, "(execution_id)"):
			problems = append(problems, "its one-claim index attempts_one_claim is not on execution_id alone ("+d+")")
		case !namesEvery(where, claimStateList) || strings.Contains(where, " and ") || strings.Contains(where, " or ") ||
			strings.Count(where, "'") != 2*len(claimStateList):
			problems = append(problems, "its one-claim index attempts_one_claim does not cover the states that hold a claim ("+d+")")
		}
	}
	rows, err := q.QueryContext(ctx, `SELECT c.contype, c.convalidated, pg_get_constraintdef(c.oid)
		FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
		WHERE t.relname = 'attempts' AND n.nspname = current_schema() AND c.contype IN ('p', 'c')`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var key, check bool
	for rows.Next() {
		var (
			kind      string
			validated bool
			cdef      string
		)
		if err := rows.Scan(&kind, &validated, &cdef); err != nil {
			return nil, err
		}
		cd := squash(cdef)
		switch {
		case kind == "p" && cd == "primary key (id)":
			key = true
		case kind == "c" && validated && strings.Contains(cd, "state") && namesEvery(cd, attemptStates):
			check = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !key {
		problems = append(problems, "its attempts have no primary key on id")
	}
	if !check {
		problems = append(problems, "its attempts' states are not checked")
	}
	return problems, nil
}
