// Package source is where executions come from: the live Composio API, the embedded demo
// sandbox (served in process on a loopback port and read through the same client), or an
// export file. Every source streams records in batches, so a caller can show the first screen
// while the rest loads, and fetches one record's full detail on demand.
package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/hashtab"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/model"
)

// Source yields executions.
type Source interface {
	// Name says what the source is, for headers: "LIVE", "LIVE host:port", "DEMO",
	// "FILE name.jsonl".
	Name() string
	// Load streams the executions of the last since (0: all) in batches; the callback owns
	// each slice. Order across batches is the source's (newest first for the API).
	Load(ctx context.Context, since time.Duration, page func([]model.Execution) error) error
	// Get returns one execution with its full detail; ErrNotFound when there is none.
	Get(ctx context.Context, id string) (model.Execution, error)
	// Kind says what the source is: the live API, the demo sandbox or an export file.
	Kind() model.SourceKind
	// Client is the API client behind the source, nil when there is none (a file).
	Client() *client.Client
	Close() error
}

// Finder is a source whose server can be asked for the records a field of which contains a
// value (the Logs API's filters): what its list entries do not carry, a request id, is found
// all the same.
type Finder interface {
	// Find returns, in full (their details), at most max records of the last since (0: all)
	// whose field (a Logs API filter field: request_id, ...) contains value.
	Find(ctx context.Context, since time.Duration, field, value string, max int) ([]model.Execution, error)
}

// Recycler is a source whose Load can fill a batch's array again once the consumer, which
// kept the batch for a while, is done with it (see fileSource.Recycle).
type Recycler interface {
	// Recycle hands back a batch of this source's Load; the caller keeps no slice of it.
	Recycle(batch []model.Execution)
}

// Kind is what a source reads.

// ErrNotFound is returned (wrapped) by Get for an id the source does not have.
var ErrNotFound = errors.New("no such execution")

// notFound is ErrNotFound for one id and source, said once: "no execution ID in SOURCE".
type notFound struct{ id, where string }

func (e notFound) Error() string        { return "no execution " + e.id + " in " + e.where }
func (e notFound) Is(target error) bool { return target == ErrNotFound }

// ErrNoAPIKey is returned by Open for a non-loopback API without a key.
var ErrNoAPIKey = errors.New("COMPOSIO_API_KEY is not set")

// Options chooses and tunes a source. File wins over the API (BaseURL/APIKey); with neither
// set Open fails.
type Options struct {
	File    string
	BaseURL string
	APIKey  string
	// Demo says BaseURL is the embedded demo sandbox (the app starts it): the source is named
	// and kinded DEMO, and Closer, when set, is closed with it.
	Demo   bool
	Closer io.Closer
	// ClientOptions are added to the API client's options (timeouts, HTTP client).
	ClientOptions []client.Option
	// BatchSize and MaxRecordBytes tune file reading (see FileOptions).
	BatchSize      int
	MaxRecordBytes int
	// OnBad is told about every record that could not be parsed and was skipped.
	OnBad func(model.RecordError)
	// KeepResponse, when set, decides which records a file source loads with their
	// data.response (see model.Parser.KeepResponse); Get always returns the whole record.
	KeepResponse func(raw []byte) bool
	// ReuseBatches promises that Load's callback keeps no batch slice after it returns (see
	// FileOptions.ReuseBatches).
	ReuseBatches bool
	// Background runs an export's parse below the OS priority of the caller's other threads
	// (see cores.Background): the TUI's keys and frames come first when the cores are short.
	Background bool
	// SkipArguments makes Load leave an export's arguments out of the records when they can
	// be read again (Get reads a record whole): for a caller that keeps no record (the TUI).
	SkipArguments bool
	// CopyPeople parses an export's users and accounts without sharing them (a caller that
	// numbers them itself: model.Parser.CopyPeople).
	CopyPeople bool
	// Gate is where an export's read and parse wait while an interactive loop holds them
	// (FileOptions.Gate); nil never waits.
	Gate *pace.Gate
	// MaxGzipRatio bounds a gzip export's decompression ratio (FileOptions.MaxGzipRatio).
	MaxGzipRatio int
	// Now is the clock for since windows (time.Now when nil).
	Now func() time.Time
	// Parts is how many time slices of a window an API source walks at once (DefaultParts
	// when 0).
	Parts int
	// Cache, when set, keeps an API source's entries and details between runs (the source
	// closes it).
	Cache *logcache.Cache
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// localKey is sent to a loopback server when no key is given: the sandbox accepts any key.
const localKey = "exectriage-local"

// Open opens the source the options describe. A file source also gets an API client when
// BaseURL is set (so verify can reach the provider); a file is checked to be readable here.
func Open(ctx context.Context, opt Options) (Source, error) {
	switch {
	case opt.File != "":
		// Stat, not Open: opening a FIFO blocks until a writer comes, and ^C cannot interrupt it.
		st, err := os.Stat(opt.File)
		if err != nil {
			return nil, openError(opt.File, err)
		}
		if !st.Mode().IsRegular() && !st.IsDir() {
			return nil, &FileError{Path: opt.File, Msg: "not a regular file (" + fileKind(st.Mode()) + "): give an export file"}
		}
		f, err := os.Open(opt.File)
		if err != nil {
			return nil, openError(opt.File, err)
		}
		f.Close()
		s := &fileSource{path: opt.File, opt: opt}
		if opt.BaseURL != "" {
			c, err := apiClient(opt)
			if err != nil {
				return nil, err
			}
			s.client = c
		}
		return s, nil
	case opt.BaseURL != "" || opt.APIKey != "":
		c, err := apiClient(opt)
		if err != nil {
			return nil, err
		}
		if opt.Demo {
			return &apiSource{name: "DEMO", kind: model.SourceDemo, c: c, srv: opt.Closer, opt: opt}, nil
		}
		name := "LIVE"
		if u, err := url.Parse(opt.BaseURL); err == nil && opt.BaseURL != "" {
			name += " " + u.Host
		}
		return &apiSource{name: name, kind: model.SourceLive, c: c, srv: opt.Closer, opt: opt}, nil
	}
	return nil, errors.New("no source: choose a file or the API")
}

// fileKind names what a non-regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a plain file"
}

