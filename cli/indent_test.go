package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/sanitize"
)

// TestWriteIndentedIsJSONIndent: the streaming indenter writes what json.Indent and
// sanitize.Block together wrote, for any compact document (random ones included).
func TestWriteIndentedIsJSONIndent(t *testing.T) {
	docs := []string{`{}`, `[]`, `{"a":[]}`, `{"a":{},"b":[1,{"c":"x\"y,{}[]:"}],"d":null}`, `"str"`, `12`,
		`{"bidi":"a` + "\u202e" + `b","esc":"\u001b[31m","k\\":"v"}`, `[[[],[{}]],{"z":[true,false]}]`}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		docs = append(docs, randomJSON(rng, 0))
	}
	for _, d := range docs {
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(d)); err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeIndented(&got, compact.Bytes(), "  ", blockSafe); err != nil {
			t.Fatal(err)
		}
		if w := sanitize.Block(want.String(), 0); got.String() != w {
			t.Fatalf("%s:\ngot  %q\nwant %q", compact.Bytes(), got.String(), w)
		}
	}
}

func randomJSON(r *rand.Rand, depth int) string {
	switch k := r.IntN(7); {
	case depth > 4 || k == 0:
		return []string{`null`, `true`, `1.5e3`, `-0`, `"a,b:{c}"`, `"\u00e9\\\"q"`}[r.IntN(6)]
	case k < 4:
		parts := make([]string, r.IntN(4))
		for i := range parts {
			parts[i] = randomJSON(r, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		parts := make([]string, r.IntN(4))
		for i := range parts {
			parts[i] = `"k` + string(rune('a'+i)) + `":` + randomJSON(r, depth+1)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

// TestWriteJSONIsTheIndentingEncoder: writeJSON writes what an Encoder with SetIndent("", "  ")
// and sanitize.JSON wrote, HTML escapes and the final newline included.
func TestWriteJSONIsTheIndentingEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := []any{map[string]any{"a": "<b>&", "bidi": "x\u202ey", "n": []int{}, "m": map[string]any{}}, []string{}, "s", 1.5}
	for range 200 {
		var v any
		if err := json.Unmarshal([]byte(randomJSON(rng, 0)), &v); err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	for _, v := range vals {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if w := string(sanitize.JSON(want.Bytes())); got.String() != w {
			t.Fatalf("%v:\ngot  %q\nwant %q", v, got.String(), w)
		}
	}
}
