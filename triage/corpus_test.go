package triage_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// The duplicate corpus: labelled traffic written for this test alone (not the sandbox's or the
// demo's generator), to measure grouping and cause per pattern. Each seed draws background
// traffic from many users and, among it, groups of every pattern and near-misses that a
// person would not call duplicates. Timing has jitter and network noise; session ids,
// frameworks, retry counts and SDK versions are left out at random, as real logs leave them.
// The texts of agent re-sends are hand-written phrasings of one intent with the same facts,
// independent of the phrase pairs that chose the similarity threshold (similar_test.go).

// intent is one message with several phrasings; {name}, {n}, {amt}, {day}, {svc} are its facts.
type intent struct {
	phrasings []string
}

func corpusIntents() []intent {
	return []intent{
		{[]string{
			"Hi {name}, your order {n} has shipped and should arrive by {day}.",
			"Good news {name}: order {n} is on its way and will be with you by {day}.",
			"{name}, we shipped order {n} today. Expected delivery: {day}.",
		}},
		{[]string{
			"Invoice {n} for ${amt} is attached. Payment is due {day}.",
			"Please find invoice {n} attached (${amt}), due on {day}.",
			"Attached: invoice {n}, amount ${amt}, payment due {day}.",
		}},
		{[]string{
			"Deploy of {svc} {n} finished successfully.",
			"{svc} {n} deployed successfully, deploy finished.",
			"Finished the deploy of {svc} {n}, it succeeded.",
		}},
		{[]string{
			"Reminder: the review meeting with {name} is on {day} at {n}.",
			"Quick reminder that our review meeting with {name} is {day} at {n}.",
			"Don't forget the review meeting with {name}, {day} at {n}.",
		}},
		{[]string{
			"{name}, your refund of ${amt} was processed and will reach your account in {n} days.",
			"We processed your refund of ${amt}, {name}; it will reach your account within {n} days.",
			"Refund processed: ${amt} for {name}, reaching your account in {n} days.",
		}},
		{[]string{
			"The {svc} export fails with a timeout after {n} seconds on large reports.",
			"Exporting large reports from {svc} fails: it times out after {n} seconds.",
			"Large report exports in {svc} time out and fail after {n} seconds.",
		}},
		{[]string{
			"Can we move the call with {name} to {day}? Something came up.",
			"Something came up, could we move the call with {name} to {day}?",
			"Would moving the call with {name} to {day} work? Something came up.",
		}},
		{[]string{
			"Incident {n} resolved: {svc} login errors came from an expired certificate, now renewed.",
			"Resolved incident {n}. The {svc} login errors were caused by an expired certificate, which we renewed.",
			"Incident {n} is resolved; an expired certificate caused the {svc} login errors and it has been renewed.",
		}},
	}
}

var (
	corpusNames    = []string{"Dana", "Priya", "Tom", "Mateo", "Ingrid", "Kenji", "Amara", "Lucas", "Sofia", "Omar", "Chen", "Zoe"}
	corpusDays     = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "March 3", "April 14", "June 2"}
	corpusServices = []string{"billing-api", "search", "checkout", "payments", "reporting", "auth-gateway"}
)

// facts is one draw of an intent's facts.
type facts map[string]string

func (g *corpusGen) facts() facts {
	return facts{
		"{name}": pickOne(g.r, corpusNames), "{day}": pickOne(g.r, corpusDays), "{svc}": pickOne(g.r, corpusServices),
		"{n}": fmt.Sprint(1000 + g.r.IntN(90000)), "{amt}": fmt.Sprintf("%d.%02d", 20+g.r.IntN(5000), g.r.IntN(100)),
	}
}