func apiClient(opt Options) (*client.Client, error) {
	key := opt.APIKey
	if key == "" {
		if opt.BaseURL == "" || !Loopback(opt.BaseURL) {
			return nil, ErrNoAPIKey
		}
		key = localKey
	}
	opts := []client.Option{client.WithAPIKey(key)}
	if opt.BaseURL != "" {
		opts = append(opts, client.WithBaseURL(opt.BaseURL))
	}
	return client.New(append(opts, opt.ClientOptions...)...)
}

// Loopback reports whether a base URL points at this machine (localhost or a loopback IP).
func Loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// apiSource reads the Logs API: the live one or the demo sandbox's.
type apiSource struct {
	name string
	kind model.SourceKind
	c    *client.Client
	srv  io.Closer // closed with the source (the demo's sandbox), nil when none
	opt  Options
	// noTriggerLogs is set once the trigger logs refused this key (they are an internal
	// endpoint a project key may not reach): later loads do not ask again.
	noTriggerLogs atomic.Bool
}

func (s *apiSource) Name() string           { return s.name }
func (s *apiSource) Client() *client.Client { return s.c }
func (s *apiSource) Kind() model.SourceKind { return s.kind }

// maxWalks bounds the walks of one load (see Load).
const maxWalks = 3

// Load walks the logs of the window and hands each record on once. A window with a start is
// split into time slices walked at once (Parts, 8 by default, for a window of hours; fewer for
// a short one), newest first, so that a window of N pages takes about N/Parts round trips
// rather than N (the client's rate gate still spaces every request); a window without one is
// walked whole.
//
// With a Cache, only what the cache does not cover is read from the API, with
// logcache.Overlap before the newest covered moment read again (late writes, statuses that
// changed); the rest of the window comes from the cache, and what the API gave is kept there.
//
// The real API's cursor is a page number (docs/platform.md, "Logs API"): a record written into a slice
// while its walk goes on shifts the pages after it, so a page can repeat records already
// handed on (they are dropped: every log id is handed on once) and, for a record that lands
// among the pages already read, the walk misses it. A repeat is the sign of such a shift, so a
// walk that met one is followed by another over the same slice (the same from and to), which
// hands on only what the walks before did not see; at most maxWalks walks, and none after a
// walk that found nothing new. page is called from one goroutine at a time.
func (s *apiSource) Load(ctx context.Context, since time.Duration, page func([]model.Execution) error) error {
	seen := map[string]struct{}{}
	cache := s.opt.Cache
	to := s.opt.now().Truncate(time.Millisecond)
	from := time.UnixMilli(0).UTC() // the whole log: a time range has both ends
	if since > 0 {
		from = to.Add(-since)
	}
	// The trigger deliveries of the window, with their identity (the logs list's
	// trigger.message entries carry none): each replaces its list entry as it passes, and
	// those the list did not have come last.
	deliveries, err := s.triggerDeliveries(ctx, from, to)
	if err != nil {
		return err
	}
	hand := func(batch []model.Execution, store bool) error {
		if store && cache != nil {
			if err := cache.PutEntries(ctx, batch); err != nil {
				cache = nil // a cache that fails is left alone: the API answers
			}
		}
		fresh := batch[:0]
		for _, e := range batch {
			if _, dup := seen[e.ID]; !dup {
				seen[e.ID] = struct{}{}
				if d, ok := deliveries[e.ID]; ok {
					e = d
				}
				fresh = append(fresh, e)
			}
		}
		if len(fresh) == 0 {
			return nil
		}
		return page(fresh)
	}
	rest := func() error {
		var left []model.Execution
		for id, d := range deliveries {
			if _, ok := seen[id]; !ok {
				left = append(left, d)
			}
		}
		if len(left) == 0 {
			return nil
		}
		slices.SortFunc(left, func(a, b model.Execution) int { // newest first, as the list
			if c := b.Timestamp.Compare(a.Timestamp); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		return hand(left, false)
	}
	fromAPI := func(b []model.Execution) error { return hand(b, true) }
	if since <= 0 && cache == nil {
		if _, err := s.walkSlices(ctx, []client.LogQuery{{Limit: client.MaxLogsPageSize}}, fromAPI); err != nil {
			return err
		}
		return rest()
	}
	var spans []logcache.Span
	if cache != nil {
		spans, _ = cache.Covered(ctx) // none when the cache cannot say: the API answers
	}
	// Newest first: what the API must give, and what the cache holds, in turn, so that the
	// records come newest first whichever answers.
	for _, seg := range segments(from, to, spans) {
		if seg.cached {
			if cache == nil {
				continue
			}
			if err := cache.Entries(ctx, seg.From, seg.To, func(b []model.Execution) error { return hand(b, false) }); err != nil {
				return err
			}
			continue
		}
		complete, err := s.walkRange(ctx, seg.From, seg.To, fromAPI)
		if err != nil {
			return err
		}
		if complete && cache != nil {
			_ = cache.Cover(ctx, seg.Span)
		}
	}
	if cache != nil {
		_ = cache.Prune(ctx)
	}
	return rest()
}

// triggerDeliveries reads the trigger logs of [from, to] by id, their attempts numbered. A
// refusal (the endpoint is internal: a key may not reach it) or a server without them leaves
// the deliveries as the logs list has them, and is not asked again; only the end of ctx is an
// error.
func (s *apiSource) triggerDeliveries(ctx context.Context, from, to time.Time) (map[string]model.Execution, error) {
	if s.noTriggerLogs.Load() {
		return nil, nil
	}
	var all []model.Execution
	for p, err := range s.c.ListTriggerLogs(ctx, from, to) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var ae *client.APIError
			if errors.As(err, &ae) && ae.StatusCode >= 400 && ae.StatusCode < 500 && ae.StatusCode != 429 {
				s.noTriggerLogs.Store(true)
			}
			return nil, nil
		}
		all = append(all, p.Deliveries...)
	}
	model.NumberAttempts(all)
	out := make(map[string]model.Execution, len(all))
	for _, d := range all {
		out[d.ID] = d
	}
	return out, nil
}

