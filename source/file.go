package source

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/exectriage/exectriage/internal/cores"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/model"
)

// Defaults for reading export files.
const (
	DefaultBatchSize = 4096
	// DefaultMaxRecordBytes bounds one record (one JSONL line): a longer one is reported as
	// bad and skipped, never loaded.
	DefaultMaxRecordBytes = 8 << 20
	readBufferSize        = 1 << 20
)

// FileOptions tunes LoadFileWith; zero values take the defaults.
type FileOptions struct {
	// BatchSize is how many records each batch holds (the last one may hold fewer). When it is
	// 0, JSON Lines come one read chunk at a time (up to 2048 records, handed over as parsed,
	// never copied) and documents DefaultBatchSize at a time.
	BatchSize      int
	MaxRecordBytes int
	// OnBad, when set, is told about each skipped record as it is met (LoadFileWith also
	// returns them all).
	OnBad func(model.RecordError)
	// KeepResponse, when set, decides which records keep their data.response (see
	// model.Parser.KeepResponse); nil keeps them all.
	KeepResponse func(raw []byte) bool
	// SkipArguments loads records without their arguments when they can be read again by
	// offset (a plain file, or a gzip one with its spool): see model.Parser.SkipArguments.
	SkipArguments bool
	// CopyPeople is model.Parser.CopyPeople.
	CopyPeople bool
	// Background runs the parse and the read below the OS priority of the caller's other
	// threads (cores.Background).
	Background bool
	// Gate, when set, is where the read and the parse wait, between chunks, while an
	// interactive loop holds them back (pace.Gate); nil never waits.
	Gate *pace.Gate
	// ReuseBatches promises that batch does not keep the slice it is handed (it copies the
	// records it wants) once it returns, so the loader may fill it again.
	ReuseBatches bool
	// Spare, when set, holds record arrays a consumer that kept its batches has handed back
	// once it was done with them (fileSource.Recycle): the parsers fill them again before
	// they make new ones. The loader puts its own spare arrays there too.
	Spare chan []model.Execution
	// MaxGzipRatio bounds how many times its own size a gzip export may decompress to, once it
	// is past GzipRatioFloor (0: DefaultMaxGzipRatio). Past it the load stops before the next
	// bytes are parsed or spooled: a 3 MB file of newlines would otherwise fill $TMPDIR with
	// gigabytes.
	MaxGzipRatio int
}

// DefaultMaxGzipRatio is the largest decompression ratio of a gzip export read by default:
// JSON logs compress 5-20×; a gzip bomb compresses a thousandfold.
const DefaultMaxGzipRatio = 100

// GzipRatioFloor is how much a gzip export may decompress to whatever its ratio: small files
// of repetitive test records may compress far.
const GzipRatioFloor = 64 << 20

// FileError is a file that cannot be read as an export at all: empty, binary, not JSON,
// truncated. Line is 1-based, 0 when it does not apply.
type FileError struct {
	Path string
	Line int
	Msg  string
	Err  error
}

func (e *FileError) Error() string {
	s := e.Path
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	s += ": " + e.Msg
	if e.Err != nil && e.Err.Error() != "" {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FileError) Unwrap() error { return e.Err }

// openError is a file that cannot be opened, as a *FileError that names the file and says why
// in words (a missing file's ENOENT is no network error, though it answers net.Error's methods).
func openError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &FileError{Path: path, Msg: "no such file", Err: quiet{fs.ErrNotExist}}
	case errors.Is(err, fs.ErrPermission):
		return &FileError{Path: path, Msg: "permission denied", Err: quiet{fs.ErrPermission}}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is said once
	}
	return &FileError{Path: path, Msg: "cannot be opened", Err: err}
}

// quiet is a cause kept for errors.Is whose words the message already says.
type quiet struct{ err error }

func (q quiet) Error() string { return "" }
func (q quiet) Unwrap() error { return q.err }

