package journal

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestEveryCallFailsCleanlyOnABrokenDatabase: a journal whose database went away (a closed
// connection, a server gone) answers every call with an error that names the journal, and
// never a record, a panic or a false "ok" (a claim that did not happen must not read as one).
func TestEveryCallFailsCleanlyOnABrokenDatabase(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			j := openT(t, dsn)
			c := claim("log_A", t0)
			mustClaim(t, j, c)
			s := j.(*store)
			s.db.Close()
			calls := map[string]func() error{
				"confirm": func() error {
					cf := c.Confirmation
					cf.ExecutionID = "log_A"
					return j.Confirm(ctx, cf)
				},
				"claim": func() error {
					ok, _, err := j.ClaimAttempt(ctx, claim("log_B", t0))
					if ok {
						return nil
					}
					return err
				},
				"update":        func() error { return j.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSent, "", "", t0) },
				"attempt":       func() error { _, err := j.Attempt(ctx, c.Attempt.ID); return err },
				"attempts":      func() error { _, err := j.Attempts(ctx, ""); return err },
				"confirmations": func() error { _, err := j.Confirmations(ctx, "log_A"); return err },
				"mark": func() error {
					return j.Mark(ctx, VerdictRecord{ExecutionID: "log_A", Verdict: model.VerdictIgnored, Who: "w", At: t0})
				},
				"verdicts": func() error { _, err := j.Verdicts(ctx, ""); return err },
				"recover":  func() error { _, err := j.RecoverOpen(ctx); return err },
				"lease":    func() error { _, err := j.Lease(ctx, c.Attempt.ID); return err },
			}
			for name, call := range calls {
				if err := call(); err == nil {
					t.Errorf("%s on a closed database: no error", name)
				}
			}
			if !strings.Contains(j.Where(), "journal") && !strings.Contains(j.Where(), "postgres") && !strings.Contains(j.Where(), "t_") {
				t.Errorf("Where = %q", j.Where())
			}
		})
	}
}

// TestInvalidInputIsRefusedBeforeTheDatabase: records without what makes them records, an
// unknown attempt, a lease of nothing, and locations that are not journals are errors.
func TestInvalidInputIsRefusedBeforeTheDatabase(t *testing.T) {
	ctx := context.Background()
	j := openT(t, filepath.Join(t.TempDir(), "j.db"))
	for name, err := range map[string]error{
		"confirmation without who":    j.Confirm(ctx, Confirmation{ExecutionID: "log_A", At: t0, Reason: "r"}),
		"confirmation without a time": j.Confirm(ctx, Confirmation{ExecutionID: "log_A", Who: "w", Reason: "r"}),
		"verdict unknown":             j.Mark(ctx, VerdictRecord{ExecutionID: "log_A", Verdict: "maybe", Who: "w", At: t0}),
		"verdict without who":         j.Mark(ctx, VerdictRecord{ExecutionID: "log_A", Verdict: model.VerdictIgnored, At: t0}),
	} {
		if !errors.Is(err, ErrInvalidRecord) {
			t.Errorf("%s: %v, want ErrInvalidRecord", name, err)
		}
	}
	if _, err := j.Attempt(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown attempt: %v", err)
	}
	if _, err := j.Lease(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("lease of nothing: %v", err)
	}
	for _, loc := range []string{"file:/tmp/x.db", "/tmp/x.db?mode=ro", ":memory:"} {
		if _, err := Open(ctx, loc); err == nil {
			t.Errorf("Open(%q) succeeded", loc)
		}
		if _, err := OpenReadOnly(ctx, loc); err == nil {
			t.Errorf("OpenReadOnly(%q) succeeded", loc)
		}
	}
	if _, err := OpenReadOnly(ctx, "postgres://u@127.0.0.1:9/db?connect_timeout=1"); err == nil {
		t.Error("OpenReadOnly of an unreachable PostgreSQL succeeded")
	}
	dir := t.TempDir()
	if _, err := OpenReadOnly(ctx, dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("OpenReadOnly of a directory: %v", err)
	}
	if got := RedactDSN("postgres://u:pw@h/db"); strings.Contains(got, "pw@") {
		t.Errorf("RedactDSN = %q", got)
	}
	if got := RedactDSN("/a/b.db"); got != "/a/b.db" {
		t.Errorf("RedactDSN of a path = %q", got)
	}
}

