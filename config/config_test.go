package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/verify"
)

const goodConfig = `# exectriage config
[defaults]
window = "15m"
caller_timeout = 90          # seconds
volatile_keys = ["timestamp", "attempt"]

[theme]
accent = "#7D56F4"
warning = "208"

[keys]
retry = ["R"]
quit = ["q", "ctrl+c"]

[[verifier]]
tool = "OUTLOOK_SEND_EMAIL"
read_tool = "OUTLOOK_LIST_MESSAGES"
items = "data.value"
time_field = "sentDateTime"
page_size = 50
arguments = { folder = "sentitems", search = "\"{{.subject}}\"", top = 50, since = "{{._since}}" }
match = { "toRecipients.0.emailAddress.address" = "{{.to_email}}", subject = "{{.subject}}" }

[[verifier]]
tool = "GMAIL_SEND_EMAIL"        # replaces the built-in
read_tool = "GMAIL_FETCH_EMAILS"
arguments = { query = "to:{{.recipient_email}} subject:\"{{.subject}}\"", max_results = 10 }
[verifier.contains]
messageText = "{{.body}}"
`

func TestParseConfigGood(t *testing.T) {
	c, err := Parse("config.toml", []byte(goodConfig))
	if err != nil {
		t.Fatal(err)
	}
	opt := c.Options()
	if opt.Window != 15*time.Minute || opt.CallerTimeout != 90*time.Second {
		t.Errorf("options = %+v", opt)
	}
	if !slices.Equal(opt.VolatileKeys, []string{"timestamp", "attempt"}) {
		t.Errorf("volatile keys = %v", opt.VolatileKeys)
	}
	if c.Theme["accent"] != "#7D56F4" || !slices.Equal(c.Keys["quit"], []string{"q", "ctrl+c"}) {
		t.Errorf("theme/keys = %v %v", c.Theme, c.Keys)
	}
	if len(c.Verifiers) != 2 || c.Verifiers[0].Items != "data.value" || c.Verifiers[1].Contains["messageText"] != "{{.body}}" {
		t.Errorf("verifiers = %+v", c.Verifiers)
	}
	v := verify.NewVerifiers(nil, c.Verifiers)
	if !v.Has("OUTLOOK_SEND_EMAIL") || v.ReadTool("outlook_send_email") != "OUTLOOK_LIST_MESSAGES" {
		t.Error("config verifier not registered")
	}
}

