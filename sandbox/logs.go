package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

type logsRequest struct {
	Limit     *float64        `json:"limit"`
	Cursor    *string         `json:"cursor"`
	TimeRange *timeRange      `json:"time_range"`
	Filters   []logFilterWire `json:"filters"`
}

type timeRange struct {
	From json.RawMessage `json:"from"`
	To   json.RawMessage `json:"to"`
}

type logFilterWire struct {
	Field    string          `json:"field"`
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value"`
}

type logFilter struct{ field, op, value string }

// LogFilterFields lists the fields POST /logs/tool_execution filters on.
func LogFilterFields() []string {
	return []string{"tool_slug", "toolkit_slug", "connected_account_id", "auth_config_id", "status", "user_id",
		"session_id", "sandbox_id", "request_id", "log_id"}
}

// LogFilterOperators lists the filter operators.
func LogFilterOperators() []string { return []string{"==", "!=", "contains", "not_contains"} }

func contains(xs []string, x string) bool {
	return slices.Contains(xs, x)
}

// rawText is a JSON scalar as text: a string's content, or a number/bool literally.
func rawText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if raw[0] == '{' || raw[0] == '[' {
		return "", false
	}
	return string(raw), true
}

func (s *Server) fieldValue(e *model.Execution, field string) string {
	switch field {
	case "tool_slug":
		return e.ToolSlug
	case "toolkit_slug":
		return e.ToolkitSlug
	case "connected_account_id":
		return e.ConnectedAccountID
	case "auth_config_id":
		if a := s.w.accountByID[e.ConnectedAccountID]; a != nil {
			return a.authConfigID
		}
		return ""
	case "status":
		return e.Status
	case "user_id":
		return e.UserID
	case "session_id":
		return e.SessionID
	case "request_id":
		return e.RequestID
	case "log_id":
		return e.ID
	}
	return "" // sandbox_id: the sandbox runs no sandboxes
}

func (s *Server) matches(e *model.Execution, fs []logFilter) bool {
	for _, f := range fs {
		v := s.fieldValue(e, f.field)
		var ok bool
		switch f.op {
		case "==", "!=":
			if f.field == "tool_slug" || f.field == "toolkit_slug" || f.field == "status" {
				ok = strings.EqualFold(v, f.value)
			} else {
				ok = v == f.value
			}
			if f.op == "!=" {
				ok = !ok
			}
		case "contains":
			ok = containsFold(v, f.value)
		case "not_contains":
			ok = !containsFold(v, f.value)
		}
		if !ok {
			return false
		}
	}
	return true
}

// encodePageCursor is a page-number cursor as the real API's documented example is one:
// base64 of {"page":N}.
func encodePageCursor(n int) string {
	return base64.StdEncoding.EncodeToString([]byte(`{"page":` + strconv.Itoa(n) + `}`))
}

func decodePageCursor(c string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	var p struct {
		Page int `json:"page"`
	}
	if json.Unmarshal(b, &p) != nil || p.Page < 1 {
		return 0, false
	}
	return p.Page, true
}

// arrive adds n records to the history at times inside [from, to] (or the history's span):
// copies of existing ones under new ids, as logs written late appear. s.mu is held.
func (s *Server) arrive(n int, from, to time.Time) {
	if len(s.logs) == 0 {
		return
	}
	if from.IsZero() {
		from = s.logs[0].Timestamp
	}
	if to.IsZero() || to.After(s.clock()) {
		to = s.clock()
	}
	span := to.Sub(from)
	for range n {
		src := s.logs[s.arrivals%len(s.logs)]
		e := *src
		e.ID, e.RequestID = s.w.ids.logID(), ""
		if span > 0 {
			e.Timestamp = from.Add(time.Duration((s.arrivals*7919)%1000) * span / 1000).Truncate(time.Millisecond)
		}
		s.arrivals++
		i := sort.Search(len(s.logs), func(i int) bool { return !logLess(s.logs[i], &e) })
		s.logs = slices.Insert(s.logs, i, &e)
		s.byID[e.ID] = &e
	}
}

// cursor encodes the (timestamp, id) key of the last record served, and the query (filters
// and time range) it belongs to.
func encodeCursor(e *model.Execution, query string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1|" + strconv.FormatInt(e.Timestamp.UnixNano(), 10) + "|" + query + "|" + e.ID))
}

func decodeCursor(c string) (t time.Time, id, query string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", "", false
	}
	parts := strings.SplitN(string(b), "|", 4)
	if len(parts) != 4 || parts[0] != "v1" {
		return time.Time{}, "", "", false
	}
	n, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return time.Time{}, "", "", false
	}
	return time.Unix(0, n).UTC(), parts[3], parts[2], true
}

// Logs list defaults.
const (
	DefaultLogsLimit = 20
	MaxLogsLimit     = 100
)

