package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzRedact checks the redactor's promises on any input: it never panics, the output never
// holds a known secret (one at least MinKnownLen long), JSON input that was valid stays valid
// (and anything else still comes back as valid JSON), and redacting twice changes nothing more
// for text that held no known secret.
func FuzzRedact(f *testing.F) {
	seeds := []struct{ s, known string }{
		{`{"password":"hunter2","to":"a@b.c"}`, "hunter2x"},
		{"Authorization: Bearer " + jwtToken, composioKey},
		{"key " + composioKey + " and " + githubPAT, composioKey},
		{`{"parameters":[{"name":"x-api-key","value":"` + composioKey + `"}]}`, composioKey},
		{`{"a":[1,2,{"b":null,"c":"` + slackBot + `"}],"d":1e5}`, "1e5-secret"},
		{"postgres://u:pw@host/db?sslmode=disable", "pw@host"},
		{"-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----", "PRIVATE"},
		{`"{\"client_secret\":\"abc\\\"def\"}"`, "abc\\\"def"},
		{"REDACTED:known_secret", "REDACTED"},
		{`{"k":"\u0061k_9fK2mQx7LpR4vT8wZ1cN"}`, `ak_9fK2mQx7LpR4vT8wZ1cN`},
		{"\xff\xfe{\"token\":1}", "token\":1"},
		{"plain text with nothing", ""},
	}
	for _, s := range seeds {
		f.Add(s.s, s.known)
	}
	f.Fuzz(func(t *testing.T, s, known string) {
		r := New(known)
		k := strings.TrimSpace(known)
		guarded := len(k) >= MinKnownLen
		out := r.String(s)
		if guarded && (strings.Contains(out, k) || (len(known) >= MinKnownLen && strings.Contains(out, known))) {
			t.Fatalf("String leaked known secret %q: %q", known, out)
		}
		j := r.JSON(json.RawMessage(s))
		if len(bytes.TrimSpace([]byte(s))) == 0 {
			return
		}
		if !json.Valid(j) {
			t.Fatalf("JSON(%q) = %q is not valid JSON", s, j)
		}
		if guarded && bytes.Contains(j, []byte(k)) {
			t.Fatalf("JSON leaked known secret %q: %s", known, j)
		}
		if json.Valid([]byte(s)) {
			// the shape survives: same top-level kind
			if kind(j) != kind([]byte(s)) && !bytes.Equal(j, []byte(`"`+lastResort+`"`)) && kind(j) != '"' {
				t.Fatalf("JSON changed the kind of %q to %q", s, j)
			}
		}
		if !guarded && r.String(out) != out && !strings.Contains(out, "[REDACTED") {
			t.Fatalf("second pass changed %q", out)
		}
	})
}

func kind(b []byte) byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	switch c := b[0]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return c
	}
	return '0'
}

// FuzzStreamMatchesTree: the streaming JSON redactor writes the bytes the tree redactor wrote,
// for any input and known secret (the tree is the oracle: tree_test.go).
func FuzzStreamMatchesTree(f *testing.F) {
	for _, s := range []string{
		`{"password":"hunter2","to":"a@b.c"}`,
		`{"parameters":[{"value":"` + composioKey + `","name":"x-api-key"},{"name":"x","value":"v"}]}`,
		`{"headers":[{"key":"Authorization","value":{"a":[1,{"token":"t"}]}},{"header":"Cookie","value":null}]}`,
		`{"token":{"a":[{"b":1}]},"after":{"name":"Authorization","value":"x"}}`,
		`{"session_id":"trs_3fQ0a1b2","sessionId":"abc","n":12345678,"e":""}`,
		`[1,"two",{"three":[4,{"api_key":[5]}]},null,true,false]`,
		`"just a string ` + slackBot + `"`,
		`{"a":1}{"b":2}`, `{"a":`, `not json`, ` `,
	} {
		f.Add(s, composioKey)
		f.Add(s, "12345678")
	}
	f.Fuzz(func(t *testing.T, s, known string) {
		r := New(known)
		got, want := r.JSON(json.RawMessage(s)), r.jsonTree(json.RawMessage(s))
		if !bytes.Equal(got, want) {
			t.Fatalf("JSON(%q):\nstream %s\ntree   %s", s, got, want)
		}
	})
}
