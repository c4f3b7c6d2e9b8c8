package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

func TestAPIErrorDecoding(t *testing.T) {
	tr := &transport{cfg: config{apiKey: func() string { return testKey }}}
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		header      string // x-request-id response header
		body        string
		want        APIError
		wantDetails []string
		wantText    string // the whole Error()
	}{
		{
			name: "full body", status: 404, contentType: "application/json",
			body:        `{"error":{"message":"Tool not found","code":1404,"slug":"ToolNotFound","status":404,"request_id":"req_9","suggested_fix":"Check the slug","errors":["a","b"]}}`,
			want:        APIError{StatusCode: 404, Code: "1404", Slug: "ToolNotFound", Message: "Tool not found", RequestID: "req_9", SuggestedFix: "Check the slug"},
			wantDetails: []string{"a", "b"},
			wantText:    "HTTP 404: Tool not found (a; b) [ToolNotFound, code 1404]; suggested fix: Check the slug; request id req_9",
		},
		{
			name: "code as string, request id from header", status: 400, header: "hdr-1",
			body:     `{"error":{"message":"Bad","code":"E42"}}`,
			want:     APIError{StatusCode: 400, Code: "E42", Message: "Bad", RequestID: "hdr-1"},
			wantText: "HTTP 400: Bad [code E42]; request id hdr-1",
		},
		{
			name: "empty error object", status: 400,
			body:     `{"error":{}}`,
			want:     APIError{StatusCode: 400, Message: "HTTP 400 (JSON body without an error message)"},
			wantText: "HTTP 400 (JSON body without an error message)",
		},
		{
			name: "error as a string", status: 401,
			body: `{"error":"Invalid API key"}`,
			want: APIError{StatusCode: 401, Message: "Invalid API key"},
		},
		{
			name: "top-level message", status: 403,
			body: `{"message":"Forbidden here","status":403}`,
			want: APIError{StatusCode: 403, Message: "Forbidden here"},
		},
		{
			name: "odd types", status: 422,
			body:        `{"error":{"message":["x"],"detail":"use this","code":{"a":1},"request_id":5,"errors":[{"message":"to: required"},7,null]}}`,
			want:        APIError{StatusCode: 422, Message: "use this", RequestID: "5"},
			wantDetails: []string{"to: required", "7"},
		},
		{
			name: "HTML page", status: 500, contentType: "text/html; charset=utf-8",
			body:     "<!DOCTYPE html><html><body><h1>500 Internal Server Error</h1></body></html>",
			want:     APIError{StatusCode: 500, Message: "HTTP 500 (non-JSON body: text/html)"},
			wantText: "HTTP 500 (non-JSON body: text/html)",
		},
		{
			name: "HTML without a content type", status: 502,
			body: "<html><body>Bad Gateway</body></html>",
			want: APIError{StatusCode: 502, Message: "HTTP 502 (non-JSON body: text/html)"},
		},
		{
			name: "JSON content type but not JSON", status: 503, contentType: "application/json",
			body: "upstream connect error",
			want: APIError{StatusCode: 503, Message: "HTTP 503 (non-JSON body: application/json)"},
		},
		{
			name: "empty body", status: 502,
			want:     APIError{StatusCode: 502, Message: "HTTP 502 (empty body)"},
			wantText: "HTTP 502 (empty body)",
		},
		{
			name: "JSON array", status: 500,
			body: `["x"]`,
			want: APIError{StatusCode: 500, Message: "HTTP 500 (JSON body is not an object)"},
		},
		{
			name: "multi-line message is one line", status: 400,
			body:     `{"error":{"message":"line one\n  line two\ttab"}}`,
			want:     APIError{StatusCode: 400, Message: "line one line two tab"},
			wantText: "HTTP 400: line one line two tab",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.contentType != "" {
				h.Set("Content-Type", tc.contentType)
			}
			if tc.header != "" {
				h.Set("x-request-id", tc.header)
			}
			got := tr.apiError(&response{status: tc.status, header: h, body: []byte(tc.body)}, nil)
			fields := [...]any{got.StatusCode, got.Code, got.Slug, got.Message, got.RequestID, got.SuggestedFix}
			want := [...]any{tc.want.StatusCode, tc.want.Code, tc.want.Slug, tc.want.Message, tc.want.RequestID, tc.want.SuggestedFix}
			if fields != want {
				t.Errorf("got  %q\nwant %q", fields, want)
			}
			if !slices.Equal(got.details, tc.wantDetails) {
				t.Errorf("details = %q, want %q", got.details, tc.wantDetails)
			}
			if tc.wantText != "" && got.Error() != tc.wantText {
				t.Errorf("Error() = %q\nwant      %q", got.Error(), tc.wantText)
			}
		})
	}
}

