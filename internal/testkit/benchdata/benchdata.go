// Package benchdata writes seeded, realistic exports of the Logs API for benchmarks: N tool
// executions in the detail shape (model.WireRecord), one per line, newest first, as a support
// engineer would receive from a customer. The history mixes reads and writes over the
// sandbox's toolkits, thousands of users and connected accounts, arguments and responses of
// realistic size, failures of every kind (timeouts, 5xx, 429, auth, validation, dropped
// connections, slow successes) and duplicate bursts (SDK auto-retries, application retry
// loops, double submits).
//
// It streams: memory stays bounded (a few thousand pending records) whatever N is, so a
// million records take seconds, not the sandbox's minutes and gigabytes. The same Config
// gives byte-identical output.
package benchdata

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Config describes an export.
type Config struct {
	N    int           // executions
	Seed uint64        // same seed, same bytes
	Now  time.Time     // newest record's time (default 2026-03-01T00:00:00Z)
	Span time.Duration // how far back the history reaches (default 7 days)
	// Production gives the records the bodies of real projects' exports (production.go):
	// HTML emails with quoted threads, Slack blocks, long Markdown, the providers' whole
	// objects as responses; about 4× the bytes. The executions and their causes are the same.
	Production bool
}

// DefaultNow is the end of a generated history when Config.Now is zero.
var defaultNow = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// Stats says what was written.
type Stats struct {
	Records    int
	Bytes      int64
	Failed     int // status failed
	Duplicates int // records that belong to a duplicate burst (first attempts included)
}

