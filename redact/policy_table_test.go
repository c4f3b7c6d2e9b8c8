package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const (
	secretsKey    = "ak_TestConfiguredKey123456"
	secretsGitHub = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	secretsSlack  = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
)

func TestPolicyTableText(t *testing.T) {
	sec := NewPolicy(secretsKey)
	tests := []struct {
		name, in     string
		reveal       bool
		gone, kept   []string
		wantContains string
	}{
		{"pattern hidden", "push with " + secretsGitHub, false, []string{secretsGitHub}, []string{"push with"}, "[REDACTED:github_token]"},
		{"pattern revealed", "push with " + secretsGitHub, true, nil, []string{secretsGitHub}, ""},
		{"header hidden", "Authorization: Bearer abcdefgh12345678", false, []string{"abcdefgh12345678"}, nil, "[REDACTED"},
		{"header revealed", "Authorization: Bearer abcdefgh12345678", true, nil, []string{"abcdefgh12345678"}, ""},
		{"known key hidden", "key " + secretsKey + " and " + secretsSlack, false, []string{secretsKey, secretsSlack}, nil, "[REDACTED"},
		{"known key stays hidden when revealed", "key " + secretsKey + " and " + secretsSlack, true, []string{secretsKey}, []string{secretsSlack}, KnownMarker},
		{"known key inside a word", "x" + secretsKey + "y", true, []string{secretsKey}, nil, KnownMarker},
		{"plain text unchanged", "hello world", true, nil, []string{"hello world"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sec.Text(tt.in, tt.reveal)
			goneKept(t, fmt.Sprintf("Text(%q, %v)", tt.in, tt.reveal), got, tt.gone, tt.kept)
			if tt.wantContains != "" && !strings.Contains(got, tt.wantContains) {
				t.Errorf("Text(%q, %v) = %q, want it to contain %q", tt.in, tt.reveal, got, tt.wantContains)
			}
		})
	}
}

func TestPolicyTableJSON(t *testing.T) {
	sec := NewPolicy(secretsKey)
	tests := []struct {
		name       string
		raw        string
		reveal     bool
		gone, kept []string
	}{
		{"fields hidden", `{"api_key":"k3y-of-another-service","password":"hunter22","q":"x"}`, false, []string{"k3y-of-another-service", "hunter22"}, []string{`"q":"x"`}},
		{"fields revealed", `{"api_key":"k3y-of-another-service","password":"hunter22"}`, true, nil, []string{"k3y-of-another-service", "hunter22"}},
		{"known key revealed stays hidden", `{"api_key":"` + secretsKey + `","t":"` + secretsSlack + `"}`, true, []string{secretsKey}, []string{secretsSlack}},
		{"known key as a number-looking key", `{"k":"` + secretsKey + `"}`, false, []string{secretsKey}, nil},
		// \u005f is "_": the key spelled with a JSON escape is still the key; the value is
		// then redacted as a whole rather than partly revealed.
		{"escaped known key revealed", `{"k":"ak\u005fTestConfiguredKey123456","t":"` + secretsSlack + `"}`, true, []string{"TestConfiguredKey123456"}, nil},
		{"escaped slash", `{"k":"ak_Test\/x"}`, true, nil, []string{`ak_Test\/x`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(sec.JSON(json.RawMessage(tt.raw), tt.reveal))
			goneKept(t, fmt.Sprintf("JSON(%s, %v)", tt.raw, tt.reveal), got, tt.gone, tt.kept)
		})
	}
}

func TestPolicyTableEdgeCases(t *testing.T) {
	var none *Policy
	if got := none.Text("tok "+secretsGitHub, false); strings.Contains(got, secretsGitHub) {
		t.Errorf("a nil Policy does not redact by pattern: %q", got)
	}
	if got := none.Text("tok "+secretsGitHub, true); got != "tok "+secretsGitHub {
		t.Errorf("a nil Policy changed revealed text: %q", got)
	}
	// A known secret that is part of the marker must not loop or survive.
	odd := NewPolicy("REDACTED")
	if got := odd.Text("a REDACTED b", true); strings.Contains(got, "REDACTED") {
		t.Errorf("Text = %q", got)
	}
	// Short values are not treated as known secrets (they would erase ordinary words).
	if got := NewPolicy("abc").Text("abc def", true); got != "abc def" {
		t.Errorf("a 3-byte known secret replaced text: %q", got)
	}
	// Surrounding space is trimmed, as redact.New does.
	if got := NewPolicy("  "+secretsKey+"\n").Text("k="+secretsKey, true); strings.Contains(got, secretsKey) {
		t.Errorf("a padded known secret was not recognised: %q", got)
	}
}

// goneKept checks that got, the result of call, holds none of gone and all of kept.
func goneKept(t *testing.T, call, got string, gone, kept []string) {
	t.Helper()
	for _, g := range gone {
		if strings.Contains(got, g) {
			t.Errorf("%s = %q still holds %q", call, got, g)
		}
	}
	for _, k := range kept {
		if !strings.Contains(got, k) {
			t.Errorf("%s = %q lost %q", call, got, k)
		}
	}
}