func (f facts) fill(s string) string {
	for k, v := range f {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

func pickOne[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// failsBeforeLast is how attempt i of n ends when every attempt but the last fails as fail.
func failsBeforeLast(i, n int, fail ending) ending {
	if i < n-1 {
		return fail
	}
	return endOK
}

type corpusGen struct {
	r      *rand.Rand
	now    time.Time
	execs  []model.Execution
	label  map[string]string             // execution id → truth group
	causes map[string]model.RetryPattern // truth group → cause
	groups int
	ids    int
	fixed  map[string]bool   // executions recorded with a fixed SDK on their path
	fam    string            // the family being drawn
	famOf  map[string]string // truth group → its family
	miss   string            // the near-miss being drawn ("" for none)
	misses map[string]string // execution id → its near-miss
}

const corpusTimeout = 60 * time.Second

func newCorpus(seed uint64) *corpusGen {
	g := &corpusGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC),
		label: map[string]string{}, causes: map[string]model.RetryPattern{}, fixed: map[string]bool{}, misses: map[string]string{}, famOf: map[string]string{}}
	return g
}

// caller is who calls: a user and account, an SDK, a conversation.
type caller struct {
	user, account, language, sdk, framework, trace, session string
	fixed                                                   bool // the SDK sends tools.execute once
}

func (g *corpusGen) caller(sdk, lang string) caller {
	u := g.r.IntN(400)
	c := caller{user: fmt.Sprintf("user_%d", u), account: fmt.Sprintf("ca_%d", u), language: lang, sdk: sdk,
		trace: fmt.Sprintf("tr_%x", g.r.Uint64())}
	if g.r.Float64() < 0.3 { // not every log says the SDK
		c.sdk = ""
	}
	if g.r.Float64() < 0.3 {
		c.language = ""
	}
	return c
}

func (g *corpusGen) current() caller {
	var c caller
	if g.r.Float64() < 0.5 {
		c = g.caller(pickOne(g.r, []string{"0.21.0", "0.20.1", "0.14.2"}), "typescript")
	} else {
		c = g.caller(pickOne(g.r, []string{"0.16.0", "0.18.3", "0.25.1"}), "python")
	}
	c.fixed = true
	return c
}

func (g *corpusGen) old() caller {
	if g.r.Float64() < 0.5 {
		return g.caller(pickOne(g.r, []string{"0.13.4", "0.12.0"}), "typescript")
	}
	return g.caller(pickOne(g.r, []string{"0.15.2", "0.14.9"}), "python")
}

// tool draws a write and its arguments for an intent's text.
type target struct {
	slug, toolkit string
	args          func(text string) map[string]any
}

func (g *corpusGen) target(f facts) target {
	switch g.r.IntN(4) {
	case 0:
		to := fmt.Sprintf("%s.%d@example.org", strings.ToLower(f["{name}"]), g.r.IntN(1000))
		subj := pickOne(g.r, []string{"Your order", "Invoice", "Update", "Quick question"}) + " " + f["{n}"]
		return target{"GMAIL_SEND_EMAIL", "gmail", func(text string) map[string]any {
			return map[string]any{"recipient_email": to, "subject": subj, "body": text}
		}}
	case 1:
		ch := fmt.Sprintf("C%06d", g.r.IntN(1e6))
		key := pickOne(g.r, []string{"text", "text", "markdown_text"})
		return target{"SLACK_SEND_MESSAGE", "slack", func(text string) map[string]any { return map[string]any{"channel": ch, key: text} }}
	case 2:
		repo := pickOne(g.r, corpusServices)
		title := "Follow-up " + f["{n}"]
		return target{"GITHUB_CREATE_AN_ISSUE", "github", func(text string) map[string]any {
			return map[string]any{"owner": "acme", "repo": repo, "title": title, "body": text}
		}}
	default:
		repo, num := pickOne(g.r, corpusServices), 1+g.r.IntN(500)
		return target{"GITHUB_CREATE_AN_ISSUE_COMMENT", "github", func(text string) map[string]any {
			return map[string]any{"owner": "acme", "repo": repo, "issue_number": num, "body": text}
		}}
	}
}

// ending is how an attempt ended.
type ending int

const (
	endOK ending = iota
	endTimeout
	end5xx
	end429
)

// add records one attempt; it returns when the caller stopped waiting (end, or the timeout).
func (g *corpusGen) add(c caller, tg target, args map[string]any, start time.Time, end ending, dur time.Duration, retry int, group string) time.Time {
	g.ids++
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	e := model.Execution{
		ID: fmt.Sprintf("log_c%06d", g.ids), ToolSlug: tg.slug, ToolkitSlug: tg.toolkit, UserID: c.user, ConnectedAccountID: c.account,
		StartTime: start, Timestamp: start, Arguments: raw, Detailed: true, RetryCount: retry, SessionID: c.session, TraceID: c.trace,
		SDKVersion: c.sdk, Source: model.Source{Language: c.language, Framework: c.framework}, Status: "success",
		RequestID: fmt.Sprintf("req_%x", g.r.Uint64()),
	}
	stopped := start.Add(dur)
	switch end {
	case endTimeout: // the caller gave up; the log may or may not say when the server finished
		e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrTimeout, Message: "Request timed out"}
		stopped = start.Add(corpusTimeout)
		if g.r.Float64() < 0.5 {
			dur = corpusTimeout + time.Duration(g.r.IntN(20000))*time.Millisecond
		} else {
			dur = 0
		}
	case end5xx:
		code := pickOne(g.r, []int{500, 502, 503, 504})
		e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrUpstream5xx, HTTPStatus: code, Message: fmt.Sprintf("upstream returned %d", code)}
	case end429:
		e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrRateLimited, HTTPStatus: 429, Message: "rate limited"}
	}
	if dur > 0 {
		e.EndTime, e.Duration, e.HasDuration = start.Add(dur), dur, true
	}
	g.execs = append(g.execs, e)
	if group != "" {
		g.label[e.ID] = group
	}
	if g.miss != "" {
		g.misses[e.ID] = g.miss
	}
	if c.fixed && c.sdk != "" && c.language != "" && e.SessionID == "" {
		g.fixed[e.ID] = true // a current SDK on tools.execute: no note may call it old
	}
	return stopped
}

func (g *corpusGen) newGroup(p model.RetryPattern) string {
	g.groups++
	k := fmt.Sprintf("g%04d", g.groups)
	g.causes[k] = p
	g.famOf[k] = g.fam
	return k
}

func (g *corpusGen) start() time.Time {
	return g.now.Add(-time.Duration(g.r.Int64N(int64(72 * time.Hour))))
}