// Write writes cfg.N records as JSON Lines to w.
func Write(ctx context.Context, w io.Writer, cfg Config) (Stats, error) {
	if cfg.N < 0 {
		return Stats{}, fmt.Errorf("benchdata: negative size %d", cfg.N)
	}
	if cfg.Now.IsZero() {
		cfg.Now = defaultNow
	}
	if cfg.Span <= 0 {
		cfg.Span = 7 * 24 * time.Hour
	}
	g := newGen(cfg)
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	var st Stats
	emit := func(e *model.Execution) error {
		if err := enc.Encode(model.ToWire(e, true)); err != nil {
			return err
		}
		st.Records++
		if e.Status == model.StatusFailed {
			st.Failed++
		}
		return nil
	}
	// Executions are planned backwards in time from Now. A burst's members all start at or
	// before its anchor, and later anchors are older, so a pending record newer than the
	// current anchor can be written: nothing planned later is newer.
	t := cfg.Now
	mean := cfg.Span / time.Duration(max(cfg.N, 1))
	planned := 0
	for planned < cfg.N {
		if planned%4096 == 0 && ctx.Err() != nil {
			return st, ctx.Err()
		}
		t = t.Add(-time.Duration(g.r.ExpFloat64() * float64(mean)))
		for g.pending.Len() > 0 && g.pending.top().Timestamp.After(t) {
			e := heap.Pop(&g.pending).(*model.Execution)
			if err := emit(e); err != nil {
				return st, err
			}
		}
		n, dup := g.plan(t, cfg.N-planned)
		if dup {
			st.Duplicates += n
		}
		planned += n
	}
	for g.pending.Len() > 0 {
		if err := emit(heap.Pop(&g.pending).(*model.Execution)); err != nil {
			return st, err
		}
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.Bytes = cw.n
	return st, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// pendingHeap is a max-heap of executions by timestamp (ties by id), so records come out
// newest first.
type pendingHeap []*model.Execution

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	if c := h[i].Timestamp.Compare(h[j].Timestamp); c != 0 {
		return c > 0
	}
	return h[i].ID < h[j].ID
}
func (h pendingHeap) Swap(i, j int)            { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)              { *h = append(*h, x.(*model.Execution)) }
func (h pendingHeap) top() *model.Execution    { return h[0] }
func (h *pendingHeap) Pop() any                { old := *h; e := old[len(old)-1]; *h = old[:len(old)-1]; return e }
func (h *pendingHeap) push(e *model.Execution) { heap.Push(h, e) }
func (h *pendingHeap) pushAll(es []*model.Execution) {
	for _, e := range es {
		h.push(e)
	}
}

type tool struct {
	slug, kit string
	write     bool
	weight    int
}

var tools = []tool{
	{"GMAIL_SEND_EMAIL", "gmail", true, 14}, {"GMAIL_REPLY_TO_THREAD", "gmail", true, 5},
	{"GMAIL_CREATE_EMAIL_DRAFT", "gmail", true, 3}, {"GMAIL_FETCH_EMAILS", "gmail", false, 14},
	{"GMAIL_ADD_LABEL_TO_EMAIL", "gmail", true, 4}, {"GMAIL_DELETE_MESSAGE", "gmail", true, 1},
	{"SLACK_SEND_MESSAGE", "slack", true, 14}, {"SLACK_FETCH_CONVERSATION_HISTORY", "slack", false, 9},
	{"GITHUB_CREATE_AN_ISSUE", "github", true, 5}, {"GITHUB_CREATE_AN_ISSUE_COMMENT", "github", true, 4},
	{"GITHUB_LIST_REPOSITORY_ISSUES", "github", false, 6}, {"HUBSPOT_CREATE_CONTACT", "hubspot", true, 4},
	{"HUBSPOT_SEARCH_CONTACTS", "hubspot", false, 6}, {"NOTION_CREATE_PAGE", "notion", true, 3},
	{"LINEAR_CREATE_LINEAR_ISSUE", "linear", true, 2}, {"GOOGLECALENDAR_CREATE_EVENT", "googlecalendar", true, 2},
}

type account struct {
	id, user string
	profile  int // index into profiles
	company  int
}

type profile struct {
	host, language, framework, sdk string
	autoRetries                    bool
}

// Callers, as their headers describe them; the old SDK versions still auto-retry writes.
var profiles = []profile{
	{"sdk", "python", "openai", "0.16.2", false}, {"sdk", "python", "langchain", "0.16.0", false},
	{"sdk", "python", "crewai", "0.15.2", true}, {"sdk", "typescript", "vercel", "0.14.1", false},
	{"sdk", "typescript", "mastra", "0.13.4", true}, {"sdk", "python", "", "0.14.8", true},
	{"mcp", "", "", "", false}, {"api", "", "", "", false}, {"sdk", "typescript", "openai", "0.14.3", false},
}

type gen struct {
	cfg      Config
	r        *rand.Rand
	accounts []account
	weights  []int // cumulative tool weights
	seq      int
	pending  pendingHeap
	buf      []byte
}

var (
	firsts = []string{"Ava", "Noah", "Mateo", "Omar", "Aisha", "Ben", "Mei", "Jonas", "Dmitri", "Oliver", "Maria", "Tom", "Sofia",
		"Liam", "Priya", "Kenji", "Fatima", "Lucas", "Elena", "Yusuf"}
	lasts = []string{"Tanaka", "Walsh", "Berg", "Garcia", "Petrov", "Zhang", "Sato", "Okafor", "Novak", "Silva", "Khan", "Moreau",
		"Kowalski", "Haddad", "Larsen"}
	companies = []string{"initech", "globex", "brightlane", "orbitpay", "quantix", "bluepeak", "harborview", "tyrell3", "fabrikam",
		"cyberdyne", "umbrella", "wayne"}
	domains  = []string{"co", "io", "com", "ai", "org", "net", "systems"}
	subjects = []string{"Invoice %d", "Meeting notes: customer feedback (%s)", "Reminder: onboarding on %s", "Re: order %d",
		"Your ticket #%d", "Weekly report %s", "Contract renewal %d", "Follow-up on budget approval (%s)"}
	sentences = []string{"Please find the details below and let me know if anything is missing.",
		"Thanks for the quick turnaround on this.", "We are on track for the deadline, pending one review.",
		"Could you confirm the numbers before Friday?", "Attached is the summary we discussed on the call.",
		"Happy to jump on a call if that helps."}
	signoffs  = []string{"Best", "Cheers", "Thanks", "Kind regards", "Regards"}
	channels  = []string{"C0OJAXDCPNS", "C02ALERTS9X", "C07SUPPORT1", "#general", "#deploys", "#sales", "#support", "C0SALES42AB"}
	slackText = []string{"Deploy %d of search finished in 2m :white_check_mark:", "New signup: %s", "Ticket #%d escalated by %s",
		"Invoice %d paid by %s", "Alert: billing-api p99 latency %dms over the last 5m", "Standup in 5 minutes, agenda: %s"}
	titles = []string{"Bug: export fails for %s", "Docs: clarify bulk import", "Crash on login after %s",
		"Feature: webhook retries (%d)", "Flaky test in payments (%d)"}
)

const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const hexdigits = "0123456789abcdef"

func newGen(cfg Config) *gen {
	g := &gen{cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5deece66d))}
	// Users and accounts grow with N, like a bigger project: ~1 user per 200 executions.
	users := min(max(cfg.N/200, 20), 20000)
	for u := range users {
		n := 1 + g.r.IntN(3)
		prof := g.r.IntN(len(profiles))
		for range n {
			g.accounts = append(g.accounts, account{id: g.rnd("ca_", b64, 12), user: "user_" + strconv.Itoa(u), profile: prof,
				company: g.r.IntN(len(companies))})
		}
	}
	total := 0
	for _, t := range tools {
		total += t.weight
		g.weights = append(g.weights, total)
	}
	return g
}

