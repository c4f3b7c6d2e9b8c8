package redact

import (
	"strings"
	"testing"
)

// One password rule for every location a person sees (sslpassword in a DSN was
// printed by info and journal, a password inside the base URL by info).
func TestLocationHidesEveryCredential(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:s3cret@h:5432/db?sslmode=disable":              "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgresql://h/db?password=s3cret":                          "postgresql://h/db?password=xxxxx",
		"postgresql://h/db?sslpassword=s3cret&sslmode=verify-full":   "postgresql://h/db?sslmode=verify-full&sslpassword=xxxxx",
		"host=h dbname=d user=u password=s3cret sslmode=disable":     "host=h dbname=d user=u password=xxxxx sslmode=disable",
		"host=h dbname=d sslpassword='s3 cret' sslkey=/k/client.key": "host=h dbname=d sslpassword=xxxxx sslkey=/k/client.key",
		"https://ana:s3cret@backend.example/api":                     "https://ana:xxxxx@backend.example/api",
		"https://backend.example/?api_key=s3cret&x=1":                "https://backend.example/?api_key=xxxxx&x=1",
		"postgres://u@h/db":                            "postgres://u@h/db",
		"/home/ana/.local/state/exectriage/journal.db": "/home/ana/.local/state/exectriage/journal.db",
	} {
		got := Location(in)
		if got != want || strings.Contains(got, "s3") {
			t.Errorf("Location(%q) = %q, want %q", in, got, want)
		}
	}
	for _, dsn := range []string{"postgres://u:s3cretpw@h/db", "host=h sslpassword=s3cretpw", "postgres://h/db?sslpassword=s3cretpw"} {
		if got := ScrubLocation("failed to connect to "+dsn+" (s3cretpw)", dsn); strings.Contains(got, "s3cretpw") {
			t.Errorf("ScrubLocation left the password: %q", got)
		}
	}
}
