package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/hashtab"
	"github.com/exectriage/exectriage/model"
)

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
	return s.readRefs(ctx, refs, ids, &model.Parser{KeepResponse: s.opt.KeepResponse, KeepResponseKey: s.opt.KeepResponseKey}, got)
}

// ReadWhole implements Located.
func (s *fileSource) ReadWhole(ctx context.Context, refs []Ref, ids []string, got func(k int, e model.Execution) error) error {
	return s.readRefs(ctx, refs, ids, nil, got)
}

// readRefs reads the records at refs with p (nil: whole).
func (s *fileSource) readRefs(
	ctx context.Context,
	refs []Ref,
	ids []string,
	p *model.Parser,
	got func(k int, e model.Execution) error,
) error {
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
func (s *fileSource) load(
	ctx context.Context,
	since time.Duration,
	index, skipArgs bool,
	page func([]model.Execution, []location) error,
) error {
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
		KeepResponse: s.opt.KeepResponse, KeepResponseKey: s.opt.KeepResponseKey, ReuseBatches: s.opt.ReuseBatches,
		MaxGzipRatio: s.opt.MaxGzipRatio, SkipArguments: skipArgs,
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
func (s *fileSource) lookup(id string) (e model.Execution, spool *os.File, locs []location, kept bool, loading chan struct{},
	complete bool) {
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
func (s *fileSource) readFrom(
	r io.ReaderAt,
	spooled bool,
	id string,
	locs []location,
	buf *[]byte,
	p *model.Parser,
) (model.Execution, error) {
	for _, loc := range locs {
		if int64(cap(*buf)) < loc.n {
			*buf = make([]byte, loc.n)
		}
		b := (*buf)[:loc.n]
		if _, err := r.ReadAt(b, loc.off); err != nil {
			if spooled && errors.Is(err, os.ErrClosed) {
				return model.Execution{}, fmt.Errorf(
					"the decompressed copy of %s is gone (%w): load the export again (R in the TUI)",
					s.Name(),
					err,
				)
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