func (s *Server) handleLogs(w http.ResponseWriter, r *http.Request) {
	var req logsRequest
	body, ok := s.readJSON(w, r, &req)
	if !ok || s.refuseUnknownKeys(w, r, body, logsBodyKeys...) {
		return
	}
	bad := func(msg string, errs ...string) {
		s.writeError(w, r, http.StatusBadRequest, 1400, "Logs_InvalidQuery", msg,
			"limit 1-100; time_range {from, to} in epoch milliseconds; filters [{field, operator, value}].", errs...)
	}
	limit := DefaultLogsLimit
	if req.Limit != nil {
		switch l := *req.Limit; {
		case l < 0 || l != float64(int(l)):
			bad("limit must be a non-negative integer")
			return
		case s.cfg.MaxPageSize > 0 && l > float64(s.cfg.MaxPageSize):
			bad(fmt.Sprintf("limit must be less than or equal to %d", s.cfg.MaxPageSize))
			return
		case l > MaxLogsLimit:
			limit = MaxLogsLimit
		case l > 0:
			limit = int(l)
		}
	}
	var filters []logFilter
	var problems []string
	if s.strict() {
		problems = append(problems, strictTimeRange(req.TimeRange)...)
		problems = append(problems, strictFilterValues(req.Filters)...)
	}
	for i, f := range req.Filters {
		v, ok := rawText(f.Value)
		switch {
		case !contains(LogFilterFields(), f.Field):
			problems = append(problems, fmt.Sprintf("filters[%d].field: unknown field %q", i, f.Field))
		case !contains(LogFilterOperators(), f.Operator):
			problems = append(problems, fmt.Sprintf("filters[%d].operator: unknown operator %q", i, f.Operator))
		case !ok:
			problems = append(problems, fmt.Sprintf("filters[%d].value: must be a string", i))
		default:
			filters = append(filters, logFilter{f.Field, f.Operator, v})
		}
	}
	var from, to time.Time
	if req.TimeRange != nil {
		for _, x := range []struct {
			raw  json.RawMessage
			dst  *time.Time
			name string
		}{{req.TimeRange.From, &from, "from"}, {req.TimeRange.To, &to, "to"}} {
			txt, ok := rawText(x.raw)
			if !ok {
				continue
			}
			t, ok := model.ParseTime(txt)
			if !ok {
				problems = append(problems, "time_range."+x.name+": not an epoch-milliseconds time")
				continue
			}
			*x.dst = t
		}
	}
	var curTS time.Time
	var curID string
	query := queryKey(&req)
	pageNo := 1
	if req.Cursor != nil && *req.Cursor != "" && s.cfg.Cursor == CursorPage {
		var ok bool
		if pageNo, ok = decodePageCursor(*req.Cursor); !ok {
			problems = append(problems, "cursor: not a cursor this server issued")
		}
	} else if req.Cursor != nil && *req.Cursor != "" {
		var ok bool
		var curQuery string
		if curTS, curID, curQuery, ok = decodeCursor(*req.Cursor); !ok {
			problems = append(problems, "cursor: not a cursor this server issued")
		} else if s.strict() && curQuery != query {
			problems = append(problems, "cursor: issued for other filters or another time_range: keep them for every page")
		}
	}
	if len(problems) > 0 {
		bad("invalid logs query: "+strings.Join(problems, "; "), problems...)
		return
	}
	if !sleepCtx(r.Context(), s.cfg.PageLatency, s.closing) {
		return
	}
	page := make([]model.WireRecord, 0, limit)
	next := any(nil)
	s.mu.Lock()
	if s.cfg.Cursor == CursorPage && s.cfg.ArrivalsPerPage > 0 {
		s.arrive(s.cfg.ArrivalsPerPage, from, to)
	}
	skip := (pageNo - 1) * limit // page mode: the records of the pages before
	hi := len(s.logs)
	if curID != "" {
		key := &model.Execution{Timestamp: curTS, ID: curID}
		hi = sort.Search(len(s.logs), func(i int) bool { return !logLess(s.logs[i], key) })
	}
	if !to.IsZero() { // inclusive at the millisecond the caller can see
		end := to.Truncate(time.Millisecond).Add(time.Millisecond)
		hi = min(hi, sort.Search(len(s.logs), func(i int) bool { return !s.logs[i].Timestamp.Before(end) }))
	}
	var last *model.Execution
	for i := hi - 1; i >= 0; i-- {
		e := s.logs[i]
		if !from.IsZero() && e.Timestamp.Before(from.Truncate(time.Millisecond)) {
			break
		}
		if !s.matches(e, filters) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if len(page) == limit {
			next = encodeCursor(last, query)
			if s.cfg.Cursor == CursorPage {
				next = encodePageCursor(pageNo + 1)
			}
			break
		}
		rec := model.ToWire(e, false)
		rec.Trigger = nil // the logs API has no such object: a delivery's identity is in the trigger logs
		page = append(page, rec)
		last = e
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"logs": page, "next_cursor": next})
}

func (s *Server) handleLog(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	e := s.byID[id]
	var rec model.WireRecord
	if e != nil {
		s.materialize(e)
		shown := *e
		if s.cfg.NoStoreData { // audit metadata only
			shown.Arguments, shown.Response = nil, nil
		}
		rec = model.ToWire(&shown, true)
		rec.Trigger = nil // the logs API has no such object: a delivery's identity is in the trigger logs
	}
	s.mu.Unlock()
	if e == nil {
		s.writeError(
			w,
			r,
			http.StatusNotFound,
			1404,
			"Log_NotFound",
			"No tool execution log with id "+id,
			"Check the id from the logs list.",
		)
		return
	}
	writeJSON(w, http.StatusOK, rec)
}

// sleepCtx waits d; false when the request or the server went away first.
func sleepCtx(ctx context.Context, d time.Duration, closing <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-closing:
	}
	return false
}
