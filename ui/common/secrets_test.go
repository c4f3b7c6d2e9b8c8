package common

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	testKey    = "ak_TestConfiguredKey123456"
	testGitHub = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	testSlack  = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
)

func TestSecretsText(t *testing.T) {
	sec := NewSecrets(testKey)
	tests := []struct {
		name, in     string
		reveal       bool
		gone, kept   []string
		wantContains string
	}{
		{"pattern hidden", "push with " + testGitHub, false, []string{testGitHub}, []string{"push with"}, "[REDACTED:github_token]"},
		{"pattern revealed", "push with " + testGitHub, true, nil, []string{testGitHub}, ""},
		{"header hidden", "Authorization: Bearer abcdefgh12345678", false, []string{"abcdefgh12345678"}, nil, "[REDACTED"},
		{"header revealed", "Authorization: Bearer abcdefgh12345678", true, nil, []string{"abcdefgh12345678"}, ""},
		{"known key hidden", "key " + testKey + " and " + testSlack, false, []string{testKey, testSlack}, nil, "[REDACTED"},
		{"known key stays hidden when revealed", "key " + testKey + " and " + testSlack, true, []string{testKey}, []string{testSlack}, KnownMarker},
		{"known key inside a word", "x" + testKey + "y", true, []string{testKey}, nil, KnownMarker},
		{"plain text unchanged", "hello world", true, nil, []string{"hello world"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sec.Text(tt.in, tt.reveal)
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("Text(%q, %v) = %q still holds %q", tt.in, tt.reveal, got, g)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(got, k) {
					t.Errorf("Text(%q, %v) = %q lost %q", tt.in, tt.reveal, got, k)
				}
			}
			if tt.wantContains != "" && !strings.Contains(got, tt.wantContains) {
				t.Errorf("Text(%q, %v) = %q, want it to contain %q", tt.in, tt.reveal, got, tt.wantContains)
			}
		})
	}
}

func TestSecretsJSON(t *testing.T) {
	sec := NewSecrets(testKey)
	tests := []struct {
		name       string
		raw        string
		reveal     bool
		gone, kept []string
	}{
		{"fields hidden", `{"api_key":"k3y-of-another-service","password":"hunter22","q":"x"}`, false, []string{"k3y-of-another-service", "hunter22"}, []string{`"q":"x"`}},
		{"fields revealed", `{"api_key":"k3y-of-another-service","password":"hunter22"}`, true, nil, []string{"k3y-of-another-service", "hunter22"}},
		{"known key revealed stays hidden", `{"api_key":"` + testKey + `","t":"` + testSlack + `"}`, true, []string{testKey}, []string{testSlack}},
		{"known key as a number-looking key", `{"k":"` + testKey + `"}`, false, []string{testKey}, nil},
		// \u005f is "_": the key spelled with a JSON escape is still the key; the value is
		// then redacted as a whole rather than partly revealed.
		{"escaped known key revealed", `{"k":"ak\u005fTestConfiguredKey123456","t":"` + testSlack + `"}`, true, []string{"TestConfiguredKey123456"}, nil},
		{"escaped slash", `{"k":"ak_Test\/x"}`, true, nil, []string{`ak_Test\/x`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(sec.JSON(json.RawMessage(tt.raw), tt.reveal))
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("JSON(%s, %v) = %s still holds %q", tt.raw, tt.reveal, got, g)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(got, k) {
					t.Errorf("JSON(%s, %v) = %s lost %q", tt.raw, tt.reveal, got, k)
				}
			}
		})
	}
}

func TestSecretsEdgeCases(t *testing.T) {
	var none *Secrets
	if got := none.Text("tok "+testGitHub, false); strings.Contains(got, testGitHub) {
		t.Errorf("a nil Secrets does not redact by pattern: %q", got)
	}
	if got := none.Text("tok "+testGitHub, true); got != "tok "+testGitHub {
		t.Errorf("a nil Secrets changed revealed text: %q", got)
	}
	// A known secret that is part of the marker must not loop or survive.
	odd := NewSecrets("REDACTED")
	if got := odd.Text("a REDACTED b", true); strings.Contains(got, "REDACTED") {
		t.Errorf("Text = %q", got)
	}
	// Short values are not treated as known secrets (they would erase ordinary words).
	if got := NewSecrets("abc").Text("abc def", true); got != "abc def" {
		t.Errorf("a 3-byte known secret replaced text: %q", got)
	}
	// Surrounding space is trimmed, as redact.New does.
	if got := NewSecrets("  "+testKey+"\n").Text("k="+testKey, true); strings.Contains(got, testKey) {
		t.Errorf("a padded known secret was not recognised: %q", got)
	}
}