// LoadFile reads an export of the Logs API and hands its records to batch, a few thousand at
// a time, as it reads (the caller owns each slice). The file may be one list response
// ({"logs": [...]}, also pretty-printed or several in a row), a JSON array of detail records,
// or JSON Lines of detail records (a line may also hold a whole list response); gzip is
// undone transparently. Nothing is held in memory beyond one batch and one record.
//
// Records that cannot be parsed are skipped and returned in bad (the first MaxBadKept of them:
// every one is told to FileOptions.OnBad, none is held past those): for JSON Lines, Index is the
// 1-based line number and Err says "line N: ..."; for JSON arrays and list responses, Index is
// the 1-based record number and Err says "record N: ...". A file that is empty, binary, not
// JSON or truncated yields a *FileError naming the file and line; so does an error returned
// by batch (wrapped) or a cancelled ctx. Records read before a *FileError have been handed to
// batch already, so a viewer can show them with the error.
func LoadFile(ctx context.Context, path string, batch func([]model.Execution) error) (bad []model.RecordError, err error) {
	return LoadFileWith(ctx, path, FileOptions{}, batch)
}

// LoadFileWith is LoadFile with options.
//
// A file whose every record is unreadable is a *FileError too ("no readable record"): an
// export of something else, not an empty window.
func LoadFileWith(ctx context.Context, path string, opt FileOptions, batch func([]model.Execution) error) ([]model.RecordError, error) {
	l := newLoader(path, opt)
	l.emit = batch
	err := l.run(ctx)
	if err == nil {
		err = l.noneReadable()
	}
	return l.bad, err
}

// errEnough stops CheckFile's read at the first batch.
var errEnough = errors.New("enough")

