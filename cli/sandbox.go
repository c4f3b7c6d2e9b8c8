package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/sanitize"
)

// faultFlags collects repeated --fault TOOL:MODE[:COUNT] flags.
type faultFlags []sandbox.FaultRule

// Type names the value in help.
func (f *faultFlags) Type() string { return "TOOL:MODE[:N]" }

func (f *faultFlags) String() string {
	var parts []string
	for _, r := range *f {
		parts = append(parts, fmt.Sprintf("%s:%s:%d", r.ToolSlug, r.Mode, r.Count))
	}
	return strings.Join(parts, ",")
}

func (f *faultFlags) Set(v string) error {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return fmt.Errorf("want TOOL:MODE[:COUNT], got %q", v)
	}
	r := sandbox.FaultRule{ToolSlug: strings.TrimSpace(parts[0]), Mode: sandbox.FaultMode(strings.TrimSpace(parts[1]))}
	if r.ToolSlug != sandbox.AnyTool && r.ToolSlug != sandbox.ProxyTool {
		r.ToolSlug = strings.ToUpper(r.ToolSlug)
	}
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			return fmt.Errorf("count %q is not a number", parts[2])
		}
		r.Count = n
	}
	if err := r.Validate(); err != nil {
		return err
	}
	*f = append(*f, r)
	return nil
}

// SandboxOptions are sandbox's flags.
type SandboxOptions struct {
	Addr        string
	Seed        int64
	Size        int
	Key         string
	Hold        time.Duration
	MaxPage     int
	Faults      faultFlags
	Lenient     bool
	NoStore     bool
	Events      bool
	Cursor      string
	RateLimit   string
	EdgeLimit   string
	EdgeBlock   time.Duration
	Approvals   []string
	ApprovalTTL time.Duration
	rate, edge  int // read from RateLimit and EdgeLimit by check
}

// NewCmdSandbox is `exectriage sandbox`: it serves the Composio-compatible sandbox until the
// context ends (Ctrl-C).
func NewCmdSandbox(env *Env, runF func(context.Context, *SandboxOptions) error) *cobra.Command {
	opts := &SandboxOptions{Hold: sandbox.DefaultHoldTimeout}
	cmd := &cobra.Command{
		Use:     "sandbox",
		Short:   "serve the Composio-compatible sandbox",
		Example: "  exectriage sandbox --addr 127.0.0.1:8787 --fault GMAIL_SEND_EMAIL:timeout_after_commit",
		Args:    noArgs("sandbox"),
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(sandboxRun(c.Context(), env, opts))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Addr, "addr", "127.0.0.1:8787", "address to listen on")
	fs.Int64Var(&opts.Seed, "seed", 1, "seed of the generated history (same seed, same history)")
	fs.IntVar(&opts.Size, "size", sandbox.DefaultSize, "executions in the generated history")
	fs.StringVar(&opts.Key, "key", "", "the only API key accepted (default: any non-empty key)")
	fs.Var(durationValue{d: &opts.Hold}, "hold", "how long the timeout_* faults hold the answer, a `DURATION`")
	fs.IntVar(
		&opts.MaxPage,
		"max-page-size",
		0,
		"refuse logs searches with a larger limit (a 400 naming it), like a server stricter than the docs; 0: no such limit",
	)
	fs.StringVar(
		&opts.Cursor,
		"cursor",
		"keyset",
		"how the logs list pages: `keyset` (a cursor names the last record served) or page (a page number, as the real API's cursor: "+
			"records that arrive meanwhile shift the pages)",
	)
	fs.StringVar(
		&opts.RateLimit,
		"rate-limit",
		"",
		"serve at most `N/min` API requests a minute (the organisation's budget), with X-RateLimit-* headers and 429 + Retry-After past it",
	)
	fs.StringVar(
		&opts.EdgeLimit,
		"edge-limit",
		"",
		"let at most `N/s` API requests a second through the edge; past it every request gets the edge's 429 (no rate-limit headers, no "+
			"Retry-After) for --edge-block",
	)
	opts.EdgeBlock = sandbox.DefaultEdgeBlock
	fs.Var(
		durationValue{d: &opts.EdgeBlock},
		"edge-block",
		"how long the edge refuses every request once --edge-limit is passed, a `DURATION`",
	)
	fs.StringSliceVar(
		&opts.Approvals,
		"require-approval",
		nil,
		"session calls of these `TOOLS,TOOLKITS,TAGS` wait for a person's approval (input_required with a request_state), as a session "+
			"that requires approval; e.g. GMAIL_SEND_EMAIL, slack, destructiveHint",
	)
	opts.ApprovalTTL = sandbox.DefaultApprovalTTL
	fs.Var(durationValue{d: &opts.ApprovalTTL}, "approval-ttl", "how long an approval request stays open, a `DURATION`")
	fs.BoolVar(
		&opts.NoStore,
		"no-store-data",
		false,
		"serve logs without arguments or responses, as a project with \"Don't store data\" on",
	)
	fs.BoolVar(&opts.Events, "events", false, "log trigger deliveries and account events beside the executions, as the real logs do")
	fs.BoolVar(
		&opts.Lenient,
		"lenient",
		false,
		"accept what the real API refuses (both key headers, one-sided or ISO time ranges, unknown body keys and tool arguments...): for "+
			"tests of old clients only",
	)
	fs.Var(&opts.Faults, "fault", "arm a fault at start, TOOL:MODE[:COUNT] (repeatable; TOOL * for any; modes: "+modeList()+")")
	return cmd
}

