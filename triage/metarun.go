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
	window     time.Duration // the grouping's window: a wait past it is no in-process loop's (appReason)
	th         Thresholds
	// rewritten names an argument the members wrote in another form (rewrittenValue),
	// "" for none
	rewritten string
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
		gaps[j-1] = gapAfter(ps[j-1].e, ps[j].e, cc.timeout)
	}
	return ps, gaps, true
}

// metaReason says that the members are the tools of a meta tool sent again, and why it was.
func metaReason(ms, parents []member, why string) string {
	ids := make([]string, len(parents))
	for i, p := range parents {
		ids[i] = p.e.ID
	}
	return fmt.Sprintf(
		"%d runs of %s, each by its own run of %s (%s): the meta tool was sent again and ran the tools it holds again; why it was sent "+
			"again: %s",
		len(ms),
		ms[0].e.ToolSlug,
		strings.ToUpper(parents[0].e.ToolSlug),
		strings.Join(ids, ", "),
		why,
	)
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

// linkResentRuns links each group whose members ran under their own runs of a meta tool to the
// group of those runs, when the window holds it (DuplicateGroup.MetaGroup). A re-sent meta
// tool runs every tool it holds again, but its tools are different intents (a Slack post and a
// Gmail send): each tool's runs stay a group of their own, named by why the meta tool was sent
// again, and the link says they came from the same re-send. The result does not depend on the
// order of all.
func linkResentRuns(all []foundGroup) []foundGroup {
	groupOf := map[string]string{} // a member's group
	for k := range all {
		for _, id := range all[k].g.ExecutionIDs {
			groupOf[id] = all[k].g.ID
		}
	}
	for k := range all {
		all[k].ns = []int{all[k].n}
		if all[k].runs == "" {
			continue
		}
		runs := strings.Split(all[k].runs, "\x00")
		all[k].g.MetaRuns = runs
		// the group that holds every run (it may hold more: a later run of the same call)
		g := groupOf[runs[0]]
		for _, r := range runs[1:] {
			if groupOf[r] != g {
				g = ""
			}
		}
		all[k].g.MetaGroup = g
	}
	return all
}
