package journal

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
)

// busyTimeout is how long a SQLite writer waits for another process's write transaction.
// Journal transactions are a few statements long, so waiting this long means something is stuck.
const busyTimeout = 15 * time.Second

// openSQLite opens the journal file at path: WAL (readers never block the writer), synchronous
// FULL (a committed intent survives power loss, not only a crash), a busy timeout (another
// window's write waits instead of failing) and write transactions begun IMMEDIATE. The
// durability settings are read back; a journal that cannot have them is refused.
func openSQLite(ctx context.Context, path string, o options) (*store, error) {
	if strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("journal: %q: give a plain file path (no file: URI, no ? or #)", path)
	}
	if path == ":memory:" {
		return nil, fmt.Errorf("journal: an in-memory journal is not durable: give a file path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("journal: create %s: %w", dir, err)
		}
	}
	if err := checkPermissions(path); err != nil {
		return nil, err
	}
	// A FIFO or a device where the journal should be is refused before anything opens it.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("journal: %s is not a regular file (%v): give the path of a journal file", path, st.Mode().Type())
	}
	// Create the file private to the user before SQLite creates it with the umask's mode.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	} else if err := f.Close(); err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	if err := tightenFiles(path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	// One connection: every statement runs with the pragmas read back below, and the process's
	// own writes are serialised (SQLite has one writer anyway).
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &store{db: db, dialect: sqlite, where: path, opt: o}
	if st, err := os.Stat(path); err == nil {
		s.file = st
	}
	if err := s.checkSQLite(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkSQLite reads back the settings the journal's guarantees rest on.
func (s *store) checkSQLite(ctx context.Context) error {
	var mode string
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("journal %s: read journal_mode: %w", s.where, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("%w: %s: journal_mode is %q, not wal (is the file on a network file system?)", ErrNotDurable, s.where, mode)
	}
	var sync int
	if err := s.db.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil {
		return fmt.Errorf("journal %s: read synchronous: %w", s.where, err)
	}
	if sync != 2 { // 2 = FULL
		return fmt.Errorf("%w: %s: synchronous is %d, not FULL (2)", ErrNotDurable, s.where, sync)
	}
	var busy int64
	if err := s.db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy); err != nil {
		return fmt.Errorf("journal %s: read busy_timeout: %w", s.where, err)
	}
	if busy <= 0 {
		return fmt.Errorf("%w: %s: busy_timeout is not set", ErrNotDurable, s.where)
	}
	return nil
}

// checkPermissions refuses a journal whose directory others may write to (they could replace
// the journal, or its -wal file, and so lift the guard): group- or world-writable, unless it is
// a sticky directory such as /tmp whose entries only their owners may replace.
func checkPermissions(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return nil // MkdirAll reported it, or the open will
	}
	if m := st.Mode(); m.Perm()&0o022 != 0 && m&os.ModeSticky == 0 {
		return fmt.Errorf(
			"journal: %s is writable by others (mode %v): another user could replace the journal and lift the retry guard; chmod go-w "+
				"%s, or use another --journal",
			dir,
			m.Perm(),
			dir,
		)
	}
	return nil
}

// tightenFiles makes the journal and its SQLite side files private to the user (they hold who
// retried what, and their integrity is the guard's): an existing file readable or writable by
// others is narrowed to 0600.
func tightenFiles(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, 0o600); err != nil {
				return fmt.Errorf("journal: %s has mode %v and could not be made private (0600): %w", p, st.Mode().Perm(), err)
			}
		}
	}
	return nil
}