// segment is a stretch of a window, read from the cache or from the API.
type segment struct {
	logcache.Span
	cached bool
}

// segments splits [from, to] into what the cache covers (each covered span but its last
// logcache.Overlap) and what the API must give, newest first.
func segments(from, to time.Time, spans []logcache.Span) []segment {
	var out []segment
	at := from
	for _, sp := range spans {
		end := sp.To.Add(-logcache.Overlap)
		if end.After(to) {
			end = to
		}
		start := sp.From
		if start.Before(at) {
			start = at
		}
		if end.Before(start) {
			continue
		}
		if start.After(at) {
			out = append(out, segment{Span: logcache.Span{From: at, To: start.Add(-time.Millisecond)}})
		}
		out = append(out, segment{Span: logcache.Span{From: start, To: end}, cached: true})
		at = end.Add(time.Millisecond)
	}
	if !at.After(to) {
		out = append(out, segment{Span: logcache.Span{From: at, To: to}})
	}
	slices.Reverse(out)
	return out
}

// DefaultParts is how many time slices a window of hours is walked in at once.
const DefaultParts = 8

// sliceSpan is the least time a slice of its own is worth.
const sliceSpan = 30 * time.Minute

// walkRange walks [from, to] in time slices at once (see Load), newest slice first; complete
// says every slice's last walk met no shifted page.
func (s *apiSource) walkRange(ctx context.Context, from, to time.Time, emit func([]model.Execution) error) (bool, error) {
	parts := s.opt.Parts
	if parts <= 0 {
		parts = DefaultParts
	}
	span := to.Sub(from)
	parts = max(1, min(parts, int(span/sliceSpan)))
	// bound k is where slice k starts (inclusive, to the millisecond, as the API's time_range);
	// slice k ends a millisecond before bound k-1, so no record is in two slices.
	bound := func(k int) time.Time {
		if k >= parts-1 {
			return from
		}
		return to.Add(-span * time.Duration(k+1) / time.Duration(parts)).Truncate(time.Millisecond)
	}
	qs := make([]client.LogQuery, parts)
	for k := range parts { // slice 0 is the newest
		hi := to
		if k > 0 {
			hi = bound(k - 1).Add(-time.Millisecond)
		}
		qs[k] = client.LogQuery{Limit: client.MaxLogsPageSize, From: bound(k), To: hi}
	}
	return s.walkSlices(ctx, qs, emit)
}