func (g *corpusGen) jitter(d time.Duration, lo, hi float64) time.Duration {
	return time.Duration(float64(d) * (lo + (hi-lo)*g.r.Float64()))
}

func (g *corpusGen) net() time.Duration { return time.Duration(g.r.IntN(80)) * time.Millisecond }

func (g *corpusGen) fast() time.Duration {
	return time.Duration(150+g.r.IntN(2500)) * time.Millisecond
}

func (g *corpusGen) failure() ending {
	if g.r.Float64() < 0.55 {
		return endTimeout
	}
	return end5xx
}

func (g *corpusGen) dropRetryCount(i int) int {
	if g.r.Float64() < 0.5 {
		return -1
	}
	return i
}

// One group per call, by pattern.

func (g *corpusGen) sdkRetry() {
	g.retryBurst(g.old(), model.PatternSDKAutoRetry, g.dropRetryCount, g.sdkWait)
}

func (g *corpusGen) sessionRetry() {
	c := g.current()
	c.session = fmt.Sprintf("trs_%x", g.r.Uint64())
	c.sdk = pickOne(g.r, []string{"0.21.0", "0.22.0"})
	g.retryBurst(c, model.PatternSessionAutoRetry, noRetryCount, g.sdkWait)
}

func (g *corpusGen) frameworkRetry() {
	c := g.current()
	if g.r.Float64() < 0.7 {
		c.framework = "langchain"
	}
	g.retryBurst(c, model.PatternFrameworkRetry, noRetryCount, func(i int) time.Duration {
		return g.jitter(time.Second<<i, 0.8, 1.25) + g.net()
	})
}

// sdkWait is the SDKs' backoff before retry i+1: min(0.5·2^i, 8) s times [0.75, 1], plus the
// network.
func (g *corpusGen) sdkWait(i int) time.Duration {
	return g.jitter(min(500*time.Millisecond<<i, 8*time.Second), 0.75, 1) + g.net()
}

func noRetryCount(int) int { return -1 }

// retryBurst is 2-3 attempts of one call with the same arguments, each but the last failing,
// the next starting wait(i) after the caller stopped waiting for attempt i.
func (g *corpusGen) retryBurst(c caller, p model.RetryPattern, retryCount func(i int) int, wait func(i int) time.Duration) {
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(p)
	n := 2 + g.r.IntN(2)
	t := g.start()
	for i := range n {
		end := endOK
		if i < n-1 {
			end = g.failure()
		}
		stopped := g.add(c, tg, args, t, end, g.fast(), retryCount(i), key)
		t = stopped.Add(wait(i))
	}
}

func (g *corpusGen) agentRetry() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	if g.r.Float64() < 0.3 {
		c.trace = ""
	}
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	tg := g.target(f)
	key := g.newGroup(model.PatternAgentRetry)
	n := 2
	if g.r.Float64() < 0.25 {
		n = 3
	}
	order := g.r.Perm(len(it.phrasings))
	t := g.start()
	for i := range n {
		end := endOK
		if i < n-1 {
			end = g.failure()
		}
		stopped := g.add(c, tg, tg.args(f.fill(it.phrasings[order[i]])), t, end, g.fast(), -1, key)
		t = stopped.Add(time.Duration(3000+g.r.IntN(57000)) * time.Millisecond) // the model's next turn
	}
}

func (g *corpusGen) appRetry() { g.appLoop(false) }

// appLoop is the application's retry loop: regular (or doubling) waits after failures the
// caller saw, the same payload each time or, rebuilt, with the footer's time, a fresh request
// id in the body and null where the first attempt left a key out. app_retry.
func (g *corpusGen) appLoop(rebuild bool) {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	text := f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings))
	key := g.newGroup(model.PatternAppRetry)
	n := 2 + g.r.IntN(3)
	every := pickOne(g.r, []time.Duration{5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute})
	doubling := !rebuild && g.r.Float64() < 0.4
	fail := pickOne(g.r, []ending{endTimeout, end5xx, end429})
	t := g.start()
	for i := range n {
		end := failsBeforeLast(i, n, fail)
		args := tg.args(text)
		if rebuild {
			args = tg.args(fmt.Sprintf("%s\n\n-- sent %s · ref %08x-%04x-4%03x-a%03x-%012x", text, t.Format("15:04:05"),
				g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<12), g.r.IntN(1<<12), g.r.Int64N(1<<48)))
			if i > 0 && g.r.Float64() < 0.5 {
				args["cc"] = nil // the rebuilt payload sends null where the first left the key out
			}
		}
		stopped := g.add(c, tg, args, t, end, g.fast(), -1, key)
		d := every
		if doubling {
			d = every << i
		}
		t = stopped.Add(g.jitter(d, 0.99, 1.01))
	}
}

func (g *corpusGen) doubleSubmit() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(model.PatternDoubleSubmit)
	t := g.start()
	if g.r.Float64() < 0.6 { // a second click while the first runs
		d := time.Duration(600+g.r.IntN(2000)) * time.Millisecond
		g.add(c, tg, args, t, endOK, d, -1, key)
		g.add(c, tg, args, t.Add(time.Duration(20+g.r.IntN(400))*time.Millisecond), endOK, d, -1, key)
		return
	}
	// two workers: the same job picked up twice, both succeed
	c2 := c
	c2.trace = fmt.Sprintf("tr_%x", g.r.Uint64())
	stopped := g.add(c, tg, args, t, endOK, g.fast(), -1, key)
	g.add(c2, tg, args, stopped.Add(time.Duration(1500+g.r.IntN(40000))*time.Millisecond), endOK, g.fast(), -1, key)
}

