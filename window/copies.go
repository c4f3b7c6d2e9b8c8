package window

import (
	"hash/maphash"

	"github.com/exectriage/exectriage/internal/hashtab"
	"github.com/exectriage/exectriage/model"
)

// One record per log id. An export can hold a record twice (overlapping pages of the Logs
// API, a detail appended after its list entry, a status that changed between two pages): it is
// one execution. Every front keeps the same copy: a later copy replaces an earlier one, unless
// it is only a list entry of a record kept whole (model.KeepsEarlierCopy). A Builder applies
// the rule on arrival (Builder.replaces), or, for a window streamed once, when the load is in
// (LatestCopies); a loaded window before it is judged (KeepLatest).

// LatestCopies walks n records in the order they arrived (id and detailed of each by index)
// and reports which are replaced by a later copy of the same id, and how many are.
func LatestCopies(n int, id func(i int) string, detailed func(i int) bool) (dead []uint64, dropped int) {
	seed := maphash.MakeSeed()
	var tab hashtab.Table[int32]
	tab.Reserve(n)
	var keep map[string]int32 // the kept copy of each id seen twice (and of a hash shared by two ids: rare)
	for i := range n {
		s := id(i)
		h := hashtab.Key(seed, s)
		if tab.Add(h, int32(i)) {
			continue
		}
		first, _ := tab.Get(h)
		k, seen := keep[s]
		if !seen {
			if id(int(first)) != s { // another id with the same hash: keep it apart
				if keep == nil {
					keep = map[string]int32{}
				}
				keep[s] = int32(i)
				continue
			}
			k = first
		}
		loser, winner := k, int32(i)
		if model.KeepsEarlierCopy(detailed(int(k)), detailed(i)) {
			loser, winner = int32(i), k
		}
		if keep == nil {
			keep = map[string]int32{}
		}
		keep[s] = winner
		if dead == nil {
			dead = make([]uint64, (n+63)/64)
		}
		dead[loser/64] |= 1 << (loser % 64)
		dropped++
	}
	return dead, dropped
}

// KeepLatest keeps one copy of each id of a loaded window (LatestCopies), in arrival order, and
// returns how many it dropped. execs is reused.
func KeepLatest(execs []model.Execution) ([]model.Execution, int) {
	dead, dropped := LatestCopies(len(execs), func(i int) string { return execs[i].ID }, func(i int) bool { return execs[i].Detailed })
	if dropped == 0 {
		return execs, 0
	}
	out := execs[:0]
	for i := range execs {
		if !bit(dead, int32(i)) {
			out = append(out, execs[i])
		}
	}
	clear(execs[len(out):]) // what the dropped copies held is not kept alive
	return out, dropped
}
