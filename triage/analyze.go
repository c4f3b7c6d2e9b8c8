package triage

import (
	"cmp"
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

// NewResult is the result of a triage made elsewhere (the window every front reads):
// ts aligned with the executions, the groups in Analyze's order.
func NewResult(ts []model.Triage, groups []model.DuplicateGroup) *Result {
	r := &Result{Triage: ts, Groups: groups, byID: make(map[string]int, len(groups))}
	for i, g := range groups {
		r.byID[g.ID] = i
	}
	return r
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

// SDK retry timing (docs/platform.md, "Who re-sends a write"): the delay before retry n (0-based) is
// min(0.5·2^n, 8) s times a jitter in [0.75, 1]; sdkTolerance absorbs network time and clock
// granularity on either side.
const (
	sdkBaseDelay   = 500 * time.Millisecond
	sdkMaxDelay    = 8 * time.Second
	sdkMinJitter   = 0.75
	sdkTolerance   = 150 * time.Millisecond
	sdkMaxAttempts = 3
)

// Thresholds are the constants the grouping was tuned with: the least text similarities with
// which a member joins (similar.go) and the spacings that tell a cause. The corpus test tunes
// them on some families and scores the families held out (TestCorpusHeldOut); Options takes
// them so that it can.
type Thresholds struct {
	// NearDuplicate is the least text similarity of two members of one group
	// (NearDuplicateSimilarity).
	NearDuplicate float64
	// NearSimultaneous is the start-to-start spacing below which two submissions that the SDK
	// did not make are a double submit rather than a retry loop (1 s).
	NearSimultaneous time.Duration
	// IrregularRatio: in a retry loop consecutive waits are equal or grow by a constant factor
	// (2 for exponential backoff); waits differing by more than this factor are irregular (3).
	IrregularRatio float64
}

func (t Thresholds) withDefaults() Thresholds {
	t.NearDuplicate = cmp.Or(t.NearDuplicate, NearDuplicateSimilarity)
	t.NearSimultaneous = cmp.Or(t.NearSimultaneous, time.Second)
	t.IrregularRatio = cmp.Or(t.IrregularRatio, 3.0)
	return t
}

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
	if opt.Deliveries == nil {
		opt.Deliveries = NewDeliveries()
		for i := range execs {
			opt.Deliveries.Add(&execs[i])
		}
	}
	res := &Result{Triage: make([]model.Triage, len(execs)), byID: map[string]int{}}
	outcomes := make([]model.Outcome, len(execs))
	groupable := make([]bool, len(execs))
	classifyAll(execs, kinds, opt, classifyMinChunk, res.Triage, outcomes, groupable)
	if opt.MetaRuns == nil {
		opt.MetaRuns = NewMetaRuns()
		for i := range execs {
			opt.MetaRuns.Add(&execs[i], outcomes[i])
		}
	}

	callers := NewCallers()
	var spans []WriteSpan
	for i := range execs {
		if groupable[i] {
			spans = append(spans, SpanOf(&execs[i], outcomes[i], callers.Of(&execs[i]), int32(i)))
		}
	}
	cand, _ := Candidates(spans, opt.Window, opt.RetryReach, func(ref int32) string { return execs[ref].ID })
	idx := make([]int, len(cand))
	for k, r := range cand {
		idx[k] = int(r)
	}
	groups, in := groupAmong(execs, outcomes, func(i int) model.ToolKind { return res.Triage[i].Kind }, kinds.Roles, idx, opt)
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

// parallel runs work over [0, n) in parts of at least least items, on every core.
func parallel(n, least int, work func(lo, hi int)) {
	parallelParts(n, least, func(_, lo, hi int) { work(lo, hi) })
}

// parallelParts is parallel telling each part its number w, below parts(n, least).
func parallelParts(n, least int, work func(w, lo, hi int)) { cores.Split(parts(n, least), n, work) }

// parts is how many parts parallel cuts n items into.
func parts(n, least int) int { return cores.Parts(n, least) }

// classifyMinChunk is the fewest executions worth a goroutine of their own.
const classifyMinChunk = 16384

// classifyAll fills triage (without groups), outcomes and groupable for every execution,
// split across the cores in parts of at least least executions, each with its own Classifier.
func classifyAll(
	execs []model.Execution,
	kinds *Kinds,
	opt Options,
	least int,
	triage []model.Triage,
	outcomes []model.Outcome,
	groupable []bool,
) {
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
	return &Classifier{
		kinds:   kinds,
		opt:     opt.WithDefaults(),
		slugs:   map[string]slugInfo{},
		oldSDK:  map[sdkKey]string{},
		reasons: map[string]string{},
		memo:    newMemo(),
	}
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
	// the note says whether the caller's SDK re-sends writes: of a write only (a read sent
	// twice changes nothing, and a read's detail, which carries the language, is never fetched)
	if e.SDKVersion != "" && k.IsWrite() { // OldSDK says nothing without a version
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
