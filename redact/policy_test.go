package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

const policyKey = "ak_PolicyTestKey_0123456789"

// keyForms are the spellings of the configured key that must never be shown.
func keyForms(k string) map[string]string {
	var esc strings.Builder
	for _, c := range k {
		esc.WriteString(`\u00` + strings.ToLower(strings.TrimLeft(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15]), "")))
	}
	var pct strings.Builder
	for i := 0; i < len(k); i++ {
		pct.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[k[i]>>4])+string("0123456789abcdef"[k[i]&15])))
	}
	return map[string]string{
		"raw":              k,
		"json-escaped":     esc.String(),
		"first-escaped":    `\u0061` + k[1:],
		"percent-encoded":  pct.String(),
		"base64":           base64.StdEncoding.EncodeToString([]byte(k)),
		"base64url":        base64.RawURLEncoding.EncodeToString([]byte(k)),
		"basic credential": base64.StdEncoding.EncodeToString([]byte("user:" + k)),
		"basic, 1 byte":    base64.StdEncoding.EncodeToString([]byte("u:" + k)),
		"basic, 2 bytes":   base64.StdEncoding.EncodeToString([]byte("us:" + k)),
		"in a url":         "https://example.test/cb?state=1&k=" + k + "#x",
	}
}

func TestPolicyNeverShowsTheKnownKey(t *testing.T) {
	p := NewPolicy(policyKey)
	for name, form := range keyForms(policyKey) {
		for _, reveal := range []bool{false, true} {
			text := "before " + form + " after"
			if got := p.Text(text, reveal); p.Leaks(got) || strings.Contains(got, form) {
				t.Errorf("%s, reveal %v: Text = %q still holds the key", name, reveal, got)
			}
			doc := json.RawMessage(`{"arguments":{"note":"` + form + `"},"ok":true}`)
			got := p.JSON(doc, reveal)
			if p.Leaks(string(got)) || strings.Contains(string(got), form) {
				t.Errorf("%s, reveal %v: JSON = %s still holds the key", name, reveal, got)
			}
			if !json.Valid(got) {
				t.Errorf("%s, reveal %v: JSON = %s is not valid JSON", name, reveal, got)
			}
		}
	}
}

// The oracle itself must see every form, or the test above proves nothing.
func TestPolicyLeaksSeesEveryForm(t *testing.T) {
	p := NewPolicy(policyKey)
	for name, form := range keyForms(policyKey) {
		if !p.Leaks("x " + form + " y") {
			t.Errorf("Leaks misses the %s form %q", name, form)
		}
	}
	if p.Leaks("an ordinary line with ak_other_key and base64 aGVsbG8gd29ybGQ=") {
		t.Error("Leaks flags text without the key")
	}
}

// Revealing keeps what is not the key: other secrets, and ordinary text.
func TestPolicyRevealKeepsTheRest(t *testing.T) {
	p := NewPolicy(policyKey)
	gh := "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	in := "token " + gh + " and key " + policyKey
	got := p.Text(in, true)
	if !strings.Contains(got, gh) || strings.Contains(got, policyKey) || !strings.Contains(got, KnownMarker) {
		t.Errorf("Text(reveal) = %q", got)
	}
	if got := p.Text(in, false); strings.Contains(got, gh) {
		t.Errorf("Text(hide) = %q keeps the GitHub token", got)
	}
	var nilPolicy *Policy
	if got := nilPolicy.Text("plain", true); got != "plain" {
		t.Errorf("nil policy Text = %q", got)
	}
}

// Secrets the first patterns missed: Slack's newer token prefixes, a key in a URL's
// query, auth and signature fields.
func TestRedactsMoreShapes(t *testing.T) {
	r := New()
	for _, tt := range []struct{ in, secret string }{
		{"token xoxe-1-abcdefghijklmnop", "abcdefghijklmnop"},
		{"token xoxs-1234567890-abcdefghij", "abcdefghij"},
		{"token xoxa-2-abcdefghijklmno", "abcdefghijklmno"},
		{"GET https://maps.example/api?key=AKzzzzsecret99&q=x", "AKzzzzsecret99"},
		{"https://x.test/cb?a=1&token=zzzzsecret77", "zzzzsecret77"},
		{"https://hooks.example/s?sig=deadbeefcafe", "deadbeefcafe"},
	} {
		if got := r.String(tt.in); strings.Contains(got, tt.secret) {
			t.Errorf("String(%q) = %q", tt.in, got)
		}
	}
	for _, doc := range []string{`{"api.key":"zzzzsecretvalue"}`, `{"auth":"zzzzsecretvalue"}`, `{"signature":"zzzzsecretvalue"}`, `{"X-Hub-Signature-256":"zzzzsecretvalue"}`} {
		if got := string(r.JSON([]byte(doc))); strings.Contains(got, "zzzzsecretvalue") {
			t.Errorf("JSON(%s) = %s", doc, got)
		}
	}
	if got := r.String("the key is in the drawer; https://x.test/a?q=keyboard"); got != "the key is in the drawer; https://x.test/a?q=keyboard" {
		t.Errorf("ordinary text changed: %q", got)
	}
}
