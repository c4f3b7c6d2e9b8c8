package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The watcher's outbox
//
// An alert sent twice is a duplicate too, so watch keeps the rule the guard keeps for writes:
// what it will send is committed before any byte goes out, and what happened to it is committed
// after. An event is recorded once (its id is derived from what it is about, so finding it again
// adds nothing); each sink it goes to has one delivery row that moves
//
//	queued → sending → sent | failed | unclear,   failed → sending (a later try)
//
// A delivery is taken (queued → sending) by one conditional update: of two watchers, or of a
// watcher and its own restart, exactly one takes it. A delivery left in sending past its
// deadline (the process died with the request in flight, or before recording its answer) is
// stale: a sink whose receiver deduplicates by the event's id may take it again (Take with
// stale), any other marks it unclear (Abandon) and never sends it again. Times are the
// journal's clock (the server's on PostgreSQL): a host whose clock is off moves no deadline.

// DeliveryState is where one event's delivery to one sink is.
type DeliveryState string

// Delivery states.
const (
	DeliveryQueued  DeliveryState = "queued"
	DeliverySending DeliveryState = "sending"
	DeliverySent    DeliveryState = "sent"
	DeliveryFailed  DeliveryState = "failed"  // the sink said no, or nothing reached it: may be tried again
	DeliveryUnclear DeliveryState = "unclear" // it may have arrived: never sent again
)

// WatchEvent is one event as recorded: its id, its kind and its body (the JSON sinks send).
type WatchEvent struct {
	ID   string
	Kind string
	Body []byte
}

// Delivery is one event's delivery to one sink.
type Delivery struct {
	Event WatchEvent
	Sink  string
	State DeliveryState
	Tries int
	// Stale: left in sending past its deadline by a process that did not record its answer.
	Stale  bool
	Detail string
}

