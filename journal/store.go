package journal

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/model"
)

type dialect int

const (
	sqlite dialect = iota
	postgres
)

// store is the journal on a SQL database; SQLite and PostgreSQL share the schema and every
// statement, and differ only in how they are opened and in placeholder syntax.
type store struct {
	db      *sql.DB
	dialect dialect
	where   string
	opt     options
	file    os.FileInfo // the SQLite file as opened (nil for PostgreSQL)
	// readOnly: opened by OpenReadOnly; write refuses before it reaches the database.
	readOnly bool
}

// stillThere fails when the SQLite file was deleted or replaced since it was opened: SQLite
// would go on writing to the unlinked file, and the guard's records would be lost with it.
func (s *store) stillThere() error {
	if s.file == nil {
		return nil
	}
	st, err := os.Stat(s.where)
	if err != nil || !os.SameFile(st, s.file) {
		return fmt.Errorf(
			"journal %s was deleted or replaced while in use: its records would be lost, so nothing more is written (open it again)",
			s.where,
		)
	}
	return nil
}

// q rewrites ? placeholders as $1, $2, ... for PostgreSQL. Statements here never contain a
// literal question mark.
func (s *store) q(query string) string {
	if s.dialect != postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// write runs fn in one write transaction: BEGIN IMMEDIATE on SQLite (the DSN sets _txlock), so
// the write lock is taken up front and a busy database waits (busy_timeout) instead of failing
// halfway; a plain transaction on PostgreSQL. Either everything fn did commits, or nothing.
func (s *store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.readOnly {
		return s.refuseWrite("the change")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("journal %s: begin: %w", s.where, err)
	}
	if s.dialect == postgres {
		// A server configured with synchronous_commit=off could lose a committed intent.
		if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit TO on`); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("journal %s: %w", s.where, err)
		}
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journal %s: commit: %w", s.where, err)
	}
	return nil
}

func (s *store) Where() string { return s.where }

// Verify reads the schema's guarantees back (see ErrUnguarded): nil when a claim can rely on them.
func (s *store) Verify(ctx context.Context) error { return s.checkInvariants(ctx, s.db) }

func (s *store) Close() error { return s.db.Close() }

func nanos(t time.Time) int64 { return model.UnixNanoSaturated(t) }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func fromNullNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromNanos(n.Int64)
}

func validConfirmation(c *Confirmation) error {
	switch {
	case c.ExecutionID == "":
		return fmt.Errorf("%w: confirmation without execution id", ErrInvalidRecord)
	case strings.TrimSpace(c.Reason) == "":
		return fmt.Errorf("%w: confirmation without a reason", ErrInvalidRecord)
	case c.Who == "":
		return fmt.Errorf("%w: confirmation without who", ErrInvalidRecord)
	case c.At.IsZero():
		return fmt.Errorf("%w: confirmation without a time", ErrInvalidRecord)
	}
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	c.Provider.State = cmp.Or(c.Provider.State, model.ProviderUnknown)
	return nil
}

func insertConfirmation(ctx context.Context, s *store, tx *sql.Tx, c Confirmation) error {
	pj, err := json.Marshal(c.Provider)
	if err != nil {
		return fmt.Errorf("journal: encode provider state: %w", err)
	}
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO confirmations
		(id, execution_id, attempt_id, who, at, reason, outcome, outcome_reason, provider_state, provider_json, source)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		c.ID, c.ExecutionID, c.AttemptID, c.Who, nanos(c.At), c.Reason, string(c.Outcome), c.OutcomeReason,
		string(c.Provider.State), string(pj), c.Source)
	if err != nil {
		return fmt.Errorf("journal %s: record confirmation: %w", s.where, err)
	}
	return nil
}

func (s *store) Confirm(ctx context.Context, c Confirmation) error {
	if err := validConfirmation(&c); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error { return insertConfirmation(ctx, s, tx, c) })
}

const attemptColumns = `id, execution_id, tool_slug, argument_hash, state, new_log_id, who, detail,
	owner_host, owner_pid, owner_start, target, created_at, sent_at, finished_at, deadline`

// MaxLease is the longest an attempt may stay in intent or sent before recovery may take it:
// far more than any request's timeout plus the margin, so a deadline past it is a mistake
// (a timeout that overflowed) and is refused rather than stored.
const MaxLease = 24 * time.Hour

// claimStates are the states the one-claim index covers.
const claimStates = `('intent', 'sent', 'indeterminate', 'succeeded')`

func (s *store) ClaimAttempt(ctx context.Context, c Claim) (bool, *model.RetryAttempt, error) {
	if err := s.stillThere(); err != nil {
		return false, nil, err
	}
	a := c.Attempt
	switch {
	case a.ID == "" || a.ExecutionID == "" || a.ToolSlug == "" || a.Who == "" || a.CreatedAt.IsZero():
		return false, nil, fmt.Errorf("%w: attempt needs id, execution id, tool, who and a time", ErrInvalidRecord)
	case a.State != "" && a.State != model.AttemptIntent:
		return false, nil, fmt.Errorf("%w: a claim starts in state intent, not %s", ErrInvalidRecord, a.State)
	case c.Deadline.Before(a.CreatedAt):
		return false, nil, fmt.Errorf("%w: attempt deadline before its creation", ErrInvalidRecord)
	case c.Deadline.Sub(a.CreatedAt) > MaxLease:
		return false, nil, fmt.Errorf(
			"%w: attempt deadline %s after its creation, more than the %s a request can take",
			ErrInvalidRecord,
			c.Deadline.Sub(a.CreatedAt),
			MaxLease,
		)
	}
	conf := c.Confirmation
	conf.ExecutionID, conf.AttemptID = a.ExecutionID, a.ID
	if err := validConfirmation(&conf); err != nil {
		return false, nil, err
	}
	owner := s.opt.owner
	var (
		ok       bool
		existing *model.RetryAttempt
	)
	err := s.write(ctx, func(tx *sql.Tx) error {
		ok, existing = false, nil
		// The claim rests on the schema's guarantees: read them back inside the transaction
		// that claims (an index dropped since the journal was opened counts too).
		if err := s.checkInvariants(ctx, tx); err != nil {
			return err
		}
		if s.dialect == postgres {
			// Claims of one execution queue behind each other for the transaction's length,
			// as BEGIN IMMEDIATE makes every SQLite claim do: the holder read below is then
			// the truth, index or not.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 7346921650132))`, a.ExecutionID); err != nil {
				return fmt.Errorf("journal %s: claim: lock %s: %w", s.where, a.ExecutionID, err)
			}
		}
		row := tx.QueryRowContext(ctx, s.q(`SELECT `+attemptColumns+` FROM attempts
			WHERE execution_id = ? AND state IN `+claimStates+` LIMIT 1`), a.ExecutionID)
		if held, err := scanAttempt(row); err == nil {
			existing = &held.RetryAttempt
			return nil
		} else if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("journal %s: read claim holder: %w", s.where, err)
		}
		created, deadline := a.CreatedAt, c.Deadline
		if s.dialect == postgres { // the shared journal's clock: the deadline is the same lease on every host
			now, err := s.nowOn(ctx, tx)
			if err != nil {
				return err
			}
			created, deadline = now, model.AddSaturated(now, c.Deadline.Sub(a.CreatedAt))
		}
		rows, err := tx.QueryContext(ctx, s.q(`INSERT INTO attempts (`+attemptColumns+`)
			VALUES (?, ?, ?, ?, 'intent', '', ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)
			ON CONFLICT DO NOTHING RETURNING id`),
			a.ID, a.ExecutionID, a.ToolSlug, a.ArgumentHash, a.Who, a.Detail,
			owner.Host, owner.PID, owner.Start, c.Target, nanos(created), nanos(deadline))
		if err != nil {
			return fmt.Errorf("journal %s: claim: %w", s.where, err)
		}
		inserted := rows.Next()
		if err := rows.Close(); err != nil {
			return fmt.Errorf("journal %s: claim: %w", s.where, err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("journal %s: claim: %w", s.where, err)
		}
		if !inserted {
			row := tx.QueryRowContext(ctx, s.q(`SELECT `+attemptColumns+` FROM attempts
				WHERE execution_id = ? AND state IN `+claimStates+` LIMIT 1`), a.ExecutionID)
			held, err := scanAttempt(row)
			if errors.Is(err, sql.ErrNoRows) {
				// The conflict was on the attempt id itself, or the holder moved on between the
				// two statements; either way nothing was claimed.
				return fmt.Errorf("journal %s: claim of %s conflicted but no holder was found: try again", s.where, a.ExecutionID)
			}
			if err != nil {
				return fmt.Errorf("journal %s: read claim holder: %w", s.where, err)
			}
			existing = &held.RetryAttempt
			return nil
		}
		if err := insertConfirmation(ctx, s, tx, conf); err != nil {
			return err
		}
		ok = true
		return nil
	})
	if err != nil {
		return false, nil, err
	}
	return ok, existing, nil
}