// walkSlices walks the slices at once and hands their pages to emit in the slices' order (a
// slice's pages wait until the slices before it are done), from this goroutine: records come
// newest first, as one walk gives them, in the time of the longest slice rather than of all.
func (s *apiSource) walkSlices(ctx context.Context, qs []client.LogQuery, emit func([]model.Execution) error) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queues := make([]*pageQueue, len(qs))
	done := make([]bool, len(qs))
	var wg sync.WaitGroup
	for k, q := range qs {
		queues[k] = newPageQueue()
		wg.Go(func() {
			var err error
			done[k], err = s.walkSlice(ctx, q, queues[k].put)
			queues[k].close(err)
		})
	}
	defer wg.Wait()
	for _, qu := range queues {
		for {
			b, ok, err := qu.next()
			if !ok {
				if err != nil {
					cancel()
					return false, err
				}
				break
			}
			if err := emit(b); err != nil {
				cancel()
				return false, err
			}
		}
	}
	wg.Wait()
	return !slices.Contains(done, false), nil
}

// pageQueue holds a slice's pages until they are handed on.
type pageQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	pages  [][]model.Execution
	closed bool
	err    error
}

func newPageQueue() *pageQueue {
	q := &pageQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *pageQueue) put(b []model.Execution) {
	q.mu.Lock()
	q.pages = append(q.pages, b)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *pageQueue) close(err error) {
	q.mu.Lock()
	q.closed, q.err = true, err
	q.mu.Unlock()
	q.cond.Signal()
}

// next waits for the next page; ok false once the queue is closed and empty (err: why).
func (q *pageQueue) next() (b []model.Execution, ok bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.pages) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.pages) == 0 {
		return nil, false, q.err
	}
	b = q.pages[0]
	q.pages[0] = nil
	q.pages = q.pages[1:]
	return b, true, nil
}

// walkSlice walks one time slice (see Load), handing each page's records it has not handed on
// before to put. complete says the last walk met no shifted page.
func (s *apiSource) walkSlice(ctx context.Context, q client.LogQuery, put func([]model.Execution)) (complete bool, err error) {
	seen := map[string]struct{}{}
	for walk := range maxWalks {
		repeats, fresh := 0, 0
		for p, err := range s.c.ListLogs(ctx, q) {
			if err != nil {
				return false, err
			}
			for _, b := range p.Bad {
				if s.opt.OnBad != nil && walk == 0 {
					s.opt.OnBad(b)
				}
			}
			batch := p.Executions[:0]
			for _, e := range p.Executions {
				if _, dup := seen[e.ID]; dup {
					repeats++
					continue
				}
				seen[e.ID] = struct{}{}
				batch = append(batch, e)
			}
			fresh += len(batch)
			if len(batch) > 0 {
				put(batch)
			}
		}
		if repeats == 0 || walk > 0 && fresh == 0 {
			return true, nil
		}
		if q.To.IsZero() { // a walk again must see the same window, not the records since
			q.To = s.opt.now()
		}
	}
	return false, nil
}

