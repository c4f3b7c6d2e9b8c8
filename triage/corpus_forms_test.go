package triage_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Families written on 2026-12-07, before any rule read them: an agent that calls a tool again
// writes the same target in another form (recipients with their names, joined into one string,
// in another order; optional arguments it left out or sets to their defaults; an issue's title
// reworded with its facts), and a near-miss: a second issue of one repository about another
// order after a failure.

// recipientForms writes addresses as an agent might: bare, with the person's name, joined into
// one string, or as a list.
func (g *corpusGen) recipientForms(people []string, variant int) (first any, rest any) {
	named := make([]string, len(people))
	for i, p := range people {
		local, _, _ := strings.Cut(p, "@")
		name, _, _ := strings.Cut(local, ".")
		named[i] = fmt.Sprintf("%s <%s>", strings.ToUpper(name[:1])+name[1:], p)
	}
	switch variant % 3 {
	case 0:
		return people[0], people[1:]
	case 1:
		return named[0], strings.Join(named[1:], ", ")
	default:
		order := g.r.Perm(len(people))
		list := make([]string, len(people))
		for i, j := range order {
			list[i] = strings.ToUpper(people[j])
		}
		return list[0], list[1:]
	}
}

// agentReaddresses: an agent emails several people, the call fails or its answer is lost, and
// the model writes the call again: the same people written another way (with their names, in one
// string, in another order and case), the text reworded. agent_retry.
func (g *corpusGen) agentReaddresses() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	people := g.attendees()
	key := g.newGroup(model.PatternAgentRetry)
	order := g.r.Perm(len(it.phrasings))
	v0 := g.r.IntN(3)
	g.modelTurns(c, 2+g.r.IntN(2), key, func(i int) (target, map[string]any) {
		to, cc := g.recipientForms(people, v0+i)
		return target{"GMAIL_SEND_EMAIL", "gmail", nil},
			map[string]any{"recipient_email": to, "extra_recipients": cc, "subject": "Update " + f["{n}"], "body": f.fill(it.phrasings[order[i%len(order)]])}
	})
}

// modelTurns sends n attempts of one call, written anew by call(i), each but the last failing,
// each in the model's next turn (3 to 60 s after the previous one stopped).
func (g *corpusGen) modelTurns(c caller, n int, key string, call func(i int) (target, map[string]any)) {
	t := g.start()
	for i := range n {
		end := endOK
		if i < n-1 {
			end = g.failure()
		}
		tg, args := call(i)
		stopped := g.add(c, tg, args, t, end, g.fast(), -1, key)
		t = stopped.Add(time.Duration(3000+g.r.IntN(57000)) * time.Millisecond)
	}
}

// agentFillsDefaults: the model's second call spells out what the first left to the tool's
// defaults (is_html false, an empty cc, the user "me") or leaves out what the first spelled
// out, and rewords the text. agent_retry.
func (g *corpusGen) agentFillsDefaults() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	to := fmt.Sprintf("%s.%d@example.org", strings.ToLower(f["{name}"]), g.r.IntN(1000))
	key := g.newGroup(model.PatternAgentRetry)
	order := g.r.Perm(len(it.phrasings))
	spelled := g.r.IntN(2) == 0
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		args := map[string]any{"recipient_email": to, "subject": "About " + f["{n}"], "body": f.fill(it.phrasings[order[i]])}
		if spelled == (i == 0) {
			args["is_html"] = false
			args["cc"] = []string{}
			args["user_id"] = "me"
		}
		return target{"GMAIL_SEND_EMAIL", "gmail", nil}, args
	})
}

// issueTitles are one issue's title as a model writes it anew, each with the order's number.
var issueTitles = [][]string{
	{"Checkout fails for order {n}", "Order {n}: checkout failure", "Bug: checkout broken on order {n}"},
	{"Refund for order {n} not applied", "Order {n} refund missing", "Refund not processed (order {n})"},
	{"{svc} deploy {n} stuck", "Deploy {n} of {svc} hangs", "{svc}: deployment {n} never finishes"},
}

// issueBodies say one problem in other words, with the same facts.
var issueBodies = []string{
	"{name} reports that order {n} could not be completed on {day}. Amount ${amt}.",
	"Customer {name}: order {n} ({day}) failed at checkout, ${amt}.",
	"On {day}, {name} tried to pay ${amt} for order {n} and it failed.",
}

