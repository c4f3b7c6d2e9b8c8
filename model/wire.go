package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The Logs API wire shape (docs/platform.md, "The record shape"). Parsing is
// tolerant: a field of the wrong type is skipped, numbers may come as strings, and the
// alternative keys (metadata.tool, metadata.toolkit) are accepted. Only input that is not a JSON
// object, or a record without an id, is an error.

// WireRecord is a list entry or a detail record of the public Logs API. The sandbox serves it
// and the parser reads it, so the two cannot drift apart.
type WireRecord struct {
	ID        string       `json:"id"`
	Timestamp string       `json:"timestamp"`
	Type      string       `json:"type"`
	Status    string       `json:"status"`
	Level     string       `json:"level"`
	Message   string       `json:"message"`
	Metadata  WireMetadata `json:"metadata"`
	Metrics   WireMetrics  `json:"metrics"`
	Parent    *Parent      `json:"parent"`
	Timings   *WireTimings `json:"timings,omitempty"`
	Context   *WireContext `json:"context,omitempty"`
	Source    *Source      `json:"source,omitempty"`
	Data      *WireData    `json:"data,omitempty"`
	// Trigger is a trigger delivery's identity (Type trigger.message), as exectriage keeps it
	// from the trigger logs.
	Trigger *Delivery `json:"trigger,omitempty"`
}

// WireMetadata is the free-form metadata object, with the keys exectriage relies on.
type WireMetadata struct {
	ToolSlug           string `json:"tool_slug,omitempty"`
	ToolkitSlug        string `json:"toolkit_slug,omitempty"`
	UserID             string `json:"user_id,omitempty"`
	ConnectedAccountID string `json:"connected_account_id,omitempty"`
	SDKVersion         string `json:"sdk_version,omitempty"`
	ToolVersion        string `json:"tool_version,omitempty"`
	RetryCount         *int   `json:"retry_count,omitempty"`
}

// MaxDurationMS is the longest duration_ms read (about 30 years): a larger one would overflow
// a time.Duration and is no real duration; it is read as unknown.
const MaxDurationMS = 1e12

// WireMetrics holds metrics.duration_ms.
type WireMetrics struct {
	DurationMS *float64 `json:"duration_ms,omitempty"`
}

// WireTimings holds epoch-millisecond start and end times.
type WireTimings struct {
	StartTime *int64 `json:"start_time,omitempty"`
	EndTime   *int64 `json:"end_time,omitempty"`
}

// WireContext is the detail's context object.
type WireContext struct {
	SessionID string `json:"session_id,omitempty"`
	TraceID   string `json:"trace_id,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// WireData is the detail's data object: the request payload, the response, the error.
type WireData struct {
	Request  *WireRequest    `json:"request,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	Error    *ExecError      `json:"error,omitempty"`
}

// WireRequest is data.request.
type WireRequest struct {
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// RequestState and InputResponses are an approved re-call's (Execution.Approval).
	RequestState   string          `json:"request_state,omitempty"`
	InputResponses json.RawMessage `json:"input_responses,omitempty"`
}

// ErrNotObject is returned for input that is not a JSON object.
var ErrNotObject = errors.New("record is not a JSON object")

// ErrNoID is returned for a record without an id.
var ErrNoID = errors.New("record has no id")

// lenient is the decoding target: every scalar is a flex type, every object a RawMessage, so a
// field of the wrong type never spoils the rest.
type lenient struct {
	ID        flexString      `json:"id"`
	Timestamp flexTime        `json:"timestamp"`
	Type      flexString      `json:"type"`
	Status    flexString      `json:"status"`
	Level     flexString      `json:"level"`
	Message   flexString      `json:"message"`
	Metadata  json.RawMessage `json:"metadata"`
	Metrics   json.RawMessage `json:"metrics"`
	Parent    json.RawMessage `json:"parent"`
	Timings   json.RawMessage `json:"timings"`
	Context   json.RawMessage `json:"context"`
	Source    json.RawMessage `json:"source"`
	Data      json.RawMessage `json:"data"`
	Trigger   json.RawMessage `json:"trigger"`
}

