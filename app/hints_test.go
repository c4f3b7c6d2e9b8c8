package app

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/triage"
)

// A hint's command line reads what the session reads: the demo, the export (by its absolute
// path, quoted for a shell), the profile, the journal named (a PostgreSQL one without its
// password).
func TestSessionArgs(t *testing.T) {
	abs, err := filepath.Abs("exports/June 2026.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "" }
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"demo", Options{Demo: true, Getenv: env}, "exectriage --demo resolve A1"},
		{"journal --demo", Options{Demo: true, JournalOnly: true, Getenv: env}, "exectriage --demo resolve A1"},
		{"a file", Options{File: "exports/June 2026.jsonl", Getenv: env}, "exectriage --file '" + abs + "' resolve A1"},
		{"a file checked against an API", Options{File: "/x/e.jsonl", BaseURL: "https://backend.example/api", Getenv: env}, "exectriage --file /x/e.jsonl --base-url https://backend.example/api resolve A1"},
		{"a profile", Options{Profile: "prod", Getenv: func(k string) string { return map[string]string{"COMPOSIO_API_KEY": "ak_x"}[k] }}, "exectriage --profile prod resolve A1"},
		{"a SQLite journal", Options{Journal: "/var/j's.db", File: "/e.jsonl", Getenv: env}, `exectriage --file /e.jsonl --journal '/var/j'\''s.db' resolve A1`},
		{"a PostgreSQL journal", Options{Journal: "postgres://ana:s3cret@db.example/triage", File: "/e.jsonl", Getenv: env}, "--journal postgres://ana:xxxxx@db.example/triage resolve A1"},
		{"a base URL with a credential", Options{File: "/e.jsonl", BaseURL: "https://ana:s3cret@backend.example/api?api_key=s3cret", Getenv: env}, "--base-url 'https://ana:xxxxx@backend.example/api?api_key=xxxxx' resolve A1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := triage.CommandLine(SessionArgsOf(tt.o), "resolve", "A1")
			if !strings.Contains(got, tt.want) || strings.Contains(got, "s3cret") {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The retry dialog shows what will be sent, arguments included, whole up to a bound (it
// scrolls), and cuts a longer one on a rune boundary, saying how much is left (it
// was cut at 160 bytes, possibly inside a character).
func TestSendPreviewShowsTheArguments(t *testing.T) {
	body := strings.Repeat("é", 1000) // 2,000 bytes
	e := &model.Execution{ToolSlug: "GMAIL_SEND_EMAIL", Arguments: []byte(`{"body":"` + body + `","to":"a@b.example"}`)}
	got := strings.Join(sendPreview(e, redact.NewPolicy("").Redactor()).Lines(), "\n")
	if !strings.Contains(got, body) || !strings.Contains(got, `"to":"a@b.example"`) {
		t.Errorf("the arguments are not shown whole:\n%.300s", got)
	}
	e.Arguments = []byte(`{"body":"` + strings.Repeat("é", 3000) + `"}`)
	got = strings.Join(sendPreview(e, redact.NewPolicy("").Redactor()).Lines(), "\n")
	if !utf8.ValidString(got) || !strings.Contains(got, "more bytes)") {
		t.Errorf("a long argument is not cut cleanly: valid %v, %q", utf8.ValidString(got), got[len(got)-200:])
	}
}