// CheckFile reads an export only as far as its first records, to refuse a file that cannot be
// one (a directory, a device, empty, binary, not JSON, no readable record) before a viewer
// opens on it. A readable start says nothing of the rest: later errors come from the load.
func CheckFile(ctx context.Context, path string, opt FileOptions) error {
	_, err := LoadFileWith(ctx, path, opt, func(b []model.Execution) error {
		if len(b) > 0 {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// location says where a record lives in the file, for Get.
type location struct {
	off  int64
	n    int64
	page bool // the bytes are a whole list response holding the record
}

type loader struct {
	path string
	opt  FileOptions
	emit func([]model.Execution) error
	// onLocs, when set, learns where the records of each batch are, just before the batch is
	// emitted (plain files, and gzip files copied to a spool; locs[i] is b[i]'s; neither may
	// be kept).
	onLocs func(b []model.Execution, locs []location)
	locs   []location
	// spool, when set, gives a file to copy a gzip export's decompressed bytes into while it
	// is read, so that its records can be read again by offset as a plain file's are; name is
	// the file's path, for messages. When it fails, the export is read without one.
	spool   func() (w io.WriteCloser, name string, err error)
	spooled bool

	bad     []model.RecordError // the first MaxBadKept unreadable records
	badN    int                 // how many there were
	batch   []model.Execution
	spare   chan []model.Execution // see lines
	chunks  chan *chunk            // chunks merged, for cut to fill again (see lines)
	ahead   chan struct{}          // one token per chunk sent and not yet merged (see lines)
	made    int                    // chunks cut made rather than took from chunks
	parsing func(seq int)          // told before a worker parses chunk seq (tests hold one up)
	parser  model.Parser           // document mode (JSON Lines parse in workers, each with its own)
	base    int64                  // bytes consumed before the JSON started (BOM, whitespace)
	gz      bool
	records int // records met in array/document mode, for "record N"
	emitted int // records handed to emit
	repeats repeats
}

// noneReadable is the error of a load that ended without one readable record among bad
// ones: an export of something else, not an empty window.
func (l *loader) noneReadable() error {
	if l.emitted > 0 || l.badN == 0 {
		return nil
	}
	return l.fail(0, fmt.Sprintf("no readable record (%d unreadable; the first, %v)", l.badN, l.bad[0].Err), nil)
}

// MaxBadKept is how many unreadable records a load returns (each is told to OnBad as it is
// met): a file of 22 million unreadable lines held 2.5 GB of them.
const MaxBadKept = 1000

func newLoader(path string, opt FileOptions) *loader {
	return &loader{path: path, opt: opt, repeats: newRepeats()}
}

// locatable reports whether records can be read again by offset: a plain file's, or a gzip
// file's from its spool.
func (l *loader) locatable() bool { return !l.gz || l.spooled }

// ratioLimit stops reading a gzip stream past max decompressed bytes, before the bytes past it
// reach the parser or the spool.
type ratioLimit struct {
	r          io.Reader
	n, max     int64
	ratio      int
	compressed int64
	fail       func(line int, msg string, err error) error
}

func (l *ratioLimit) Read(p []byte) (int, error) {
	if l.n >= l.max {
		var one [1]byte
		if k, err := l.r.Read(one[:]); k == 0 && err == io.EOF {
			return 0, io.EOF
		}
		return 0, l.fail(
			0,
			fmt.Sprintf(
				"decompresses to more than %d bytes (%d× its %d bytes, past the limit of %d×): refusing what may be a gzip bomb; decompress it yourself, or raise EXECTRIAGE_MAX_GZIP_RATIO",
				l.max,
				l.max/max(l.compressed, 1),
				l.compressed,
				l.ratio,
			),
			nil,
		)
	}
	if int64(len(p)) > l.max-l.n {
		p = p[:l.max-l.n]
	}
	k, err := l.r.Read(p)
	l.n += int64(k)
	return k, err
}

// spoolWriter copies decompressed bytes into a spool file, saying what failed in terms a
// person can act on (the disk or TMPDIR is full).
type spoolWriter struct {
	w    io.Writer
	name string
}

func (s spoolWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = fmt.Errorf(
			"copying the decompressed export to %s: %w (set TMPDIR to a directory with room, or decompress the export first)",
			s.name,
			err,
		)
	}
	return n, err
}

func (l *loader) batchSize() int {
	if l.opt.BatchSize > 0 {
		return l.opt.BatchSize
	}
	return DefaultBatchSize
}

func (l *loader) maxRecord() int {
	if l.opt.MaxRecordBytes > 0 {
		return l.opt.MaxRecordBytes
	}
	return DefaultMaxRecordBytes
}

func (l *loader) fail(line int, msg string, err error) error {
	return &FileError{Path: l.path, Line: line, Msg: msg, Err: err}
}

// run reads the file. On a fatal file error the records read before it are still emitted,
// so a caller can show them along with the error.
func (l *loader) run(ctx context.Context) error {
	err := l.read(ctx)
	var fe *FileError
	if errors.As(err, &fe) {
		if ferr := l.flush(ctx, true); ferr != nil {
			return ferr
		}
	}
	return err
}

func (l *loader) read(ctx context.Context) error {
	f, err := os.Open(l.path)
	if err != nil {
		return openError(l.path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		return l.fail(0, "is a directory, not an export file", nil)
	}
	if err == nil && !st.Mode().IsRegular() {
		return l.fail(0, "not a regular file (a FIFO or a device): give an export file", nil)
	}
	var r io.Reader = f
	br := bufio.NewReaderSize(r, readBufferSize)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return l.fail(0, "unreadable gzip data", err)
		}
		defer zr.Close()
		l.gz = true
		ratio := l.opt.MaxGzipRatio
		if ratio <= 0 {
			ratio = DefaultMaxGzipRatio
		}
		var compressed int64
		if st != nil {
			compressed = st.Size()
		}
		var dec io.Reader = &ratioLimit{r: zr, max: max(GzipRatioFloor, compressed*int64(ratio)), ratio: ratio, compressed: compressed, fail: l.fail}
		if l.spool != nil {
			if w, name, err := l.spool(); err == nil {
				defer w.Close()
				dec, l.spooled = io.TeeReader(dec, spoolWriter{w: w, name: name}), true
			}
		}
		br = bufio.NewReaderSize(dec, readBufferSize)
	}
	if l.locatable() {
		// A gzip file without a spool keeps its records whole for Get: they cannot be read
		// again by offset.
		l.parser.KeepResponse = l.opt.KeepResponse
		l.parser.SkipArguments = l.opt.SkipArguments
		l.parser.CopyPeople = l.opt.CopyPeople
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
		l.base = 3
	}
	line := 1
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return l.fail(0, "empty file: no records", nil)
		}
		if err != nil {
			return l.fail(line, "read error", err)
		}
		if c == '\n' {
			line++
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			l.base++
			continue
		}
		_ = br.UnreadByte()
		break
	}
	head, _ := br.Peek(8192)
	if found := bytes.Contains(head, []byte{0}); found || !looksText(head) {
		return l.fail(0, "binary data, not a JSON export of the Logs API", nil)
	}
	switch head[0] {
	case '{':
		if l.isJSONLines(br) {
			return l.lines(ctx, br, line)
		}
	case '[':
	default:
		return l.fail(
			line,
			fmt.Sprintf("not JSON: starts with %q; want a Logs API list response, a JSON array or JSON Lines", firstRune(head)),
			nil,
		)
	}
	return l.document(ctx, br)
}

