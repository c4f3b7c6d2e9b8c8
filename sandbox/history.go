package sandbox

import (
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// The history generator. It builds companies, users and connected accounts, seeds each
// provider with state from before the span, plans executions (ordinary traffic plus the
// scenarios triage must recognise), then runs them through the simulated providers in time
// order. The providers decide what took effect, so the log, the provider state and the truth
// agree by construction.

// outcome is what the platform did with one planned execution.
type outcome uint8

const (
	outOK                 outcome = iota // provider called; its answer stands (success or provider error)
	outSlowOK                            // provider succeeded, slower than the 60 s client timeout
	outTimeoutCommitted                  // provider called (it committed unless it refused), log says timeout
	outTimeoutUncommitted                // provider never reached, log says timeout
	out5xxAfter                          // provider called, then a 5xx replaced its answer
	out5xxBefore                         // 5xx, provider never reached
	out429                               // rate limited, provider never reached
	outValidation                        // arguments invalid (a required one missing)
	outAuth                              // provider refused the token (401)
	outExpired                           // connected account no longer active
)

// ambiguous reports whether a client could not tell from the answer whether it took effect.
func (o outcome) ambiguous() bool {
	switch o {
	case outSlowOK, outTimeoutCommitted, outTimeoutUncommitted, out5xxAfter, out5xxBefore:
		return true
	}
	return false
}

// clientTimeout is the SDKs' default request timeout: a slower execution was a timeout to its
// caller.
const clientTimeout = 60 * time.Second

// clientProfile is what a caller's headers say about it.
type clientProfile struct {
	host, language, framework, sdkVersion string
	autoRetries                           bool // an SDK that re-sends timed-out or failed executions
}

func (c clientProfile) retryCount() int {
	if c.host == "sdk" {
		return 0
	}
	return -1
}

// plan is one execution to generate.
type plan struct {
	seq        int
	tool       *toolDef
	acct       *account
	args       map[string]any
	raw        json.RawMessage // shared by the members of a group
	start      time.Time
	dur        time.Duration
	effectAt   time.Duration // when the provider acts, from start
	outcome    outcome
	httpStatus int
	profile    clientProfile
	session    string // the caller's session (its trace)
	toolRouter string // the tool-router session's id, for session executions
	retryCount int
	groupKey   string
	pattern    model.RetryPattern
	caseName   string
	parent     *plan // the meta tool run this one ran under (its log id is the parent's)
}

// Case names recorded in TruthRecord.Case.
const (
	CaseOrdinary           = "ordinary"
	CaseSDKAutoRetry       = "sdk_auto_retry"
	CaseSessionAutoRetry   = "session_auto_retry" // a current SDK re-sending a tool-router session write
	CaseFrameworkRetry     = "framework_retry"    // an agent framework's tool retry
	CaseAppRetry           = "app_retry"
	CaseDoubleSubmit       = "double_submit"
	CaseAgentRetry         = "agent_retry"         // an LLM agent re-sending with regenerated text
	CaseNewsletter         = "newsletter"          // near-miss: one text to many recipients
	CaseChannelChatter     = "channel_chatter"     // near-miss: different messages to one channel
	CaseScheduledRepeat    = "scheduled_repeat"    // near-miss: a job repeating after the window
	CaseCommittedTimeout   = "committed_timeout"   // slow success or timeout whose effect exists
	CaseUncommittedTimeout = "uncommitted_timeout" // timeout without effect
	Case5xxAfterCommit     = "5xx_after_commit"
	Case5xxBeforeCommit    = "5xx_before_commit"
	CaseRateLimitBurst     = "rate_limited_burst"
	CaseValidation         = "validation_failure"
	CaseAuth               = "auth_failure"
	CaseExpiredAccount     = "expired_account"
	CaseReadFailure        = "read_failure"
)

type targets struct {
	labelMsgs, deleteMsgs []*gmailMessage
	threads               []*gmailMessage // received thread roots, for replies
	messages              []*gmailMessage // every seeded message, for reads
}

type generator struct {
	r           *rand.Rand
	w           *world
	cat         *catalog
	p           *pools
	from, now   time.Time
	plans       []*plan
	groups      int
	authConfigs map[string]string
	targets     map[*account]*targets
	usedArgs    map[string]bool // tool|account|args of planned writes, to avoid accidental duplicates
	usedEmails  map[string]bool
	externals   []string      // external email addresses
	triggers    []triggerSpec // trigger deliveries to log (redeliveries)
}

// history is what generation produced.
type history struct {
	world   *world
	logs    []*model.Execution // ascending (timestamp, id)
	effects []effectRec
	truth   []TruthRecord
	pending map[string]map[string]any // log id -> data.response not yet marshalled
}

func generate(cat *catalog, seed int64, size int, span time.Duration, now time.Time, events bool) *history {
	g := &generator{
		r:           rand.New(rand.NewPCG(uint64(seed), 0x5eed_c0de_ba5e)),
		w:           &world{ids: idSource{key: uint64(seed)*0x2545F4914F6CDD1D + 0x9E37}, accountByID: map[string]*account{}},
		cat:         cat,
		p:           newPools(),
		from:        now.Add(-span),
		now:         now,
		authConfigs: map[string]string{},
		targets:     map[*account]*targets{},
		usedArgs:    map[string]bool{},
		usedEmails:  map[string]bool{},
	}
	g.buildEntities(size)
	g.seedState()
	g.planAll(size)
	if events {
		g.redeliveries(seed, size)
		g.metaResends(seed, size)
	}
	return g.apply()
}

// between returns a uniform value in [lo, hi).
// between returns a uniform value in [lo, hi], in whole milliseconds: the Logs API shows
// milliseconds, so generated times are exact at that precision.
func (g *generator) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo.Round(time.Millisecond)
	}
	return (lo + time.Duration(g.r.Int64N(int64(hi-lo)))).Round(time.Millisecond)
}

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *generator, xs []T) T { return xs[g.r.IntN(len(xs))] }

