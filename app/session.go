package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// This file is what the TUI asks of a session: streaming the source with the details triage
// needs, full records, provider checks, journal state, the retry dialog's evidence and run,
// verdicts and bundles.

// UseJournal makes j the session's journal (the TUI's retries and verdicts go to it).
func (a *App) UseJournal(j *Journal) {
	if a.ownJ { // a journal ViewJournal opened gives way
		_ = a.j.Close()
		a.ownJ = false
	}
	a.j = j
}

// NoJournal records why the journal could not be opened, so that retries and verdicts refuse
// with the real reason rather than advice to pass a flag that was passed.
func (a *App) NoJournal(err error) { a.jerr = err }

// JournalProblem is why there is no journal ("" when one is open or none was tried).
func (a *App) JournalProblem() string {
	if a.j != nil || a.jerr == nil {
		return ""
	}
	return a.jerr.Error()
}

// noJournal is the error of an action that needs the journal.
func (a *App) noJournal(what string) error {
	if p := a.JournalProblem(); p != "" {
		return fmt.Errorf("the journal could not be opened (%s): %s", p, what)
	}
	return errors.New("no journal is open: " + what)
}

// ViewJournal opens the journal, when it exists, for reading only, so that a reading command
// shows each execution's case as every other front does (it never creates, migrates or
// recovers one); the app closes it. It returns why there is none ("" when it was opened).
func (a *App) ViewJournal(ctx context.Context) string {
	if a.j != nil {
		return ""
	}
	j, note := OpenJournalIfExists(ctx, a.o)
	if j != nil {
		a.j, a.ownJ = j, true
	}
	return note
}

// Journal is the session's journal, nil when none is open.
func (a *App) Journal() *Journal { return a.j }

// maxHydrated bounds the full records a streaming load keeps for finding duplicate groups.
const maxHydrated = 100_000

// Stream streams the source in pages, learning the kinds of tools it has not seen. The list
// entries whose full record triage needs (detailRule) are fetched meanwhile, not before the page
// goes on (lazyDetails): their detailed copies come with a later page, or after the last, and
// the dataset keeps a detailed copy over a list entry. A neighbour seen in an earlier page that
// turns out to need its detail is fetched then.
func (a *App) Stream(ctx context.Context, since time.Duration, page func([]model.Execution) error) error {
	_, _, err := a.stream(ctx, since, true, page, page)
	return err
}

// stream is Stream with the detailed copies handed to details (keep: remembered for Record)
// and how many details could not be fetched, with the first error.
func (a *App) stream(ctx context.Context, since time.Duration, keep bool, page, details func([]model.Execution) error) (int, error, error) {
	if a.src.Client() == nil {
		return 0, nil, a.src.Load(ctx, since, func(batch []model.Execution) error {
			a.Learn(ctx, batch)
			return page(batch)
		})
	}
	rule := newDetailRule(a.kinds, a.topt.Window)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lazy := newLazyDetails(ctx, a, detailWorkers, keep)
	n := 0
	err := a.src.Load(ctx, since, func(batch []model.Execution) error {
		a.Learn(ctx, batch)
		n++
		need, again := rule.needBatch(batch, n)
		want := make([]model.Execution, 0, len(need)+len(again))
		for _, i := range need {
			want = append(want, batch[i])
		}
		lazy.want(append(want, again...))
		if err := page(batch); err != nil {
			return err
		}
		if d := lazy.ready(); len(d) > 0 {
			return details(d)
		}
		return nil
	})
	if err != nil {
		cancel()
		lazy.finish()
		return 0, nil, err
	}
	rest, failed, first := lazy.finish() // a detail that could not be fetched leaves its list entry
	if err := ctx.Err(); err != nil {
		return failed, first, err
	}
	for len(rest) > 0 {
		k := min(len(rest), 1000)
		if err := details(rest[:k:k]); err != nil {
			return failed, first, err
		}
		rest = rest[k:]
	}
	return failed, first, nil
}

// SizeHint guesses how many executions a Stream of since will give, a little high, so that a
// caller keeping a row for each can make room for them at once: a whole export file's (from
// the length of its first lines); 0 for a window, which may cut the file anywhere, and for
// the API, which does not say.
func (a *App) SizeHint(since time.Duration) int {
	if since != 0 {
		return 0
	}
	if h, ok := a.src.(interface{ SizeHint() int }); ok {
		return h.SizeHint()
	}
	return 0
}

// Recycle hands a batch of Stream back once the caller has taken what it keeps of its records
// and keeps no slice of it: a file source fills the array again (source.Recycler). Other
// sources leave it to the collector.
func (a *App) Recycle(batch []model.Execution) {
	if r, ok := a.src.(source.Recycler); ok {
		r.Recycle(batch)
	}
}

