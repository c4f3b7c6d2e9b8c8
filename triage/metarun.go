package triage

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Meta-tool re-sends. A meta tool (COMPOSIO_MULTI_EXECUTE_TOOL) runs other tools in one call;
// its children's logs name it as their parent. When the meta tool is sent again (a session's
// SDK retry, the agent), every tool it holds runs again: the children's duplicates are one
// story, whose cause is why the parent was sent again. A group whose members each ran under
// their own run of a meta tool is named from those runs: their timing, their request ids, their
// sessions.

// MetaRuns keeps the window's meta-tool runs by log id (their record without arguments or
// response, and their outcome), so that a group of their children can be named from them.
// Every front feeds it what it reads; it is safe for concurrent use.
type MetaRuns struct {
	mu   sync.RWMutex
	byID map[string]metaRun
}

type metaRun struct {
	e       model.Execution
	outcome model.Outcome
}

// NewMetaRuns returns an empty index.
func NewMetaRuns() *MetaRuns { return &MetaRuns{byID: map[string]metaRun{}} }

// Add keeps e when it is a meta tool's run (a later record of the same id replaces it).
func (r *MetaRuns) Add(e *model.Execution, outcome model.Outcome) {
	if r == nil || !e.IsToolExecution() || !IsMetaTool(e.ToolSlug) {
		return
	}
	kept := *e
	kept.Arguments, kept.Response = nil, nil
	r.mu.Lock()
	r.byID[e.ID] = metaRun{e: kept, outcome: outcome}
	r.mu.Unlock()
}

func (r *MetaRuns) get(id string) (metaRun, bool) {
	if r == nil {
		return metaRun{}, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.byID[id]
	return m, ok
}

// causeContext is what naming a group's cause may read beyond its members.
type causeContext struct {
	deliveries *Deliveries
	runs       *MetaRuns
	timeout    time.Duration // the caller's timeout (callerEnd)
}

// resentParents reports, for a group whose members each ran under their own run of a meta tool
// (and every run is in the window), those runs as members in the members' order, with the gaps
// between them.
func resentParents(ms []member, cc causeContext) ([]member, []time.Duration, bool) {
	if cc.runs == nil || len(ms) < 2 {
		return nil, nil, false
	}
	seen := map[string]bool{}
	ps := make([]member, 0, len(ms))
	for _, m := range ms {
		p := m.e.Parent
		if p == nil || !IsMetaTool(p.ToolSlug) || seen[p.LogID] {
			return nil, nil, false
		}
		seen[p.LogID] = true
		run, ok := cc.runs.get(p.LogID)
		if !ok {
			return nil, nil, false
		}
		e := run.e
		ps = append(ps, member{e: &e, outcome: run.outcome})
	}
	slices.SortStableFunc(ps, func(a, b member) int { return a.e.Start().Compare(b.e.Start()) })
	gaps := make([]time.Duration, len(ps)-1)
	for j := 1; j < len(ps); j++ {
		gaps[j-1] = ps[j].e.Start().Sub(callerEnd(ps[j-1].e, cc.timeout))
	}
	return ps, gaps, true
}

// metaReason says that the members are the tools of a meta tool sent again, and why it was.
func metaReason(ms, parents []member, why string) string {
	ids := make([]string, len(parents))
	for i, p := range parents {
		ids[i] = p.e.ID
	}
	return fmt.Sprintf("%d runs of %s, each by its own run of %s (%s): the meta tool was sent again and ran the tools it holds again; why it was sent again: %s",
		len(ms), ms[0].e.ToolSlug, strings.ToUpper(parents[0].e.ToolSlug), strings.Join(ids, ", "), why)
}

// runsKey is the runs of a meta tool a group's members each ran under, when they did
// (resentParents): their log ids, oldest first, joined; "" for any other group.
func runsKey(ms []member, cc causeContext) string {
	ps, _, ok := resentParents(ms, cc)
	if !ok {
		return ""
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.e.ID
	}
	return strings.Join(ids, "\x00")
}

// mergeResentRuns joins the groups whose members ran under the same runs of a meta tool (one
// group per tool it holds, each found among its own caller's writes) into one: a re-sent meta
// tool whose tools all ran again is one duplicate, of all its tools, named by why it was sent
// again. The result does not depend on the order of all. A joined group keeps the id, cause
// and numbers (ns) of its parts; its members are theirs, oldest first.
func mergeResentRuns(all []foundGroup, timeout time.Duration) []foundGroup {
	parts := map[string][]int{}
	for k := range all {
		if all[k].runs != "" {
			parts[all[k].runs] = append(parts[all[k].runs], k)
		}
	}
	joined := make(map[int]bool)
	out := make([]foundGroup, 0, len(all))
	for k := range all {
		f := all[k]
		if f.runs == "" || len(parts[f.runs]) < 2 {
			f.ns = []int{f.n}
			out = append(out, f)
			continue
		}
		if joined[k] {
			continue
		}
		ks := parts[f.runs]
		for _, j := range ks {
			joined[j] = true
		}
		out = append(out, joinGroups(all, ks, timeout))
	}
	return out
}

// joinGroups is the one group of all[ks] (groups of the same runs' tools).
func joinGroups(all []foundGroup, ks []int, timeout time.Duration) foundGroup {
	// the part with the oldest first member names the whole (ties by id, for a stable answer)
	slices.SortFunc(ks, func(a, b int) int {
		if c := all[a].first.Compare(all[b].first); c != 0 {
			return c
		}
		return strings.Compare(all[a].g.ID, all[b].g.ID)
	})
	head := all[ks[0]]
	type m struct {
		id         string
		start, end time.Time
		in         int
		hasIn      bool
	}
	var ms []m
	var tools []string
	j := head
	j.ns, j.in = nil, nil
	for _, k := range ks {
		f := all[k]
		j.ns = append(j.ns, f.n)
		tools = append(tools, f.tool)
		j.g.Similarity = min(j.g.Similarity, f.g.Similarity)
		for i, id := range f.g.ExecutionIDs {
			x := m{id: id, start: f.starts[i], end: f.ends[i]}
			if f.in != nil {
				x.in, x.hasIn = f.in[i], true
			}
			ms = append(ms, x)
		}
	}
	slices.SortStableFunc(ms, func(a, b m) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	j.g.ExecutionIDs = make([]string, len(ms))
	j.starts, j.ends = make([]time.Time, len(ms)), make([]time.Time, len(ms))
	j.g.Gaps = make([]time.Duration, len(ms)-1)
	for i, x := range ms {
		j.g.ExecutionIDs[i], j.starts[i], j.ends[i] = x.id, x.start, x.end
		if x.hasIn {
			j.in = append(j.in, x.in)
		}
		if i > 0 {
			j.g.Gaps[i-1] = x.start.Sub(ms[i-1].end)
		}
	}
	slices.Sort(tools)
	tools = slices.Compact(tools)
	j.tool = strings.Join(tools, ", ")
	j.g.Match = fmt.Sprintf("every tool the meta tool holds ran again (%s), each with %s", j.tool, head.g.Match)
	if _, why, ok := strings.Cut(head.g.Reason, "why it was sent again: "); ok {
		j.g.Reason = fmt.Sprintf("%d runs of %d tools (%s) under the runs of the same meta tool (%s): the meta tool was sent again and ran every tool it holds again; why it was sent again: %s",
			len(ms), len(tools), j.tool, strings.ReplaceAll(head.runs, "\x00", ", "), why)
	}
	return j
}
