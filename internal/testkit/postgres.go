package testkit

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// FreshPostgresSchema creates a schema of its own for one test (named prefix + a UUID, so the
// packages sharing a database can be told apart), drops it when the test ends, and returns a
// DSN whose search_path selects it, so tests never see each other's rows.
func FreshPostgresSchema(t testing.TB, dsn, prefix string) string {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := prefix + strings.ReplaceAll(uuid.NewString(), "-", "")
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		db.Close()
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		db.Close()
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

// PostgresOrSkip returns a fresh schema (FreshPostgresSchema) on the PostgreSQL server named
// by EXECTRIAGE_TEST_POSTGRES, or skips the test saying how to run it.
func PostgresOrSkip(t testing.TB, prefix string) string {
	t.Helper()
	dsn := os.Getenv("EXECTRIAGE_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("set EXECTRIAGE_TEST_POSTGRES to a PostgreSQL DSN to run the PostgreSQL journal tests, e.g. " +
			`eval "$(bash scripts/start-postgres.sh)" && go test ./journal/ ./retry/ ./e2e/`)
	}
	return FreshPostgresSchema(t, dsn, prefix)
}
