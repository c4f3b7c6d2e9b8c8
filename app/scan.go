package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// Scanned is scan's view of a window: every execution as a compact row (what scan prints of
// it) with its triage, newest first (ties by id), and the duplicate groups. An export is
// scanned as it streams in: each record is triaged as it arrives and only its row is kept
// (about a hundred bytes); the groupable writes also keep where they are in the file, and
// after the load only the few that have a neighbour of the same caller within the window are
// read again, whole, to find the groups. Memory grows with the rows, not with the records.
type Scanned struct {
	rows   []scanRow
	strs   []string // interned: slugs, users, accounts, statuses, kinds, outcomes, reasons, notes
	Groups []model.DuplicateGroup
	// DetailErrors and FirstDetailError are Loaded's (a live source's scan).
	DetailErrors     int
	FirstDetailError error
}

// scanRow is one execution as scan prints it.
type scanRow struct {
	id, requestID                               string
	sec                                         int64 // timestamp, Unix seconds and nanoseconds (any year)
	dur                                         int64
	nsec                                        int32
	group                                       int32 // index in Groups, -1 for none
	tool, toolkit, user, account, status        uint32
	kind, outcome, reason, oldSDK, hasDur, flag uint32
}

// interner numbers strings; strs[0] is "".
type interner struct {
	idx  map[string]uint32
	strs []string
}

func newInterner() *interner { return &interner{idx: map[string]uint32{"": 0}, strs: []string{""}} }

func (in *interner) of(s string) uint32 {
	if k, ok := in.idx[s]; ok {
		return k
	}
	k := uint32(len(in.strs))
	in.idx[s] = k
	in.strs = append(in.strs, s)
	return k
}

// Len is the number of executions.
func (s *Scanned) Len() int { return len(s.rows) }

// Exec is execution i as scan prints it: id, timestamp (UTC), tool, toolkit, user, connected
// account, status, duration and request id; nothing else of the record is kept.
func (s *Scanned) Exec(i int) model.Execution {
	r := &s.rows[i]
	e := model.Execution{
		ID: r.id, RequestID: r.requestID, Timestamp: time.Unix(r.sec, int64(r.nsec)).UTC(),
		ToolSlug: s.strs[r.tool], ToolkitSlug: s.strs[r.toolkit], UserID: s.strs[r.user],
		ConnectedAccountID: s.strs[r.account], Status: s.strs[r.status], Duration: time.Duration(r.dur), HasDuration: r.hasDur != 0,
	}
	return e
}

// Triage is execution i's triage.
func (s *Scanned) Triage(i int) model.Triage {
	r := &s.rows[i]
	t := model.Triage{Kind: model.ToolKind(s.strs[r.kind]), Outcome: model.Outcome(s.strs[r.outcome]), Flagged: r.flag != 0,
		Reason: s.strs[r.reason], OldSDK: s.strs[r.oldSDK]}
	if r.group >= 0 {
		t.GroupID = s.Groups[r.group].ID
	}
	return t
}

// ID is execution i's id.
func (s *Scanned) ID(i int) string { return s.rows[i].id }

// Tool is execution i's tool slug.
func (s *Scanned) Tool(i int) string { return s.strs[s.rows[i].tool] }

// Timestamp is execution i's timestamp (UTC).
func (s *Scanned) Timestamp(i int) time.Time {
	return time.Unix(s.rows[i].sec, int64(s.rows[i].nsec)).UTC()
}

