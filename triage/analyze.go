package triage

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sdkversion"
)

// Result is the triage of a batch of executions.
type Result struct {
	// Triage is aligned with the input: Triage[i] is about execs[i].
	Triage []model.Triage
	// Groups are the duplicate groups, ordered by their oldest member's start.
	Groups []model.DuplicateGroup
	byID   map[string]int
}

// Group returns the duplicate group with the given id.
func (r *Result) Group(id string) (model.DuplicateGroup, bool) {
	if i, ok := r.byID[id]; ok {
		return r.Groups[i], true
	}
	return model.DuplicateGroup{}, false
}

// GroupIndex returns the position in Groups of the group with the given id.
func (r *Result) GroupIndex(id string) (int, bool) {
	i, ok := r.byID[id]
	return i, ok
}

// Flagged counts the flagged executions.
func (r *Result) Flagged() int {
	n := 0
	for i := range r.Triage {
		if r.Triage[i].Flagged {
			n++
		}
	}
	return n
}

// SDK retry timing (composio-api.md): the delay before retry n (0-based) is
// min(0.5·2^n, 8) s times a jitter in [0.75, 1]; sdkTolerance absorbs network time and clock
// granularity on either side.
const (
	sdkBaseDelay   = 500 * time.Millisecond
	sdkMaxDelay    = 8 * time.Second
	sdkMinJitter   = 0.75
	sdkTolerance   = 150 * time.Millisecond
	sdkMaxAttempts = 3
	// nearSimultaneous is the start-to-start spacing below which two submissions that the SDK
	// did not make are a double submit rather than a retry loop.
	nearSimultaneous = time.Second
	// irregularRatio: in a retry loop consecutive gaps are equal or grow by a constant factor
	// (2 for exponential backoff); gaps differing by more than this factor are irregular.
	irregularRatio = 3.0
)

// Analyze classifies every execution and groups duplicate writes. It runs in O(n log n): one
// pass computes kinds (memoised per slug) and outcomes, and buckets writes by tool and
// connected account (else user); each bucket is sorted by start once, and only the writes with
// a bucket neighbour within the window — the only ones that can be duplicates — have their
// canonical arguments hashed and are bucketed again by (tool, account or user, arguments).
// Each such bucket with two or more members is sorted by start and split where consecutive
// members are further apart than the window. Executions whose arguments are not recorded
// (list entries) or that name neither a connected account nor a user are not grouped:
// equal-looking calls could not be told apart.
func Analyze(execs []model.Execution, kinds *Kinds, opt Options) *Result {
	opt = opt.WithDefaults()
	res := &Result{Triage: make([]model.Triage, len(execs)), byID: map[string]int{}}
	outcomes := make([]model.Outcome, len(execs))
	groupable := make([]bool, len(execs))
	classifyAll(execs, kinds, opt, classifyMinChunk, res.Triage, outcomes, groupable)

	callers := NewCallers()
	var spans []WriteSpan
	for i := range execs {
		if groupable[i] {
			spans = append(spans, SpanOf(&execs[i], callers.Of(&execs[i]), int32(i)))
		}
	}
	cand, _ := Candidates(spans, opt.Window, func(ref int32) string { return execs[ref].ID })
	idx := make([]int, len(cand))
	for k, r := range cand {
		idx[k] = int(r)
	}
	groups, in := groupAmong(execs, outcomes, func(i int) model.ToolKind { return res.Triage[i].Kind }, idx, opt)
	for k, g := range groups {
		for _, i := range in[k] {
			res.Triage[i].GroupID = g.ID
		}
	}
	res.Groups = groups
	for i, g := range res.Groups {
		res.byID[g.ID] = i
	}
	return res
}

// Callers numbers the callers of writes: one tool (case-insensitive) called by one
// connected account, else by one user. Duplicates are only ever found within one caller.
type Callers struct {
	ids   map[callerKey]int32
	upper map[string]string
}

type callerKey struct {
	tool    string
	account bool
	who     string
}

// NewCallers returns an empty numbering.
func NewCallers() *Callers {
	return &Callers{ids: map[callerKey]int32{}, upper: map[string]string{}}
}