// agentRefiles: the model opens an issue, the call fails or times out, and it opens it again in a
// later turn with the title and the body written anew (the same order, person, day, amount).
// agent_retry.
func (g *corpusGen) agentRefiles() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	f := g.facts()
	repo := pickOne(g.r, corpusServices)
	titles := pickOne(g.r, issueTitles)
	tOrder, bOrder := g.r.Perm(len(titles)), g.r.Perm(len(issueBodies))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2+g.r.IntN(2), key, func(i int) (target, map[string]any) {
		return target{"GITHUB_CREATE_AN_ISSUE", "github", nil},
			map[string]any{"owner": "acme", "repo": repo, "title": f.fill(titles[tOrder[i]]), "body": f.fill(issueBodies[bOrder[i]])}
	})
}

// otherIssueAfterAFailure (near-miss): an issue about one order fails; a minute later the same
// caller opens one about another order (another person, amount and day) in the same repository,
// in the same words: two issues.
func (g *corpusGen) otherIssueAfterAFailure() {
	c := g.current()
	repo := pickOne(g.r, corpusServices)
	titles := pickOne(g.r, issueTitles)
	body := pickOne(g.r, issueBodies)
	t := g.start()
	for i := range 2 {
		f := g.facts()
		end := endOK
		if i == 0 {
			end = g.failure()
		}
		args := map[string]any{"owner": "acme", "repo": repo, "title": f.fill(titles[0]), "body": f.fill(body)}
		stopped := g.add(c, target{"GITHUB_CREATE_AN_ISSUE", "github", nil}, args, t, end, g.fast(), -1, "")
		t = stopped.Add(time.Duration(20+g.r.IntN(60)) * time.Second)
	}
}

// agentViaMetaTool: in a tool-router session the model calls a write directly, the call fails or
// its answer is lost, and the model runs it again through COMPOSIO_MULTI_EXECUTE_TOOL (the child
// the log records under the meta run), its text as it was or reworded. The direct call and the
// child are one intent: agent_retry.
func (g *corpusGen) agentViaMetaTool() {
	c := g.current()
	c.session = fmt.Sprintf("trs_%x", g.r.Uint64())
	c.sdk, c.language = pickOne(g.r, []string{"0.23.1", "0.26.0", ""}), pickOne(g.r, []string{"typescript", "python"})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	tg := g.target(f)
	order := g.r.Perm(len(it.phrasings))
	key := g.newGroup(model.PatternAgentRetry)
	t := g.start()
	stopped := g.add(c, tg, tg.args(f.fill(it.phrasings[order[0]])), t, g.failure(), g.fast(), -1, key)
	text := it.phrasings[order[0]]
	if g.r.IntN(2) == 0 {
		text = it.phrasings[order[1]]
	}
	t = stopped.Add(time.Duration(3000+g.r.IntN(40000)) * time.Millisecond)
	meta := target{"COMPOSIO_MULTI_EXECUTE_TOOL", "composio", nil}
	g.add(c, meta, map[string]any{"tools": []any{map[string]any{"tool_slug": tg.slug}}}, t, endOK, 2*time.Second, -1, "")
	run := g.execs[len(g.execs)-1].ID
	g.add(c, tg, tg.args(f.fill(text)), t.Add(g.jitter(400*time.Millisecond, 0.5, 1.5)), endOK, g.fast(), -1, key)
	g.execs[len(g.execs)-1].Parent = &model.Parent{LogID: run, ToolSlug: meta.slug}
}

// shortened are messages a model, writing its call again, sends in fewer words: the first with
// every fact, the second with the one that names the thing and one more (it drops the day, the
// amount, the details).
var shortened = [][2]string{
	{"Hi {name}, your order {n} has shipped and should arrive by {day}. The total was ${amt}.", "{name}: order {n} shipped."},
	{"Invoice {n} for ${amt} is attached. Payment is due {day}. Thank you, {name}.", "Invoice {n} attached, ${amt}."},
	{"Incident {n} resolved: {svc} login errors came from an expired certificate, renewed on {day}.", "Incident {n} on {svc} is resolved."},
	{"{name}, your refund of ${amt} for order {n} was processed on {day} and will reach you in a few days.", "Refund of ${amt} processed, {name}."},
}

// agentShortens: the model's call fails or its answer is lost, and it writes the message again
// shorter, keeping what names the thing. agent_retry.
func (g *corpusGen) agentShortens() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	f := g.facts()
	tg := g.target(f)
	pair := pickOne(g.r, shortened)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) { return tg, tg.args(f.fill(pair[i])) })
}

