package client_test

// Helpers for the fault matrix (faultmatrix_test.go): per-cell servers, the behaviours that
// mimic the sandbox's fault modes on endpoints the sandbox does not fault, the hostile answers
// (trickle, truncation, HTML, 50 MB), and the classification of what the client returned.

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// matrixKey is the key every matrix client sends; long and distinctive so a leak is obvious.
const matrixKey = "sk_live_faultMatrixK3y_9f8e7d6c5b4a_never_print"

// matrixSandboxConfig is the sandbox behind every cell. Seed, Size, Span and Now are fixed, so
// every cell's sandbox holds the same logs and accounts as the one discoverInputs reads.
func matrixSandboxConfig() sandbox.Config {
	return sandbox.Config{Seed: 42, Size: 40, Span: 24 * time.Hour, Now: time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC),
		HoldTimeout: 5 * time.Second}
}

// inputs are the ids the operations ask for.
type inputs struct {
	LogID     string // a log of the sandbox history
	AccountID string // an ACTIVE Gmail connected account
	Tool      string // the write tool Execute and the guarded retry run
	ReadTool  string // the read tool RunReadTool runs
}

// missingInputs name things the sandbox does not have, for the 404 row.
func missingInputs() inputs {
	return inputs{LogID: "log_doesNotExist0", AccountID: "ca_doesNotExist0", Tool: "NO_SUCH_TOOL", ReadTool: "NO_SUCH_READ_TOOL"}
}

// discoverInputs reads a log id and an ACTIVE Gmail account from a sandbox built with
// matrixSandboxConfig (identical in every cell).
func discoverInputs() (inputs, error) {
	sb, err := sandbox.New(matrixSandboxConfig())
	if err != nil {
		return inputs{}, err
	}
	defer sb.Close()
	in := inputs{Tool: "GMAIL_SEND_EMAIL", ReadTool: "GMAIL_FETCH_EMAILS"}
	if execs := sb.Executions(); len(execs) > 0 {
		in.LogID = execs[0].ID
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/v3.1/connected_accounts?toolkit_slugs=gmail&statuses=ACTIVE&limit=1", nil)
	req.Header.Set("x-api-key", matrixKey)
	sb.Handler().ServeHTTP(rec, req)
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || len(page.Items) == 0 {
		return inputs{}, fmt.Errorf("no active Gmail account in the sandbox: %d %s", rec.Code, rec.Body.String())
	}
	in.AccountID = page.Items[0].ID
	if in.LogID == "" {
		return inputs{}, errors.New("the sandbox history is empty")
	}
	return in, nil
}

// newTransport is a private transport like the default one but never behind a proxy from the
// environment: the matrix must reach its own loopback servers.
func newTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	return tr
}

// ---- per-cell servers ----

// cellServer is one test server: a counting front, an optional fault front, and a sandbox.
type cellServer struct {
	url     string
	sb      *sandbox.Server // nil when the row needs no sandbox
	srv     *httptest.Server
	apiReqs atomic.Int64 // HTTP requests to /api/... that reached the server
	conns   atomic.Int64 // TCP connections accepted (TLS handshakes included)
	effects int          // sandbox effects before the cell ran
}

func (s *cellServer) close() {
	if s.sb != nil {
		s.sb.Close() // releases held answers first, so the server's Close does not wait for them
	}
	if s.srv != nil {
		s.srv.Close()
	}
}

// newEffects is how many side effects the sandbox committed since the cell started.
func (s *cellServer) newEffects() int {
	if s.sb == nil {
		return 0
	}
	return len(s.sb.Effects()) - s.effects
}

// startCellServer serves sandbox (built from cfg) behind front, plain or with TLS.
func startCellServer(cfg sandbox.Config, front func(http.Handler) http.Handler, useTLS bool) (*cellServer, error) {
	sb, err := sandbox.New(cfg)
	if err != nil {
		return nil, err
	}
	cs := &cellServer{sb: sb, effects: len(sb.Effects())}
	var h http.Handler = sb.Handler()
	if front != nil {
		h = front(h)
	}
	inner := h
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			cs.apiReqs.Add(1)
		}
		inner.ServeHTTP(w, r)
	})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS handshake errors and aborted handlers are expected here
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			cs.conns.Add(1)
		}
	}
	if useTLS {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	cs.srv, cs.url = srv, srv.URL
	return cs, nil
}

