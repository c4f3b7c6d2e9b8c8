package window

import (
	"hash/maphash"
	"sync"

	"github.com/exectriage/exectriage/internal/hashtab"
)

// idIndex finds an id's row: a table (hashtab) from the id's hash to its newest row, checked against the
// row's id (the rows hold the ids; the table holds 12 bytes per id), with the rare ids whose
// hash another id took in a map of their own, and for each row that replaced another the row
// it replaced (so a dataset made before the replacement still finds its own row). The builder
// writes it while datasets read it, hence the lock.
type idIndex struct {
	mu    sync.RWMutex
	seed  maphash.Seed
	byH   hashtab.Table[int32]
	other map[string]int32
	prev  map[int32]int32
}

func newIDIndex(n int) *idIndex {
	x := &idIndex{seed: maphash.MakeSeed()}
	x.byH.Reserve(n)
	return x
}

// reserve makes room for n ids.
func (x *idIndex) reserve(n int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.byH.Reserve(n)
}

// hash is id's key in byH.
func (x *idIndex) hash(id string) uint64 { return hashtab.Key(x.seed, id) }

// find returns the newest row with the id among sum's rows, or -1.
func (x *idIndex) find(id string, sum *Summaries) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	// The newest row sum holds on the chain of rows that replaced one another.
	visible := func(r int32, ok bool) (int32, bool) {
		for ok && int(r) >= sum.Len() {
			r, ok = x.prev[r]
		}
		return r, ok
	}
	r, ok := x.byH.Get(x.hash(id))
	if r, ok = visible(r, ok); ok && sum.ID(int(r)) == id {
		return int(r)
	}
	r, ok = x.other[id]
	if r, ok = visible(r, ok); ok && sum.ID(int(r)) == id {
		return int(r)
	}
	return -1
}

// set records that id's newest row is r, which replaces row old (-1: none); sum holds both.
func (x *idIndex) set(id string, r, old int32, sum *Summaries) {
	h := x.hash(id)
	x.mu.Lock()
	defer x.mu.Unlock()
	if old >= 0 {
		if x.prev == nil {
			x.prev = map[int32]int32{}
		}
		x.prev[r] = old
	}
	if cur, ok := x.byH.Get(h); ok && sum.ID(int(cur)) != id {
		if x.other == nil {
			x.other = map[string]int32{}
		}
		x.other[string([]byte(id))] = r
		return
	}
	x.byH.Put(h, r)
}
