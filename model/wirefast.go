package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// The one-pass record parser. It walks a record's bytes once, validating every value as
// strictly as encoding/json does (so it never accepts what encoding/json would reject), taking
// the fields it knows and skipping the rest. Whatever it is not sure about — a syntax error, a
// duplicate key, a key that matches a known one only case-insensitively or through an escape,
// very deep nesting — makes it give up, and the record goes through parseRecordSlow, the
// reference implementation on encoding/json, which decides. So the two always agree (a fuzz
// test checks it), and the error messages are encoding/json's.

// Parser parses Logs API records like ParseRecord, and shares the memory of the strings that
// repeat across records (tool and toolkit slugs, users, connected accounts, statuses, levels,
// messages, SDK versions, error texts) between the records it returns. The zero value is
// ready to use. A Parser is not safe for concurrent use: use one per goroutine.
type Parser struct {
	// KeepResponse, when set, is shown each record's data.response (an object, as raw bytes
	// that must not be kept) and decides whether Execution.Response gets a copy of it; nil
	// keeps them all. A caller that reads a few responses of many spares copying the rest.
	KeepResponse func(raw []byte) bool
	// SkipArguments leaves Execution.Arguments nil (Detailed still says the record had its
	// data): for a caller that reads the arguments of a few records again, whole, later.
	SkipArguments bool
	// CopyPeople gives each record its own copy of its user and connected account instead of
	// sharing them through a table: for a caller that numbers them itself (scan's rows), to
	// which a table of tens of thousands is a cache miss per lookup for nothing.
	CopyPeople bool

	// Two tables, so that the lookups of the many fields with a handful of values each stay in
	// a small, cache-resident map; in front of each, the strings it gave out last, by a cheap
	// hash of their bytes, which answer most lookups without the map.
	tables [2]map[string]string
	recent [2][]string
}

// The string tables: slugs, statuses, levels, messages, SDK versions, sources, error texts
// (few values each); users and connected accounts (thousands).
const (
	noIntern = iota
	internFew
	internMany
)

// Interning limits: a table stops growing at maxInterned entries, and only short strings are
// worth a lookup. The recent caches have a power of two places each: the few values of most
// fields fit the small one whole, users and accounts mostly fit the big one.
const (
	maxInterned    = 1 << 16
	maxInternedLen = 96
	recentFew      = 1 << 10
	recentMany     = 1 << 14
)

// Parse parses one record; see ParseRecord.
func (p *Parser) Parse(data []byte) (Execution, error) {
	if p.tables[0] == nil {
		p.tables[0] = make(map[string]string, 256)
		p.tables[1] = make(map[string]string, 1024)
		p.recent[0] = make([]string, recentFew)
		p.recent[1] = make([]string, recentMany)
	}
	return parseRecord(data, p)
}

// table returns the string table of class (noIntern, internFew, internMany), nil when none.
func (p *Parser) table(class int) map[string]string {
	if p == nil || class == noIntern || class == internMany && p.CopyPeople {
		return nil
	}
	return p.tables[class-1]
}

// ParseRecord parses one Logs API record (list entry or detail) into an Execution.
func ParseRecord(data []byte) (Execution, error) {
	return parseRecord(data, nil)
}

// ParseOwnedRecord is ParseRecord of a buffer the caller gives away (one record read into its
// own buffer, as GET /logs/{id} answers): the record's arguments and response alias it instead
// of being copied out of it, so a detail of 60 MB is held once, not twice.
func ParseOwnedRecord(data []byte) (Execution, error) {
	if e, ok, err := parseFastAlias(data, nil, true); ok {
		return e, err
	}
	return parseRecordSlow(data)
}

func parseRecord(data []byte, p *Parser) (Execution, error) {
	if e, ok, err := parseFast(data, p); ok {
		return e, err
	}
	e, err := parseRecordSlow(data)
	if err == nil && p != nil && p.KeepResponse != nil && e.Response != nil && !p.KeepResponse(e.Response) {
		e.Response = nil
	}
	if err == nil && p != nil && p.SkipArguments {
		e.Arguments = nil
	}
	return e, err
}