// closedPort returns a loopback address nothing listens on.
func closedPort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// ---- fault behaviours ----

// isExecute reports whether r runs a tool (tools/execute/{slug} or the proxy): the requests the
// sandbox's own fault injection applies to.
func isExecute(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/tools/execute/")
}

// onReads applies fault to every request the sandbox does not fault itself and passes tool
// executions to the sandbox, whose armed fault (the same mode) answers them.
func onReads(fault func(w http.ResponseWriter, r *http.Request, next http.Handler)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isExecute(r) {
				next.ServeHTTP(w, r)
				return
			}
			fault(w, r, next)
		})
	}
}

// onAll applies fault to every request.
func onAll(fault func(w http.ResponseWriter, r *http.Request, next http.Handler)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fault(w, r, next) })
	}
}

func drain(r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// mimicSandboxFault behaves, on any endpoint, like the sandbox's fault mode on an execution
// (see the table in package sandbox's doc): the same statuses, bodies and hang-ups.
func mimicSandboxFault(mode sandbox.FaultMode, latency, hold time.Duration) func(w http.ResponseWriter, r *http.Request, next http.Handler) {
	return func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		switch mode {
		case sandbox.FaultTimeoutAfterCommit, sandbox.FaultTimeoutBeforeCommit:
			drain(r)
			t := time.NewTimer(hold)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
			}
			hangUp(w)
		case sandbox.Fault5xxAfterCommit:
			drain(r)
			composioError(w, r, http.StatusBadGateway, 1502, "ToolExecute_UpstreamError", "Upstream provider returned 502 Bad Gateway", "")
		case sandbox.Fault5xxBeforeCommit:
			drain(r)
			composioError(w, r, http.StatusServiceUnavailable, 1503, "ToolExecute_UpstreamError", "Upstream provider returned 503 Service Unavailable", "")
		case sandbox.Fault429:
			drain(r)
			w.Header().Set("Retry-After", "1")
			composioError(w, r, http.StatusTooManyRequests, 1429, "RateLimit_Exceeded", "Rate limit exceeded: too many requests, retry later",
				"Wait for retry-after seconds before trying again.")
		case sandbox.FaultDropAfterRead:
			drain(r)
			hangUp(w)
		case sandbox.FaultLatency:
			t := time.NewTimer(latency)
			defer t.Stop()
			select {
			case <-t.C:
				next.ServeHTTP(w, r)
			case <-r.Context().Done():
			}
		default:
			panic("mimicSandboxFault: unknown mode " + string(mode))
		}
	}
}

// composioError writes the documented error body.
func composioError(w http.ResponseWriter, r *http.Request, status, code int, slug, msg, fix string) {
	rid := r.Header.Get("x-request-id")
	if rid == "" {
		rid = "req_matrix_0001"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "code": code, "slug": slug, "status": status,
		"request_id": rid, "suggested_fix": fix, "errors": []string{}}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// forbiddenEchoingKey answers 403 with an error body that quotes the caller's API key back, as
// a careless proxy might: the client must not pass it on.
func forbiddenEchoingKey(w http.ResponseWriter, r *http.Request, _ http.Handler) {
	drain(r)
	key := r.Header.Get("x-api-key")
	composioError(w, r, http.StatusForbidden, 1403, "Auth_Forbidden", "API key "+key+" may not access project proj_matrix",
		"Use a key of project proj_matrix, not "+key+".")
}

// htmlServerError answers 500 with a proxy's HTML error page.
func htmlServerError(w http.ResponseWriter, r *http.Request, _ http.Handler) {
	drain(r)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>\n"+
		"<body><center><h1>500 Internal Server Error</h1></center><hr><center>nginx</center></body></html>\n")
}

// gatewayTimeout is Composio's own 504, as a load balancer in front of it answers.
func gatewayTimeout(w http.ResponseWriter, r *http.Request, _ http.Handler) {
	drain(r)
	composioError(w, r, http.StatusGatewayTimeout, 1504, "Gateway_Timeout", "Gateway timeout", "")
}