// fill expands a template's placeholders with random but plausible values.
func (g *generator) fill(tmpl string, t time.Time) string {
	if !strings.Contains(tmpl, "{") {
		return tmpl
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(g.placeholder(tmpl[i+1:i+j], t))
		tmpl = tmpl[i+j+1:]
	}
}

func (g *generator) placeholder(name string, t time.Time) string {
	switch name {
	case "n":
		return strconv.Itoa(1000 + g.r.IntN(99000))
	case "small":
		return strconv.Itoa(1 + g.r.IntN(9))
	case "tiny":
		return strconv.Itoa(g.r.IntN(10))
	case "hour":
		return strconv.Itoa(8 + g.r.IntN(10))
	case "month":
		return t.AddDate(0, -g.r.IntN(2), 0).Format("January 2006")
	case "date":
		return t.AddDate(0, 0, g.r.IntN(10)-3).Format("2006-01-02")
	case "first":
		return pick(g, g.p.firsts)
	case "company":
		return pick(g, g.p.companies).name
	case "topic":
		return pick(g, g.p.topics)
	case "service":
		return pick(g, g.p.services)
	case "component":
		return pick(g, g.p.components)
	case "feature":
		return pick(g, g.p.features)
	case "action":
		return pick(g, g.p.actions)
	case "email", "ext":
		return pick(g, g.externals)
	}
	return name
}

// ---- entities ----