// Find asks the Logs API for the records whose field contains value, and fetches each one's
// detail (the list entries carry no request id, no error kind, no arguments).
func (s *apiSource) Find(ctx context.Context, since time.Duration, field, value string, max int) ([]model.Execution, error) {
	q := client.LogQuery{Limit: min(max, client.MaxLogsPageSize), Filters: []client.LogFilter{{Field: field, Operator: "contains", Value: value}}}
	if since > 0 {
		q.To = s.opt.now()
		q.From = q.To.Add(-since)
	}
	var ids []string
	for p, err := range s.c.ListLogs(ctx, q) {
		if err != nil {
			return nil, err
		}
		for _, e := range p.Executions {
			if len(ids) < max && !slices.Contains(ids, e.ID) {
				ids = append(ids, e.ID)
			}
		}
		if len(ids) >= max {
			break
		}
	}
	out := make([]model.Execution, 0, len(ids))
	for _, id := range ids {
		e, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (s *apiSource) Get(ctx context.Context, id string) (model.Execution, error) {
	if c := s.opt.Cache; c != nil {
		if e, ok, err := c.Detail(ctx, id); err == nil && ok {
			return e, nil
		}
	}
	e, err := s.c.GetLog(ctx, id)
	if err == nil && s.opt.Cache != nil && e.ID == id {
		_ = s.opt.Cache.PutDetail(ctx, e)
	}
	var ae *client.APIError
	if errors.As(err, &ae) && ae.StatusCode == 404 {
		return model.Execution{}, notFound{id: id, where: s.name}
	}
	return e, err
}

func (s *apiSource) Close() error {
	var err error
	if s.opt.Cache != nil {
		err = s.opt.Cache.Close()
	}
	if s.srv != nil {
		err = errors.Join(err, s.srv.Close())
	}
	return err
}

// fileSource reads an export file. It remembers where each record is (offset and length)
// instead of the record itself, so Get re-reads one record on demand. A gzip file cannot be
// read at an offset: Load copies its decompressed bytes to a spool file in the temporary
// directory (mode 0600, removed by Close) and reads records again from there; when no spool
// can be made, the records are kept whole in memory.
type fileSource struct {
	path   string
	opt    Options
	client *client.Client

	mu        sync.Mutex
	where     *fileIndex
	spool     *os.File                   // the decompressed copy the locations point into (nil for a plain file), already unlinked
	kept      map[string]model.Execution // gzip files without a spool only
	unlocated bool                       // the last load read a gzip export without a spool
	loading   chan struct{}              // open while a Load runs
	complete  bool                       // a Load has read the whole file
	spare     chan []model.Execution     // the running Load's arrays to fill again (Recycle); nil when none runs
	// Open handles on a plain export for reading records again, so that a Get costs one read
	// rather than an open, a read and a close (the TUI's groups read tens of thousands). Each
	// is of a load (gen): a later load may index another file at the same path, so handles of
	// an earlier one are closed rather than used again.
	handles []heldFile
	gen     int
	// repeats is how many records the last load dropped as repeats (see repeats)
	repeats int
}

// heldFile is an open handle on the export, of load number gen, with the buffer its reads
// go through (kept with it, so that the groups' tens of thousands of reads do not each make
// one).
type heldFile struct {
	f   *os.File
	gen int
	buf []byte
}

// maxHandles is how many idle handles a source keeps: one per reading core, and some.
const maxHandles = 8

// maxKeptBuffer is the largest read buffer a handle keeps.
const maxKeptBuffer = 1 << 20

// openExport returns a handle on the export to read at an offset (putExport gives it back).
func (s *fileSource) openExport() (heldFile, error) {
	s.mu.Lock()
	if n := len(s.handles); n > 0 {
		h := s.handles[n-1]
		s.handles = s.handles[:n-1]
		s.mu.Unlock()
		return h, nil
	}
	gen := s.gen
	s.mu.Unlock()
	f, err := os.Open(s.path)
	return heldFile{f: f, gen: gen}, err
}

// putExport keeps h for the next read, or closes it when it is of an earlier load or enough
// are kept.
func (s *fileSource) putExport(h heldFile) {
	if cap(h.buf) > maxKeptBuffer {
		h.buf = nil // a rare huge record's
	}
	s.mu.Lock()
	if h.gen == s.gen && len(s.handles) < maxHandles {
		s.handles = append(s.handles, h)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	h.f.Close()
}

// dropHandles closes the idle handles and makes those in use close when given back (s.mu held).
func (s *fileSource) dropHandles() {
	for _, h := range s.handles {
		h.f.Close()
	}
	s.handles = nil
	s.gen++
}

func (s *fileSource) Name() string           { return displayName(s.path) }
func (s *fileSource) Client() *client.Client { return s.client }
func (s *fileSource) Kind() model.SourceKind { return model.SourceFile }

// Close closes the spool of a gzip export (its name is gone already: see newSpool).
func (s *fileSource) Close() error {
	s.mu.Lock()
	spool := s.spool
	s.spool, s.where, s.complete = nil, nil, false
	s.dropHandles()
	s.mu.Unlock()
	if spool == nil {
		return nil
	}
	if err := spool.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("closing the spool of %s: %w", displayName(s.path), err)
	}
	return nil
}

// newSpool makes the spool a Load of a gzip export copies into, replacing the one an earlier
// Load made. The spool holds the whole export, unredacted: on Linux it never has a name
// (O_TMPFILE), elsewhere its name is removed right after it is created; it is read through the
// open descriptor, so nothing is left behind when the process ends however it ends (SIGKILL,
// OOM, SIGHUP), even killed between creating the file and removing its name.
func (s *fileSource) newSpool() (io.WriteCloser, string, error) {
	f, ok := openSpool() // never named, where the system can (Linux O_TMPFILE)
	name := ""
	if ok {
		name = f.Name()
	} else {
		var err error
		if f, err = os.CreateTemp("", "exectriage-export-*.jsonl"); err != nil {
			return nil, "", err
		}
		name = f.Name()
		if err := os.Remove(name); err != nil {
			f.Close()
			os.Remove(name)
			return nil, "", err
		}
	}
	s.mu.Lock()
	old := s.spool
	s.spool = f
	s.mu.Unlock()
	if old != nil {
		_ = old.Close() // a Get reading it retries (readAt)
	}
	return nopCloser{f}, name + " (unlinked)", nil
}

// nopCloser writes to the spool without closing it: the source reads it until Close.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Load reads the whole file; since, when set, keeps the records whose timestamp is within
// since of now. Get works for the records read so far while Load runs.
func (s *fileSource) Load(ctx context.Context, since time.Duration, page func([]model.Execution) error) error {
	var pg func([]model.Execution, []location) error
	if page != nil {
		pg = func(b []model.Execution, _ []location) error { return page(b) }
	}
	return s.load(ctx, since, true, s.opt.SkipArguments, pg)
}

// Repeater is a source that drops, as it loads, a record equal byte for byte to the latest
// record of its id read shortly before (an export file's: see repeats). Repeats says how many
// the last load dropped: each is a copy of an id, as a front counts copies.
type Repeater interface {
	Repeats() int
}

// Ref is where one record of an export is: ReadRef reads it again. It is only good for the
// source that gave it, until the source is loaded again or closed.
type Ref struct{ loc packedLocation }

// Size is how many bytes of the file the record takes (0 for a Ref of nothing).
func (r Ref) Size() int { return int(r.loc.n) }

// Located is a source that says where each record is as it loads and can read one again from
// there: an export file (a gzip one through the decompressed copy it keeps while open). A
// caller that needs a few records whole after a load of many keeps their Refs, not them.
type Located interface {
	// LoadLocated is Load with each batch's Refs (refs[i] is b's i-th record's; the slice is
	// reused after page returns), and the records without their arguments (ReadRefs has
	// them). refs is nil when the records cannot be read again (a gzip export without its
	// copy): the records then come whole; keep what is needed. It builds no index for Get (a Get
	// afterwards reads the file once more to build one).
	LoadLocated(ctx context.Context, since time.Duration, page func(b []model.Execution, refs []Ref) error) error
	// ReadRefs reads the records ids[k] at refs[k] again, with their arguments, handing each
	// to got in order; the file is opened once. A response the source's KeepResponse drops is
	// dropped again (a lean scan's: it reads no more of a response than whether it may fail).
	ReadRefs(ctx context.Context, refs []Ref, ids []string, got func(k int, e model.Execution) error) error
	// ReadWhole is ReadRefs with every field of each record, whatever KeepResponse drops, as
	// Get gives it (show and bundle read the records they name).
	ReadWhole(ctx context.Context, refs []Ref, ids []string, got func(k int, e model.Execution) error) error
}

// LoadLocated implements Located.
func (s *fileSource) LoadLocated(ctx context.Context, since time.Duration, page func(b []model.Execution, refs []Ref) error) error {
	var refs []Ref
	return s.load(ctx, since, false, true, func(b []model.Execution, locs []location) error {
		if locs == nil {
			return page(b, nil)
		}
		refs = refs[:0]
		for _, l := range locs {
			if l.n > math.MaxUint32 {
				return fmt.Errorf("%s: a record of %d bytes is too large to read again", s.Name(), l.n)
			}
			refs = append(refs, Ref{loc: packedLocation{off: l.off, n: uint32(l.n), page: l.page}})
		}
		return page(b, refs)
	})
}

// ReadRefs implements Located.
func (s *fileSource) ReadRefs(ctx context.Context, refs []Ref, ids []string, got func(k int, e model.Execution) error) error {
	return s.readRefs(ctx, refs, ids, &model.Parser{KeepResponse: s.opt.KeepResponse}, got)
}

// ReadWhole implements Located.
func (s *fileSource) ReadWhole(ctx context.Context, refs []Ref, ids []string, got func(k int, e model.Execution) error) error {
	return s.readRefs(ctx, refs, ids, nil, got)
}

// readRefs reads the records at refs with p (nil: whole).
func (s *fileSource) readRefs(ctx context.Context, refs []Ref, ids []string, p *model.Parser, got func(k int, e model.Execution) error) error {
	s.mu.Lock()
	spool, unlocated := s.spool, s.unlocated
	s.mu.Unlock()
	if unlocated {
		return fmt.Errorf("%s: the decompressed copy is gone: load the export again", s.Name())
	}
	var r io.ReaderAt = spool
	if spool == nil {
		h, err := s.openExport()
		if err != nil {
			return err
		}
		defer s.putExport(h)
		r = h.f
	}
	var buf []byte
	for k, ref := range refs {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		e, err := s.readFrom(r, spool != nil, ids[k], []location{{off: ref.loc.off, n: int64(ref.loc.n), page: ref.loc.page}}, &buf, p)
		if err != nil {
			return err
		}
		if err := got(k, e); err != nil {
			return err
		}
	}
	return nil
}

// load reads the file, handing page each batch (after the since cut) with the records'
// locations (nil when they cannot be read again); index builds the index Get uses.
func (s *fileSource) load(ctx context.Context, since time.Duration, index, skipArgs bool, page func([]model.Execution, []location) error) error {
	var cutoff time.Time
	if since > 0 {
		cutoff = s.opt.now().Add(-since)
	}
	done := make(chan struct{})
	spare := make(chan []model.Execution, spareArrays(cores.N()))
	s.mu.Lock()
	s.dropHandles()
	s.where, s.kept, s.loading, s.complete, s.unlocated, s.spare = nil, nil, done, false, false, spare
	if index {
		s.where = newFileIndex(s.SizeHint())
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.loading == done {
			s.loading = nil
		}
		if s.spare == spare {
			s.spare = nil // the arrays in it go with it: nothing keeps them after the load
		}
		s.mu.Unlock()
		close(done)
	}()
	l := newLoader(s.path, FileOptions{BatchSize: s.opt.BatchSize, MaxRecordBytes: s.opt.MaxRecordBytes, OnBad: s.opt.OnBad,
		KeepResponse: s.opt.KeepResponse, ReuseBatches: s.opt.ReuseBatches, MaxGzipRatio: s.opt.MaxGzipRatio, SkipArguments: skipArgs,
		CopyPeople: s.opt.CopyPeople, Background: s.opt.Background, Gate: s.opt.Gate, Spare: spare})
	l.spool = s.newSpool
	var locs []location // the batch's, from onLocs, just before emit
	l.onLocs = func(b []model.Execution, ls []location) {
		locs = ls
		if !index {
			return
		}
		s.mu.Lock()
		for i := range b {
			s.where.add(b[i].ID, ls[i])
		}
		s.mu.Unlock()
	}
	l.emit = func(b []model.Execution) error {
		bl := locs
		locs = nil
		if !l.locatable() {
			bl = nil
			s.mu.Lock()
			s.unlocated = true
			if index {
				if s.kept == nil {
					s.kept = make(map[string]model.Execution)
				}
				for _, e := range b {
					if _, dup := s.kept[e.ID]; !dup {
						s.kept[e.ID] = e
					}
				}
			}
			s.mu.Unlock()
		}
		if !cutoff.IsZero() {
			n := 0
			for i, e := range b {
				if !e.Timestamp.Before(cutoff) {
					b[n] = e
					if bl != nil {
						bl[n] = bl[i]
					}
					n++
				}
			}
			b = b[:n]
			if bl != nil {
				bl = bl[:n]
			}
		}
		if len(b) == 0 || page == nil {
			return nil
		}
		return page(b, bl)
	}
	err := l.run(ctx)
	s.mu.Lock()
	s.repeats = l.repeats.dropped
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := l.noneReadable(); err != nil {
		return err
	}
	s.mu.Lock()
	s.complete = index
	s.mu.Unlock()
	return nil
}

// Repeats implements Repeater.
func (s *fileSource) Repeats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repeats
}

// Recycle takes back a batch Load handed out, once its consumer is done with it and keeps
// no slice of it: the running load fills the array again rather than make a new one (a 1M
// export's load otherwise allocates 424 MB of arrays, which the collector chases while a
// person types). The records are cleared first, so no stale string stays alive. A batch
// handed back after its load ended is left to the collector.
func (s *fileSource) Recycle(b []model.Execution) {
	s.mu.Lock()
	spare := s.spare
	s.mu.Unlock()
	if spare == nil || cap(b) == 0 {
		return
	}
	b = b[:cap(b)]
	clear(b)
	select {
	case spare <- b[:0]:
	default:
	}
}

// lookup finds id: kept whole, or at locs in the export, or in its spool when it has one.
func (s *fileSource) lookup(id string) (e model.Execution, spool *os.File, locs []location, kept bool, loading chan struct{}, complete bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.kept[id]; ok {
		return e, nil, nil, true, nil, true
	}
	if s.where != nil {
		locs = s.where.find(id)
	}
	return model.Execution{}, s.spool, locs, false, s.loading, s.complete
}

func (s *fileSource) Get(ctx context.Context, id string) (model.Execution, error) {
	for attempt := 0; ; attempt++ {
		e, spool, locs, kept, loading, complete := s.lookup(id)
		switch {
		case kept:
			return e, nil
		case len(locs) > 0:
			e, err := s.readAt(spool, id, locs)
			if err != nil && spool != nil && errors.Is(err, os.ErrClosed) && attempt == 0 {
				// A reload replaced the spool between the lookup and the read: let it reach
				// the record, then look again.
				if _, _, _, _, loading, _ := s.lookup(id); loading != nil {
					select {
					case <-loading:
					case <-ctx.Done():
						return model.Execution{}, ctx.Err()
					}
				}
				continue
			}
			return e, err
		case attempt > 0:
		case loading != nil: // a Load is under way: it may still reach id
			select {
			case <-loading:
			case <-ctx.Done():
				return model.Execution{}, ctx.Err()
			}
			continue
		case !complete:
			if err := s.Load(ctx, 0, nil); err != nil {
				return model.Execution{}, err
			}
			continue
		}
		return model.Execution{}, notFound{id: id, where: s.Name()}
	}
}

// SizeHint guesses how many records the file holds, from the length of its first lines, so
// that a caller keeping them all can size its slice once: an estimate (a little high), 0 when
// it cannot tell cheaply (gzip, or not JSON Lines).
func (s *fileSource) SizeHint() int {
	f, err := os.Open(s.path)
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	head := make([]byte, 1<<20)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], "\xef\xbb\xbf \t\r\n")
	if len(head) == 0 || head[0] != '{' || bytes.HasPrefix(head, []byte("{\n")) || bytes.HasPrefix(head, []byte("{\r\n")) {
		return 0 // empty, gzip, an array or a pretty-printed document
	}
	lines := bytes.Count(head, []byte{'\n'})
	if lines == 0 || int64(n) == st.Size() {
		return max(lines, 1)
	}
	est := float64(st.Size()) / (float64(len(head)) / float64(lines))
	return int(est*1.1) + 1024
}

