package triage

import (
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TimelineStep is one execution of a session's (or a trace's) timeline.
type TimelineStep struct {
	Index int  // the execution's position in the input
	Child bool // a meta tool's child, placed right under its parent
	// Gap is the time from the end of everything before it to its start (negative: it started
	// before they ended); a child's, from its previous sibling's end or its parent's start.
	// HasGap is false for the first step and steps without a start.
	Gap    time.Duration
	HasGap bool
	// Continues is the log id of the call that asked for approval which this approved re-call
	// continues (its request_state is the one that call answered); "" for any other step.
	Continues string
}

// Timeline orders the executions of one session or trace as they ran: by start (then id), a
// meta tool's children right under their parent in the order they ran, with the gap before
// each. The TUI's timeline, `show --session` and the support bundle all read it from here.
func Timeline(execs []model.Execution) []TimelineStep {
	idx := make([]int, len(execs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := execs[a].Start().Compare(execs[b].Start()); c != 0 {
			return c
		}
		return strings.Compare(execs[a].ID, execs[b].ID)
	})
	present := make(map[string]bool, len(execs))
	children := map[string][]int{}
	for _, i := range idx {
		present[execs[i].ID] = true
	}
	for _, i := range idx {
		if p := execs[i].Parent; p != nil && present[p.LogID] && p.LogID != execs[i].ID {
			children[p.LogID] = append(children[p.LogID], i)
		}
	}
	out := make([]TimelineStep, 0, len(execs))
	placed := make([]bool, len(execs))
	var place func(i int, child bool)
	place = func(i int, child bool) {
		if placed[i] {
			return
		}
		placed[i] = true
		out = append(out, TimelineStep{Index: i, Child: child})
		for _, c := range children[execs[i].ID] {
			place(c, true)
		}
	}
	for _, i := range idx {
		if p := execs[i].Parent; p != nil && present[p.LogID] && p.LogID != execs[i].ID {
			continue // placed under its parent
		}
		place(i, false)
	}
	for _, i := range idx { // a cycle of parents: each still shown once
		place(i, false)
	}
	asked := map[string]string{} // request_state → the log id of the call that asked
	for _, i := range idx {
		if st, ok := AwaitsApproval(&execs[i]); ok {
			if _, dup := asked[st]; !dup {
				asked[st] = execs[i].ID
			}
		}
	}
	for k := range out {
		if a := execs[out[k].Index].Approval; a != nil && a.RequestState != "" {
			out[k].Continues = asked[a.RequestState]
		}
	}
	// A step's gap runs from the end of everything before it; a child's from its previous
	// sibling's end, or its parent's start for the first (it runs inside its parent).
	var prevEnd time.Time
	byID := make(map[string]int, len(execs))
	for i := range execs {
		byID[execs[i].ID] = i
	}
	siblingEnd := map[string]time.Time{}
	for k := range out {
		e := &execs[out[k].Index]
		base := prevEnd
		if out[k].Child {
			pid := e.Parent.LogID
			base = siblingEnd[pid]
			if base.IsZero() {
				base = execs[byID[pid]].Start()
			}
		}
		if !base.IsZero() && !e.Start().IsZero() {
			out[k].Gap, out[k].HasGap = e.Start().Sub(base), true
		}
		end, _ := e.End()
		if out[k].Child {
			siblingEnd[e.Parent.LogID] = end
		}
		if end.After(prevEnd) {
			prevEnd = end
		}
	}
	return out
}