// Of is e's caller's number.
func (c *Callers) Of(e *model.Execution) int32 {
	u, ok := c.upper[e.ToolSlug]
	if !ok {
		u = strings.ToUpper(e.ToolSlug)
		c.upper[e.ToolSlug] = u
	}
	ck := callerKey{tool: u, account: e.ConnectedAccountID != "", who: e.ConnectedAccountID}
	if !ck.account {
		ck.who = e.UserID
	}
	id, ok := c.ids[ck]
	if !ok {
		id = int32(len(c.ids))
		c.ids[ck] = id
	}
	return id
}

// WriteSpan is what finding duplicate candidates reads of a groupable write, in 32 bytes with
// no pointer: its caller, when it started and was last seen running (Unix seconds and
// nanoseconds: any year), and ref, the caller's handle on the record (its id is asked for by
// ref, on a tie).
type WriteSpan struct {
	startSec, seenSec   int64
	startNsec, seenNsec int32
	caller, ref         int32
}

// SpanOf is e's WriteSpan.
func SpanOf(e *model.Execution, caller, ref int32) WriteSpan {
	st, se := e.Start(), lastSeen(e)
	return WriteSpan{startSec: st.Unix(), startNsec: int32(st.Nanosecond()), seenSec: se.Unix(), seenNsec: int32(se.Nanosecond()), caller: caller, ref: ref}
}

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
func Candidates(spans []WriteSpan, window time.Duration, id func(ref int32) string) (refs []int32, ends []int) {
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
			if refs = mayRepeat(spans[lo:hi], window, id, refs); len(refs) > n {
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
	found := findGroups(execs, outcomes, func(i int) model.ToolKind { return kind[i] }, idx, gr.opt)
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
func (gr *Grouper) Groups() (groups []model.DuplicateGroup, order []int) {
	sortGroups(gr.found)
	if len(gr.found) == 0 {
		return nil, nil
	}
	groups = make([]model.DuplicateGroup, len(gr.found))
	order = make([]int, len(gr.found))
	for k := range gr.found {
		groups[k] = gr.found[k].g
		order[gr.found[k].n] = k
	}
	return groups, order
}

// groupAmong buckets the candidates (indices into execs) by effect key and finds each
// bucket's groups: the groups ordered by their oldest member's start (then id), with each
// group's member indices.
func groupAmong(execs []model.Execution, outcomes []model.Outcome, kind func(int) model.ToolKind, cand []int, opt Options) ([]model.DuplicateGroup, [][]int) {
	all := findGroups(execs, outcomes, kind, cand, opt)
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

// findGroups is groupAmong's groups in no order.
func findGroups(execs []model.Execution, outcomes []model.Outcome, kind func(int) model.ToolKind, cand []int, opt Options) []foundGroup {
	byStart := func(a, b int) int {
		if c := execs[a].Start().Compare(execs[b].Start()); c != 0 {
			return c
		}
		return strings.Compare(execs[a].ID, execs[b].ID)
	}
	keys := make([]string, len(cand))
	eas := make([]effectArgs, len(cand))
	skip := skipSet(opt.VolatileKeys)
	parallel(len(cand), 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			i := cand[k]
			keys[k], eas[k], _ = effectKey(&execs[i], kind(i), opt.VolatileKeys, skip)
		}
	})
	buckets := map[string][]int{}
	parts := make(map[int]effectArgs, len(cand))
	for k, i := range cand {
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
				f := foundGroup{g: g, in: in[k], first: execs[in[k][0]].Start()}
				for _, i := range in[k] {
					if s := execs[i].Start(); s.Before(f.first) {
						f.first = s
					}
				}
				mine = append(mine, f)
			}
		}
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	})
	return all
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

// parallel runs work over [0, n) in parts of at least least items, on every core.
func parallel(n, least int, work func(lo, hi int)) {
	parallelParts(n, least, func(_, lo, hi int) { work(lo, hi) })
}

// parallelParts is parallel telling each part its number w, below parts(n, least).
func parallelParts(n, least int, work func(w, lo, hi int)) {
	workers := parts(n, least)
	if workers == 1 {
		work(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { work(w, n*w/workers, n*(w+1)/workers) })
	}
	wg.Wait()
}

// parts is how many parts parallel splits n items into: one per core, of at least least.
func parts(n, least int) int { return max(1, min(cores.N(), n/max(least, 1))) }

// classifyMinChunk is the fewest executions worth a goroutine of their own.
const classifyMinChunk = 16384

