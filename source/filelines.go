package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sync"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/model"
)

// JSON Lines are read by one goroutine that cuts the file into chunks of lines, parsed by
// GOMAXPROCS workers (parsing dominates the cost), and merged back in file order by the
// caller's goroutine, which alone emits batches and reports bad lines.
const (
	chunkLines = 2048
	gateLines  = 128 // parseChunk's pace: about a quarter of a millisecond of parsing
	chunkBytes = 2 << 20
)

// lineMeta is one non-blank line of a chunk: data[start:end] (trimmed) at file offset off,
// n bytes long including its newline.
type lineMeta struct {
	num          int
	start, end   int
	off, n       int64
	unterminated bool // the last line, without a newline
	tooBig       bool // over the record limit: not copied
}

// lineResult is what parsing one line gave: nExec executions (taken in order from the
// chunk's execs), errors for skipped records, or a fatal truncation.
type lineResult struct {
	nExec     int
	page      bool
	errs      []error
	truncated bool
}

type chunk struct {
	seq     int
	data    []byte
	lines   []lineMeta
	results []lineResult
	execs   []model.Execution
	sums    []uint64 // each record's key (repeats)
	err     error    // a read error after the lines of this chunk
	errLine int
}

// spareArrays is how many record arrays wait to be filled again: as many as can be in
// flight (queued, being parsed, parsed and waiting, emitted and not yet handed back).
func spareArrays(workers int) int { return 4*workers + 4 }

// chunksAhead is how many chunks can be sent to the parsers and not yet merged: queued, being
// parsed and parsed (a worker's each), and as many again waiting for an earlier one.
func chunksAhead(workers int) int { return 4 * workers }

// lines reads JSON Lines. line is the number of the first line (blank lines before it were
// consumed by the sniffing).
func (l *loader) lines(ctx context.Context, br *bufio.Reader, line int) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := cores.N()
	jobs := make(chan *chunk, workers)
	// Chunk buffers handed back by the parsers: room for every buffer that can be in flight
	// (queued, being parsed, parsed and waiting), so that none is dropped and made again.
	free := make(chan []byte, 4*workers+4)
	// Chunks merge is done with, whose line tables cut fills again (96 bytes a line: a 1M
	// load allocated 170 MB more when each chunk grew tables of its own).
	l.chunks = make(chan *chunk, 4*workers+4)
	// Merge applies chunks in file order: a parser held up on one chunk (a busy machine) would
	// let the others run ahead and merge keep every later chunk waiting, without end. cut
	// sends a chunk only while fewer than chunksAhead are sent and not merged.
	l.ahead = make(chan struct{}, chunksAhead(workers))
	// Record arrays handed back by merge once their records were copied (into batches, or by
	// a callback that promised to), for the parsers to fill again.
	l.spare = l.opt.Spare
	if l.spare == nil {
		l.spare = make(chan []model.Execution, spareArrays(workers))
	}
	results := make(chan *chunk, workers)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		if l.opt.Background {
			cores.Background()
		}
		l.cut(pctx, br, line, jobs, free)
	})
	var parsers sync.WaitGroup
	for range workers {
		parsers.Go(func() {
			if l.opt.Background {
				cores.Background()
			}
			p := model.Parser{
				KeepResponse:    l.parser.KeepResponse,
				KeepResponseKey: l.parser.KeepResponseKey,
				SkipArguments:   l.parser.SkipArguments,
				CopyPeople:      l.parser.CopyPeople,
			} // one per worker: no locking
			for c := range jobs {
				if l.opt.Gate.Wait(pctx) != nil {
					return
				}
				var recs []model.Execution
				select {
				case recs = <-l.spare:
				default:
				}
				if l.parsing != nil {
					l.parsing(c.seq)
				}
				parseChunk(pctx, c, &p, recs, l.opt.Gate, l.repeats.seed)
				select {
				case free <- c.data[:0]:
				default:
				}
				c.data = nil
				select {
				case results <- c:
				case <-pctx.Done():
					return
				}
			}
		})
	}
	wg.Go(func() {
		parsers.Wait()
		close(results)
	})
	err := l.merge(pctx, results)
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	return l.flush(ctx, true)
}

