package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

func sendEmail(rid string) ExecuteRequest {
	return ExecuteRequest{
		Arguments:          json.RawMessage(`{"recipient_email":"a@example.com","subject":"hi","body":"hello"}`),
		ConnectedAccountID: "ca_1",
		UserID:             "user-1",
		RequestID:          rid,
	}
}

func asWriteError(t *testing.T, err error) *WriteError {
	t.Helper()
	var we *WriteError
	if !errors.As(err, &we) {
		t.Fatalf("err = %v (%T), want a *WriteError", err, err)
	}
	return we
}

// TestWriteErrorKinds drives every way a write can end, one server behaviour each, and checks
// the kind, whether it counts as sent, and that the server saw exactly one request.
func TestWriteErrorKinds(t *testing.T) {
	release := make(chan struct{}) // lets hanging handlers finish when the test ends
	t.Cleanup(func() { close(release) })
	for _, tc := range []struct {
		name     string
		handler  func(t *testing.T, w http.ResponseWriter, r *http.Request)
		readBody bool // whether the handler gets the body already read
		args     json.RawMessage
		timeout  time.Duration // write timeout; 0 means 30 s, so only the hanging case times out
		kind     WriteErrorKind
		sent     bool
		status   int
		inMsg    string
	}{
		{
			name: "server resets while the body is still being written",
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				// Headers read, body not. Nobody reads, so the client's write of the 8 MiB body
				// stalls once the socket buffers (4 MiB at most here, as Linux only grows a
				// receive buffer when the application reads) are full; then reset. The request
				// can never have fully left, whatever the timing.
				resetConnectionAfter(t, w, 50*time.Millisecond)
			},
			args: json.RawMessage(`{"blob":"` + strings.Repeat("x", 8<<20) + `"}`),
			kind: WriteNotSent, sent: false, inMsg: "request not sent",
		},
		{
			name: "server closes after the headers of a small request",
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				dropConnection(t, w) // the whole request was already written: the server had it
			},
			kind: WriteAmbiguous, sent: true, inMsg: "connection lost before an answer",
		},
		{
			name:     "server reads the body then hangs past the timeout",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-release:
				}
			},
			timeout: 200 * time.Millisecond,
			kind:    WriteAmbiguous, sent: true, inMsg: "request sent, no answer within 200ms: the action may have happened; check before retrying",
		},
		{
			name:     "server reads the body then closes the connection",
			readBody: true,
			handler:  func(t *testing.T, w http.ResponseWriter, r *http.Request) { dropConnection(t, w) },
			kind:     WriteAmbiguous, sent: true, inMsg: "connection lost",
		},
		{
			name:     "429",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("retry-after", "0.01") // must not tempt a retry
				writeJSON(w, 429, `{"error":{"message":"Rate limit exceeded","status":429}}`)
			},
			kind: WriteRejected, sent: true, status: 429, inMsg: "most likely did not happen",
		},
		{
			name:     "500",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 500, `{"error":{"message":"Internal error","code":1500,"request_id":"srv-1"}}`)
			},
			kind: WriteAmbiguous, sent: true, status: 500, inMsg: "Internal error",
		},
		{
			name:     "502 with an HTML page",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				io.WriteString(w, "<html><body>Bad Gateway</body></html>")
			},
			kind: WriteAmbiguous, sent: true, status: 502, inMsg: "non-JSON body: text/html",
		},
		{
			name:     "503 with x-should-retry true is still sent once",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("x-should-retry", "true")
				writeJSON(w, 503, `{}`)
			},
			kind: WriteAmbiguous, sent: true, status: 503, inMsg: "may have happened",
		},
		{
			name:     "504 from Composio",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 504, `{"error":{"message":"Gateway timeout"}}`)
			},
			kind: WriteAmbiguous, sent: true, status: 504, inMsg: "may have happened",
		},
		{
			name:     "303 See Other says the request was processed",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/api/v3.1/result/1", http.StatusSeeOther)
			},
			kind: WriteAmbiguous, sent: true, status: 303, inMsg: "does not prove the action did not run",
		},
		{
			name:     "409 Conflict may be with the effect itself",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 409, `{"error":{"message":"conflict"}}`)
			},
			kind: WriteAmbiguous, sent: true, status: 409, inMsg: "does not prove",
		},
		{
			name:     "408 from Composio",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 408, `{"error":{"message":"request timeout"}}`)
			},
			kind: WriteAmbiguous, sent: true, status: 408, inMsg: "does not prove",
		},
		{
			name:     "404 tool not found",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 404, `{"error":{"message":"Tool not found"}}`)
			},
			kind: WriteFailed, sent: true, status: 404, inMsg: "did not happen",
		},
		{
			name:     "400",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 400, `{"error":{"message":"Missing required argument","code":1400}}`)
			},
			kind: WriteFailed, sent: true, status: 400, inMsg: "Missing required argument",
		},
		{
			name:     "422",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 422, `{"error":{"message":"Validation failed","errors":["subject: required"]}}`)
			},
			kind: WriteFailed, sent: true, status: 422, inMsg: "subject: required",
		},
		{
			name:     "307 is not followed",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/api/v3.1/tools/execute/OTHER", http.StatusTemporaryRedirect)
			},
			kind: WriteAmbiguous, sent: true, status: 307, inMsg: "does not follow",
		},
		{
			name:     "200 that is not JSON",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 200, `<html>ok?</html>`)
			},
			kind: WriteAmbiguous, sent: true, status: 200, inMsg: "could not be read",
		},
		{
			name:     "200 without successful",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, 200, `{"data":{}}`)
			},
			kind: WriteAmbiguous, sent: true, status: 200, inMsg: `no boolean "successful"`,
		},
		{
			name:     "200 cut short",
			readBody: true,
			handler: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "500")
				w.WriteHeader(200)
				io.WriteString(w, `{"data":{"id":"m`)
				w.(http.Flusher).Flush()
				dropConnection(t, w)
			},
			kind: WriteAmbiguous, sent: true, status: 200, inMsg: "could not be read",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := &recorder{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.readBody {
					rc.add(r)
				} else {
					rc.addHeadersOnly(r)
				}
				tc.handler(t, w, r)
			}))
			t.Cleanup(srv.Close)
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 30 * time.Second
			}
			c := newTestClient(t, srv.URL, WithWriteTimeout(timeout))
			req := sendEmail("rid-" + strings.ReplaceAll(tc.name, " ", "-"))
			if tc.args != nil {
				req.Arguments = tc.args
			}
			res, err := c.WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", req)
			we := asWriteError(t, err)
			t.Log(err)
			if we.Kind != tc.kind || we.Sent != tc.sent || we.StatusCode != tc.status {
				t.Errorf("kind=%s sent=%v status=%d, want %s %v %d\n%v", we.Kind, we.Sent, we.StatusCode, tc.kind, tc.sent, tc.status, err)
			}
			if we.RequestID != req.RequestID {
				t.Errorf("RequestID = %q, want %q", we.RequestID, req.RequestID)
			}
			if !strings.Contains(err.Error(), tc.inMsg) || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q, want one line containing %q", err.Error(), tc.inMsg)
			}
			if res.Successful || res.Data != nil || res.Error != "" || res.LogID != "" {
				t.Errorf("result = %+v, want zero", res)
			}
			if got := rc.count(); got != 1 {
				t.Errorf("server saw %d requests, want exactly 1", got)
			}
			for _, r := range rc.all() {
				if r.Header.Get("x-request-id") != req.RequestID {
					t.Errorf("x-request-id = %q, want %q", r.Header.Get("x-request-id"), req.RequestID)
				}
				assertNoIdempotencyHeader(t, r.Header)
			}
			if tc.status != 0 && (we.API == nil || we.API.StatusCode != tc.status) && tc.status != 200 {
				t.Errorf("API = %+v, want the decoded error body", we.API)
			}
		})
	}
}