// parseFast is the one-pass parser; ok is false when it gave up.
func parseFast(data []byte, p *Parser) (e Execution, ok bool, err error) {
	return parseFastAlias(data, p, false)
}

// parseFastAlias is parseFast; alias keeps the arguments and response in data (ParseOwnedRecord).
func parseFastAlias(data []byte, p *Parser, alias bool) (e Execution, ok bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return Execution{}, true, ErrNotObject
	}
	f := fields{alias: alias}
	s := scan{b: data, p: p}
	if !s.record(&f) || s.i != len(data) {
		return Execution{}, false, nil
	}
	if f.id == "" {
		return Execution{}, true, ErrNoID
	}
	e = f.execution(
		data,
		p != nil && p.KeepResponse != nil && f.hasResp && !p.KeepResponse(data[f.resp[0]:f.resp[1]]),
		p != nil && p.SkipArguments,
	)
	return e, true, nil
}

// fields is what the scanner gathered, before it is combined into an Execution the way
// parseRecordSlow combines the lenient structs.
type fields struct {
	id, status, level, message, typ string
	timestamp                       time.Time

	meta                                                                            bool
	toolSlug, tool, toolkitSlug, toolkit, user, account, sdk, metaReq, toolVer, ver string
	retry                                                                           flexNumber

	metrics  bool
	duration flexNumber

	parent        bool
	pLog, pTool   string
	timings       bool
	start, end    time.Time
	context       bool
	session       string
	trace, ctxReq string
	source        bool
	host, fw, lng string
	// the user agent, in metadata, context or source (applyUserAgent)
	uaMeta, uaCtx, uaSrc string

	data          bool
	args, resp    [2]int // spans of data.request.arguments and data.response when objects
	hasArgs       bool
	reqState      string // data.request.request_state
	responses     [2]int // the span of data.request.input_responses when an array
	hasResponses  bool
	hasResp       bool
	errObj        bool
	errMsg        string
	errKind       string
	errStatus     flexNumber
	errString     string // data.error when a string
	respErr       string // data.response.error when a string
	respErrString bool
	alias         bool // Arguments and Response alias the data (ParseOwnedRecord)
}

