package triage

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Batch replays. A job that sends a batch (a message to each of several recipients) and dies
// part way is often run again from the start: each message it had sent goes out again minutes
// later, after a success, which alone reads as a double submit. When at least batchReplayMin
// writes of one caller were each sent again, the second sends within a minute of one another
// and each well after its first, they are one replayed batch: the app's retry.
const (
	batchReplayMin    = 3
	batchReplaySpread = time.Minute      // between consecutive second sends of the batch
	batchReplayAfter  = 30 * time.Second // the least time between a write's two sends
)

// nameBatchReplays renames the double submits that belong to a replayed batch (see above).
func nameBatchReplays(all []foundGroup) {
	byCaller := map[string][]int{}
	for k := range all {
		f := &all[k]
		if f.caller != "" && len(f.g.ExecutionIDs) == 2 && len(f.starts) == 2 && f.starts[1].Sub(f.starts[0]) >= batchReplayAfter {
			byCaller[f.caller] = append(byCaller[f.caller], k)
		}
	}
	for _, ks := range byCaller {
		if len(ks) < batchReplayMin {
			continue
		}
		slices.SortFunc(ks, func(a, b int) int {
			if c := all[a].starts[1].Compare(all[b].starts[1]); c != 0 {
				return c
			}
			return strings.Compare(all[a].g.ID, all[b].g.ID)
		})
		for lo := 0; lo < len(ks); {
			hi := lo + 1
			for hi < len(ks) && all[ks[hi]].starts[1].Sub(all[ks[hi-1]].starts[1]) <= batchReplaySpread {
				hi++
			}
			if batch := ks[lo:hi]; len(batch) >= batchReplayMin {
				first, second := all[batch[0]].starts[0], all[batch[0]].starts[1]
				for _, k := range batch {
					if all[k].starts[0].Before(first) {
						first = all[k].starts[0]
					}
				}
				for _, k := range batch {
					g := &all[k].g
					if g.Pattern != model.PatternDoubleSubmit {
						continue // named by better evidence (a failure the app retried, an SDK)
					}
					nameBatchReplay(g, len(batch), first, second)
				}
			}
			lo = hi
		}
	}
}

// nameBatchReplay names g, a double submit of a replayed batch of n writes first run at first
// and sent again from second, the app's retry.
func nameBatchReplay(g *model.DuplicateGroup, n int, first, second time.Time) {
	g.Pattern = model.PatternAppRetry
	g.OtherCauses = []model.CauseCandidate{{Cause: model.PatternDoubleSubmit,
		Why: "alone, this write sent again after it succeeded reads as a second click or a second worker"}}
	g.Reason = fmt.Sprintf(
		"a batch of %d writes of this caller sent again together, %s after the batch first ran (from %s): the app ran the job again from "+
			"the start, sending what it had sent%s; fix: %s",
		n,
		second.Sub(first).Round(time.Second),
		model.When(first),
		othersReason(g.OtherCauses),
		model.PatternFix(model.PatternAppRetry),
	)
}
