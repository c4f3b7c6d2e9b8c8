package sandbox

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Scenarios of the causes found after the upgrade that need text (an agent's re-send with
// regenerated wording) and the near-misses a person would not call duplicates: the same text
// to many recipients, different messages to one channel, a job repeating after the window.

// agentIntents are messages an agent writes, each in phrasings that keep the facts
// ({first}, {n}, {date}, {service}) and change the words.
func agentIntents() [][]string {
	return [][]string{
		{"Hi {first}, your order {n} has shipped and should arrive by {date}.",
			"Hello {first}, order {n} is on its way; it should arrive by {date}.",
			"{first}, we shipped your order {n} today and it should arrive by {date}."},
		{"Invoice {n} is attached. Payment is due on {date}.",
			"Please find invoice {n} attached, with payment due {date}.",
			"Attached is invoice {n}; payment is due {date}."},
		{"Deploy {n} of {service} finished, all checks passed.",
			"{service} deploy {n} is finished and every check passed.",
			"Finished deploy {n} of {service}: checks passed."},
		{"Reminder: the review with {first} is on {date}.",
			"Quick reminder that the review with {first} is on {date}.",
			"Don't forget the review with {first} on {date}."},
		{"Ticket {n} is resolved: the {service} outage was caused by an expired certificate.",
			"Resolved ticket {n}. An expired certificate caused the {service} outage.",
			"The {service} outage (ticket {n}) came from an expired certificate and is resolved."},
	}
}

// textArg is the free-text argument of a write the agent scenarios rewrite, "" for none.
func textArg(slug string) string {
	switch slug {
	case "GMAIL_SEND_EMAIL", "GMAIL_CREATE_EMAIL_DRAFT", "GITHUB_CREATE_AN_ISSUE", "GITHUB_CREATE_AN_ISSUE_COMMENT":
		return "body"
	case "GMAIL_REPLY_TO_THREAD":
		return "message_body"
	case "SLACK_SEND_MESSAGE":
		return "text"
	}
	return ""
}

// withText returns a copy of args with the text argument set (Slack's markdown_text replaced).
func withText(args map[string]any, key, text string) *argSet {
	m := maps.Clone(args)
	if _, ok := m["markdown_text"]; ok && key == "text" {
		delete(m, "markdown_text")
	}
	m[key] = text
	raw, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("sandbox: arguments: %v", err)) // generated data: a bug
	}
	return &argSet{m, raw}
}

// fillFacts fills a phrasing's facts from one draw, so every phrasing of a message carries
// the same order number, date and names.
func (g *generator) fillFacts(t time.Time) func(string) string {
	f := map[string]string{}
	for _, k := range []string{"first", "n", "date", "service"} {
		f[k] = g.placeholder(k, t)
	}
	return func(s string) string {
		for k, v := range f {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
}

// agentRetry: an LLM agent's tool call fails (timeout or 5xx) and on its next turn, seconds to
// a minute later, it calls the tool again with the message written anew: 2-3 attempts, one
// conversation, a current SDK (which does not retry).
func (g *generator) agentRetry() int {
	u, a, tool := g.pickWrite(noAutoRetry, true)
	if tool == nil || textArg(tool.slug) == "" {
		return 0
	}
	n, start, args, key, ok := g.burstStart(tool, a)
	if !ok {
		return 0
	}
	phr := pick(g, agentIntents())
	fill := g.fillFacts(start)
	order := g.r.Perm(len(phr))
	caller := pick(g, u.sessions)
	prof := u.profile
	if prof.framework == "" {
		prof.framework = pick(g, []string{"langchain", "openai_agents", "mastra"})
	}
	for i := range n {
		p := g.newPlan(u, a, tool, withText(args.m, textArg(tool.slug), fill(phr[order[i]])), start, prof, CaseAgentRetry)
		p.session, p.groupKey, p.pattern = caller, key, model.PatternAgentRetry
		if i < n-1 {
			switch {
			case g.chance(0.4):
				g.setOutcome(p, outTimeoutCommitted)
			case g.chance(0.5):
				g.setOutcome(p, outTimeoutUncommitted)
			default:
				g.setOutcome(p, out5xxAfter)
			}
		}
		start = p.start.Add(p.dur + g.between(3*time.Second, 60*time.Second))
	}
	return n
}

// newsletter: one text to several recipients within seconds: never a duplicate.
func (g *generator) newsletter() int {
	u, a := g.pickUserOf("gmail")
	if u == nil {
		return 0
	}
	tool := g.cat.bySlug["GMAIL_SEND_EMAIL"]
	start := g.randTime(10 * time.Minute)
	args := g.argsFor(tool, a, start)
	if args == nil {
		return 0
	}
	n := 0
	for range 3 + g.r.IntN(4) {
		m := maps.Clone(args.m)
		m["recipient_email"] = pick(g, g.externals)
		set := withText(m, "body", args.m["body"].(string))
		key := tool.slug + "|" + a.id + "|" + string(set.raw)
		if g.usedArgs[key] {
			continue
		}
		g.usedArgs[key] = true
		g.newPlan(u, a, tool, set, start, u.profile, CaseNewsletter)
		n++
		start = start.Add(g.between(150*time.Millisecond, 900*time.Millisecond))
	}
	return n
}

// channelChatter: different messages to one Slack channel minutes apart: never a duplicate.
func (g *generator) channelChatter() int {
	u, a := g.pickUserOf("slack")
	if u == nil {
		return 0
	}
	tool := g.cat.bySlug["SLACK_SEND_MESSAGE"]
	start := g.randTime(10 * time.Minute)
	first := g.argsFor(tool, a, start)
	if first == nil {
		return 0
	}
	n := 3
	for i := range n {
		set := first
		if i > 0 {
			set = withText(first.m, "text", g.fill(pick(g, g.p.slackTexts), start))
		}
		g.newPlan(u, a, tool, set, start, u.profile, CaseChannelChatter)
		start = start.Add(g.between(20*time.Second, 4*time.Minute))
	}
	return n
}

// scheduledRepeat: a job posting the same message every hour or so: the same arguments, but
// further apart than any duplicate window.
func (g *generator) scheduledRepeat() int {
	u, a := g.pickUserOf("slack")
	if u == nil {
		return 0
	}
	tool := g.cat.bySlug["SLACK_SEND_MESSAGE"]
	every := pick(g, []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour})
	start := g.randTime(3*every + time.Minute)
	args := g.argsFor(tool, a, start)
	if args == nil {
		return 0
	}
	for range 3 {
		g.newPlan(u, a, tool, args, start, u.profile, CaseScheduledRepeat)
		start = start.Add(every + g.between(0, 5*time.Second))
	}
	return 3
}

// pickUserOf is pickUser (current SDK, stable account) with an account of the toolkit.
func (g *generator) pickUserOf(toolkit string) (*user, *account) {
	for range 16 {
		if u, a := g.pickUser(noAutoRetry, true); u != nil && a.toolkit == toolkit {
			return u, a
		}
	}
	return nil, nil
}
