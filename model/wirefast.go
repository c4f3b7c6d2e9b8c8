package model

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
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
	// KeepResponseKey, when set beside KeepResponse, decides in its stead as the one-pass
	// parser reads an object response: it is shown each top-level key (in is nil), and each
	// key of the response's data when that is an object (in is the data's key), plain
	// (escaped keys send the record to the slow path, which asks KeepResponse), with the
	// bytes from its value's first on (the rest of the record), and the response is kept
	// when it says so of one. It must keep every response KeepResponse keeps (it may keep a
	// few more): walking each response again in KeepResponse cost a production-shaped load a
	// tenth of its parse.
	KeepResponseKey func(in, key, value []byte) bool
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
		p != nil && p.KeepResponse != nil && f.hasResp && !p.keepResponse(&f, data),
		p != nil && p.SkipArguments,
	)
	return e, true, nil
}

// keepResponse is the decision on a record's object response: from its keys as the scan read
// them (KeepResponseKey), else from KeepResponse on its bytes.
func (p *Parser) keepResponse(f *fields, data []byte) bool {
	if p.KeepResponseKey != nil {
		return f.respKept
	}
	return p.KeepResponse(data[f.resp[0]:f.resp[1]])
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
	respKept      bool // a top-level key of the response made KeepResponseKey keep it
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
	dataKey       = []byte("data")
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
			p := s.p
			if p != nil && p.KeepResponseKey != nil && !f.respKept && p.KeepResponseKey(nil, key, s.b[s.i:]) {
				f.respKept = true
			}
			if p != nil && p.KeepResponseKey != nil && !f.respKept && s.peek() == '{' && bytes.EqualFold(key, dataKey) {
				var data bool // the tool's data: its members may say the provider failed
				return 0, s.sub(&data, nil, func(member []byte) (uint32, bool) {
					if !f.respKept && p.KeepResponseKey(key, member, s.b[s.i:]) {
						f.respKept = true
					}
					return 0, s.skip()
				})
			}
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