// looksText is a cheap binary sniff: mostly valid UTF-8 and few control bytes.
func looksText(b []byte) bool {
	ctl := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			ctl++
		}
	}
	return ctl*20 <= len(b)
}

func firstRune(b []byte) string {
	s := string(b)
	for _, r := range s {
		return string(r)
	}
	return ""
}

// isJSONLines decides between JSON Lines and a (pretty-printed) document: JSON Lines when
// the first line is a whole JSON value, or when it is not but the next non-empty line is (a
// JSONL file whose first record is bad). A first line longer than the read buffer is taken as
// JSON Lines too (one record, or one list response, per line, each within the size limit): a
// pretty-printed document breaks its first line early.
func (l *loader) isJSONLines(br *bufio.Reader) bool {
	head, _ := br.Peek(readBufferSize)
	before, after, ok := bytes.Cut(head, []byte{'\n'})
	if !ok {
		return true
	}
	if json.Valid(before) {
		return true
	}
	for rest := after; len(rest) > 0; {
		next := rest
		end := bytes.IndexByte(rest, '\n')
		if end >= 0 {
			next, rest = rest[:end], rest[end+1:]
		} else {
			rest = nil
		}
		next = bytes.TrimSpace(next)
		if len(next) == 0 {
			continue
		}
		return next[0] == '{' && json.Valid(next)
	}
	return false
}

func (l *loader) flush(ctx context.Context, force bool) error {
	if len(l.batch) == 0 || !force && len(l.batch) < l.batchSize() {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b := l.batch
	l.batch = make([]model.Execution, 0, l.batchSize())
	if l.onLocs != nil && l.locatable() {
		l.onLocs(b, l.locs)
		l.locs = l.locs[:0]
	}
	l.emitted += len(b)
	if err := l.emit(b); err != nil {
		return err
	}
	return nil
}

// add takes a record whose key is sum (repeats), unless it repeats the latest of its id.
func (l *loader) add(ctx context.Context, e model.Execution, loc location, sum uint64) error {
	if again, err := l.repeats.again(e.ID, sum); again || err != nil {
		return l.refuse(err)
	}
	if l.batch == nil {
		l.batch = make([]model.Execution, 0, l.batchSize())
	}
	if l.onLocs != nil && l.locatable() {
		l.locs = append(l.locs, loc)
	}
	l.batch = append(l.batch, e)
	return l.flush(ctx, false)
}

// refuse is the error of a file refused whole for what its records are (nil: none).
func (l *loader) refuse(err error) error {
	if err == nil {
		return nil
	}
	return l.fail(0, err.Error(), nil)
}

func (l *loader) skip(idx int, err error) {
	re := model.RecordError{Index: idx, Err: err}
	l.badN++
	if len(l.bad) < MaxBadKept {
		l.bad = append(l.bad, re)
	}
	if l.opt.OnBad != nil {
		l.opt.OnBad(re)
	}
}

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
				KeepResponse:  l.parser.KeepResponse,
				SkipArguments: l.parser.SkipArguments,
				CopyPeople:    l.parser.CopyPeople,
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

func truncated(err error) bool {
	var se *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end")
}

func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// document streams JSON values with a decoder: arrays of records, list responses (whose
// "logs" array is streamed element by element) and single records, one after another.
func (l *loader) document(ctx context.Context, br *bufio.Reader) error {
	dec := json.NewDecoder(br)
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		after := dec.InputOffset()
		if err == io.EOF {
			break
		}
		if err != nil {
			return l.decodeFail(dec, err)
		}
		switch tok {
		case json.Delim('['):
			if err := l.array(ctx, dec); err != nil {
				return err
			}
		case json.Delim('{'):
			if err := l.object(ctx, dec, before); err != nil {
				return err
			}
		default:
			return l.fail(l.lineAt(after), fmt.Sprintf("not a Logs API export: %v at the top level, want an object or an array", tok), nil)
		}
	}
	return l.flush(ctx, true)
}

