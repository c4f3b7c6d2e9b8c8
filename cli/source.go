package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/internal/hugepage"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// DefaultAPIWindow is how far back an API source (live or demo) reads when --since is not
// given. A file is read whole by default: an export already is the window its author chose.
const DefaultAPIWindow = 7 * 24 * time.Hour

// maxBadShown bounds the "skipped" warnings printed for unreadable records; the rest are
// counted.
const maxBadShown = 10

// durationValue is a duration flag that remembers whether it was given.
type durationValue struct {
	d   *time.Duration
	set *bool
}

func (v durationValue) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (like 24h, 90m, 30s)", s)
	}
	if d < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	*v.d, *v.set = d, true
	return nil
}

// sourceFlags are the flags every command that reads executions takes.
type sourceFlags struct {
	demo     bool
	file     string
	baseURL  string
	journal  string
	config   string
	since    time.Duration // as given; loadAll sets it to the window in force
	sinceSet bool
	json     bool
	lean     bool          // scan: drop what triage does not read as records load
	timeout  time.Duration // the caller's timeout triage assumes
	timeSet  bool

	mu  sync.Mutex
	bad int // unreadable records met so far
}

func (s *sourceFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.demo, "demo", false, "use the embedded demo sandbox (the default when COMPOSIO_API_KEY is not set)")
	fs.StringVar(&s.file, "file", "", "read an export `FILE`: a list response, a JSON array or JSON Lines (gzip ok)")
	fs.StringVar(&s.baseURL, "base-url", "", "Composio API base `URL` (default $COMPOSIO_BASE_URL, else the public API); with --file, used by verify")
	fs.Var(durationValue{&s.since, &s.sinceSet}, "since", "only executions of the last `DURATION` (default 168h from the API, everything in a file)")
	fs.BoolVar(&s.json, "json", false, "print JSON (stable, documented) instead of text")
	fs.StringVar(&s.journal, "journal", "", "journal `DSN`: a SQLite path or postgres://... (default $EXECTRIAGE_JOURNAL, else the user state dir)")
	fs.StringVar(&s.config, "config", "", "config `FILE` (default $EXECTRIAGE_CONFIG, else the user config dir's exectriage/config.toml)")
	s.timeout = triage.DefaultCallerTimeout
	fs.Var(durationValue{&s.timeout, &s.timeSet}, "timeout", "the caller's request `DURATION`: a success slower than this is ambiguous")
}

// open chooses and opens the source: --file, then --base-url, then --demo, then the live API
// when COMPOSIO_API_KEY is set (at COMPOSIO_BASE_URL when set), then COMPOSIO_BASE_URL alone
// when it is a loopback address (a local `exectriage sandbox`), else the demo.
func (s *sourceFlags) open(ctx context.Context, env *Env) (source.Source, error) {
	if s.demo && (s.file != "" || s.baseURL != "") {
		return nil, usageErr("--demo cannot be combined with --file or --base-url")
	}
	opt := source.Options{
		File:    s.file,
		BaseURL: s.baseURL,
		APIKey:  env.Getenv("COMPOSIO_API_KEY"),
		Now:     env.Now,
		OnBad:   func(r model.RecordError) { s.warnBad(env, r) },
	}
	if s.lean {
		opt.KeepResponse = triage.ResponseMayFail // the parser need not copy the rest
		opt.ReuseBatches = true                   // loadAll copies every batch
	}
	envBase := strings.TrimSpace(env.Getenv("COMPOSIO_BASE_URL"))
	switch {
	case s.file != "", s.baseURL != "":
	case s.demo:
		opt.Demo = true
	case opt.APIKey != "":
		opt.BaseURL = envBase
	case envBase != "" && source.Loopback(envBase): // a local sandbox takes any key
		opt.BaseURL = envBase
	default:
		opt.Demo = true
	}
	src, err := source.Open(ctx, opt)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) || errors.Is(err, source.ErrNoAPIKey) {
			return nil, usageErr(err.Error())
		}
		return nil, err
	}
	return src, nil
}

// warnBad reports an unreadable record on stderr; past maxBadShown it only counts.
func (s *sourceFlags) warnBad(env *Env, r model.RecordError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bad++
	if s.bad > maxBadShown {
		return
	}
	where := "the API answer"
	if s.file != "" {
		where = s.file
	}
	fmt.Fprintf(env.Stderr, "exectriage: skipped an unreadable record in %s: %s\n", sanitize.String(where), sanitize.String(r.Err.Error()))
}

