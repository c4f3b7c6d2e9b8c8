package triage

// The grouping engine: which writes may repeat (callers, spans, candidates within the window),
// which of them are one intended action (the same effect key, or arguments alike enough), and
// the groups in Analyze's order. Naming a group's cause is cause.go's.

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Callers numbers the callers of writes: one tool (case-insensitive) called by one
// connected account, else by one user; or one effect family's tools called by one user
// (intent.go). Duplicates are only ever found within one caller.
type Callers struct {
	ids   map[callerKey]int32
	upper map[string]string
}

type callerKey struct {
	tool    string // upper case, or the tool's effect family (CallerTool)
	account bool   // who is the account, else the user (callerWho)
	who     string
}

// NewCallers returns an empty numbering.
func NewCallers() *Callers {
	return &Callers{ids: map[callerKey]int32{}, upper: map[string]string{}}
}

// CallerTool is what a caller's tool is: the slug in upper case, or "FAMILY:" and its effect
// family for a tool with siblings of one effect (intent.go), whose caller is then the user
// rather than the account (family true).
func CallerTool(slug string) (tool string, family bool) {
	u := strings.ToUpper(slug)
	if f := effectFamily(u); f != "" {
		return "FAMILY:" + f, true
	}
	return u, false
}

// CallerOf is e's caller, as Callers numbers it and as every rule that asks "the same
// caller" reads it (the live load's detail rule): its tool (CallerTool) and who calls it (the
// account, else the user; the user first for a family's tool).
func CallerOf(e *model.Execution) (tool, who string) {
	tool, family := CallerTool(e.ToolSlug)
	account, id, _ := callerWho(e, family)
	return tool, whoString(account, id)
}

// Of is e's caller's number.
func (c *Callers) Of(e *model.Execution) int32 {
	u, ok := c.upper[e.ToolSlug]
	if !ok {
		u, _ = CallerTool(e.ToolSlug)
		c.upper[e.ToolSlug] = u
	}
	ck := callerKey{tool: u}
	ck.account, ck.who, _ = callerWho(e, strings.HasPrefix(u, "FAMILY:"))
	id, ok := c.ids[ck]
	if !ok {
		id = int32(len(c.ids))
		c.ids[ck] = id
	}
	return id
}

// WriteSpan is what finding duplicate candidates reads of a groupable write, in 40 bytes with
// no pointer: its caller, when it started and was last seen running (Unix seconds and
// nanoseconds: any year), and ref, the caller's handle on the record (its id is asked for by
// ref, on a tie).
type WriteSpan struct {
	startSec, seenSec   int64
	startNsec, seenNsec int32
	caller, ref         int32
	args                uint32 // the arguments' checksum (model.Execution.ArgsSum), 0 for none
	unclear             bool   // its outcome is unclear: the same bytes may come again later (RetryReach)
}

// SpanOf is e's WriteSpan; outcome is e's.
func SpanOf(e *model.Execution, outcome model.Outcome, caller, ref int32) WriteSpan {
	st, se := e.Start(), lastSeen(e)
	return WriteSpan{
		startSec:  st.Unix(),
		startNsec: int32(st.Nanosecond()),
		seenSec:   se.Unix(),
		seenNsec:  int32(se.Nanosecond()),
		caller:    caller,
		ref:       ref,
		args:      e.ArgumentsSum(),
		unclear:   outcome == model.OutcomeAmbiguous,
	}
}

// Ref is the reference SpanOf was given (the caller's number for the write).
func (w WriteSpan) Ref() int32 { return w.ref }

func (w *WriteSpan) start() time.Time { return time.Unix(w.startSec, int64(w.startNsec)) }
func (w *WriteSpan) seen() time.Time  { return time.Unix(w.seenSec, int64(w.seenNsec)) }
func (w *WriteSpan) sameStart(o *WriteSpan) bool {
	return w.startSec == o.startSec && w.startNsec == o.startNsec
}

