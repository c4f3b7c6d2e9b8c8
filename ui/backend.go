package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/data"
)

// Deps is what the TUI runs on (the cli package builds it from flags and the config file).
type Deps struct {
	Source source.Source
	// Journal records confirmations, retries and verdicts; nil means none (retry refused,
	// no history).
	Journal journal.Journal
	// Verifiers check the provider; nil builds them from the source's client and the config.
	Verifiers *triage.Verifiers
	// Kinds says which tools write; nil starts an empty cache (tags are fetched as tools appear).
	Kinds *triage.Kinds
	// Config is the config file: [defaults], [theme], [keys], verifiers.
	Config config.Config
	// Triage tunes classification; the zero value means Config.Options().
	Triage triage.Options
	// Who names the person in the journal (journal.Who).
	Who string
	// BundleDir is where support bundles are written (default: the system temp directory).
	BundleDir string
	// APIKey is removed from bundles wherever it appears (besides the secret patterns).
	APIKey string
	// Version is exectriage's version, named in bundles.
	Version string
	// UI tunes the TUI (window, clock, follow period).
	UI Options
}

// backend implements Backend over the real packages.
type backend struct {
	src       source.Source
	j         journal.Journal
	verifiers *triage.Verifiers
	kinds     *triage.Kinds
	opt       triage.Options
	who       string
	bundleDir string
	version   string
	redactor  *redact.Redactor
	secrets   *redact.Policy
	now       func() time.Time

	mu      sync.Mutex
	learned map[string]bool // slugs whose tool definition was asked for
	// hydrated are the full records the loads fetched (writes that failed or have a
	// neighbour: the only ones that can be duplicates), kept so finding the duplicate groups
	// at the end of a load does not ask the API for them again; at most maxHydrated.
	hydrated map[string]model.Execution
}

const maxHydrated = 100_000

// NewBackend builds the Backend the TUI uses over real sources, triage, journal and retry.
func NewBackend(d Deps) Backend {
	b := &backend{
		src: d.Source, j: d.Journal, verifiers: d.Verifiers, kinds: d.Kinds,
		opt: d.Triage, who: d.Who, bundleDir: d.BundleDir, now: d.UI.Now,
		version: d.Version, redactor: redact.New(d.APIKey), secrets: redact.NewPolicy(d.APIKey),
		learned: map[string]bool{}, hydrated: map[string]model.Execution{},
	}
	if b.now == nil {
		b.now = time.Now
	}
	if b.opt.CallerTimeout == 0 && b.opt.Window == 0 && b.opt.VolatileKeys == nil {
		b.opt = d.Config.Options()
	}
	b.opt = b.opt.WithDefaults()
	if b.kinds == nil {
		b.kinds = triage.NewKinds()
	}
	if b.verifiers == nil {
		if c := d.Source.Client(); c != nil {
			b.verifiers = triage.NewVerifiers(c, d.Config.Verifiers, triage.WithClock(b.now))
		}
	}
	if b.who == "" {
		b.who = journal.Who(os.Getenv)
	}
	if b.bundleDir == "" {
		b.bundleDir = os.TempDir()
	}
	return b
}

func (b *backend) Source() string { return b.src.Name() }

func (b *backend) Secrets() *redact.Policy { return b.secrets }

// Load streams the source, learning the kinds of tools it has not seen (best effort: a tool
// whose definition cannot be fetched falls back to its slug's verb) and fetching the full
// record of the list entries whose triage depends on it (see hydrator).
func (b *backend) Load(ctx context.Context, since time.Duration, page func([]model.Execution) error) error {
	h := hydrator{b: b, last: map[hydrateKey]*seenEntry{}}
	return b.src.Load(ctx, since, func(batch []model.Execution) error {
		b.learn(ctx, batch)
		batch, err := h.batch(ctx, batch)
		if err != nil {
			return err
		}
		return page(batch)
	})
}

// hydrateWorkers bounds concurrent detail fetches (the client retries reads on 429).
const hydrateWorkers = 8

type hydrateKey struct{ tool, who string }

type seenEntry struct {
	e        model.Execution
	hydrated bool
}

// hydrator fetches, as pages stream in, the detail of the list entries triage needs it for
// (the Logs API lists entries without arguments or error kinds): writes that did not succeed
// (the error decides ambiguous or failed), and successful writes with a same-tool,
// same-account neighbour within the duplicate window (arguments decide duplicates). A neighbour
// seen in an earlier page is fetched then and sent again; the dataset keeps the detailed copy.
type hydrator struct {
	b    *backend
	last map[hydrateKey]*seenEntry
}

