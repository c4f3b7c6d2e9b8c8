package source

import (
	"fmt"
	"hash/maphash"
)

// A file's load remembers the latest record of each of its recent ids, to drop a record that
// comes again byte for byte: a gzip stream can only repeat what lies within its 32 KB window,
// and a record is at least ten bytes ({"id":"x"}), so every repeat that lets a small file hold
// millions of records lies within the last 3,277 ids. (A 2.4 MB gzip of 22 million tiny
// records, one record or two in turn, took scan to 1.1-2.6 GB and list to 19 GB.)
//
// The ids are kept in a table of recentSets sets of recentWays entries, each id in the set its
// hash names, the least recently met entry of a full set giving way: a lookup is a hash and a
// few compares on the load's one merging goroutine, where a map of the last ids cost it enough
// to let the parsed chunks pile up. Eight ways of 8,192 sets (3 MB) hold 3,277 ids in turn but
// for a chance of a few in a million per load that nine of them share a set (those nine are
// then held as they come, as any record is).
const (
	recentSets = 1 << 13
	recentWays = 8
)

// RecentIDs is how many recent ids a load is sure to tell a repeat among: the most a gzip
// window holds.
const RecentIDs = 3277

// repeats drops, as a file is read, each record whose bytes equal those of the latest record
// of its id among the recent ids. Such a record is no news: whichever rule a front applies to
// an id's copies (window.LatestCopies: the later, unless it is only a list entry of a whole
// one), the copy kept reads the same, and the drop is counted (Repeats) so that the copies a
// front reports stay the same. An entry is always the latest record of its id (each record of
// the id goes to the same set), so a record equal to it is a repeat of the latest.
type repeats struct {
	seed    maphash.Seed
	table   []recentEntry // recentSets × recentWays, made at the first record
	clock   uint32
	dropped int
}

type recentEntry struct {
	hash    uint64 // of id; 0 for a free entry
	id      string
	sum     uint64 // the latest record of id's key (sum)
	met     uint32 // when the id was last met (clock)
	changes int32  // how many times a record of id came that was not the latest again
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
	if r.table == nil {
		r.table = make([]recentEntry, recentSets*recentWays)
	}
	r.clock++
	h := maphash.String(r.seed, id) | 1 // never 0: a free entry's
	set := r.table[(h>>1)%recentSets*recentWays:][:recentWays]
	oldest := 0
	for i := range set {
		e := &set[i]
		if e.hash == h && e.id == id {
			e.met = r.clock
			if e.sum == sum {
				r.dropped++
				return true, nil
			}
			e.sum = sum
			if e.changes++; e.changes > MaxChanges {
				return false, fmt.Errorf(
					"log id %q comes more than %d times, with other contents each time: not an export of executions (each id is one "+
						"execution)",
					id,
					MaxChanges,
				)
			}
			return false, nil
		}
		if r.clock-e.met > r.clock-set[oldest].met { // the least recently met (a free entry's met is 0)
			oldest = i
		}
	}
	set[oldest] = recentEntry{hash: h, id: id, sum: sum, met: r.clock}
	return false, nil
}
