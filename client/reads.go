package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// LogFilter is one condition of a Logs API query; conditions are AND-combined.
type LogFilter struct {
	// Field is one of tool_slug, toolkit_slug, connected_account_id, auth_config_id, status,
	// user_id, session_id, sandbox_id, request_id, log_id.
	Field string
	// Operator is one of ==, !=, contains, not_contains; empty means ==.
	Operator string
	Value    string
}

// LogQuery selects execution logs.
type LogQuery struct {
	Filters []LogFilter
	// From and To bound the log timestamps; zero means unbounded. When only From is set, To
	// is taken as now (once per walk, so the pages of one ListLogs agree).
	From, To time.Time
	// Limit is the page size, 1 to 100; 0 or more than 100 means 100.
	Limit int
}

// MaxLogsPageSize is the largest page the Logs API serves.
const MaxLogsPageSize = 100

type logsRequest struct {
	Limit     int            `json:"limit"`
	Cursor    *string        `json:"cursor"`
	TimeRange *logsTimeRange `json:"time_range,omitempty"`
	Filters   []logsFilter   `json:"filters,omitempty"`
}

type logsTimeRange struct {
	From *int64 `json:"from,omitempty"` // epoch ms
	To   *int64 `json:"to,omitempty"`
}

type logsFilter struct {
	Field    string `json:"field"`
	Operator string `json:"operator"`
	Value    string `json:"value"`
}

// withDefaults fills the page size and the open end of the time range.
func (q LogQuery) withDefaults(now time.Time) LogQuery {
	if q.Limit <= 0 || q.Limit > MaxLogsPageSize {
		q.Limit = MaxLogsPageSize
	}
	if !q.From.IsZero() && q.To.IsZero() {
		q.To = now
	}
	return q
}

func (q LogQuery) body(cursor string) ([]byte, error) {
	b := logsRequest{Limit: q.Limit}
	if cursor != "" {
		b.Cursor = &cursor
	}
	if !q.From.IsZero() || !q.To.IsZero() {
		b.TimeRange = &logsTimeRange{}
		// Times before the epoch (a --since longer than the epoch is old) ask for everything
		// from its start: the API refuses a negative time.
		if !q.From.IsZero() {
			ms := max(q.From.UnixMilli(), 0)
			b.TimeRange.From = &ms
		}
		if !q.To.IsZero() {
			ms := max(q.To.UnixMilli(), 0)
			b.TimeRange.To = &ms
		}
	}
	for _, f := range q.Filters {
		op := f.Operator
		op = cmp.Or(op, "==")
		b.Filters = append(b.Filters, logsFilter{Field: f.Field, Operator: op, Value: f.Value})
	}
	return json.Marshal(b)
}

// ListLogsPage fetches one page of POST /api/v3.1/logs/tool_execution; cursor "" is the first
// page. Records that cannot be parsed are listed in the page's Bad, not dropped silently.
func (c *Client) ListLogsPage(ctx context.Context, q LogQuery, cursor string) (model.LogsPage, error) {
	page, err := c.listLogsPage(ctx, q.withDefaults(time.Now()), cursor)
	if err != nil {
		return model.LogsPage{}, c.fail(err, "list logs")
	}
	return page, nil
}

// The logs page size has no documented maximum (docs/platform.md, "Logs API"): a server that refuses a
// page size with a 400 naming the limit gets half of it, again until it accepts (or one), and
// the client remembers the size that worked.
func (c *Client) listLogsPage(ctx context.Context, q LogQuery, cursor string) (model.LogsPage, error) {
	if l := int(c.pageLimit.Load()); l > 0 && q.Limit > l {
		q.Limit = l
	}
	for {
		body, err := q.body(cursor)
		if err != nil {
			return model.LogsPage{}, err
		}
		res, err := c.t.do(ctx, request{method: http.MethodPost, path: "/logs/tool_execution", body: body,
			maxBytes: int64(q.Limit) * MaxLogEntryBytes})
		var ae *APIError
		if err != nil && errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest && q.Limit > 1 && namesLimit(ae) {
			q.Limit /= 2
			c.pageLimit.Store(int64(q.Limit))
			continue
		}
		if err != nil {
			return model.LogsPage{}, err
		}
		// A server that ignores the page size can hand over anything in one page: such a page
		// is refused when counted, before a record of it is decoded (a page LogsPageLen cannot
		// count, ParseLogsPage refuses too: FuzzLogsPageLen).
		if n, ok := model.LogsPageLen(res.body); ok && n > q.Limit {
			return model.LogsPage{}, fmt.Errorf("%w: a page of %d records answered a request for at most %d", ErrIgnoredLimit, n, q.Limit)
		}
		return model.ParseLogsPage(res.body)
	}
}