// array streams the elements of an array whose '[' was read, and its ']'.
func (l *loader) array(ctx context.Context, dec *json.Decoder) error {
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return l.decodeFail(dec, err)
		}
		l.records++
		end := dec.InputOffset()
		start := end - int64(len(raw))
		if len(raw) > l.maxRecord() {
			l.skip(l.records, fmt.Errorf("record %d: larger than %s", l.records, sizeText(l.maxRecord())))
			continue
		}
		e, err := l.parser.Parse(raw)
		if err != nil {
			l.skip(l.records, fmt.Errorf("record %d (line %d): %w", l.records, l.lineAt(start), err))
			continue
		}
		if err := l.add(ctx, e, location{off: l.base + start, n: int64(len(raw))}, l.repeats.sum(raw)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return l.decodeFail(dec, err)
	}
	return nil
}

// object reads a top-level object whose '{' was read: a list response when it has a "logs"
// array (streamed), else one record (rebuilt from its members, which are small).
func (l *loader) object(ctx context.Context, dec *json.Decoder, start int64) error {
	var members []byte
	sawLogs := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return l.decodeFail(dec, err)
		}
		key, _ := tok.(string)
		if key == "logs" && !sawLogs {
			open, err := dec.Token()
			if err != nil {
				return l.decodeFail(dec, err)
			}
			if open != json.Delim('[') {
				return l.fail(l.lineAt(dec.InputOffset()), `"logs" is not an array`, nil)
			}
			sawLogs = true
			if err := l.array(ctx, dec); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return l.decodeFail(dec, err)
		}
		if sawLogs || len(members) > l.maxRecord() {
			continue
		}
		if len(members) > 0 {
			members = append(members, ',')
		}
		kb, _ := json.Marshal(key)
		members = append(append(append(members, kb...), ':'), raw...)
	}
	if _, err := dec.Token(); err != nil { // '}'
		return l.decodeFail(dec, err)
	}
	if sawLogs {
		return nil
	}
	l.records++
	end := dec.InputOffset()
	if len(members) > l.maxRecord() {
		l.skip(l.records, fmt.Errorf("record %d: larger than %s", l.records, sizeText(l.maxRecord())))
		return nil
	}
	rec := append(append([]byte{'{'}, members...), '}')
	e, err := l.parser.Parse(rec)
	if err != nil {
		l.skip(l.records, fmt.Errorf("record %d (line %d): %w", l.records, l.lineAt(start), err))
		return nil
	}
	return l.add(ctx, e, location{off: l.base + start, n: end - start}, l.repeats.sum(rec))
}

// decodeFail turns a decoder error into a FileError with the line it happened on.
func (l *loader) decodeFail(dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if truncated(err) {
		return l.fail(l.lineAt(math.MaxInt64-l.base), "truncated: the file ends in the middle of a record", nil)
	}
	return l.fail(l.lineAt(off), "invalid JSON", err)
}

// lineAt returns the 1-based line of a decoder offset by reading the file again up to it;
// only used on the error path. 0 when it cannot tell.
func (l *loader) lineAt(decOff int64) int {
	f, err := os.Open(l.path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var r io.Reader = f
	if l.gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return 0
		}
		defer zr.Close()
		r = zr
	}
	n := 1
	buf := make([]byte, 64<<10)
	for left := l.base + decOff; left > 0; {
		k, err := r.Read(buf[:min(int64(len(buf)), left)])
		n += bytes.Count(buf[:k], []byte{'\n'})
		left -= int64(k)
		if err != nil {
			break
		}
	}
	return n
}

// displayName is how a file source names itself: "FILE name.jsonl".
func displayName(path string) string { return "FILE " + filepath.Base(path) }