// keepHydrated remembers a full record fetched while loading (Record reads it back).
func (a *App) keepHydrated(e model.Execution) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.hydrated == nil {
		a.hydrated = map[string]model.Execution{}
	}
	if len(a.hydrated) >= maxHydrated {
		clear(a.hydrated) // Record falls back to Get
	}
	a.hydrated[e.ID] = e
}

// Record returns an execution's full record for finding duplicate groups: the copy fetched
// while loading when there is one, else the source's.
func (a *App) Record(ctx context.Context, id string) (model.Execution, error) {
	a.mu.Lock()
	e, ok := a.hydrated[id]
	a.mu.Unlock()
	if ok {
		return e, nil
	}
	return a.src.Get(ctx, id)
}

// JournalState is the journal's record of one execution, phrased for the panes.
type JournalState struct {
	Attempts []model.RetryAttempt
	Verdict  model.Verdict // the one the guard goes by (triage.DecidingVerdict), "" when none
	History  []HistoryLine
}

func journalState(en Entries, in []string) JournalState {
	st := JournalState{Attempts: en.Attempts, History: History(en, in)}
	st.Verdict = decidingVerdict(en.Verdicts)
	return st
}

// decidingVerdict is the verdict, of records newest first, that the guard goes by.
func decidingVerdict(records []journal.VerdictRecord) model.Verdict {
	vs := make([]model.Verdict, len(records))
	for i, r := range records {
		vs[i] = r.Verdict
	}
	if i := triage.DecidingVerdict(vs); i >= 0 {
		return vs[i]
	}
	return ""
}

// MarkResult is what recording a verdict changed: the verdict the guard now goes by, and
// what that means for a retry, in a line.
type MarkResult struct {
	Record   journal.VerdictRecord
	Deciding model.Verdict
	Effect   string
}

// JournalStateOf returns what the journal holds about one execution.
func (a *App) JournalStateOf(ctx context.Context, id string) (JournalState, error) {
	if a.j == nil {
		return JournalState{}, nil
	}
	en, err := a.j.Entries(ctx, id)
	if err != nil {
		return JournalState{}, err
	}
	return journalState(en, a.SessionArgs()), nil
}

// JournalStates returns the journal's state of every execution that has any.
func (a *App) JournalStates(ctx context.Context) (map[string]JournalState, error) {
	out := map[string]JournalState{}
	if a.j == nil {
		return out, nil
	}
	all, err := a.j.Entries(ctx, "")
	if err != nil {
		return nil, err
	}
	by := map[string]*Entries{}
	get := func(id string) *Entries {
		if by[id] == nil {
			by[id] = &Entries{}
		}
		return by[id]
	}
	for _, c := range all.Confirmations {
		get(c.ExecutionID).Confirmations = append(get(c.ExecutionID).Confirmations, c)
	}
	for _, at := range all.Attempts {
		get(at.ExecutionID).Attempts = append(get(at.ExecutionID).Attempts, at)
	}
	for _, v := range all.Verdicts {
		get(v.ExecutionID).Verdicts = append(get(v.ExecutionID).Verdicts, v)
	}
	in := a.SessionArgs()
	for id, en := range by {
		out[id] = journalState(*en, in)
	}
	return out, nil
}

// Cases returns the journal's case of every execution it holds anything about, the executions
// exectriage's retries made included (RetryOf); nil without a journal.
func (a *App) Cases(ctx context.Context) (map[string]*model.Case, error) {
	if a.j == nil {
		return nil, nil
	}
	states, err := a.JournalStates(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the journal: %w", err)
	}
	return casesOf(states), nil
}

// casesOf is the case of each execution of states and of each log their retries made.
func casesOf(states map[string]JournalState) map[string]*model.Case {
	retryOf := map[string]string{}
	for id, st := range states {
		for _, at := range st.Attempts {
			if at.NewLogID != "" {
				retryOf[at.NewLogID] = id
			}
		}
	}
	out := make(map[string]*model.Case, len(states)+len(retryOf))
	for id, st := range states {
		var vs []model.Verdict
		if st.Verdict != "" {
			vs = []model.Verdict{st.Verdict}
		}
		if c := triage.CaseOf(vs, st.Attempts, retryOf[id]); c != nil {
			out[id] = c
		}
	}
	for log, of := range retryOf {
		if out[log] == nil {
			out[log] = triage.CaseOf(nil, nil, of)
		}
	}
	return out
}

// Mark records a verdict in the session's journal and says what it changed for the guard.
func (a *App) Mark(ctx context.Context, id string, v model.Verdict, note string) (MarkResult, error) {
	if err := a.CheckWrite("nothing was marked"); err != nil {
		return MarkResult{}, err
	}
	if a.j == nil {
		return MarkResult{}, a.noJournal("nothing was marked")
	}
	before, err := a.j.j.Verdicts(ctx, id)
	if err != nil {
		return MarkResult{}, err
	}
	rec := journal.VerdictRecord{ID: uuid.NewString(), ExecutionID: id, Verdict: v, Note: note, Who: a.Who(), At: a.Now().UTC(), Source: a.SourceName()}
	if err := a.j.Mark(ctx, rec); err != nil {
		return MarkResult{}, err
	}
	was := decidingVerdict(before)
	return MarkResult{Record: rec, Deciding: decidingVerdict(append([]journal.VerdictRecord{rec}, before...)), Effect: triage.VerdictEffect(v, was)}, nil
}

