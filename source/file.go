package source

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
	// KeepResponseKey decides in KeepResponse's stead as the one-pass parser reads a response
	// (model.Parser.KeepResponseKey).
	KeepResponseKey func(in, key, value []byte) bool
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
				"decompresses to more than %d bytes (%d× its %d bytes, past the limit of %d×): refusing what may be a gzip bomb; "+
					"decompress it yourself, or raise EXECTRIAGE_MAX_GZIP_RATIO",
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
		var dec io.Reader = &ratioLimit{r: zr, max: max(GzipRatioFloor, compressed*int64(ratio)), ratio: ratio, compressed: compressed,
			fail: l.fail}
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
		l.parser.KeepResponse, l.parser.KeepResponseKey = l.opt.KeepResponse, l.opt.KeepResponseKey
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

// displayName is how a file source names itself: "FILE name.jsonl".
func displayName(path string) string { return "FILE " + filepath.Base(path) }