func (g *generator) profileOf(kind int) clientProfile {
	switch kind {
	case 0:
		return clientProfile{
			host:       "sdk",
			language:   "python",
			framework:  pick(g, g.p.frameworksPy),
			sdkVersion: pick(g, []string{"0.16.0", "0.16.1", "0.16.2"}),
		}
	case 1:
		return clientProfile{
			host:       "sdk",
			language:   "typescript",
			framework:  pick(g, g.p.frameworksTS),
			sdkVersion: pick(g, []string{"0.14.0", "0.14.1", "0.14.3"}),
		}
	case 2:
		return clientProfile{
			host:        "sdk",
			language:    "python",
			framework:   pick(g, g.p.frameworksPy),
			sdkVersion:  pick(g, []string{"0.15.0", "0.15.2", "0.15.4"}),
			autoRetries: true,
		}
	case 3:
		return clientProfile{
			host:        "sdk",
			language:    "typescript",
			framework:   pick(g, g.p.frameworksTS),
			sdkVersion:  pick(g, []string{"0.13.1", "0.13.2", "0.13.4"}),
			autoRetries: true,
		}
	case 4:
		return clientProfile{host: "api"}
	}
	return clientProfile{host: "mcp"}
}

func (g *generator) randomProfile() clientProfile {
	x := g.r.Float64()
	switch {
	case x < 0.35:
		return g.profileOf(0)
	case x < 0.55:
		return g.profileOf(1)
	case x < 0.70:
		return g.profileOf(2)
	case x < 0.80:
		return g.profileOf(3)
	case x < 0.92:
		return g.profileOf(4)
	}
	return g.profileOf(5)
}

// ---- planning ----

// scenario plans one or more executions and returns how many; 0 means it could not (then
// an ordinary execution is planned instead).
type scenario struct {
	weight float64
	size   int // most executions it may plan
	run    func(g *generator) int
}

func (g *generator) planAll(size int) {
	scenarios := []scenario{
		{0.0040, 3, (*generator).sdkBurst},
		{0.0012, 3, (*generator).sessionBurst},
		{0.0012, 3, (*generator).frameworkRetry},
		{0.0030, 3, (*generator).appRetry},
		{0.0030, 3, (*generator).doubleSubmit},
		{0.0020, 3, (*generator).agentRetry},
		{0.0008, 6, (*generator).newsletter},
		{0.0010, 3, (*generator).channelChatter},
		{0.0006, 3, (*generator).scheduledRepeat},
		{0.0022, 1, func(g *generator) int { return g.single(outSlowOK, CaseCommittedTimeout) }},
		{0.0020, 1, func(g *generator) int { return g.single(outTimeoutCommitted, CaseCommittedTimeout) }},
		{0.0022, 1, func(g *generator) int { return g.single(outTimeoutUncommitted, CaseUncommittedTimeout) }},
		{0.0016, 1, func(g *generator) int { return g.single(out5xxAfter, Case5xxAfterCommit) }},
		{0.0016, 1, func(g *generator) int { return g.single(out5xxBefore, Case5xxBeforeCommit) }},
		{0.0026, 6, (*generator).rateLimitBurst},
		{0.0080, 1, func(g *generator) int { return g.single(outValidation, CaseValidation) }},
		{0.0020, 1, func(g *generator) int { return g.single(outAuth, CaseAuth) }},
	}
	for remaining := size; remaining > 0; {
		x, n := g.r.Float64(), 0
		for _, s := range scenarios {
			if x < s.weight {
				if s.size <= remaining {
					n = s.run(g)
				}
				break
			}
			x -= s.weight
		}
		if n == 0 {
			n = g.ordinary()
		}
		remaining -= n
	}
}

// randTime draws a start in [from, now-margin], denser in working hours and on weekdays.
func (g *generator) randTime(margin time.Duration) time.Time {
	span := g.now.Sub(g.from) - margin
	if span <= 0 {
		return g.from
	}
	for range 16 {
		t := g.from.Add(time.Duration(g.r.Int64N(int64(span))))
		w := 0.3
		if h := t.UTC().Hour(); h >= 7 && h < 20 {
			w = 1
		}
		if d := t.UTC().Weekday(); d == time.Saturday || d == time.Sunday {
			w *= 0.5
		}
		if g.chance(w) {
			return t.Truncate(time.Millisecond)
		}
	}
	return g.from.Add(time.Duration(g.r.Int64N(int64(span)))).Truncate(time.Millisecond)
}

