// Package logcache keeps a project's execution logs on disk between runs: the list entries the
// Logs API listed, the details that were fetched, and the spans of time whose entries are all
// there, in one SQLite file per API and project under $XDG_CACHE_HOME/exectriage/ (0700, the
// file 0600). A load then reads from the API only what is newer than what it has (and an
// overlap, for late writes and statuses that changed), and a detail is fetched once. The file
// never holds the API key: its name is a hash of the base URL and the key. Several processes
// may use one file at once (WAL, a busy timeout). It imports only model.
package logcache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver (pure Go)

	"github.com/exectriage/exectriage/model"
)

// Overlap is how far before the newest covered moment a load reads the API again: an
// execution is logged when it ends with the time it started, and a status may still change.
const Overlap = 15 * time.Minute

// DefaultMaxEntries bounds a cache file: past it the oldest entries (and their details) go.
const DefaultMaxEntries = 2_000_000

// Span is a stretch of time whose list entries are all in the cache, both ends included, to
// the millisecond.
type Span struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Cache is one API's and project's cached logs.
type Cache struct {
	db         *sql.DB
	path       string
	readOnly   bool
	maxEntries int
}

// Dir is the directory the caches live in: $XDG_CACHE_HOME/exectriage, else
// $HOME/.cache/exectriage.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "exectriage"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "exectriage"), nil
	}
	return "", errors.New("cache: neither XDG_CACHE_HOME nor HOME is set")
}

// Name is the cache file of an API (its base URL) and project (the key that reads it): a hash
// of both, so that the key never lands on disk.
func Name(baseURL, key string) string {
	u := baseURL
	if p, err := url.Parse(baseURL); err == nil {
		p.User, p.RawQuery, p.Fragment = nil, "", ""
		u = p.String()
	}
	sum := sha256.Sum256([]byte(u + "\x00" + key))
	return "logs-" + hex.EncodeToString(sum[:12]) + ".db"
}

// Options tune Open.
type Options struct {
	// ReadOnly reads what is there and writes nothing (a read-only session); a file that does
	// not exist yet is ErrNone.
	ReadOnly bool
	// MaxEntries bounds the file (DefaultMaxEntries when 0).
	MaxEntries int
}

// ErrNone is a read-only open of a cache that does not exist.
var ErrNone = errors.New("cache: no cache yet")

// Open opens (or creates) the cache file at path.
func Open(ctx context.Context, path string, o Options) (*Cache, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("cache: %s is not a regular file", path)
	} else if err != nil && o.ReadOnly {
		return nil, ErrNone
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if o.ReadOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	} else {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		f.Close()
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)") // a cache: losing the last writes costs a refetch
		q.Set("_txlock", "immediate")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	db.SetMaxOpenConns(1)
	c := &Cache{db: db, path: path, readOnly: o.ReadOnly, maxEntries: o.MaxEntries}
	if c.maxEntries <= 0 {
		c.maxEntries = DefaultMaxEntries
	}
	if !o.ReadOnly {
		if _, err := db.ExecContext(ctx, schema); err != nil {
			db.Close()
			return nil, fmt.Errorf("cache: %s: %w", path, err)
		}
	}
	return c, nil
}

const schema = `
CREATE TABLE IF NOT EXISTS entries (
	id     TEXT PRIMARY KEY,
	ts     INTEGER NOT NULL,
	entry  BLOB NOT NULL,
	detail BLOB
);
CREATE INDEX IF NOT EXISTS entries_ts ON entries (ts);
CREATE TABLE IF NOT EXISTS covered (from_ms INTEGER NOT NULL, to_ms INTEGER NOT NULL);
`

// Path is the cache's file.
func (c *Cache) Path() string { return c.path }

// Close closes the cache.
func (c *Cache) Close() error {
	if c == nil {
		return nil
	}
	return c.db.Close()
}

// Covered returns the spans whose entries are all in the cache, oldest first, merged.
func (c *Cache) Covered(ctx context.Context) ([]Span, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT from_ms, to_ms FROM covered ORDER BY from_ms`)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	defer rows.Close()
	var out []Span
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		out = append(out, Span{time.UnixMilli(a).UTC(), time.UnixMilli(b).UTC()})
	}
	return out, rows.Err()
}

// Cover records that every entry of s is now in the cache, merging it with the spans it
// touches.
func (c *Cache) Cover(ctx context.Context, s Span) error {
	if c.readOnly {
		return nil
	}
	spans, err := c.Covered(ctx)
	if err != nil {
		return err
	}
	merged := merge(append(spans, s))
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM covered`); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	for _, m := range merged {
		if _, err := tx.ExecContext(ctx, `INSERT INTO covered (from_ms, to_ms) VALUES (?, ?)`, m.From.UnixMilli(), m.To.UnixMilli()); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	return tx.Commit()
}

