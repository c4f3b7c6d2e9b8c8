package triage

import (
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/exectriage/exectriage/model"
)

// An application that rebuilds the payload for its retry regenerates a footer's time, a request
// id in the body, or sends null where it left a key out: still one action. Near
// misses stay apart: another meeting time, another order number, a recipient swapped for another.
func TestRebuiltPayloadsGroup(t *testing.T) {
	const to = `"recipient_email":"ana@x.com","subject":"Order A-78274"`
	body := func(s string) string { return `{` + to + `,"body":"` + s + `"}` }
	tests := []struct {
		name  string
		a, b  string
		group bool
	}{
		{"a footer's time to the second", body(`Your order A-78274 ships tomorrow.\n\nSent 21:26:46`), body(`Your order A-78274 ships tomorrow.\n\nSent 21:26:57`), true},
		{"an ISO timestamp in the footer", body(`Your order A-78274 ships tomorrow. Generated 2026-03-02T21:26:46Z`), body(`Your order A-78274 ships tomorrow. Generated 2026-03-02T21:27:03Z`), true},
		{"a request id in the body", body(`Your order A-78274 ships tomorrow. ref 3f2a9c1e-8b7d-4c6e-9f0a-1b2c3d4e5f60`), body(`Your order A-78274 ships tomorrow. ref 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b`), true},
		{"a long hex attachment id", body(`Invoice attached (att 9f86d081884c7d659a2feaa0c55ad015) for order A-78274`), body(`Invoice attached (att 2c26b46b68ffc68ff99b453c1d304134) for order A-78274`), true},
		{"null is absent", `{` + to + `,"cc":null,"body":"hi"}`, `{` + to + `,"body":"hi"}`, true},
		{"keys in another order", `{"body":"hi",` + to + `}`, `{` + to + `,"body":"hi"}`, true},
		{"a nested null is absent", `{` + to + `,"options":{"track":true,"label":null},"body":"hi"}`, `{` + to + `,"options":{"track":true},"body":"hi"}`, true},
		{"near miss: a nested value that is set", `{` + to + `,"options":{"track":true,"label":"vip"},"body":"hi"}`, `{` + to + `,"options":{"track":true},"body":"hi"}`, false},
		{"near miss: a null in a list keeps its place", `{` + to + `,"ids":[null,7],"body":"hi"}`, `{` + to + `,"ids":[7],"body":"hi"}`, false},
		{"near miss: another meeting time", body(`Meeting moved to 10:00 for order A-78274.`), body(`Meeting moved to 11:00 for order A-78274.`), false},
		{"near miss: another order number in the text", body(`Your order A-78274 ships tomorrow. Sent 21:26:46`), body(`Your order A-78275 ships tomorrow. Sent 21:26:57`), false},
		// a cc dropped on the re-send: its audience is contained in the first's, whose people got
		// it twice if the first went out (joinWidenedAudiences); a cc swapped for another stays apart
		{"a cc dropped on the re-send", `{` + to + `,"cc":"bob@x.com","body":"hi"}`, `{` + to + `,"body":"hi"}`, true},
		{"near miss: a cc swapped for another", `{` + to + `,"cc":"bob@x.com","body":"hi"}`, `{` + to + `,"cc":"carl@x.com","body":"hi"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			execs := []model.Execution{
				attempt{id: "b", at: sec(30), dur: sec(1), retry: -1, args: tt.b}.exec(),
				attempt{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: tt.a}.exec(),
			}
			res := Analyze(execs, NewKinds(), Options{})
			if got := len(res.Groups) == 1; got != tt.group {
				t.Fatalf("grouped = %v, want %v (%+v)", got, tt.group, res.Groups)
			}
		})
	}
}

func TestMaskVolatile(t *testing.T) {
	for in, want := range map[string]string{
		"Sent 21:26:46":                           "Sent  volatile ",
		"at 10:00 sharp":                          "at 10:00 sharp",
		"v1.2.3 and 3d and abcdef12":              "v1.2.3 and 3d and abcdef12",
		"2026-03-02 21:26:46.123Z done":           " volatile  done",
		"id 0123456789abcdef0123 end":             "id  volatile  end",
		"order 1042, invoice 77, total $1,250.00": "order 1042, invoice 77, total $1,250.00",
	} {
		if got := maskVolatile(in); got != want {
			t.Errorf("maskVolatile(%q) = %q, want %q", in, got, want)
		}
	}
}

// volatilePattern is what maskVolatile writes out: the oracle it is checked against.
var volatilePattern = regexp.MustCompile(`(?i)\b\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:z|[+-]\d{2}:?\d{2})?\b|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*\b`)

func maskVolatileByPattern(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	return volatilePattern.ReplaceAllStringFunc(s, func(m string) string {
		if !strings.Contains(m, ":") && !strings.Contains(m, "-") && len(m) < 16 {
			return m
		}
		return " volatile "
	})
}

// The written-out masking says what the expression says, on texts built from the pieces that
// make its alternatives match, almost match and overlap.
func TestMaskVolatileIsThePattern(t *testing.T) {
	pieces := []string{"2026-03-02", "T", "t", " ", "21:26:46", "1:02:03", "123:45:67", ".5", ".", "55", "Z", "z", "+01:00", "-0130", "+01",
		"0123abcd", "-", "4f2a", "9c1e", "b7d3", "0a1b2c3d4e5f", "deadbeef", "1", "a", "_", "x", "é", ":", "\n", "<p>", "v1.2.3", "3d", "ab12", "ABCDEF12"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(rt, "n")
		var b strings.Builder
		for range n {
			b.WriteString(rapid.SampledFrom(pieces).Draw(rt, "piece"))
		}
		s := b.String()
		if got, want := maskVolatile(s), maskVolatileByPattern(s); got != want {
			rt.Fatalf("maskVolatile(%q) = %q, the pattern says %q", s, got, want)
		}
	})
}

// FuzzMaskVolatile: any text, the pattern's answer.
func FuzzMaskVolatile(f *testing.F) {
	for _, s := range []string{"Sent 21:26:46", "2026-03-02 21:26:46.123Z done", "id 0123456789abcdef0123 end", "1f0e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "12:00:00.5x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := maskVolatile(s), maskVolatileByPattern(s); got != want {
			t.Fatalf("maskVolatile(%q) = %q, the pattern says %q", s, got, want)
		}
	})
}
