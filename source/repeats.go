package source

import (
	"fmt"
	"hash/maphash"
)

// recentMax is how many of the last ids a file's load remembers, to drop a record that comes
// again byte for byte: a gzip stream can only repeat what lies within its 32 KB window, and a
// record is at least ten bytes ({"id":"x"}), so every repeat that lets a small file hold
// millions of records lies within the last 3,277 ids. (A 2.4 MB gzip of 22 million tiny
// records, one record or two in turn, took scan to 1.1-2.6 GB and list to 19 GB.)
const recentMax = 4096

// repeats drops, as a file is read, each record whose bytes equal those of the latest record
// of its id among the last recentMax ids. Such a record is no news: whichever rule a front
// applies to an id's copies (window.LatestCopies: the later, unless it is only a list entry
// of a whole one), the copy kept reads the same, and the drop is counted (Repeats) so that
// the copies a front reports stay the same.
type repeats struct {
	seed    maphash.Seed
	slot    map[string]int32 // id → its entry in ring
	ring    []recentEntry
	next    int32
	dropped int
}

type recentEntry struct {
	id      string
	sum     uint64 // the latest record of id's key (sum)
	changes int    // how many times a record of id came that was not the latest again
}

// MaxChanges is how many different records one log id may have in an export, among its
// recent ids: a record's copies are its list entry, its detail and the pages that overlapped,
// a few each. Past it the file is refused, not held: one id whose status flips 22 million
// times fits a 2.4 MB gzip, and each copy would take a row until the load is in.
const MaxChanges = 1000

func newRepeats() repeats { return repeats{seed: maphash.MakeSeed()} }

// sum is the key of a record whose bytes are b: equal keys are equal records but for a 2^-64
// chance. (A record of a list response, whose bytes are not kept apart, is keyed by its every
// field: model.Execution.Fingerprint with the same seed.)
func (r *repeats) sum(b []byte) uint64 { return maphash.Bytes(r.seed, b) }

// again reports whether the record id with key sum repeats the latest record of id; if not,
// it is now the latest. It fails when id changed more than MaxChanges times.
func (r *repeats) again(id string, sum uint64) (bool, error) {
	if i, ok := r.slot[id]; ok {
		e := &r.ring[i]
		if e.sum == sum {
			r.dropped++
			return true, nil
		}
		e.sum = sum
		if e.changes++; e.changes > MaxChanges {
			return false, fmt.Errorf("log id %q comes more than %d times, with other contents each time: not an export of executions (each id is one execution)", id, MaxChanges)
		}
		return false, nil
	}
	if r.slot == nil {
		r.slot = make(map[string]int32, recentMax)
		r.ring = make([]recentEntry, recentMax)
	}
	e := &r.ring[r.next]
	if e.id != "" {
		delete(r.slot, e.id)
	}
	*e = recentEntry{id: id, sum: sum}
	r.slot[id] = r.next
	r.next = (r.next + 1) % recentMax
	return false, nil
}
