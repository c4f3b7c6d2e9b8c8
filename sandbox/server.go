package sandbox

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Server is one sandbox: the generated history, the simulated providers, the armed faults and
// the HTTP API over them. It is safe for concurrent use.
type Server struct {
	cfg     Config
	cat     *catalog
	clock   func() time.Time
	handler http.Handler

	mu        sync.Mutex
	w         *world
	logs      []*model.Execution // ascending (timestamp, id)
	byID      map[string]*model.Execution
	arrivals  int // records arrive added so far
	effects   []effectRec
	webhooks  []webhookEndpoint         // registered webhook endpoints (webhook.go)
	pending   map[string]map[string]any // history responses not yet marshalled, by log id
	truth     []TruthRecord
	faults    []FaultRule
	execCount int
	proxyN    int
	byTool    map[string]int
	sessions  map[string]*session       // tool-router sessions, by id
	approvals map[string]*approvalState // open approval requests, by request_state
	rate      *rateLimiter              // nil without Config.RateLimit
	edgeLim   *edgeLimiter              // nil without Config.EdgeLimit

	closing   chan struct{}
	closeOnce sync.Once
	held      sync.WaitGroup // requests holding their answer (timeout_* faults)

	// set by Start
	httpSrv   *http.Server
	url       string
	serveDone chan struct{}
	stopAfter func() bool
}

// New builds a sandbox: the history (Config.Size executions over Config.Span ending at
// Config.Now, deterministic for Config.Seed), the provider state it left, and the armed
// Config.Faults. Serve it with Handler, or use Start.
func New(cfg Config) (*Server, error) {
	cfg.Size = max(cmp.Or(cfg.Size, DefaultSize), 0)
	if cfg.Size > MaxSize {
		return nil, fmt.Errorf("size %d is over the maximum %d", cfg.Size, MaxSize)
	}
	cfg.Span = cmp.Or(cfg.Span, DefaultSpan)
	if cfg.Span < 0 {
		return nil, errors.New("span must be positive")
	}
	if cfg.HoldTimeout <= 0 {
		cfg.HoldTimeout = DefaultHoldTimeout
	}
	switch cfg.Cursor {
	case "":
		cfg.Cursor = CursorKeyset
	case CursorKeyset, CursorPage:
	default:
		return nil, fmt.Errorf("cursor %q: want keyset or page", cfg.Cursor)
	}
	if cfg.PageLatency < 0 {
		return nil, errors.New("page latency must not be negative")
	}
	if cfg.WebhookTimeout < 0 || cfg.RedeliveryDelay < 0 || cfg.MaxDeliveryAttempts < 0 {
		return nil, errors.New("webhook timeout, redelivery delay and delivery attempts must not be negative")
	}
	for _, r := range cfg.Faults {
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("fault %s: %w", r.ToolSlug, err)
		}
	}
	clock := time.Now
	if cfg.Now.IsZero() {
		cfg.Now = time.Now().Truncate(time.Minute)
	} else if !cfg.WallClock || cfg.Now.After(time.Now()) {
		// A fixed Now: the sandbox clock starts there and runs with real time, so live
		// executions come after the history (monotonic, immune to wall-clock jumps).
		base, started := cfg.Now, time.Now()
		clock = func() time.Time { return base.Add(time.Since(started)) }
	}
	s := &Server{
		cfg:       cfg,
		cat:       newCatalog(),
		clock:     clock,
		byTool:    map[string]int{},
		sessions:  map[string]*session{},
		approvals: map[string]*approvalState{},
		closing:   make(chan struct{}),
	}
	h := generate(s.cat, cfg.Seed, cfg.Size, cfg.Span, cfg.Now, cfg.Events)
	s.w, s.logs, s.effects, s.truth, s.pending = h.world, h.logs, h.effects, h.truth, h.pending
	s.byID = make(map[string]*model.Execution, len(s.logs))
	for _, e := range s.logs {
		s.byID[e.ID] = e
	}
	if cfg.Events {
		s.addEvents()
	}
	s.faults = append(s.faults, cfg.Faults...)
	if cfg.RateLimit < 0 || cfg.RateLimitWindow < 0 {
		return nil, errors.New("the rate limit and its window must not be negative")
	}
	s.rate = newRateLimiter(cfg.RateLimit, cfg.RateLimitWindow)
	s.edgeLim = newEdgeLimiter(cfg.EdgeLimit, cfg.EdgeWindow, cfg.EdgeBlock)
	s.handler = s.routes()
	return s, nil
}

// Handler returns the sandbox's HTTP API (/api/v3.1, /api/v3 and /_sandbox).
func (s *Server) Handler() http.Handler { return s.handler }