// Candidates returns the refs of the writes that may be duplicates: those with a write of the
// same caller within the window (see mayRepeat), each caller's together, and where each
// caller's run ends in refs (callers never share a group: a batch of whole runs can be
// grouped alone). Only the candidates' full records are needed to find the groups
// (GroupCandidates, Grouper). id is the id of the write at ref. spans is reordered.
//
// Beyond the window, a write whose outcome is unclear and a later one of the same caller sent
// with the same bytes within reach (Options.RetryReach: a queue's redelivery, a scheduler's next
// run) are candidates too.
func Candidates(spans []WriteSpan, window, reach time.Duration, id func(ref int32) string) (refs []int32, ends []int) {
	byStart := func(a, b WriteSpan) int {
		if c := cmp.Compare(a.startSec, b.startSec); c != 0 {
			return c
		}
		if c := cmp.Compare(a.startNsec, b.startNsec); c != 0 {
			return c
		}
		return strings.Compare(id(a.ref), id(b.ref))
	}
	byCaller(spans)
	for lo := 0; lo < len(spans); {
		hi := lo + 1
		for hi < len(spans) && spans[hi].caller == spans[lo].caller {
			hi++
		}
		if n := len(refs); hi-lo >= 2 {
			slices.SortFunc(spans[lo:hi], byStart)
			if refs = mayRepeat(spans[lo:hi], window, reach, id, refs); len(refs) > n {
				ends = append(ends, len(refs))
			}
		}
		lo = hi
	}
	return refs, ends
}

// byCaller orders spans by caller, keeping the order of a caller's spans: a counting sort, as
// callers are numbered densely (a comparison sort of a million spans took a fifth of a second).
// Numbers spread far wider than there are spans are sorted by comparison instead.
func byCaller(spans []WriteSpan) {
	if len(spans) < 2 {
		return
	}
	lo, hi := spans[0].caller, spans[0].caller
	for i := range spans {
		lo, hi = min(lo, spans[i].caller), max(hi, spans[i].caller)
	}
	if int64(hi)-int64(lo) > 4*int64(len(spans))+1024 {
		slices.SortStableFunc(spans, func(a, b WriteSpan) int { return cmp.Compare(a.caller, b.caller) })
		return
	}
	at := make([]int, int(hi-lo)+2)
	for i := range spans {
		at[spans[i].caller-lo+1]++
	}
	for c := 1; c < len(at); c++ {
		at[c] += at[c-1]
	}
	out := make([]WriteSpan, len(spans))
	for i := range spans {
		c := spans[i].caller - lo
		out[at[c]] = spans[i]
		at[c]++
	}
	copy(spans, out)
}

// GroupCandidates finds the duplicate groups among the full records of the writes Candidates
// returned (in any order): the groups, ordered as Analyze orders them, and for each record
// its group's id ("" for none). Analyze over every execution finds the same groups.
func GroupCandidates(execs []model.Execution, kinds *Kinds, opt Options) ([]model.DuplicateGroup, []string) {
	g := NewGrouper(kinds, opt)
	members := g.Add(execs)
	groups, order := g.Groups()
	of := make([]string, len(execs))
	for n, in := range members {
		for _, i := range in {
			of[i] = groups[order[n]].ID
		}
	}
	return groups, of
}

// Grouper is GroupCandidates in parts, so that the candidates' full records need not all be
// held at once: Add takes them in batches, each holding every candidate of the callers it
// holds any of (callers never share a group), and Groups orders all the groups found.
type Grouper struct {
	cls   *Classifier
	opt   Options
	found []foundGroup
}

// foundGroup is a group with its members (indices into the batch that found it), its oldest
// member's start and its number (the order it was found in).
type foundGroup struct {
	g     model.DuplicateGroup
	in    []int
	first time.Time
	n     int
	// runs are the meta tool's runs the members each ran under ("" for most groups: runsKey),
	// with the members' starts and caller ends and the tool, for joining the groups of one
	// re-sent run's tools (mergeResentRuns); ns are the numbers of the groups joined.
	runs         string
	starts, ends []time.Time
	tool         string
	ns           []int
	// caller is the members' account (else user) for a group of two, whose starts are then
	// kept too (nameBatchReplays); "" otherwise.
	caller string
}

// NewGrouper returns a Grouper for kinds and opt.
func NewGrouper(kinds *Kinds, opt Options) *Grouper {
	opt = opt.WithDefaults()
	return &Grouper{cls: NewClassifier(kinds, opt), opt: opt}
}

