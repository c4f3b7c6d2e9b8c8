package app

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/internal/hostile"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// With no COMPOSIO_API_KEY the Composio CLI's login is used (api_key and base_url from
// ~/.composio/user_data.json or $COMPOSIO_CACHE_DIR), and the session says where the key came
// from; a uak_ user key goes in x-user-api-key with the org and project, never with x-api-key.
func TestCLILoginIsUsed(t *testing.T) {
	for _, tt := range []struct {
		name, key string
		env       map[string]string
		header    string
		from      string
	}{
		{"project key from the login", "ak_login_project_key_123456", nil, "x-api-key", "the Composio CLI login"},
		{"user key from the login", "uak_login_user_key_123456", map[string]string{"COMPOSIO_ORG_ID": "org_1", "COMPOSIO_PROJECT_ID": "pr_1"}, "x-user-api-key", "the Composio CLI login"},
		{"the environment wins", "ak_login_project_key_123456", map[string]string{"COMPOSIO_API_KEY": "ak_env_key_123456789"}, "x-api-key", "COMPOSIO_API_KEY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := hostile.Serve(t, hostile.JSON(200, `{"logs":[],"next_cursor":null}`))
			home := t.TempDir()
			os.MkdirAll(filepath.Join(home, ".composio"), 0o700)
			os.WriteFile(filepath.Join(home, ".composio", "user_data.json"), []byte(`{"api_key":"`+tt.key+`","base_url":"`+srv.URL+`","web_url":"https://app.example"}`), 0o600)
			env := map[string]string{"HOME": home, "COMPOSIO_BASE_URL": ""}
			maps.Copy(env, tt.env)
			if tt.env["COMPOSIO_API_KEY"] != "" {
				env["COMPOSIO_BASE_URL"] = srv.URL
			}
			cfg := filepath.Join(home, "config.toml")
			os.WriteFile(cfg, nil, 0o600)
			a, err := Open(context.Background(), Options{Getenv: func(k string) string { return env[k] }, ConfigPath: cfg, SinceSet: true})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.SourceKind() != model.SourceLive || !strings.HasPrefix(a.KeyFrom().String(), tt.from) {
				t.Fatalf("source %s, key from %q", a.SourceKind(), a.KeyFrom())
			}
			if _, err := a.LoadAll(context.Background()); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request reached the login's base URL")
			}
			h := reqs[0].Header
			other := map[string]string{"x-api-key": "x-user-api-key", "x-user-api-key": "x-api-key"}[tt.header]
			if h.Get(tt.header) == "" || h.Get(other) != "" {
				t.Errorf("headers %v: want %s only", h, tt.header)
			}
			if tt.header == "x-user-api-key" && (h.Get("x-org-id") != "org_1" || h.Get("x-project-id") != "pr_1") {
				t.Errorf("org/project headers: %v", h)
			}
		})
	}
}