// metaResend: a session's meta tool (COMPOSIO_MULTI_EXECUTE_TOOL) times out at the client and
// the SDK sends it again; both tools it holds run again under the new run. The runs are one
// group and each tool's two runs another (two intents, not one), all the session's
// own retry.
func (g *corpusGen) metaResend() {
	c := g.current()
	c.session = fmt.Sprintf("trs_%x", g.r.Uint64())
	c.sdk, c.language = pickOne(g.r, []string{"0.21.0", "0.22.0"}), "typescript"
	f := g.facts()
	tools := []target{g.target(f), g.target(f)}
	for tools[1].slug == tools[0].slug {
		tools[1] = g.target(f)
	}
	args := []map[string]any{tools[0].args(f.fill(pickOne(g.r, corpusIntents()[0].phrasings))), tools[1].args(f.fill(pickOne(g.r, corpusIntents()[2].phrasings)))}
	meta := target{"COMPOSIO_MULTI_EXECUTE_TOOL", "composio", nil}
	metaArgs := map[string]any{"tools": []any{map[string]any{"tool_slug": tools[0].slug}, map[string]any{"tool_slug": tools[1].slug}}}
	runs := g.newGroup(model.PatternSessionAutoRetry)
	children := []string{g.newGroup(model.PatternSessionAutoRetry), g.newGroup(model.PatternSessionAutoRetry)}
	t := g.start()
	for i := range 2 {
		end := endTimeout
		if i == 1 {
			end = endOK
		}
		stopped := g.add(c, meta, metaArgs, t, end, 3*time.Second, -1, runs)
		run := g.execs[len(g.execs)-1].ID
		at := t.Add(g.jitter(400*time.Millisecond, 0.5, 1.5))
		for k, tg := range tools {
			g.add(c, tg, args[k], at, endOK, g.fast(), -1, children[k])
			g.execs[len(g.execs)-1].Parent = &model.Parent{LogID: run, ToolSlug: meta.slug}
			at = at.Add(time.Second + time.Duration(g.r.IntN(500))*time.Millisecond)
		}
		t = stopped.Add(g.jitter(450*time.Millisecond, 0.85, 1.1)) // the SDK's first wait after the timeout
	}
}

// delivery records a trigger delivery of event (attempt n) for c at t.
func (g *corpusGen) delivery(c caller, event string, n int, t time.Time) {
	g.ids++
	g.execs = append(g.execs, model.Execution{ID: fmt.Sprintf("log_t%06d", g.ids), Type: model.TypeTriggerMessage, ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE",
		ToolkitSlug: "gmail", UserID: c.user, ConnectedAccountID: c.account, StartTime: t, Timestamp: t, Status: "success", Detailed: true, RetryCount: -1,
		Delivery: &model.Delivery{EventID: event, Attempt: n, TriggerID: "ti_" + c.user}})
	if g.miss != "" {
		g.misses[g.execs[len(g.execs)-1].ID] = g.miss
	}
}

// redelivery: a trigger's event is delivered, the app's handler writes and then answers too
// late, the event comes again and the handler writes again: trigger_redelivery.
func (g *corpusGen) redelivery() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(model.PatternTriggerRedelivery)
	event := fmt.Sprintf("msg_%x", g.r.Uint64())
	t := g.start()
	for n := 1; n <= 2; n++ {
		g.delivery(c, event, n, t)
		g.add(c, tg, args, t.Add(time.Duration(300+g.r.IntN(2000))*time.Millisecond), endOK, g.fast(), -1, key)
		t = t.Add(time.Duration(30+g.r.IntN(300)) * time.Second) // the platform's next attempt
	}
}

// batchReplay: a job that sends a batch of messages (each to its own recipient) dies part way
// and is run again a few minutes later: every message of the batch is sent again, those the
// first run had sent too. Each message's two sends are a group, the app's retry.
func (g *corpusGen) batchReplay() {
	c := g.current()
	n := 3 + g.r.IntN(4)
	type msg struct {
		tg   target
		args map[string]any
	}
	msgs := make([]msg, n)
	for i := range msgs {
		f := g.facts()
		tg := g.target(f)
		msgs[i] = msg{tg, tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))}
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = g.newGroup(model.PatternAppRetry)
	}
	t := g.start()
	died := g.r.IntN(n) // the send the job died on
	for i, m := range msgs {
		end := endOK
		if i == died {
			end = end5xx
		}
		stopped := g.add(c, m.tg, m.args, t, end, g.fast(), -1, keys[i])
		t = stopped.Add(time.Duration(100+g.r.IntN(900)) * time.Millisecond)
	}
	t = t.Add(time.Duration(2+g.r.IntN(8)) * time.Minute) // the job runs again, from the start
	for i, m := range msgs {
		stopped := g.add(c, m.tg, m.args, t, endOK, g.fast(), -1, keys[i])
		t = stopped.Add(time.Duration(100+g.r.IntN(900)) * time.Millisecond)
	}
}