func (g *gen) rnd(prefix, alpha string, n int) string {
	g.buf = append(g.buf[:0], prefix...)
	for range n {
		g.buf = append(g.buf, alpha[g.r.IntN(len(alpha))])
	}
	return string(g.buf)
}

func (g *gen) uuid() string {
	s := g.rnd("", hexdigits, 32)
	return s[:8] + "-" + s[8:12] + "-4" + s[13:16] + "-a" + s[17:20] + "-" + s[20:]
}

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) tool(writesOnly bool) tool {
	for {
		w := g.r.IntN(g.weights[len(g.weights)-1])
		for i, c := range g.weights {
			if w < c {
				if writesOnly && !tools[i].write {
					break
				}
				return tools[i]
			}
		}
	}
}

func (g *gen) person() (string, string) { return pick(g, firsts), pick(g, lasts) }

func (g *gen) email() string {
	f, l := g.person()
	return strings.ToLower(f) + "." + strings.ToLower(l) + "@" + pick(g, companies) + "." + pick(g, domains)
}

func (g *gen) fill(tmpl string, t time.Time) string {
	if !strings.Contains(tmpl, "%") {
		return tmpl
	}
	switch {
	case strings.Contains(tmpl, "%d") && strings.Contains(tmpl, "%s"):
		return fmt.Sprintf(tmpl, 1000+g.r.IntN(90000), pick(g, firsts))
	case strings.Contains(tmpl, "%d"):
		return fmt.Sprintf(tmpl, 1000+g.r.IntN(90000))
	default:
		return fmt.Sprintf(tmpl, t.Format("2006-01-02"))
	}
}