// Outbox is the watcher's durable record of events and their deliveries.
type Outbox interface {
	// Record adds the events not recorded before, each with a queued delivery per sink, and
	// the covered ids (events that something already said: recorded, never delivered), in one
	// transaction. It returns the ids it added.
	Record(ctx context.Context, events []WatchEvent, covered []string, sinks []string) ([]string, error)
	// Known says which of ids are recorded.
	Known(ctx context.Context, ids []string) (map[string]bool, error)
	// Due lists a sink's deliveries that may be taken now (queued, failed and due, and stale),
	// oldest event first.
	Due(ctx context.Context, sink string, limit int) ([]Delivery, error)
	// Take moves a delivery to sending, owned by owner until now+hold: queued or due failed
	// ones, and stale ones when stale is true. It reports whether this call took it.
	Take(ctx context.Context, eventID, sink, owner string, hold time.Duration, stale bool) (bool, error)
	// Finish records what a taken delivery came to (sent, failed, unclear); a failed one is
	// due again after retryIn. It changes nothing unless owner still holds it in sending.
	Finish(ctx context.Context, eventID, sink, owner string, state DeliveryState, detail string, retryIn time.Duration) error
	// Abandon marks a stale delivery unclear (it may have arrived) and reports whether it did.
	Abandon(ctx context.Context, eventID, sink, detail string) (bool, error)
	// Counts is the number of deliveries by sink and state.
	Counts(ctx context.Context) (map[string]map[DeliveryState]int, error)
	// Lead takes or renews the lease name for holder (NewLeaseHolder) for ttl, on the
	// journal's clock, and reports whether holder has it: a lease is free when it ran out or
	// its holder's process is provably gone (owner.go's rule). Release gives it up.
	Lead(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	Release(ctx context.Context, name, holder string) error
}

// ErrNoOutbox is returned by OutboxOf for a journal that cannot hold one (read-only).
var ErrNoOutbox = errors.New("journal: this journal keeps no outbox")

// OutboxOf is j's outbox.
func OutboxOf(j Journal) (Outbox, error) {
	s, ok := j.(*store)
	if !ok || s.readOnly {
		return nil, ErrNoOutbox
	}
	return s, nil
}

func (s *store) Record(ctx context.Context, events []WatchEvent, covered []string, sinks []string) ([]string, error) {
	var added []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		added = added[:0]
		now, err := s.nowOn(ctx, tx)
		if err != nil {
			return err
		}
		insert := func(id, kind string, body []byte, seq int64) (bool, error) {
			r, err := tx.ExecContext(
				ctx,
				s.q(`INSERT INTO watch_events (id, kind, body, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`),
				id,
				kind,
				string(body),
				nanos(now)+seq,
			)
			if err != nil {
				return false, fmt.Errorf("journal %s: record event: %w", s.where, err)
			}
			n, err := r.RowsAffected()
			return n == 1, err
		}
		for _, id := range covered {
			if _, err := insert(id, "covered", nil, 0); err != nil {
				return err
			}
		}
		for i, e := range events {
			if e.ID == "" {
				return fmt.Errorf("%w: an event without an id", ErrInvalidRecord)
			}
			fresh, err := insert(e.ID, e.Kind, e.Body, int64(i)) // events keep the order given
			if err != nil {
				return err
			}
			if !fresh {
				continue
			}
			added = append(added, e.ID)
			for _, sink := range sinks {
				if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO watch_deliveries (event_id, sink, state, next_at) VALUES (?, ?, 'queued', ?)`),
					e.ID, sink, nanos(now)); err != nil {
					return fmt.Errorf("journal %s: queue delivery: %w", s.where, err)
				}
			}
		}
		return nil
	})
	return added, err
}

func (s *store) Known(ctx context.Context, ids []string) (map[string]bool, error) {
	known := map[string]bool{}
	for len(ids) > 0 { // a few hundred ids a query: one round trip, not one per id
		part := ids[:min(len(ids), 500)]
		ids = ids[len(part):]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := s.db.QueryContext(
			ctx,
			s.q(`SELECT id FROM watch_events WHERE id IN (?`+strings.Repeat(", ?", len(part)-1)+`)`),
			args...)
		if err != nil {
			return nil, fmt.Errorf("journal %s: read events: %w", s.where, err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("journal %s: read events: %w", s.where, err)
			}
			known[id] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("journal %s: read events: %w", s.where, err)
		}
	}
	return known, nil
}

func (s *store) Due(ctx context.Context, sink string, limit int) ([]Delivery, error) {
	now, err := s.nowOn(ctx, s.db)
	if err != nil {
		return nil, err
	}
	t := nanos(now)
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT d.event_id, e.kind, e.body, d.state, d.tries, d.deadline, d.detail
		FROM watch_deliveries d JOIN watch_events e ON e.id = d.event_id
		WHERE d.sink = ? AND (d.state = 'queued' OR (d.state = 'failed' AND d.next_at <= ?) OR (d.state = 'sending' AND d.deadline < ?))
		ORDER BY e.created_at, d.event_id LIMIT ?`), sink, t, t, limit)
	if err != nil {
		return nil, fmt.Errorf("journal %s: read deliveries: %w", s.where, err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		var d Delivery
		var body string
		var deadline int64
		if err := rows.Scan(&d.Event.ID, &d.Event.Kind, &body, &d.State, &d.Tries, &deadline, &d.Detail); err != nil {
			return nil, fmt.Errorf("journal %s: read deliveries: %w", s.where, err)
		}
		d.Event.Body, d.Sink = []byte(body), sink
		d.Stale = d.State == DeliverySending
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal %s: read deliveries: %w", s.where, err)
	}
	return out, nil
}

// changed runs one conditional update and reports whether it changed a row.
func (s *store) changed(ctx context.Context, what, query string, args ...any) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		now, err := s.nowOn(ctx, tx)
		if err != nil {
			return err
		}
		for i, a := range args {
			if f, ok := a.(func(time.Time) int64); ok {
				args[i] = f(now)
			}
		}
		r, err := tx.ExecContext(ctx, s.q(query), args...)
		if err != nil {
			return fmt.Errorf("journal %s: %s: %w", s.where, what, err)
		}
		n, err = r.RowsAffected()
		return err
	})
	return n == 1, err
}

// at is the journal's now plus d, in nanoseconds, filled in by changed.
func at(d time.Duration) func(time.Time) int64 {
	return func(now time.Time) int64 { return nanos(now.Add(d)) }
}

func (s *store) Take(ctx context.Context, eventID, sink, owner string, hold time.Duration, stale bool) (bool, error) {
	cond := `state = 'queued' OR (state = 'failed' AND next_at <= ?)`
	args := []any{owner, at(hold), eventID, sink, at(0)}
	if stale {
		cond += ` OR (state = 'sending' AND deadline < ?)`
		args = append(args, at(0))
	}
	return s.changed(ctx, "take delivery", `UPDATE watch_deliveries SET state = 'sending', tries = tries + 1, owner = ?, deadline = ?
		WHERE event_id = ? AND sink = ? AND (`+cond+`)`, args...)
}