// MaxLogEntryBytes is the most a logs page may hold for each record it was asked for: list
// entries are summaries of a few kilobytes (a detail is fetched on its own), so a page of 100
// is refused past 25 MB. The slices of a window are walked at once: what they read at the same
// time is bounded by it (8 slices: 200 MB), where a server that ignores the page size could
// otherwise answer each with 64 MB and more records than asked for.
const MaxLogEntryBytes = 256 << 10

// ErrIgnoredLimit is wrapped by the error of a logs page holding more records than the page
// size asked for: the server ignored the limit.
var ErrIgnoredLimit = errors.New("the API ignored the page size")

// namesLimit reports whether a 400 is about the page size.
func namesLimit(ae *APIError) bool {
	text := strings.ToLower(ae.Message + " " + strings.Join(ae.details, " "))
	return strings.Contains(text, "limit")
}

// ListLogs streams every page of the query, first to last, until next_cursor is null or
// empty. It stops after yielding an error, when the consumer breaks, when ctx is done, or when
// the server hands back a cursor it already gave (which would otherwise loop forever).
func (c *Client) ListLogs(ctx context.Context, q LogQuery) iter.Seq2[model.LogsPage, error] {
	return func(yield func(model.LogsPage, error) bool) {
		q := q.withDefaults(time.Now()) // one "now" for the whole walk
		for page, err := range pages(ctx, c.t.cfg.maxPages, func(ctx context.Context, cursor string) (model.LogsPage, string, error) {
			p, err := c.listLogsPage(ctx, q, cursor)
			return p, p.NextCursor, err
		}) {
			if err != nil {
				err = c.fail(err, "list logs")
			}
			if !yield(page, err) {
				return
			}
		}
	}
}

// GetLog fetches one execution with its detail (timings, context, request and response).
func (c *Client) GetLog(ctx context.Context, id string) (model.Execution, error) {
	if id == "" {
		return model.Execution{}, fmt.Errorf("get log: empty id")
	}
	res, err := c.t.do(ctx, request{method: http.MethodGet, path: "/logs/tool_execution/" + url.PathEscape(id)})
	if err != nil {
		return model.Execution{}, c.fail(err, "get log %s", id)
	}
	e, err := model.ParseOwnedRecord(res.body) // the body is this record's alone
	if err != nil {
		return model.Execution{}, c.fail(err, "get log %s", id)
	}
	if e.ID != id { // a mixed-up cache, a normalised id, a hostile endpoint: never another's record
		return model.Execution{}, fmt.Errorf("get log %s: %w: the answer is the record of %q", id, ErrOtherRecord, e.ID)
	}
	return e, nil
}

// ErrOtherRecord is wrapped by GetLog's error when the API answers with the record of another
// id than the one asked for: nothing may act on it as if it were the execution asked about.
var ErrOtherRecord = errors.New("the API answered with another execution's record")

// GetTool fetches a tool's definition, including the tags that say whether it writes.
func (c *Client) GetTool(ctx context.Context, slug string) (model.Tool, error) {
	if slug == "" {
		return model.Tool{}, fmt.Errorf("get tool: empty slug")
	}
	res, err := c.t.do(ctx, request{method: http.MethodGet, path: "/tools/" + url.PathEscape(slug)})
	if err != nil {
		return model.Tool{}, c.fail(err, "get tool %s", slug)
	}
	t, err := parseTool(res.body)
	if err != nil {
		return model.Tool{}, c.fail(err, "get tool %s", slug)
	}
	t.Slug = cmp.Or(t.Slug, slug)
	return t, nil
}

// ToolQuery selects tools: by toolkit, or by explicit slugs (which the API lets override
// other filters).
type ToolQuery struct {
	ToolkitSlug string
	ToolSlugs   []string
}