// cut reads lines into chunks and sends them, in order, to jobs.
func (l *loader) cut(ctx context.Context, br *bufio.Reader, line int, jobs chan<- *chunk, free <-chan []byte) {
	limit := l.maxRecord()
	off := l.base
	seq := 0
	buffer := func() []byte {
		select {
		case b := <-free:
			return b
		default:
			return make([]byte, 0, chunkBytes+64<<10)
		}
	}
	fresh := func() *chunk {
		var c *chunk
		select {
		case c = <-l.chunks:
		default:
			c = &chunk{}
			l.made++
		}
		c.seq, c.data = seq, buffer()
		return c
	}
	c := fresh()
	send := func() bool {
		if l.opt.Gate.Wait(ctx) != nil {
			return false
		}
		select {
		case l.ahead <- struct{}{}:
		case <-ctx.Done():
			return false
		}
		select {
		case jobs <- c:
		case <-ctx.Done():
			return false
		}
		seq++
		c = fresh()
		return true
	}
	for ; ; line++ {
		raw, err := br.ReadSlice('\n')
		n, tooBig := int64(len(raw)), false
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: copy it piecewise up to the limit, then skip.
			start := len(c.data)
			c.data = append(c.data, raw...)
			for err == bufio.ErrBufferFull {
				raw, err = br.ReadSlice('\n')
				n += int64(len(raw))
				if !tooBig && len(c.data)-start+len(raw) <= limit+1 {
					c.data = append(c.data, raw...)
				} else {
					tooBig = true
				}
			}
			raw = c.data[start:]
			c.data = c.data[:start]
		}
		if err != nil && err != io.EOF {
			c.err, c.errLine = err, line
			send()
			return
		}
		last := err == io.EOF
		start := off
		off += n
		if n == 0 && last {
			break
		}
		terminated := len(raw) > 0 && raw[len(raw)-1] == '\n'
		rec := bytes.TrimSpace(raw)
		switch {
		case len(rec) == 0 && !tooBig:
		case tooBig || len(rec) > limit:
			c.lines = append(c.lines, lineMeta{num: line, off: start, n: n, tooBig: true})
		default:
			// rec may alias c.data (a long line): copy through a fresh region either way.
			b := len(c.data)
			c.data = append(c.data, rec...)
			c.lines = append(c.lines, lineMeta{num: line, start: b, end: len(c.data), off: start, n: n, unterminated: last && !terminated})
		}
		if last {
			break
		}
		if len(c.lines) >= chunkLines || len(c.data) >= chunkBytes {
			if !send() {
				return
			}
		}
	}
	if len(c.lines) > 0 {
		send()
	}
}