type lenientMetadata struct {
	ToolSlug           flexString `json:"tool_slug"`
	Tool               flexString `json:"tool"`
	ToolkitSlug        flexString `json:"toolkit_slug"`
	Toolkit            flexString `json:"toolkit"`
	UserID             flexString `json:"user_id"`
	ConnectedAccountID flexString `json:"connected_account_id"`
	SDKVersion         flexString `json:"sdk_version"`
	ToolVersion        flexString `json:"tool_version"`
	Version            flexString `json:"version"`
	RetryCount         flexNumber `json:"retry_count"`
	RequestID          flexString `json:"request_id"`
	UserAgent          flexString `json:"user_agent"`
}

type lenientData struct {
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
	Error    json.RawMessage `json:"error"`
}

type lenientError struct {
	Message    flexString `json:"message"`
	HTTPStatus flexNumber `json:"http_status"`
	Kind       flexString `json:"kind"`
}

// recordType is a record's type as kept: "" for a tool execution (the type of nearly every
// record, so it costs nothing to keep), else the type as the log gives it.
func recordType(t string) string {
	if t == TypeToolExecution {
		return ""
	}
	return t
}

// parseRecordSlow is the reference parser on encoding/json: every scalar is decoded by a flex
// type, every object kept raw and decoded again. ParseRecord takes it for whatever its one-pass
// scanner (wirefast.go) is not sure about, so the two always agree.
func parseRecordSlow(data []byte) (Execution, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return Execution{}, ErrNotObject
	}
	if nestedDeeper(data, MaxRecordDepth) {
		return Execution{}, fmt.Errorf("%w: more than %d levels", ErrTooDeep, MaxRecordDepth)
	}
	var l lenient
	if err := decodeLenient(data, &l); err != nil {
		return Execution{}, err
	}
	if l.ID == "" {
		return Execution{}, ErrNoID
	}
	e := Execution{
		ID:         string(l.ID),
		Timestamp:  time.Time(l.Timestamp),
		Status:     strings.ToLower(string(l.Status)),
		Level:      string(l.Level),
		Message:    string(l.Message),
		Type:       recordType(string(l.Type)),
		RetryCount: -1,
	}
	var uaMeta, uaCtx, uaSrc string // the user agent, where a record carries one (applyUserAgent)
	if isObject(l.Metadata) {
		var m lenientMetadata
		_ = decodeLenient(l.Metadata, &m)
		uaMeta = string(m.UserAgent)
		e.ToolSlug = first(string(m.ToolSlug), string(m.Tool))
		e.ToolkitSlug = first(string(m.ToolkitSlug), string(m.Toolkit))
		e.UserID = string(m.UserID)
		e.ConnectedAccountID = string(m.ConnectedAccountID)
		e.SDKVersion = string(m.SDKVersion)
		e.ToolVersion = first(string(m.ToolVersion), string(m.Version))
		e.RequestID = string(m.RequestID)
		if m.RetryCount.ok && m.RetryCount.v >= 0 {
			e.RetryCount = int(m.RetryCount.v)
		}
	}
	if isObject(l.Metrics) {
		var m struct {
			DurationMS flexNumber `json:"duration_ms"`
		}
		_ = decodeLenient(l.Metrics, &m)
		if m.DurationMS.ok && m.DurationMS.v >= 0 && m.DurationMS.v <= MaxDurationMS {
			e.Duration = time.Duration(m.DurationMS.v * float64(time.Millisecond))
			e.HasDuration = true
		}
	}
	if isObject(l.Parent) {
		var p struct {
			LogID    flexString `json:"log_id"`
			ToolSlug flexString `json:"tool_slug"`
		}
		_ = decodeLenient(l.Parent, &p)
		if p.LogID != "" || p.ToolSlug != "" {
			e.Parent = &Parent{LogID: string(p.LogID), ToolSlug: string(p.ToolSlug)}
		}
	}
	if isObject(l.Timings) {
		e.Detailed = true
		var t struct {
			StartTime flexTime `json:"start_time"`
			EndTime   flexTime `json:"end_time"`
		}
		_ = decodeLenient(l.Timings, &t)
		e.StartTime, e.EndTime = time.Time(t.StartTime), time.Time(t.EndTime)
		if !e.HasDuration && !e.StartTime.IsZero() && !e.EndTime.IsZero() && !e.EndTime.Before(e.StartTime) {
			e.Duration, e.HasDuration = e.EndTime.Sub(e.StartTime), true
		}
	}
	if isObject(l.Context) {
		e.Detailed = true
		var c struct {
			SessionID flexString `json:"session_id"`
			TraceID   flexString `json:"trace_id"`
			RequestID flexString `json:"request_id"`
			UserAgent flexString `json:"user_agent"`
		}
		_ = decodeLenient(l.Context, &c)
		uaCtx = string(c.UserAgent)
		e.SessionID, e.TraceID = string(c.SessionID), string(c.TraceID)
		e.RequestID = first(string(c.RequestID), e.RequestID)
	}
	if isObject(l.Source) {
		var s struct {
			Host      flexString `json:"host"`
			Framework flexString `json:"framework"`
			Language  flexString `json:"language"`
			UserAgent flexString `json:"user_agent"`
		}
		_ = decodeLenient(l.Source, &s)
		uaSrc = string(s.UserAgent)
		e.Source = Source{Host: string(s.Host), Framework: string(s.Framework), Language: string(s.Language)}
	}
	applyUserAgent(&e, first(uaMeta, first(uaCtx, uaSrc)))
	if isObject(l.Data) {
		e.Detailed = true
		parseData(l.Data, &e)
	}
	if isObject(l.Trigger) {
		var t struct {
			EventID   flexString `json:"event_id"`
			Attempt   flexNumber `json:"attempt"`
			TriggerID flexString `json:"trigger_id"`
			Error     flexString `json:"error"`
			Endpoint  flexString `json:"endpoint_id"`
		}
		_ = decodeLenient(l.Trigger, &t)
		d := Delivery{EventID: string(t.EventID), TriggerID: string(t.TriggerID), Error: string(t.Error), EndpointID: string(t.Endpoint)}
		if t.Attempt.ok && t.Attempt.v >= 0 && t.Attempt.v < 1e6 {
			d.Attempt = int(t.Attempt.v)
		}
		if d != (Delivery{}) {
			e.Delivery = &d
		}
	}
	if e.Timestamp.IsZero() && !e.StartTime.IsZero() {
		e.Timestamp = e.StartTime
	}
	return e, nil
}

