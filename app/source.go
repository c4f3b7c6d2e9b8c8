package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
)

// The session's source: what it reads, an execution by id, and the kinds of the tools it
// names.

// CheckFile refuses, before the TUI opens on it, an export that cannot be one: a directory or
// device, empty, binary, not JSON, or without one readable record. It reads only as far as
// the first records; other sources pass.
func (a *App) CheckFile(ctx context.Context) error {
	if a.src.Kind() != model.SourceFile || a.o.File == "" {
		return nil
	}
	ratio, err := maxGzipRatio(a.o)
	if err != nil {
		return err
	}
	return source.CheckFile(ctx, a.o.File, source.FileOptions{MaxGzipRatio: ratio})
}

// SourceName names the source for headers: "LIVE", "LIVE host:port", "DEMO", "FILE name".
func (a *App) SourceName() string { return a.src.Name() }

// SourceKind says what the source reads.
func (a *App) SourceKind() model.SourceKind { return a.src.Kind() }

// CanSend reports whether the source has an API behind it (a retry and a provider check
// need one).
func (a *App) CanSend() bool { return a.src.Client() != nil }

// Get fetches one execution's full record; an unknown id is a UsageError wrapping
// ErrNotFound.
func (a *App) Get(ctx context.Context, id string) (model.Execution, error) {
	e, err := a.src.Get(ctx, id)
	if errors.Is(err, source.ErrNotFound) {
		return e, err // it names the id and the source
	}
	if err == nil && e.ID != id { // every source, not only the API's client, answers for id alone
		return model.Execution{}, fmt.Errorf(
			"get %s from %s: the answer is the record of %q: %w",
			id,
			a.src.Name(),
			e.ID,
			client.ErrOtherRecord,
		)
	}
	return e, err
}

// Window is the window in force: the one given, else DefaultAPIWindow for an API source and
// everything (0) for a file.
func (a *App) Window() time.Duration {
	if a.o.SinceSet {
		return a.o.Since
	}
	if a.src.Kind() != model.SourceFile {
		return DefaultAPIWindow
	}
	return 0
}