// VerdictsFor are the verdicts the mark dialog and `mark` offer for an execution.
func (a *App) VerdictsFor(e *model.Execution, t *model.Triage) []model.Verdict {
	return triage.VerdictsFor(t.Kind, t.Outcome, t.GroupID != "")
}

// BundleInput is a bundle's input for these items: the source, the version, the policy's
// redactor and, with a journal, each item's history.
func (a *App) BundleInput(ctx context.Context, j *Journal, note string, items []bundle.Item) (bundle.Input, error) {
	in := bundle.Input{Items: items, GeneratedAt: a.Now().UTC(), Source: a.SourceName(), Version: a.o.Version,
		Redactor: a.policy.Redactor(), HistoryNote: note, Command: func(verb string, args ...string) string {
			return triage.CommandLine(a.SessionArgs(), verb, args...)
		}}
	// each item's tool-router session, as a timeline (the API's list entries carry no session
	// id: its server finds them); a session that cannot be read says so in its item
	type found struct {
		execs []model.Execution
		note  string
	}
	sessions := map[string]found{}
	for i := range in.Items {
		sid := in.Items[i].Exec.SessionID
		if sid == "" {
			continue
		}
		if _, ok := sessions[sid]; !ok {
			execs, err := a.FindSessions(ctx, []string{sid})
			f := found{execs: execs}
			if err != nil {
				f.note = err.Error()
			}
			sessions[sid] = f
		}
		in.Items[i].Session, in.Items[i].SessionNote = sessions[sid].execs, sessions[sid].note
	}
	if j == nil {
		if in.HistoryNote == "" {
			in.HistoryNote = "no journal was open"
		}
		return in, nil
	}
	var errs []string
	for i := range in.Items {
		en, err := j.Entries(ctx, in.Items[i].Exec.ID)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		var lines []string
		for _, h := range History(en, a.SessionArgs()) {
			lines = append(lines, h.Time.UTC().Format(bundle.TimeLayout)+" "+h.Text)
		}
		in.Items[i].History = lines
	}
	if len(errs) > 0 {
		return in, fmt.Errorf("journal partly unreadable: %s", strings.Join(errs, "; "))
	}
	return in, nil
}

// RenderBundle renders a support bundle (secrets redacted, controls escaped).
func RenderBundle(in bundle.Input) ([]byte, error) {
	var buf bytes.Buffer
	if err := bundle.Render(&buf, in); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteBundle renders a bundle of items with the session's journal history and writes it,
// mode 0600, to the bundle directory; it returns the path and the text.
func (a *App) WriteBundle(ctx context.Context, items []bundle.Item) (string, string, error) {
	if len(items) == 0 {
		return "", "", fmt.Errorf("nothing to bundle")
	}
	in, err := a.BundleInput(ctx, a.j, "", items)
	if err != nil {
		in.HistoryNote = err.Error()
	}
	text, err := RenderBundle(in)
	if err != nil {
		return "", "", err
	}
	ids := make([]string, len(items))
	for i := range items {
		ids[i] = items[i].Exec.ID
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	path, err := a.writeOut(bundleName(ids)+"-"+a.Now().UTC().Format("20060102T150405Z")+"-*.md", text)
	if err != nil {
		return "", "", err
	}
	return path, string(text), nil
}

// bundleName names a bundle for ids.
func bundleName(ids []string) string {
	name := "exectriage-bundle"
	if len(ids) > 0 {
		name += "-" + safeName(ids[0])
	}
	if len(ids) > 1 {
		name += fmt.Sprintf("-and-%d", len(ids)-1)
	}
	return name
}

// writeOut writes a file of the TUI's (a bundle, a copy fallback), private to the user, and
// returns its path: in the bundle directory when one is set, else in a directory of this
// session's own (os.MkdirTemp, 0700) in the system's temp directory. The file is made by
// os.CreateTemp (O_EXCL, 0600, a random part in its name, pattern's *), so neither a file nor
// a symlink planted under a guessable name in a shared directory is followed or overwritten.
func (a *App) writeOut(pattern string, data []byte) (string, error) {
	dir := a.bundleDir
	if dir == "" {
		a.mu.Lock()
		if a.outDir == "" {
			d, err := os.MkdirTemp("", "exectriage-")
			if err != nil {
				a.mu.Unlock()
				return "", fmt.Errorf("a private directory for the file: %w", err)
			}
			a.outDir = d
		}
		dir = a.outDir
		a.mu.Unlock()
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("writing in %s: %w", dir, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}