func parseData(raw json.RawMessage, e *Execution) {
	var d lenientData
	_ = decodeLenient(raw, &d)
	if isObject(d.Request) {
		var r struct {
			Arguments      json.RawMessage `json:"arguments"`
			RequestState   flexString      `json:"request_state"`
			InputResponses json.RawMessage `json:"input_responses"`
		}
		_ = decodeLenient(d.Request, &r)
		if isObject(r.Arguments) {
			e.Arguments = r.Arguments
			e.ArgsSum = ArgsSumOf(r.Arguments)
		}
		e.Approval = approvalOf(string(r.RequestState), r.InputResponses)
	}
	if isObject(d.Response) {
		e.Response = d.Response
	}
	if isObject(d.Error) {
		var le lenientError
		_ = decodeLenient(d.Error, &le)
		e.Error = &ExecError{Message: string(le.Message), Kind: ErrorKind(le.Kind)}
		if le.HTTPStatus.ok {
			e.Error.HTTPStatus = int(le.HTTPStatus.v)
		}
	} else if s, ok := jsonString(d.Error); ok && s != "" {
		e.Error = &ExecError{Message: s}
	}
	if e.Error == nil && isObject(e.Response) {
		var r struct {
			Error json.RawMessage `json:"error"`
		}
		_ = decodeLenient(e.Response, &r)
		if s, ok := jsonString(r.Error); ok && s != "" {
			e.Error = &ExecError{Message: s}
		}
	}
}

// decodeLenient unmarshals, ignoring type mismatches (encoding/json skips the field and goes
// on); a syntax error is returned.
func decodeLenient(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}

// approvalOf is the Approval of a request that carried state and responses (the responses
// kept only when an array, as the API takes them), nil when it carried neither.
func approvalOf(state string, responses json.RawMessage) *Approval {
	if !isArray(responses) {
		responses = nil
	}
	if state == "" && responses == nil {
		return nil
	}
	return &Approval{RequestState: state, Responses: responses}
}

