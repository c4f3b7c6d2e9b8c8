// Package logcache keeps a project's execution logs on disk between runs: the list entries the
// Logs API listed, the details that were fetched, and the spans of time whose entries are all
// there, in one SQLite file per API and project under $XDG_CACHE_HOME/exectriage/ (0700, the
// file 0600). A load then reads from the API only what is newer than what it has (and an
// overlap, for late writes and statuses that changed), and a detail is fetched once. The file
// never holds the API key: its name is a hash of the base URL and the key. Several processes
// may use one file at once (WAL, a busy timeout).
//
// Beside the logs, it keeps the definitions of the tools they name (Tool, PutTool), so that a
// session reopened asks the tools endpoint only for what is stale.
//
// A team index (OpenIndex) is the same cache in a team's PostgreSQL: one copy of a project's
// logs that `exectriage sync` keeps current and every engineer's session reads, in three tables
// (exectriage_index_entries, exectriage_index_covered, exectriage_index_tools) keyed by the project's name (Name: a
// hash, never the key), beside the journal's tables or in a database of their own. It imports
// only model and redact.
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
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver (a team index)
	_ "modernc.org/sqlite"             // the "sqlite" driver (pure Go)

	"github.com/exectriage/exectriage/internal/sqlitero"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
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
	path       string // the file, or the index's location without its password
	readOnly   bool
	maxEntries int
	q          *queries
	project    string // the project's name in a team index ("" in a file: one file, one project)
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
func Name(baseURL, key string) string { return "logs-" + digest(baseURL, key) + ".db" }

// IndexName is a project's name in a team index: a hash of the API (its base URL) and of what
// names the project there (the key that reads it, or the organisation and project), so that
// neither lands in the database.
func IndexName(baseURL, project string) string { return "p-" + digest(baseURL, project) }

func digest(baseURL, key string) string {
	u := baseURL
	if p, err := url.Parse(baseURL); err == nil {
		p.User, p.RawQuery, p.Fragment = nil, "", ""
		u = p.String()
	}
	sum := sha256.Sum256([]byte(u + "\x00" + key))
	return hex.EncodeToString(sum[:12])
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
		sqlitero.Set(q, path) // nothing created beside it, on read-only media too
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
	c := &Cache{db: db, path: path, readOnly: o.ReadOnly, maxEntries: o.MaxEntries, q: &sqliteQueries}
	if c.maxEntries <= 0 {
		c.maxEntries = DefaultMaxEntries
	}
	if !o.ReadOnly {
		if _, err := db.ExecContext(ctx, sqliteQueries.schema); err != nil {
			db.Close()
			return nil, fmt.Errorf("cache: %s: %w", path, err)
		}
	}
	return c, nil
}

