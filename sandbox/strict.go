package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// The sandbox refuses what the real API refuses, so that a client or a verifier that sends
// something the platform would not accept fails its tests here rather than in production.
// Config.Lenient turns the checks off for a test that needs the old behaviour.
//
//   - a request carrying both x-api-key and x-user-api-key: 401 "Multiple authentication
//     modes were provided"; the logs endpoints take a project key only (x-api-key);
//   - a logs search body with a key the API does not know, a time_range without both from and
//     to, or with times that are not epoch milliseconds (ISO strings, epoch seconds), a filter
//     value that is not a string, or a cursor replayed under other filters or another time
//     range: 400;
//   - the logs under /api/v3 (only /api/v3.1 serves them): 404;
//   - an execute body with a key the API does not know, or arguments the tool does not have
//     (GMAIL_FETCH_EMAILS with bogus_arg): 400;
//   - a session's proxy_execute without toolkit_slug (the field @composio/core sends): 400.

// strict reports whether the sandbox refuses what the real API refuses.
func (s *Server) strict() bool { return !s.cfg.Lenient }

// bothKeys refuses a request carrying both key headers, as the real API does; it reports
// whether it answered.
func (s *Server) bothKeys(w http.ResponseWriter, r *http.Request) bool {
	if !s.strict() || r.Header.Get("x-api-key") == "" || r.Header.Get("x-user-api-key") == "" {
		return false
	}
	s.writeError(w, r, http.StatusUnauthorized, 1401, "Auth_MultipleModes", "Multiple authentication modes were provided",
		"Send either x-api-key (a project key) or x-user-api-key (a user key), not both.")
	return true
}

// unknownKeys lists the keys of a JSON object body that are not among known, sorted.
func unknownKeys(body []byte, known ...string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	var out []string
	for k := range m {
		if !slices.Contains(known, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// logsBodyKeys are the keys of a logs search body.
var logsBodyKeys = []string{"limit", "cursor", "time_range", "filters"}

// executeBodyKeys are the keys of POST /tools/execute/{slug} (Composio's OpenAPI).
var executeBodyKeys = []string{"connected_account_id", "entity_id", "user_id", "version", "custom_auth_params",
	"custom_connection_data", "arguments", "text", "allow_tracing"}

// sessionExecuteKeys and sessionProxyKeys are the keys of a session's execute and proxy_execute
// (@composio/client's types).
var (
	sessionExecuteKeys = []string{
		"tool_slug",
		"arguments",
		"account",
		"enable_auto_workbench_offload",
		"experimental",
		"request_state",
		"input_responses",
	}
	sessionProxyKeys = []string{"toolkit_slug", "endpoint", "method", "body", "binary_body", "parameters", "custom_connection_data"}
)

// minEpochMillis is the smallest time_range value read as epoch milliseconds: anything smaller
// is 1973 or earlier in milliseconds, and far more likely epoch seconds.
const minEpochMillis = 1e11

// strictTimeRange checks a time_range: both from and to, each a JSON number of epoch
// milliseconds. It returns the problems.
func strictTimeRange(tr *timeRange) []string {
	if tr == nil {
		return nil
	}
	var out []string
	for _, x := range []struct {
		raw  json.RawMessage
		name string
	}{{tr.From, "from"}, {tr.To, "to"}} {
		raw := bytes.TrimSpace(x.raw)
		var n float64
		switch {
		case len(raw) == 0 || string(raw) == "null":
			out = append(out, "time_range."+x.name+": required (both from and to, in epoch milliseconds)")
		case raw[0] == '"':
			out = append(out, "time_range."+x.name+": must be a number of epoch milliseconds, not a string")
		case json.Unmarshal(raw, &n) != nil:
			out = append(out, "time_range."+x.name+": must be a number of epoch milliseconds")
		case n < minEpochMillis:
			out = append(out, fmt.Sprintf("time_range.%s: %v is not epoch milliseconds (epoch seconds?)", x.name, n))
		}
	}
	return out
}

// strictFilterValues refuses filter values that are not JSON strings.
func strictFilterValues(fs []logFilterWire) []string {
	var out []string
	for i, f := range fs {
		if v := bytes.TrimSpace(f.Value); len(v) == 0 || v[0] != '"' {
			out = append(out, fmt.Sprintf("filters[%d].value: must be a string", i))
		}
	}
	return out
}

// queryKey is what a cursor is bound to: the filters and the time range of the search that
// issued it. The docs say to keep them for every page; a cursor replayed under others is
// refused.
func queryKey(req *logsRequest) string {
	h := sha256.New()
	b, _ := json.Marshal(struct {
		F []logFilterWire `json:"f"`
		T *timeRange      `json:"t"`
	}{req.Filters, req.TimeRange})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// unknownArguments lists the argument names a tool does not have, sorted.
func (t *toolDef) unknownArguments(args map[string]any) []string {
	var out []string
	for k := range args {
		known := false
		for _, p := range t.params {
			known = known || p.name == k
		}
		if !known {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// refuseUnknownArguments answers 400 for arguments the tool does not have; it reports whether
// it answered.
func (s *Server) refuseUnknownArguments(w http.ResponseWriter, r *http.Request, t *toolDef, args map[string]any) bool {
	if !s.strict() {
		return false
	}
	bad := t.unknownArguments(args)
	if len(bad) == 0 {
		return false
	}
	var names []string
	for _, p := range t.params {
		names = append(names, p.name)
	}
	s.writeError(w, r, http.StatusBadRequest, 1400, "ToolExecute_InvalidArguments",
		fmt.Sprintf("%s does not take %s", t.slug, strings.Join(bad, ", ")),
		"Use the tool's input parameters: "+strings.Join(names, ", ")+".", bad...)
	return true
}

// refuseUnknownKeys answers 400 for body keys the endpoint does not know; it reports whether
// it answered.
func (s *Server) refuseUnknownKeys(w http.ResponseWriter, r *http.Request, body []byte, known ...string) bool {
	if !s.strict() {
		return false
	}
	bad := unknownKeys(body, known...)
	if len(bad) == 0 {
		return false
	}
	s.writeError(
		w,
		r,
		http.StatusBadRequest,
		1400,
		"Request_UnknownField",
		"unknown field(s) in the request body: "+strings.Join(bad, ", "),
		"Send only the documented fields: "+strings.Join(known, ", ")+".",
		bad...)
	return true
}