// The Logs API lists entries without their source, so a write whose SDK version re-sends writes
// in one language only needs a detail, which records the language (the demo said
// "language not recorded" of 903 executions whose records carry it): one detail per
// installation names the others (triage.Languages). No note of the demo is conditional, a note
// a record's own detail gives names the record's language, a note read from its installation
// names the language the execution's own detail records (read here for each), and a read gets
// no note (a read sent twice changes nothing). The conditional note stays for a record that
// carries no language at all (a list-response export: TestAConditionalNoteOnlyWithoutALanguage).
func TestNotesNameTheRecordsLanguage(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, nil, 0o600)
	env := map[string]string{"HOME": dir}
	ctx := context.Background()
	a, err := Open(ctx, Options{Demo: true, ConfigPath: cfg, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	l, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	own, fromInstallation, cleared := 0, 0, 0
	for i := range l.Execs {
		e, tr := &l.Execs[i], &l.Result.Triage[i]
		note := tr.OldSDK
		lang := e.Source.Language
		if note == "" && tr.Kind.IsWrite() && triage.NoteNeedsLanguage(e) { // named a language whose SDK does not re-send
			d, err := a.src.Get(ctx, e.ID)
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			if n := triage.OldSDK(&d); n != "" {
				t.Errorf("%s: no note, its detail's is %q", e.ID, n)
			}
			cleared++
		}
		if strings.Contains(note, "(language from ") {
			fromInstallation++
			d, err := a.src.Get(ctx, e.ID)
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			lang = d.Source.Language
		}
		switch {
		case note != "" && !tr.Kind.IsWrite():
			t.Errorf("%s: a %s with the note %q", e.ID, tr.Kind, note)
		case strings.Contains(note, "language not"):
			t.Errorf("%s (%s, detailed %v): %q", e.ID, e.Source.Language, e.Detailed, note)
		case strings.HasPrefix(note, "TypeScript") || strings.HasPrefix(note, "Python"):
			own++
			if lang == "" || !strings.HasPrefix(strings.ToLower(note), strings.ToLower(lang)) {
				t.Errorf("%s: the note %q, the record's language %q", e.ID, note, lang)
			}
		}
	}
	t.Logf("%d notes name a language, %d read from the installation; %d writes of a language that does not re-send", own, fromInstallation, cleared)
	if own < 100 || fromInstallation < own/2 {
		t.Errorf("%d notes name a language, %d of them read from the installation: want every write of a version "+
			"whose answer depends on it, most from the one detail of their installation", own, fromInstallation)
	}
}

// TestAConditionalNoteOnlyWithoutALanguage: a list response saved as an export carries no
// source; a write whose version re-sends in one language only is then noted "if it is …", and
// the same write read from its detail names its language.
func TestAConditionalNoteOnlyWithoutALanguage(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, nil, 0o600)
	entry := `{"id":"log_a","timestamp":"2026-12-01T10:00:00Z","type":"tool.execution","status":"success","level":"info",` +
		`"metadata":{"tool_slug":"GMAIL_SEND_EMAIL","toolkit_slug":"gmail","user_id":"u1","sdk_version":"0.15.0"},"metrics":{"duration_ms":900},"parent":null}`
	detail := strings.TrimSuffix(entry, "}") + `,"context":{},"source":{"host":"sdk","language":"python"},"data":{}}`
	for _, tt := range []struct{ name, body, want string }{
		{"a list response", `{"logs":[` + entry + `],"next_cursor":null}`, "(language not in its list entry)"},
		{"a detail", detail, "Python composio 0.15.0"},
	} {
		p := filepath.Join(dir, "x.json")
		if err := os.WriteFile(p, []byte(tt.body), 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := Open(context.Background(), Options{File: p, ConfigPath: cfg, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		l, err := a.Load(context.Background())
		a.Close()
		if err != nil || len(l.Execs) != 1 {
			t.Fatalf("%s: %v, %d records", tt.name, err, len(l.Execs))
		}
		if note := l.Result.Triage[0].OldSDK; !strings.Contains(note, tt.want) {
			t.Errorf("%s: note %q, want %q", tt.name, note, tt.want)
		}
	}
}

// TestLoginKeyStaysWithItsHost: the Composio CLI login's key (a uak_ user key sees every
// project of its person) goes only to the login's own API; a --base-url, a COMPOSIO_BASE_URL
// or a profile's base URL elsewhere is refused before any request, unless a key is given for
// it (it went to any base URL).
func TestLoginKeyStaysWithItsHost(t *testing.T) {
	own := hostile.Serve(t, hostile.JSON(200, `{"logs":[],"next_cursor":null}`))
	elsewhere := hostile.Serve(t, hostile.JSON(200, `{"logs":[],"next_cursor":null}`))
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".composio"), 0o700)
	os.WriteFile(filepath.Join(home, ".composio", "user_data.json"), []byte(`{"api_key":"uak_login_user_key_123456","base_url":"`+own.URL+`"}`), 0o600)
	cfg := filepath.Join(home, "config.toml")
	os.WriteFile(cfg, []byte("[profiles.far]\nbase_url = \""+elsewhere.URL+"\"\n"), 0o600)
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		o    Options
		env  map[string]string
		ok   bool
	}{
		{"the login's own API", Options{}, nil, true},
		{"--base-url of the login's API", Options{BaseURL: own.URL + "/"}, nil, true},
		{"--base-url elsewhere", Options{BaseURL: elsewhere.URL}, nil, false},
		{"COMPOSIO_BASE_URL elsewhere", Options{}, map[string]string{"COMPOSIO_BASE_URL": elsewhere.URL}, false},
		{"a profile elsewhere without a key of its own", Options{Profile: "far"}, nil, false},
		{"elsewhere with an explicit key", Options{BaseURL: elsewhere.URL}, map[string]string{"COMPOSIO_API_KEY": "ak_explicit_key_123456"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"HOME": home}
			maps.Copy(env, tt.env)
			o := tt.o
			o.Getenv, o.ConfigPath, o.SinceSet = func(k string) string { return env[k] }, cfg, true
			before := len(elsewhere.Requests())
			a, err := Open(ctx, o)
			if tt.ok != (err == nil) {
				t.Fatalf("open: %v, want ok=%v", err, tt.ok)
			}
			if err != nil {
				if !IsUsage(err) || !strings.Contains(err.Error(), "is for "+own.URL) {
					t.Errorf("the refusal: %v", err)
				}
				return
			}
			defer a.Close()
			if _, err := a.LoadAll(ctx); err != nil {
				t.Fatal(err)
			}
			for _, r := range elsewhere.Requests()[before:] {
				if r.Header.Get("x-user-api-key") != "" {
					t.Fatalf("the login's key went to %s", elsewhere.URL)
				}
			}
		})
	}
}
