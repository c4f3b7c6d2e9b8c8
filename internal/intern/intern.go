// Package intern numbers strings: each distinct string is kept once and named by a number,
// 0 being "". Most strings a load hands it are shared already (the parser and the classifier
// intern theirs), so a cache keyed by where a string's bytes are answers the repeated ones
// (tools, statuses, reasons: a few values each) without hashing the bytes; the cache holds
// the string, so its memory is never reused for another while it is there. Users and
// connected accounts, tens of thousands in two copies (one per parse worker), mostly miss it
// and go to the map (BenchmarkOfUsers). Keying the cache by the bytes instead was measured
// slower (the bytes of a cached string are one more cache miss).
package intern

import (
	"strings"
	"unsafe"
)

// Table is a numbering. The zero value has no cache; New gives one. Not safe for concurrent
// use.
type Table struct {
	idx    map[string]uint32
	strs   []string
	cache  []slot
	places int // the cache's size, made again after DropCache when a string comes
}

type slot struct {
	s  string
	id uint32
}

// Cache sizes: for the many strings of a load (users, accounts), and for a handful.
const (
	Many = 1 << 16
	Few  = 1 << 6
)

// New returns an empty table with a cache of at least places places (0 for none).
func New(places int) *Table {
	n := 0
	if places > 0 {
		n = 1
		for n < places {
			n <<= 1
		}
	}
	return &Table{cache: make([]slot, n), places: n}
}

// DropCache frees the cache (and the copies of strings it holds) until the next Of: for a
// table that is done loading and is kept.
func (t *Table) DropCache() { t.cache = nil }

// HasCache reports whether the table holds a cache now.
func (t *Table) HasCache() bool { return t != nil && t.cache != nil }

// Of is s's number, a new one when s is new.
func (t *Table) Of(s string) uint32 {
	if s == "" {
		return 0
	}
	var c *slot
	if t.cache == nil && t.places > 0 {
		t.cache = make([]slot, t.places)
	}
	if len(t.cache) > 0 {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		c = &t.cache[(p>>4^p>>20)&uintptr(len(t.cache)-1)]
		if len(c.s) == len(s) && unsafe.StringData(c.s) == unsafe.StringData(s) {
			return c.id
		}
	}
	if t.idx == nil {
		t.idx, t.strs = map[string]uint32{"": 0}, []string{""}
	}
	k, ok := t.idx[s]
	if !ok {
		// a copy of its own: s may be a piece of a much larger buffer (a parser's chunk), which
		// the table would otherwise keep alive for as long as it keeps s
		s = strings.Clone(s)
		k = uint32(len(t.strs))
		t.idx[s] = k
		t.strs = append(t.strs, s)
	}
	if c != nil {
		c.s, c.id = s, k
	}
	return k
}

// Strings are the strings by number ([0] is ""; nil before the first one). Later strings are
// appended beyond its length: a copy of the slice taken now keeps reading what it held.
func (t *Table) Strings() []string {
	if t.strs == nil {
		return []string{""}
	}
	return t.strs
}

// Len is how many distinct strings the table holds ("" not counted).
func (t *Table) Len() int { return max(len(t.strs)-1, 0) }