// Start builds a sandbox and serves it on addr ("127.0.0.1:0" picks a free port) until Close
// or until ctx is done. It returns the base URL to use as COMPOSIO_BASE_URL.
func Start(ctx context.Context, cfg Config, addr string) (*Server, string, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, "", err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s: %w", addr, err)
	}
	s.url = "http://" + ln.Addr().String()
	s.httpSrv = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.httpSrv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	s.stopAfter = context.AfterFunc(ctx, func() { _ = s.Close() })
	return s, s.url, nil
}

// Close stops serving (when started with Start), releases held requests and waits for them.
// It is safe to call more than once.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock() // holdThenAbort checks closing under mu before joining held
		close(s.closing)
		s.mu.Unlock()
		if s.stopAfter != nil {
			s.stopAfter()
		}
		if s.httpSrv != nil {
			err = s.httpSrv.Close()
			<-s.serveDone
		}
		s.held.Wait()
	})
	return err
}

// URL is the base URL given by Start ("" for a server that was not started).
func (s *Server) URL() string { return s.url }

// Effects lists every side effect the providers committed, history and live, oldest first.
func (s *Server) Effects() []Effect {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Effect, len(s.effects))
	volatile := model.DefaultVolatileKeys()
	for i := range s.effects {
		r := &s.effects[i]
		if r.ArgumentHash == "" && r.args != nil { // hashed on first use: generation stays fast
			r.ArgumentHash, r.args = model.ArgumentHash(r.args, volatile), nil
		}
		out[i] = r.Effect
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// Truth lists the ground truth of every generated execution, oldest first. Live executions
// are not included: their truth is Effects.
func (s *Server) Truth() []TruthRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TruthRecord(nil), s.truth...)
}

// ArmFault arms a fault for the next r.Count matching executions (every one when Count <= 0).
// Rules apply in the order armed, one per execution. A rule that does not Validate is ignored.
func (s *Server) ArmFault(r FaultRule) {
	if r.Validate() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, r)
}

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Faults lists the armed faults with their remaining counts.
func (s *Server) Faults() []FaultRule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]FaultRule(nil), s.faults...)
}

// ExecuteCount is the number of POST tools/execute/* requests received (proxy included),
// whatever became of them: faulted, refused or malformed.
func (s *Server) ExecuteCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.execCount
}

// Stats is what GET /_sandbox/stats reports.
type Stats struct {
	ExecuteRequests int            `json:"execute_requests"` // = ExecuteCount
	ProxyRequests   int            `json:"proxy_requests"`
	ByTool          map[string]int `json:"by_tool"` // execute requests per path slug
	Effects         int            `json:"effects"`
	Logs            int            `json:"logs"`
	ArmedFaults     int            `json:"armed_faults"`
}

// Stats reports request and state counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{ExecuteRequests: s.execCount, ProxyRequests: s.proxyN, ByTool: make(map[string]int, len(s.byTool)),
		Effects: len(s.effects), Logs: len(s.logs), ArmedFaults: len(s.faults)}
	maps.Copy(st.ByTool, s.byTool)
	return st
}

// Executions returns a copy of every log record, newest first (what the Logs API serves).
func (s *Server) Executions() []model.Execution {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]model.Execution, len(s.logs))
	for i, e := range s.logs {
		s.materialize(e)
		out[len(s.logs)-1-i] = *e
	}
	return out
}

// effectRec is an Effect whose argument hash may still be owed (args kept until hashed).
type effectRec struct {
	Effect
	args json.RawMessage
}

// materialize marshals a history record's data.response on first use; callers hold s.mu.
func (s *Server) materialize(e *model.Execution) {
	if resp, ok := s.pending[e.ID]; ok {
		e.Response, _ = json.Marshal(resp)
		delete(s.pending, e.ID)
	}
}

// takeFault consumes the first armed rule matching slug (or proxy), if any.
func (s *Server) takeFault(slug string, proxy bool) (FaultRule, bool) {
	return s.takeMatching(func(r FaultRule) bool {
		return r.ToolSlug == AnyTool || r.ToolSlug == slug || proxy && r.ToolSlug == ProxyTool
	})
}

// takeMatching takes the first armed fault match accepts (see takeFault).
func (s *Server) takeMatching(match func(FaultRule) bool) (FaultRule, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.faults {
		if !match(r) {
			continue
		}
		if r.Count > 0 {
			s.faults[i].Count--
			if s.faults[i].Count == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return r, true
	}
	return FaultRule{}, false
}

// addLog inserts a record keeping (timestamp, id) order; callers hold s.mu.
func (s *Server) addLog(e *model.Execution) {
	i := sort.Search(len(s.logs), func(i int) bool { return logLess(e, s.logs[i]) })
	s.logs = append(s.logs, nil)
	copy(s.logs[i+1:], s.logs[i:])
	s.logs[i] = e
	s.byID[e.ID] = e
}

// LogIDs lists the ids of every log the sandbox holds now, oldest first.
func (s *Server) LogIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.logs))
	for i, e := range s.logs {
		out[i] = e.ID
	}
	return out
}