// Add finds the groups among one batch of candidates. The groups are numbered in the order
// found, across batches; it returns the members of each new one (indices into execs, oldest
// first): members[k] is group number n+k's, n the number found before. The records are not
// kept.
func (gr *Grouper) Add(execs []model.Execution) (members [][]int) {
	outcomes := make([]model.Outcome, len(execs))
	kind := make([]model.ToolKind, len(execs))
	idx := make([]int, len(execs))
	for i := range execs {
		t, _ := gr.cls.Classify(&execs[i])
		outcomes[i], kind[i], idx[i] = t.Outcome, t.Kind, i
	}
	found := findGroups(execs, outcomes, func(i int) model.ToolKind { return kind[i] }, gr.cls.kinds.Roles, idx, gr.opt)
	slices.SortFunc(found, func(a, b foundGroup) int { return cmp.Compare(a.in[0], b.in[0]) }) // a stable numbering
	members = make([][]int, len(found))
	for k := range found {
		members[k], found[k].in = found[k].in, nil
		found[k].n = len(gr.found) + k
	}
	gr.found = append(gr.found, found...)
	return members
}

// Groups is every group found, ordered as Analyze orders them; order[n] is the position in
// groups of the group numbered n.
//
// The groups of one re-sent meta tool's tools are linked to the group of its runs
// (linkResentRuns).
func (gr *Grouper) Groups() (groups []model.DuplicateGroup, order []int) {
	all := linkResentRuns(gr.found)
	nameBatchReplays(all)
	sortGroups(all)
	if len(all) == 0 {
		return nil, nil
	}
	groups = make([]model.DuplicateGroup, len(all))
	order = make([]int, len(gr.found))
	for k := range all {
		groups[k] = all[k].g
		for _, n := range all[k].ns {
			order[n] = k
		}
	}
	return groups, order
}

// groupAmong buckets the candidates (indices into execs) by effect key and finds each
// bucket's groups: the groups ordered by their oldest member's start (then id), with each
// group's member indices.
func groupAmong(
	execs []model.Execution,
	outcomes []model.Outcome,
	kind func(int) model.ToolKind,
	roles func(slug string) Roles,
	cand []int,
	opt Options,
) ([]model.DuplicateGroup, [][]int) {
	all := linkResentRuns(findGroups(execs, outcomes, kind, roles, cand, opt))
	nameBatchReplays(all)
	sortGroups(all)
	if len(all) == 0 {
		return nil, nil
	}
	groups := make([]model.DuplicateGroup, len(all))
	in := make([][]int, len(all))
	for k := range all {
		groups[k], in[k] = all[k].g, all[k].in
	}
	return groups, in
}

// findGroups is groupAmong's groups in no order; roles are the roles the tools' definitions give
// their arguments (Kinds.Roles).
func findGroups(execs []model.Execution, outcomes []model.Outcome, kind func(int) model.ToolKind, roles func(slug string) Roles,
	cand []int, opt Options) []foundGroup {
	byStart := func(a, b int) int { return execOrder(&execs[a], &execs[b]) }
	keys := make([]string, len(cand))
	eas := make([]effectArgs, len(cand))
	skip := skipSet(opt.VolatileKeys)
	parallel(len(cand), 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			i := cand[k]
			keys[k], eas[k], _ = effectKey(&execs[i], kind(i), opt.VolatileKeys, skip, roles(execs[i].ToolSlug))
		}
	})
	buckets := map[string][]int{}
	parts := make(map[int]effectArgs, len(cand))
	for k, i := range cand {
		if keys[k] == "" {
			continue // not groupable: no key is shared
		}
		buckets[keys[k]] = append(buckets[keys[k]], i)
		parts[i] = eas[k]
	}
	var multi []string // the buckets with company, grouped on every core
	for key, idx := range buckets {
		if len(idx) >= 2 {
			multi = append(multi, key)
		}
	}
	var mu sync.Mutex
	var all []foundGroup
	parallel(len(multi), 256, func(lo, hi int) {
		var mine []foundGroup
		for _, key := range multi[lo:hi] {
			idx := buckets[key]
			slices.SortFunc(idx, byStart)
			groups, in := groupBucket(key, execs, outcomes, idx, parts, opt)
			for k, g := range groups {
				mine = append(mine, found(g, in[k], execs, outcomes, opt))
			}
		}
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	})
	keyOf := make(map[int]string, len(cand))
	for k, i := range cand {
		keyOf[i] = keys[k]
	}
	all = joinWidenedAudiences(all, execs, outcomes, kind, roles, cand, keyOf, parts, opt)
	attachSentDrafts(all, execs, outcomes, cand, opt)
	return all
}

