// Package source is where executions come from: the live Composio API, the embedded demo
// sandbox (served in process on a loopback port and read through the same client), or an
// export file. Every source streams records in batches, so a caller can show the first screen
// while the rest loads, and fetches one record's full detail on demand.
package source

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/exectriage/exectriage/client"
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
	// KeepResponseKey is FileOptions.KeepResponseKey.
	KeepResponseKey func(in, key, value []byte) bool
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
