package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
)

// The fault matrix: every client operation against every fault, one fresh
// server (and sandbox) per cell. Each cell checks what kind of error came back, the message a
// person sees (it says what failed, names the cause, is one line and never holds the API key),
// how many requests reached the server (a read 1 or 3, a write exactly 1, or 0 when it could
// not be sent), that a write never opened more than one connection, the side effects the
// sandbox committed, and, for the guarded retry, what the journal recorded: never "succeeded"
// after a fault, "failed" only when the request provably did not take effect, else
// "indeterminate". The matrix is printed with t.Log.

// opClass groups the operations by what a fault may do to them.
type opClass int

const (
	classRead  opClass = iota // retried: ListLogsPage ... RunReadTool
	classWrite                // WithoutRetries: Execute, Proxy
	classRetry                // the guarded retry (retry.Run) through WithoutRetries().Execute
)

// cellEnv is what an operation runs with.
type cellEnv struct {
	c       *client.Client
	in      inputs
	j       journal.Journal // classRetry only
	target  string
	timeout time.Duration
}

// cellResult is what one cell observed.
type cellResult struct {
	setupErr error
	err      error // the operation's error (for the retry: the protocol's)
	items    int   // what a successful operation returned (records, tools, accounts...)
	reqs     int64 // API requests the server received
	conns    int64 // connections the server accepted
	sbExec   int   // tools/execute requests the sandbox counted (-1: no sandbox)
	effects  int   // side effects the sandbox committed during the cell
	dur      time.Duration
	// guarded retry
	attempts      []model.RetryAttempt
	confirmations int
	sent          bool
}

// matrixOp is one client operation.
type matrixOp struct {
	name  string
	class opClass
	// phrase is what every error message of the operation must contain: what was being done.
	phrase func(in inputs) string
	run    func(ctx context.Context, e *cellEnv, r *cellResult) error
}

var (
	sendArgs  = json.RawMessage(`{"recipient_email":"carol@example.com","subject":"Fault matrix","body":"Is this sent once?"}`)
	proxyBody = json.RawMessage(`{"to":"carol@example.com","subject":"Fault matrix via proxy","body":"Is this sent once?"}`)
)