// ListTools fetches every tool matching q, following the list's pages.
func (c *Client) ListTools(ctx context.Context, q ToolQuery) ([]model.Tool, error) {
	base := url.Values{}
	if q.ToolkitSlug != "" {
		base.Set("toolkit_slug", q.ToolkitSlug)
	}
	if len(q.ToolSlugs) > 0 {
		base.Set("tool_slugs", strings.Join(q.ToolSlugs, ","))
	}
	var tools []model.Tool
	for items, err := range pages(ctx, c.t.cfg.maxPages, func(ctx context.Context, cursor string) ([]json.RawMessage, string, error) {
		return c.listPage(ctx, "/tools", base, cursor)
	}) {
		if err != nil {
			return nil, c.fail(err, "list tools")
		}
		for _, it := range items {
			if t, err := parseTool(it); err == nil && t.Slug != "" {
				tools = append(tools, t)
			}
		}
	}
	return tools, nil
}

// AccountQuery selects connected accounts. Empty fields do not filter.
type AccountQuery struct {
	UserIDs      []string
	ToolkitSlugs []string
	Statuses     []string // ACTIVE, EXPIRED, INACTIVE, FAILED, INITIATED, INITIALIZING
	Limit        int      // page size; 0 leaves it to the server
}

// ListConnectedAccounts streams the matching connected accounts page by page, with the same
// stopping rules as ListLogs.
func (c *Client) ListConnectedAccounts(ctx context.Context, q AccountQuery) iter.Seq2[[]ConnectedAccount, error] {
	// Lists go comma-separated, as the official generated client sends them.
	base := url.Values{}
	for key, vals := range map[string][]string{"user_ids": q.UserIDs, "toolkit_slugs": q.ToolkitSlugs, "statuses": q.Statuses} {
		if len(vals) > 0 {
			base.Set(key, strings.Join(vals, ","))
		}
	}
	if q.Limit > 0 {
		base.Set("limit", strconv.Itoa(q.Limit))
	}
	return func(yield func([]ConnectedAccount, error) bool) {
		for items, err := range pages(ctx, c.t.cfg.maxPages, func(ctx context.Context, cursor string) ([]json.RawMessage, string, error) {
			return c.listPage(ctx, "/connected_accounts", base, cursor)
		}) {
			if err != nil {
				yield(nil, c.fail(err, "list connected accounts"))
				return
			}
			accounts := make([]ConnectedAccount, 0, len(items))
			for _, it := range items {
				if a, err := parseAccount(it); err == nil {
					accounts = append(accounts, a)
				}
			}
			if !yield(accounts, nil) {
				return
			}
		}
	}
}

// GetConnectedAccount fetches one connected account.
func (c *Client) GetConnectedAccount(ctx context.Context, id string) (ConnectedAccount, error) {
	if id == "" {
		return ConnectedAccount{}, fmt.Errorf("get connected account: empty id")
	}
	res, err := c.t.do(ctx, request{method: http.MethodGet, path: "/connected_accounts/" + url.PathEscape(id)})
	if err != nil {
		return ConnectedAccount{}, c.fail(err, "get connected account %s", id)
	}
	a, err := parseAccount(res.body)
	if err != nil {
		return ConnectedAccount{}, c.fail(err, "get connected account %s", id)
	}
	return a, nil
}

// RunReadTool runs a tool through tools/execute on the RETRYING path: a timeout or a 5xx is
// sent again, up to the configured retries. Use it only for tools known to be read-only; it
// exists for verifiers that look up whether a write's effect exists at the provider. Anything
// that can change the world goes through WithoutRetries().Execute instead.
//
// A 200 answer with successful:false returns both the result and an error.
func (c *Client) RunReadTool(ctx context.Context, call model.ToolCall) (model.ToolResult, error) {
	return c.runReadTool(ctx, call, c.t)
}

// RunReadToolOnce is RunReadTool with no retry at all (through the write client's transport):
// for a tool whose definition does not vouch that it only reads.
func (c *Client) RunReadToolOnce(ctx context.Context, call model.ToolCall) (model.ToolResult, error) {
	return c.runReadTool(ctx, call, c.WithoutRetries().t)
}