// window is the --since in force for src.
func (s *sourceFlags) window(src source.Source) time.Duration {
	if s.sinceSet {
		return s.since
	}
	if src.Client() != nil && !strings.HasPrefix(src.Name(), "FILE ") {
		return DefaultAPIWindow
	}
	return 0
}

// loadAll reads every execution of the window, newest first (ties by id, so the order is
// stable), then fetches the detail of the executions triage needs it for.
func (s *sourceFlags) loadAll(ctx context.Context, env *Env, src source.Source) ([]model.Execution, error) {
	s.since = s.window(src)
	// Growing one slice of a million executions by append copies it over and over, and holds
	// two copies at the end. A file source guesses its size (a slice that is a little too
	// big costs address space, not memory, until it is written); otherwise batches are kept
	// as they come and copied once into a slice of the right size.
	var execs []model.Execution
	if h, ok := src.(interface{ SizeHint() int }); ok {
		execs = make([]model.Execution, 0, h.SizeHint())
		hugepage.Advise(execs)
	}
	var batches [][]model.Execution
	n := 0
	err := src.Load(ctx, s.since, func(b []model.Execution) error {
		if s.lean {
			for i := range b {
				leanen(&b[i])
			}
		}
		if cap(execs) > 0 {
			execs = append(execs, b...)
		} else {
			if s.lean {
				b = slices.Clone(b) // the source reuses b (ReuseBatches)
			}
			batches = append(batches, b)
			n += len(b)
		}
		return nil
	})
	s.mu.Lock()
	if s.bad > maxBadShown {
		fmt.Fprintf(env.Stderr, "exectriage: %d unreadable records skipped in all\n", s.bad)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	switch {
	case cap(execs) > 0:
	case len(batches) == 1:
		execs = batches[0]
	default:
		execs = make([]model.Execution, 0, n)
		for i, b := range batches {
			execs = append(execs, b...)
			batches[i] = nil
		}
	}
	sortNewestFirst(execs)
	return execs, nil
}

// leanen drops from an execution what scan never reads, so that a million of them fit in
// memory: the trace id, and a response that cannot say successful:false (the only thing
// triage reads of it).
func leanen(e *model.Execution) {
	e.TraceID = ""
	if len(e.Response) > 0 && !triage.ResponseMayFail(e.Response) {
		e.Response = nil
	}
}

func newerFirst(a, b *model.Execution) int {
	if c := b.Timestamp.Compare(a.Timestamp); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// sortNewestFirst is a stable sort, newest first then by id. Exports usually come newest
// first (nothing to do) or oldest first (reversed); otherwise positions are sorted and each
// record is moved once, not the records themselves over and over.
func sortNewestFirst(execs []model.Execution) {
	sorted, reversed := true, true
	for i := 1; i < len(execs) && (sorted || reversed); i++ {
		c := newerFirst(&execs[i-1], &execs[i])
		sorted = sorted && c <= 0
		reversed = reversed && c > 0 // strictly: reversing equal records would reorder them
	}
	switch {
	case sorted:
		return
	case reversed:
		slices.Reverse(execs)
		return
	case len(execs) > math.MaxInt32:
		slices.SortStableFunc(execs, func(a, b model.Execution) int { return newerFirst(&a, &b) })
		return
	}
	perm := make([]int32, len(execs))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return newerFirst(&execs[a], &execs[b]) })
	// execs[k] becomes the old execs[perm[k]], cycle by cycle.
	for k := range perm {
		if perm[k] < 0 {
			continue
		}
		tmp := execs[k]
		j := k
		for {
			next := int(perm[j])
			perm[j] = -1
			if next == k {
				execs[j] = tmp
				break
			}
			execs[j] = execs[next]
			j = next
		}
	}
}

// triageSetup is what classification needs: the config, the options and the tool kinds.
type triageSetup struct {
	cfg   config.Config
	opt   triage.Options
	kinds *triage.Kinds
}