func matrixOps() []matrixOp {
	fixed := func(s string) func(inputs) string { return func(inputs) string { return s } }
	return []matrixOp{
		{"ListLogsPage", classRead, fixed("list logs"), func(ctx context.Context, e *cellEnv, r *cellResult) error {
			p, err := e.c.ListLogsPage(ctx, client.LogQuery{Filters: []client.LogFilter{{Field: "toolkit_slug", Value: "gmail"}}, Limit: 5}, "")
			r.items = len(p.Executions)
			return err
		}},
		{"GetLog", classRead, func(in inputs) string { return "get log " + in.LogID }, func(ctx context.Context, e *cellEnv, r *cellResult) error {
			x, err := e.c.GetLog(ctx, e.in.LogID)
			if err == nil && x.ID == e.in.LogID {
				r.items = 1
			}
			return err
		}},
		{"GetTool", classRead, func(in inputs) string { return "get tool " + in.Tool }, func(ctx context.Context, e *cellEnv, r *cellResult) error {
			t, err := e.c.GetTool(ctx, e.in.Tool)
			if err == nil && len(t.InputParameters) > 0 {
				r.items = 1
			}
			return err
		}},
		{"ListTools", classRead, fixed("list tools"), func(ctx context.Context, e *cellEnv, r *cellResult) error {
			ts, err := e.c.ListTools(ctx, client.ToolQuery{ToolkitSlug: "gmail"})
			r.items = len(ts)
			return err
		}},
		{"ListConnectedAccounts", classRead, fixed("list connected accounts"), func(ctx context.Context, e *cellEnv, r *cellResult) error {
			for accts, err := range e.c.ListConnectedAccounts(ctx, client.AccountQuery{ToolkitSlugs: []string{"gmail"}, Limit: 5}) {
				r.items = len(accts)
				return err // the first page only
			}
			return errors.New("ListConnectedAccounts yielded nothing")
		}},
		{"GetConnectedAccount", classRead, func(in inputs) string { return "get connected account " + in.AccountID },
			func(ctx context.Context, e *cellEnv, r *cellResult) error {
				a, err := e.c.GetConnectedAccount(ctx, e.in.AccountID)
				if err == nil && a.ID == e.in.AccountID {
					r.items = 1
				}
				return err
			}},
		{"RunReadTool", classRead, func(in inputs) string { return "run read tool " + in.ReadTool }, func(ctx context.Context, e *cellEnv, r *cellResult) error {
			res, err := e.c.RunReadTool(ctx, model.ToolCall{Slug: e.in.ReadTool, ConnectedAccountID: e.in.AccountID,
				Arguments: json.RawMessage(`{"query":"in:sent","max_results":3}`)})
			if err == nil && res.Successful && len(res.Data) > 0 {
				r.items = 1
			}
			return err
		}},
		{"Execute", classWrite, func(in inputs) string { return "execute " + in.Tool }, func(ctx context.Context, e *cellEnv, r *cellResult) error {
			res, err := e.c.WithoutRetries().Execute(ctx, e.in.Tool, client.ExecuteRequest{Arguments: sendArgs,
				ConnectedAccountID: e.in.AccountID, RequestID: uuid.NewString()})
			if err == nil && res.Successful && res.LogID != "" {
				r.items = 1
			}
			return err
		}},
		{"Proxy", classWrite, fixed("proxy POST /gmail/v1/users/me/messages/send"), func(ctx context.Context, e *cellEnv, r *cellResult) error {
			res, err := e.c.WithoutRetries().Proxy(ctx, client.ProxyRequest{Endpoint: "/gmail/v1/users/me/messages/send", Method: http.MethodPost,
				Body: proxyBody, ConnectedAccountID: e.in.AccountID, RequestID: uuid.NewString()})
			if err == nil && res.Status < 300 && len(res.Data) > 0 {
				r.items = 1
			}
			return err
		}},
		{"GuardedRetry", classRetry, func(in inputs) string { return "execute " + in.Tool }, runGuardedRetry},
	}
}

// runGuardedRetry retries an ambiguous send through the guard and the journal, as
// `exectriage retry ID --confirm-failed --reason` does, and records what the journal holds.
func runGuardedRetry(ctx context.Context, e *cellEnv, r *cellResult) error {
	exec := model.Execution{ID: "log_matrix_" + uuid.NewString()[:8], Timestamp: time.Now().Add(-5 * time.Minute).UTC(),
		ToolSlug: e.in.Tool, ToolkitSlug: "gmail", UserID: "matrix-user", ConnectedAccountID: e.in.AccountID,
		Status: model.StatusFailed, Level: "error", Message: e.in.Tool + " failed: Request timed out",
		Error:     &model.ExecError{Kind: model.ErrTimeout, Message: "Request timed out after 60s waiting for the provider"},
		Arguments: sendArgs, RetryCount: -1, Detailed: true}
	// The live log is read from a reader that serves it (the cell's fault is on the send).
	res, err := retry.Run(ctx, retry.Deps{Journal: e.j, Sender: e.c.WithoutRetries(), Logs: oneLog{exec}, Kinds: triage.NewKinds(),
		Who: "faultmatrix@test", Target: e.target, Timeout: 4 * e.timeout},
		retry.Request{Execution: exec, Confirmed: true, Reason: "fault matrix: the first send timed out"})
	r.sent = res.Sent
	if as, aerr := e.j.Attempts(context.WithoutCancel(ctx), exec.ID); aerr == nil {
		r.attempts = as
	} else if err == nil {
		err = aerr
	}
	if cs, cerr := e.j.Confirmations(context.WithoutCancel(ctx), exec.ID); cerr == nil {
		r.confirmations = len(cs)
	} else if err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if res.Refused() {
		return fmt.Errorf("the guard refused: %s", res.Decision.Reason)
	}
	if res.State() == model.AttemptSucceeded {
		r.items = 1
	}
	return nil
}