// found is a group groupBucket found, with its members (in) and what the passes after it read.
func found(g model.DuplicateGroup, in []int, execs []model.Execution, outcomes []model.Outcome, opt Options) foundGroup {
	f := foundGroup{g: g, in: in, first: execs[in[0]].Start()}
	ms := make([]member, len(in))
	for j, i := range in {
		if s := execs[i].Start(); s.Before(f.first) {
			f.first = s
		}
		ms[j] = member{e: &execs[i], outcome: outcomes[i]}
	}
	if len(ms) == 2 {
		if f.caller = "account:" + ms[0].e.ConnectedAccountID; ms[0].e.ConnectedAccountID == "" {
			f.caller = "user:" + ms[0].e.UserID
		}
		f.starts = []time.Time{ms[0].e.Start(), ms[1].e.Start()}
	}
	if f.runs = runsKey(ms, causeContext{runs: opt.MetaRuns, timeout: opt.CallerTimeout}); f.runs != "" {
		f.starts = nil
		f.tool = strings.ToUpper(execs[in[0]].ToolSlug)
		for _, i := range in {
			f.starts = append(f.starts, execs[i].Start())
			f.ends = append(f.ends, callerEnd(&execs[i], opt.CallerTimeout))
		}
	}
	return f
}

// execOrder is the order of a bucket's members: by start, then id, then what two records of
// one id may differ in (an export's overlapping pages), so that every path, given the records
// in any order, orders them alike.
func execOrder(a, b *model.Execution) int {
	if c := a.Start().Compare(b.Start()); c != 0 {
		return c
	}
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return cmp.Or(
		strings.Compare(strings.ToUpper(a.ToolSlug), strings.ToUpper(b.ToolSlug)),
		strings.Compare(a.ToolSlug, b.ToolSlug),
		strings.Compare(
			a.ConnectedAccountID,
			b.ConnectedAccountID,
		),
		strings.Compare(a.UserID, b.UserID),
		strings.Compare(a.Status, b.Status),
		lastSeen(a).Compare(lastSeen(b)),
		bytes.Compare(a.Arguments, b.Arguments),
		cmp.Compare(a.RetryCount, b.RetryCount),
	)
}

// sortGroups orders groups by their oldest member's start, then id. Groups that share an id
// (executions that share an id) are ordered by the oldest member of any of them.
func sortGroups(all []foundGroup) {
	first := make(map[string]time.Time, len(all))
	for _, f := range all {
		if t, ok := first[f.g.ID]; !ok || f.first.Before(t) {
			first[f.g.ID] = f.first
		}
	}
	slices.SortFunc(all, func(a, b foundGroup) int {
		if c := first[a.g.ID].Compare(first[b.g.ID]); c != 0 {
			return c
		}
		return strings.Compare(a.g.ID, b.g.ID)
	})
}

// isGroupable reports whether GroupKey would give e a key.
func isGroupable(e *model.Execution, kind model.ToolKind) bool {
	return kind.IsWrite() && (len(e.Arguments) > 0 || e.Detailed) && (e.ConnectedAccountID != "" || e.UserID != "") && !asksApproval(e)
}

// asksApproval reports whether e is a session call that asked for a person's approval: a
// question, not an attempt of its action (nothing ran, and the re-call that runs it continues
// it), so never a member of a duplicate group.
func asksApproval(e *model.Execution) bool {
	_, ok := AwaitsApproval(e)
	return ok
}

// mayRepeat appends to out the refs of the members of one caller's writes (spans sorted by
// start, then id) that have another member within the window: one that started no later than
// window after it was last seen, or that was last seen no earlier than window before it
// started. A duplicate group's consecutive members are such a pair, and members of one group
// share the caller and the tool, so no other execution can belong to a group — nor, being
// beyond the window of every member on both sides, change how a bucket splits. Members with
// the same start and id are always kept.
//
// Past the window, a member sent with the same bytes no later than reach after an earlier one
// whose outcome is unclear was last seen is kept, and that earlier one too (resentLater).
func mayRepeat(spans []WriteSpan, window, reach time.Duration, id func(int32) string, out []int32) []int32 {
	late := resentLater(spans, window, reach)
	var seen time.Time // the latest seen among the members before
	for j := range spans {
		e := &spans[j]
		start := e.start()
		keep := j > 0 && start.Sub(seen) <= window
		if j+1 < len(spans) {
			n := &spans[j+1]
			keep = keep || n.start().Sub(e.seen()) <= window || n.sameStart(e) && id(n.ref) == id(e.ref)
		}
		if j > 0 {
			p := &spans[j-1]
			keep = keep || p.sameStart(e) && id(p.ref) == id(e.ref)
		}
		if keep || late != nil && late[j] {
			out = append(out, e.ref)
		}
		if s := e.seen(); j == 0 || s.After(seen) {
			seen = s
		}
	}
	return out
}