// Learn asks the tools endpoint for the kinds of the tools in execs it has not seen (best
// effort: a tool whose definition cannot be fetched falls back to its slug's verb). A session
// that keeps the logs reads a definition kept with them instead while it is fresh (keptTools).
func (a *App) Learn(ctx context.Context, execs []model.Execution) {
	c := a.src.Client()
	if c == nil {
		return
	}
	var slugs []string
	a.mu.Lock()
	if a.learned == nil {
		a.learned = map[string]bool{}
	}
	for i := range execs {
		if sl := execs[i].ToolSlug; sl != "" && !a.learned[sl] {
			a.learned[sl] = true
			slugs = append(slugs, sl)
		}
	}
	a.mu.Unlock()
	if len(slugs) == 0 {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var cat triage.ToolCatalog = c
	if a.cache != nil {
		cat = keptTools{cache: a.cache, api: c, now: a.Now(), ran: toolRuns(execs, slugs)}
	}
	_ = a.kinds.Prefetch(pctx, cat, slugs)
}

// ToolMaxAge is how long a tool's definition kept with the logs serves before the tools
// endpoint is asked again: Composio changes a tool's tags with a new version, and a
// definition a day old costs one request a tool a day.
const ToolMaxAge = 24 * time.Hour

// toolRun is the newest execution of a tool that names the tool's version.
type toolRun struct {
	version string
	at      time.Time
}

// toolRuns are the newest executions among execs of the tools slugs names that say which
// version of the tool they ran, by slug.
func toolRuns(execs []model.Execution, slugs []string) map[string]toolRun {
	ran := make(map[string]toolRun, len(slugs))
	for i := range execs {
		e := &execs[i]
		if e.ToolVersion == "" || !slices.Contains(slugs, e.ToolSlug) {
			continue
		}
		if r, ok := ran[e.ToolSlug]; !ok || e.Timestamp.After(r.at) {
			ran[e.ToolSlug] = toolRun{version: e.ToolVersion, at: e.Timestamp}
		}
	}
	return ran
}

// keptTools is the tools endpoint through the logs' cache: a kept definition serves while it
// is younger than ToolMaxAge and no execution after its fetch ran another version of the tool
// (the tool changed since); any other is fetched and kept.
type keptTools struct {
	cache *logcache.Cache
	api   triage.ToolCatalog
	now   time.Time
	ran   map[string]toolRun // by slug, as the executions spell it
}

func (k keptTools) GetTool(ctx context.Context, slug string) (model.Tool, error) {
	if t, at, ok, err := k.cache.Tool(ctx, slug); err == nil && ok && k.fresh(slug, t, at) {
		return t, nil
	}
	t, err := k.api.GetTool(ctx, slug)
	if err != nil {
		return t, err
	}
	t.Slug = cmp.Or(t.Slug, slug)
	_ = k.cache.PutTool(ctx, t, k.now) // a cache that cannot keep it costs a request next time
	return t, nil
}

func (k keptTools) fresh(slug string, t model.Tool, at time.Time) bool {
	if k.now.Sub(at) >= ToolMaxAge || at.After(k.now) {
		return false
	}
	r, ok := k.ran[slug]
	return !ok || t.Version == "" || r.version == t.Version || !r.at.After(at)
}

// openSource opens the session's source and says which logs' cache it reads (nil: none).
func openSource(
	ctx context.Context,
	o *Options,
	creds Credentials,
	idx *IndexState,
	extra ...client.Option,
) (source.Source, *logcache.Cache, error) {
	opt := source.Options{
		File:          o.File,
		BaseURL:       o.BaseURL,
		APIKey:        creds.Key,
		Now:           o.Now,
		OnBad:         o.OnBad,
		ClientOptions: append(creds.clientOptions(), extra...),
	}
	if o.ReadOnly {
		// The session's client itself refuses every tool run but the provider checks'
		// reads it is allowed: read-only holds below every front.
		opt.ClientOptions = append(opt.ClientOptions, client.WithReadOnly(o.AllowReads))
	}
	if o.OnRequest != nil {
		opt.ClientOptions = append(opt.ClientOptions, client.WithRequestNotice(o.OnRequest))
	}
	ratio, err := maxGzipRatio(*o)
	if err != nil {
		return nil, nil, err
	}
	opt.MaxGzipRatio = ratio
	opt.Background, opt.Gate = o.Background, o.Gate
	if o.Background {
		// The TUI keeps compact rows and reads a record again, whole, when it opens one or
		// groups it: its load copies neither the arguments nor the responses triage never
		// reads (350 MB of copies on the 1M export, which the collector then had to chase
		// while keys waited).
		opt.SkipArguments, opt.KeepResponse, opt.KeepResponseKey = true, triage.ResponseMayFail, triage.ResponseKeyMayFail
	}
	// scan's rows number users and accounts themselves. The TUI's summaries do too, but
	// there the copies left the dataset's strings scattered among the load's garbage: the
	// resident memory after a 1M load rose by about 4 MB, so its parser shares them.
	opt.CopyPeople = o.Lean
	if o.Lean {
		opt.KeepResponse = triage.ResponseMayFail // the parser need not copy the rest
		opt.KeepResponseKey = triage.ResponseKeyMayFail
		opt.ReuseBatches = true // LoadAll copies every batch
	}
	switch {
	case o.File != "", o.BaseURL != "":
	case usesDemo(*o, creds):
		anchor, err := demoAnchor(*o) // the same world, ids and all, in every command
		if err != nil {
			return nil, nil, err
		}
		cfg := sandbox.Config{Now: anchor, WallClock: o.Now == nil, Events: true} // trigger deliveries and redeliveries too
		if o.DemoSandbox != nil {
			o.DemoSandbox(&cfg)
		}
		srv, base, err := sandbox.Start(ctx, cfg, "127.0.0.1:0")
		if err != nil {
			return nil, nil, fmt.Errorf("start demo sandbox: %w", err)
		}
		// the demo gets the loopback's own key, never the person's
		opt.Demo, opt.Closer, opt.BaseURL, opt.APIKey = true, srv, base, cfg.APIKey
	default:
		opt.BaseURL = envBase(*o, creds)
	}
	if o.File == "" && !opt.Demo {
		opt.Cache = openCache(ctx, *o, opt.BaseURL, creds, idx)
	}
	if o.SourceOptions != nil {
		o.SourceOptions(&opt)
	}
	src, err := source.Open(ctx, opt)
	if err != nil {
		if opt.Closer != nil {
			_ = opt.Closer.Close()
		}
		_ = opt.Cache.Close()
		if IsUsage(err) {
			return nil, nil, &UsageError{Msg: err.Error(), Err: err}
		}
		return nil, nil, err
	}
	return src, opt.Cache, nil
}