// nextNews are a message and a shorter one about the same thing that says something new.
var nextNews = [][2]string{
	{"Hi {name}, your order {n} has shipped and should arrive by {day}.", "{name}: order {n} delivered."},
	{"Invoice {n} for ${amt} is attached. Payment is due {day}.", "Invoice {n} cancelled, ${amt} credited."},
	{"Incident {n} opened: {svc} login errors since {day}.", "Incident {n} on {svc} is resolved."},
	{"{name}, your refund of ${amt} for order {n} is being reviewed.", "Refund of ${amt} rejected, {name}."},
}

// shorterNewsAfterAFailure (near-miss): a message about a thing fails or its answer is lost, and
// a minute later the caller sends a shorter one about the same thing that says something new
// (delivered after shipped, cancelled after attached): two messages.
func (g *corpusGen) shorterNewsAfterAFailure() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	pair := pickOne(g.r, nextNews)
	t := g.start()
	stopped := g.add(c, tg, tg.args(f.fill(pair[0])), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tg.args(f.fill(pair[1])), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}

// notations write one invoice's facts as a model might on each call: the amount with a
// currency sign or code, with or without separators and cents; the date by name, in ISO form,
// or day first; the number with or without #.
var notations = []func(n string, cents int, day time.Time) string{
	func(n string, cents int, day time.Time) string {
		return fmt.Sprintf("Invoice %s for $%s is due on %s.", n, money(cents, true), day.Format("January 2"))
	},
	func(n string, cents int, day time.Time) string {
		return fmt.Sprintf("Invoice #%s: USD %s, due %s.", n, money(cents, false), day.Format("2006-01-02"))
	},
	func(n string, cents int, day time.Time) string {
		return fmt.Sprintf("Reminder: invoice no. %s (%s USD) is due %s.", n, money(cents, true), day.Format("Jan 2, 2006"))
	},
}

// money writes cents as 1,250.00 (grouped) or 1250.00.
func money(cents int, grouped bool) string {
	whole := fmt.Sprint(cents / 100)
	if grouped && len(whole) > 3 {
		whole = whole[:len(whole)-3] + "," + whole[len(whole)-3:]
	}
	return fmt.Sprintf("%s.%02d", whole, cents%100)
}

// agentRenotates: the model's call fails or its answer is lost and it writes the message again
// with its facts in another notation. agent_retry.
func (g *corpusGen) agentRenotates() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	f := g.facts()
	tg := g.target(f)
	cents := 100000 + g.r.IntN(900000)
	day := time.Date(2026, time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC)
	order := g.r.Perm(len(notations))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return tg, tg.args(notations[order[i]](f["{n}"], cents, day))
	})
}

// otherAmountInAnotherNotation (near-miss): an invoice's notice fails; a minute later one about
// the same invoice number with another amount (its digits swapped) and in another notation:
// the corrected invoice, another message.
func (g *corpusGen) otherAmountInAnotherNotation() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	cents := 100000 + g.r.IntN(900000)
	other := cents + 10000*(1+g.r.IntN(9))
	day := time.Date(2026, time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC)
	order := g.r.Perm(len(notations))
	t := g.start()
	stopped := g.add(c, tg, tg.args(notations[order[0]](f["{n}"], cents, day)), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tg.args(notations[order[1]](f["{n}"], other, day)), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}

// taskTools are task trackers' creates, each with its own argument names: the container (a
// project, a team), the heading, the text, a due date.
var taskTools = []struct {
	slug, toolkit string
	args          func(project, heading, text, due string) map[string]any
}{
	{"LINEAR_CREATE_LINEAR_ISSUE", "linear", func(p, h, x, _ string) map[string]any {
		return map[string]any{"team_id": p, "title": h, "description": x}
	}},
	{"JIRA_CREATE_ISSUE", "jira", func(p, h, x, _ string) map[string]any {
		return map[string]any{"project_key": p, "summary": h, "description": x, "issue_type": "Task"}
	}},
	{"ASANA_CREATE_A_TASK", "asana", func(p, h, x, d string) map[string]any {
		return map[string]any{"workspace": "1200", "projects": []string{p}, "name": h, "notes": x, "due_on": d}
	}},
	{"TODOIST_CREATE_TASK", "todoist", func(p, h, x, d string) map[string]any {
		return map[string]any{"project_id": p, "content": h, "description": x, "due_date": d}
	}},
}

