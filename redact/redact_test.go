package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// Fake secrets with the right shapes; none of them is real.
const (
	composioKey = "ak_9fK2mQx7LpR4vT8wZ1cN"
	githubPAT   = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	githubFine  = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	slackBot    = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
	jwtToken    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	awsKey      = "AKIAIOSFODNN7EXAMPLE"
	stripeLive  = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	openAIKey   = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	googleOAuth = "ya29.a0AfH6SMBx3kLmNoPqRsTuVwXyZ0123456789"
	googleKey   = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
)

func TestStringPatterns(t *testing.T) {
	r := New()
	tests := []struct {
		name, in, want string
	}{
		{"composio key", "key=" + composioKey, "key=[REDACTED:composio_key]"},
		{"composio key in prose", "using " + composioKey + " now", "using [REDACTED:composio_key] now"},
		{"composio user key", "uak_AbCdEfGhIjKlMnOp", "[REDACTED:composio_key]"},
		{"github classic", "token " + githubPAT, "token [REDACTED:github_token]"},
		{"github fine grained", githubFine, "[REDACTED:github_token]"},
		{"github server token", "ghs_" + strings.Repeat("x", 36), "[REDACTED:github_token]"},
		{"slack bot", "slack " + slackBot + ".", "slack [REDACTED:slack_token]."},
		{"slack user", "xoxp-1111-2222-3333-abcdef", "[REDACTED:slack_token]"},
		{"slack app", "xapp-1-A0123-456-abcdef", "[REDACTED:slack_token]"},
		{"slack webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXXXXX ok", "post to [REDACTED:slack_webhook] ok"},
		{"jwt", "id " + jwtToken, "id [REDACTED:jwt]"},
		{"aws", "aws " + awsKey + " key", "aws [REDACTED:aws_access_key] key"},
		{"stripe live", stripeLive, "[REDACTED:stripe_key]"},
		{"stripe test", "sk_test_51HqLyjWDarjtT1zdp7dc", "[REDACTED:stripe_key]"},
		{"openai", "OPENAI " + openAIKey, "OPENAI [REDACTED:llm_api_key]"},
		{"google oauth", googleOAuth, "[REDACTED:google_oauth_token]"},
		{"google api key", googleKey, "[REDACTED:google_api_key]"},
		{"bearer", "Authorization failed for Bearer abc.def-123_456", "Authorization failed for Bearer [REDACTED:bearer]"},
		{"bearer lowercase", "bearer 0123456789abcdef", "bearer [REDACTED:bearer]"},
		{"bearer prose kept", "the bearer authentication scheme", "the bearer authentication scheme"},
		{"url password", "postgres://triage:s3cr3t-pw@db.internal:5432/journal", "postgres://triage:[REDACTED:url_password]@db.internal:5432/journal"},
		{"pem", "key: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY----- after", "key: [REDACTED:private_key] after"},
		{"pem truncated", "-----BEGIN PRIVATE KEY-----\nMIIE", "[REDACTED:private_key]"},
		{"hubspot", "pat-na1-12345678-abcd-abcd-abcd-123456789abc", "[REDACTED:hubspot_token]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Fatalf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStringFields(t *testing.T) {
	r := New()
	tests := []struct {
		name, in, want string
	}{
		{"authorization header", "Authorization: Basic dXNlcjpwYXNz\nnext: line", "Authorization: [REDACTED]\nnext: line"},
		{"cookie header", "Cookie: session=abc; theme=dark", "Cookie: [REDACTED]"},
		{"set-cookie", "set-cookie: sid=1; HttpOnly", "set-cookie: [REDACTED]"},
		{"x-api-key header", "x-api-key: abc123", "x-api-key: [REDACTED]"},
		{"password kv", "login password=hunter2 ok", "login password=[REDACTED] ok"},
		{"query string", "GET /cb?access_token=abc.def&state=xyz", "GET /cb?access_token=[REDACTED]&state=xyz"},
		{"env line", "COMPOSIO_API_KEY=whatever-value", "COMPOSIO_API_KEY=[REDACTED]"},
		{"json text", `{"client_secret":"s3cr3t","client_id":"abc"}`, `{"client_secret":"[REDACTED]","client_id":"abc"}`},
		{"python repr", `{'x-api-key': 'k-1', 'accept': 'json'}`, `{'x-api-key': '[REDACTED]', 'accept': 'json'}`},
		{"escaped json in text", `"{\"password\":\"p\\\"w\",\"user\":\"bob\"}"`, `"{\"password\":\"[REDACTED]\",\"user\":\"bob\"}"`},
		{"cli flag", "--password=hunter2 --user bob", "--password=[REDACTED] --user bob"},
		{"refresh token camel", "refreshToken: 1234abcd", "refreshToken: [REDACTED]"},
		{"null kept", `"password": null`, `"password": null`},
		{"structure left to JSON", `token={"a":1}`, `token={"a":1}`},
		{"url scheme not a field", "secret://example", "secret://example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Fatalf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestBenignTextUnchanged(t *testing.T) {
	r := New()
	benign := []string{
		"ops@example.com",
		"mailto:someone@example.org",
		"3f2b8c1e-9d4a-4b6e-8f1a-2c3d4e5f6a7b",
		"log_-jRTWClpBoVo",
		"log_abc",
		"ca_9kL2mN4pQ6rS", "ac_1a2b3c4d5e6f", "user_123", "trace_0af7651916cd43dd8448eb211c80319c",
		"da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"GMAIL_SEND_EMAIL", "GITHUB_CREATE_AN_ISSUE", "slack_send_message",
		"https://api.example.com/v1/messages?page=2&limit=50",
		"2026-03-01T10:00:00.123Z",
		"duration_ms=61200 status=504",
		"tokens: 1500",
		"max_tokens=4096",
		"nextPageToken=CAEQAA",
		"the token expired",
		"task-force meeting; risk-assessment",
		"ask_me_anything_about_it",
		"desk_lamp_model_12345678",
		"x-request-id: 7c9e6679-7425-40de-944b-e07fc1f90ae7",
		"ghp_short",
		"sk-short",
		"eyJust kidding",
		"AKIA-not-a-key",
		"error: 429 Too Many Requests",
		"pk_live_is_not_secret_prefix_here",
	}
	for _, s := range benign {
		if got := r.String(s); got != s {
			t.Errorf("benign %q changed to %q", s, got)
		}
	}
}

func TestKnownSecretsAlwaysReplaced(t *testing.T) {
	const key = "my-composio-project-key-0001"
	r := New(key, "  short  ", "", "\n"+key+"\n")
	in := "failed with key " + key + " in url https://x/?k=" + key + "&z=1 and " + key + key
	got := r.String(in)
	if strings.Contains(got, key) {
		t.Fatalf("known secret survived: %q", got)
	}
	if !strings.Contains(got, "[REDACTED:known_secret]") {
		t.Fatalf("no known_secret marker: %q", got)
	}
	if r.String("short and sweet") != "short and sweet" {
		t.Fatal("a known secret shorter than MinKnownLen redacted ordinary text")
	}
}

func TestKnownSecretThatLooksLikeTheMarker(t *testing.T) {
	r := New("REDACTED:known", "DACTED")
	for _, in := range []string{"REDACTED:known", "xREDACTED:knownx", "DACTED", "[REDACTED:known_secret]"} {
		got := r.String(in)
		if strings.Contains(got, "REDACTED:known") || strings.Contains(got, "DACTED") {
			t.Fatalf("String(%q) = %q still holds a known secret", in, got)
		}
		j := r.JSON(json.RawMessage(`{"a":"` + in + `"}`))
		if strings.Contains(string(j), "DACTED") || !json.Valid(j) {
			t.Fatalf("JSON(%q) = %s", in, j)
		}
	}
}

func TestJSON(t *testing.T) {
	r := New("known-secret-value-xyz")
	tests := []struct {
		name, in, want string
	}{
		{"sensitive fields", `{"to":"a@b.c","password":"p","api_key":"k","Access-Token":"t","nested":{"client_secret":"s"}}`,
			`{"to":"a@b.c","password":"[REDACTED]","api_key":"[REDACTED]","Access-Token":"[REDACTED]","nested":{"client_secret":"[REDACTED]"}}`},
		{"sensitive object and number", `{"credentials":{"user":"u","pass":"p"},"token":12345,"secret":null,"password":"","private_key":true}`,
			`{"credentials":"[REDACTED]","token":"[REDACTED]","secret":null,"password":"","private_key":true}`},
		{"key order and duplicates kept", `{"b":1,"a":2,"b":3}`, `{"b":1,"a":2,"b":3}`},
		{"numbers kept as written", `{"n":1.50,"big":123456789012345678901234567890,"e":1e-7}`, `{"n":1.50,"big":123456789012345678901234567890,"e":1e-7}`},
		{"patterns in values", `{"body":"use ` + githubPAT + ` please","ids":["log_abc","ca_1"]}`,
			`{"body":"use [REDACTED:github_token] please","ids":["log_abc","ca_1"]}`},
		{"header pairs", `{"parameters":[{"name":"Authorization","type":"header","value":"Bearer x"},{"name":"page","type":"query","value":"2"}]}`,
			`{"parameters":[{"name":"Authorization","type":"header","value":"[REDACTED]"},{"name":"page","type":"query","value":"2"}]}`},
		{"headers map", `{"headers":{"X-Api-Key":"k","Set-Cookie":["a=1","b=2"],"content-type":"json"}}`,
			`{"headers":{"X-Api-Key":"[REDACTED]","Set-Cookie":"[REDACTED]","content-type":"json"}}`},
		{"known in key and number", `{"known-secret-value-xyz":"v"}`, `{"[REDACTED:known_secret]":"v"}`},
		{"text with field inside string", `{"message":"login failed password=hunter2"}`, `{"message":"login failed password=[REDACTED]"}`},
		{"unicode escapes decoded first", `{"k":"\u0061k_9fK2mQx7LpR4vT8wZ1cN"}`, `{"k":"[REDACTED:composio_key]"}`},
		{"html not escaped", `{"html":"<b>&</b>"}`, `{"html":"<b>&</b>"}`},
		{"control escapes kept valid", `{"s":"a\u001bb\n"}`, `{"s":"a\u001bb\n"}`},
		{"scalar root", `"Bearer 0123456789abcdef"`, `"Bearer [REDACTED:bearer]"`},
		{"array root", `[1,"x",null]`, `[1,"x",null]`},
		{"whitespace compacted", "{ \"a\" : [ 1 , 2 ] }", `{"a":[1,2]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.JSON(json.RawMessage(tt.in))
			if string(got) != tt.want {
				t.Fatalf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if !json.Valid(got) {
				t.Fatalf("output is not valid JSON: %s", got)
			}
		})
	}
}

func TestJSONInvalidInputBecomesRedactedString(t *testing.T) {
	r := New()
	for _, in := range []string{`{"password": "x"`, `not json ` + githubPAT, `{} {}`, "\xff\xfe"} {
		got := r.JSON(json.RawMessage(in))
		if !json.Valid(got) {
			t.Fatalf("JSON(%q) = %q is not valid JSON", in, got)
		}
		var s string
		if err := json.Unmarshal(got, &s); err != nil {
			t.Fatalf("JSON(%q) = %s is not a string: %v", in, got, err)
		}
		if strings.Contains(s, githubPAT) || strings.Contains(s, `"x"`) {
			t.Fatalf("JSON(%q) leaked: %s", in, got)
		}
	}
	if got := r.JSON(nil); got != nil {
		t.Fatalf("empty input: got %q", got)
	}
}

func TestJSONDeepNesting(t *testing.T) {
	r := New()
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	got := r.JSON(json.RawMessage(deep))
	if !json.Valid(got) {
		t.Fatal("deep input did not produce valid JSON")
	}
	ok := strings.Repeat(`{"a":`, 500) + `"ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"` + strings.Repeat("}", 500)
	got = r.JSON(json.RawMessage(ok))
	if strings.Contains(string(got), "ghp_") || !json.Valid(got) {
		t.Fatal("nested secret not redacted")
	}
}

func TestIsSensitiveName(t *testing.T) {
	yes := []string{"password", "PASSWORD", "passwd", "pwd", "secret", "token", "api_key", "apiKey", "API-KEY", "apikey",
		"access_token", "accessToken", "refresh-token", "client_secret", "ClientSecret", "private_key", "authorization",
		"Proxy-Authorization", "cookie", "Set-Cookie", "x-api-key", "X-User-Api-Key", "COMPOSIO_API_KEY",
		"aws_secret_access_key", "db_password", "x-amz-security-token", "id_token", "credentials", "webhook_secret"}
	no := []string{"id", "name", "user_id", "tokens", "max_tokens", "token_count", "token_type", "nextPageToken",
		"page_token", "secret_name", "key", "idempotency_key", "passage", "authored_by", "email_signature", "status"}
	for _, n := range yes {
		if !IsSensitiveName(n) {
			t.Errorf("IsSensitiveName(%q) = false, want true", n)
		}
	}
	for _, n := range no {
		if IsSensitiveName(n) {
			t.Errorf("IsSensitiveName(%q) = true, want false", n)
		}
	}
}

func TestNilRedactorRedactsByPattern(t *testing.T) {
	var r *Redactor
	if got := r.String("k " + composioKey); got != "k [REDACTED:composio_key]" {
		t.Fatalf("nil redactor: %q", got)
	}
	if got := string(r.JSON(json.RawMessage(`{"token":"x"}`))); got != `{"token":"[REDACTED]"}` {
		t.Fatalf("nil redactor JSON: %s", got)
	}
}

func TestPlainTextDoesNotAllocate(t *testing.T) {
	r := New("known-secret-value-xyz")
	s := "GMAIL SEND EMAIL success in 202 ms"
	if n := testing.AllocsPerRun(100, func() { _ = r.String(s) }); n != 0 {
		t.Fatalf("String allocated %v times on text with nothing to redact", n)
	}
}

func BenchmarkStringLogLine(b *testing.B) {
	r := New("known-secret-value-xyz")
	s := `2026-03-01T10:00:00Z log_-jRTWClpBoVo GMAIL_SEND_EMAIL status=failed error="504 Gateway Timeout" user_id=user_123 connected_account_id=ca_9kL2mN4pQ6rS`
	for b.Loop() {
		_ = r.String(s)
	}
}

func BenchmarkJSONRecord(b *testing.B) {
	r := New("known-secret-value-xyz")
	raw := json.RawMessage(`{"id":"log_-jRTWClpBoVo","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","user_id":"user_123"},"data":{"request":{"arguments":{"recipient_email":"a@b.c","subject":"Hello","body":"Hi there, see you tomorrow."}},"response":{"successful":false,"error":"timeout"}},"headers":{"x-api-key":"ak_9fK2mQx7LpR4vT8wZ1cN"}}`)
	for b.Loop() {
		_ = r.JSON(raw)
	}
}

// TestSessionIDsAreNotSecrets: a tool-router session id (session_id "trs_…") shows,
// so a support engineer can copy it and look the session up; a web session id, a trs_ value
// that carries anything else, and every secret shape inside it stay hidden.
func TestSessionIDsAreNotSecrets(t *testing.T) {
	r := New("k-known-SECRET")
	tests := []struct {
		in   string
		show bool
	}{
		{`{"context":{"session_id":"trs_3fQ0a1b2c3d4e5f6g7h8"}}`, true},
		{`{"sessionId":"trs_AbC123-dEf_456"}`, true},
		{`{"session_id":"s%3Aabcdef.signature"}`, false},                // a web session cookie
		{`{"session_id":"trs_x k-known-SECRET"}`, false},                // not an id: hidden
		{`{"session_id":"trs_` + strings.Repeat("a", 80) + `"}`, false}, // too long for an id
		{`{"session_key":"trs_abc"}`, false},
	}
	for _, tt := range tests {
		out := string(r.JSON([]byte(tt.in)))
		if shown := !strings.Contains(out, Marker); shown != tt.show {
			t.Errorf("%s -> %s: shown %v, want %v", tt.in, out, shown, tt.show)
		}
		if strings.Contains(out, "SECRET") {
			t.Errorf("%s -> %s: the key shows", tt.in, out)
		}
	}
}