// oneLog is a Logs API that holds one execution's log.
type oneLog struct{ e model.Execution }

func (o oneLog) ListLogs(context.Context, client.LogQuery) iter.Seq2[model.LogsPage, error] {
	return func(func(model.LogsPage, error) bool) {}
}

func (o oneLog) GetLog(_ context.Context, id string) (model.Execution, error) {
	if id != o.e.ID {
		return model.Execution{}, fmt.Errorf("no log %s", id)
	}
	return o.e, nil
}

// dialKind says how a row's client reaches its server.
type dialKind int

const (
	dialServer  dialKind = iota // the cell's loopback server
	dialRefused                 // a closed loopback port
	dialDNS                     // a name under .invalid
	dialTLS                     // a TLS server with a self-signed certificate the client does not trust
)

// expect is what a cell must show.
type expect struct {
	kind    string   // errKind of the result
	status  int      // WriteError.StatusCode (writes only)
	reqs    int64    // API requests the server received
	phrases []string // the message must contain every one
	effects int      // sandbox side effects (writes only; reads must leave none)
}

// faultRow is one fault.
type faultRow struct {
	name         string
	dial         dialKind
	sandboxFault sandbox.FaultMode               // armed on the sandbox for every execution
	front        func(http.Handler) http.Handler // in front of the sandbox; nil: none
	configure    func(*sandbox.Config)           // adjusts the cell's sandbox
	in           func(inputs) inputs             // adjusts what the operations ask for
	timeout      time.Duration                   // client read and write timeout (default longTimeout)
	minDur       time.Duration                   // the operation took at least this long
	read, write  expect                          // read also covers RunReadTool
	attempt      model.AttemptState              // the guarded retry's recorded state
	// The guarded retry sends through Execute: derived from write by matrixRows.
	retryPhrases []string
	retrySent    bool
	retryEffects int
	retryReqs    int64
}

const (
	// rows whose point is that the client gives up: long enough that a loaded machine (CI runs
	// every package under -race on 2 cores) still connects and writes well within it
	shortTimeout = 1500 * time.Millisecond
	longTimeout  = 10 * time.Second // every other row: no timeout should fire
	faultLatency = 150 * time.Millisecond
)