func assertNoIdempotencyHeader(t *testing.T, h http.Header) {
	t.Helper()
	for k := range h {
		if strings.Contains(strings.ToLower(k), "idempotency") {
			t.Errorf("request carried %s: net/http may replay such a POST", k)
		}
	}
}

func TestExecuteToolFailureReturnsResultAndError(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, `{"data":{"status":400},"error":"Invalid recipient","successful":false,"log_id":"log_x"}`)
	})
	c := newTestClient(t, srv.URL)
	res, err := c.WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("r-1"))
	we := asWriteError(t, err)
	// The client does not read the text: it is ambiguous until the rules that read logs say
	// otherwise (triage.ClassifyAnswer, in the retry protocol).
	if we.Kind != WriteAmbiguous || !we.Sent || we.ToolError != "Invalid recipient" || we.StatusCode != 200 {
		t.Errorf("write error = %+v", we)
	}
	if res.Successful || res.Error != "Invalid recipient" || res.LogID != "log_x" || string(res.Data) != `{"status":400}` {
		t.Errorf("result = %+v", res)
	}
	if !strings.Contains(err.Error(), "the tool reported failure: Invalid recipient") {
		t.Errorf("message = %q", err.Error())
	}
	if rc.count() != 1 {
		t.Errorf("requests = %d", rc.count())
	}
}