// classifyAll fills triage (without groups), outcomes and groupable for every execution,
// split across the cores in parts of at least least executions, each with its own Classifier.
func classifyAll(execs []model.Execution, kinds *Kinds, opt Options, least int, triage []model.Triage, outcomes []model.Outcome, groupable []bool) {
	part := func(lo, hi int) {
		c := NewClassifier(kinds, opt)
		for i := lo; i < hi; i++ {
			triage[i], groupable[i] = c.Classify(&execs[i])
			outcomes[i] = triage[i].Outcome
		}
	}
	parallel(len(execs), least, part)
}

// Classifier triages one execution at a time, without groups, keeping a memo of what
// repeats: a tool's kind and effect, an SDK note, a reason text (equal reasons share one
// string). It is not safe for concurrent use: one per goroutine.
type Classifier struct {
	kinds   *Kinds
	opt     Options
	slugs   map[string]slugInfo
	oldSDK  map[sdkKey]string
	reasons map[string]string
	memo    *memo
}

type slugInfo struct {
	kind model.ToolKind
	fx   effect
}

// NewClassifier returns a Classifier for kinds and opt (defaults filled in).
func NewClassifier(kinds *Kinds, opt Options) *Classifier {
	return &Classifier{kinds: kinds, opt: opt.WithDefaults(), slugs: map[string]slugInfo{}, oldSDK: map[sdkKey]string{}, reasons: map[string]string{}, memo: newMemo()}
}

// slug is the kind and effect the classifier gave slug (learning them the first time).
func (c *Classifier) slug(slug string) slugInfo {
	si, ok := c.slugs[slug]
	if !ok {
		si.kind = c.kinds.Kind(slug)
		si.fx = effectOf(slug, si.kind)
		c.slugs[slug] = si
	}
	return si
}

// Classify is e's triage without its group, and whether it can be grouped at all (a write
// with recorded arguments and an account or a user).
func (c *Classifier) Classify(e *model.Execution) (model.Triage, bool) {
	si := c.slug(e.ToolSlug)
	k := si.kind
	out, reason := classify(e, c.opt, si.fx, c.memo)
	if !e.IsToolExecution() { // a trigger delivery, an account event: shown, never a write
		k = model.KindRead
		reason = NotAnExecution(e) + ": " + reason
	}
	if out == model.OutcomeSucceeded && e.HasDuration {
		// a success's text is c.memo's, shared already (interning only shares memory)
	} else if r, ok := c.reasons[reason]; ok {
		reason = r
	} else if len(c.reasons) < 1<<16 {
		c.reasons[reason] = reason
	}
	note := ""
	if e.SDKVersion != "" { // OldSDK says nothing without a version
		sk := sdkKey{e.SDKVersion, e.Source.Language, e.Source.Framework, e.Source.Host, CallPath(e)}
		var ok bool
		if note, ok = c.oldSDK[sk]; !ok {
			note = OldSDK(e)
			c.oldSDK[sk] = note
		}
	}
	return model.Triage{
		Kind:    k,
		Outcome: out,
		Flagged: k.IsWrite() && (out == model.OutcomeAmbiguous || out == model.OutcomeRejected),
		Reason:  reason,
		OldSDK:  note,
	}, isGroupable(e, k)
}

// NotAnExecution says what a record that is not a tool execution is.
func NotAnExecution(e *model.Execution) string {
	switch e.Type {
	case model.TypeTriggerMessage:
		return "a trigger delivery (trigger.message), not a tool execution"
	case model.TypeAccountCreated:
		return "an account event (connected_account.created), not a tool execution"
	}
	return "a " + e.Type + " record, not a tool execution"
}

// KindOf is e's kind: its tool's, or read for a record that is not a tool execution (it
// changes nothing a retry could repeat).
func KindOf(kinds *Kinds, e *model.Execution) model.ToolKind {
	if !e.IsToolExecution() {
		return model.KindRead
	}
	return kinds.Kind(e.ToolSlug)
}

// sdkKey is what OldSDK reads of an execution: everything, or a memo would give one call
// path's note to another's.
type sdkKey struct {
	version, language, framework, host string
	path                               sdkversion.Path
}

// isGroupable reports whether GroupKey would give e a key.
func isGroupable(e *model.Execution, kind model.ToolKind) bool {
	return kind.IsWrite() && (len(e.Arguments) > 0 || e.Detailed) && (e.ConnectedAccountID != "" || e.UserID != "")
}