// taskWordings are one task written three ways: its heading and its text.
var taskWordings = [][3][2]string{
	{{"Call {name} about order {n}", "{name} asked about order {n} (${amt}); call back before {day}."},
		{"Follow up with {name}: order {n}", "Call {name} back about order {n}, ${amt}, before {day}."},
		{"Order {n}: call {name}", "Before {day}, phone {name} regarding order {n} (${amt})."}},
	{{"Fix {svc} timeout ({n} s)", "{svc} exports time out after {n} seconds for {name}'s reports."},
		{"{svc}: exports time out after {n} s", "{name} reports {svc} exports timing out at {n} seconds."},
		{"Investigate {svc} export timeouts", "Exports from {svc} time out after {n} seconds ({name})."}},
}

// agentRecreatesTask: the model creates a task, the call fails or its answer is lost, and it
// creates it again with the heading and the text written anew. agent_retry.
func (g *corpusGen) agentRecreatesTask() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	f := g.facts()
	tool := pickOne(g.r, taskTools)
	project := fmt.Sprintf("P%04d", g.r.IntN(10000))
	w := pickOne(g.r, taskWordings)
	order := g.r.Perm(len(w))
	due := g.now.Add(time.Duration(24*(1+g.r.IntN(20))) * time.Hour).Format("2006-01-02")
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		x := w[order[i]]
		return target{tool.slug, tool.toolkit, nil}, tool.args(project, f.fill(x[0]), f.fill(x[1]), due)
	})
}

// otherTaskAfterAFailure (near-miss): a task about one order fails; a minute later the caller
// creates one about another order and person, in the same words, in the same project.
func (g *corpusGen) otherTaskAfterAFailure() {
	c := g.current()
	tool := pickOne(g.r, taskTools)
	project := fmt.Sprintf("P%04d", g.r.IntN(10000))
	x := pickOne(g.r, taskWordings)[0]
	due := g.now.Add(time.Duration(24*(1+g.r.IntN(20))) * time.Hour).Format("2006-01-02")
	t := g.start()
	for i := range 2 {
		f := g.facts()
		end := endOK
		if i == 0 {
			end = g.failure()
		}
		stopped := g.add(c, target{tool.slug, tool.toolkit, nil}, tool.args(project, f.fill(x[0]), f.fill(x[1]), due), t, end, g.fast(), -1, "")
		t = stopped.Add(time.Duration(20+g.r.IntN(60)) * time.Second)
	}
}

// agentAfterALateSuccess: the provider finished the first call after the caller had given up
// (the log says success, 65 to 110 s, past the caller's 60 s), and the model, which saw a
// timeout, writes the call again in other words. agent_retry.
func (g *corpusGen) agentAfterALateSuccess() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	tg := g.target(f)
	order := g.r.Perm(len(it.phrasings))
	key := g.newGroup(model.PatternAgentRetry)
	t := g.start()
	g.add(c, tg, tg.args(f.fill(it.phrasings[order[0]])), t, endOK, time.Duration(65000+g.r.IntN(45000))*time.Millisecond, -1, key)
	next := t.Add(corpusTimeout + time.Duration(3000+g.r.IntN(30000))*time.Millisecond) // the model's turn after the timeout
	g.add(c, tg, tg.args(f.fill(it.phrasings[order[1]])), next, endOK, g.fast(), -1, key)
}

// agentRebooksInOtherShapes: the model books a meeting, the call fails or its answer is lost,
// and it books it again with the attendees as objects ({"email": …}) where they were strings,
// the start as a local time beside the calendar's time zone where it carried an offset, and the
// title and description written anew. agent_retry.
func (g *corpusGen) agentRebooksInOtherShapes() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	people, at := g.attendees(), g.slot()
	titles := pickOne(g.r, meetingTitles)
	ny, _ := time.LoadLocation("America/New_York")
	if ny == nil {
		ny = time.FixedZone("EST", -5*3600)
	}
	objectsFirst := g.r.IntN(2) == 0
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		args := map[string]any{"calendar_id": "primary", "summary": titles[i%len(titles)], "timezone": "America/New_York",
			"description":         pickOne(g.r, []string{"Agenda: status, risks", "To go through the open items", "Decide owners"}),
			"event_duration_hour": 1, "event_duration_minutes": 0}
		if objectsFirst == (i == 0) {
			objs := make([]map[string]any, len(people))
			for k, p := range people {
				objs[k] = map[string]any{"email": p, "optional": false}
			}
			args["attendees"] = objs
			args["start_datetime"] = at.In(ny).Format("2006-01-02T15:04:05")
		} else {
			args["attendees"] = people
			args["start_datetime"] = at.Format(time.RFC3339)
		}
		return calendarTool, args
	})
}

