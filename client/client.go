// Package client talks to the Composio v3.1 API for exectriage. Reads (execution logs, tool
// definitions, connected accounts, and read-only tool runs for verifiers) go through *Client and
// retry the way the official Stainless-generated SDKs do, because repeating a read is harmless.
// Writes (tools/execute and tools/execute/proxy) exist only on the *WriteClient returned by
// (*Client).WithoutRetries: exactly one attempt on a connection that is never reused, no
// idempotency header that would let net/http replay it, a caller-chosen x-request-id, and a
// *WriteError that says whether the request left the machine and what that means for the action.
package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults, mirroring the official SDKs where they have an equivalent.
const (
	DefaultBaseURL          = "https://backend.composio.dev"
	DefaultMaxRetries       = 2 // three attempts in all
	DefaultInitialBackoff   = 500 * time.Millisecond
	DefaultMaxBackoff       = 8 * time.Second
	DefaultReadTimeout      = 60 * time.Second
	DefaultWriteTimeout     = 10 * time.Minute // real sends can take 200-600 s
	DefaultMaxResponseBytes = 64 << 20
	DefaultUserAgent        = "exectriage"

	// apiPrefix is prepended to every endpoint path.
	apiPrefix = "/api/v3.1"
)

// config is everything the options set. A WriteClient gets a copy, never a shared pointer.
type config struct {
	// apiKey returns the key. A closure rather than a string because fmt prints a func as an
	// address under every verb, so no way of printing the client's internals shows the key.
	apiKey           func() string
	baseURL          string // scheme://host[/path], no trailing slash
	httpClient       *http.Client
	maxRetries       int
	backoffInitial   time.Duration
	backoffMax       time.Duration
	readTimeout      time.Duration
	writeTimeout     time.Duration
	userAgent        string
	maxResponseBytes int64
	maxPages         int
	// userKey sends the key as x-user-api-key (a uak_ user key), with these org and project.
	userKey          bool
	orgID, projectID string
	// readOnly refuses every tool execution before it is sent (WithReadOnly); toolReads lets
	// the read tools of provider checks through.
	readOnly, toolReads bool
	// rateNotice is told of every wait for the rate limit (WithRateNotice).
	rateNotice func(RateWait)
	// edgeFirst and edgeTotal bound the waits for a 429 that says nothing of when to come
	// back (WithEdgeWait).
	edgeFirst, edgeTotal time.Duration
	// onRequest is told of every request sent (WithRequestNotice).
	onRequest func(status int)
}

// Option configures a Client.
type Option func(*config) error

// WithAPIKey sets the project API key sent as x-api-key. The caller reads COMPOSIO_API_KEY.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		k := strings.TrimSpace(key)
		c.apiKey = func() string { return k }
		return nil
	}
}

// WithBaseURL sets the server, e.g. https://backend.composio.dev or a sandbox's URL (the
// caller reads COMPOSIO_BASE_URL). A path is kept as a prefix; /api/v3.1 is added per call.
func WithBaseURL(raw string) Option {
	return func(c *config) error {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			return fmt.Errorf("base URL: %w", err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("base URL %q: want http(s)://host", u.Redacted())
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("base URL %q: must not carry a query or fragment", u.Redacted())
		}
		c.baseURL = strings.TrimRight(u.String(), "/")
		return nil
	}
}

// WithHTTPClient sets the HTTP client used for reads. Writes never share its connections:
// they use a clone of its transport (when it is an *http.Transport, else a fresh one) with
// keep-alives and HTTP/2 off, and never follow redirects.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("HTTP client is nil")
		}
		c.httpClient = hc
		return nil
	}
}

// WithMaxRetries sets how many times a read is retried (default 2, so 3 attempts; 0 disables).
func WithMaxRetries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("max retries %d: must be >= 0", n)
		}
		c.maxRetries = n
		return nil
	}
}

// WithBackoff sets the read retry backoff: min(initial*2^n, max) times a jitter in [0.75, 1].
// Defaults 0.5 s and 8 s, as in the SDKs.
func WithBackoff(initial, max time.Duration) Option {
	return func(c *config) error {
		if initial <= 0 || max < initial {
			return fmt.Errorf("backoff %v..%v: want 0 < initial <= max", initial, max)
		}
		c.backoffInitial, c.backoffMax = initial, max
		return nil
	}
}

// WithReadTimeout bounds each read attempt, body included (default 60 s).
func WithReadTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("read timeout %v: must be > 0", d)
		}
		c.readTimeout = d
		return nil
	}
}

// WithWriteTimeout bounds the single write attempt (default 10 min: slow tools really take
// minutes, and giving up early only turns a success into an ambiguous outcome).
func WithWriteTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("write timeout %v: must be > 0", d)
		}
		c.writeTimeout = d
		return nil
	}
}

// WithUserAPIKey sends the key as a user API key (x-user-api-key, a uak_ key such as the
// Composio CLI's login stores) instead of a project key, with the org and project it acts in
// (x-org-id, x-project-id; empty ones are not sent). A request never carries both key headers:
// the API refuses that ("Multiple authentication modes were provided").
func WithUserAPIKey(orgID, projectID string) Option {
	return func(c *config) error {
		c.userKey, c.orgID, c.projectID = true, strings.TrimSpace(orgID), strings.TrimSpace(projectID)
		return nil
	}
}

// DefaultMaxPages bounds one walk over a list (5 million logs at 100 a page): a server whose
// cursors never end would otherwise keep a load going forever.
const DefaultMaxPages = 50_000

// WithMaxPages bounds how many pages one walk over a list reads (default DefaultMaxPages).
func WithMaxPages(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("max pages %d: must be > 0", n)
		}
		c.maxPages = n
		return nil
	}
}