// readAt parses the record id at the first of locs that holds it, in spool when given (the
// decompressed copy of a gzip export) else in the export, checking the file still holds it
// there.
func (s *fileSource) readAt(spool *os.File, id string, locs []location) (model.Execution, error) {
	if spool != nil {
		var buf []byte
		return s.readFrom(spool, true, id, locs, &buf, nil)
	}
	h, err := s.openExport()
	if err != nil {
		return model.Execution{}, err
	}
	defer func() { s.putExport(h) }() // with the buffer as readFrom left it
	return s.readFrom(h.f, false, id, locs, &h.buf, nil)
}

// readFrom is readAt from r (the export, or its spool when spooled), reading into *buf.
func (s *fileSource) readFrom(r io.ReaderAt, spooled bool, id string, locs []location, buf *[]byte, p *model.Parser) (model.Execution, error) {
	for _, loc := range locs {
		if int64(cap(*buf)) < loc.n {
			*buf = make([]byte, loc.n)
		}
		b := (*buf)[:loc.n]
		if _, err := r.ReadAt(b, loc.off); err != nil {
			if spooled && errors.Is(err, os.ErrClosed) {
				return model.Execution{}, fmt.Errorf("the decompressed copy of %s is gone (%w): load the export again (R in the TUI)", s.Name(), err)
			}
			return model.Execution{}, fmt.Errorf("%s: re-reading %s: %w", s.path, id, err)
		}
		if loc.page {
			p, err := model.ParseLogsPage(b)
			if err == nil {
				for _, e := range p.Executions {
					if e.ID == id {
						return e, nil
					}
				}
			}
		} else if e, err := parseWith(p, b); err == nil && e.ID == id {
			return e, nil
		}
	}
	return model.Execution{}, fmt.Errorf("%s: the file changed since it was loaded (record %s moved)", s.path, id)
}