// Near-misses: none of these is a duplicate.

// twoEvents: one trigger fires twice for two different events, and the handler writes about each.
func (g *corpusGen) twoEvents() {
	c := g.current()
	t := g.start()
	it := pickOne(g.r, corpusIntents())
	for range 2 {
		f := g.facts()
		tg := g.target(f)
		g.delivery(c, fmt.Sprintf("msg_%x", g.r.Uint64()), 1, t)
		g.add(c, tg, tg.args(f.fill(pickOne(g.r, it.phrasings))), t.Add(time.Duration(300+g.r.IntN(2000))*time.Millisecond), endOK, g.fast(), -1, "")
		t = t.Add(time.Duration(20+g.r.IntN(120)) * time.Second)
	}
}

// sessionSendsTwice: an agent's session sends two different messages to one recipient, a minute
// apart, each of its own (a confirmation, then the receipt).
func (g *corpusGen) sessionSendsTwice() {
	c := g.current()
	c.session = fmt.Sprintf("trs_%x", g.r.Uint64())
	f := g.facts()
	tg := g.target(f)
	t := g.start()
	intents := corpusIntents()
	a, b := g.r.IntN(len(intents)), g.r.IntN(len(intents)-1)
	if b >= a {
		b++
	}
	stopped := g.add(c, tg, tg.args(f.fill(pickOne(g.r, intents[a].phrasings))), t, endOK, g.fast(), -1, "")
	g.add(c, tg, tg.args(f.fill(pickOne(g.r, intents[b].phrasings))), stopped.Add(time.Duration(20+g.r.IntN(60))*time.Second), endOK, g.fast(), -1, "")
}

func (g *corpusGen) newsletter() {
	c := g.current()
	body := corpusIntents()[1].phrasings[0]
	f := g.facts()
	t := g.start()
	for range 4 + g.r.IntN(8) {
		to := fmt.Sprintf("subscriber.%d@example.org", g.r.IntN(1e6))
		tg := target{"GMAIL_SEND_EMAIL", "gmail", func(text string) map[string]any {
			return map[string]any{"recipient_email": to, "subject": "Monthly update", "body": text}
		}}
		g.add(c, tg, tg.args(f.fill(body)), t, endOK, g.fast(), -1, "")
		t = t.Add(time.Duration(100+g.r.IntN(400)) * time.Millisecond)
	}
}

func (g *corpusGen) channelChatter() {
	c := g.current()
	ch := fmt.Sprintf("C%06d", g.r.IntN(1e6))
	tg := target{"SLACK_SEND_MESSAGE", "slack", func(text string) map[string]any { return map[string]any{"channel": ch, "text": text} }}
	it := pickOne(g.r, corpusIntents())
	t := g.start()
	seen := map[string]bool{}
	for range 3 {
		// the same kind of message about different facts (another order, another invoice):
		// facts drawn again when a draw repeats an earlier one, which would be a duplicate
		text := g.facts().fill(it.phrasings[0])
		for seen[text] {
			text = g.facts().fill(it.phrasings[0])
		}
		seen[text] = true
		g.add(c, tg, tg.args(text), t, endOK, g.fast(), -1, "")
		t = t.Add(time.Duration(5+g.r.IntN(120)) * time.Second)
	}
	other := pickOne(g.r, corpusIntents())
	g.add(c, tg, tg.args(g.facts().fill(other.phrasings[1])), t, endOK, g.fast(), -1, "")
}

func (g *corpusGen) scheduled() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(corpusIntents()[2].phrasings[0]))
	t := g.start()
	every := pickOne(g.r, []time.Duration{15 * time.Minute, 30 * time.Minute, time.Hour})
	for range 3 {
		g.add(c, tg, args, t, endOK, g.fast(), -1, "")
		t = t.Add(g.jitter(every, 0.98, 1.02))
	}
}

func (g *corpusGen) sameRecipientOtherSubject() {
	c := g.current()
	f := g.facts()
	to := "ops." + f["{n}"] + "@example.org"
	t := g.start()
	for _, subj := range []string{"Order " + f["{n}"], "Invoice " + f["{n}"]} {
		tg := target{"GMAIL_SEND_EMAIL", "gmail", func(text string) map[string]any {
			return map[string]any{"recipient_email": to, "subject": subj, "body": text}
		}}
		g.add(c, tg, tg.args(f.fill(corpusIntents()[0].phrasings[0])), t, endOK, g.fast(), -1, "")
		t = t.Add(time.Duration(10+g.r.IntN(60)) * time.Second)
	}
}

