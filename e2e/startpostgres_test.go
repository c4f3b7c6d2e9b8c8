package e2e

import (
	"context"
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// TestStartPostgresMovesPastABusyPort runs the script CI uses to start PostgreSQL with its default
// port already taken, as on a shared machine where another cluster or program holds it: the
// script must start on another port and print that port's DSN, not fail the run (it did: CI
// failed when 55432 was in use). Run with EXECTRIAGE_TEST_POSTGRES set, as PostgreSQL is then
// installed.
func TestStartPostgresMovesPastABusyPort(t *testing.T) {
	if os.Getenv("EXECTRIAGE_TEST_POSTGRES") == "" {
		t.Skip("set EXECTRIAGE_TEST_POSTGRES (PostgreSQL installed) to test scripts/start-postgres.sh")
	}
	// Hold the default port when it is free; when it is not, it is busy already.
	if l, err := net.Listen("tcp", "127.0.0.1:55432"); err == nil {
		t.Cleanup(func() { l.Close() })
	}
	// As root the cluster runs as the postgres user, which must reach the directory.
	parent, err := os.MkdirTemp("", "exectriage-pgscript-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "pg")
	script, err := filepath.Abs("../scripts/start-postgres.sh")
	if err != nil {
		t.Fatal(err)
	}
	envv := append(os.Environ(), "EXECTRIAGE_PG_DIR="+dir, "EXECTRIAGE_PG_PORT=")
	t.Cleanup(func() {
		stop := exec.Command("bash", script, "stop")
		stop.Env = envv
		if out, err := stop.CombinedOutput(); err != nil {
			t.Errorf("stop: %v\n%s", err, out)
		}
		os.RemoveAll(parent)
	})
	run := func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", script)
		cmd.Env = envv
		var stderr []byte
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		if err != nil {
			t.Fatalf("start-postgres.sh: %v\n%s", err, stderr)
		}
		return string(out)
	}
	out := run()
	m := regexp.MustCompile(`^export EXECTRIAGE_TEST_POSTGRES='(postgres://postgres@127\.0\.0\.1:(\d+)/exectriage_test\?sslmode=disable)'\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("start-postgres.sh printed %q, want one export line", out)
	}
	if m[2] == "55432" {
		t.Fatalf("the DSN names the busy port 55432: %s", m[1])
	}
	db, err := sql.Open("pgx", m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatalf("the printed DSN does not connect: %v", err)
	}
	// Run again with the cluster up: the same line, not a second server on the same data.
	if again := run(); again != out {
		t.Fatalf("second run printed %q, want %q", again, out)
	}
}