func (g *generator) newPlan(u *user, a *account, tool *toolDef, args *argSet, start time.Time, prof clientProfile, caseName string) *plan {
	p := &plan{seq: len(g.plans), tool: tool, acct: a, args: args.m, raw: args.raw, start: start, profile: prof,
		session: pick(g, u.sessions), retryCount: prof.retryCount(), caseName: caseName}
	p.dur, p.effectAt = g.normalDuration(tool)
	g.plans = append(g.plans, p)
	return p
}

func (g *generator) normalDuration(tool *toolDef) (dur, effectAt time.Duration) {
	base, spread := 120*time.Millisecond, 350.0
	if tool.write {
		base, spread = 250*time.Millisecond, 900
		if tool.slug == "GMAIL_SEND_EMAIL" {
			base, spread = 400*time.Millisecond, 1500
		}
	}
	dur = (base + time.Duration(min(g.r.ExpFloat64()*spread, 12000)*float64(time.Millisecond))).Round(time.Millisecond)
	return dur, time.Duration(float64(dur) * (0.5 + 0.4*g.r.Float64())).Round(time.Millisecond)
}

// toolWeights is the ordinary traffic mix per toolkit.
func toolWeights(toolkit string) []struct {
	slug string
	w    int
} {
	type tw = struct {
		slug string
		w    int
	}
	switch toolkit {
	case "gmail":
		return []tw{{"GMAIL_FETCH_EMAILS", 30}, {"GMAIL_SEND_EMAIL", 22}, {"GMAIL_REPLY_TO_THREAD", 8}, {"GMAIL_CREATE_EMAIL_DRAFT", 6},
			{"GMAIL_ADD_LABEL_TO_EMAIL", 7}, {"GMAIL_DELETE_MESSAGE", 3}, {"GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID", 5},
			{"GMAIL_LIST_DRAFTS", 3}, {"GMAIL_FETCH_MESSAGE_BY_THREAD_ID", 3}}
	case "slack":
		return []tw{{"SLACK_SEND_MESSAGE", 45}, {"SLACK_FETCH_CONVERSATION_HISTORY", 40}}
	case "github":
		return []tw{
			{"GITHUB_CREATE_AN_ISSUE", 12},
			{"GITHUB_CREATE_AN_ISSUE_COMMENT", 10},
			{"GITHUB_LIST_REPOSITORY_ISSUES", 25},
			{"GITHUB_LIST_ISSUE_COMMENTS", 6},
		}
	}
	return []tw{{"HUBSPOT_CREATE_CONTACT", 12}, {"HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA", 25}}
}

func (g *generator) pickTool(toolkit string, writesOnly, groupable bool) *toolDef {
	ws := toolWeights(toolkit)
	total := 0
	for _, x := range ws {
		t := g.cat.bySlug[x.slug]
		if (!writesOnly || t.write) && (!groupable || groupableTool(t.slug)) {
			total += x.w
		}
	}
	if total == 0 {
		return nil
	}
	n := g.r.IntN(total)
	for _, x := range ws {
		t := g.cat.bySlug[x.slug]
		if (!writesOnly || t.write) && (!groupable || groupableTool(t.slug)) {
			if n < x.w {
				return t
			}
			n -= x.w
		}
	}
	return nil
}

// groupableTool: the non-idempotent writes that duplicate groups are made of.
func groupableTool(slug string) bool {
	return slug != "GMAIL_ADD_LABEL_TO_EMAIL" && slug != "GMAIL_DELETE_MESSAGE"
}