func (s *store) Finish(ctx context.Context, eventID, sink, owner string, state DeliveryState, detail string, retryIn time.Duration) error {
	switch state {
	case DeliverySent, DeliveryFailed, DeliveryUnclear:
	default:
		return fmt.Errorf("%w: a delivery cannot end %q", ErrInvalidRecord, state)
	}
	ok, err := s.changed(ctx, "finish delivery", `UPDATE watch_deliveries SET state = ?, detail = ?, next_at = ?, done_at = ?
		WHERE event_id = ? AND sink = ? AND state = 'sending' AND owner = ?`, string(state), detail, at(retryIn), at(0), eventID, sink, owner)
	if err == nil && !ok {
		err = fmt.Errorf("%w: delivery of %s to %s is no longer this watcher's", ErrTransition, eventID, sink)
	}
	return err
}

func (s *store) Abandon(ctx context.Context, eventID, sink, detail string) (bool, error) {
	return s.changed(ctx, "abandon delivery", `UPDATE watch_deliveries SET state = 'unclear', detail = ?, done_at = ?
		WHERE event_id = ? AND sink = ? AND state = 'sending' AND deadline < ?`, detail, at(0), eventID, sink, at(0))
}

func (s *store) Counts(ctx context.Context) (map[string]map[DeliveryState]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT sink, state, COUNT(*) FROM watch_deliveries GROUP BY sink, state`)
	if err != nil {
		return nil, fmt.Errorf("journal %s: count deliveries: %w", s.where, err)
	}
	defer rows.Close()
	out := map[string]map[DeliveryState]int{}
	for rows.Next() {
		var sink string
		var st DeliveryState
		var n int
		if err := rows.Scan(&sink, &st, &n); err != nil {
			return nil, fmt.Errorf("journal %s: count deliveries: %w", s.where, err)
		}
		if out[sink] == nil {
			out[sink] = map[DeliveryState]int{}
		}
		out[sink][st] = n
	}
	return out, rows.Err()
}

func (s *store) Lead(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	var mine bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		if s.dialect == postgres { // two first leases at once would both insert
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7346921650132)`); err != nil {
				return fmt.Errorf("journal %s: lock lease: %w", s.where, err)
			}
		}
		now, err := s.nowOn(ctx, tx)
		if err != nil {
			return err
		}
		until := nanos(now.Add(ttl))
		var cur string
		err = tx.QueryRowContext(ctx, s.q(`SELECT holder FROM watch_leases WHERE name = ?`), name).Scan(&cur)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("journal %s: lease: %w", s.where, err)
		}
		gone := "" // matches no holder (a holder is never empty)
		if cur != "" && cur != holder && s.holderGone(cur) {
			gone = cur // its process is provably gone (owner.go's rule 1): the lease is free now
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO watch_leases (name, holder, until_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`),
			name, holder, until); err != nil {
			return fmt.Errorf("journal %s: lease: %w", s.where, err)
		}
		r, err := tx.ExecContext(
			ctx,
			s.q(`UPDATE watch_leases SET holder = ?, until_at = ? WHERE name = ? AND (holder = ? OR until_at < ? OR holder = ?)`),
			holder,
			until,
			name,
			holder,
			nanos(now),
			gone,
		)
		if err != nil {
			return fmt.Errorf("journal %s: lease: %w", s.where, err)
		}
		n, err := r.RowsAffected()
		mine = n == 1
		return err
	})
	return mine, err
}

// leaseHolder is who holds a lease: a process (Owner) and a part of its own, so that two
// watchers of one process, or a pid reused, are never one holder.
type leaseHolder struct {
	Owner
	ID string `json:"id"`
}

// NewLeaseHolder names this process as a lease's holder, unique to this call.
func NewLeaseHolder() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	h, _ := json.Marshal(leaseHolder{Owner: CurrentOwner(), ID: hex.EncodeToString(b[:])})
	return string(h)
}

// holderGone reports whether a lease holder's process is provably gone.
func (s *store) holderGone(holder string) bool {
	var h leaseHolder
	if json.Unmarshal([]byte(holder), &h) != nil {
		return false
	}
	alive, known := s.opt.alive(h.Owner)
	return known && !alive
}

func (s *store) Release(ctx context.Context, name, holder string) error {
	_, err := s.changed(ctx, "release lease", `DELETE FROM watch_leases WHERE name = ? AND holder = ?`, name, holder)
	return err
}