// args builds a tool's arguments; the timestamp key is volatile (ignored when grouping).
func (g *gen) args(tl tool, t time.Time) json.RawMessage {
	var m map[string]any
	switch tl.slug {
	case "GMAIL_SEND_EMAIL", "GMAIL_CREATE_EMAIL_DRAFT", "GMAIL_REPLY_TO_THREAD":
		f, _ := g.person()
		to := g.email()
		body := "Hi " + strings.Split(strings.ToUpper(to[:1])+to[1:], ".")[0] + ",\n\n" + pick(g, sentences) + "\n\n" + pick(g,
			signoffs) + ",\n" + f
		m = map[string]any{"recipient_email": to, "subject": g.fill(pick(g, subjects), t), "body": body}
		if tl.slug == "GMAIL_REPLY_TO_THREAD" {
			m["thread_id"] = g.rnd("19", hexdigits, 14)
		}
		if g.chance(0.2) {
			m["cc"] = []string{g.email()}
		}
	case "GMAIL_FETCH_EMAILS":
		m = map[string]any{"query": "from:" + g.email() + " newer_than:7d", "max_results": 2 + g.r.IntN(4), "verbose": false}
	case "GMAIL_ADD_LABEL_TO_EMAIL":
		m = map[string]any{"message_id": g.rnd("19", hexdigits, 14), "add_label_ids": []string{pick(g, []string{"STARRED", "IMPORTANT",
			"Label_12", "Label_7"})}}
	case "GMAIL_DELETE_MESSAGE":
		m = map[string]any{"message_id": g.rnd("19", hexdigits, 14)}
	case "SLACK_SEND_MESSAGE":
		m = map[string]any{"channel": pick(g, channels), "text": g.fill(pick(g, slackText), t)}
	case "SLACK_FETCH_CONVERSATION_HISTORY":
		m = map[string]any{"channel": pick(g, channels), "limit": 3 + g.r.IntN(6)}
	case "GITHUB_CREATE_AN_ISSUE", "LINEAR_CREATE_LINEAR_ISSUE":
		m = map[string]any{
			"owner": pick(g, companies) + "-" + strconv.Itoa(g.r.IntN(9)),
			"repo":  pick(g, []string{"api", "docs", "web", "billing"}),
			"title": g.fill(pick(g, titles), t),
			"body": "Seen in production since " + t.Add(-48*time.Hour).Format("2006-01-02") + "; " +
				strconv.Itoa(1+g.r.IntN(9)) + " reports so far.",
		}
	case "GITHUB_CREATE_AN_ISSUE_COMMENT":
		m = map[string]any{"owner": pick(g, companies), "repo": "api", "issue_number": 1 + g.r.IntN(400), "body": pick(g, sentences)}
	case "GITHUB_LIST_REPOSITORY_ISSUES":
		m = map[string]any{"owner": pick(g, companies), "repo": "web", "state": "open", "per_page": 3 + g.r.IntN(5)}
	case "HUBSPOT_CREATE_CONTACT":
		f, l := g.person()
		m = map[string]any{"properties": map[string]string{"email": g.email(), "firstname": f, "lastname": l, "company": pick(g,
			companies)}}
	case "HUBSPOT_SEARCH_CONTACTS":
		m = map[string]any{"email": g.email()}
	case "NOTION_CREATE_PAGE":
		m = map[string]any{"parent_id": g.uuid(), "title": g.fill(pick(g, subjects), t), "content": pick(g, sentences)}
	case "GOOGLECALENDAR_CREATE_EVENT":
		m = map[string]any{"summary": g.fill(pick(g, subjects), t), "start_datetime": t.Add(72 * time.Hour).Format(time.RFC3339),
			"event_duration_minutes": 30, "attendees": []string{g.email(), g.email()}}
	}
	if g.chance(0.3) {
		m["timestamp"] = t.Format(time.RFC3339Nano)
	}
	raw, _ := json.Marshal(m)
	return raw
}