// ErrReadOnly is wrapped by the error of a tool execution a read-only client refused: nothing
// was sent.
var ErrReadOnly = errors.New("read-only session: no tool is run")

// WithReadOnly makes the client refuse, before any byte is sent, every tool execution: the
// writes of WithoutRetries (Execute, Proxy) always, and the read tools of provider checks
// (RunReadTool, RunReadToolOnce) unless toolReads. It is how a read-only session holds at the
// lowest layer, whatever a front does; the logs and tool definitions are still read.
func WithReadOnly(toolReads bool) Option {
	return func(c *config) error {
		c.readOnly, c.toolReads = true, toolReads
		return nil
	}
}

// WithRequestNotice calls f after each request the client sends, with the status it was
// answered (0 when no answer came): a long-running watcher counts what it asks of the API. f
// must not block.
func WithRequestNotice(f func(status int)) Option {
	return func(c *config) error {
		c.onRequest = f
		return nil
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *config) error {
		c.userAgent = ua
		return nil
	}
}

// WithMaxResponseBytes caps how much of a response body is read (default 64 MiB); a bigger
// body is an error rather than an out-of-memory.
func WithMaxResponseBytes(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("max response bytes %d: must be > 0", n)
		}
		c.maxResponseBytes = n
		return nil
	}
}

// Client reads from the Composio API, retrying like the official SDKs. It is safe for
// concurrent use. Writes go through WithoutRetries.
type Client struct {
	t *transport

	writeOnce sync.Once
	write     *WriteClient

	// pageLimit is the largest logs page size the server accepted after refusing a larger one
	// (0: none refused yet); kept for the client's life.
	pageLimit atomic.Int64
}

// New builds a Client. An API key is required; the base URL defaults to DefaultBaseURL.
func New(opts ...Option) (*Client, error) {
	cfg := config{
		baseURL:          DefaultBaseURL,
		maxRetries:       DefaultMaxRetries,
		backoffInitial:   DefaultInitialBackoff,
		backoffMax:       DefaultMaxBackoff,
		readTimeout:      DefaultReadTimeout,
		writeTimeout:     DefaultWriteTimeout,
		userAgent:        DefaultUserAgent,
		maxResponseBytes: DefaultMaxResponseBytes,
		maxPages:         DefaultMaxPages,
		edgeFirst:        DefaultEdgeFirstWait,
		edgeTotal:        DefaultEdgeTotalWait,
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("client: %w", err)
		}
	}
	if cfg.apiKey == nil || cfg.apiKey() == "" {
		return nil, errors.New("client: no API key (set COMPOSIO_API_KEY)")
	}
	if cfg.httpClient == nil {
		cfg.httpClient = &http.Client{Transport: cloneTransport(http.DefaultTransport)}
	}
	// Reads follow no redirect either (a copy: the caller's client is left as it was).
	hc := *cfg.httpClient
	hc.CheckRedirect = noRedirects
	cfg.httpClient = &hc
	return &Client{t: &transport{cfg: cfg, hc: cfg.httpClient, gate: newRateGate()}}, nil
}

// WithoutRetries returns the sibling client for writes: built on first use and cached, the Go
// mirror of the Python SDK's without_retries. Every call on it makes exactly one attempt.
func (c *Client) WithoutRetries() *WriteClient {
	c.writeOnce.Do(func() {
		cfg := c.t.cfg // a copy: the sibling never shares mutable state with the reader
		cfg.maxRetries = 0
		tr := cloneTransport(cfg.httpClient.Transport)
		// One request per connection: net/http may silently re-send a request on a reused
		// keep-alive connection; a connection that is never reused cannot be replayed.
		tr.DisableKeepAlives = true
		tr.ForceAttemptHTTP2 = false
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		var p http.Protocols
		p.SetHTTP1(true)
		tr.Protocols = &p
		// A TLS config that offers "h2" in ALPN would let the server pick HTTP/2 (whose
		// connections are shared); offer only HTTP/1.1.
		tlsConf := tr.TLSClientConfig.Clone()
		if tlsConf == nil {
			tlsConf = &tls.Config{}
		}
		tlsConf.NextProtos = []string{"http/1.1"}
		tr.TLSClientConfig = tlsConf
		cfg.httpClient = &http.Client{Transport: tr, CheckRedirect: noRedirects}
		c.write = &WriteClient{t: &transport{cfg: cfg, hc: cfg.httpClient}}
	})
	return c.write
}

// noRedirects is the one redirect policy of reads and writes: none is followed; the 3xx
// answer itself comes back. net/http would send x-api-key to whatever host a redirect names
// (it drops only Authorization and Cookie across hosts), and a 307/308 would make it send a
// write's body again to another URL. A read answered 3xx fails with an error that says where
// it pointed; a write answered 3xx is ambiguous (nothing proves it did not run).
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// BaseURL is the API base URL the client talks to (scheme://host[/path], no trailing slash).
func (c *Client) BaseURL() string { return c.t.cfg.baseURL }

// String describes the client without its API key.
func (c *Client) String() string {
	return "client.Client{base_url: " + redactedURL(c.t.cfg.baseURL) + ", api_key: [redacted]}"
}

// Format makes every fmt verb print String, so no verb can reveal the key.
func (c *Client) Format(f fmt.State, _ rune) { io.WriteString(f, c.String()) }

// cloneTransport returns a private *http.Transport based on rt when it is one, else on the
// default transport, so closing or tuning it affects nobody else.
func cloneTransport(rt http.RoundTripper) *http.Transport {
	if t, ok := rt.(*http.Transport); ok && t != nil {
		return t.Clone()
	}
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return t.Clone()
	}
	return &http.Transport{Proxy: http.ProxyFromEnvironment, TLSHandshakeTimeout: 10 * time.Second}
}

func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return u.Redacted()
}