// execution combines the fields exactly as parseRecordSlow does; dropResponse leaves
// Response out (after it had its say on the error).
func (f *fields) execution(data []byte, dropResponse, skipArgs bool) Execution {
	e := Execution{
		ID:         f.id,
		Timestamp:  f.timestamp,
		Status:     f.status,
		Level:      f.level,
		Message:    f.message,
		Type:       recordType(f.typ),
		RetryCount: -1,
	}
	if f.meta {
		e.ToolSlug = first(f.toolSlug, f.tool)
		e.ToolkitSlug = first(f.toolkitSlug, f.toolkit)
		e.UserID = f.user
		e.ConnectedAccountID = f.account
		e.SDKVersion = f.sdk
		e.ToolVersion = first(f.toolVer, f.ver)
		e.RequestID = f.metaReq
		if f.retry.ok && f.retry.v >= 0 {
			e.RetryCount = int(f.retry.v)
		}
	}
	if f.metrics && f.duration.ok && f.duration.v >= 0 && f.duration.v <= MaxDurationMS {
		e.Duration = time.Duration(f.duration.v * float64(time.Millisecond))
		e.HasDuration = true
	}
	if f.parent && (f.pLog != "" || f.pTool != "") {
		e.Parent = &Parent{LogID: f.pLog, ToolSlug: f.pTool}
	}
	if f.timings {
		e.Detailed = true
		e.StartTime, e.EndTime = f.start, f.end
		if !e.HasDuration && !e.StartTime.IsZero() && !e.EndTime.IsZero() && !e.EndTime.Before(e.StartTime) {
			e.Duration, e.HasDuration = e.EndTime.Sub(e.StartTime), true
		}
	}
	if f.context {
		e.Detailed = true
		e.SessionID, e.TraceID = f.session, f.trace
		e.RequestID = first(f.ctxReq, e.RequestID)
	}
	if f.source {
		e.Source = Source{Host: f.host, Framework: f.fw, Language: f.lng}
	}
	applyUserAgent(&e, first(f.uaMeta, first(f.uaCtx, f.uaSrc)))
	if f.data {
		e.Detailed = true
		if f.hasArgs {
			e.ArgsSum = ArgsSumOf(data[f.args[0]:f.args[1]])
			if !skipArgs {
				e.Arguments = f.keep(data[f.args[0]:f.args[1]])
			}
		}
		if f.hasResp && !dropResponse {
			e.Response = f.keep(data[f.resp[0]:f.resp[1]])
		}
		if f.reqState != "" || f.hasResponses {
			e.Approval = &Approval{RequestState: f.reqState}
			if f.hasResponses {
				e.Approval.Responses = f.keep(data[f.responses[0]:f.responses[1]])
			}
		}
		if f.errObj {
			e.Error = &ExecError{Message: f.errMsg, Kind: ErrorKind(f.errKind)}
			if f.errStatus.ok {
				e.Error.HTTPStatus = int(f.errStatus.v)
			}
		} else if f.errString != "" {
			e.Error = &ExecError{Message: f.errString}
		}
		if e.Error == nil && f.hasResp && f.respErrString && f.respErr != "" {
			e.Error = &ExecError{Message: f.respErr}
		}
	}
	if e.Timestamp.IsZero() && !e.StartTime.IsZero() {
		e.Timestamp = e.StartTime
	}
	return e
}

// keep is b for the record: a copy, or b itself when the record aliases its data (its cap
// cut, so that appending to it never writes into the rest of data).
func (f *fields) keep(b []byte) json.RawMessage {
	if f.alias {
		return b[:len(b):len(b)]
	}
	return clone(b)
}

func clone(b []byte) json.RawMessage {
	return append(json.RawMessage(make([]byte, 0, len(b))), b...)
}

// scan is the cursor over one record. Its methods return false to give up (bad or unusual
// input); the cursor is then meaningless.
type scan struct {
	b     []byte
	i     int
	depth int
	p     *Parser
}

// maxDepth bounds nesting on the fast path; deeper input is refused by parseRecord.
const maxDepth = MaxRecordDepth

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// The names each object's fields are matched against; a key equal to one of them only
// case-insensitively (encoding/json would take it) sends the record to the slow path.
var (
	topNames = []string{
		"id",
		"timestamp",
		"status",
		"level",
		"message",
		"metadata",
		"metrics",
		"parent",
		"timings",
		"context",
		"source",
		"data",
		"type",
		"trigger",
	}
	metaNames = []string{
		"tool_slug",
		"tool",
		"toolkit_slug",
		"toolkit",
		"user_id",
		"connected_account_id",
		"sdk_version",
		"retry_count",
		"request_id",
		"tool_version",
		"version",
		"user_agent",
	}
	metricsNames  = []string{"duration_ms"}
	parentNames   = []string{"log_id", "tool_slug"}
	timingsNames  = []string{"start_time", "end_time"}
	contextNames  = []string{"session_id", "trace_id", "request_id", "user_agent"}
	sourceNames   = []string{"host", "framework", "language", "user_agent"}
	dataNames     = []string{"request", "response", "error"}
	requestNames  = []string{"arguments", "request_state", "input_responses"}
	errorNames    = []string{"message", "http_status", "kind"}
	responseNames = []string{"error"}
)

