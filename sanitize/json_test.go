package sanitize

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONEscapesWhatATerminalMustNotSee(t *testing.T) {
	for _, v := range []string{"a\u0085b", "x\u009bc", "del\x7f", "rtl\u202eevil", "zw\u200bsp", "bom\ufeff", "iso\u2066x\u2069", "ls\u2028", "plain é 中 😀"} {
		raw, _ := json.Marshal(map[string]string{"k": v})
		got := JSON(raw)
		var back map[string]string
		if err := json.Unmarshal(got, &back); err != nil || back["k"] != v {
			t.Errorf("%q: %s does not decode to the same value: %v", v, got, err)
		}
		for _, r := range string(got) {
			if unsafeRune(r) || r == 0x7f {
				t.Errorf("%q: %q still holds %U raw", v, got, r)
			}
		}
		if !strings.ContainsAny(v, "\u0085\u009b\x7f\u202e\u200b\ufeff\u2066\u2028") && string(got) != string(raw) {
			t.Errorf("%q: safe text changed: %s → %s", v, raw, got)
		}
	}
}