func (c *Client) runReadTool(ctx context.Context, call model.ToolCall, t *transport) (model.ToolResult, error) {
	body, err := executeBody(call.Slug, ExecuteRequest{
		Arguments:          call.Arguments,
		ConnectedAccountID: call.ConnectedAccountID,
		UserID:             call.UserID,
		Version:            call.Version,
	})
	if err != nil {
		return model.ToolResult{}, c.fail(err, "run read tool %s", call.Slug)
	}
	res, err := t.do(ctx, request{method: http.MethodPost, path: executePath(call.Slug), body: body, toolRead: true})
	if err != nil {
		return model.ToolResult{}, c.fail(err, "run read tool %s", call.Slug)
	}
	result, err := parseToolResult(res.body)
	if err != nil {
		return model.ToolResult{}, c.fail(err, "run read tool %s", call.Slug)
	}
	if !result.Successful {
		result.Error = c.t.scrub(result.Error)
		return result, c.t.redact(fmt.Errorf("run read tool %s: tool reported failure: %s", call.Slug, orNone(oneLine(result.Error, 300))))
	}
	return result, nil
}

// fail wraps err with what was being done, keeping the API key out of the message.
func (c *Client) fail(err error, format string, args ...any) error {
	return c.t.redact(fmt.Errorf(format+": %w", append(args, err)...))
}

// listPage fetches one page of a GET list endpoint ({items, next_cursor}).
func (c *Client) listPage(ctx context.Context, path string, base url.Values, cursor string) ([]json.RawMessage, string, error) {
	q := url.Values{}
	maps.Copy(q, base)
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	res, err := c.t.do(ctx, request{method: http.MethodGet, path: path, query: q})
	if err != nil {
		return nil, "", err
	}
	p, err := parseListPage(res.body)
	if err != nil {
		return nil, "", err
	}
	return p.items, p.nextCursor, nil
}

// pages walks a cursor-paged list: the first page with cursor "", then each next cursor until
// it is empty. It yields the first error and stops; it stops when the consumer breaks, when
// ctx is done, and when the server repeats a cursor, which would otherwise loop forever.
func pages[T any](ctx context.Context, maxPages int, fetch func(context.Context, string) (T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := make(map[string]struct{})
		cursor := ""
		for n := 0; ; n++ {
			if maxPages > 0 && n >= maxPages {
				yield(
					zero,
					fmt.Errorf(
						"the server kept handing out new cursors past %d pages; stopped (a server whose pages never end, or a window too "+
							"large: narrow it with --since)",
						maxPages,
					),
				)
				return
			}
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			page, next, err := fetch(ctx, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			if !yield(page, nil) || next == "" {
				return
			}
			if _, dup := seen[next]; dup || next == cursor {
				yield(zero, fmt.Errorf("the server returned cursor %q a second time; stopped to avoid an endless loop", oneLine(next, 40)))
				return
			}
			seen[next] = struct{}{}
			cursor = next
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(no error message)"
	}
	return s
}

// MaxTriggerLogsPageSize is the page size asked of the trigger logs.
const MaxTriggerLogsPageSize = 100

// ListTriggerLogs streams the trigger deliveries between from and to (epoch milliseconds on the
// wire), newest first, page by page (POST /api/v3.1/internal/trigger/logs with their payloads,
// which carry the event ids). It stops as ListLogs does.
func (c *Client) ListTriggerLogs(ctx context.Context, from, to time.Time) iter.Seq2[model.TriggerLogsPage, error] {
	return func(yield func(model.TriggerLogsPage, error) bool) {
		for page, err := range pages(ctx, c.t.cfg.maxPages, func(ctx context.Context, cursor string) (model.TriggerLogsPage, string,
			error) {
			body := map[string]any{"limit": MaxTriggerLogsPageSize, "include_payload": true}
			if !from.IsZero() {
				body["from"] = from.UnixMilli()
			}
			if !to.IsZero() {
				body["to"] = to.UnixMilli()
			}
			if cursor != "" {
				body["cursor"] = cursor
			}
			b, err := json.Marshal(body)
			if err != nil {
				return model.TriggerLogsPage{}, "", err
			}
			res, err := c.t.do(ctx, request{method: http.MethodPost, path: "/internal/trigger/logs", body: b})
			if err != nil {
				return model.TriggerLogsPage{}, "", err
			}
			p, err := model.ParseTriggerLogsPage(res.body)
			return p, p.NextCursor, err
		}) {
			if err != nil {
				err = c.fail(err, "list trigger logs")
			}
			if !yield(page, err) {
				return
			}
		}
	}
}