func (s *store) UpdateAttempt(ctx context.Context, id string, state model.AttemptState, newLogID, detail string, at time.Time) error {
	if err := s.stillThere(); err != nil {
		return err
	}
	from := fromStates(state)
	if len(from) == 0 {
		return fmt.Errorf("%w: %q is not a state an attempt can move to", ErrTransition, state)
	}
	if at.IsZero() {
		return fmt.Errorf("%w: update without a time", ErrInvalidRecord)
	}
	in := make([]string, len(from))
	args := []any{string(state), newLogID, newLogID, detail}
	set := `state = ?, new_log_id = CASE WHEN ? = '' THEN new_log_id ELSE ? END, detail = ?`
	if state == model.AttemptSent {
		set += `, sent_at = ?`
	} else {
		set += `, finished_at = ?`
	}
	args = append(args, nanos(at), id)
	for i, f := range from {
		in[i] = "?"
		args = append(args, string(f))
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if s.dialect == postgres { // the shared journal's clock (clock.go)
			now, err := s.nowOn(ctx, tx)
			if err != nil {
				return err
			}
			args[4] = nanos(now)
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE attempts SET `+set+` WHERE id = ? AND state IN (`+strings.Join(in, ", ")+`)`), args...)
		if err != nil {
			return fmt.Errorf("journal %s: update attempt %s: %w", s.where, id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("journal %s: update attempt %s: %w", s.where, id, err)
		}
		if n == 1 {
			return nil
		}
		var cur string
		err = tx.QueryRowContext(ctx, s.q(`SELECT state FROM attempts WHERE id = ?`), id).Scan(&cur)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("attempt %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("journal %s: read attempt %s: %w", s.where, id, err)
		}
		return fmt.Errorf("%w: attempt %s is %s, cannot become %s", ErrTransition, id, cur, state)
	})
}

// attemptRow is an attempt with the fields only the journal needs.
type attemptRow struct {
	model.RetryAttempt
	owner    Owner
	target   string
	deadline time.Time
}

type scanner interface{ Scan(dest ...any) error }

func scanAttempt(r scanner) (attemptRow, error) {
	var (
		a                  attemptRow
		state              string
		created, deadline  int64
		sent, finished     sql.NullInt64
		ownerPID           int64
		ownerHost, ownerSt string
		target             string
	)
	err := r.Scan(&a.ID, &a.ExecutionID, &a.ToolSlug, &a.ArgumentHash, &state, &a.NewLogID, &a.Who, &a.Detail,
		&ownerHost, &ownerPID, &ownerSt, &target, &created, &sent, &finished, &deadline)
	if err != nil {
		return a, err
	}
	a.State = model.AttemptState(state)
	a.CreatedAt, a.SentAt, a.FinishedAt = fromNanos(created), fromNullNanos(sent), fromNullNanos(finished)
	a.owner = Owner{Host: ownerHost, PID: int(ownerPID), Start: ownerSt}
	a.deadline = fromNanos(deadline)
	a.target = target
	return a, nil
}

func (s *store) Attempt(ctx context.Context, id string) (model.RetryAttempt, error) {
	a, err := scanAttempt(s.db.QueryRowContext(ctx, s.q(`SELECT `+attemptColumns+` FROM attempts WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return model.RetryAttempt{}, fmt.Errorf("attempt %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return model.RetryAttempt{}, fmt.Errorf("journal %s: read attempt %s: %w", s.where, id, err)
	}
	return a.RetryAttempt, nil
}

// list runs a query and scans each row; what names the list in errors ("attempts").
func list[T any](ctx context.Context, s *store, what, query string, args []any, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("journal %s: list %s: %w", s.where, what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("journal %s: list %s: %w", s.where, what, err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal %s: list %s: %w", s.where, what, err)
	}
	return out, nil
}

// ofExecution is the WHERE clause and arguments that keep one execution's rows ("" keeps all).
func ofExecution(executionID string) (string, []any) {
	if executionID == "" {
		return "", nil
	}
	return ` WHERE execution_id = ?`, []any{executionID}
}

func (s *store) attemptRows(ctx context.Context, where string, args ...any) ([]attemptRow, error) {
	return list(ctx, s, "attempts", `SELECT `+attemptColumns+` FROM attempts `+where+` ORDER BY created_at DESC, id`, args, scanAttempt)
}

func (s *store) Attempts(ctx context.Context, executionID string) ([]model.RetryAttempt, error) {
	where, args := ofExecution(executionID)
	rows, err := s.attemptRows(ctx, where, args...)
	if err != nil {
		return nil, err
	}
	out := make([]model.RetryAttempt, len(rows))
	for i, r := range rows {
		out[i] = r.RetryAttempt
	}
	return out, nil
}

func (s *store) Confirmations(ctx context.Context, executionID string) ([]Confirmation, error) {
	where, args := ofExecution(executionID)
	query := `SELECT id, execution_id, attempt_id, who, at, reason, outcome, outcome_reason, provider_state, provider_json, source
		FROM confirmations` + where + ` ORDER BY at DESC, id`
	return list(ctx, s, "confirmations", query, args, func(rows scanner) (Confirmation, error) {
		var (
			c                     Confirmation
			at                    int64
			outcome, state, pjson string
		)
		if err := rows.Scan(&c.ID, &c.ExecutionID, &c.AttemptID, &c.Who, &at, &c.Reason, &outcome, &c.OutcomeReason, &state, &pjson,
			&c.Source); err != nil {
			return c, err
		}
		c.At, c.Outcome = fromNanos(at), model.Outcome(outcome)
		if json.Unmarshal([]byte(pjson), &c.Provider) != nil || c.Provider.State == "" {
			// The JSON column is the full evidence; the state column survives it.
			c.Provider = model.ProviderState{State: model.ProviderStateKind(state)}
		}
		return c, nil
	})
}

func (s *store) Mark(ctx context.Context, v VerdictRecord) error {
	if _, ok := model.ParseVerdict(string(v.Verdict)); !ok {
		return fmt.Errorf("%w: unknown verdict %q", ErrInvalidRecord, v.Verdict)
	}
	if v.ExecutionID == "" || v.Who == "" || v.At.IsZero() {
		return fmt.Errorf("%w: verdict needs execution id, who and a time", ErrInvalidRecord)
	}
	if v.ID == "" {
		v.ID = uuid.NewString()
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(
			ctx,
			s.q(`INSERT INTO verdicts (id, execution_id, verdict, note, who, at, source) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			v.ID,
			v.ExecutionID,
			string(v.Verdict),
			v.Note,
			v.Who,
			nanos(v.At),
			v.Source,
		)
		if err != nil {
			return fmt.Errorf("journal %s: record verdict: %w", s.where, err)
		}
		return nil
	})
}

func (s *store) Verdicts(ctx context.Context, executionID string) ([]VerdictRecord, error) {
	where, args := ofExecution(executionID)
	query := `SELECT id, execution_id, verdict, note, who, at, source FROM verdicts` + where + ` ORDER BY at DESC, id`
	return list(ctx, s, "verdicts", query, args, func(rows scanner) (VerdictRecord, error) {
		var (
			v       VerdictRecord
			verdict string
			at      int64
		)
		if err := rows.Scan(&v.ID, &v.ExecutionID, &verdict, &v.Note, &v.Who, &at, &v.Source); err != nil {
			return v, err
		}
		v.Verdict, v.At = model.Verdict(verdict), fromNanos(at)
		return v, nil
	})
}

// RecoverOpen applies the recovery rule (owner.go): an intent or sent attempt becomes
// indeterminate when its owner process is gone from this host or its deadline has passed.
// Each change is a compare-and-set on the state, so an owner that records its real outcome at
// the same moment wins or loses cleanly, never half.
func (s *store) RecoverOpen(ctx context.Context) (int, error) {
	if s.readOnly {
		return 0, s.refuseWrite("recovery")
	}
	open, err := s.attemptRows(ctx, `WHERE state IN ('intent', 'sent')`)
	if err != nil {
		return 0, err
	}
	clock, err := s.Clock(ctx)
	if err != nil {
		return 0, err
	}
	now, skewed := clock.Now, clock.SkewError()
	here, _ := os.Hostname()
	n, skipped := 0, 0
	for _, a := range open {
		var why string
		alive, known := s.opt.alive(a.owner)
		switch {
		case known && alive:
			continue // its process runs: the attempt is live, whatever a clock says
		case known && !alive:
			why = fmt.Sprintf("its process (%s) ended while the attempt was %s", a.owner, a.State)
		case skewed != nil && a.owner.Host != here:
			skipped++
			continue
		case now.After(a.deadline):
			why = fmt.Sprintf("still %s after its deadline %s (%s)", a.State, a.deadline.Format(time.RFC3339), a.owner)
		default:
			continue
		}
		if a.State == model.AttemptIntent {
			why += "; it never reached sent, so its request was most likely never sent"
		}
		detail := "recovered after a crash: " + why + ": run `exectriage resolve " + a.ID + "`"
		changed := false
		err := s.write(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, s.q(`UPDATE attempts SET state = 'indeterminate', detail = ?, finished_at = ?
				WHERE id = ? AND state = ?`), detail, nanos(now), a.ID, string(a.State))
			if err != nil {
				return fmt.Errorf("journal %s: recover attempt %s: %w", s.where, a.ID, err)
			}
			k, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("journal %s: recover attempt %s: %w", s.where, a.ID, err)
			}
			changed = k == 1
			return nil
		})
		if err != nil {
			return n, err
		}
		if changed {
			n++
		}
	}
	if skipped > 0 {
		return n, fmt.Errorf("%d attempt(s) of other hosts not recovered: %w", skipped, skewed)
	}
	return n, nil
}

func (s *store) Lease(ctx context.Context, id string) (Lease, error) {
	a, err := scanAttempt(s.db.QueryRowContext(ctx, s.q(`SELECT `+attemptColumns+` FROM attempts WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, fmt.Errorf("attempt %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Lease{}, fmt.Errorf("journal %s: read attempt %s: %w", s.where, id, err)
	}
	return Lease{Owner: a.owner, Deadline: a.deadline, Target: a.target}, nil
}