// response builds a successful response; reads return lists, writes an id.
func (g *gen) response(tl tool, t time.Time) json.RawMessage {
	var data any
	switch {
	case tl.slug == "GMAIL_FETCH_EMAILS":
		var msgs []map[string]any
		for range 1 + g.r.IntN(3) {
			id := g.rnd("19", hexdigits, 14)
			msgs = append(msgs, map[string]any{"id": id, "threadId": id, "labelIds": []string{"INBOX"}, "sender": g.email(),
				"subject":          g.fill(pick(g, subjects), t),
				"messageTimestamp": t.Add(-time.Duration(g.r.IntN(100000)) * time.Second).Format(time.RFC3339),
				"preview":          map[string]string{"body": pick(g, sentences)}})
		}
		data = map[string]any{"messages": msgs, "resultSizeEstimate": len(msgs) + g.r.IntN(20)}
	case tl.slug == "SLACK_FETCH_CONVERSATION_HISTORY":
		var msgs []map[string]any
		for range 2 + g.r.IntN(4) {
			msgs = append(msgs, map[string]any{"type": "message", "user": g.rnd("U0", b64[:36], 9), "text": g.fill(pick(g, slackText), t),
				"ts": strconv.FormatInt(t.Unix()-int64(g.r.IntN(90000)), 10) + ".000100"})
		}
		data = map[string]any{"ok": true, "messages": msgs, "has_more": g.chance(0.5)}
	case tl.slug == "GITHUB_LIST_REPOSITORY_ISSUES":
		var issues []map[string]any
		for range 1 + g.r.IntN(3) {
			n := 1 + g.r.IntN(400)
			issues = append(issues, map[string]any{"number": n, "title": g.fill(pick(g, titles), t), "state": "open",
				"html_url": "https://github.com/" + pick(g, companies) + "/web/issues/" + strconv.Itoa(n)})
		}
		data = issues
	case tl.slug == "HUBSPOT_SEARCH_CONTACTS":
		f, l := g.person()
		data = map[string]any{"total": 1, "results": []map[string]any{{"id": strconv.Itoa(g.r.IntN(5000)),
			"properties": map[string]string{"firstname": f, "lastname": l, "email": g.email()}, "archived": false}}}
	case strings.HasPrefix(tl.slug, "GITHUB_"):
		n := 1 + g.r.IntN(400)
		data = map[string]any{"id": 2849000000 + g.r.IntN(999999), "number": n, "state": "open",
			"html_url": "https://github.com/" + pick(g, companies) + "/api/issues/" + strconv.Itoa(n), "created_at": t.Format(time.RFC3339)}
	case strings.HasPrefix(tl.slug, "SLACK_"):
		data = map[string]any{"ok": true, "channel": pick(g, channels), "ts": strconv.FormatInt(t.Unix(), 10) + ".000200"}
	default:
		id := g.rnd("19", hexdigits, 14)
		data = map[string]any{"id": id, "threadId": id, "labelIds": []string{"SENT"}}
	}
	raw, _ := json.Marshal(map[string]any{"data": data, "error": nil, "successful": true})
	return raw
}

// failure modes, with how often they happen.
type failure int

const (
	fNone failure = iota
	fTimeout
	f5xx
	f429
	fAuth
	fValidation
	fConnection
	fSlow     // success slower than the caller's 60 s timeout
	fToolFail // success status, response successful:false
)

func (g *gen) failure() failure {
	switch x := g.r.IntN(1000); {
	case x < 18:
		return fTimeout
	case x < 34:
		return f5xx
	case x < 46:
		return f429
	case x < 52:
		return fAuth
	case x < 62:
		return fValidation
	case x < 68:
		return fConnection
	case x < 72:
		return fSlow
	case x < 80:
		return fToolFail
	}
	return fNone
}