func TestExecuteSuccessSendsOneCleanPOST(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, okResultJSON)
	})
	c := newTestClient(t, srv.URL)
	res, err := c.WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("intent-42"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Successful || res.LogID != "log_abc" {
		t.Errorf("result = %+v", res)
	}
	reqs := rc.all()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/api/v3.1/tools/execute/GMAIL_SEND_EMAIL" {
		t.Errorf("request = %s %s", r.Method, r.Path)
	}
	if r.Header.Get("x-request-id") != "intent-42" || r.Header.Get("x-api-key") != testKey ||
		r.Header.Get("Content-Type") != "application/json" || r.Header.Get("x-stainless-retry-count") != "0" {
		t.Errorf("headers = %v", r.Header)
	}
	assertNoIdempotencyHeader(t, r.Header)
	want := `{"arguments":{"recipient_email":"a@example.com","subject":"hi","body":"hello"},"connected_account_id":"ca_1","user_id":"user-1","version":"latest"}`
	if string(r.Body) != want {
		t.Errorf("body = %s\nwant   %s", r.Body, want)
	}
}

func TestExecuteBody(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  ExecuteRequest
		want string
	}{
		{"no arguments sends an empty object", ExecuteRequest{}, `{"arguments":{},"version":"latest"}`},
		{"explicit version", ExecuteRequest{Version: "20250909_00", Arguments: json.RawMessage(" {\"a\": 1} ")}, `{"arguments":{"a":1},"version":"20250909_00"}`},
		{"text instead of arguments", ExecuteRequest{Text: "send hi to bob"}, `{"version":"latest","text":"send hi to bob"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := executeBody("X", tc.req)
			if err != nil || string(b) != tc.want {
				t.Errorf("body = %s, %v; want %s", b, err, tc.want)
			}
		})
	}
}

func TestInvalidWritesAreNeverSent(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, okResultJSON)
	})
	w := newTestClient(t, srv.URL).WithoutRetries()
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"arguments not an object", func() error {
			_, err := w.Execute(ctx, "X", ExecuteRequest{Arguments: json.RawMessage(`[1]`)})
			return err
		}},
		{"arguments and text", func() error {
			_, err := w.Execute(ctx, "X", ExecuteRequest{Arguments: json.RawMessage(`{}`), Text: "t"})
			return err
		}},
		{"empty slug", func() error { _, err := w.Execute(ctx, "", ExecuteRequest{}); return err }},
		{"slug proxy", func() error { _, err := w.Execute(ctx, "proxy", ExecuteRequest{}); return err }},
		{"request id with a newline", func() error {
			_, err := w.Execute(ctx, "X", ExecuteRequest{RequestID: "a\nb"})
			return err
		}},
		{"proxy method", func() error {
			_, err := w.Proxy(ctx, ProxyRequest{Endpoint: "/x", Method: "TRACE"})
			return err
		}},
		{"proxy endpoint", func() error { _, err := w.Proxy(ctx, ProxyRequest{Method: "GET"}); return err }},
		{"proxy body", func() error {
			_, err := w.Proxy(ctx, ProxyRequest{Endpoint: "/x", Method: "POST", Body: json.RawMessage(`{`)})
			return err
		}},
		{"proxy parameter type", func() error {
			_, err := w.Proxy(ctx, ProxyRequest{Endpoint: "/x", Method: "GET", Parameters: []ProxyParameter{{"a", "cookie", "b"}}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			we := asWriteError(t, tc.call())
			if we.Kind != WriteNotSent || we.Sent {
				t.Errorf("kind=%s sent=%v, want not_sent", we.Kind, we.Sent)
			}
		})
	}
	if rc.count() != 0 {
		t.Errorf("server saw %d requests, want 0", rc.count())
	}
}

func TestWriteNotSentWhenConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c := newTestClient(t, "http://"+addr)
	_, err = c.WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("rid-refused"))
	we := asWriteError(t, err)
	if we.Kind != WriteNotSent || we.Sent || we.RequestID != "rid-refused" {
		t.Errorf("write error = %+v", we)
	}
	if !strings.Contains(err.Error(), "the action did not happen; safe to retry") || strings.Contains(err.Error(), "Post \"") {
		t.Errorf("message = %q", err.Error())
	}
}

func TestWriteNotSentWhenContextAlreadyDone(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, okResultJSON)
	})
	c := newTestClient(t, srv.URL)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.WithoutRetries().Execute(ctx, "GMAIL_SEND_EMAIL", sendEmail("r"))
	we := asWriteError(t, err)
	if we.Kind != WriteNotSent || we.Sent || !errors.Is(err, context.Canceled) {
		t.Errorf("write error = %+v (%v)", we, err)
	}
	if rc.count() != 0 {
		t.Errorf("server saw %d requests", rc.count())
	}
}

// endsOnSignal is a context that ends, with err, when end is closed: a deadline or a
// cancellation at an exact point of the test rather than after a guessed delay.
type endsOnSignal struct {
	context.Context
	end chan struct{}
	err error
}

func (c endsOnSignal) Done() <-chan struct{} { return c.end }
func (c endsOnSignal) Err() error {
	select {
	case <-c.end:
		return c.err
	default:
		return nil
	}
}

func TestWriteAmbiguousWhenCallerGivesUpAfterSending(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.Canceled, "request sent, then canceled before an answer"},
		{context.DeadlineExceeded, "request sent, the caller's deadline passed before an answer"},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			ctx := endsOnSignal{Context: t.Context(), end: make(chan struct{}), err: tc.err}
			srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
				close(ctx.end) // the caller gives up once the server holds the whole request
				<-r.Context().Done()
			})
			c := newTestClient(t, srv.URL)
			_, err := c.WithoutRetries().Execute(ctx, "GMAIL_SEND_EMAIL", sendEmail("r"))
			we := asWriteError(t, err)
			if we.Kind != WriteAmbiguous || !we.Sent || !errors.Is(err, tc.err) {
				t.Errorf("write error = %+v (%v)", we, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("message %q, want %q", err.Error(), tc.want)
			}
			if rc.count() != 1 {
				t.Errorf("server saw %d requests", rc.count())
			}
		})
	}
}

func TestExecuteDrawsRequestIDWhenEmpty(t *testing.T) {
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 500, `{}`)
	})
	c := newTestClient(t, srv.URL)
	_, err := c.WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail(""))
	we := asWriteError(t, err)
	sent := rc.all()[0].Header.Get("x-request-id")
	if _, perr := uuid.Parse(sent); perr != nil {
		t.Fatalf("x-request-id %q is not a UUID", sent)
	}
	if we.RequestID != sent || !strings.Contains(err.Error(), sent) {
		t.Errorf("error reports request id %q (%q), server saw %q", we.RequestID, err.Error(), sent)
	}
}

func TestWithoutRetriesIsBuiltOnce(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:1")
	var wg sync.WaitGroup
	got := make([]*WriteClient, 8)
	for i := range got {
		wg.Go(func() { got[i] = c.WithoutRetries() })
	}
	wg.Wait()
	for _, w := range got {
		if w != got[0] || w == nil {
			t.Fatal("WithoutRetries returned different clients")
		}
	}
	tr, ok := got[0].t.hc.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("write transport is %T", got[0].t.hc.Transport)
	}
	if !tr.DisableKeepAlives || tr.Protocols == nil || tr.Protocols.HTTP2() || tr.ForceAttemptHTTP2 {
		t.Errorf("write transport: keep-alives off=%v, protocols=%v", tr.DisableKeepAlives, tr.Protocols)
	}
	if tr == c.t.hc.Transport {
		t.Error("the write client shares the read transport")
	}
	if got[0].t.cfg.maxRetries != 0 || c.t.cfg.maxRetries != DefaultMaxRetries {
		t.Errorf("retries: write %d, read %d", got[0].t.cfg.maxRetries, c.t.cfg.maxRetries)
	}
}

// TestWriteUsesHTTP1EvenWhenServerOffersHTTP2: HTTP/2 multiplexes requests over one reused
// connection, so the write path must not use it even where reads do.
func TestWriteUsesHTTP1EvenWhenServerOffersHTTP2(t *testing.T) {
	var protos sync.Map
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos.Store(r.URL.Path, r.ProtoMajor)
		if r.Method == http.MethodPost {
			writeJSON(w, 200, okResultJSON)
			return
		}
		writeJSON(w, 200, toolJSON)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, WithHTTPClient(srv.Client()))
	if _, err := c.GetTool(t.Context(), "GMAIL_FETCH_EMAILS"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("r")); err != nil {
		t.Fatal(err)
	}
	read, _ := protos.Load("/api/v3.1/tools/GMAIL_FETCH_EMAILS")
	write, _ := protos.Load("/api/v3.1/tools/execute/GMAIL_SEND_EMAIL")
	if read != 2 || write != 1 {
		t.Errorf("read over HTTP/%v, write over HTTP/%v; want 2 and 1", read, write)
	}
}

// keepAliveKiller answers the first request normally (so a keep-alive client would keep the
// connection for the next one), reads the whole second request and then closes its
// connection without an answer, and answers anything after that normally.
func keepAliveKiller(t *testing.T) (*httptest.Server, *recorder) {
	return serve(t, func(w http.ResponseWriter, r *http.Request, n int, _ recorded) {
		if n == 2 {
			dropConnection(t, w)
			return
		}
		writeJSON(w, 200, okResultJSON)
	})
}

// TestWriteNeverResentOnReusedConnection is the keep-alive test: the write client's second
// POST meets a server that closes the connection after reading it. Had the connection been a
// reused keep-alive one, net/http could have replayed the POST on a new connection. Exactly one
// POST must arrive for the second call, on a new connection.
func TestWriteNeverResentOnReusedConnection(t *testing.T) {
	srv, rc := keepAliveKiller(t)
	w := newTestClient(t, srv.URL).WithoutRetries()
	if _, err := w.Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("first")); err != nil {
		t.Fatalf("first execute: %v", err)
	}
	_, err := w.Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("second"))
	we := asWriteError(t, err)
	if we.Kind != WriteAmbiguous || !we.Sent {
		t.Errorf("second execute: %+v", we)
	}
	reqs := rc.all()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d POSTs, want 2 (one per call, none replayed)", len(reqs))
	}
	if reqs[0].RemoteAddr == reqs[1].RemoteAddr {
		t.Error("the second POST reused the first one's connection")
	}
	for _, r := range reqs {
		assertNoIdempotencyHeader(t, r.Header)
	}
}

// TestControlKeepAliveClientReplaysIdempotentPOST shows the keep-alive test can fail: against
// the same server, a plain net/http client with keep-alives re-sends a POST that carries an
// Idempotency-Key (the second call reaches the server twice), and does not without one.
func TestControlKeepAliveClientReplaysIdempotentPOST(t *testing.T) {
	for _, tc := range []struct {
		idempotencyKey bool
		want           int
	}{
		{true, 3},  // first call, second call, replay of the second call
		{false, 2}, // a POST without the header is not replayable
	} {
		t.Run(map[bool]string{true: "with Idempotency-Key", false: "without"}[tc.idempotencyKey], func(t *testing.T) {
			srv, rc := keepAliveKiller(t)
			hc := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(hc.CloseIdleConnections)
			post := func() error {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/api/v3.1/tools/execute/X", bytes.NewReader([]byte(`{}`)))
				if tc.idempotencyKey {
					req.Header.Set("Idempotency-Key", "k1")
				}
				res, err := hc.Do(req)
				if err != nil {
					return err
				}
				io.Copy(io.Discard, res.Body)
				return res.Body.Close()
			}
			if err := post(); err != nil {
				t.Fatal(err)
			}
			err := post()
			if got := rc.count(); got != tc.want {
				t.Fatalf("server saw %d POSTs, want %d (second call err: %v)", got, tc.want, err)
			}
			if reqs := rc.all(); reqs[0].RemoteAddr != reqs[1].RemoteAddr {
				t.Fatal("control did not reuse the connection; the test proves nothing")
			}
			if tc.idempotencyKey && err != nil {
				t.Errorf("the replay should have succeeded: %v", err)
			}
		})
	}
}

func TestProxy(t *testing.T) {
	var upstream atomic.Int32
	upstream.Store(201)
	srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) {
		writeJSON(w, 200, `{"status":`+strconv.Itoa(int(upstream.Load()))+`,"data":{"id":"i1"},"headers":{"content-type":"application/json","x-n":5}}`)
	})
	w := newTestClient(t, srv.URL).WithoutRetries()
	req := ProxyRequest{
		Endpoint: "/repos/o/r/issues?token=abc", Method: "post", Body: json.RawMessage(`{"title":"t"}`),
		ConnectedAccountID: "ca_1", Parameters: []ProxyParameter{{Name: "Accept", Type: "Header", Value: "application/json"}},
		RequestID: "px-1",
	}
	res, err := w.Proxy(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 201 || string(res.Data) != `{"id":"i1"}` || res.Headers["content-type"] != "application/json" || res.Headers["x-n"] != "5" {
		t.Errorf("response = %+v", res)
	}
	r := rc.all()[0]
	want := `{"endpoint":"/repos/o/r/issues?token=abc","method":"POST","body":{"title":"t"},"connected_account_id":"ca_1","parameters":[{"name":"Accept","type":"header","value":"application/json"}]}`
	if r.Path != "/api/v3.1/tools/execute/proxy" || string(r.Body) != want || r.Header.Get("x-request-id") != "px-1" {
		t.Errorf("request %s %s", r.Path, r.Body)
	}

	for _, tc := range []struct {
		status int32
		kind   WriteErrorKind
	}{{502, WriteAmbiguous}, {500, WriteAmbiguous}, {504, WriteAmbiguous}, {409, WriteAmbiguous},
		{429, WriteRejected}, {404, WriteFailed}, {422, WriteFailed}} {
		upstream.Store(tc.status)
		res, err := w.Proxy(t.Context(), req)
		we := asWriteError(t, err)
		if we.Kind != tc.kind || res.Status != int(tc.status) {
			t.Errorf("upstream %d: kind %s, response status %d", tc.status, we.Kind, res.Status)
		}
		if strings.Contains(err.Error(), "token=abc") {
			t.Errorf("message shows the endpoint's query: %q", err.Error())
		}
	}
}

// TestExecuteAnswerThatRanNothing: an answer whose result_type says the tool did not
// run (input_required, with the approval's input_requests and request_state, or blocked) is a
// definite failure the client names, its fields kept; a successful:false without one stays
// ambiguous (TestExecuteToolFailureReturnsResultAndError).
func TestExecuteAnswerThatRanNothing(t *testing.T) {
	for _, tt := range []struct{ body, says, state string }{
		{`{"data":{},"error":"Approval required","successful":false,"log_id":"log_a","result_type":"input_required","input_requests":[{"id":"ir_1","type":"approval"}],"request_state":"rs_1"}`,
			"waits for a person's approval (request_state rs_1)", "rs_1"},
		{`{"data":{},"error":"Input required","successful":false,"log_id":"log_b","result_type":"input_required"}`, "an account to connect", ""},
		{`{"data":{},"error":null,"successful":false,"log_id":"log_c","result_type":"blocked"}`, "before_execute hook", ""},
	} {
		srv, rc := serve(t, func(w http.ResponseWriter, r *http.Request, _ int, _ recorded) { writeJSON(w, 200, tt.body) })
		res, err := newTestClient(t, srv.URL).WithoutRetries().Execute(t.Context(), "GMAIL_SEND_EMAIL", sendEmail("r-1"))
		we := asWriteError(t, err)
		if we.Kind != WriteFailed || !we.Sent || !strings.Contains(err.Error(), tt.says) || rc.count() != 1 {
			t.Errorf("%s: %+v %q (%d requests)", tt.body, we, err, rc.count())
		}
		if res.RequestState != tt.state || tt.state != "" && !strings.Contains(string(res.InputRequests), "ir_1") {
			t.Errorf("%s: result %+v", tt.body, res)
		}
	}
}
