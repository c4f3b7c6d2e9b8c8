package phrase

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWhatASessionUsesInWords: each record app returns about a session is said one way, and its
// JSON is those words (info --json says what info says).
func TestWhatASessionUsesInWords(t *testing.T) {
	for _, tt := range []struct {
		name string
		got  string
		want string
	}{
		{"env key", KeyFrom{Env: "COMPOSIO_API_KEY"}.String(), "COMPOSIO_API_KEY"},
		{"profile key", KeyFrom{Env: "COMPOSIO_API_KEY_PROD", Profile: "prod"}.String(), "$COMPOSIO_API_KEY_PROD (profile prod)"},
		{"login key", KeyFrom{Login: "/h/.composio/user_data.json"}.String(), "the Composio CLI login (/h/.composio/user_data.json)"},
		{"no key", KeyFrom{}.Label(), "none (no COMPOSIO_API_KEY, no Composio CLI login)"},
		{"flag", SourceWhy{By: "--file"}.String(), "--file"},
		{"demo by default", SourceWhy{By: "--demo", NoKey: true}.String(), "no API key and no local sandbox at COMPOSIO_BASE_URL"},
		{"public API", SourceWhy{PublicAPI: true, Key: KeyFrom{Env: "COMPOSIO_API_KEY"}}.String(),
			"the public API, key from COMPOSIO_API_KEY"},
		{"sqlite guards", Guards{}.String(), "this machine's processes that use the same file"},
		{"postgres guards", Guards{Postgres: true}.Sentence(), "guards everyone who uses it"},
		{"unguarded", Guards{Postgres: true, Unguarded: errors.New("no index")}.Sentence(), "guards nothing: no index"},
		{"rate wait", RateWait(12400*time.Millisecond, 2000, true), "waiting 12s for the API's rate limit (2000 requests a window, answered 429)"},
		{"rate wait narrow", RateWaitForms(12*time.Second, 2000, false)[2], "rate limit: 12s"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	b, err := json.Marshal(struct {
		K KeyFrom   `json:"k"`
		W SourceWhy `json:"w"`
		G Guards    `json:"g"`
	}{W: SourceWhy{By: "--demo"}, G: Guards{Postgres: true}})
	if err != nil || string(b) != `{"k":"none (no COMPOSIO_API_KEY, no Composio CLI login)","w":"--demo","g":"everyone who uses it"}` {
		t.Errorf("JSON %s %v", b, err)
	}
}

// TestASendSaysWhatGoesOut: the retry dialog's lines name the request once through the no-retry
// client, the arguments with how much was cut, and the journal that guards it only when one does.
func TestASendSaysWhatGoesOut(t *testing.T) {
	s := Send{Slug: "GMAIL_SEND_EMAIL", VersionNote: "20250909_00", Account: "ca_1", Args: `{"a":1}`, More: 12}
	got := strings.Join(s.Lines(), "\n")
	for _, want := range []string{"POST tools/execute/GMAIL_SEND_EMAIL, once, through the no-retry client", "account ca_1 · user -",
		`arguments {"a":1}… (12 more bytes)`, "x-request-id = a new attempt id"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "guarded by") {
		t.Errorf("no journal, yet:\n%s", got)
	}
	s.Journal = "SQLite journal"
	if l := s.Lines(); l[len(l)-1] != "guarded by the SQLite journal: guards this machine only; teammates on other journals are not guarded "+
		"(share one PostgreSQL journal)" {
		t.Errorf("last line %q", l[len(l)-1])
	}
	if c := (Curl{Slug: "A B", Plain: false}).String(); !strings.HasPrefix(c, "# no curl") || strings.Contains(c, "curl -sS") {
		t.Errorf("a hostile slug: %q", c)
	}
	if c := (Curl{}).String(); c != "" {
		t.Errorf("the zero Curl: %q", c)
	}
}

// TestOnePreambleForBothFronts: the login's key on a live source and an unread team index are
// said once, in these words, by the CLI (stderr) and the TUI (its notice); a demo's or a file's
// session has no key to name.
func TestOnePreambleForBothFronts(t *testing.T) {
	login := KeyFrom{Login: "/h/.composio/user_data.json"}
	got := Preamble(true, login, errors.New("team index: connection refused"))
	if len(got) != 2 || got[0] != "using the API key of the Composio CLI login (/h/.composio/user_data.json) (COMPOSIO_API_KEY is not set)" ||
		got[1] != "team index: connection refused: reading the API instead" {
		t.Errorf("%q", got)
	}
	if got := Preamble(false, login, nil); got != nil {
		t.Errorf("a demo's session: %q", got)
	}
	if got := Preamble(true, KeyFrom{Env: "COMPOSIO_API_KEY"}, nil); got != nil {
		t.Errorf("the variable's key: %q", got)
	}
}