func TestAPIErrorFromServerIsTyped(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 404, `{"error":{"message":"Log not found","slug":"LogNotFound","status":404}}`)
	})
	c := newTestClient(t, srv.URL)
	_, err := c.GetLog(t.Context(), "log_x")
	var api *APIError
	if !errors.As(err, &api) || api.StatusCode != 404 || api.Slug != "LogNotFound" {
		t.Fatalf("err = %v, want *APIError 404", err)
	}
	if !strings.HasPrefix(err.Error(), "get log log_x: HTTP 404: Log not found") {
		t.Errorf("message = %q", err.Error())
	}
}

// TestAPIKeyNeverAppears: a server that echoes the key back in every field it can, and
// requests whose URL carries it, must not get it into any error text or printed client.
func TestAPIKeyNeverAppears(t *testing.T) {
	leaky := fmt.Sprintf(`{"error":{"message":"invalid key %[1]s","slug":"%[1]s","code":"%[1]s","request_id":"%[1]s","suggested_fix":"rotate %[1]s","errors":["%[1]s"]}}`, testKey)
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		w.Header().Set("x-request-id", testKey)
		switch {
		case strings.HasSuffix(r.URL.Path, "/html"):
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			io.WriteString(w, "<html>"+testKey+"</html>")
		case strings.HasSuffix(r.URL.Path, "/tool-fails"):
			writeJSON(w, 200, `{"data":null,"error":"auth failed for `+testKey+`","successful":false}`)
		case strings.HasSuffix(r.URL.Path, "/proxy"):
			writeJSON(w, 200, `{"status":401,"data":{"echo":"`+testKey+`"}}`)
		case strings.HasSuffix(r.URL.Path, "/server-error"):
			writeJSON(w, 500, leaky)
		default:
			writeJSON(w, 401, leaky)
		}
	})
	c := newTestClient(t, srv.URL, WithMaxRetries(0))
	w := c.WithoutRetries()
	ctx := t.Context()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + ln.Addr().String()
	ln.Close()
	dead := newTestClient(t, refused, WithMaxRetries(0))

	var texts []string
	add := func(err error) {
		if err == nil {
			t.Error("want an error")
			return
		}
		texts = append(texts, err.Error())
		var api *APIError
		if errors.As(err, &api) {
			texts = append(texts, api.Error(), api.Message, api.Code, api.Slug, api.RequestID, api.SuggestedFix)
		}
		var we *WriteError
		if errors.As(err, &we) {
			texts = append(texts, we.ToolError)
			if we.Err != nil {
				texts = append(texts, we.Err.Error())
			}
		}
	}
	_, err := c.GetTool(ctx, "X")
	add(err)
	_, err = c.GetTool(ctx, "html")
	add(err)
	_, err = c.RunReadTool(ctx, model.ToolCall{Slug: "tool-fails"})
	add(err)
	_, err = w.Execute(ctx, "X", ExecuteRequest{})
	add(err)
	_, err = w.Execute(ctx, "server-error", ExecuteRequest{})
	add(err)
	_, err = w.Execute(ctx, "tool-fails", ExecuteRequest{})
	add(err)
	_, err = w.Proxy(ctx, ProxyRequest{Endpoint: "/" + testKey, Method: "GET"})
	add(err)
	_, err = dead.GetTool(ctx, testKey) // the URL, hence net/http's error, carries the key
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("redaction lost the error chain: %v", err)
	}
	add(err)
	_, err = dead.WithoutRetries().Execute(ctx, testKey, ExecuteRequest{})
	add(err)
	_, err = New(WithAPIKey(testKey), WithBaseURL("ftp://x"))
	add(err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		texts = append(texts, fmt.Sprintf(verb, c), fmt.Sprintf(verb, w), fmt.Sprintf(verb, c.t), fmt.Sprintf(verb, w.t))
	}
	for _, s := range texts {
		if strings.Contains(s, testKey) {
			t.Errorf("the API key leaked: %q", s)
		}
	}
	if !strings.Contains(c.String(), "[redacted]") {
		t.Errorf("String() = %q", c.String())
	}
}

func TestNewValidatesOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"no key", nil},
		{"blank key", []Option{WithAPIKey("  ")}},
		{"scheme", []Option{WithAPIKey("k"), WithBaseURL("ftp://host")}},
		{"no host", []Option{WithAPIKey("k"), WithBaseURL("http://")}},
		{"query", []Option{WithAPIKey("k"), WithBaseURL("http://h/?a=b")}},
		{"retries", []Option{WithAPIKey("k"), WithMaxRetries(-1)}},
		{"backoff zero", []Option{WithAPIKey("k"), WithBackoff(0, time.Second)}},
		{"backoff inverted", []Option{WithAPIKey("k"), WithBackoff(2*time.Second, time.Second)}},
		{"read timeout", []Option{WithAPIKey("k"), WithReadTimeout(0)}},
		{"write timeout", []Option{WithAPIKey("k"), WithWriteTimeout(-time.Second)}},
		{"body limit", []Option{WithAPIKey("k"), WithMaxResponseBytes(0)}},
		{"nil http client", []Option{WithAPIKey("k"), WithHTTPClient(nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c, err := New(tc.opts...); err == nil {
				t.Errorf("New succeeded: %v", c)
			}
		})
	}
	c, err := New(WithAPIKey("k"))
	if err != nil || c.t.cfg.baseURL != DefaultBaseURL || c.t.cfg.readTimeout != 60*time.Second ||
		c.t.cfg.writeTimeout != 10*time.Minute || c.t.cfg.maxRetries != 2 || c.t.cfg.maxResponseBytes != 64<<20 {
		t.Errorf("defaults: %+v, %v", c.t.cfg, err)
	}
}

func TestBaseURLPathPrefixAndUserAgent(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, toolJSON)
	})
	c := newTestClient(t, srv.URL+"/gateway/", WithUserAgent("exectriage-test/1"))
	if _, err := c.GetTool(t.Context(), "GMAIL_FETCH_EMAILS"); err != nil {
		t.Fatal(err)
	}
	r := rc.all()[0]
	if r.Path != "/gateway/api/v3.1/tools/GMAIL_FETCH_EMAILS" || r.Header.Get("User-Agent") != "exectriage-test/1" || r.Header.Get("Accept") != "application/json" {
		t.Errorf("request %s, headers %v", r.Path, r.Header)
	}
}

func TestWriteErrorMessageWhenBuiltByHand(t *testing.T) {
	for kind, want := range map[WriteErrorKind]string{
		WriteNotSent:   "safe to retry",
		WriteAmbiguous: "may have happened",
		WriteRejected:  "most likely did not happen",
		WriteFailed:    "did not happen",
	} {
		if got := (&WriteError{Kind: kind}).Error(); !strings.Contains(got, want) {
			t.Errorf("%s: %q", kind, got)
		}
	}
	inner := errors.New("cause")
	if !errors.Is(&WriteError{Kind: WriteAmbiguous, Err: inner}, inner) {
		t.Error("Unwrap lost the cause")
	}
}