// appFreshKey: the application's loop sends the same call again after failures it saw, each
// attempt with a key of its own (an idempotency key, a client message id, a nonce) that the
// provider, had it honoured them, would have told apart. app_retry: the effect is the same
// message each time.
func (g *corpusGen) appFreshKey() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	text := f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings))
	name := pickOne(g.r, []string{"idempotency_key", "client_msg_id", "nonce", "request_id", "dedupe_id"})
	key := g.newGroup(model.PatternAppRetry)
	every := pickOne(g.r, []time.Duration{2 * time.Second, 5 * time.Second, 15 * time.Second})
	t := g.start()
	n := 2 + g.r.IntN(2)
	for i := range n {
		end := endOK
		if i < n-1 {
			end = pickOne(g.r, []ending{endTimeout, end5xx})
		}
		args := tg.args(text)
		args[name] = fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<12), g.r.IntN(1<<12), g.r.Int64N(1<<48))
		stopped := g.add(c, tg, args, t, end, time.Duration(200+g.r.IntN(800))*time.Millisecond, -1, key)
		t = stopped.Add(g.jitter(every, 0.95, 1.05))
	}
}

// agentReattaches: the model sends an email with a file it uploaded, the call fails or its
// answer is lost, and it uploads the file again (a new storage key) and sends the email again,
// its text as it was or reworded. agent_retry.
func (g *corpusGen) agentReattaches() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	to := fmt.Sprintf("%s.%d@example.org", strings.ToLower(f["{name}"]), g.r.IntN(1000))
	file := pickOne(g.r, []string{"report.pdf", "invoice.pdf", "q3-summary.xlsx", "photo.jpg"})
	order := g.r.Perm(len(it.phrasings))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		s3 := fmt.Sprintf("%d/gmail/GMAIL_SEND_EMAIL/request/%08x%08x/%s", 200000+g.r.IntN(99999), g.r.Uint32(), g.r.Uint32(), file)
		return target{"GMAIL_SEND_EMAIL", "gmail", nil}, map[string]any{"recipient_email": to, "subject": "Your " + file,
			"body": f.fill(it.phrasings[order[i]]), "attachment": map[string]any{"name": file, "mimetype": "application/octet-stream", "s3key": s3}}
	})
}

// agentUsesBlocks: the model posts to a channel, the call fails or its answer is lost, and it
// posts again with the message in Slack's blocks (a JSON string of sections) where it was text,
// or the other way round, the words as they were or reworded. agent_retry.
func (g *corpusGen) agentUsesBlocks() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	ch := fmt.Sprintf("C%06d", g.r.IntN(1e6))
	order := g.r.Perm(len(it.phrasings))
	blocksFirst := g.r.IntN(2) == 0
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		text := f.fill(it.phrasings[order[i]])
		if blocksFirst == (i == 0) {
			b, _ := json.Marshal([]any{map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": text}}})
			return target{"SLACK_SEND_MESSAGE", "slack", nil}, map[string]any{"channel": ch, "blocks": string(b)}
		}
		return target{"SLACK_SEND_MESSAGE", "slack", nil}, map[string]any{"channel": ch, "text": text}
	})
}

// agentRebooksWithAnEnd: the model books a meeting with a duration, the call fails or its
// answer is lost, and it books it again with an end time instead (the same hour), or the
// reverse, the title written anew. agent_retry.
func (g *corpusGen) agentRebooksWithAnEnd() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	people, at := g.attendees(), g.slot()
	titles := pickOne(g.r, meetingTitles)
	endFirst := g.r.IntN(2) == 0
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		args := map[string]any{"calendar_id": "primary", "summary": titles[i%len(titles)], "start_datetime": at.Format(time.RFC3339),
			"attendees": people}
		if endFirst == (i == 0) {
			args["end_datetime"] = at.Add(time.Hour).Format(time.RFC3339)
		} else {
			args["event_duration_hour"], args["event_duration_minutes"] = 1, 0
		}
		return calendarTool, args
	})
}