// pickUser draws a user whose client matches want (nil: any) and one of their accounts
// usable throughout [t, t+d] when stable is set.
func (g *generator) pickUser(want func(clientProfile) bool, stable bool) (*user, *account) {
	for range 32 {
		u := pick(g, g.w.users)
		if want != nil && !want(u.profile) {
			continue
		}
		a := u.accounts[pick(g, u.toolkits)]
		if stable && !a.stable {
			continue
		}
		return u, a
	}
	return nil, nil
}

// pickWrite picks a user from a stable session (see pickUser) and a write tool of the
// account's toolkit; tool is nil when there is none.
func (g *generator) pickWrite(want func(clientProfile) bool, groupable bool) (*user, *account, *toolDef) {
	u, a := g.pickUser(want, true)
	if u == nil {
		return nil, nil, nil
	}
	return u, a, g.pickTool(a.toolkit, true, groupable)
}

func noAutoRetry(p clientProfile) bool { return !p.autoRetries }

func (g *generator) ordinary() int {
	u := pick(g, g.w.users)
	a := u.accounts[pick(g, u.toolkits)]
	tool := g.pickTool(a.toolkit, false, false)
	start := g.randTime(time.Minute)
	args := g.argsFor(tool, a, start)
	if args == nil { // no target left (e.g. nothing to delete): read instead
		tool = g.pickTool(a.toolkit, false, false)
		if args = g.argsFor(tool, a, start); args == nil {
			tool, _ = g.cat.get(readToolOf(a.toolkit))
			args = g.argsFor(tool, a, start)
		}
	}
	p := g.newPlan(u, a, tool, args, start, u.profile, CaseOrdinary)
	switch {
	case !a.usableAt(start):
		p.outcome, p.caseName = outExpired, CaseExpiredAccount
		p.dur = g.between(8*time.Millisecond, 40*time.Millisecond)
	case !tool.write && !u.profile.autoRetries && g.chance(0.011):
		p.caseName = CaseReadFailure
		switch x := g.r.Float64(); {
		case x < 0.45:
			p.outcome, p.dur = outTimeoutUncommitted, clientTimeout+g.between(0, 40*time.Millisecond)
		case x < 0.75:
			p.outcome, p.httpStatus, p.dur = out5xxBefore, pick(g, []int{500, 503}), g.between(200*time.Millisecond, 3*time.Second)
		default:
			p.outcome, p.httpStatus, p.dur = out429, 429, g.between(30*time.Millisecond, 150*time.Millisecond)
		}
	}
	return 1
}

func readToolOf(toolkit string) string {
	switch toolkit {
	case "gmail":
		return "GMAIL_FETCH_EMAILS"
	case "slack":
		return "SLACK_FETCH_CONVERSATION_HISTORY"
	case "github":
		return "GITHUB_LIST_REPOSITORY_ISSUES"
	}
	return "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA"
}

// single plans one write with a given platform outcome, from a client that does not retry.
func (g *generator) single(o outcome, caseName string) int {
	u, a, tool := g.pickWrite(noAutoRetry, false)
	if tool == nil || (o == outValidation && !hasRequired(tool)) {
		return 0
	}
	start := g.randTime(6 * time.Minute)
	args := g.argsFor(tool, a, start)
	if args == nil {
		return 0
	}
	p := g.newPlan(u, a, tool, args, start, u.profile, caseName)
	g.setOutcome(p, o)
	if o == outValidation {
		var req []string
		for _, prm := range tool.params {
			if prm.required {
				req = append(req, prm.name)
			}
		}
		delete(p.args, pick(g, req))
		p.raw, _ = json.Marshal(p.args)
	}
	return 1
}

func sortLogs(logs []*model.Execution) {
	sort.SliceStable(logs, func(i, j int) bool { return logLess(logs[i], logs[j]) })
}

// logLess orders by (timestamp, id), oldest first.
func logLess(a, b *model.Execution) bool {
	if !a.Timestamp.Equal(b.Timestamp) {
		return a.Timestamp.Before(b.Timestamp)
	}
	return a.ID < b.ID
}
