package client

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// testKey is long and distinctive so a leak is easy to spot in any text.
const testKey = "sk_test_7Qm2ZxS3cr3tK3y_do_not_print"

// newTestClient builds a client for a test server with a backoff tiny enough to keep retry
// tests fast.
func newTestClient(t *testing.T, baseURL string, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithAPIKey(testKey), WithBaseURL(baseURL), WithBackoff(time.Millisecond, 4*time.Millisecond)}, opts...)
	c, err := New(all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		c.t.hc.CloseIdleConnections()
		if c.write != nil {
			c.write.t.hc.CloseIdleConnections()
		}
	})
	return c
}

// recorded is one request as the test server saw it.
type recorded struct {
	Method, Path, RawQuery string
	EscapedPath            string
	Header                 http.Header
	Body                   []byte
	RemoteAddr             string
	At                     time.Time
}

// recorder counts and keeps the requests a test server received.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

// add reads the request body and records the request; it returns its 1-based number.
func (rc *recorder) add(r *http.Request) (int, recorded) {
	body, _ := io.ReadAll(r.Body)
	rec := recorded{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, EscapedPath: r.URL.EscapedPath(), Header: r.Header.Clone(),
		Body: body, RemoteAddr: r.RemoteAddr, At: time.Now()}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs = append(rc.reqs, rec)
	return len(rc.reqs), rec
}

// addHeadersOnly records a request without reading its body.
func (rc *recorder) addHeadersOnly(r *http.Request) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs = append(rc.reqs, recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), RemoteAddr: r.RemoteAddr, At: time.Now()})
	return len(rc.reqs)
}

func (rc *recorder) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.reqs)
}

func (rc *recorder) all() []recorded {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]recorded(nil), rc.reqs...)
}

// serve starts a loopback server whose handler gets the request number (1-based) and the
// recorded request, body already read.
func serve(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int, rec recorded)) (*httptest.Server, *recorder) {
	t.Helper()
	rc := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, rec := rc.add(r)
		h(w, r, n, rec)
	}))
	t.Cleanup(srv.Close)
	return srv, rc
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// dropConnection closes the request's connection without answering.
func dropConnection(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// resetConnectionAfter takes over the request's connection, reads nothing more for d, then
// closes it with a TCP RST (linger 0), so a client still writing gets an error at once.
func resetConnectionAfter(t *testing.T, w http.ResponseWriter, d time.Duration) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	time.Sleep(d)
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	conn.Close()
}

const toolJSON = `{"slug":"GMAIL_FETCH_EMAILS","name":"Fetch emails","description":"Fetch","toolkit":{"slug":"gmail","name":"Gmail"},"input_parameters":{"type":"object"},"output_parameters":{"type":"object"},"version":"20250909_00","tags":["readOnlyHint","openWorldHint"]}`

const okResultJSON = `{"data":{"id":"msg_1"},"error":null,"successful":true,"log_id":"log_abc"}`