// exec builds one execution of tl on account a, starting at start.
func (g *gen) exec(tl tool, a *account, start time.Time, args json.RawMessage, f failure, retry int, session string) *model.Execution {
	g.seq++
	p := profiles[a.profile]
	dur := time.Duration(120+g.r.IntN(2500)) * time.Millisecond
	e := &model.Execution{
		ID: g.rnd("log_", b64, 12), Timestamp: start, ToolSlug: tl.slug, ToolkitSlug: tl.kit, UserID: a.user,
		ConnectedAccountID: a.id, Status: model.StatusSuccess, Level: "info", Message: "Executed " + tl.slug + " successfully",
		StartTime: start, Arguments: args, RequestID: g.uuid(), SessionID: session, TraceID: g.rnd("", hexdigits, 32),
		Source: model.Source{Host: p.host, Framework: p.framework, Language: p.language}, SDKVersion: p.sdk, RetryCount: -1, Detailed: true,
	}
	if p.host == "sdk" {
		e.RetryCount = retry
	}
	fail := func(kind model.ErrorKind, status int, msg string) {
		e.Status, e.Level, e.Message = model.StatusFailed, "error", "Failed to execute "+tl.slug
		e.Error = &model.ExecError{Kind: kind, HTTPStatus: status, Message: msg}
	}
	switch f {
	case fTimeout:
		dur = 60*time.Second + time.Duration(g.r.IntN(900))*time.Millisecond
		fail(model.ErrTimeout, 504, pick(g, []string{"504 Gateway Timeout", "Read timed out after 60s", "upstream request timeout"}))
	case f5xx:
		st := pick(g, []int{500, 502, 503})
		fail(model.ErrUpstream5xx, st, fmt.Sprintf("%d %s from provider", st, map[int]string{500: "Internal Server Error",
			502: "Bad Gateway", 503: "Service Unavailable"}[st]))
	case f429:
		dur = time.Duration(40+g.r.IntN(200)) * time.Millisecond
		fail(model.ErrRateLimited, 429, "Rate limit exceeded, retry after "+strconv.Itoa(1+g.r.IntN(30))+"s")
	case fAuth:
		fail(model.ErrAuth, 401, "invalid_grant: token expired or revoked")
	case fValidation:
		fail(model.ErrValidation, 400, "validation error: 'recipient_email' is required")
	case fConnection:
		fail(model.ErrConnection, 0, pick(g, []string{"connect ETIMEDOUT 142.250.1.1:443", "read ECONNRESET", "socket hang up"}))
	case fSlow:
		dur = 61*time.Second + time.Duration(g.r.IntN(30000))*time.Millisecond
	case fToolFail:
		e.Response = json.RawMessage(`{"data":{},"error":"` + pick(g, []string{"Invalid recipient", "Channel not found", "Repository not found"}) + `","successful":false}`)
	}
	if e.Response == nil && e.Error == nil {
		e.Response = g.response(tl, start)
	}
	e.Duration, e.HasDuration = dur, true
	e.EndTime = start.Add(dur)
	if g.cfg.Production {
		g.produce(e)
	}
	return e
}

// agentPairs are one message in two phrasings with the same facts (%d: an order or ticket
// number): what an LLM agent sends, then sends again reworded after an error.
var agentPairs = [][2]string{
	{"Hi, your order %d has shipped and should arrive by Friday.", "Good news: order %d is on its way and should arrive by Friday."},
	{"Ticket %d is resolved: the login errors came from an expired certificate.",
		"Resolved ticket %d. An expired certificate caused the login errors."},
	{"Invoice %d is attached. Payment is due on the 15th.", "Please find invoice %d attached, with payment due on the 15th."},
	{"Deploy %d of billing-api finished, all checks passed.", "billing-api deploy %d is finished and every check passed."},
}

// withText returns args with its message text (body or text) replaced.
func withText(args json.RawMessage, text string) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	for _, k := range []string{"body", "text"} {
		if _, ok := m[k]; ok {
			m[k] = text
		}
	}
	raw, _ := json.Marshal(m)
	return raw
}

// hasText reports whether a tool's arguments carry a message text the agent would reword.
func hasText(slug string) bool {
	switch slug {
	case "GMAIL_SEND_EMAIL", "GMAIL_CREATE_EMAIL_DRAFT", "GMAIL_REPLY_TO_THREAD", "SLACK_SEND_MESSAGE", "GITHUB_CREATE_AN_ISSUE_COMMENT",
		"GITHUB_CREATE_AN_ISSUE":
		return true
	}
	return false
}