func (h *hydrator) batch(ctx context.Context, batch []model.Execution) ([]model.Execution, error) {
	if h.b.src.Client() == nil {
		return batch, nil // a file holds what it holds
	}
	window := h.b.opt.WithDefaults().Window
	need := map[int]bool{}
	var again []model.Execution // earlier entries that turned out to need their detail
	for i := range batch {
		e := &batch[i]
		if e.Detailed || !h.b.kinds.Kind(e.ToolSlug).IsWrite() {
			continue
		}
		if e.Status != model.StatusSuccess {
			need[i] = true
			continue
		}
		who := e.ConnectedAccountID
		if who == "" {
			who = e.UserID
		}
		k := hydrateKey{e.ToolSlug, who}
		if prev := h.last[k]; prev != nil {
			if d := prev.e.Timestamp.Sub(e.Timestamp); d <= window && d >= -window {
				need[i] = true
				if !prev.hydrated {
					prev.hydrated = true
					again = append(again, prev.e)
				}
			}
		}
		h.last[k] = &seenEntry{e: *e, hydrated: need[i]}
	}
	out := append(batch, again...)
	var todo []int
	for i := range out {
		if need[i] || i >= len(batch) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(hydrateWorkers, len(todo)) {
		wg.Go(func() {
			for i := range work {
				if d, err := h.b.src.Get(ctx, out[i].ID); err == nil && d.ID == out[i].ID {
					out[i] = d
					h.b.mu.Lock()
					if len(h.b.hydrated) >= maxHydrated {
						clear(h.b.hydrated) // Record falls back to Get
					}
					h.b.hydrated[d.ID] = d
					h.b.mu.Unlock()
				}
			}
		})
	}
	for _, i := range todo {
		if ctx.Err() != nil {
			break
		}
		select {
		case work <- i:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	return out, ctx.Err()
}

func (b *backend) learn(ctx context.Context, batch []model.Execution) {
	c := b.src.Client()
	if c == nil {
		return
	}
	var slugs []string
	b.mu.Lock()
	for i := range batch {
		s := batch[i].ToolSlug
		if s != "" && !b.learned[s] {
			b.learned[s] = true
			slugs = append(slugs, s)
		}
	}
	b.mu.Unlock()
	if len(slugs) == 0 {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = b.kinds.Prefetch(pctx, c, slugs) // best effort: unknown tools count as writes
}

func (b *backend) NewBuilder() *data.Builder { return data.NewBuilder(b.kinds, b.opt) }

func (b *backend) Record(ctx context.Context, id string) (model.Execution, error) {
	b.mu.Lock()
	e, ok := b.hydrated[id]
	b.mu.Unlock()
	if ok {
		return e, nil
	}
	return b.src.Get(ctx, id)
}

func (b *backend) Get(ctx context.Context, id string) (model.Execution, error) {
	return b.src.Get(ctx, id)
}

func (b *backend) Verify(ctx context.Context, e *model.Execution) model.ProviderState {
	if b.verifiers == nil {
		return model.ProviderState{State: model.ProviderUnknown, CheckedAt: b.now(),
			Reason: "this source has no API to ask the provider (a file export): use --base-url or the live API"}
	}
	return b.verifiers.Verify(ctx, e)
}

func (b *backend) Journal(ctx context.Context, id string) (JournalState, error) {
	if b.j == nil {
		return JournalState{}, nil
	}
	atts, err := b.j.Attempts(ctx, id)
	if err != nil {
		return JournalState{}, err
	}
	cons, err := b.j.Confirmations(ctx, id)
	if err != nil {
		return JournalState{}, err
	}
	vs, err := b.j.Verdicts(ctx, id)
	if err != nil {
		return JournalState{}, err
	}
	return journalState(atts, cons, vs), nil
}

func (b *backend) JournalAll(ctx context.Context) (map[string]JournalState, error) {
	out := map[string]JournalState{}
	if b.j == nil {
		return out, nil
	}
	atts, err := b.j.Attempts(ctx, "")
	if err != nil {
		return nil, err
	}
	cons, err := b.j.Confirmations(ctx, "")
	if err != nil {
		return nil, err
	}
	vs, err := b.j.Verdicts(ctx, "")
	if err != nil {
		return nil, err
	}
	byA := map[string][]model.RetryAttempt{}
	byC := map[string][]journal.Confirmation{}
	byV := map[string][]journal.VerdictRecord{}
	ids := map[string]bool{}
	for _, a := range atts {
		byA[a.ExecutionID] = append(byA[a.ExecutionID], a)
		ids[a.ExecutionID] = true
	}
	for _, c := range cons {
		byC[c.ExecutionID] = append(byC[c.ExecutionID], c)
		ids[c.ExecutionID] = true
	}
	for _, v := range vs {
		byV[v.ExecutionID] = append(byV[v.ExecutionID], v)
		ids[v.ExecutionID] = true
	}
	for id := range ids {
		out[id] = journalState(byA[id], byC[id], byV[id])
	}
	return out, nil
}

// journalState phrases the journal's records of one execution, oldest first. vs is newest
// first (as the journal lists it).
func journalState(atts []model.RetryAttempt, cons []journal.Confirmation, vs []journal.VerdictRecord) JournalState {
	st := JournalState{Attempts: atts}
	if len(vs) > 0 {
		st.Verdict = vs[0].Verdict
	}
	for _, c := range cons {
		st.History = append(st.History, data.HistoryLine{Time: c.At,
			Text: fmt.Sprintf("confirmed failed by %s: %q (outcome %s, provider %s)", c.Who, c.Reason, c.Outcome, orWord(string(c.Provider.State), "unchecked"))})
	}
	for _, a := range atts {
		t := fmt.Sprintf("retry %s by %s: %s", a.ID, a.Who, a.State)
		if a.NewLogID != "" {
			t += " → new log " + a.NewLogID
		}
		if a.Detail != "" && a.State != model.AttemptSucceeded {
			t += " (" + a.Detail + ")"
		}
		if a.State == model.AttemptIndeterminate {
			t += ": run `exectriage resolve " + a.ID + "`"
		}
		at := a.CreatedAt
		if !a.FinishedAt.IsZero() {
			at = a.FinishedAt
		}
		st.History = append(st.History, data.HistoryLine{Time: at, Text: t})
	}
	for _, v := range vs {
		t := fmt.Sprintf("verdict %s by %s", v.Verdict, v.Who)
		if v.Note != "" {
			t += ": " + v.Note
		}
		st.History = append(st.History, data.HistoryLine{Time: v.At, Text: t})
	}
	sort.SliceStable(st.History, func(i, k int) bool { return st.History[i].Time.Before(st.History[k].Time) })
	return st
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}

// Evidence asks the guard on what is known now, without a confirmation: a refusal for any
// other reason than the missing confirmation is final.
func (b *backend) Evidence(ctx context.Context, e model.Execution, t model.Triage, ps model.ProviderState) (retrydialog.Evidence, error) {
	ev := retrydialog.Evidence{Exec: e, Triage: t, Provider: ps}
	in := triage.GuardInput{Execution: &e, Kind: t.Kind, Outcome: t.Outcome, OutcomeReason: t.Reason, Provider: ps}
	if b.j != nil {
		atts, err := b.j.Attempts(ctx, e.ID)
		if err != nil {
			return ev, err
		}
		vs, err := b.j.Verdicts(ctx, e.ID)
		if err != nil {
			return ev, err
		}
		in.Attempts = atts
		if len(vs) > 0 {
			in.Verdict, in.VerdictBy, in.VerdictAt = vs[0].Verdict, vs[0].Who, vs[0].At
		}
	}
	ev.Decision = triage.CheckRetry(in)
	if b.j == nil && (ev.Decision.Allowed || ev.Decision.Code == triage.RefusedNotConfirmed) {
		ev.Decision = triage.GuardDecision{Code: "no_journal",
			Reason: "no journal is open: a retry is never sent without recording its intent first",
			Next:   "start exectriage with --journal PATH (or fix the default journal's location)"}
	}
	if b.src.Client() == nil && (ev.Decision.Allowed || ev.Decision.Code == triage.RefusedNotConfirmed) {
		ev.Decision = triage.GuardDecision{Code: "no_api",
			Reason: "this source cannot send: a file export has no API behind it",
			Next:   "open the live API (COMPOSIO_API_KEY) or --base-url, then retry"}
	}
	ev.Send = sendPreview(&e, b.redactor)
	ev.Provider = hideState(ev.Provider, b.redactor)
	return ev, nil
}

// hideState returns a copy of ps whose free text (reason, read arguments, evidence) has its
// secrets redacted, for the retry dialog (which has no reveal).
func hideState(ps model.ProviderState, r *redact.Redactor) model.ProviderState {
	ps.Reason = r.String(ps.Reason)
	if len(ps.ReadArgs) > 0 && len(ps.ReadArgs) <= common.MaxParse {
		ps.ReadArgs = r.JSON(ps.ReadArgs)
	}
	if len(ps.Matches) > 0 {
		ms := make([]model.EvidenceItem, len(ps.Matches))
		for i, m := range ps.Matches {
			m.ID, m.Summary = r.String(m.ID), r.String(m.Summary)
			ms[i] = m
		}
		ps.Matches = ms
	}
	return ps
}

// sendPreview says what a retry would send: the arguments with their secrets redacted (the
// retry sends the original bytes).
func sendPreview(e *model.Execution, r *redact.Redactor) []string {
	args := "{}"
	var buf bytes.Buffer
	if len(e.Arguments) <= common.MaxParse {
		if err := json.Compact(&buf, r.JSON(e.Arguments)); err == nil && buf.Len() > 0 {
			args = buf.String()
		}
	} else {
		args = r.String(string(e.Arguments[:1024]))
	}
	if len(args) > 160 {
		args = args[:157] + "…"
	}
	return []string{
		"POST tools/execute/" + e.ToolSlug + ", once, through the no-retry client",
		"account " + orWord(e.ConnectedAccountID, "-") + " · user " + orWord(e.UserID, "-"),
		"arguments " + args,
		"x-request-id = a new attempt id, journaled before anything is sent",
	}
}

func (b *backend) Retry(ctx context.Context, e model.Execution, t model.Triage, ps model.ProviderState, reason string) retrydialog.Result {
	if b.j == nil {
		return retrydialog.Result{Err: "no journal is open: nothing was sent"}
	}
	d := retry.Deps{Journal: b.j, Kinds: b.kinds, Options: b.opt, Who: b.who, Now: b.now}
	if c := b.src.Client(); c != nil {
		d.Sender = c.WithoutRetries()
		d.Logs = c
	}
	if b.verifiers != nil {
		d.Verifier = b.verifiers
	}
	req := retry.Request{Execution: e, Confirmed: true, Reason: reason}
	if ps.State != "" {
		p := ps
		req.Provider = &p
	}
	res, err := retry.Run(ctx, d, req)
	out := retrydialog.Result{}
	if res.Attempt != nil {
		out.AttemptID, out.State, out.NewLogID, out.Detail = res.Attempt.ID, res.Attempt.State, res.Attempt.NewLogID, res.Attempt.Detail
	}
	switch {
	case err != nil:
		out.Err = err.Error()
	case res.Refused():
		out.Err = "refused: " + res.Decision.Reason + "; next: " + res.Decision.Next
		out.State = ""
	}
	return out
}

func (b *backend) Mark(ctx context.Context, id string, v model.Verdict, note string) error {
	if b.j == nil {
		return errors.New("no journal is open: start exectriage with --journal PATH")
	}
	return b.j.Mark(ctx, journal.VerdictRecord{ExecutionID: id, Verdict: v, Note: note, Who: b.who, At: b.now().UTC()})
}

// Explain says what went wrong and what to do about it, in one line.
func (b *backend) Explain(err error) string { return Explain(err) }

// Explain turns an error into one line with the action to take.
func Explain(err error) string {
	if err == nil {
		return ""
	}
	var ae *client.APIError
	var fe *source.FileError
	var ne net.Error
	var ue *url.Error
	var se *json.SyntaxError
	switch {
	case errors.As(err, &ae) && (ae.StatusCode == 401 || ae.StatusCode == 403):
		return fmt.Sprintf("HTTP %d, not authorised: check COMPOSIO_API_KEY (and COMPOSIO_BASE_URL), then press R", ae.StatusCode)
	case errors.As(err, &ae) && ae.StatusCode == 429:
		return "HTTP 429, rate limited: wait a minute, then press R (the list keeps what it had)"
	case errors.As(err, &ae) && ae.StatusCode >= 500:
		return fmt.Sprintf("HTTP %d from the API: press R to try again later (%s)", ae.StatusCode, oneLine(ae.Error()))
	case errors.As(err, &ae):
		return oneLine(ae.Error())
	case errors.As(err, &fe), errors.As(err, &se):
		return "bad file: " + oneLine(err.Error()) + ": check --file (JSON Lines, a JSON array or a logs page)"
	case errors.Is(err, source.ErrNotFound):
		return oneLine(err.Error()) + ": it may have aged out of the window; press R"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + oneLine(err.Error()) + ": check your connection, then press R"
	case errors.As(err, &ne), errors.As(err, &ue):
		return "network error: " + oneLine(err.Error()) + ": check your connection or --base-url, then press R"
	}
	return oneLine(err.Error())
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "…"
	}
	return s
}

// bundlePath is where a bundle for ids is written.
func (b *backend) bundlePath(ids []string) string {
	name := "exectriage-bundle"
	if len(ids) > 0 {
		name += "-" + safeName(ids[0])
	}
	if len(ids) > 1 {
		name += fmt.Sprintf("-and-%d", len(ids)-1)
	}
	return filepath.Join(b.bundleDir, name+"-"+b.now().UTC().Format("20060102T150405Z")+".md")
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}