func TestParseConfigDefaultsWhenEmpty(t *testing.T) {
	c, err := Parse("empty.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := c.Options()
	if opt.Window != triage.DefaultWindow || opt.CallerTimeout != triage.DefaultCallerTimeout || len(opt.VolatileKeys) == 0 {
		t.Errorf("empty config options = %+v", opt)
	}
}

func TestParseConfigBad(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // substring of the error, which must start with the file name and line
	}{
		{"syntax", "[defaults]\nwindow = \"10m\"\nthis is not toml\n", "bad.toml:3:"},
		{"bad duration", "[defaults]\n\nwindow = \"ten minutes\"\n", "bad.toml:3: defaults.window"},
		{"negative duration", "[defaults]\ncaller_timeout = \"-5s\"\n", "negative"},
		{"wrong type", "[keys]\nquit = 5\n", "bad.toml:2:"},
		{"unknown key", "[defaults]\nwindow = \"10m\"\nwindw = \"5m\"\n", `bad.toml:3: unknown key "defaults.windw"`},
		{"unknown section", "[colours]\naccent = \"red\"\n", `bad.toml:1: unknown key "colours`},
		{"verifier without read tool", "[defaults]\n\n[[verifier]]\ntool = \"X_SEND\"\nmatch = { a = \"b\" }\n", "bad.toml:3: verifier 1: read_tool is missing"},
		{"verifier running a write", "[[verifier]]\ntool = \"X_SEND\"\nread_tool = \"X_SEND_AGAIN\"\nmatch = { a = \"b\" }\n", "does not look like a read"},
		{"verifier without match", "[[verifier]]\ntool = \"X_SEND\"\nread_tool = \"X_LIST\"\n", "match or contains is missing"},
		{"verifier bad template", "[[verifier]]\ntool = \"X_SEND\"\nread_tool = \"X_LIST\"\nmatch = { a = \"{{.b\" }\n", "match.a"},
		{"verifier bad argument template", "[[verifier]]\ntool = \"X_SEND\"\nread_tool = \"X_LIST\"\nmatch = { a = \"b\" }\narguments = { q = \"{{if}}\" }\n", "arguments.q"},
		{"second verifier located", "[[verifier]]\ntool = \"X_SEND\"\nread_tool = \"X_LIST\"\nmatch = { a = \"b\" }\n\n[[verifier]]\ntool = \"Y_SEND\"\n", "bad.toml:6: verifier 2: read_tool is missing"},
		{"duplicate verifier", "[[verifier]]\ntool = \"X_SEND\"\nread_tool = \"X_LIST\"\nmatch = { a = \"b\" }\n[[verifier]]\ntool = \"x_send\"\nread_tool = \"X_LIST\"\nmatch = { a = \"b\" }\n", "already has verifier 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tt.text))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "bad.toml") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to start with the file name and contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadConfigFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte(goodConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil || c.Path != p || len(c.Verifiers) != 2 {
		t.Fatalf("Load(%s) = %+v, %v", p, c, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("named missing file: err = %v, want not-exist", err)
	}
	// The default location: a missing file is no config at all.
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "nothing-here"))
	t.Setenv("HOME", filepath.Join(dir, "nothing-here"))
	t.Setenv("AppData", filepath.Join(dir, "nothing-here"))
	c, err = Load("")
	if err != nil || len(c.Verifiers) != 0 {
		t.Errorf("default missing config: %+v, %v", c, err)
	}
	// The default location, present.
	cfgDir := filepath.Join(dir, "xdg")
	if err := os.MkdirAll(filepath.Join(cfgDir, "exectriage"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "exectriage", "config.toml"), []byte("[defaults]\nwindow = \"2m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	if def, err := DefaultPath(); err == nil && strings.HasPrefix(def, cfgDir) {
		c, err = Load("")
		if err != nil || c.Options().Window != 2*time.Minute {
			t.Errorf("default config: %+v, %v", c, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"90s", 90 * time.Second, false},
		{"1h30m", 90 * time.Minute, false},
		{"7d", 7 * 24 * time.Hour, false},
		{"2w", 14 * 24 * time.Hour, false},
		{"1d12h", 36 * time.Hour, false},
		{"1w2d3h", (9*24 + 3) * time.Hour, false},
		{"0.5d", 12 * time.Hour, false},
		{" 24h ", 24 * time.Hour, false},
		{"0", 0, false},
		{"", 0, true},
		{"d", 0, true},
		{"7days", 0, true},
		{"-1d", 0, true},
		{"-5s", 0, true},
		{"ten minutes", 0, true},
	} {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.bad || !tt.bad && got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestProfilesParse(t *testing.T) {
	c, err := Parse("p.toml", []byte("[profiles.prod]\nbase_url = \"https://x\"\napi_key_env = \"K_PROD\"\njournal = \"postgres://db/x\"\nproduction = true\ncolour = \"#f00\"\n"))
	if err != nil || !c.Profiles["prod"].Production || c.Profiles["prod"].APIKeyEnv != "K_PROD" {
		t.Fatalf("%+v %v", c.Profiles, err)
	}
	for _, bad := range []string{
		"[profiles.p]\napi_key_env = \"ak_live_123 secret\"\n", // a key where its variable's name goes
		"[profiles.p]\ncolour = \"red\"\n",
		"[profiles.p]\napi_key = \"x\"\n", // unknown key: the key itself never goes in the file
	} {
		if _, err := Parse("p.toml", []byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestAKeyWhereItsVariableGoesIsNeverShown: a profile whose api_key_env holds the key itself
// (it has a variable's shape: letters, digits, underscores) was accepted, and every message
// about it printed the key.
func TestAKeyWhereItsVariableGoesIsNeverShown(t *testing.T) {
	for _, key := range []string{"ak_9sD2kLmQ0xYzTr", "uak_Jq7Vx2mPz9", "sk_live_abc123"} {
		_, err := Parse("p.toml", []byte("[profiles.p]\napi_key_env = \""+key+"\"\n"))
		if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "api_key_env") {
			t.Errorf("api_key_env = key: %v", err)
		}
	}
	if _, err := Parse("p.toml", []byte("[profiles.p]\napi_key_env = \"COMPOSIO_API_KEY_2\"\n")); err != nil {
		t.Fatal(err)
	}
}

func TestDashboardLogURL(t *testing.T) {
	c, err := Parse("d.toml", []byte("[dashboard]\nlog_url = \"https://dash.example/acme/proj/logs/{log_id}\"\n[profiles.p]\ndashboard_log_url = \"http://127.0.0.1:9/p/{log_id}?tab=1\"\n"))
	if err != nil || c.Dashboard.LogURL == "" || c.Profiles["p"].DashboardLogURL == "" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, tt := range []struct{ text, want string }{
		{"[dashboard]\nlog_url = \"https://dash.example/logs\"\n", "exactly once"},
		{"[dashboard]\nlog_url = \"https://dash.example/{log_id}/{log_id}\"\n", "exactly once"},
		{"[dashboard]\nlog_url = \"https://dash.example/{org}/{log_id}\"\n", "other than"},
		{"[dashboard]\nlog_url = \"javascript:alert(1)//{log_id}\"\n", "http(s)"},
		{"[dashboard]\nlog_url = \"file:///etc/{log_id}\"\n", "http(s)"},
		{"[dashboard]\nlog_url = \"https://user:pw@dash.example/{log_id}\"\n", "no user"},
		{"[dashboard]\nlog_url = \"/logs/{log_id}\"\n", "with a host"},
		{"[profiles.p]\ndashboard_log_url = \"https://x/logs\"\n", "profiles.p: dashboard_log_url"},
	} {
		_, err := Parse("d.toml", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.text, err, tt.want)
		}
	}
}
