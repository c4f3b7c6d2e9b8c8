// Package hostile is a kit of loopback servers that behave as the real platform, a proxy or an
// attacker might, and not as our sandbox does: a server that redirects every request to another
// host, one that answers writes with HTTP 200 and successful:false while the effect happens,
// one that answers 504, one that ignores log filters, one whose cursors never end. Each counts
// what it received, so a test can assert what exectriage really sent. Only tests import it.
package hostile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Recorder is a loopback server that records the requests it got.
type Recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// Request is what a Recorder saw of one request.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Requests returns a copy of what the server got so far.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

// SawHeader reports whether any request carried header name with value v ("" matches any
// non-empty value).
func (r *Recorder) SawHeader(name, v string) bool {
	for _, q := range r.Requests() {
		if got := q.Header.Get(name); got != "" && (v == "" || got == v) {
			return true
		}
	}
	return false
}

// Count is how many requests matched method and a path suffix.
func (r *Recorder) Count(method, pathSuffix string) int {
	n := 0
	for _, q := range r.Requests() {
		if q.Method == method && strings.HasSuffix(q.Path, pathSuffix) {
			n++
		}
	}
	return n
}

// Serve starts a Recorder on loopback that answers with h; it stops when the test ends.
func Serve(t testing.TB, h http.HandlerFunc) *Recorder {
	t.Helper()
	rec := &Recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, Request{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
		rec.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(body)) // the handler reads it again
		if h != nil {
			h(w, req)
		}
	}))
	t.Cleanup(rec.Close)
	return rec
}

// RedirectTo answers every request with status (307 when 0) to the same path on target: the
// server at --base-url sending the client elsewhere.
func RedirectTo(target string, status int) http.HandlerFunc {
	status = cmp.Or(status, http.StatusTemporaryRedirect)
	return func(w http.ResponseWriter, r *http.Request) {
		u := strings.TrimRight(target, "/") + r.URL.Path
		if r.URL.RawQuery != "" {
			u += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, u, status)
	}
}

// JSON answers every request with status and body.
func JSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// EndlessCursor answers every logs page with one fresh record and a fresh cursor, forever.
func EndlessCursor() http.HandlerFunc {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(
			w,
			`{"logs":[{"id":"log_endless_%d","timestamp":"2026-03-01T10:00:00Z","status":"success","metadata":{"tool_slug":"GMAIL_FETCH_EMAILS"}}],"next_cursor":"c%d"}`,
			k,
			k,
		)
	}
}

// IgnoredFilters answers every logs search with the same records, whatever the filters: a
// server (or a proxy) that drops the request body's filters.
func IgnoredFilters(records ...map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/logs/tool_execution/") {
			id := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
			for _, rec := range records {
				if rec["id"] == id {
					json.NewEncoder(w).Encode(rec)
					return
				}
			}
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"message":"not found"}}`)
			return
		}
		if records == nil {
			records = []map[string]any{}
		}
		json.NewEncoder(w).Encode(map[string]any{"logs": records, "next_cursor": nil})
	}
}