// nextTemplated: a bot posts one template about two different things (another order, build
// or amount; another person where the template names nothing else) to one channel, the first
// post unclear: the words are nearly all shared, the facts are not, so the second is a new
// message, not the first sent again.
func (g *corpusGen) nextTemplated() {
	c := g.current()
	ch := fmt.Sprintf("C%06d", g.r.IntN(1e6))
	tg := target{"SLACK_SEND_MESSAGE", "slack", func(text string) map[string]any { return map[string]any{"channel": ch, "text": text} }}
	it := pickOne(g.r, corpusIntents())
	a, b := g.facts(), g.facts()
	b["{day}"] = a["{day}"]
	if strings.Contains(it.phrasings[0], "{n}") {
		b["{name}"] = a["{name}"] // another number, service or amount for the same person
	} else {
		for b["{name}"] == a["{name}"] { // the template names a person only: another person
			b["{name}"] = pickOne(g.r, corpusNames)
		}
	}
	t := g.start()
	stopped := g.add(c, tg, tg.args(a.fill(it.phrasings[0])), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tg.args(b.fill(it.phrasings[0])), stopped.Add(time.Duration(5+g.r.IntN(60))*time.Second), endOK, g.fast(), -1, "")
}

// followUp: an invoice, then minutes later a reminder about it to the same person and subject,
// with the same facts: the first succeeded, so the second is a new message.
func (g *corpusGen) followUp() {
	c := g.current()
	f := g.facts()
	to := strings.ToLower(f["{name}"]) + "." + f["{n}"] + "@example.org"
	tg := target{"GMAIL_SEND_EMAIL", "gmail", func(text string) map[string]any {
		return map[string]any{"recipient_email": to, "subject": "Invoice " + f["{n}"], "body": text}
	}}
	t := g.start()
	stopped := g.add(c, tg, tg.args(f.fill("Hi {name}, invoice {n} for ${amt} is attached. Payment is due {day}.")), t, endOK, g.fast(), -1, "")
	g.add(c, tg, tg.args(f.fill("Hi {name}, a reminder that invoice {n} for ${amt} is still open; payment is due {day}.")),
		stopped.Add(time.Duration(60+g.r.IntN(480))*time.Second), endOK, g.fast(), -1, "")
}

func (g *corpusGen) background() {
	c := g.current()
	f := g.facts()
	if g.r.Float64() < 0.5 {
		tg := target{"GMAIL_FETCH_EMAILS", "gmail", func(string) map[string]any { return map[string]any{"query": "from:" + f["{name}"], "max_results": 10} }}
		t := g.start()
		for range 1 + g.r.IntN(3) { // reads repeat freely
			g.add(c, tg, tg.args(""), t, endOK, g.fast(), -1, "")
			t = t.Add(time.Duration(g.r.IntN(5000)) * time.Millisecond)
		}
		return
	}
	tg := g.target(f)
	end := endOK
	if g.r.Float64() < 0.05 {
		end = g.failure()
	}
	g.add(c, tg, tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings))), g.start(), end, g.fast(), -1, "")
}