// redirectElsewhere answers 307 to another host (the key must not follow).
func redirectElsewhere(w http.ResponseWriter, r *http.Request, _ http.Handler) {
	drain(r)
	http.Redirect(w, r, "http://127.0.0.1:1"+r.URL.Path, http.StatusTemporaryRedirect)
}

// recorded runs next into a recorder: the sandbox's real answer, to be mangled.
func recorded(r *http.Request, next http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	return rec
}

// relabel serves the sandbox's answer with another Content-Type.
func relabel(contentType string) func(w http.ResponseWriter, r *http.Request, next http.Handler) {
	return func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		rec := recorded(r, next)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}
}

// truncateJSON serves the first half of the sandbox's answer as a complete HTTP message (its
// Content-Length says half): the HTTP exchange is fine, the JSON is cut.
func truncateJSON(w http.ResponseWriter, r *http.Request, next http.Handler) {
	rec := recorded(r, next)
	body := rec.Body.Bytes()
	half := body[:len(body)/2]
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(half)))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(half)
}

// cutShort announces the sandbox's whole answer, sends half of it and closes the connection.
func cutShort(w http.ResponseWriter, r *http.Request, next http.Handler) {
	rec := recorded(r, next)
	body := rec.Body.Bytes()
	conn, bw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	defer conn.Close()
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", rec.Code, http.StatusText(rec.Code), len(body))
	_, _ = bw.Write(body[:len(body)/2])
	_ = bw.Flush()
}

// trickle serves the sandbox's answer one byte every interval (headers at once), until the
// client goes away: the body takes far longer than any read timeout.
func trickle(interval time.Duration) func(w http.ResponseWriter, r *http.Request, next http.Handler) {
	return func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		rec := recorded(r, next)
		body := rec.Body.Bytes()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		t := time.NewTicker(interval)
		defer t.Stop()
		for i := range body {
			if _, err := w.Write(body[i : i+1]); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
	}
}

// hugeBodySize is the size of the oversized answers.
const hugeBodySize = 50 << 20

// huge answers 200 with 50 MB of JSON-looking bytes: announced in Content-Length, or streamed
// chunked with no length so only the read limit can stop the client.
func huge(announce bool) func(w http.ResponseWriter, r *http.Request, next http.Handler) {
	return func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		drain(r)
		w.Header().Set("Content-Type", "application/json")
		if announce {
			w.Header().Set("Content-Length", strconv.Itoa(hugeBodySize))
		}
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 64<<10)
		head := `{"logs":[{"id":"log_huge","message":"`
		_, _ = bw.WriteString(head)
		chunk := []byte(strings.Repeat("A", 64<<10))
		for written := len(head); written < hugeBodySize; written += len(chunk) {
			if r.Context().Err() != nil {
				return
			}
			n := min(len(chunk), hugeBodySize-written)
			if _, err := bw.Write(chunk[:n]); err != nil {
				return
			}
		}
		_ = bw.Flush()
	}
}

// ---- classification ----

// errKind names what the client returned: "ok"; a WriteError's kind (not_sent, ambiguous,
// rejected, failed); "http_NNN" for an *APIError; otherwise the category of a plain error.
func errKind(err error) string {
	if err == nil {
		return "ok"
	}
	var we *client.WriteError
	if errors.As(err, &we) {
		return string(we.Kind)
	}
	var ae *client.APIError
	if errors.As(err, &ae) {
		return "http_" + strconv.Itoa(ae.StatusCode)
	}
	return plainKind(err)
}

// plainKind is the category of a transport or decoding error.
func plainKind(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var authErr x509.UnknownAuthorityError
	var syn *json.SyntaxError
	var ne net.Error
	switch {
	case errors.As(err, &dnsErr):
		return "dns"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.As(err, &certErr) || errors.As(err, &authErr):
		return "tls"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timeout"
	case errors.Is(err, client.ErrBodyTooLarge):
		return "too_large"
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return "conn"
	case errors.As(err, &syn) || errors.Is(err, model.ErrNotObject) || strings.Contains(err.Error(), "JSON"):
		return "decode"
	}
	return "other"
}