// foldsToKnown reports whether an unknown key would still be matched by encoding/json, which
// falls back to case-insensitive (Unicode simple folding) matching.
func foldsToKnown(key []byte, names []string) bool {
	if len(names) == 0 {
		return false
	}
	fold := false
	for _, c := range key {
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			fold = true
			break
		}
	}
	if !fold {
		return false // lower-case ASCII: only an exact match would do, and there was none
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// object walks the object at s.i ('{'), calling field for each member with the cursor at the
// member's value, which field must consume. slot returns the bit of a known key (0 for an
// unknown one), so that a duplicate known key gives up.
func (s *scan) object(names []string, field func(key []byte) (bit uint32, ok bool)) bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // '{'
	s.ws()
	if s.peek() == '}' {
		s.i++
		s.depth--
		return true
	}
	var seen uint32
	for {
		if s.peek() != '"' {
			return false
		}
		ks := s.i
		plain, esc, ok := s.str()
		if !ok || esc || !plain {
			return false // escaped or invalid-UTF-8 keys: let encoding/json unquote them
		}
		key := s.b[ks+1 : s.i-1]
		s.ws()
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.ws()
		bit, ok := field(key)
		if !ok {
			return false
		}
		if bit == 0 {
			if foldsToKnown(key, names) {
				return false
			}
		} else {
			if seen&bit != 0 {
				return false
			}
			seen |= bit
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// record walks the top-level object.
func (s *scan) record(f *fields) bool {
	return s.object(topNames, func(key []byte) (uint32, bool) {
		switch string(key) {
		case "id":
			return 1 << 0, s.flexString(&f.id, noIntern)
		case "timestamp":
			return 1 << 1, s.flexTime(&f.timestamp)
		case "status":
			ok := s.flexString(&f.status, internFew)
			if ok && f.status != "" {
				if low := strings.ToLower(f.status); low != f.status {
					f.status = s.interned(low, internFew)
				}
			}
			return 1 << 2, ok
		case "level":
			return 1 << 3, s.flexString(&f.level, internFew)
		case "type":
			return 1 << 12, s.flexString(&f.typ, internFew)
		case "trigger": // a trigger delivery: rare, read by the lenient parser
			return 0, false
		case "message":
			return 1 << 4, s.flexString(&f.message, internFew)
		case "metadata":
			return 1 << 5, s.sub(&f.meta, metaNames, func(key []byte) (uint32, bool) {
				switch string(key) {
				case "tool_slug":
					return 1 << 0, s.flexString(&f.toolSlug, internFew)
				case "tool":
					return 1 << 1, s.flexString(&f.tool, internFew)
				case "toolkit_slug":
					return 1 << 2, s.flexString(&f.toolkitSlug, internFew)
				case "toolkit":
					return 1 << 3, s.flexString(&f.toolkit, internFew)
				case "user_id":
					return 1 << 4, s.flexString(&f.user, internMany)
				case "connected_account_id":
					return 1 << 5, s.flexString(&f.account, internMany)
				case "sdk_version":
					return 1 << 6, s.flexString(&f.sdk, internFew)
				case "retry_count":
					return 1 << 7, s.flexNumber(&f.retry)
				case "request_id":
					return 1 << 8, s.flexString(&f.metaReq, noIntern)
				case "tool_version":
					return 1 << 9, s.flexString(&f.toolVer, internFew)
				case "version":
					return 1 << 10, s.flexString(&f.ver, internFew)
				case "user_agent":
					return 1 << 11, s.flexString(&f.uaMeta, internFew)
				}
				return 0, s.skip()
			})
		case "metrics":
			return 1 << 6, s.sub(&f.metrics, metricsNames, func(key []byte) (uint32, bool) {
				if string(key) == "duration_ms" {
					return 1, s.flexNumber(&f.duration)
				}
				return 0, s.skip()
			})
		case "parent":
			return 1 << 7, s.sub(&f.parent, parentNames, func(key []byte) (uint32, bool) {
				switch string(key) {
				case "log_id":
					return 1 << 0, s.flexString(&f.pLog, noIntern)
				case "tool_slug":
					return 1 << 1, s.flexString(&f.pTool, internFew)
				}
				return 0, s.skip()
			})
		case "timings":
			return 1 << 8, s.sub(&f.timings, timingsNames, func(key []byte) (uint32, bool) {
				switch string(key) {
				case "start_time":
					return 1 << 0, s.flexTime(&f.start)
				case "end_time":
					return 1 << 1, s.flexTime(&f.end)
				}
				return 0, s.skip()
			})
		case "context":
			return 1 << 9, s.sub(&f.context, contextNames, func(key []byte) (uint32, bool) {
				switch string(key) {
				case "session_id":
					return 1 << 0, s.flexString(&f.session, noIntern)
				case "trace_id":
					return 1 << 1, s.flexString(&f.trace, noIntern)
				case "request_id":
					return 1 << 2, s.flexString(&f.ctxReq, noIntern)
				case "user_agent":
					return 1 << 3, s.flexString(&f.uaCtx, internFew)
				}
				return 0, s.skip()
			})
		case "source":
			return 1 << 10, s.sub(&f.source, sourceNames, func(key []byte) (uint32, bool) {
				switch string(key) {
				case "host":
					return 1 << 0, s.flexString(&f.host, internFew)
				case "framework":
					return 1 << 1, s.flexString(&f.fw, internFew)
				case "language":
					return 1 << 2, s.flexString(&f.lng, internFew)
				case "user_agent":
					return 1 << 3, s.flexString(&f.uaSrc, internFew)
				}
				return 0, s.skip()
			})
		case "data":
			return 1 << 11, s.sub(&f.data, dataNames, func(key []byte) (uint32, bool) { return s.dataField(f, key) })
		}
		return 0, s.skip()
	})
}

// span skips the value at s.i, keeping where it lies in at and whether it opens with open (an
// object or an array) in is, so that it can be read in place later.
func (s *scan) span(at *[2]int, is *bool, open byte) bool {
	start := s.i
	*is = s.peek() == open
	ok := s.skip()
	*at = [2]int{start, s.i}
	return ok
}

func (s *scan) dataField(f *fields, key []byte) (uint32, bool) {
	switch string(key) {
	case "request":
		var req bool
		return 1 << 0, s.sub(&req, requestNames, func(key []byte) (uint32, bool) {
			switch string(key) {
			case "arguments":
				ok := s.span(&f.args, &f.hasArgs, '{')
				return 1, ok
			case "request_state":
				return 2, s.flexString(&f.reqState, noIntern)
			case "input_responses":
				ok := s.span(&f.responses, &f.hasResponses, '[')
				return 4, ok
			}
			return 0, s.skip()
		})
	case "response":
		start := s.i
		ok := s.sub(&f.hasResp, responseNames, func(key []byte) (uint32, bool) {
			if string(key) != "error" {
				return 0, s.skip()
			}
			if s.peek() == '"' {
				f.respErrString = true
				return 1, s.flexString(&f.respErr, internFew)
			}
			return 1, s.skip()
		})
		f.resp = [2]int{start, s.i}
		return 1 << 1, ok
	case "error":
		if s.peek() == '"' {
			return 1 << 2, s.flexString(&f.errString, internFew)
		}
		return 1 << 2, s.sub(&f.errObj, errorNames, func(key []byte) (uint32, bool) {
			switch string(key) {
			case "message":
				return 1 << 0, s.flexString(&f.errMsg, internFew)
			case "http_status":
				return 1 << 1, s.flexNumber(&f.errStatus)
			case "kind":
				return 1 << 2, s.flexString(&f.errKind, internFew)
			}
			return 0, s.skip()
		})
	}
	return 0, s.skip()
}

// sub walks an object value with field, setting *present; any other value is skipped (the
// slow path ignores a non-object where it wants an object).
func (s *scan) sub(present *bool, names []string, field func(key []byte) (uint32, bool)) bool {
	if s.peek() != '{' {
		return s.skip()
	}
	*present = true
	return s.object(names, field)
}

// text returns the decoded string whose quoted form is s.b[start:s.i], shared through the
// parser's string table of class when it has one.
func (s *scan) text(start int, plain, esc bool, class int) (string, bool) {
	raw := s.b[start+1 : s.i-1]
	if !plain || esc {
		var v string
		if json.Unmarshal(s.b[start:s.i], &v) != nil {
			return "", false
		}
		return s.interned(v, class), true
	}
	if t := s.p.table(class); t != nil && len(raw) <= maxInternedLen {
		r := s.p.recent[class-1]
		slot := &r[bytesHash(raw)&uint64(len(r)-1)]
		if *slot == string(raw) {
			return *slot, true
		}
		v, ok := t[string(raw)]
		if !ok {
			v = string(raw)
			if len(t) < maxInterned {
				t[v] = v
			}
		}
		*slot = v
		return v, true
	}
	return string(raw), true
}

// bytesHash is a cheap hash of a short string's bytes for the recent caches: its length and
// its first and last eight bytes (a collision only costs a map lookup).
func bytesHash(b []byte) uint64 {
	n := len(b)
	x := uint64(n)
	if n >= 8 {
		x ^= binary.LittleEndian.Uint64(b) ^ binary.LittleEndian.Uint64(b[n-8:])*0x9e3779b97f4a7c15
	} else {
		for _, c := range b {
			x = x<<8 | uint64(c)
		}
		x ^= uint64(n) << 60
	}
	x *= 0xff51afd7ed558ccd
	return x ^ x>>29
}

func (s *scan) interned(v string, class int) string {
	t := s.p.table(class)
	if t == nil || len(v) > maxInternedLen {
		return v
	}
	if w, ok := t[v]; ok {
		return w
	}
	if len(t) < maxInterned {
		t[v] = v
	}
	return v
}

// flexString reads a string, a number or a boolean as text (see flexString.UnmarshalJSON);
// anything else leaves *dst unchanged.
func (s *scan) flexString(dst *string, class int) bool {
	start := s.i
	switch c := s.peek(); {
	case c == '"':
		plain, esc, ok := s.str()
		if !ok {
			return false
		}
		v, ok := s.text(start, plain, esc, class)
		*dst = v
		return ok
	case c == '-' || '0' <= c && c <= '9':
		if !s.num() {
			return false
		}
		*dst = string(s.b[start:s.i])
		return true
	case c == 't':
		if !s.lit("true") {
			return false
		}
		*dst = "true"
		return true
	case c == 'f':
		if !s.lit("false") {
			return false
		}
		*dst = "false"
		return true
	}
	return s.skip()
}

// flexNumber reads a number or a numeric string (see flexNumber.UnmarshalJSON).
func (s *scan) flexNumber(dst *flexNumber) bool {
	start := s.i
	var text string
	switch c := s.peek(); {
	case c == '"':
		plain, esc, ok := s.str()
		if !ok {
			return false
		}
		if text, ok = s.text(start, plain, esc, noIntern); !ok {
			return false
		}
		text = strings.TrimSpace(text)
	case c == '-' || '0' <= c && c <= '9':
		if !s.num() {
			return false
		}
		text = unsafeString(s.b[start:s.i])
	default:
		return s.skip()
	}
	if v, err := strconv.ParseFloat(text, 64); err == nil && v == v {
		dst.v, dst.ok = v, true
	}
	return true
}

// flexTime reads an RFC 3339 string or an epoch number (see flexTime.UnmarshalJSON). The
// usual shapes (a UTC time to the millisecond, epoch milliseconds) are read directly, the
// rest by ParseTime.
func (s *scan) flexTime(dst *time.Time) bool {
	start := s.i
	var text string
	switch c := s.peek(); {
	case c == '"':
		plain, esc, ok := s.str()
		if !ok {
			return false
		}
		if plain && !esc {
			if t, ok := utcTime(s.b[start+1 : s.i-1]); ok {
				*dst = t
				return true
			}
		}
		if text, ok = s.text(start, plain, esc, noIntern); !ok {
			return false
		}
	case c == '-' || '0' <= c && c <= '9':
		if !s.num() {
			return false
		}
		if x, ok := digits(s.b[start:s.i]); ok {
			if t, ok := epochTime(float64(x)); ok {
				*dst = t
			}
			return true
		}
		text = unsafeString(s.b[start:s.i])
	default:
		return s.skip()
	}
	if t, ok := ParseTime(text); ok {
		*dst = t
	}
	return true
}

// digits reads a run of at most 15 decimal digits (exact as a float64, as ParseFloat reads it).
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var x int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	return x, true
}

// utcTime reads YYYY-MM-DDTHH:MM:SS[.fraction]Z, what ParseTime makes of it, when the
// fields are in range; ok is false for anything else (ParseTime then decides).
func utcTime(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	y, mo, d, h, mi, sec := num(b[0:4]), num(b[5:7]), num(b[8:10]), num(b[11:13]), num(b[14:16]), num(b[17:19])
	ns := 0
	switch frac := b[19 : len(b)-1]; {
	case len(frac) == 0:
	case frac[0] != '.' || len(frac) < 2 || len(frac) > 10:
		return time.Time{}, false
	default:
		if ns = num(frac[1:]); ns < 0 {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			ns *= 10
		}
	}
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC)
	if t.Day() != d { // day 31 of a 30-day month, and the like
		return time.Time{}, false
	}
	return t, true
}

// skip validates and passes over any value.
func (s *scan) skip() bool {
	switch c := s.peek(); {
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '{':
		return s.object(nil, func([]byte) (uint32, bool) { return 0, s.skip() })
	case c == '[':
		return s.array()
	case c == '-' || '0' <= c && c <= '9':
		return s.num()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	}
	return false
}

func (s *scan) array() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // '['
	s.ws()
	if s.peek() == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.skip() {
			return false
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

func (s *scan) lit(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// num passes over a number in JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scan) num() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == d {
			return false
		}
	}
	s.i = i
	return true
}