func generateCorpus(seed uint64, perPattern int) *corpusGen {
	g := newCorpus(seed)
	for range perPattern {
		for _, f := range []struct {
			name string
			draw func()
		}{{"sdk retry", g.sdkRetry}, {"session retry", g.sessionRetry}, {"framework retry", g.frameworkRetry}, {"agent rewords", g.agentRetry},
			{"app retry", g.appRetry}, {"double submit", g.doubleSubmit}, {"meta-tool re-send", g.metaResend}, {"redelivery", g.redelivery},
			{"batch replay", g.batchReplay}, {"agent rewrites (languages, HTML, addresses)", g.agentRewrites}, {"agent via a sibling tool", g.agentSibling},
			{"app rebuilds the payload", g.appRebuilds}, {"agent rebooks a slot under another title", g.agentRebooks},
			{"agent re-creates a contact spelled otherwise", g.agentRecreatesContact}, {"agent appends the rows again, reformatted", g.agentReappendsRows},
			{"a slow second click", g.slowSecondClick}, {"app retry, jittered waits", g.jitteredAppRetry},
			{"agent rewrites in other scripts", g.agentRewritesScripts}, {"a queue redelivers the job", g.queueRedelivery},
			{"the next cron run re-sends a failed job", g.cronRerun}, {"agent re-addresses the same people", g.agentReaddresses},
			{"agent spells out or drops the defaults", g.agentFillsDefaults}, {"agent files the issue again, retitled", g.agentRefiles},
			{"agent runs it again through the meta tool", g.agentViaMetaTool}, {"agent writes it again, shorter", g.agentShortens},
			{"agent writes the facts in another notation", g.agentRenotates}, {"agent creates the task again", g.agentRecreatesTask},
			{"agent writes it again after a late success", g.agentAfterALateSuccess},
			{"agent rebooks with attendees and start in other shapes", g.agentRebooksInOtherShapes},
			{"app retry with a fresh key each time", g.appFreshKey}, {"agent uploads the file again and re-sends", g.agentReattaches},
			{"agent posts it again as blocks, or as text", g.agentUsesBlocks}, {"agent rebooks with an end, or a duration", g.agentRebooksWithAnEnd},
			{"agent files the issue again with labels, or without", g.agentAddsLabels},
			{"agent moves a recipient between to and cc", g.agentMovesRecipients}, {"agent names the channel otherwise", g.agentNamesTheChannel},
			{"agent writes the amount and the day in another type", g.agentRetypes}, {"agent comments again, the number a string", g.agentRecomments},
			{"agent texts the number written otherwise", g.agentRetexts}, {"agent inserts the row again", g.agentReinsertsRow},
			{"agent sends the message object again", g.agentSendsAMessageObject}, {"LangGraph's retry policy", g.langGraphRetry},
			{"agent retitles a card", g.agentRetitlesACard}, {"agent adds a note, or drops it", g.agentAddsANote},
			{"agent retypes a wrapped record", g.agentRetypesAWrappedRecord},
			{"agent describes it in a document, or in text", g.agentDescribesInADocument},
			{"agent writes the time in another notation", g.agentRetimes}, {"agent bills it again in other notations", g.agentRenotatesABill},
			{"agent posts it again as an embed, or as text", g.agentPostsAnEmbed}, {"agent texts a number dialed otherwise", g.agentRedialsANumber},
			{"a job library's retry schedule", g.jobLibraryRetry}, {"agent opens the pull request again, reworded", g.agentReopensAPullRequest},
			{"agent changes how it is shown", g.agentChangesHowItIsShown}, {"agent rebooks with a place, or without", g.agentRebooksWithAPlace},
			{"agent writes to one more or one fewer", g.agentWidensTheAudience},
			{"agent rebooks with an attendee more or fewer", g.agentRebooksWithAnotherAttendee}} {
			g.fam = f.name
			f.draw()
			g.fam = ""
		}
		for _, m := range []struct {
			name string
			draw func()
		}{{"newsletter", g.newsletter}, {"channel chatter", g.channelChatter}, {"scheduled job", g.scheduled}, {"same recipient, other subject", g.sameRecipientOtherSubject}, {"follow-up after a success", g.followUp},
			{"the next templated post after a failure", g.nextTemplated},
			{"two events of one trigger", g.twoEvents}, {"a session that sends twice", g.sessionSendsTwice},
			{"another order after a failure", g.otherOrderAfterFailure}, {"one reply from two mailboxes", g.twoMailboxes},
			{"a draft, then its send", g.draftThenSend}, {"one notice in two languages", g.bilingualNotice},
			{"another slot for the same people after a failure", g.otherSlotSamePeople}, {"another contact of the same name after a failure", g.sameNameOtherContact},
			{"a second meeting at one slot", g.secondMeetingAtOneSlot}, {"other rows after a failure", g.otherRowsAfterAFailure},
			{"another delivery day, in any script, after a failure", g.otherDayInAScript},
			{"another issue in one repository after a failure", g.otherIssueAfterAFailure},
			{"shorter news of the same thing after a failure", g.shorterNewsAfterAFailure},
			{"another amount in another notation after a failure", g.otherAmountInAnotherNotation},
			{"another task in one project after a failure", g.otherTaskAfterAFailure},
			{"another amount for the same deal after a failure", g.otherDealAmountAfterAFailure},
			{"the same comment on the next issue after a failure", g.commentOnTheNextIssue},
			{"another card in one list after a failure", g.otherCardAfterAFailure},
			{"another refund of one payment after a failure", g.otherRefundAfterAFailure},
			{"another amount in a wrapped record after a failure", g.otherWrappedAmountAfterAFailure},
			{"another issue described in a document after a failure", g.otherIssueInADocument},
			{"another time for the same task after a failure", g.otherTimeAfterAFailure},
			{"another bill for one customer after a failure", g.otherBillAfterAFailure},
			{"another row in one database after a failure", g.otherRowAfterAFailure},
			{"another post from one account after a failure", g.otherPostAfterAFailure},
			{"another embed in one channel after a failure", g.otherEmbedAfterAFailure},
			{"the same text to the next number after a failure", g.sameTextNextNumber},
			{"a request from another branch after a failure", g.otherBranchAfterAFailure},
			{"the same branch into another base after a failure", g.sameBranchIntoAnotherBase},
			{"the same text to other people after a failure", g.sameTextToOthers},
			{"the same people and one more after a success", g.oneMoreAfterASuccess}} {
			g.miss = m.name
			m.draw()
			g.miss = ""
		}
	}
	for range 40 * perPattern {
		g.background()
	}
	// the log lists newest first
	slices.SortFunc(g.execs, func(a, b model.Execution) int { return b.StartTime.Compare(a.StartTime) })
	return g
}

type patternScore struct{ truth, predicted, right int }

