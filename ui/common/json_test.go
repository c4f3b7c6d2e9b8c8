package common

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/exectriage/exectriage/redact"
)

const (
	testKey    = "ak_TestConfiguredKey123456"
	testGitHub = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	testSlack  = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
)

func TestBodyCutsBigValuesWithAMarker(t *testing.T) {
	nineMiB := 9 << 20
	str, _ := json.Marshal(strings.Repeat("a", nineMiB))
	tests := []struct {
		name   string
		raw    []byte
		marker string // "" = no cut
	}{
		{"small", []byte(`{"a":1}`), ""},
		{"just under the parse limit, indents past MaxShown", []byte(`[` + strings.Repeat(`1,`, 200_000) + `1]`), "… [truncated: 390.6 KiB, showing the first 64 KiB"},
		{"9 MiB string", str, "… [truncated: 9 MiB, showing the first 64 KiB"},
		{"9 MiB object", []byte(`{"items":[` + strings.Repeat(`{"id":"x"},`, nineMiB/11) + `{}]}`), "… [truncated: 9 MiB, showing the first 64 KiB"},
		{"9 MiB invalid", []byte(strings.Repeat("é", nineMiB/2)), "… [truncated: 9 MiB, showing the first 64 KiB"},
		{"text that is not JSON", []byte("plain <html> text"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Body(tt.raw, nil, false)
			if tt.marker == "" {
				if strings.Contains(got, "[truncated") {
					t.Errorf("a small value was cut: %q", got)
				}
				return
			}
			if !strings.Contains(got, tt.marker) {
				t.Errorf("no marker %q in the last line %q", tt.marker, got[strings.LastIndexByte(got, '\n')+1:])
			}
			if len(got) > MaxShown+1024 {
				t.Errorf("%d bytes shown for a value cut to %d", len(got), MaxShown)
			}
			if !utf8.ValidString(got) {
				t.Error("the cut split a character")
			}
		})
	}
	if got := Body(nil, nil, false); got != "(none)" {
		t.Errorf("Body(nil) = %q", got)
	}
}

// A secret that straddles the window read from a huge value must not show even in part:
// half a token is not recognised by its pattern, so the cut drops the split token.
func TestBigValueCutNeverShowsHalfASecret(t *testing.T) {
	for _, pad := range []int{MaxShown - 20, window - 20, window - 5, window + 3} {
		text := strings.Repeat("x ", pad/2) + testGitHub + " " + strings.Repeat("y", MaxParse)
		for _, reveal := range []bool{false, true} {
			sec := redact.NewPolicy(testKey)
			got := TextBody(text, sec, reveal)
			if strings.Contains(got, "ghp_aB3") && !strings.Contains(got, testGitHub) {
				t.Errorf("pad %d reveal %v: part of the token shows: …%q", pad, reveal, got[max(len(got)-200, 0):])
			}
			if !reveal && strings.Contains(got, "ghp_aB3") {
				t.Errorf("pad %d: the token shows unrevealed", pad)
			}
		}
		known := strings.Repeat("x ", pad/2) + testKey + " " + strings.Repeat("y", MaxParse)
		if got := TextBody(known, redact.NewPolicy(testKey), true); strings.Contains(got, "ak_TestConf") {
			t.Errorf("pad %d: part of the configured key shows when revealed", pad)
		}
	}
}

func TestFieldCutsLongValues(t *testing.T) {
	got := Field(strings.Repeat("A", 100_000), nil, false)
	if w := Width(got); w > MaxField {
		t.Errorf("a 100 KB field is %d cells", w)
	}
	if !strings.HasSuffix(got, "…") {
		t.Errorf("a cut field does not end in an ellipsis")
	}
	if got := Field("id\x1b]0;PWNED\x07", nil, false); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("Field kept controls: %q", got)
	}
}

func TestLooseIndent(t *testing.T) {
	got := string(looseIndent([]byte(`{"a":[1,2],"b":"x,{y}","c":{"d":"e\"f,"}}`)))
	want := "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": \"x,{y}\",\n  \"c\": {\n    \"d\": \"e\\\"f,\"\n  }\n}"
	if got != want {
		t.Errorf("looseIndent =\n%s\nwant\n%s", got, want)
	}
	if got := string(looseIndent([]byte(`{"a":{"b":"cut here`))); !strings.HasSuffix(got, `"b": "cut here`) {
		t.Errorf("a cut value = %q", got)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{0: "0 B", 1023: "1023 B", 64 << 10: "64 KiB", 1536: "1.5 KiB", 9 << 20: "9 MiB", 9646899: "9.2 MiB", 3 << 30: "3 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