// mayRepeat appends to out the refs of the members of one caller's writes (spans sorted by
// start, then id) that have another member within the window: one that started no later than
// window after it was last seen, or that was last seen no earlier than window before it
// started. A duplicate group's consecutive members are such a pair, and members of one group
// share the caller and the tool, so no other execution can belong to a group — nor, being
// beyond the window of every member on both sides, change how a bucket splits. Members with
// the same start and id are always kept.
func mayRepeat(spans []WriteSpan, window time.Duration, id func(int32) string, out []int32) []int32 {
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
		if keep {
			out = append(out, e.ref)
		}
		if s := e.seen(); j == 0 || s.After(seen) {
			seen = s
		}
	}
	return out
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
// hash of its identifying arguments (every argument but its free text, see similar.go). ok is
// false for reads and for executions that cannot be grouped (arguments not recorded, no
// account and no user).
func GroupKey(e *model.Execution, kind model.ToolKind, volatile []string) (key string, ok bool) {
	key, _, ok = effectKey(e, kind, volatile, skipSet(volatile))
	return key, ok
}

// effectKey is GroupKey with the split arguments; skip is skipSet(volatile), made once for
// many keys. Arguments that are not JSON are all identity: only byte-identical ones are
// duplicates.
func effectKey(e *model.Execution, kind model.ToolKind, volatile []string, skip map[string]bool) (string, effectArgs, bool) {
	if !kind.IsWrite() {
		return "", effectArgs{}, false
	}
	if len(e.Arguments) == 0 && !e.Detailed {
		return "", effectArgs{}, false
	}
	who := "account:" + e.ConnectedAccountID
	if e.ConnectedAccountID == "" {
		if e.UserID == "" {
			return "", effectArgs{}, false
		}
		who = "user:" + e.UserID
	}
	ea, ok := splitArgsSkipping(e.Arguments, volatile, skip)
	var h string
	if ok {
		sum := sha256.Sum256(ea.identity)
		h = hex.EncodeToString(sum[:])
	} else {
		sum := sha256.Sum256(e.Arguments)
		h = "raw:" + hex.EncodeToString(sum[:])
		ea = effectArgs{identity: e.Arguments}
	}
	return strings.ToUpper(e.ToolSlug) + "\x00" + who + "\x00" + h, ea, true
}

// groupBucket finds the duplicate groups among one bucket's members (indices into execs,
// sorted by start then id; parts holds their split arguments), with each group's member
// indices.
func groupBucket(key string, execs []model.Execution, outcomes []model.Outcome, idx []int, parts map[int]effectArgs, opt Options) ([]model.DuplicateGroup, [][]int) {
	bm := make([]bucketMember, len(idx))
	for j, i := range idx {
		bm[j] = bucketMember{start: execs[i].Start(), seen: lastSeen(&execs[i]), text: signature(parts[i].rawText), succeeded: outcomes[i] == model.OutcomeSucceeded}
	}
	var groups []model.DuplicateGroup
	var in [][]int
	for _, c := range clusterBucket(bm, opt.Window) {
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
		ID:           "dup-" + hex.EncodeToString(sum[:4]),
		ExecutionIDs: make([]string, len(members)),
		Gaps:         make([]time.Duration, len(members)-1),
		Effective:    -1,
		Similarity:   sim,
		Match:        matchWords(ea, sim),
	}
	for j, m := range members {
		g.ExecutionIDs[j] = m.e.ID
	}
	for j := 1; j < len(members); j++ {
		g.Gaps[j-1] = members[j].e.Start().Sub(callerEnd(members[j-1].e, opt.CallerTimeout))
	}
	g.Pattern, g.Reason = patternOf(members, g.Gaps, sim < 1)
	return g
}