// TestDefaultPathAndWho: the default journal follows XDG (an unset or relative XDG_STATE_HOME
// falls back to ~/.local/state), and the person is EXECTRIAGE_WHO, else user@host.
func TestDefaultPathAndWho(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if p, err := DefaultPath(env(map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/ana"})); err != nil || p != "/home/ana/.local/state/exectriage/journal.db" {
		t.Errorf("DefaultPath = %q %v", p, err)
	}
	if w := Who(env(map[string]string{"EXECTRIAGE_WHO": " ana "})); w != "ana" {
		t.Errorf("Who = %q", w)
	}
	host, _ := os.Hostname()
	if w := Who(env(map[string]string{"LOGNAME": "bob"})); !strings.HasPrefix(w, "bob@") || host != "" && !strings.HasSuffix(w, host) {
		t.Errorf("Who from LOGNAME = %q", w)
	}
	if w := Who(env(nil)); w == "" {
		t.Error("Who of an empty environment is empty")
	}
}

// TestAWriteThatFailsMidwayLeavesNothing: every write is one transaction: when the database
// refuses a statement in the middle of it (here a trigger raises, as a full disk or a
// constraint would), the call fails and nothing of it stays: a claim whose confirmation cannot
// be written leaves no attempt to block the execution, an update no half state.
func TestAWriteThatFailsMidwayLeavesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	j := openT(t, path, WithOwner(Owner{Host: "other-host", PID: 42})) // a process recovery cannot see: its deadline decides
	s := j.(*store)
	held := claim("log_held", t0)
	mustClaim(t, j, held)
	for _, trg := range []string{
		`CREATE TRIGGER no_confirmations BEFORE INSERT ON confirmations BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
		`CREATE TRIGGER no_verdicts BEFORE INSERT ON verdicts BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
		`CREATE TRIGGER no_updates BEFORE UPDATE ON attempts BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
	} {
		if _, err := s.db.ExecContext(ctx, trg); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _, err := j.ClaimAttempt(ctx, claim("log_new", t0)); ok || err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("claim with its confirmation refused: ok=%v %v", ok, err)
	}
	if as, _ := j.Attempts(ctx, "log_new"); len(as) != 0 {
		t.Fatalf("a failed claim left %d attempts: the execution would be blocked by nothing", len(as))
	}
	cf := held.Confirmation
	cf.ExecutionID = "log_held"
	if err := j.Confirm(ctx, cf); err == nil {
		t.Error("a refused confirmation reads as written")
	}
	if err := j.Mark(ctx, VerdictRecord{ExecutionID: "log_held", Verdict: model.VerdictIgnored, Who: "w", At: t0}); err == nil {
		t.Error("a refused verdict reads as written")
	}
	if err := j.UpdateAttempt(ctx, held.Attempt.ID, model.AttemptSent, "", "", t0); err == nil {
		t.Error("a refused update reads as written")
	}
	r := openT(t, path, WithClock(func() time.Time { return t0.Add(time.Hour) }))
	if n, err := r.RecoverOpen(ctx); err == nil || n != 0 {
		t.Errorf("recovery through a refusing database: %d %v", n, err)
	}
	if a, _ := j.Attempt(ctx, held.Attempt.ID); a.State != model.AttemptIntent {
		t.Errorf("the held attempt is %s after refused updates", a.State)
	}
}

// TestAliveAsksTheKernel: this process is alive, a pid past the kernel's range is not, and a
// process of another host is not known either way.
func TestAliveAsksTheKernel(t *testing.T) {
	if alive, known := signalAlive(os.Getpid()); !alive || !known {
		t.Errorf("this process: alive=%v known=%v", alive, known)
	}
	if alive, known := signalAlive(1 << 30); alive || !known {
		t.Errorf("no such pid: alive=%v known=%v", alive, known)
	}
	if _, known := Alive(Owner{Host: "another-host", PID: 1}); known {
		t.Error("a process of another host is known")
	}
	if alive, known := Alive(CurrentOwner()); !alive || !known {
		t.Errorf("the current owner: alive=%v known=%v", alive, known)
	}
}

// TestAFailedMigrationLeavesThePreviousSchema: a migration runs in one transaction; when it
// cannot finish (here recording the new version is refused), the journal is refused and stays
// at its old schema, records and all, for the next open to try again.
func TestAFailedMigrationLeavesThePreviousSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := append([]string{`CREATE TABLE schema_version (version BIGINT NOT NULL)`, `INSERT INTO schema_version (version) VALUES (1)`}, migrations[0]...)
	stmts = append(stmts, `INSERT INTO verdicts (id, execution_id, verdict, note, who, at) VALUES ('v1', 'log_old', 'ignored', '', 'w', 1)`,
		`CREATE TRIGGER keep_version BEFORE DELETE ON schema_version BEGIN SELECT RAISE(ABORT, 'read-only medium'); END`)
	for _, s := range stmts {
		if _, err := raw.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	raw.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "read-only medium") {
		t.Fatalf("open with a migration that cannot finish: %v", err)
	}
	raw, _ = sql.Open("sqlite", path)
	defer raw.Close()
	var v int
	if err := raw.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil || v != 1 {
		t.Fatalf("schema version %d %v, want 1", v, err)
	}
	if _, err := raw.ExecContext(ctx, `SELECT source FROM verdicts`); err == nil {
		t.Fatal("half a migration stayed: verdicts has the new column")
	}
	var n int
	if err := raw.QueryRowContext(ctx, `SELECT COUNT(*) FROM verdicts`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the old records: %d %v", n, err)
	}
}

// TestTheDefaultJournal: an empty location is the default file under XDG_STATE_HOME, for
// writing and for reading only.
func TestTheDefaultJournal(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	if _, err := OpenReadOnly(ctx, ""); !errors.Is(err, ErrNoJournal) {
		t.Fatalf("read-only default before it exists: %v", err)
	}
	j, err := Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if want := filepath.Join(state, "exectriage", "journal.db"); j.Where() != want {
		t.Errorf("Where = %q, want %q", j.Where(), want)
	}
	r, err := OpenReadOnly(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Setenv("XDG_STATE_HOME", "")
	if p, err := DefaultPath(func(k string) string { return "" }); err != nil || !strings.HasSuffix(p, filepath.Join(".local", "state", "exectriage", "journal.db")) {
		t.Errorf("DefaultPath with no HOME = %q %v", p, err)
	}
}

// TestRecordsReadBackAsWritten: updates refuse a state no attempt can move to, a missing
// time, an unknown attempt; a confirmation whose evidence JSON was damaged keeps its provider
// state from its own column; a row of the wrong shape is an error, never a skipped record.
func TestRecordsReadBackAsWritten(t *testing.T) {
	ctx := context.Background()
	j := openT(t, filepath.Join(t.TempDir(), "j.db"))
	s := j.(*store)
	c := claim("log_A", t0)
	mustClaim(t, j, c)
	for name, err := range map[string]error{
		"to intent":       j.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptIntent, "", "", t0),
		"without a time":  j.UpdateAttempt(ctx, c.Attempt.ID, model.AttemptSent, "", "", time.Time{}),
		"unknown attempt": j.UpdateAttempt(ctx, "nope", model.AttemptSent, "", "", t0),
	} {
		if err == nil {
			t.Errorf("update %s: no error", name)
		}
	}
	if err := j.Confirm(ctx, Confirmation{ExecutionID: "log_A", Who: "w", At: t0}); !errors.Is(err, ErrInvalidRecord) {
		t.Errorf("confirmation without a reason: %v", err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE confirmations SET provider_json = '{not json'`); err != nil {
		t.Fatal(err)
	}
	cs, err := j.Confirmations(ctx, "log_A")
	if err != nil || len(cs) != 1 || cs[0].Provider.State != model.ProviderNotFound {
		t.Fatalf("a damaged evidence column: %+v %v", cs, err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE verdicts SET at = 'not a time'`); err != nil {
		t.Fatal(err)
	}
	if err := j.Mark(ctx, VerdictRecord{ExecutionID: "log_A", Verdict: model.VerdictIgnored, Who: "w", At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE verdicts SET at = 'not a time'`); err != nil {
		t.Fatal(err)
	}
	if vs, err := j.Verdicts(ctx, "log_A"); err == nil {
		t.Errorf("a verdict with a damaged time read as %+v", vs)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE confirmations SET at = 'x'`); err != nil {
		t.Fatal(err)
	}
	if cs, err := j.Confirmations(ctx, ""); err == nil {
		t.Errorf("a confirmation with a damaged time read as %+v", cs)
	}
}

// TestAliveTellsAReusedPid: an owner whose pid now belongs to another process (its start time
// differs), or that started in another boot, is told apart from the live one.
func TestAliveTellsAReusedPid(t *testing.T) {
	me := CurrentOwner()
	parts := strings.Split(me.Start, "|")
	if len(parts) != 3 {
		t.Skip("no /proc start times here")
	}
	reused := me
	reused.Start = parts[0] + "|" + parts[1] + "|1"
	if alive, known := Alive(reused); alive || !known {
		t.Errorf("a reused pid: alive=%v known=%v", alive, known)
	}
	otherBoot := me
	otherBoot.Start = "another-boot|" + parts[1] + "|" + parts[2]
	if _, known := Alive(otherBoot); known {
		t.Error("an owner of another boot is known")
	}
	gone := me
	gone.PID = 1 << 30
	if alive, known := Alive(gone); alive || !known {
		t.Errorf("a pid that is gone: alive=%v known=%v", alive, known)
	}
	if processStart(1<<30) != "" {
		t.Error("processStart of no process")
	}
}

// TestLocationsThatCannotHoldAJournal: a journal under a regular file, or in a file that is
// not a database, is a clear error from either open.
func TestLocationsThatCannotHoldAJournal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, filepath.Join(file, "j.db")); err == nil {
		t.Error("a journal under a regular file opened")
	}
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, junk); err == nil {
		t.Error("a file that is not a database opened for writing")
	}
	if _, err := OpenReadOnly(ctx, junk); err == nil {
		t.Error("a file that is not a database opened for reading")
	}
	if b, _ := os.ReadFile(junk); !strings.HasPrefix(string(b), "not sqlite") {
		t.Error("a refused open changed the file")
	}
}