// check refuses the flags that cannot serve a sandbox, before anything runs, and reads the
// rates the limits give.
func (opts *SandboxOptions) check() error {
	switch {
	case opts.Size < 0 || opts.Size > sandbox.MaxSize:
		return usagef("sandbox", "--size must be between 0 and %d", sandbox.MaxSize)
	case opts.Hold <= 0:
		return usagef("sandbox", "--hold must be positive")
	case opts.MaxPage < 0:
		return usagef("sandbox", "--max-page-size must not be negative")
	case opts.Cursor != string(sandbox.CursorKeyset) && opts.Cursor != string(sandbox.CursorPage):
		return usagef("sandbox", "--cursor %q: want keyset or page", sanitize.String(opts.Cursor))
	case opts.EdgeBlock <= 0:
		return usagef("sandbox", "--edge-block must be positive")
	case opts.ApprovalTTL <= 0:
		return usagef("sandbox", "--approval-ttl must be positive")
	}
	var err error
	if opts.rate, err = perUnit(opts.RateLimit, "/min"); err != nil {
		return usagef("sandbox", "--rate-limit %q: want N/min, N a whole number of at least 1", sanitize.String(opts.RateLimit))
	}
	if opts.edge, err = perUnit(opts.EdgeLimit, "/s"); err != nil {
		return usagef("sandbox", "--edge-limit %q: want N/s, N a whole number of at least 1", sanitize.String(opts.EdgeLimit))
	}
	return nil
}

// perUnit reads "N" or "N"+unit, N a whole number of at least 1 (0 for "").
func perUnit(s, unit string) (int, error) {
	v := strings.TrimSpace(strings.TrimSuffix(s, unit))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err == nil && n < 1 {
		err = errors.New("less than 1")
	}
	return n, err
}

// sandboxRun serves the sandbox until the context ends.
func sandboxRun(ctx context.Context, env *Env, opts *SandboxOptions) int {
	addr, seed, size, key, hold, maxPage, faults := &opts.Addr, &opts.Seed, &opts.Size, &opts.Key, &opts.Hold, &opts.MaxPage, opts.Faults
	*size = cmp.Or(*size, -1)
	rate, edge := opts.rate, opts.edge
	cfg := sandbox.Config{
		Approvals:   opts.Approvals,
		ApprovalTTL: opts.ApprovalTTL,
		APIKey:      *key,
		Seed:        *seed,
		Size:        *size,
		HoldTimeout: *hold,
		Faults:      faults,
		MaxPageSize: *maxPage,
		Lenient:     opts.Lenient,
		NoStoreData: opts.NoStore,
		Events:      opts.Events,
		Cursor:      sandbox.CursorMode(opts.Cursor),
		RateLimit:   rate,
		EdgeLimit:   edge,
		EdgeBlock:   opts.EdgeBlock,
	}
	s, base, err := sandbox.Start(ctx, cfg, *addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "exectriage sandbox: %v\n", err)
		return ExitFinding
	}
	defer s.Close()
	st := s.Stats()
	keyNote := "any non-empty value is accepted"
	shownKey := "sandbox"
	if *key != "" {
		keyNote, shownKey = "the key given with --key", *key
	}
	out := env.Stdout
	fmt.Fprintf(
		out,
		"exectriage sandbox: %d executions (seed %d) over the last %d days, serving at %s\n\n",
		st.Logs,
		*seed,
		int(sandbox.DefaultSpan.Hours()/24),
		base,
	)
	fmt.Fprintf(out, "Point an SDK (or exectriage) at it:\n")
	fmt.Fprintf(out, "  export COMPOSIO_BASE_URL=%s\n", base)
	fmt.Fprintf(out, "  export COMPOSIO_API_KEY=%s    # %s\n\n", shownKey, keyNote)
	fmt.Fprintf(
		out,
		"Users are user_1, user_2, ...; their accounts: curl -H 'x-api-key: %s' '%s/api/v3.1/connected_accounts?user_ids=user_1'\n",
		shownKey,
		base,
	)
	fmt.Fprintf(out, "Make the next Gmail send time out after it was sent:\n")
	fmt.Fprintf(
		out,
		"  curl -X POST %s/_sandbox/faults -d '{\"tool_slug\":\"GMAIL_SEND_EMAIL\",\"mode\":\"timeout_after_commit\",\"count\":1}'\n",
		base,
	)
	fmt.Fprintf(out, "Ground truth: %s/_sandbox/effects   counters: %s/_sandbox/stats\n", base, base)
	if len(opts.Approvals) > 0 {
		fmt.Fprintf(
			out,
			"Session calls of %s wait for approval (request states last %s)\n",
			strings.Join(opts.Approvals, ", "),
			opts.ApprovalTTL,
		)
	}
	for _, r := range faults {
		fmt.Fprintf(out, "Armed: %s %s (count %d)\n", r.ToolSlug, r.Mode, r.Count)
	}
	fmt.Fprintf(out, "\nCtrl-C to stop.\n")
	<-ctx.Done()
	shutdown := time.Now()
	if err := s.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "exectriage sandbox: stopping: %v\n", err)
		return ExitFinding
	}
	fmt.Fprintf(
		out,
		"sandbox stopped after %d execute requests (%s to shut down)\n",
		s.ExecuteCount(),
		time.Since(shutdown).Round(time.Millisecond),
	)
	return ExitOK
}

func modeList() string {
	var ms []string
	for _, m := range sandbox.FaultModes() {
		ms = append(ms, string(m))
	}
	return strings.Join(ms, ", ")
}
