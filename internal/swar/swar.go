// Package swar tests eight bytes at a time in a uint64 (SIMD within a register), for the
// loops that look at every byte of an index or an output: the filter's folding and the JSON
// writer (the parser in model, which imports no package of the project, keeps its own). Each test sets the high bit of
// the lanes that match and is exact about
// whether any lane does; lanes after a matching one may be set too (a borrow spreads up from
// it), never when none matches.
package swar

// Lanes01 and Lanes80 are a byte's lowest and highest bit in every lane of a word.
const (
	Lanes01 = 0x0101010101010101
	Lanes80 = 0x8080808080808080
)

// Load is s[i:i+8] as a little-endian word (s has eight bytes from i).
func Load(s string, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// Has marks the lanes of x that hold c.
func Has(x uint64, c byte) uint64 {
	v := x ^ Lanes01*uint64(c)
	return (v - Lanes01) &^ v & Lanes80
}

// Below marks the lanes of x below n (n below 0x80).
func Below(x uint64, n byte) uint64 { return (x - Lanes01*uint64(n)) &^ x & Lanes80 }

// High marks the lanes of x at 0x80 and above.
func High(x uint64) uint64 { return x & Lanes80 }
