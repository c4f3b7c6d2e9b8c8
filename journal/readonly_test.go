package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// snapshotDir is every file under dir with its bytes: a read-only open must leave it as it was
// (no -wal or -shm left behind, no chmod, no new file).
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = fmt.Sprintf("%v %x", info.Mode(), b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pgTables is every table of the schema a DSN selects with its rows, as text.
func pgTables(t *testing.T, dsn string) string {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	var b strings.Builder
	for _, n := range names {
		var dump sql.NullString
		if err := db.QueryRow(`SELECT string_agg(t::text, '|' ORDER BY t::text) FROM ` + n + ` t`).Scan(&dump); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %s\n", n, dump.String)
	}
	return b.String()
}

// TestReadOnlyJournalWritesNothing: a journal opened read-only reads every record, refuses
// every write with ErrReadOnly, and leaves the database exactly as it was.
func TestReadOnlyJournalWritesNothing(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			w := openT(t, dsn)
			c := claim("log_A", t0)
			mustClaim(t, w, c)
			if err := w.Mark(ctx, VerdictRecord{ExecutionID: "log_B", Verdict: model.VerdictIgnored, Who: "ana@host", At: t0}); err != nil {
				t.Fatal(err)
			}
			// an attempt left in intent past its deadline (the read-only clock is an hour
			// later): recovery would change it
			mustClaim(t, w, claim("log_C", t0))
			w.Close()

			before := state(t, b.name, dsn)
			r, err := OpenReadOnly(ctx, dsn, WithClock(func() time.Time { return t0.Add(time.Hour) }))
			if err != nil {
				t.Fatal(err)
			}
			if as, err := r.Attempts(ctx, ""); err != nil || len(as) != 2 {
				t.Fatalf("attempts: %d %v", len(as), err)
			}
			if vs, err := r.Verdicts(ctx, "log_B"); err != nil || len(vs) != 1 {
				t.Fatalf("verdicts: %+v %v", vs, err)
			}
			if _, err := r.Lease(ctx, c.Attempt.ID); err != nil {
				t.Fatalf("lease: %v", err)
			}
			writes := map[string]func() error{
				"confirm": func() error {
					cf := c.Confirmation
					cf.ExecutionID = "log_A"
					return r.Confirm(ctx, cf)
				},
				"claim": func() error {
					_, _, err := r.ClaimAttempt(ctx, claim("log_D", t0))
					return err
				},
				"update": func() error {
					return r.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSent, "", "", t0)
				},
				"mark": func() error {
					return r.Mark(ctx, VerdictRecord{ExecutionID: "log_E", Verdict: model.VerdictIgnored, Who: "x", At: t0})
				},
				"recover": func() error { _, err := r.RecoverOpen(ctx); return err },
			}
			for name, f := range writes {
				if err := f(); !errors.Is(err, ErrReadOnly) {
					t.Errorf("%s on a read-only journal: %v, want ErrReadOnly", name, err)
				}
			}
			r.Close()
			if after := state(t, b.name, dsn); after != before {
				t.Errorf("the read-only open changed the journal:\nbefore %s\nafter  %s", names(before), names(after))
			}
		})
	}
}

// state is the whole journal as text: its directory's files for SQLite, its tables for
// PostgreSQL. SQLite's coordination files are left out when they hold nothing: a reader of a
// WAL database, mode=ro included, makes the -shm (shared memory, no records) and an empty -wal
// when no writer has them open, as any concurrent reader does; the records are all in the file.
func state(t *testing.T, backend, dsn string) string {
	if backend == "postgres" {
		return pgTables(t, dsn)
	}
	snap := snapshotDir(t, filepath.Dir(dsn))
	keys := make([]string, 0, len(snap))
	for k := range snap {
		if strings.HasSuffix(k, "-shm") {
			continue
		}
		if st, err := os.Stat(k); err == nil && strings.HasSuffix(k, "-wal") && st.Size() == 0 {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, snap[k])
	}
	return b.String()
}

// TestReadOnlyOpenCreatesAndMigratesNothing: a missing journal, an empty database and a schema
// older than this build's are clear errors, and each is left as it was: no file, no table, no
// migration.
func TestReadOnlyOpenCreatesAndMigratesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "state", "journal.db")
	if _, err := OpenReadOnly(ctx, missing); !errors.Is(err, ErrNoJournal) {
		t.Fatalf("missing journal: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a read-only open created the journal's directory")
	}

	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.fresh(t)
			driver := "pgx"
			if b.name == "sqlite" {
				driver = "sqlite"
				if err := os.MkdirAll(filepath.Dir(dsn), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dsn, nil, 0o600); err != nil { // an empty file: SQLite's empty database
					t.Fatal(err)
				}
			}
			before := state(t, b.name, dsn)
			_, err := OpenReadOnly(ctx, dsn)
			if err == nil || !strings.Contains(err.Error(), "no exectriage journal") {
				t.Fatalf("empty database: %v", err)
			}
			if after := state(t, b.name, dsn); after != before {
				t.Errorf("a read-only open of an empty database changed it:\n%s\n%s", before, after)
			}

			// schema 1 (before sources): read-only never migrates it
			raw, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range append([]string{`CREATE TABLE schema_version (version BIGINT NOT NULL)`, `INSERT INTO schema_version (version) VALUES (1)`}, migrations[0]...) {
				if _, err := raw.ExecContext(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			raw.Close()
			before = state(t, b.name, dsn)
			_, err = OpenReadOnly(ctx, dsn)
			if err == nil || !strings.Contains(err.Error(), "does not migrate") {
				t.Fatalf("schema 1: %v", err)
			}
			if after := state(t, b.name, dsn); after != before {
				t.Errorf("a read-only open of a schema-1 journal changed it")
			}
		})
	}
}

// names is the first words of each line of a state (file names and modes).
func names(st string) string {
	var out []string
	for l := range strings.SplitSeq(st, "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			out = append(out, f[0]+" "+f[1]+fmt.Sprintf(" %d", len(l)))
		}
	}
	return strings.Join(out, "; ")
}

// TestAReadOnlyJournalCreatesNothingBesideIt: --readonly made -wal and -shm beside a journal
// closed cleanly (and could not open one on read-only media); now it reads the file as it is,
// and a journal another process has open through that process's side files, newest records
// included.
func TestAReadOnlyJournalCreatesNothingBesideIt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustClaim(t, j, claim("log_A", t0))
	j.Close()
	r, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if as, err := r.Attempts(ctx, ""); err != nil || len(as) != 1 {
		t.Fatalf("read %d attempts (%v)", len(as), err)
	}
	r.Close()
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("a read-only open created %s", path+side)
		}
	}
	w := openT(t, path) // another process writes, its WAL not checkpointed
	mustClaim(t, w, claim("log_B", t0))
	r, err = OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if as, err := r.Attempts(ctx, ""); err != nil || len(as) != 2 {
		t.Fatalf("beside a writer, read %d attempts (%v), want its newest too", len(as), err)
	}
}