// merge sorts spans and joins those that overlap or touch (a millisecond apart).
func merge(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int { return a.From.Compare(b.From) })
	var out []Span
	for _, s := range spans {
		if n := len(out); n > 0 && !s.From.After(out[n-1].To.Add(time.Millisecond)) {
			if s.To.After(out[n-1].To) {
				out[n-1].To = s.To
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// PutEntries keeps list entries, replacing older copies; an entry that changed (its status,
// message or anything else the list says) loses the detail kept for its old self.
func (c *Cache) PutEntries(ctx context.Context, es []model.Execution) error {
	if c.readOnly || len(es) == 0 {
		return nil
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO entries (id, ts, entry) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET ts = excluded.ts, entry = excluded.entry,
		detail = CASE WHEN entries.entry = excluded.entry THEN entries.detail ELSE NULL END`)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer stmt.Close()
	for i := range es {
		b, err := json.Marshal(model.ToWire(&es[i], false))
		if err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		if _, err := stmt.ExecContext(ctx, es[i].ID, es[i].Timestamp.UnixMilli(), b); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	return tx.Commit()
}

// Entries hands on, in batches, the list entries whose time is within [from, to] (a zero
// from: from the oldest), newest first.
func (c *Cache) Entries(ctx context.Context, from, to time.Time, batch func([]model.Execution) error) error {
	lo := int64(-1 << 62)
	if !from.IsZero() {
		lo = from.UnixMilli()
	}
	rows, err := c.db.QueryContext(ctx, `SELECT entry FROM entries WHERE ts >= ? AND ts <= ? ORDER BY ts DESC, id DESC`, lo, to.UnixMilli())
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer rows.Close()
	var p model.Parser
	out := make([]model.Execution, 0, 1000)
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		e, err := p.Parse(b)
		if err != nil {
			continue // an entry this version cannot read: the API has it
		}
		e.Detailed = false
		if out = append(out, e); len(out) == cap(out) {
			if err := batch(out); err != nil {
				return err
			}
			out = make([]model.Execution, 0, 1000)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if len(out) > 0 {
		return batch(out)
	}
	return nil
}

// Detail returns the detail kept for id (ok false when there is none).
func (c *Cache) Detail(ctx context.Context, id string) (e model.Execution, ok bool, err error) {
	var b []byte
	err = c.db.QueryRowContext(ctx, `SELECT detail FROM entries WHERE id = ? AND detail IS NOT NULL`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return model.Execution{}, false, nil
	}
	if err != nil {
		return model.Execution{}, false, fmt.Errorf("cache: %w", err)
	}
	if e, err = model.ParseRecord(b); err != nil {
		return model.Execution{}, false, nil
	}
	e.Detailed = true
	return e, true, nil
}

// PutDetail keeps an execution's detail beside its entry (a detail of an execution whose entry
// is not kept is not kept either: the entry decides whether the detail is current).
func (c *Cache) PutDetail(ctx context.Context, e model.Execution) error {
	if c.readOnly || e.ID == "" {
		return nil
	}
	b, err := json.Marshal(model.ToWire(&e, true))
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if _, err := c.db.ExecContext(ctx, `UPDATE entries SET detail = ? WHERE id = ?`, b, e.ID); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// Prune drops the oldest entries past the cache's bound, and the spans they covered.
func (c *Cache) Prune(ctx context.Context) error {
	if c.readOnly {
		return nil
	}
	var n int
	if err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&n); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if n <= c.maxEntries {
		return nil
	}
	var cut int64
	if err := c.db.QueryRowContext(ctx, `SELECT ts FROM entries ORDER BY ts DESC LIMIT 1 OFFSET ?`, c.maxEntries).Scan(&cut); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	// the entries up to cut go, and with them what the spans said of that time
	if _, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE ts <= ?`, cut); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM covered WHERE to_ms <= ?`, cut); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE covered SET from_ms = ? WHERE from_ms <= ?`, cut+1, cut); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return tx.Commit()
}

// Info says what a cache holds.
type Info struct {
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	Entries int    `json:"entries"`
	Details int    `json:"details"`
	Covered []Span `json:"covered"`
}

// Stat returns what the cache holds.
func (c *Cache) Stat(ctx context.Context) (Info, error) {
	in := Info{Path: c.path}
	if st, err := os.Stat(c.path); err == nil {
		in.Bytes = st.Size()
	}
	if err := c.db.QueryRowContext(ctx, `SELECT count(*), count(detail) FROM entries`).Scan(&in.Entries, &in.Details); err != nil {
		return in, fmt.Errorf("cache: %w", err)
	}
	var err error
	in.Covered, err = c.Covered(ctx)
	return in, err
}