type member struct {
	e       *model.Execution
	outcome model.Outcome
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

// sdkDelayBand is the range of the SDK's delay before retry n (0-based), with tolerance.
func sdkDelayBand(n int) (lo, hi time.Duration) {
	d := min(sdkBaseDelay<<n, sdkMaxDelay)
	return time.Duration(float64(d)*sdkMinJitter) - sdkTolerance, d + sdkTolerance
}

// sdkRetriable reports whether the SDK would have retried after this execution: a timeout, a
// connection error, 408/409/429 or 5xx, i.e. anything but a clean success or a definite 4xx.
func sdkRetriable(m member) bool {
	switch m.outcome {
	case model.OutcomeAmbiguous, model.OutcomeRejected:
		return true
	case model.OutcomeFailed:
		if m.e.Error == nil {
			return false
		}
		c := m.e.Error.HTTPStatus
		return m.e.Error.Kind == model.ErrConnection || c == 408 || c == 409 || c == 429 || c >= 500
	}
	return false
}

// patternOf names where a group came from:
//
//   - sdk_auto_retry: 2-3 attempts where the records carry the SDK's retry count 1, 2 in order;
//     or where each attempt after the first started within the SDK's backoff band after the
//     previous one ended or timed out (about 0.375-0.5 s, then 0.75-1 s, ±150 ms) and the
//     previous one ended in a way the SDK retries, with no record saying it was a first try;
//   - session_auto_retry: the same, when every attempt is a tool-router session execution;
//   - framework_retry: waits of about 1 s, then 2 s, after a failed attempt (an agent
//     framework's tool retry, LangChain's ToolRetryMiddleware);
//   - double_submit: two starts closer than 1 s while the previous attempt was still running
//     or after it succeeded, attempts from different sessions or SDKs, an attempt after a
//     clean success (nothing to retry), or irregular waits;
//   - app_retry: after failures the caller saw, regular (or steadily growing) waits from the
//     same source.
//
// The reason ends with the fix (model.PatternFix).
func patternOf(ms []member, gaps []time.Duration, reworded bool) (model.RetryPattern, string) {
	p, reason := patternAndReason(ms, gaps, reworded)
	if fix := model.PatternFix(p); fix != "" {
		reason += "; fix: " + fix
	}
	return p, reason
}

// sdkPattern is sdk_auto_retry, or session_auto_retry when every member is a tool-router
// session execution (the same backoff, the path current SDKs still retry).
func sdkPattern(ms []member) (model.RetryPattern, string) {
	for _, m := range ms {
		if CallPath(m.e) != sdkversion.PathSession {
			return model.PatternSDKAutoRetry, "the SDK's own retry"
		}
	}
	return model.PatternSessionAutoRetry, "the SDK's own retry of a session write"
}

// Framework retry band: LangChain's ToolRetryMiddleware waits about 1 s, then 2 s (initial 1 s,
// factor 2, with jitter) after the failed attempt ended.
const (
	frameworkBase = time.Second
	frameworkLow  = 0.7 // jitter and clocks: 0.7-1.6 s, then 1.4-3.2 s
	frameworkHigh = 1.6
)

// frameworkFits reports whether each wait fits the framework's backoff after a failure.
func frameworkFits(ms []member, gaps []time.Duration) bool {
	if len(ms) > 3 || len(gaps) == 0 {
		return false
	}
	for j, g := range gaps {
		d := frameworkBase << j
		if g < time.Duration(float64(d)*frameworkLow) || g > time.Duration(float64(d)*frameworkHigh) || ms[j].outcome == model.OutcomeSucceeded {
			return false
		}
	}
	return true
}

func patternAndReason(ms []member, gaps []time.Duration, reworded bool) (model.RetryPattern, string) {
	n := len(ms)
	if reworded { // an SDK, a framework or a loop sends the same bytes; an LLM writes anew
		return model.PatternAgentRetry, agentReason(ms, gaps)
	}
	sdk := sdkNote(ms)
	if n <= sdkMaxAttempts && retryCountsSay(ms) {
		p, what := sdkPattern(ms)
		return p, fmt.Sprintf("%d attempts %s, recorded as SDK retries %s: %s%s",
			n, gapList(gaps, "after the previous"), retryCounts(ms), what, sdk)
	}
	if n <= sdkMaxAttempts && !anyFirstTry(ms) {
		fits := true
		for j, g := range gaps {
			lo, hi := sdkDelayBand(j)
			if g < lo || g > hi || !sdkRetriable(ms[j]) {
				fits = false
				break
			}
		}
		if fits {
			p, what := sdkPattern(ms)
			return p, fmt.Sprintf("%d attempts %s %s: %s%s",
				n, gapList(gaps, ""), afterEach(ms[:n-1]), what, sdk)
		}
	}
	if frameworkFits(ms, gaps) {
		fw := ""
		if f := ms[0].e.Source.Framework; f != "" {
			fw = " (framework " + f + ")"
		}
		return model.PatternFrameworkRetry, fmt.Sprintf("%d attempts %s a failure: an agent framework's tool retry%s", n, gapList(gaps, "after"), fw)
	}
	for j := 1; j < n; j++ {
		startGap := ms[j].e.Start().Sub(ms[j-1].e.Start())
		if startGap < nearSimultaneous && gaps[j-1] < 0 {
			return model.PatternDoubleSubmit, fmt.Sprintf("%d attempts, one started %s after the previous one started, while it was still running (overlap %s): a double submit (a second click or a second worker)",
				n, model.GapAmount(startGap), model.GapAmount(gaps[j-1]))
		}
		if startGap < nearSimultaneous && !sdkRetriable(ms[j-1]) {
			return model.PatternDoubleSubmit, fmt.Sprintf("%d attempts, one started %s after the previous one started, which needed no retry: a double submit (a second click or a second worker)",
				n, model.GapAmount(startGap))
		}
	}
	if a, b, ok := differentSources(ms); ok {
		return model.PatternDoubleSubmit, fmt.Sprintf("%d attempts from different sources (%s, %s): a double submit (two clients or two workers)", n, a, b)
	}
	for j := 0; j < n-1; j++ {
		if ms[j].outcome == model.OutcomeSucceeded {
			return model.PatternDoubleSubmit, fmt.Sprintf("%d attempts, one %s after the previous succeeded: resubmitted (a second click or a second worker), not a retry",
				n, model.GapAmount(gaps[j]))
		}
	}
	if irregular(gaps) {
		return model.PatternDoubleSubmit, fmt.Sprintf("%d attempts at irregular intervals (%s after the previous ended): submitted by hand or by more than one worker", n, gapList(gaps, ""))
	}
	return model.PatternAppRetry, fmt.Sprintf("%d attempts %s, same source: the application's own retry loop", n, gapList(gaps, "after the previous ended"))
}

// agentReason explains an agent_retry group: what the agent saw before calling again.
func agentReason(ms []member, gaps []time.Duration) string {
	n := len(ms)
	saw := afterEach(ms[:n-1]) // reworded texts join only after attempts that did not succeed
	where := ""
	switch {
	case sameField(ms, func(e *model.Execution) string { return e.SessionID }):
		where = ", in one session"
	case sameField(ms, func(e *model.Execution) string { return e.TraceID }):
		where = ", in one trace"
	}
	fw := ""
	if f := ms[0].e.Source.Framework; f != "" {
		fw = " (framework " + f + ")"
	}
	return fmt.Sprintf("%d attempts %s %s, the text regenerated each time%s: the agent called the tool again%s",
		n, gapList(gaps, ""), saw, where, fw)
}

// sameField: every member has the same non-empty value.
func sameField(ms []member, f func(*model.Execution) string) bool {
	v := f(ms[0].e)
	if v == "" {
		return false
	}
	for _, m := range ms[1:] {
		if f(m.e) != v {
			return false
		}
	}
	return true
}

// retryCountsSay reports whether the records carry the SDK's retry counters 0/1/2 in sequence
// with at least one retry (a first member with an unknown count is fine: the first try may be
// logged without the header).
func retryCountsSay(ms []member) bool {
	seen := false
	for j, m := range ms {
		rc := m.e.RetryCount
		switch {
		case rc < 0 && j == 0:
		case rc != j:
			return false
		case rc > 0:
			seen = true
		}
	}
	return seen
}

// anyFirstTry: a later member recorded with retry count 0 is a fresh call, not an SDK retry.
func anyFirstTry(ms []member) bool {
	for _, m := range ms[1:] {
		if m.e.RetryCount == 0 {
			return true
		}
	}
	return false
}

func retryCounts(ms []member) string {
	var b strings.Builder
	for _, m := range ms[1:] {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, m.e.RetryCount)
	}
	return b.String()
}