// plan plans the executions anchored at t (all starting at or before t): usually one, else a
// burst: a duplicate group of one of the causes (an old SDK's auto-retry, a current SDK's
// retry of a tool-router session write, an agent framework's tool retry, an agent's reworded
// re-send, an application's loop, a double submit) or a near-miss (a newsletter: one text to
// several recipients, no duplicate). It returns how many it planned (at most left) and whether
// they are duplicates. Only tool-router session executions carry a session id; a caller's
// attempts share their trace.
func (g *gen) plan(t time.Time, left int) (int, bool) {
	a := &g.accounts[g.r.IntN(len(g.accounts))]
	if left < 3 || !g.chance(0.03) {
		tl := g.tool(false)
		args := g.args(tl, t)
		g.pending.push(g.exec(tl, a, t, args, g.failure(), 0, ""))
		return 1, false
	}
	tl := g.tool(true)
	args := g.args(tl, t)
	trace := g.rnd("", hexdigits, 32)
	var burst []*model.Execution
	add := func(e *model.Execution) {
		e.TraceID = trace
		burst = append(burst, e)
	}
	sdkWait := func(i int) time.Duration {
		return time.Duration(float64(min(500*time.Millisecond<<i, 8*time.Second)) * (0.8 + 0.2*g.r.Float64()))
	}
	dup := true
	switch g.r.IntN(8) {
	case 0, 1: // SDK auto-retry: timeouts or 5xx, then retries after ~0.5 s and ~1 s
		n := 2 + g.r.IntN(2)
		start := t.Add(-time.Duration(n) * 62 * time.Second)
		for i := range n {
			f := pick(g, []failure{fTimeout, f5xx})
			if i == n-1 {
				f = pick(g, []failure{fNone, fTimeout})
			}
			e := g.exec(tl, a, start, args, f, i, "")
			add(e)
			start = callerEnd(e).Add(sdkWait(i))
		}
	case 2: // a current SDK retrying a tool-router session write: the session's id, no retry count
		n := 2 + g.r.IntN(2)
		session := "trs_" + g.rnd("", hexdigits, 24)
		start := t.Add(-time.Duration(n) * 62 * time.Second)
		for i := range n {
			f := pick(g, []failure{fTimeout, f5xx})
			if i == n-1 {
				f = fNone
			}
			e := g.exec(tl, a, start, args, f, -1, session)
			e.RetryCount = -1
			add(e)
			start = callerEnd(e).Add(sdkWait(i))
		}
	case 3: // an agent framework's tool retry (LangChain ToolRetryMiddleware): ~1 s, then ~2 s
		n := 2 + g.r.IntN(2)
		start := t.Add(-time.Duration(n) * 63 * time.Second)
		for i := range n {
			f := pick(g, []failure{fTimeout, f5xx})
			if i == n-1 {
				f = fNone
			}
			e := g.exec(tl, a, start, args, f, -1, "")
			e.RetryCount, e.Source.Framework = -1, "langchain"
			add(e)
			start = callerEnd(e).Add(time.Duration(float64(time.Second<<i) * (0.8 + 0.4*g.r.Float64())))
		}
	case 4: // an LLM agent re-sends with the text regenerated, 3-60 s after a failure
		if !hasText(tl.slug) {
			tl = tools[0] // GMAIL_SEND_EMAIL
			args = g.args(tl, t)
		}
		pair := pick(g, agentPairs)
		n := 1000 + g.r.IntN(90000)
		start := t.Add(-125 * time.Second)
		first := g.exec(tl, a, start, withText(args, fmt.Sprintf(pair[0], n)), pick(g, []failure{fTimeout, f5xx}), -1, "")
		first.RetryCount = -1
		add(first)
		second := g.exec(tl, a, callerEnd(first).Add(time.Duration(3000+g.r.IntN(57000))*time.Millisecond), withText(args,
			fmt.Sprintf(pair[1], n)), fNone, -1, "")
		second.RetryCount = -1
		add(second)
	case 5: // application retry loop: failures, then fixed waits
		n := 2 + g.r.IntN(3)
		wait := pick(g, []time.Duration{30 * time.Second, 60 * time.Second, 5 * time.Second})
		start := t.Add(-time.Duration(n) * (wait + 65*time.Second))
		for i := range n {
			f := pick(g, []failure{fTimeout, f5xx, fConnection})
			if i == n-1 {
				f = fNone
			}
			e := g.exec(tl, a, start, args, f, -1, "")
			e.RetryCount = -1
			add(e)
			start = callerEnd(e).Add(wait)
		}
	case 6: // double submit: two callers within a second; now and then exectriage's own retry, or a trigger's redelivery
		if g.chance(0.15) { // a trigger event delivered again after the handler answered late; it wrote each time
			event := g.rnd("msg_", hexdigits, 16)
			// about a third (by the event id, no draw of its own): the event delivered once to each
			// of two webhook endpoints of the project, a create sent twice having made the second
			subscribed := event[4] < '6'
			ats := []time.Time{t.Add(-75 * time.Second), t.Add(-30 * time.Second)}
			if subscribed {
				ats = []time.Time{t.Add(-40 * time.Second), t.Add(-39 * time.Second)}
			}
			for i, at := range ats {
				d := &model.Execution{ID: g.rnd("log_", b64, 12), Type: model.TypeTriggerMessage, Timestamp: at, StartTime: at,
					ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE", ToolkitSlug: "gmail", UserID: a.user, ConnectedAccountID: a.id,
					Status: model.StatusSuccess, Level: "info", Message: "Trigger GMAIL_NEW_GMAIL_MESSAGE delivered", RetryCount: -1,
					Detailed: true,
					Delivery: &model.Delivery{EventID: event, Attempt: i + 1, TriggerID: "ti_" + event[4:14]}}
				switch {
				case subscribed:
					d.Delivery.Attempt, d.Delivery.EndpointID = 1, "we_"+string(rune('a'+i))+event[5:13]
				case i == 0:
					d.Status, d.Delivery.Error = model.StatusFailed, "the app's webhook did not answer within 15 s"
				}
				burst = append(burst, d)
				w := g.exec(tl, a, at.Add(time.Duration(400+g.r.IntN(900))*time.Millisecond), args, fNone, -1, "")
				w.RetryCount = -1
				burst = append(burst, w)
			}
			break
		}
		if g.chance(0.2) { // a timeout, then minutes later exectriage's guarded retry of it
			first := g.exec(tl, a, t.Add(-5*time.Minute), args, fTimeout, -1, "")
			first.RetryCount = -1
			add(first)
			retry := g.exec(tl, a, t.Add(-time.Duration(g.r.IntN(60))*time.Second), args, fNone, -1, "")
			u := g.uuid()
			retry.RequestID, retry.RetryCount = u[:24]+"e7a9"+u[28:], -1
			burst = append(burst, retry)
			break
		}
		add(g.exec(tl, a, t.Add(-900*time.Millisecond), args, fNone, 0, ""))
		second := g.exec(tl, a, t.Add(-time.Duration(g.r.IntN(800))*time.Millisecond), args, pick(g, []failure{fNone, fTimeout}), 0, "")
		burst = append(burst, second) // another caller: its own trace
	default: // near-miss: a newsletter, one text to several recipients (no duplicate)
		dup = false
		tl = tools[0]
		base := g.args(tl, t)
		n := min(3+g.r.IntN(4), left)
		start := t.Add(-time.Duration(n) * time.Second)
		for range n {
			var m map[string]any
			_ = json.Unmarshal(base, &m)
			m["recipient_email"] = g.email()
			raw, _ := json.Marshal(m)
			add(g.exec(tl, a, start, raw, fNone, 0, ""))
			start = start.Add(time.Duration(100+g.r.IntN(800)) * time.Millisecond)
		}
	}
	g.pending.pushAll(burst)
	return len(burst), dup
}

func callerEnd(e *model.Execution) time.Time {
	limit := e.StartTime.Add(60 * time.Second)
	if e.EndTime.Before(limit) {
		return e.EndTime
	}
	return limit
}
