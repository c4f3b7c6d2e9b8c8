package hashtab

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The table gives back what was put, grows past three quarters full, tells absent keys, keeps
// the first value on Add and the last on Put, and reserves without moving when it has room.
func TestTable(t *testing.T) {
	var tab Table[int32]
	if _, ok := tab.Get(42); ok {
		t.Fatal("an empty table has a key")
	}
	r := rand.New(rand.NewPCG(3, 4))
	want := map[uint64]int32{}
	for i := range 50_000 {
		h := max(r.Uint64()>>uint(r.IntN(60)), 1) // small keys too: they crowd the low slots
		if i%5 == 0 {
			for k := range want { // put again: the value changes, the count does not
				h = k
				break
			}
		}
		tab.Put(h, int32(i))
		want[h] = int32(i)
	}
	if tab.Len() != len(want) || tab.Slots()*3 < tab.Len()*4 {
		t.Errorf("%d keys counted in %d slots, %d put", tab.Len(), tab.Slots(), len(want))
	}
	for h, v := range want {
		if got, ok := tab.Get(h); !ok || got != v {
			t.Fatalf("Get(%d) = %d, %v; want %d", h, got, ok, v)
		}
	}
	for range 1000 {
		h := max(r.Uint64(), 1)
		if _, in := want[h]; in {
			continue
		}
		if _, ok := tab.Get(h); ok {
			t.Fatalf("Get(%d) found a key never put", h)
		}
	}
	for h, v := range want {
		if tab.Add(h, v+1) {
			t.Fatalf("Add(%d) replaced a value", h)
		}
		if got, _ := tab.Get(h); got != v {
			t.Fatalf("Add changed %d's value to %d", h, got)
		}
		break
	}
	if !tab.Add(1<<63+12345, 7) {
		t.Error("Add of a new key did not add it")
	}
	keys := unsafe.SliceData(tab.keys)
	tab.Reserve(tab.Len()) // room it has: nothing moves
	if unsafe.SliceData(tab.keys) != keys {
		t.Error("reserving room the table has resized it")
	}
	var big Table[uint64]
	big.Reserve(1000)
	if big.Slots()*3 < 1000*4 {
		t.Errorf("room for 1000 keys is %d slots", big.Slots())
	}
}

func TestKeyIsNeverZero(t *testing.T) {
	seed := maphash.MakeSeed()
	for i := range 10_000 {
		s := fmt.Sprintf("log_%d", i)
		k := Key(seed, s)
		if h := maphash.String(seed, s); k == 0 || h != 0 && k != h {
			t.Fatalf("Key(%q) = %d, the hash is %d", s, k, h)
		}
	}
}

// A table made for n keys has about 4n/3 slots, whatever n is (a power of two would have up
// to twice that), and holds them all without growing; every key is found, none that is absent.
func TestReserveFitsTheKeys(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, n := range []int{1, 63, 1000, 300_000} {
		var tab Table[int32]
		tab.Reserve(n)
		slots := tab.Slots()
		if slots > max(64, n*4/3+1) {
			t.Errorf("Reserve(%d) made %d slots, want about %d", n, slots, n*4/3)
		}
		for i := range n {
			if !tab.Add(Key(seed, fmt.Sprintf("log_%d", i)), int32(i)) {
				t.Fatalf("key %d of %d was there already", i, n)
			}
		}
		if tab.Slots() != slots {
			t.Errorf("%d keys grew a table reserved for them: %d slots, then %d", n, slots, tab.Slots())
		}
		for i := range n {
			if v, ok := tab.Get(Key(seed, fmt.Sprintf("log_%d", i))); !ok || v != int32(i) {
				t.Fatalf("key %d: %d, %v", i, v, ok)
			}
		}
		if _, ok := tab.Get(Key(seed, "absent")); ok {
			t.Error("an absent key was found")
		}
	}
}

// Keys that differ only in their low bits spread over the table rather than scaling to its
// first slots: the longest run of taken slots stays short (linear probing walks runs).
func TestSmallKeysSpread(t *testing.T) {
	const n = 50_000
	var tab Table[int32]
	tab.Reserve(n)
	for k := uint64(1); k <= n; k++ {
		tab.Put(k, int32(k))
	}
	longest, run := 0, 0
	for _, k := range tab.keys {
		if k == 0 {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	if longest > 1000 {
		t.Errorf("keys 1..%d make a run of %d taken slots", n, longest)
	}
	for k := uint64(1); k <= n; k++ {
		if v, ok := tab.Get(k); !ok || v != int32(k) {
			t.Fatalf("key %d: %d, %v", k, v, ok)
		}
	}
}