// isArray reports whether raw is a JSON array.
func isArray(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '['
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func jsonString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// flexString accepts a string, a number or a bool (as its text); anything else is empty.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil
		}
		*f = flexString(s)
	case 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		*f = flexString(b)
	}
	return nil
}

// flexNumber accepts a number or a numeric string.
type flexNumber struct {
	v  float64
	ok bool
}

func (f *flexNumber) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
	}
	if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && v == v { // v==v drops NaN
		f.v, f.ok = v, true
	}
	return nil
}

// flexTime accepts RFC 3339 (with or without fraction or zone), or epoch seconds/milliseconds
// as a number or numeric string.
type flexTime time.Time

func (f *flexTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		return nil
	}
	if b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		if t, ok := ParseTime(s); ok {
			*f = flexTime(t)
		}
		return nil
	}
	if t, ok := ParseTime(string(b)); ok {
		*f = flexTime(t)
	}
	return nil
}

// ParseTime reads an ISO 8601 / RFC 3339 time or an epoch number (seconds below 1e11, else
// milliseconds). It returns false for anything else.
func ParseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	// A time of day never parses as a number: skip the attempt (and its error) for RFC 3339.
	if strings.IndexByte(s, ':') < 0 {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return epochTime(v)
		}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// epochTime reads epoch seconds (below 1e11) or milliseconds.
func epochTime(v float64) (time.Time, bool) {
	if v <= 0 || v != v || v > 1e15 {
		return time.Time{}, false
	}
	if v < 1e11 {
		return time.UnixMilli(int64(v * 1000)).UTC(), true
	}
	return time.UnixMilli(int64(v)).UTC(), true
}

// WireTime is how the Logs API writes a timestamp, and how every front writes one back:
// UTC with milliseconds.
const WireTime = "2006-01-02T15:04:05.000Z"

// ToWire renders an execution in the Logs API detail shape (detail true) or list-entry shape.
func ToWire(e *Execution, detail bool) WireRecord {
	w := WireRecord{
		ID:        e.ID,
		Timestamp: e.Timestamp.UTC().Format(WireTime),
		Type:      first(e.Type, TypeToolExecution),
		Status:    e.Status,
		Level:     e.Level,
		Message:   e.Message,
		Metadata: WireMetadata{
			ToolSlug:           e.ToolSlug,
			ToolkitSlug:        e.ToolkitSlug,
			UserID:             e.UserID,
			ConnectedAccountID: e.ConnectedAccountID,
			SDKVersion:         e.SDKVersion,
			ToolVersion:        e.ToolVersion,
		},
		Parent:  e.Parent,
		Trigger: e.Delivery,
	}
	if e.RetryCount >= 0 {
		rc := e.RetryCount
		w.Metadata.RetryCount = &rc
	}
	if e.HasDuration {
		ms := float64(e.Duration) / float64(time.Millisecond)
		w.Metrics.DurationMS = &ms
	}
	if !detail {
		return w
	}
	// timings is optional, and numbers when present (the SDK's schema refuses a null): a record
	// that knows neither time has none, one that knows one keeps it (nothing is lost)
	if !e.StartTime.IsZero() || !e.EndTime.IsZero() {
		w.Timings = &WireTimings{}
		if !e.StartTime.IsZero() {
			v := e.StartTime.UnixMilli()
			w.Timings.StartTime = &v
		}
		if !e.EndTime.IsZero() {
			v := e.EndTime.UnixMilli()
			w.Timings.EndTime = &v
		}
	}
	w.Context = &WireContext{SessionID: e.SessionID, TraceID: e.TraceID, RequestID: e.RequestID}
	src := e.Source
	w.Source = &src
	w.Data = &WireData{Response: e.Response, Error: e.Error}
	if len(e.Arguments) > 0 || e.Approval != nil {
		w.Data.Request = &WireRequest{Arguments: e.Arguments}
		if a := e.Approval; a != nil {
			w.Data.Request.RequestState, w.Data.Request.InputResponses = a.RequestState, a.Responses
		}
	}
	return w
}