// differentSources: two members with different recorded sessions, SDK languages or versions.
func differentSources(ms []member) (string, string, bool) {
	for j := 1; j < len(ms); j++ {
		a, b := ms[0].e, ms[j].e
		switch {
		case a.SessionID != "" && b.SessionID != "" && a.SessionID != b.SessionID:
			return "session " + a.SessionID, "session " + b.SessionID, true
		case a.Source.Language != "" && b.Source.Language != "" && !strings.EqualFold(a.Source.Language, b.Source.Language):
			return a.Source.Language, b.Source.Language, true
		case a.SDKVersion != "" && b.SDKVersion != "" && a.SDKVersion != b.SDKVersion:
			return "SDK " + a.SDKVersion, "SDK " + b.SDKVersion, true
		}
	}
	return "", "", false
}

// irregular: consecutive waits (previous end to next start) that differ by more than
// irregularRatio without growing steadily (an exponential backoff grows, a person's clicks
// jump around). Waits, not start-to-start spacings: a retry loop waits a fixed time after a
// failure however long the failed attempt took.
func irregular(starts []time.Duration) bool {
	if len(starts) == 1 {
		return starts[0] <= 0
	}
	growing := true
	for j := 1; j < len(starts); j++ {
		if starts[j] < starts[j-1] {
			growing = false
		}
	}
	for j := 1; j < len(starts); j++ {
		a, b := float64(starts[j-1]), float64(starts[j])
		if a <= 0 || b <= 0 {
			return true
		}
		r := max(a, b) / min(a, b)
		if r > irregularRatio && !(growing && r <= 2*irregularRatio) {
			return true
		}
	}
	return false
}