// setup loads the config and learns the kinds of the tools in execs (from the tools endpoint
// when there is a client; best effort, the slug's verb otherwise).
func (s *sourceFlags) setup(ctx context.Context, env *Env, src source.Source, execs []model.Execution) (triageSetup, error) {
	path := s.config
	if path == "" {
		path = env.Getenv("EXECTRIAGE_CONFIG")
	}
	cfg, err := config.Load(path)
	if err != nil {
		return triageSetup{}, usageErr(err.Error())
	}
	opt := cfg.Options()
	if s.timeSet || cfg.Defaults.CallerTimeout == 0 {
		opt.CallerTimeout = s.timeout
	}
	kinds := triage.NewKinds()
	if c := src.Client(); c != nil {
		seen := map[string]bool{}
		var slugs []string
		for i := range execs {
			if sl := execs[i].ToolSlug; sl != "" && !seen[sl] {
				seen[sl] = true
				slugs = append(slugs, sl)
			}
		}
		_ = kinds.Prefetch(ctx, c, slugs) // best effort: unknown tools fall back to the verb
	}
	return triageSetup{cfg: cfg, opt: opt, kinds: kinds}, nil
}

// analyze fetches the details triage needs (API sources list entries without arguments or
// errors) and runs triage over execs, which keep their order.
func (s *sourceFlags) analyze(ctx context.Context, env *Env, src source.Source, execs []model.Execution, ts triageSetup) *triage.Result {
	if src.Client() != nil && !strings.HasPrefix(src.Name(), "FILE ") {
		s.fetchDetails(ctx, env, src, execs, ts)
	}
	return triage.Analyze(execs, ts.kinds, ts.opt)
}

// detailWorkers bounds concurrent detail requests.
const detailWorkers = 8

// fetchDetails replaces, in place, the list entries whose detail can change their triage: the
// writes that did not succeed (the error kind decides the outcome), and the writes that have
// a same-tool, same-account neighbour within the window (arguments decide duplicates).
func (s *sourceFlags) fetchDetails(ctx context.Context, env *Env, src source.Source, execs []model.Execution, ts triageSetup) {
	type key struct{ tool, who string }
	byKey := map[key][]int{}
	kindOf := map[string]model.ToolKind{}
	var need []int
	for i := range execs {
		e := &execs[i]
		if e.Detailed {
			continue
		}
		k, ok := kindOf[e.ToolSlug]
		if !ok {
			k = ts.kinds.Kind(e.ToolSlug)
			kindOf[e.ToolSlug] = k
		}
		if !k.IsWrite() {
			continue
		}
		if e.Status != model.StatusSuccess {
			need = append(need, i)
			continue
		}
		who := e.ConnectedAccountID
		if who == "" {
			who = e.UserID
		}
		byKey[key{e.ToolSlug, who}] = append(byKey[key{e.ToolSlug, who}], i)
	}
	for _, idx := range byKey {
		// execs is newest first, so neighbours in idx are neighbours in time.
		for j, i := range idx {
			near := j > 0 && execs[idx[j-1]].Timestamp.Sub(execs[i].Timestamp) <= ts.opt.Window ||
				j+1 < len(idx) && execs[i].Timestamp.Sub(execs[idx[j+1]].Timestamp) <= ts.opt.Window
			if near {
				need = append(need, i)
			}
		}
	}
	if len(need) == 0 {
		return
	}
	work := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failed   int
		firstErr error
	)
	for range min(detailWorkers, len(need)) {
		wg.Go(func() {
			for i := range work {
				d, err := src.Get(ctx, execs[i].ID)
				if err != nil {
					mu.Lock()
					if failed++; firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				execs[i] = d
			}
		})
	}
	for _, i := range need {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if failed > 0 {
		fmt.Fprintf(env.Stderr, "exectriage: could not fetch the detail of %d executions (triaged from their list entries): %s\n", failed, sanitize.String(firstErr.Error()))
	}
}

// cliError carries the exit status an error should end the command with.
type cliError struct {
	code int
	msg  string
}

func (e *cliError) Error() string { return e.msg }

func usageErr(msg string) error { return &cliError{code: ExitUsage, msg: msg} }

// fail prints err for cmd and returns its exit status: bad input (flags, an unreadable
// file, an unknown id) is ExitUsage, anything else a run-time failure (ExitFinding).
func fail(env *Env, cmd string, err error) int {
	code := ExitFinding
	var ce *cliError
	var fe *source.FileError
	switch {
	case errors.As(err, &ce):
		code = ce.code
	case errors.As(err, &fe), errors.Is(err, source.ErrNotFound), errors.Is(err, os.ErrNotExist):
		code = ExitUsage
	case errors.Is(err, context.Canceled):
		code = ExitFinding
	}
	fmt.Fprintf(env.Stderr, "exectriage %s: %s\n", cmd, sanitize.String(err.Error()))
	return code
}
