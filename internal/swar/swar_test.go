package swar

import (
	"math/rand/v2"
	"testing"
)

// Each test says whether any lane matches exactly as a byte-by-byte look does, with every byte
// in every lane, among random neighbours; and marks every matching lane.
func TestTestsAreExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(name string, got uint64, b [8]byte, match func(byte) bool) {
		t.Helper()
		any := false
		for k, c := range b {
			if match(c) {
				any = true
				if got>>(8*k+7)&1 == 0 {
					t.Fatalf("%s(% x): lane %d matches, not marked", name, b, k)
				}
			}
		}
		if any != (got != 0) {
			t.Fatalf("%s(% x) = %x, want a match: %v", name, b, got, any)
		}
	}
	for c := range 256 {
		for lane := range 8 {
			for range 50 {
				var b [8]byte
				for k := range b {
					b[k] = byte(r.IntN(256))
				}
				b[lane] = byte(c)
				x := Load(string(b[:]), 0)
				check("Has", Has(x, '"'), b, func(v byte) bool { return v == '"' })
				check("Has", Has(x, byte(c)), b, func(v byte) bool { return v == byte(c) })
				check("Below", Below(x, 0x20), b, func(v byte) bool { return v < 0x20 })
				check("High", High(x), b, func(v byte) bool { return v >= 0x80 })
			}
		}
	}
}

func TestLoadIsLittleEndian(t *testing.T) {
	if got := Load("xabcdefgh", 1); got != 0x6867666564636261 {
		t.Fatalf("Load = %x", got)
	}
}