func matrixRows() []faultRow {
	noAnswer := "no answer within " + shortTimeout.String() // what a person reads when the client gave up waiting
	mode := func(m sandbox.FaultMode) func(http.Handler) http.Handler {
		return onReads(mimicSandboxFault(m, faultLatency, 5*time.Second))
	}
	rows := []faultRow{
		{name: "timeout_after_commit", sandboxFault: sandbox.FaultTimeoutAfterCommit, front: mode(sandbox.FaultTimeoutAfterCommit), timeout: shortTimeout,
			read:    expect{kind: "timeout", reqs: 3, phrases: []string{noAnswer, "3 attempts"}},
			write:   expect{kind: "ambiguous", reqs: 1, effects: 1, phrases: []string{noAnswer, "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "timeout_before_commit", sandboxFault: sandbox.FaultTimeoutBeforeCommit, front: mode(sandbox.FaultTimeoutBeforeCommit), timeout: shortTimeout,
			read:    expect{kind: "timeout", reqs: 3, phrases: []string{noAnswer, "3 attempts"}},
			write:   expect{kind: "ambiguous", reqs: 1, effects: 0, phrases: []string{noAnswer, "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "5xx_after_commit", sandboxFault: sandbox.Fault5xxAfterCommit, front: mode(sandbox.Fault5xxAfterCommit),
			read:    expect{kind: "http_502", reqs: 3, phrases: []string{"HTTP 502", "Upstream provider returned 502"}},
			write:   expect{kind: "ambiguous", status: 502, reqs: 1, effects: 1, phrases: []string{"HTTP 502", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "5xx_before_commit", sandboxFault: sandbox.Fault5xxBeforeCommit, front: mode(sandbox.Fault5xxBeforeCommit),
			read:    expect{kind: "http_503", reqs: 3, phrases: []string{"HTTP 503", "Upstream provider returned 503"}},
			write:   expect{kind: "ambiguous", status: 503, reqs: 1, effects: 0, phrases: []string{"HTTP 503", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "429", sandboxFault: sandbox.Fault429, front: mode(sandbox.Fault429),
			read:    expect{kind: "http_429", reqs: 3, phrases: []string{"HTTP 429", "Rate limit exceeded"}},
			write:   expect{kind: "rejected", status: 429, reqs: 1, phrases: []string{"HTTP 429", "most likely did not happen"}},
			attempt: model.AttemptFailed}, // retry.settle: a 429 was refused before execution
		{name: "drop_connection_after_read", sandboxFault: sandbox.FaultDropAfterRead, front: mode(sandbox.FaultDropAfterRead),
			read:    expect{kind: "conn", reqs: 3, phrases: []string{"EOF", "3 attempts"}},
			write:   expect{kind: "ambiguous", reqs: 1, phrases: []string{"connection lost before an answer", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "latency", sandboxFault: sandbox.FaultLatency, front: mode(sandbox.FaultLatency), minDur: faultLatency,
			read:    expect{kind: "ok", reqs: 1},
			write:   expect{kind: "ok", reqs: 1, effects: 1},
			attempt: model.AttemptSucceeded}, // latency is no failure: the slow answer is a success
		{name: "connection_refused", dial: dialRefused,
			read:    expect{kind: "refused", reqs: 0, phrases: []string{"connection refused", "3 attempts"}},
			write:   expect{kind: "not_sent", reqs: 0, phrases: []string{"request not sent", "connection refused", "did not happen"}},
			attempt: model.AttemptFailed},
		{name: "dns_failure", dial: dialDNS,
			read:    expect{kind: "dns", reqs: 0, phrases: []string{"lookup", ".invalid"}},
			write:   expect{kind: "not_sent", reqs: 0, phrases: []string{"request not sent", "lookup", "did not happen"}},
			attempt: model.AttemptFailed},
		{name: "tls_untrusted_cert", dial: dialTLS,
			read:    expect{kind: "tls", reqs: 0, phrases: []string{"certificate", "3 attempts"}},
			write:   expect{kind: "not_sent", reqs: 0, phrases: []string{"request not sent", "certificate", "did not happen"}},
			attempt: model.AttemptFailed},
		{name: "slow_trickle", front: onAll(trickle(50 * time.Millisecond)), timeout: shortTimeout,
			read:    expect{kind: "timeout", reqs: 3, phrases: []string{noAnswer, "3 attempts"}},
			write:   expect{kind: "ambiguous", status: 200, reqs: 1, effects: 1, phrases: []string{"HTTP 200 answer could not be read", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "truncated_json", front: onAll(truncateJSON),
			read:    expect{kind: "decode", reqs: 1, phrases: []string{"JSON"}},
			write:   expect{kind: "ambiguous", status: 200, reqs: 1, effects: 1, phrases: []string{"could not be read", "not a JSON object", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "body_cut_short", front: onAll(cutShort),
			read:    expect{kind: "conn", reqs: 3, phrases: []string{"unexpected EOF", "3 attempts"}},
			write:   expect{kind: "ambiguous", status: 200, reqs: 1, effects: 1, phrases: []string{"could not be read", "unexpected EOF", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		// The client decodes a 2xx body as JSON whatever its Content-Type says (decode.go:
		// tolerant decoding); an error body's type is only used to describe a non-JSON body.
		{name: "wrong_content_type", front: onAll(relabel("text/plain; charset=utf-8")),
			read:    expect{kind: "ok", reqs: 1},
			write:   expect{kind: "ok", reqs: 1, effects: 1},
			attempt: model.AttemptSucceeded},
		{name: "401_composio_body", configure: func(c *sandbox.Config) { c.APIKey = "sk_live_someOtherProjectKey" },
			read:    expect{kind: "http_401", reqs: 1, phrases: []string{"HTTP 401", "Invalid API key", "Auth_InvalidAPIKey", "suggested fix"}},
			write:   expect{kind: "failed", status: 401, reqs: 1, phrases: []string{"HTTP 401", "Invalid API key", "did not happen"}},
			attempt: model.AttemptFailed},
		{name: "403_echoes_key", front: onAll(forbiddenEchoingKey),
			read:    expect{kind: "http_403", reqs: 1, phrases: []string{"HTTP 403", "API key [redacted] may not access"}},
			write:   expect{kind: "failed", status: 403, reqs: 1, phrases: []string{"HTTP 403", "[redacted]", "did not happen"}},
			attempt: model.AttemptFailed},
		{name: "404_not_found", front: onAll(unknownListRoutes), in: func(inputs) inputs { return missingInputs() },
			read:    expect{kind: "http_404", reqs: 1, phrases: []string{"HTTP 404", "_NotFound"}},
			write:   expect{kind: "failed", status: 404, reqs: 1, phrases: []string{"HTTP 404", "_NotFound", "did not happen"}},
			attempt: model.AttemptFailed},
		{name: "500_html", front: onAll(htmlServerError),
			read:    expect{kind: "http_500", reqs: 3, phrases: []string{"HTTP 500", "non-JSON body: text/html"}},
			write:   expect{kind: "ambiguous", status: 500, reqs: 1, phrases: []string{"HTTP 500", "non-JSON body: text/html", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "504_composio", front: onAll(gatewayTimeout),
			read:    expect{kind: "http_504", reqs: 3, phrases: []string{"HTTP 504", "Gateway timeout"}},
			write:   expect{kind: "ambiguous", status: 504, reqs: 1, phrases: []string{"HTTP 504", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "307_to_another_host", front: onAll(redirectElsewhere),
			read:    expect{kind: "http_307", reqs: 1, phrases: []string{"HTTP 307", "does not follow"}},
			write:   expect{kind: "ambiguous", status: 307, reqs: 1, phrases: []string{"HTTP 307", "does not follow", "does not prove"}},
			attempt: model.AttemptIndeterminate},
		{name: "50MB_chunked", front: onAll(huge(false)),
			read:    expect{kind: "too_large", reqs: 1, phrases: []string{"response body too large", "-byte limit"}},
			write:   expect{kind: "ambiguous", status: 200, reqs: 1, phrases: []string{"response body too large", "may have happened"}},
			attempt: model.AttemptIndeterminate},
		{name: "50MB_announced", front: onAll(huge(true)),
			read:    expect{kind: "too_large", reqs: 1, phrases: []string{"response body too large", "52428800 bytes announced"}},
			write:   expect{kind: "ambiguous", status: 200, reqs: 1, phrases: []string{"response body too large", "may have happened"}},
			attempt: model.AttemptIndeterminate},
	}
	for i := range rows {
		r := &rows[i]
		if r.timeout == 0 {
			r.timeout = longTimeout
		}
		if r.in == nil {
			r.in = func(in inputs) inputs { return in }
		}
		// The guarded retry sends through Execute: same request, same answer.
		r.retryPhrases = r.write.phrases
		r.retryEffects = r.write.effects
		r.retryReqs = r.write.reqs
		r.retrySent = r.write.reqs > 0
	}
	return rows
}

// unknownListRoutes sends the list endpoints to a path the sandbox does not serve (its own
// 404 body); everything else reaches the sandbox, which answers 404 for the missing ids.
func unknownListRoutes(w http.ResponseWriter, r *http.Request, next http.Handler) {
	p := r.URL.Path
	if strings.HasSuffix(p, "/logs/tool_execution") || strings.HasSuffix(p, "/tools") || strings.HasSuffix(p, "/connected_accounts") {
		r2 := r.Clone(r.Context())
		r2.URL.Path = p + "_unknown"
		next.ServeHTTP(w, r2)
		return
	}
	next.ServeHTTP(w, r)
}

// runCell runs one operation against one fault on its own server, client and journal.
func runCell(t *testing.T, row faultRow, op matrixOp, in inputs) (res cellResult) {
	res.sbExec = -1
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()

	var base string
	var srv *cellServer
	switch row.dial {
	case dialRefused:
		addr, err := closedPort()
		if err != nil {
			res.setupErr = err
			return res
		}
		base = "http://" + addr
	case dialDNS:
		base = "http://composio-backend.exectriage.invalid"
	default:
		cfg := matrixSandboxConfig()
		if row.sandboxFault != "" {
			cfg.Faults = []sandbox.FaultRule{{ToolSlug: sandbox.AnyTool, Mode: row.sandboxFault}}
			if row.sandboxFault == sandbox.FaultLatency {
				cfg.Faults[0].Latency = faultLatency
			}
		}
		if row.configure != nil {
			row.configure(&cfg)
		}
		var err error
		if srv, err = startCellServer(cfg, row.front, row.dial == dialTLS); err != nil {
			res.setupErr = err
			return res
		}
		defer srv.close()
		base = srv.url
	}

	tr := newTransport()
	defer tr.CloseIdleConnections()
	c, err := client.New(client.WithAPIKey(matrixKey), client.WithBaseURL(base), client.WithHTTPClient(&http.Client{Transport: tr}),
		client.WithBackoff(time.Millisecond, 5*time.Millisecond), client.WithReadTimeout(row.timeout), client.WithWriteTimeout(row.timeout),
		client.WithMaxResponseBytes(8<<20))
	if err != nil {
		res.setupErr = err
		return res
	}
	env := &cellEnv{c: c, in: row.in(in), target: "LIVE " + base, timeout: row.timeout}
	if op.class == classRetry {
		j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "journal.db"))
		if err != nil {
			res.setupErr = err
			return res
		}
		defer j.Close()
		env.j = j
	}

	start := time.Now()
	res.err = op.run(ctx, env, &res)
	res.dur = time.Since(start)
	tr.CloseIdleConnections()
	if srv != nil {
		res.reqs = srv.apiReqs.Load()
		res.conns = srv.conns.Load()
		if srv.sb != nil {
			res.sbExec = srv.sb.ExecuteCount()
			res.effects = srv.newEffects()
		}
	}
	return res
}

func TestFaultMatrix(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	in, err := discoverInputs()
	if err != nil {
		t.Fatal(err)
	}
	rows, ops := matrixRows(), matrixOps()
	results := make([][]cellResult, len(rows))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16) // cells are mostly waiting on timers and sockets
	for i, row := range rows {
		results[i] = make([]cellResult, len(ops))
		for j, op := range ops {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				results[i][j] = runCell(t, row, op, in)
			})
		}
	}
	wg.Wait()

	passed, total := 0, 0
	for i, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			for j, op := range ops {
				total++
				if t.Run(op.name, func(t *testing.T) { checkCell(t, row, op, row.in(in), results[i][j]) }) {
					passed++
				}
			}
		})
	}
	t.Log("\n" + matrixTable(rows, ops, results))
	var msgs strings.Builder
	for i, row := range rows {
		for j, op := range ops {
			if r := results[i][j]; (op.name == "GetTool" || op.name == "Execute") && r.err != nil {
				fmt.Fprintf(&msgs, "%-27s %-8s %s\n", row.name, op.name, r.err)
			}
		}
	}
	t.Log("what a person sees (GetTool, Execute):\n" + msgs.String())
	t.Logf("fault matrix: %d faults x %d operations = %d cells, %d passed", len(rows), len(ops), total, passed)
	goleak.VerifyNone(t, leaks)
}

// checkCell asserts one cell.
func checkCell(t *testing.T, row faultRow, op matrixOp, in inputs, r cellResult) {
	if r.setupErr != nil {
		t.Fatalf("setup: %v", r.setupErr)
	}
	if op.class == classRetry {
		checkRetryCell(t, row, op, in, r)
		return
	}
	want := row.read
	if op.class == classWrite {
		want = row.write
	}
	if got := errKind(r.err); got != want.kind {
		t.Errorf("kind %s, want %s (error: %v)", got, want.kind, r.err)
	}
	switch {
	case op.class == classRead && want.kind == "timeout":
		// The client made 3 attempts (its error says so, checked with the phrases); on a
		// loaded machine the last one can time out before the server's handler has counted it.
		if r.reqs < 2 || r.reqs > want.reqs {
			t.Errorf("the server received %d requests, want %d (or %d when the last attempt timed out before being served)", r.reqs, want.reqs, want.reqs-1)
		}
	case r.reqs != want.reqs:
		t.Errorf("the server received %d requests, want %d", r.reqs, want.reqs)
	}
	if r.reqs > 3 || (op.class == classWrite && r.reqs > 1) {
		t.Errorf("%d requests: a read may make 3 at most, a write 1", r.reqs)
	}
	if r.dur < row.minDur {
		t.Errorf("took %v, less than the fault's %v latency: was the fault applied?", r.dur, row.minDur)
	}
	if r.err == nil {
		if r.items == 0 {
			t.Errorf("succeeded but returned nothing")
		}
	} else {
		checkMessage(t, r.err.Error(), append([]string{op.phrase(in)}, want.phrases...))
		checkMessage(t, fmt.Sprintf("%+v", r.err), nil)
	}
	switch op.class {
	case classRead:
		if r.conns > 3 {
			t.Errorf("a read opened %d connections, want at most 3", r.conns)
		}
		if r.effects != 0 {
			t.Errorf("a read left %d side effects", r.effects)
		}
	case classWrite:
		checkWriteError(t, row, r.err)
		wantConns := int64(1)
		if row.dial == dialRefused || row.dial == dialDNS {
			wantConns = 0 // no server: counted as 0
		}
		if r.conns != wantConns {
			t.Errorf("a write opened %d connections, want %d", r.conns, wantConns)
		}
		if r.effects != want.effects {
			t.Errorf("%d side effects, want %d", r.effects, want.effects)
		}
		// The safety property: when the action happened, the client must not say it did not.
		if r.effects > 0 && want.kind != "ok" && errKind(r.err) != string(client.WriteAmbiguous) {
			t.Errorf("the sandbox committed the effect but the client says %s", errKind(r.err))
		}
		if r.sbExec >= 0 && row.sandboxFault != "" && int64(r.sbExec) != r.reqs {
			t.Errorf("the sandbox counted %d executions, the server %d requests", r.sbExec, r.reqs)
		}
	}
}

// checkWriteError checks the *WriteError fields against the row.
func checkWriteError(t *testing.T, row faultRow, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var we *client.WriteError
	if !errors.As(err, &we) {
		t.Errorf("a write error that is not a *client.WriteError: %T %v", err, err)
		return
	}
	if we.StatusCode != row.write.status {
		t.Errorf("WriteError.StatusCode %d, want %d", we.StatusCode, row.write.status)
	}
	if wantSent := row.write.reqs > 0; we.Sent != wantSent {
		t.Errorf("WriteError.Sent %v, want %v", we.Sent, wantSent)
	}
	if we.RequestID == "" {
		t.Errorf("WriteError without the request id to look the execution up by")
	}
	if row.write.status >= 400 && (we.API == nil || we.API.StatusCode != row.write.status) {
		t.Errorf("WriteError.API = %+v, want the decoded HTTP %d body", we.API, row.write.status)
	}
}

// checkRetryCell checks what the guarded retry did and what the journal holds.
func checkRetryCell(t *testing.T, row faultRow, op matrixOp, in inputs, r cellResult) {
	if r.err != nil {
		t.Fatalf("retry.Run: %v", r.err)
	}
	if r.reqs != row.retryReqs {
		t.Errorf("the server received %d requests, want %d", r.reqs, row.retryReqs)
	}
	if r.sent != row.retrySent {
		t.Errorf("retry.Result.Sent %v, want %v", r.sent, row.retrySent)
	}
	if r.effects != row.retryEffects {
		t.Errorf("%d side effects, want %d", r.effects, row.retryEffects)
	}
	if len(r.attempts) != 1 {
		t.Fatalf("the journal holds %d attempts, want exactly 1: %+v", len(r.attempts), r.attempts)
	}
	if r.confirmations != 1 {
		t.Errorf("the journal holds %d confirmations, want 1", r.confirmations)
	}
	a := r.attempts[0]
	if a.State != row.attempt {
		t.Errorf("attempt %s, want %s: %s", a.State, row.attempt, a.Detail)
	}
	// What the journal may say, whatever the row expects.
	switch a.State {
	case model.AttemptSucceeded:
		if row.write.kind != "ok" {
			t.Errorf("attempt succeeded after a fault (%s)", row.name)
		}
	case model.AttemptFailed:
		if r.effects > 0 {
			t.Errorf("attempt failed although the sandbox committed the effect")
		}
		if k := row.write.kind; k != string(client.WriteNotSent) && k != string(client.WriteFailed) && k != string(client.WriteRejected) {
			t.Errorf("attempt failed after %s: only a request that provably did not take effect may be failed", k)
		}
	case model.AttemptIndeterminate:
	default:
		t.Errorf("attempt left in state %s", a.State)
	}
	if a.SentAt.IsZero() {
		// The protocol records "sent" before the request leaves, even one that then fails to.
		t.Errorf("attempt without sent_at: %+v", a)
	}
	if a.FinishedAt.IsZero() {
		t.Errorf("attempt without finished_at: %+v", a)
	}
	if a.State != model.AttemptSucceeded {
		checkMessage(t, a.Detail, append([]string{op.phrase(in)}, row.retryPhrases...))
	} else if a.NewLogID == "" {
		t.Errorf("succeeded attempt without the new log id")
	}
}

// checkMessage: one line, never the API key, and every phrase.
func checkMessage(t *testing.T, msg string, phrases []string) {
	t.Helper()
	if strings.Contains(msg, matrixKey) {
		t.Errorf("the message shows the API key: %s", msg)
	}
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("the message is not one line: %q", msg)
	}
	for _, p := range phrases {
		if !strings.Contains(msg, p) {
			t.Errorf("the message lacks %q: %s", p, msg)
		}
	}
}

// matrixTable renders rows (faults) x columns (operations); a cell is kind/requests, and for
// the guarded retry the journal's attempt state/requests.
func matrixTable(rows []faultRow, ops []matrixOp, results [][]cellResult) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "fault \\ operation")
	for _, op := range ops {
		fmt.Fprint(tw, "\t"+op.name)
	}
	fmt.Fprintln(tw)
	for i, row := range rows {
		fmt.Fprint(tw, row.name)
		for j, op := range ops {
			r := results[i][j]
			cell := errKind(r.err)
			switch {
			case r.setupErr != nil:
				cell = "setup-error"
			case op.class == classRetry && r.err == nil && len(r.attempts) == 1:
				cell = string(r.attempts[0].State)
			}
			fmt.Fprintf(tw, "\t%s/%d", cell, r.reqs)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return b.String()
}
