package app

import (
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/window"
)

// dedupeExecs keeps one copy of each id (window.LatestCopies, the rule every front keeps), in
// arrival order.
func dedupeExecs(execs []model.Execution) ([]model.Execution, int) {
	dead, dropped := window.LatestCopies(len(execs), func(i int) string { return execs[i].ID }, func(i int) bool { return execs[i].Detailed })
	if dropped == 0 {
		return execs, 0
	}
	out := execs[:0]
	for i := range execs {
		if dead == nil || dead[i/64]&(1<<(i%64)) == 0 {
			out = append(out, execs[i])
		}
	}
	clear(execs[len(out):]) // what the dropped copies held is not kept alive
	return out, dropped
}