// agentAddsLabels: the model files an issue, the call fails or its answer is lost, and it files
// it again with labels and an assignee it had left out (or leaves out those it had set), the
// body written anew. agent_retry.
func (g *corpusGen) agentAddsLabels() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	f := g.facts()
	repo := pickOne(g.r, corpusServices)
	titles := pickOne(g.r, issueTitles)
	tOrder, bOrder := g.r.Perm(len(titles)), g.r.Perm(len(issueBodies))
	labelsFirst := g.r.IntN(2) == 0
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		args := map[string]any{"owner": "acme", "repo": repo, "title": f.fill(titles[tOrder[i]]), "body": f.fill(issueBodies[bOrder[i]])}
		if labelsFirst == (i == 0) {
			args["labels"] = []string{"bug", pickOne(g.r, []string{"checkout", "billing", "p1"})}
			args["assignees"] = []string{strings.ToLower(f["{name}"])}
		}
		return target{"GITHUB_CREATE_AN_ISSUE", "github", nil}, args
	})
}

// agentMovesRecipients: the model emails two people, the call fails or its answer is lost, and
// it writes the call again with one of them moved between to and cc. agent_retry.
func (g *corpusGen) agentMovesRecipients() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	people := g.attendees()
	order := g.r.Perm(len(it.phrasings))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		args := map[string]any{"subject": "Update " + f["{n}"], "body": f.fill(it.phrasings[order[i]])}
		if i == 0 {
			args["recipient_email"], args["cc"] = people[0], people[1:]
		} else {
			args["recipient_email"], args["extra_recipients"] = people[len(people)-1], people[:len(people)-1]
		}
		return target{"GMAIL_SEND_EMAIL", "gmail", nil}, args
	})
}

// agentNamesTheChannel: the model posts to a channel by its name, the call fails or its answer is
// lost, and it posts again naming the channel with or without its # and in another case. agent_retry.
func (g *corpusGen) agentNamesTheChannel() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	name := pickOne(g.r, []string{"ops", "billing-alerts", "deploys", "support", "eng-oncall"}) + fmt.Sprint(g.r.IntN(100))
	order := g.r.Perm(len(it.phrasings))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		ch := name
		if i == 1 {
			ch = "#" + strings.ToUpper(name[:1]) + name[1:]
		}
		return target{"SLACK_SEND_MESSAGE", "slack", nil}, map[string]any{"channel": ch, "text": f.fill(it.phrasings[order[i]])}
	})
}

// Families written on 2026-12-07 (third batch), before any rule read them: an agent writes
// identifying values in another type or notation (an amount as a number or a string, a day as a
// date or the midnight that starts it, an issue's number as a number or a string, a phone number
// with or without its punctuation), and near-misses: another amount, the next issue.

// dealTools are CRM creates whose amount and close day are arguments of their own.
// recordTool creates a record of a name, an amount and a day.
type recordTool struct {
	slug, toolkit string
	args          func(name string, amount, day any) map[string]any
}

var dealTools = []recordTool{
	{"HUBSPOT_CREATE_DEAL", "hubspot", func(n string, a, d any) map[string]any {
		return map[string]any{"dealname": n, "amount": a, "closedate": d, "pipeline": "default", "dealstage": "appointmentscheduled"}
	}},
	{"SALESFORCE_CREATE_OPPORTUNITY", "salesforce", func(n string, a, d any) map[string]any {
		return map[string]any{"Name": n, "Amount": a, "CloseDate": d, "StageName": "Prospecting"}
	}},
	{"PIPEDRIVE_ADD_A_DEAL", "pipedrive", func(n string, a, d any) map[string]any {
		return map[string]any{"title": n, "value": a, "currency": "EUR", "expected_close_date": d}
	}},
}

// amountWritten is an amount in cents as a model may write it: a number, a string with two
// decimals, or a string without its trailing zeros.
func amountWritten(cents, form int) any {
	switch form % 3 {
	case 0:
		return json.Number(strconv.FormatFloat(float64(cents)/100, 'f', -1, 64))
	case 1:
		return fmt.Sprintf("%d.%02d", cents/100, cents%100)
	default:
		return strconv.FormatFloat(float64(cents)/100, 'f', -1, 64)
	}
}

// dayWritten is a day as a model may write it: a date, or the midnight that starts it in UTC.
func dayWritten(day time.Time, form int) string {
	return dayIn(day, form, time.DateOnly, "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.000Z", "2006-01-02T15:04:05-07:00")
}