// SWAR constants: a byte repeated in every lane.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// special returns a mask with the high bit set in each lane holding '"', '\\' or a control
// byte (< 0x20), and possibly (never alone) in lanes after one of those; bytes >= 0x80 are
// reported separately by the caller.
func special(x uint64) uint64 {
	q := x ^ (lanes01 * '"')
	bs := x ^ (lanes01 * '\\')
	return ((q-lanes01)&^q | (bs-lanes01)&^bs | (x-lanes01*0x20)&^x) & lanes80
}

// str passes over the string at s.i ('"'), validating it as encoding/json does (no control
// bytes, only valid escapes). plain is false when the bytes are not valid UTF-8 (decoding
// would replace them); esc is true when there are escapes.
func (s *scan) str() (plain, esc, ok bool) {
	b := s.b
	i := s.i + 1
	high := false
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if x&lanes80 != 0 {
				high = true
			}
			m := special(x)
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
			break
		}
		if i >= len(b) {
			return false, false, false
		}
		c := b[i]
		switch {
		case c == '"':
			plain = !high || utf8.Valid(b[s.i+1:i])
			s.i = i + 1
			return plain, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return false, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false, false, false
				}
				i += 6
			default:
				return false, false, false
			}
		case c < 0x20:
			return false, false, false
		default:
			if c >= utf8.RuneSelf {
				high = true
			}
			i++ // a lane flagged after the real match, or the tail
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unsafeString views b as a string for a moment (a number handed to strconv); the string
// must not outlive b.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// MaxRecordDepth is how deeply a record's JSON may nest (objects and arrays); a deeper record
// is refused rather than parsed, so hostile input cannot make the parser or the views dig.
const MaxRecordDepth = 128

// ErrTooDeep is returned for a record nested deeper than MaxRecordDepth.
var ErrTooDeep = errors.New("record nested too deeply")

// nestedDeeper reports whether the JSON text b nests objects/arrays deeper than max
// (brackets inside strings do not count). It does not validate the JSON.
func nestedDeeper(b []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}