// TestDuplicateCorpus prints precision and recall per pattern over several seeds and holds
// the targets: groups recall and precision >= 0.95, the right cause for >= 90% of groups and
// >= 80% of each pattern, no old-SDK note on a fixed path.
func TestDuplicateCorpus(t *testing.T) {
	patterns := []model.RetryPattern{model.PatternSDKAutoRetry, model.PatternSessionAutoRetry, model.PatternFrameworkRetry,
		model.PatternAgentRetry, model.PatternAppRetry, model.PatternDoubleSubmit, model.PatternTriggerRedelivery}
	per := map[model.RetryPattern]*patternScore{}
	for _, p := range patterns {
		per[p] = &patternScore{}
	}
	var truthGroups, predGroups, exact, rightCause, pairs, pairsFound, falseNotes int
	var open, inCandidates int // groups named from timing alone; wrong causes whose truth is a candidate
	famTruth, famRight := map[string]int{}, map[string]int{}
	missTotal, missGrouped := map[string]int{}, map[string]int{}
	var misses []string
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		g := generateCorpus(seed, 30)
		res := triage.Analyze(g.execs, triage.NewKinds(), triage.Options{})
		truth := map[string][]string{}
		for i := range g.execs {
			if k := g.label[g.execs[i].ID]; k != "" {
				truth[k] = append(truth[k], g.execs[i].ID)
			}
			if g.fixed[g.execs[i].ID] && res.Triage[i].OldSDK != "" {
				falseNotes++
				misses = append(misses, "old-SDK note on a fixed path: "+g.execs[i].SDKVersion+" "+res.Triage[i].OldSDK)
			}
		}
		for i := range g.execs {
			if m := g.misses[g.execs[i].ID]; m != "" {
				missTotal[m]++
				if res.Triage[i].GroupID != "" {
					missGrouped[m]++
				}
			}
		}
		byMembers := map[string]string{}
		for k, ids := range truth {
			sort.Strings(ids)
			byMembers[strings.Join(ids, ",")] = k
			per[g.causes[k]].truth++
			famTruth[g.famOf[k]]++
			truthGroups++
			pairs += len(ids) - 1
		}
		groupOf := map[string]string{}
		for _, gr := range res.Groups {
			predGroups++
			per[gr.Pattern].predicted++
			ids := slices.Clone(gr.ExecutionIDs)
			for _, id := range ids {
				groupOf[id] = gr.ID
			}
			sort.Strings(ids)
			k, ok := byMembers[strings.Join(ids, ",")]
			if !ok {
				misses = append(misses, fmt.Sprintf("seed %d: false or partial group %v %s: %s | %s", seed, gr.ExecutionIDs, gr.Pattern, gr.Match, gr.Reason))
				continue
			}
			exact++
			if len(gr.OtherCauses) > 0 {
				open++
			}
			if want := g.causes[k]; want == gr.Pattern {
				rightCause++
				per[want].right++
				famRight[g.famOf[k]]++
			} else {
				if slices.ContainsFunc(gr.OtherCauses, func(c model.CauseCandidate) bool { return c.Cause == want }) {
					inCandidates++
				}
				misses = append(misses, fmt.Sprintf("seed %d: %s named %s, truth %s: %s", seed, k, gr.Pattern, want, gr.Reason))
			}
		}
		for k, ids := range truth {
			found := 0
			for _, id := range ids[1:] {
				if groupOf[id] != "" && groupOf[id] == groupOf[ids[0]] {
					found++
				}
			}
			pairsFound += found
			if found < len(ids)-1 {
				misses = append(misses, fmt.Sprintf("seed %d: %s (%s) not found whole: %d of %d pairs", seed, k, g.causes[k], found, len(ids)-1))
			}
		}
	}
	for _, m := range misses {
		t.Log(m)
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	t.Logf("%-20s %6s %6s %6s %9s %7s", "pattern", "truth", "named", "right", "precision", "recall")
	for _, p := range patterns {
		s := per[p]
		prec, rec := ratio(s.right, s.predicted), ratio(s.right, s.truth)
		t.Logf("%-20s %6d %6d %6d %9.3f %7.3f", p, s.truth, s.predicted, s.right, prec, rec)
		if rec < 0.8 || prec < 0.8 {
			t.Errorf("%s: precision %.3f, recall %.3f: below 0.8", p, prec, rec)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(famTruth)) {
		rec := ratio(famRight[f], famTruth[f])
		t.Logf("family %-44s %5d groups, %5d found whole with the right cause (%.3f)", f, famTruth[f], famRight[f], rec)
		if rec < 0.8 {
			t.Errorf("family %s: %.3f of its groups found whole with the right cause, below 0.8", f, rec)
		}
	}
	gp, gr, pr := ratio(exact, predGroups), ratio(exact, truthGroups), ratio(pairsFound, pairs)
	t.Logf("groups: %d true, %d found, %d exact: precision %.3f, recall %.3f; duplicate pairs found %d/%d (%.3f); right cause %d/%d (%.3f); old-SDK notes on fixed paths %d",
		truthGroups, predGroups, exact, gp, gr, pairsFound, pairs, pr, rightCause, exact, ratio(rightCause, exact), falseNotes)
	t.Logf("causes named from timing and text alone (other causes listed): %d of %d groups; of the %d named wrongly, %d list the true cause as another candidate",
		open, exact, exact-rightCause, inCandidates)
	if gp < 0.95 || gr < 0.95 || pr < 0.95 {
		t.Errorf("group precision %.3f, recall %.3f, pair recall %.3f: below 0.95", gp, gr, pr)
	}
	if ratio(rightCause, exact) < 0.9 {
		t.Errorf("right cause for %.3f of groups, below 0.9", ratio(rightCause, exact))
	}
	for _, m := range slices.Sorted(maps.Keys(missTotal)) {
		t.Logf("near-miss %-30s %4d executions, %d grouped", m, missTotal[m], missGrouped[m])
		if missGrouped[m] > 0 {
			t.Errorf("near-miss %s: %d executions grouped", m, missGrouped[m])
		}
	}
	if falseNotes > 0 {
		t.Errorf("%d old-SDK notes on fixed paths", falseNotes)
	}
}
