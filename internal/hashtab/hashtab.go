// Package hashtab is a table from 64-bit hashes to small values, in two flat arrays (open
// addressing with linear probing, at most three quarters full): for millions of ids it holds
// 8 bytes of key and the value's size for each, at 1.33 slots an id when it is made for them
// (Reserve), where a Go map holds more, and a lookup of a key not there reads one cache line
// of keys. A key's home slot is its hash, spread, scaled to the table (the high bits of it
// times the slots), so the table can be any size: a power of two would make a million ids'
// table hold two. The keys are hashes, not what was hashed: two strings may share one, which
// the caller settles (keeping the rare colliding ones elsewhere).
package hashtab

import (
	"hash/maphash"
	"math/bits"

	"github.com/exectriage/exectriage/internal/hugepage"
)

// Key is s's key under seed: its hash, never 0 (which marks an empty slot).
func Key(seed maphash.Seed, s string) uint64 { return max(maphash.String(seed, s), 1) }

// Table maps non-zero keys (see Key) to values. The zero Table is empty and ready to use.
type Table[V any] struct {
	keys []uint64 // 0: empty
	vals []V
	n    int
}

// Len returns how many keys the table holds.
func (t *Table[V]) Len() int { return t.n }

// Slots returns how many slots it has (its memory is Slots × (8 + the size of V)).
func (t *Table[V]) Slots() int { return len(t.keys) }

// Get returns h's value.
func (t *Table[V]) Get(h uint64) (V, bool) {
	if t.n > 0 {
		if i := t.slot(h); t.keys[i] == h {
			return t.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// Put sets h's value, replacing the one it had.
func (t *Table[V]) Put(h uint64, v V) {
	i := t.room(h)
	t.keys[i], t.vals[i] = h, v
}

// Add sets h's value when h has none, and reports whether it did (an earlier value stays).
func (t *Table[V]) Add(h uint64, v V) bool {
	i := t.room(h)
	if t.keys[i] == h {
		return false
	}
	t.keys[i], t.vals[i] = h, v
	return true
}

// room returns h's slot, or the empty one it is to take (counted), growing the table first
// when that would fill it past three quarters.
func (t *Table[V]) room(h uint64) int {
	if (t.n+1)*4 > len(t.keys)*3 {
		t.resize(max(2*len(t.keys), 64))
	}
	i := t.slot(h)
	if t.keys[i] == 0 {
		t.n++
	}
	return i
}

// slot is where h is, or the empty slot where it would go.
func (t *Table[V]) slot(h uint64) int {
	// Spread first (Fibonacci hashing), so that keys which differ only in their low bits (a
	// caller's small ones) do not all scale to the first slots.
	i, _ := bits.Mul64(h*0x9e3779b97f4a7c15, uint64(len(t.keys)))
	for t.keys[i] != 0 && t.keys[i] != h {
		if i++; i == uint64(len(t.keys)) {
			i = 0
		}
	}
	return int(i)
}

// Reserve makes room for n keys in all: a table three quarters full with them.
func (t *Table[V]) Reserve(n int) {
	if size := max(64, (n*4+2)/3); size > len(t.keys) {
		t.resize(size)
	}
}

func (t *Table[V]) resize(size int) {
	keys, vals := t.keys, t.vals
	t.keys, t.vals = make([]uint64, size), make([]V, size)
	hugepage.Advise(t.keys) // probed at random: fewer page faults and TLB misses
	hugepage.Advise(t.vals)
	for j, h := range keys {
		if h != 0 {
			i := t.slot(h)
			t.keys[i], t.vals[i] = h, vals[j]
		}
	}
}