// parseChunk parses every line of c (a worker's job; no shared state). The records do not
// alias c.data, which is recycled afterwards. It waits at gate every gateLines lines, so that
// a key's hold stops the parse within a fraction of a millisecond rather than after the
// chunk's 4 ms or so; a cancelled ctx ends the waits, not the chunk.
func parseChunk(ctx context.Context, c *chunk, p *model.Parser, recs []model.Execution, gate *pace.Gate, seed maphash.Seed) {
	if cap(c.results) >= len(c.lines) {
		c.results = c.results[:len(c.lines)]
		clear(c.results)
	} else {
		c.results = make([]lineResult, len(c.lines))
	}
	if cap(recs) < len(c.lines) {
		recs = make([]model.Execution, 0, len(c.lines))
	}
	c.execs = recs[:0]
	c.sums = c.sums[:0]
	for i := range c.lines {
		if i%gateLines == gateLines-1 {
			_ = gate.Wait(ctx)
		}
		m := &c.lines[i]
		r := &c.results[i]
		if m.tooBig {
			continue
		}
		rec := c.data[m.start:m.end]
		e, err := p.Parse(rec)
		if err == nil {
			c.execs = append(c.execs, e)
			c.sums = append(c.sums, maphash.Bytes(seed, rec))
			r.nExec = 1
			continue
		}
		if errors.Is(err, model.ErrNoID) && bytes.Contains(rec, []byte(`"logs"`)) {
			if page, perr := model.ParseLogsPage(rec); perr == nil {
				for _, b := range page.Bad {
					r.errs = append(r.errs, fmt.Errorf("line %d: record %d of the list: %w", m.num, b.Index+1, b.Err))
				}
				for k := range page.Executions {
					// a record of a page: its every field, the arguments too (its bytes are
					// not at hand)
					c.sums = append(c.sums, page.Executions[k].Fingerprint(seed))
					if p.SkipArguments {
						page.Executions[k].Arguments = nil
					}
				}
				c.execs = append(c.execs, page.Executions...)
				r.nExec, r.page = len(page.Executions), true
				continue
			}
		}
		if m.unterminated && truncated(err) {
			r.truncated = true
			continue
		}
		r.errs = append(r.errs, fmt.Errorf("line %d: %w", m.num, err))
	}
}

// merge takes parsed chunks in any order and applies them in file order.
func (l *loader) merge(ctx context.Context, results <-chan *chunk) error {
	pending := map[int]*chunk{}
	next := 0
	limit := l.maxRecord()
	for c := range results {
		pending[c.seq] = c
		for {
			c, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			whole := l.opt.BatchSize <= 0 // the chunk's records are the batch
			k, w := 0, 0                  // records read, and kept (repeats dropped)
			for i := range c.lines {
				m, r := &c.lines[i], &c.results[i]
				switch {
				case m.tooBig:
					l.skip(m.num, fmt.Errorf("line %d: record larger than %s", m.num, sizeText(limit)))
				case r.truncated:
					if whole {
						if err := l.emitChunk(ctx, c.execs[:w]); err != nil {
							return err
						}
					}
					return l.fail(m.num, "truncated: the file ends in the middle of a record", nil)
				}
				for _, err := range r.errs {
					l.skip(m.num, err)
				}
				for range r.nExec {
					loc := location{off: m.off, n: m.n, page: r.page}
					sum := c.sums[k]
					if !whole {
						if err := l.add(ctx, c.execs[k], loc, sum); err != nil {
							return err
						}
					} else if again, err := l.repeats.again(c.execs[k].ID, sum); err != nil {
						if err := l.emitChunk(ctx, c.execs[:w]); err != nil {
							return err
						}
						return l.refuse(err)
					} else if !again {
						if l.onLocs != nil && l.locatable() {
							l.locs = append(l.locs, loc)
						}
						c.execs[w] = c.execs[k]
						w++
					}
					k++
				}
			}
			if whole {
				if err := l.emitChunk(ctx, c.execs[:w]); err != nil {
					return err
				}
			}
			if !whole || l.opt.ReuseBatches {
				recs := c.execs[:cap(c.execs)]
				clear(recs) // no stale record keeps its strings alive
				select {
				case l.spare <- recs[:0]:
				default:
				}
			}
			if c.err != nil {
				return l.fail(c.errLine, "read error", c.err)
			}
			l.recycle(c)
			<-l.ahead
		}
	}
	return ctx.Err()
}

// recycle hands a merged chunk's line tables back to cut (lines), when it has a pool.
func (l *loader) recycle(c *chunk) {
	if l.chunks == nil {
		return
	}
	*c = chunk{lines: c.lines[:0], results: c.results[:0]}
	select {
	case l.chunks <- c:
	default:
	}
}

// emitChunk hands over a chunk's records as one batch (their locations are in l.locs).
func (l *loader) emitChunk(ctx context.Context, b []model.Execution) error {
	if len(b) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.onLocs != nil && l.locatable() {
		l.onLocs(b, l.locs)
		l.locs = l.locs[:0]
	}
	l.emitted += len(b)
	return l.emit(b)
}