func afterEach(prev []member) string {
	what := ""
	for _, m := range prev {
		w := failureWord(m)
		if what == "" {
			what = w
		} else if what != w {
			what = "failure"
		}
	}
	if len(prev) == 1 {
		return "after a " + what
	}
	return "after each " + what
}

func failureWord(m member) string {
	e := m.e
	switch {
	case e.Error != nil && (e.Error.Kind == model.ErrTimeout || e.Error.HTTPStatus == 408):
		return "timeout"
	case e.Error != nil && (e.Error.HTTPStatus >= 500 || e.Error.Kind == model.ErrUpstream5xx):
		return "5xx"
	case e.Error != nil && (e.Error.HTTPStatus == 429 || e.Error.Kind == model.ErrRateLimited):
		return "429"
	case e.Error != nil && e.Error.Kind == model.ErrConnection:
		return "dropped connection"
	case m.outcome == model.OutcomeAmbiguous:
		return "timeout"
	}
	return "failure"
}

func sdkNote(ms []member) string {
	for _, m := range ms {
		if m.e.SDKVersion == "" {
			continue
		}
		if sdk, _, ok := sdkversion.FromRecord(m.e.Source.Language); ok {
			return " (" + sdk.Name + " " + m.e.SDKVersion + ")"
		}
		return " (SDK " + m.e.SDKVersion + ")"
	}
	return ""
}

// gapList renders "0.45 s" / "0.45 s and 0.91 s" / "30.0 s, 60.0 s and 120.0 s".
func gapList(gaps []time.Duration, suffix string) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = model.GapAmount(g)
		if g < 0 {
			parts[i] = "-" + parts[i] // overlap: started before the previous ended
		}
	}
	s := parts[0]
	if len(parts) > 1 {
		s = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	if suffix != "" {
		s += " " + suffix
	}
	return s
}

// FillEffective sets each group's Effective from provider states keyed by execution id: the
// number of distinct provider objects matched by the members' checks, at most the group's
// size. Only a check of the oldest member covers every member's effect (a verifier matches
// effects at or after the execution's start), so a group whose oldest member has no known
// state keeps -1. A not_found oldest member with no other matches gives 0.
func FillEffective(groups []model.DuplicateGroup, states map[string]model.ProviderState) {
	for gi := range groups {
		g := &groups[gi]
		if len(g.ExecutionIDs) == 0 {
			continue
		}
		st, ok := states[g.ExecutionIDs[0]]
		if !ok || (st.State != model.ProviderFound && st.State != model.ProviderNotFound) {
			g.Effective = -1
			continue
		}
		ids := map[string]bool{}
		anon := 0
		for _, id := range g.ExecutionIDs {
			s, ok := states[id]
			if !ok || s.State != model.ProviderFound {
				continue
			}
			for _, m := range s.Matches {
				if m.ID == "" {
					anon = max(anon, 1)
					continue
				}
				ids[m.ID] = true
			}
			if len(s.Matches) == 0 {
				anon = max(anon, 1)
			}
		}
		n := len(ids)
		if n == 0 {
			n = anon
		}
		g.Effective = min(n, len(g.ExecutionIDs))
	}
}