// resentLater marks, among one caller's writes sorted by start, each write sent with the same
// bytes more than window and at most reach after an earlier one whose outcome is unclear was
// last seen, and that earlier one (nil when none is).
func resentLater(spans []WriteSpan, window, reach time.Duration) []bool {
	if reach <= window {
		return nil
	}
	var last map[uint32]int // the latest unclear write of each checksum
	var late []bool
	for j := range spans {
		e := &spans[j]
		if e.args == 0 {
			continue
		}
		if p, ok := last[e.args]; ok {
			if gap := e.start().Sub(spans[p].seen()); gap > window && gap <= reach {
				if late == nil {
					late = make([]bool, len(spans))
				}
				late[p], late[j] = true, true
			}
		}
		if e.unclear {
			if last == nil {
				last = map[uint32]int{}
			}
			last[e.args] = j
		}
	}
	return late
}

// reachOf is how far later writes reach back to e when a bucket is split: when it was last seen
// running, and for a write whose outcome is unclear later by RetryReach less the window (its
// retry by a queue or a scheduler may come hours later; clusterBucket joins it past the window
// only with the same bytes).
func reachOf(e *model.Execution, outcome model.Outcome, opt Options) time.Time {
	seen := lastSeen(e)
	if outcome == model.OutcomeAmbiguous && opt.RetryReach > opt.Window {
		seen = model.AddSaturated(seen, opt.RetryReach-opt.Window)
	}
	return seen
}

// lastSeen is the latest moment the execution is known to have been running.
func lastSeen(e *model.Execution) time.Time {
	end, _ := e.End()
	if s := e.Start(); end.Before(s) {
		return s
	}
	return end
}

// GroupKey is the duplicate-bucket key of a write: tool, connected account (else user) and the
// hash of its identifying arguments (every argument but its free text, see similar.go); for a
// tool of an effect family, the family, the user and the recipients (intent.go). ok is
// false for reads and for executions that cannot be grouped (arguments not recorded, no
// account and no user).
func GroupKey(e *model.Execution, kind model.ToolKind, volatile []string) (key string, ok bool) {
	key, _, ok = effectKey(e, kind, volatile, skipSet(volatile), nil)
	return key, ok
}

// effectKey is GroupKey with the split arguments; skip is skipSet(volatile), made once for
// many keys, and roles the roles the tool's definition gives its arguments (nil: none known).
// Arguments that are not JSON are all identity: only byte-identical ones are duplicates.
func effectKey(e *model.Execution, kind model.ToolKind, volatile []string, skip map[string]bool, roles Roles) (string, effectArgs, bool) {
	if !kind.IsWrite() || asksApproval(e) {
		return "", effectArgs{}, false
	}
	if len(e.Arguments) == 0 && !e.Detailed {
		return "", effectArgs{}, false
	}
	family := effectFamily(e.ToolSlug)
	account, id, ok := callerWho(e, family != "")
	if !ok {
		return "", effectArgs{}, false
	}
	who := whoString(account, id)
	tool := strings.ToUpper(e.ToolSlug)
	var ea effectArgs
	if family != "" {
		tool = "FAMILY:" + family
		ea, ok = splitFamily(family, e.Arguments, volatile, skip)
	} else {
		ea, ok = splitArgsSkipping(e.Arguments, volatile, skip, roles)
	}
	var h string
	if ok {
		sum := sha256.Sum256(ea.identity)
		h = hex.EncodeToString(sum[:])
	} else {
		sum := sha256.Sum256(e.Arguments)
		h = "raw:" + hex.EncodeToString(sum[:])
		ea = effectArgs{identity: e.Arguments}
	}
	return tool + "\x00" + who + "\x00" + h, ea, true
}