// OpenIndex opens the team index of a project (its Name) in the PostgreSQL database dsn,
// creating its tables unless read-only. The tables hold every project that shares the
// database, each under its name; the search_path of dsn says in which schema.
func OpenIndex(ctx context.Context, dsn, project string, o Options) (*Cache, error) {
	where := redact.Location(dsn)
	fail := func(what string, err error) error {
		return fmt.Errorf("team index %s: %s: %s", where, what, redact.ScrubLocation(err.Error(), dsn))
	}
	if project == "" {
		return nil, fmt.Errorf("team index %s: no project name", where)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fail("open", err)
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	// an unreachable server must not hang a command: the session reads the API instead
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fail("connect", err)
	}
	c := &Cache{db: db, path: where, readOnly: o.ReadOnly, maxEntries: o.MaxEntries, q: &postgresQueries, project: project}
	if c.maxEntries <= 0 {
		c.maxEntries = DefaultMaxEntries
	}
	if o.ReadOnly {
		var n int
		if err := db.QueryRowContext(pctx, `SELECT count(*) FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_name = 'exectriage_index_entries'`).Scan(&n); err != nil {
			db.Close()
			return nil, fail("read", err)
		}
		if n == 0 {
			db.Close()
			return nil, ErrNone
		}
		return c, nil
	}
	// Two sessions creating the tables at once: IF NOT EXISTS still races in PostgreSQL's
	// catalog, so the creation holds a lock of its own.
	tx, err := db.BeginTx(pctx, nil)
	if err != nil {
		db.Close()
		return nil, fail("create tables", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(pctx, `SELECT pg_advisory_xact_lock(hashtext('exectriage_index schema'))`); err != nil {
		db.Close()
		return nil, fail("create tables", err)
	}
	if _, err := tx.ExecContext(pctx, postgresQueries.schema); err != nil {
		db.Close()
		return nil, fail("create tables", err)
	}
	if err := tx.Commit(); err != nil {
		db.Close()
		return nil, fail("create tables", err)
	}
	return c, nil
}

// IsIndex reports whether the cache is a team index (not a file).
func (c *Cache) IsIndex() bool { return c != nil && c.project != "" }

// queries are a store's statements. A file holds one project, so its statements name none;
// the team index's take the project as their first parameter.
type queries struct {
	schema, covered, lockCovered, clearCovered, addCovered string
	upsert, entries, detail, putDetail                     string
	count, cutAt, pruneEntries, pruneCovered, trimCovered  string
	stat, bytes                                            string
	tool, putTool                                          string
}

var sqliteQueries = queries{
	schema: `
CREATE TABLE IF NOT EXISTS entries (
	id     TEXT PRIMARY KEY,
	ts     INTEGER NOT NULL,
	entry  BLOB NOT NULL,
	detail BLOB
);
CREATE INDEX IF NOT EXISTS entries_ts_id ON entries (ts, id);
DROP INDEX IF EXISTS entries_ts;
CREATE TABLE IF NOT EXISTS covered (from_ms INTEGER NOT NULL, to_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tools (slug TEXT PRIMARY KEY, at_ms INTEGER NOT NULL, def BLOB NOT NULL);
`,
	covered:      `SELECT from_ms, to_ms FROM covered ORDER BY from_ms`,
	clearCovered: `DELETE FROM covered`,
	addCovered:   `INSERT INTO covered (from_ms, to_ms) VALUES (?, ?)`,
	upsert: `INSERT INTO entries (id, ts, entry) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET ts = excluded.ts, entry = excluded.entry,
		detail = CASE WHEN entries.entry = excluded.entry THEN entries.detail ELSE NULL END`,
	entries:      `SELECT id, ts, entry, detail FROM entries WHERE ts >= ? AND (ts, id) < (?, ?) ORDER BY ts DESC, id DESC LIMIT ?`,
	detail:       `SELECT detail FROM entries WHERE id = ? AND detail IS NOT NULL`,
	putDetail:    `UPDATE entries SET detail = ? WHERE id = ?`,
	count:        `SELECT count(*) FROM entries`,
	cutAt:        `SELECT ts FROM entries ORDER BY ts DESC LIMIT 1 OFFSET ?`,
	pruneEntries: `DELETE FROM entries WHERE ts <= ?`,
	pruneCovered: `DELETE FROM covered WHERE to_ms <= ?`,
	trimCovered:  `UPDATE covered SET from_ms = ? WHERE from_ms <= ?`,
	stat:         `SELECT count(*), count(detail) FROM entries`,
	tool:         `SELECT at_ms, def FROM tools WHERE slug = ?`,
	putTool: `INSERT INTO tools (slug, at_ms, def) VALUES (?, ?, ?)
		ON CONFLICT (slug) DO UPDATE SET at_ms = excluded.at_ms, def = excluded.def`,
}

// postgresQueries are the team index's: the same statements with the project first. A
// project's covered spans are rewritten under a lock of the project's (two syncs at once
// would each write the spans they read, and one would lose the other's).
var postgresQueries = queries{
	schema: `
CREATE TABLE IF NOT EXISTS exectriage_index_entries (
	project TEXT NOT NULL,
	id      TEXT NOT NULL,
	ts      BIGINT NOT NULL,
	entry   BYTEA NOT NULL,
	detail  BYTEA,
	PRIMARY KEY (project, id)
);
CREATE INDEX IF NOT EXISTS exectriage_index_entries_ts ON exectriage_index_entries (project, ts);
CREATE TABLE IF NOT EXISTS exectriage_index_covered (project TEXT NOT NULL, from_ms BIGINT NOT NULL, to_ms BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS exectriage_index_covered_project ON exectriage_index_covered (project);
CREATE TABLE IF NOT EXISTS exectriage_index_tools (
	project TEXT NOT NULL,
	slug    TEXT NOT NULL,
	at_ms   BIGINT NOT NULL,
	def     BYTEA NOT NULL,
	PRIMARY KEY (project, slug)
);
`,
	covered:      `SELECT from_ms, to_ms FROM exectriage_index_covered WHERE project = $1 ORDER BY from_ms`,
	lockCovered:  `SELECT pg_advisory_xact_lock(hashtext('exectriage_index ' || $1::text))`,
	clearCovered: `DELETE FROM exectriage_index_covered WHERE project = $1`,
	addCovered:   `INSERT INTO exectriage_index_covered (project, from_ms, to_ms) VALUES ($1, $2, $3)`,
	upsert: `INSERT INTO exectriage_index_entries AS e (project, id, ts, entry) VALUES ($1, $2, $3, $4)
		ON CONFLICT (project, id) DO UPDATE SET ts = excluded.ts, entry = excluded.entry,
		detail = CASE WHEN e.entry = excluded.entry THEN e.detail ELSE NULL END`,
	entries: `SELECT id, ts, entry, detail FROM exectriage_index_entries WHERE project = $1 AND ts >= $2 AND (ts, id) < ($3, $4)
		ORDER BY ts DESC, id DESC LIMIT $5`,
	detail:       `SELECT detail FROM exectriage_index_entries WHERE project = $1 AND id = $2 AND detail IS NOT NULL`,
	putDetail:    `UPDATE exectriage_index_entries SET detail = $2 WHERE project = $1 AND id = $3`,
	count:        `SELECT count(*) FROM exectriage_index_entries WHERE project = $1`,
	cutAt:        `SELECT ts FROM exectriage_index_entries WHERE project = $1 ORDER BY ts DESC LIMIT 1 OFFSET $2`,
	pruneEntries: `DELETE FROM exectriage_index_entries WHERE project = $1 AND ts <= $2`,
	pruneCovered: `DELETE FROM exectriage_index_covered WHERE project = $1 AND to_ms <= $2`,
	trimCovered:  `UPDATE exectriage_index_covered SET from_ms = $2 WHERE project = $1 AND from_ms <= $3`,
	stat:         `SELECT count(*), count(detail) FROM exectriage_index_entries WHERE project = $1`,
	bytes: `SELECT coalesce(sum(octet_length(entry) + coalesce(octet_length(detail), 0)), 0)
		FROM exectriage_index_entries WHERE project = $1`,
	tool: `SELECT at_ms, def FROM exectriage_index_tools WHERE project = $1 AND slug = $2`,
	putTool: `INSERT INTO exectriage_index_tools (project, slug, at_ms, def) VALUES ($1, $2, $3, $4)
		ON CONFLICT (project, slug) DO UPDATE SET at_ms = excluded.at_ms, def = excluded.def`,
}

// args are a statement's parameters: the project first in a team index.
func (c *Cache) args(a ...any) []any {
	if c.project == "" {
		return a
	}
	return append([]any{c.project}, a...)
}

// Path is the cache's file, or the team index's location (without its password).
func (c *Cache) Path() string { return c.path }

// Close closes the cache.
func (c *Cache) Close() error {
	if c == nil {
		return nil
	}
	return c.db.Close()
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Covered returns the spans whose entries are all in the cache, oldest first, merged.
func (c *Cache) Covered(ctx context.Context) ([]Span, error) { return c.covered(ctx, c.db) }

func (c *Cache) covered(ctx context.Context, db querier) ([]Span, error) {
	rows, err := db.QueryContext(ctx, c.q.covered, c.args()...)
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
// touches. The spans are read and written in one transaction (a file's is taken at once, an
// index's under the project's lock), so two processes covering at once both count.
func (c *Cache) Cover(ctx context.Context, s Span) error {
	if c.readOnly {
		return nil
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	if c.q.lockCovered != "" {
		if _, err := tx.ExecContext(ctx, c.q.lockCovered, c.args()...); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	spans, err := c.covered(ctx, tx)
	if err != nil {
		return err
	}
	merged := merge(append(spans, s))
	if _, err := tx.ExecContext(ctx, c.q.clearCovered, c.args()...); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	for _, m := range merged {
		if _, err := tx.ExecContext(ctx, c.q.addCovered, c.args(m.From.UnixMilli(), m.To.UnixMilli())...); err != nil {
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
	stmt, err := tx.PrepareContext(ctx, c.q.upsert)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer stmt.Close()
	for i := range es {
		b, err := json.Marshal(model.ToWire(&es[i], false))
		if err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		if _, err := stmt.ExecContext(ctx, c.args(es[i].ID, es[i].Timestamp.UnixMilli(), b)...); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	return tx.Commit()
}

// Entries hands on, in batches, the list entries whose time is within [from, to] (a zero
// from: from the oldest), newest first; an entry whose detail is kept comes as that detail
// (Detailed), so that a load from the cache asks for none of them again. Each batch is read
// by a query of its own, closed before the batch is handed on: the callback may use the cache
// (a file's one connection) while the walk goes on. The next page is read while this one is
// parsed (the two took a reopen's time one after the other).
func (c *Cache) Entries(ctx context.Context, from, to time.Time, batch func([]model.Execution) error) error {
	lo := int64(-1 << 62)
	if !from.IsZero() {
		lo = from.UnixMilli()
	}
	ctx, cancel := context.WithCancel(ctx)
	pages := make(chan rawPage, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(pages)
		// The walk's position: the entries before (ts, id) in the order are still to come;
		// the first page starts after every entry of to's millisecond ("" sorts first, so ts+1).
		atTS, atID := to.UnixMilli()+1, ""
		for {
			page := c.rawPage(ctx, lo, &atTS, &atID)
			select {
			case pages <- page:
			case <-ctx.Done():
				return
			}
			if !page.more || page.err != nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		<-done
	}()
	var p model.Parser
	for page := range pages {
		if page.err != nil {
			return page.err
		}
		if err := ctx.Err(); err != nil {
			return err // read ahead before the walk was stopped
		}
		if out := page.parse(&p); len(out) > 0 {
			if err := batch(out); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// entriesPerQuery is the number of entries Entries reads by one query (and hands on at once).
const entriesPerQuery = 1000

// rawPage is a page of Entries' walk as the query gave it: each entry's list entry and the
// detail kept for it (nil: none); more says the page was full (another may follow).
type rawPage struct {
	entries, details [][]byte
	more             bool
	err              error
}

// rawPage reads the next page of Entries' walk and moves its position past it.
func (c *Cache) rawPage(ctx context.Context, lo int64, atTS *int64, atID *string) (page rawPage) {
	rows, err := c.db.QueryContext(ctx, c.q.entries, c.args(lo, *atTS, *atID, entriesPerQuery)...)
	if err != nil {
		return rawPage{err: fmt.Errorf("cache: %w", err)}
	}
	defer rows.Close()
	page.entries = make([][]byte, 0, entriesPerQuery)
	page.details = make([][]byte, 0, entriesPerQuery)
	for rows.Next() {
		var b, d []byte
		if err := rows.Scan(atID, atTS, &b, &d); err != nil {
			return rawPage{err: fmt.Errorf("cache: %w", err)}
		}
		page.entries = append(page.entries, b)
		page.details = append(page.details, d)
	}
	if err := rows.Err(); err != nil {
		return rawPage{err: fmt.Errorf("cache: %w", err)}
	}
	page.more = len(page.entries) == entriesPerQuery
	return page
}

// parse reads the page's records: an entry's kept detail when it has one (Detailed), else
// the entry; an entry this version cannot read is left out (the API has it).
func (page rawPage) parse(p *model.Parser) []model.Execution {
	out := make([]model.Execution, 0, len(page.entries))
	for i, b := range page.entries {
		if d := page.details[i]; len(d) > 0 { // the detail kept for this entry: the record whole, no request for it
			if e, err := model.ParseRecord(d); err == nil {
				e.Detailed = true
				out = append(out, e)
				continue
			}
		}
		e, err := p.Parse(b)
		if err != nil {
			continue
		}
		e.Detailed = false
		out = append(out, e)
	}
	return out
}

// Detail returns the detail kept for id (ok false when there is none).
func (c *Cache) Detail(ctx context.Context, id string) (e model.Execution, ok bool, err error) {
	var b []byte
	err = c.db.QueryRowContext(ctx, c.q.detail, c.args(id)...).Scan(&b)
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
	if _, err := c.db.ExecContext(ctx, c.q.putDetail, c.args(b, e.ID)...); err != nil {
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
	if err := c.db.QueryRowContext(ctx, c.q.count, c.args()...).Scan(&n); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if n <= c.maxEntries {
		return nil
	}
	var cut int64
	if err := c.db.QueryRowContext(ctx, c.q.cutAt, c.args(c.maxEntries)...).Scan(&cut); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer tx.Rollback()
	if c.q.lockCovered != "" {
		if _, err := tx.ExecContext(ctx, c.q.lockCovered, c.args()...); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
	}
	// the entries up to cut go, and with them what the spans said of that time
	if _, err := tx.ExecContext(ctx, c.q.pruneEntries, c.args(cut)...); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if _, err := tx.ExecContext(ctx, c.q.pruneCovered, c.args(cut)...); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if _, err := tx.ExecContext(ctx, c.q.trimCovered, c.args(cut+1, cut)...); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return tx.Commit()
}

// Info says what a cache holds.
type Info struct {
	Path string `json:"path"`
	// Index is set for a team index (Path is then its location, without a password).
	Index   bool   `json:"index,omitempty"`
	Bytes   int64  `json:"bytes"`
	Entries int    `json:"entries"`
	Details int    `json:"details"`
	Covered []Span `json:"covered"`
}

// Tool returns the definition of a tool kept with PutTool and when it was fetched (ok false
// when none is kept, or it cannot be read: the API has it).
func (c *Cache) Tool(ctx context.Context, slug string) (t model.Tool, at time.Time, ok bool, err error) {
	var ms int64
	var b []byte
	err = c.db.QueryRowContext(ctx, c.q.tool, c.args(strings.ToUpper(slug))...).Scan(&ms, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return model.Tool{}, time.Time{}, false, nil
	}
	if err != nil {
		return model.Tool{}, time.Time{}, false, fmt.Errorf("cache: tool %s: %w", slug, err)
	}
	if json.Unmarshal(b, &t) != nil || t.Slug == "" {
		return model.Tool{}, time.Time{}, false, nil
	}
	return t, time.UnixMilli(ms), true, nil
}

// PutTool keeps a tool's definition, fetched at at, in place of the one kept before.
func (c *Cache) PutTool(ctx context.Context, t model.Tool, at time.Time) error {
	if c.readOnly || t.Slug == "" {
		return nil
	}
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("cache: tool %s: %w", t.Slug, err)
	}
	if _, err := c.db.ExecContext(ctx, c.q.putTool, c.args(strings.ToUpper(t.Slug), at.UnixMilli(), b)...); err != nil {
		return fmt.Errorf("cache: tool %s: %w", t.Slug, err)
	}
	return nil
}

// Stat returns what the cache holds: a file's size, or the bytes of a project's records in
// a team index.
func (c *Cache) Stat(ctx context.Context) (Info, error) {
	in := Info{Path: c.path, Index: c.IsIndex()}
	if c.IsIndex() {
		if err := c.db.QueryRowContext(ctx, c.q.bytes, c.args()...).Scan(&in.Bytes); err != nil {
			return in, fmt.Errorf("cache: %w", err)
		}
	} else if st, err := os.Stat(c.path); err == nil {
		in.Bytes = st.Size()
	}
	if err := c.db.QueryRowContext(ctx, c.q.stat, c.args()...).Scan(&in.Entries, &in.Details); err != nil {
		return in, fmt.Errorf("cache: %w", err)
	}
	var err error
	in.Covered, err = c.Covered(ctx)
	return in, err
}