// Scan reads every execution of the window and triages it for scan. An export file is
// streamed (see Scanned); any other source is loaded whole (Load) and then made rows.
func (a *App) Scan(ctx context.Context) (*Scanned, error) {
	loc, ok := a.src.(source.Located)
	if !ok {
		l, err := a.Load(ctx)
		if err != nil {
			return nil, err
		}
		return ScannedOf(l), nil
	}
	opt := a.topt.WithDefaults()
	st := &scanState{s: &Scanned{}, in: newInterner(), kinds: a.kinds, cls: triage.NewClassifier(a.kinds, opt), callers: triage.NewCallers()}
	err := loc.LoadLocated(ctx, a.Window(), func(b []model.Execution, refs []source.Ref) error {
		a.Learn(ctx, b) // an export with an API key: the kinds of new tools first
		for i := range b {
			var ref *source.Ref
			if refs != nil {
				ref = &refs[i]
			}
			st.add(&b[i], ref)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := st.group(ctx, loc, opt); err != nil {
		return nil, err
	}
	st.s.strs = st.in.strs
	sortRows(st.s.rows)
	return st.s, nil
}

// scanState is a streaming scan under way.
type scanState struct {
	s       *Scanned
	in      *interner
	kinds   *triage.Kinds
	cls     *triage.Classifier
	callers *triage.Callers
	// the groupable writes: their spans, their rows, and where to read them again (or, from
	// an export that cannot be read again, the records themselves)
	spans []triage.WriteSpan
	wrRow []int32
	wrRef []source.Ref
	kept  map[int32]model.Execution
}

func (st *scanState) add(e *model.Execution, ref *source.Ref) {
	t, groupable := st.cls.Classify(e)
	st.s.rows = append(st.s.rows, st.row(e, &t))
	if !groupable {
		return
	}
	k := int32(len(st.wrRow))
	st.spans = append(st.spans, triage.SpanOf(e, st.callers.Of(e), k))
	st.wrRow = append(st.wrRow, int32(len(st.s.rows)-1))
	if ref != nil {
		st.wrRef = append(st.wrRef, *ref)
		return
	}
	st.wrRef = append(st.wrRef, source.Ref{})
	if st.kept == nil {
		st.kept = map[int32]model.Execution{}
	}
	st.kept[k] = *e // the batch is reused: the copy's strings and slices are its own
}

func (st *scanState) row(e *model.Execution, t *model.Triage) scanRow {
	b := func(v bool) uint32 {
		if v {
			return 1
		}
		return 0
	}
	r := scanRow{id: e.ID, requestID: e.RequestID, dur: int64(e.Duration), group: -1,
		tool: st.in.of(e.ToolSlug), toolkit: st.in.of(e.ToolkitSlug), user: st.in.of(e.UserID), account: st.in.of(e.ConnectedAccountID),
		status: st.in.of(e.Status), kind: st.in.of(string(t.Kind)), outcome: st.in.of(string(t.Outcome)), reason: st.in.of(t.Reason),
		oldSDK: st.in.of(t.OldSDK), hasDur: b(e.HasDuration), flag: b(t.Flagged)}
	if !e.Timestamp.IsZero() {
		r.sec, r.nsec = e.Timestamp.Unix(), int32(e.Timestamp.Nanosecond())
	} else {
		r.sec = time.Time{}.Unix()
	}
	return r
}

// group reads the candidates again, whole, and finds the groups among them.
func (st *scanState) group(ctx context.Context, loc source.Located, opt triage.Options) error {
	cand := triage.Candidates(st.spans, opt.Window)
	st.spans = nil
	if len(cand) == 0 {
		return nil
	}
	// read in file order: one pass forward over the disk
	slices.SortFunc(cand, func(a, b int32) int { return cmp.Compare(st.wrRow[a], st.wrRow[b]) })
	full := make([]model.Execution, len(cand))
	var refs []source.Ref
	var ids []string
	var at []int
	for j, k := range cand {
		if e, ok := st.kept[k]; ok {
			full[j] = e
			continue
		}
		refs = append(refs, st.wrRef[k])
		ids = append(ids, st.s.rows[st.wrRow[k]].id)
		at = append(at, j)
	}
	if len(refs) > 0 {
		if err := loc.ReadRefs(ctx, refs, ids, func(k int, e model.Execution) error {
			full[at[k]] = e
			return nil
		}); err != nil {
			return fmt.Errorf("reading the possible duplicates again: %w", err)
		}
	}
	groups, of := triage.GroupCandidates(full, st.kinds, opt)
	index := make(map[string]int32, len(groups))
	for g := range groups {
		index[groups[g].ID] = int32(g)
	}
	for j, k := range cand {
		if of[j] != "" {
			st.s.rows[st.wrRow[k]].group = index[of[j]]
		}
	}
	st.s.Groups = groups
	return nil
}

// sortRows orders rows newest first, then by id, keeping the order of equal ones (as
// SortNewestFirst orders executions).
func sortRows(rows []scanRow) {
	newer := func(a, b *scanRow) int {
		if c := cmp.Compare(b.sec, a.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(b.nsec, a.nsec); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	}
	sorted, reversed := true, true
	for i := 1; i < len(rows) && (sorted || reversed); i++ {
		c := newer(&rows[i-1], &rows[i])
		sorted = sorted && c <= 0
		reversed = reversed && c > 0
	}
	switch {
	case sorted:
	case reversed:
		slices.Reverse(rows)
	default:
		slices.SortStableFunc(rows, func(a, b scanRow) int { return newer(&a, &b) })
	}
}

// ScannedOf makes rows of a loaded window.
func ScannedOf(l *Loaded) *Scanned {
	st := &scanState{s: &Scanned{Groups: l.Result.Groups, DetailErrors: l.DetailErrors, FirstDetailError: l.FirstDetailError}, in: newInterner()}
	index := make(map[string]int32, len(l.Result.Groups))
	for g := range l.Result.Groups {
		index[l.Result.Groups[g].ID] = int32(g)
	}
	st.s.rows = make([]scanRow, len(l.Execs))
	for i := range l.Execs {
		t := &l.Result.Triage[i]
		st.s.rows[i] = st.row(&l.Execs[i], t)
		if t.GroupID != "" {
			st.s.rows[i].group = index[t.GroupID]
		}
	}
	st.s.strs = st.in.strs
	return st.s
}
