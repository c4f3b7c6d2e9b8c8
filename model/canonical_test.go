package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func TestCanonicalArgs(t *testing.T) {
	vol := DefaultVolatileKeys()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"key order", `{"b":1,"a":{"d":2,"c":3}}`, `{"a":{"c":3,"d":2},"b":1}`},
		{"volatile keys dropped at any depth, any case", `{"to":"x","Timestamp":5,"meta":{"nonce":"n","k":1}}`, `{"meta":{"k":1},"to":"x"}`},
		{"numbers normalised", `{"a":1.0,"b":1e2,"c":0.5}`, `{"a":1,"b":100,"c":0.5}`},
		{"big integers kept exactly", `{"id":123456789012345678901234567890}`, `{"id":123456789012345678901234567890}`},
		{"arrays keep order", `{"l":[3,1,{"z":1,"y":2}]}`, `{"l":[3,1,{"y":2,"z":1}]}`},
		{"null and empty", ``, `{}`},
		{"literal null", `null`, `{}`},
		{"whitespace ignored", " {\n \"a\" : \"x y\" } ", `{"a":"x y"}`},
		{"unicode kept", `{"s":"héllo ✓"}`, `{"s":"héllo ✓"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalArgs(json.RawMessage(tt.in), vol)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestArgumentHash(t *testing.T) {
	vol := DefaultVolatileKeys()
	a := ArgumentHash(json.RawMessage(`{"to":"a@x.com","subject":"Hi","sent_at":"2026-01-01"}`), vol)
	b := ArgumentHash(json.RawMessage(`{"subject":"Hi","to":"a@x.com","sent_at":"2026-02-02"}`), vol)
	c := ArgumentHash(json.RawMessage(`{"subject":"Hi!","to":"a@x.com"}`), vol)
	if a == "" || a != b {
		t.Errorf("equal arguments hash differently: %s %s", a, b)
	}
	if a == c {
		t.Errorf("different arguments hash equally")
	}
	if len(a) != 64 {
		t.Errorf("hash length %d", len(a))
	}
	if h := ArgumentHash(json.RawMessage(`{"a":`), vol); h != "" {
		t.Errorf("invalid JSON hashed to %q", h)
	}
	if h := ArgumentHash(json.RawMessage(`{"a":1} {"b":2}`), vol); h != "" {
		t.Errorf("trailing data hashed to %q", h)
	}
}

func TestCanonicalArgsRefusesDeepNesting(t *testing.T) {
	var deep strings.Builder
	for range MaxJSONDepth + 5 {
		deep.WriteString(`{"a":`)
	}
	deep.WriteString("1")
	for range MaxJSONDepth + 5 {
		deep.WriteString("}")
	}
	if _, err := CanonicalArgs(json.RawMessage(deep.String()), nil); err == nil {
		t.Fatal("deeply nested arguments accepted")
	}
}

func FuzzCanonicalArgs(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":[1,2,{"c":null}]}`))
	f.Add([]byte(`{"nonce":"x","s":"\u00e9"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := CanonicalArgs(b, DefaultVolatileKeys())
		if err != nil {
			return
		}
		// canonical form is a fixed point and valid JSON
		c2, err := CanonicalArgs(c, DefaultVolatileKeys())
		if err != nil {
			t.Fatalf("canonical form %q not re-parseable: %v", c, err)
		}
		if string(c) != string(c2) {
			t.Fatalf("not a fixed point: %q -> %q", c, c2)
		}
	})
}

// FuzzCanonicalArgsQuickMatchesSlow: the quick path of CanonicalArgs (read in place) gives
// the bytes the decoding path gives, or an error where it does, for any input: the journal's
// argument hashes must not change with the path taken.
func FuzzCanonicalArgsQuickMatchesSlow(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2,{"c":null}]}`, `{"nonce":"x","s":"\u00e9","Timestamp":1}`, `{"a":1,"a":2}`,
		`{"x":1.0,"y":1e2,"z":12345678901234567890,"w":-0.5}`, `[{"b":null,"a":"<&>"}]`, `"s"`, `{"a":{}} x`, `{"\u0061":1}`,
		`{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gerr := CanonicalArgs(b, DefaultVolatileKeys())
		want, werr := canonicalArgsSlow(b, DefaultVolatileKeys())
		if (gerr == nil) != (werr == nil) || string(got) != string(want) {
			t.Fatalf("%q: quick %q (%v), slow %q (%v)", b, got, gerr, want, werr)
		}
	})
}

func TestGapWordsAgree(t *testing.T) {
	tests := []struct {
		d                  time.Duration
		amount, text, word string
	}{
		{450 * time.Millisecond, "0.45 s", "+0.45 s", "0.45 s after the previous ended"},
		{14649 * time.Millisecond, "14.6 s", "+14.6 s", "14.6 s after the previous ended"},
		{-790 * time.Millisecond, "0.79 s", "overlap 0.79 s", "started 0.79 s before the previous ended"},
		{150 * time.Second, "2.5 min", "+2.5 min", "2.5 min after the previous ended"},
		{-2 * time.Hour, "2.0 h", "overlap 2.0 h", "started 2.0 h before the previous ended"},
	}
	for _, tt := range tests {
		if a, x, w := GapAmount(tt.d), GapText(tt.d), GapWords(tt.d); a != tt.amount || x != tt.text || w != tt.word {
			t.Errorf("%v: %q %q %q, want %q %q %q", tt.d, a, x, w, tt.amount, tt.text, tt.word)
		}
	}
}

// The journal's ArgumentHash compares a retry's call exactly as it was sent: a nested null is
// kept there, while grouping's CanonicalValue leaves it out.
func TestArgumentHashKeepsNulls(t *testing.T) {
	a, b := json.RawMessage(`{"o":{"x":null,"y":1}}`), json.RawMessage(`{"o":{"y":1}}`)
	if ArgumentHash(a, nil) == ArgumentHash(b, nil) {
		t.Error("ArgumentHash drops a nested null")
	}
	va, _ := DecodeArgs(a)
	vb, _ := DecodeArgs(b)
	ca, _ := CanonicalValue(va, nil)
	cb, _ := CanonicalValue(vb, nil)
	if string(ca) != string(cb) {
		t.Errorf("CanonicalValue keeps a nested null: %s vs %s", ca, cb)
	}
}

// A request's own tokens are known by their names however spelled, when the list of volatile
// keys holds RequestTokens (the default does); a name that only looks alike is kept, and a list
// without it skips only what it names.
func TestRequestTokensByName(t *testing.T) {
	def := skipSet(DefaultVolatileKeys())
	for key, want := range map[string]bool{
		"idempotency_key": true, "idempotencyKey": true, "Idempotency-Key": true, "dedupe_id": true, "deduplicationId": true,
		"x-request-id": true, "requestId": true, "clientMsgId": true, "client_msg_id": true, "client_token": true,
		"correlationId": true, "nonce": true, "trace_id": true,
		"message_id": false, "thread_ts": false, "client_id": false, "request": false, "requested_by": false,
		"announcement": false, "channel": false, "recipient_email": false,
	} {
		if got := Skips(def, key); got != want {
			t.Errorf("Skips(default, %q) = %v, want %v", key, got, want)
		}
	}
	if Skips(skipSet([]string{"nonce"}), "dedupe_id") || !Skips(skipSet([]string{"nonce"}), "Nonce") {
		t.Error("a list without RequestTokens skips only what it names")
	}
	a, _ := CanonicalArgs([]byte(`{"text":"hi","dedupeId":"8f1c","channel":"C1"}`), DefaultVolatileKeys())
	b, _ := CanonicalArgs([]byte(`{"text":"hi","dedupeId":"02aa","channel":"C1"}`), DefaultVolatileKeys())
	if string(a) != string(b) {
		t.Errorf("two calls that differ only in their dedupe id: %s, %s", a, b)
	}
}