// dayIn is a day in the form-th of layouts (around).
func dayIn(day time.Time, form int, layouts ...string) string {
	return day.Format(layouts[form%len(layouts)])
}

// agentRetypes: the model creates a deal, the call fails or its answer is lost, and it creates
// it again with its amount and its close day written in another type or notation. agent_retry.
func (g *corpusGen) agentRetypes() { g.agentRetypesOneOf(dealTools) }

// agentRetypesOneOf is agentRetypes by one of tools.
func (g *corpusGen) agentRetypesOneOf(tools []recordTool) {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	tool := pickOne(g.r, tools)
	name := pickOne(g.r, corpusNames) + " renewal " + fmt.Sprint(2026+g.r.IntN(3))
	cents := 10000 * (1 + g.r.IntN(500))
	day := time.Date(2026, time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC)
	a, d := g.r.IntN(3), g.r.IntN(4)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return target{tool.slug, tool.toolkit, nil}, tool.args(name, amountWritten(cents, a+i), dayWritten(day, d+i*(1+g.r.IntN(3))))
	})
}

// otherDealAmountAfterAFailure (near-miss): a deal's create fails; a minute later the same deal
// with another amount, in another notation: the corrected deal, another record.
func (g *corpusGen) otherDealAmountAfterAFailure() { g.otherAmountAfterAFailure(dealTools) }

// otherAmountAfterAFailure is a record's create that fails, then, a minute later, the same record
// with another amount in another notation, by one of tools.
func (g *corpusGen) otherAmountAfterAFailure(tools []recordTool) {
	c := g.current()
	tool := pickOne(g.r, tools)
	name := pickOne(g.r, corpusNames) + " renewal " + fmt.Sprint(2026+g.r.IntN(3))
	cents := 10000 * (1 + g.r.IntN(500))
	day := time.Date(2026, time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 0, 0, 0, 0, time.UTC)
	tg := target{tool.slug, tool.toolkit, nil}
	t := g.start()
	stopped := g.add(c, tg, tool.args(name, amountWritten(cents, 0), dayWritten(day, 0)), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tool.args(name, amountWritten(cents+5000, 1), dayWritten(day, 1)), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second),
		endOK, g.fast(), -1, "")
}

// agentRecomments: the model comments on an issue, the call fails or its answer is lost, and it
// comments again, the issue's number written as a number or a string, the text reworded.
// agent_retry.
func (g *corpusGen) agentRecomments() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	repo := pickOne(g.r, corpusServices)
	num := 1 + g.r.IntN(4000)
	order := g.r.Perm(len(it.phrasings))
	first := g.r.IntN(2)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		var n any = num
		if (first+i)%2 == 1 {
			n = fmt.Sprint(num)
		}
		return target{"GITHUB_CREATE_AN_ISSUE_COMMENT", "github", nil},
			map[string]any{"owner": "acme", "repo": repo, "issue_number": n, "body": f.fill(it.phrasings[order[i]])}
	})
}

// commentOnTheNextIssue (near-miss): a comment fails; a minute later the same words on the next
// issue, its number written as a string: another issue's comment.
func (g *corpusGen) commentOnTheNextIssue() {
	c := g.current()
	f := g.facts()
	repo := pickOne(g.r, corpusServices)
	num := 1 + g.r.IntN(4000)
	text := f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings))
	tg := target{"GITHUB_CREATE_AN_ISSUE_COMMENT", "github", nil}
	t := g.start()
	stopped := g.add(c, tg, map[string]any{"owner": "acme", "repo": repo, "issue_number": num, "body": text}, t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, map[string]any{"owner": "acme", "repo": repo, "issue_number": fmt.Sprint(num + 1), "body": text},
		stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}

// agentRetexts: the model sends a text message, the call fails or its answer is lost, and it
// sends it again, the number written with or without its punctuation and country code, the text
// reworded. agent_retry.
func (g *corpusGen) agentRetexts() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	digits := fmt.Sprintf("415555%04d", g.r.IntN(10000))
	order := g.r.Perm(len(it.phrasings))
	form := g.r.IntN(3)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return target{"TWILIO_SEND_SMS", "twilio", nil},
			map[string]any{"to": phoneWritten(digits, form+i), "from": "+14155550100", "body": f.fill(it.phrasings[order[i]])}
	})
}
