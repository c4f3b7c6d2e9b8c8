package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/model"
)

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
	ctx, cancel := context.WithCancel(ctx)
	// The trigger deliveries of the window, with their identity (the logs list's
	// trigger.message entries carry none): each replaces its list entry as it passes, and
	// those the list did not have come last. They are read while the walk reads its first
	// page (a request each: one after the other, a reopen waited for both), and waited for
	// before the first page is handed on.
	var deliveries map[string]model.Execution
	var deliveriesErr error
	delivered := make(chan struct{})
	go func() {
		defer close(delivered)
		deliveries, deliveriesErr = s.triggerDeliveries(ctx, from, to)
	}()
	defer func() {
		cancel()
		<-delivered
	}()
	awaitDeliveries := func() error {
		select {
		case <-delivered:
			return deliveriesErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	hand := func(batch []model.Execution, store bool) error {
		if err := awaitDeliveries(); err != nil {
			return err
		}
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
		if err := awaitDeliveries(); err != nil {
			return err
		}
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
	// records come newest first whichever answers. The cache is read ahead while the API
	// answers (a reopen waited for the newest minutes' request, then read the cache).
	segs := segments(from, to, spans)
	ahead := readAhead(ctx, cache, segs)
	defer ahead.stop()
	for i, seg := range segs {
		if seg.cached {
			if err := ahead.each(i, func(b []model.Execution) error {
				if cache == nil {
					return nil // the cache failed meanwhile: what it holds is left alone
				}
				return hand(b, false)
			}); err != nil {
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

// aheadBatches bounds the batches of the cache read ahead of the walk (a thousand entries each).
const aheadBatches = 16

// cachedBatch is a batch of the cache read ahead: of segment seg, or its end (err: the read's).
type cachedBatch struct {
	seg   int
	batch []model.Execution
	end   bool
	err   error
}

// reader reads a walk's cached segments in order, in a goroutine of its own, at most
// aheadBatches ahead of the walk that hands them on.
type reader struct {
	ch     chan cachedBatch
	cancel context.CancelFunc
	done   chan struct{}
}

// readAhead starts reading the cached segments of segs (none: a reader that has nothing).
func readAhead(ctx context.Context, cache *logcache.Cache, segs []segment) *reader {
	r := &reader{ch: make(chan cachedBatch, aheadBatches), done: make(chan struct{})}
	ctx, r.cancel = context.WithCancel(ctx)
	go func() {
		defer close(r.done)
		defer close(r.ch)
		if cache == nil {
			return
		}
		send := func(cb cachedBatch) error {
			select {
			case r.ch <- cb:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		for i, seg := range segs {
			if !seg.cached {
				continue
			}
			err := cache.Entries(ctx, seg.From, seg.To, func(b []model.Execution) error { return send(cachedBatch{seg: i, batch: b}) })
			if send(cachedBatch{seg: i, end: true, err: err}) != nil || err != nil {
				return
			}
		}
	}()
	return r
}

// each hands segment seg's batches to fn, in order, and returns the read's error or fn's.
func (r *reader) each(seg int, fn func([]model.Execution) error) error {
	for cb := range r.ch {
		switch {
		case cb.seg != seg:
			return fmt.Errorf("cache: read segment %d while segment %d was wanted", cb.seg, seg)
		case cb.end:
			return cb.err
		}
		if err := fn(cb.batch); err != nil {
			return err
		}
	}
	return nil // the cache was not read (none, or the walk is ending)
}

// stop ends the read ahead and waits for its goroutine.
func (r *reader) stop() {
	r.cancel()
	<-r.done
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
	q := client.LogQuery{
		Limit:   min(max, client.MaxLogsPageSize),
		Filters: []client.LogFilter{{Field: field, Operator: "contains", Value: value}},
	}
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