// groupBucket finds the duplicate groups among one bucket's members (indices into execs,
// sorted by start then id; parts holds their split arguments), with each group's member
// indices.
func groupBucket(
	key string,
	execs []model.Execution,
	outcomes []model.Outcome,
	idx []int,
	parts map[int]effectArgs,
	opt Options,
) ([]model.DuplicateGroup, [][]int) {
	bm := make([]bucketMember, len(idx))
	for j, i := range idx {
		e := &execs[i]
		ea := parts[i]
		bm[j] = bucketMember{
			start:     e.Start(),
			seen:      reachOf(e, outcomes[i], opt),
			near:      lastSeen(e),
			args:      e.ArgumentsSum(),
			text:      signatureOf(ea),
			subject:   foldSubject(ea.subject),
			heading:   headingFactsOf(ea.subject),
			succeeded: outcomes[i] == model.OutcomeSucceeded,
			pinned:    ea.pinned,
			bodyless:  ea.rawText == "",
			tool:      strings.ToUpper(e.ToolSlug),
			toolkit:   toolkitOf(e),
			account:   e.ConnectedAccountID,
			client:    e.SDKVersion,
		}
	}
	var groups []model.DuplicateGroup
	var in [][]int
	for _, c := range clusterBucket(bm, opt.Window, opt.Thresholds) {
		ms := make([]member, len(c.idx))
		mi := make([]int, len(c.idx))
		for k, j := range c.idx {
			mi[k] = idx[j]
			ms[k] = member{e: &execs[idx[j]], outcome: outcomes[idx[j]]}
		}
		groups = append(groups, buildGroup(key, ms, parts[mi[0]], c.sim, opt))
		in = append(in, mi)
	}
	return groups, in
}

func buildGroup(key string, members []member, ea effectArgs, sim float64, opt Options) model.DuplicateGroup {
	sum := sha256.Sum256([]byte(key + "\x00" + members[0].e.ID))
	g := model.DuplicateGroup{
		ID:         "dup-" + hex.EncodeToString(sum[:4]),
		Effective:  -1,
		Similarity: sim,
		Match:      matchWords(ea, sim),
	}
	rewritten := "" // the text says it was written anew when it differs
	if sim == 1 {
		rewritten = rewrittenValue(members, ea.keys, skipSet(opt.VolatileKeys))
	}
	setMembers(&g, members, sim < 1, rewritten, opt)
	return g
}

// setMembers writes a group's members, oldest first, and what they say: the gaps between them,
// the cause (reworded: their texts differ; members sent through several tools are too;
// rewritten: an identifying argument they wrote in another form, rewrittenValue) and the
// deliveries of a redelivery.
func setMembers(g *model.DuplicateGroup, members []member, reworded bool, rewritten string, opt Options) {
	g.ExecutionIDs = make([]string, len(members))
	g.Gaps = make([]time.Duration, len(members)-1)
	for j, m := range members {
		g.ExecutionIDs[j] = m.e.ID
	}
	for j := 1; j < len(members); j++ {
		g.Gaps[j-1] = gapAfter(members[j-1].e, members[j].e, opt.CallerTimeout)
	}
	g.Pattern, g.Reason, g.OtherCauses = patternOf(
		members,
		g.Gaps,
		reworded || rewritten != "" || mixedTools(members) || rerouted(members),
		causeContext{deliveries: opt.Deliveries, runs: opt.MetaRuns, timeout: opt.CallerTimeout, window: opt.Window, th: opt.Thresholds,
			rewritten: rewritten},
	)
	g.Deliveries = nil
	if g.Pattern == model.PatternTriggerRedelivery || g.Pattern == model.PatternDuplicateSubscription {
		_, dls, _ := redelivered(members, opt.Deliveries)
		for _, dl := range dls {
			g.Deliveries = append(g.Deliveries, dl.id)
		}
	}
}

type member struct {
	e       *model.Execution
	outcome model.Outcome
}

// gapAfter is the wait from when prev's caller stopped waiting (callerEnd) to next's start.
// Where prev's end is not recorded its caller's timeout is assumed, and a next start before it
// says only that the caller stopped waiting sooner (a shorter timeout, an error it got first):
// an overlap is never claimed on an assumed end, the wait is 0.
func gapAfter(prev, next *model.Execution, timeout time.Duration) time.Duration {
	g := next.Start().Sub(callerEnd(prev, timeout))
	if _, ok := prev.End(); !ok && g < 0 {
		return 0
	}
	return g
}

// callerEnd is when the caller stopped waiting for the execution: its end, or start + the
// caller's timeout if that came first or the end is unknown. An SDK retry is timed from there,
// not from the server's end (a committed timeout keeps running after the caller gave up).
func callerEnd(e *model.Execution, timeout time.Duration) time.Time {
	limit := e.Start().Add(timeout)
	if end, ok := e.End(); ok && end.Before(limit) {
		return end
	}
	return limit
}