// parseWith parses a record with p (nil: whole).
func parseWith(p *model.Parser, b []byte) (model.Execution, error) {
	if p == nil {
		return model.ParseRecord(b)
	}
	return p.Parse(b)
}

// fileIndex says where each record of a plain file is, in 16 bytes a record or so instead of a
// map keyed by id: an open-addressing table of the 64-bit hashes of the ids (0 marks an empty
// slot; a hash of 0 counts as 1), at most three quarters full, with beside each hash the
// location of the first record with it, packed in 8 bytes (offset 39 bits, length 24, page
// 1). An id whose hash is taken already (the same id again, or, very rarely, another id), and
// a location that does not pack (past 512 GB, or a record past 16 MB), are kept by name; Get
// reads the record to tell. (An id that is not in the file but shares the hash of one that
// is, about one chance in 2^64 / records, is reported as a changed file rather than as not
// found.)
type fileIndex struct {
	seed maphash.Seed
	tab  hashtab.Table[uint64] // packed locations by the id's key
	more map[string]location
}

// packedLocation is a location in 16 bytes (a Ref's).
type packedLocation struct {
	off  int64
	n    uint32
	page bool
}

const (
	packOffBits = 39
	packLenBits = 24
)

// pack packs loc in 8 bytes; ok is false when it does not fit.
func pack(loc location) (uint64, bool) {
	if loc.off < 0 || loc.off >= 1<<packOffBits || loc.n < 0 || loc.n >= 1<<packLenBits {
		return 0, false
	}
	v := uint64(loc.off)<<(packLenBits+1) | uint64(loc.n)<<1
	if loc.page {
		v |= 1
	}
	return v, true
}

func unpack(v uint64) location {
	return location{off: int64(v >> (packLenBits + 1)), n: int64(v >> 1 & (1<<packLenBits - 1)), page: v&1 != 0}
}

// newFileIndex returns an empty index with room for about n records (the file's SizeHint),
// so that a million of them do not grow it step by step.
func newFileIndex(n int) *fileIndex {
	x := &fileIndex{seed: maphash.MakeSeed(), more: make(map[string]location)}
	x.tab.Reserve(n)
	return x
}

func (x *fileIndex) hash(id string) uint64 { return hashtab.Key(x.seed, id) }

// add records where id is: in the table when its key is new there and the location packs,
// else by name (an id seen again, another id with the same key, a location too far or long).
func (x *fileIndex) add(id string, loc location) {
	if v, ok := pack(loc); ok && x.tab.Add(x.hash(id), v) {
		return
	}
	if _, dup := x.more[id]; !dup {
		x.more[id] = loc
	}
}

// find returns where id may be, first match first.
func (x *fileIndex) find(id string) []location {
	var out []location
	if v, ok := x.tab.Get(x.hash(id)); ok {
		out = append(out, unpack(v))
	}
	if loc, ok := x.more[id]; ok {
		out = append(out, loc)
	}
	return out
}
