package triage_test

import (
	"fmt"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Families written on 2026-12-07 (fifth duplicate batch), before any rule read them, from
// toolkits the earlier batches left out: a card or a task made of its title alone, retitled; a
// payment or a refund sent again with a note it did not have (or without the one it had); a
// record whose fields sit in a wrapper of short values, retyped; an issue whose description is
// a rich-text document one time and plain text the next. Near-misses written with them: another
// card, another refund, another amount in the wrapper, another issue in a document.

// titledTools make a thing of its title alone, in a list or project.
var titledTools = []struct {
	slug, toolkit string
	args          func(list, title string) map[string]any
}{
	{"TRELLO_ADD_CARDS", "trello", func(l, t string) map[string]any { return map[string]any{"idList": l, "name": t, "pos": "top"} }},
	{"ASANA_CREATE_A_TASK", "asana", func(l, t string) map[string]any { return map[string]any{"projects": []string{l}, "name": t} }},
	{"CLICKUP_CREATE_TASK", "clickup", func(l, t string) map[string]any { return map[string]any{"list_id": l, "name": t} }},
	{"GITHUB_CREATE_AN_ISSUE", "github", func(l, t string) map[string]any {
		return map[string]any{"owner": "acme", "repo": l, "title": t}
	}},
}

// titleWordings are one card's title written three ways.
var titleWordings = [][3]string{
	{"Refund order {n} for {name}", "{name}: refund order {n}", "Order {n} - issue {name}'s refund"},
	{"Call {name} about invoice {n}", "Follow up with {name} on invoice {n}", "Invoice {n}: ring {name}"},
	{"{svc} export fails for account {n}", "Account {n}: {svc} exports failing", "Fix {svc} export for account {n}"},
}

// agentRetitlesACard: the model adds a card (a task, an issue) of a title alone, the call fails
// or its answer is lost, and it adds it again under the title written anew. agent_retry.
func (g *corpusGen) agentRetitlesACard() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	tool := pickOne(g.r, titledTools)
	list := fmt.Sprintf("%x", g.r.Uint32())
	f := g.facts()
	w := pickOne(g.r, titleWordings)
	order := g.r.Perm(len(w))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return target{tool.slug, tool.toolkit, nil}, tool.args(list, f.fill(w[order[i]]))
	})
}

// otherCardAfterAFailure (near-miss): a card's add fails; a minute later another card in the same
// list, titled alike about another order and person.
func (g *corpusGen) otherCardAfterAFailure() {
	c := g.current()
	tool := pickOne(g.r, titledTools)
	list := fmt.Sprintf("%x", g.r.Uint32())
	w := pickOne(g.r, titleWordings)
	tg := target{tool.slug, tool.toolkit, nil}
	t := g.start()
	stopped := g.add(c, tg, tool.args(list, g.facts().fill(w[0])), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tool.args(list, g.facts().fill(w[g.r.IntN(3)])), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}

// paymentTools move money; their note is optional.
var paymentTools = []struct {
	slug, toolkit string
	args          func(ref string, cents int, note string) map[string]any
}{
	{"STRIPE_CREATE_REFUND", "stripe", func(r string, c int, n string) map[string]any {
		m := map[string]any{"payment_intent": r, "amount": c}
		if n != "" {
			m["metadata"] = map[string]any{"note": n}
		}
		return m
	}},
	{"QUICKBOOKS_CREATE_PAYMENT", "quickbooks", func(r string, c int, n string) map[string]any {
		m := map[string]any{"customer_id": r, "total_amount": fmt.Sprintf("%d.%02d", c/100, c%100)}
		if n != "" {
			m["private_note"] = n
		}
		return m
	}},
	{"PAYPAL_ISSUE_REFUND", "paypal", func(r string, c int, n string) map[string]any {
		m := map[string]any{"capture_id": r, "amount": map[string]any{"value": fmt.Sprintf("%d.%02d", c/100, c%100), "currency_code": "USD"}}
		if n != "" {
			m["note_to_payer"] = n
		}
		return m
	}},
}

var paymentNotes = []string{"Refund for the duplicate charge on order {n}", "{name} asked for it: order {n}", "Order {n} returned"}

// agentAddsANote: the model refunds (or records) a payment, the call fails or its answer is lost,
// and it sends it again with a note it had not written (or without the one it had). agent_retry.
func (g *corpusGen) agentAddsANote() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	tool := pickOne(g.r, paymentTools)
	ref := fmt.Sprintf("pi_%x", g.r.Uint64())
	cents := 500 + g.r.IntN(200000)
	note := g.facts().fill(pickOne(g.r, paymentNotes))
	first := g.r.IntN(2)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		n := ""
		if i == first {
			n = note
		}
		return target{tool.slug, tool.toolkit, nil}, tool.args(ref, cents, n)
	})
}

// otherRefundAfterAFailure (near-miss): a refund fails; a minute later another amount on the
// same payment, with a note.
func (g *corpusGen) otherRefundAfterAFailure() {
	c := g.current()
	tool := pickOne(g.r, paymentTools)
	ref := fmt.Sprintf("pi_%x", g.r.Uint64())
	cents := 500 + g.r.IntN(200000)
	tg := target{tool.slug, tool.toolkit, nil}
	t := g.start()
	stopped := g.add(c, tg, tool.args(ref, cents, ""), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tool.args(ref, cents+100*(1+g.r.IntN(50)), g.facts().fill(pickOne(g.r, paymentNotes))),
		stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}

// wrappedTools keep a record's fields in a wrapper of short values.
var wrappedTools = []recordTool{
	{"HUBSPOT_CREATE_DEAL", "hubspot", func(n string, a, d any) map[string]any {
		return map[string]any{"properties": map[string]any{"dealname": n, "amount": a, "closedate": d, "pipeline": "default"}}
	}},
	{"AIRTABLE_CREATE_RECORD", "airtable", func(n string, a, d any) map[string]any {
		return map[string]any{"baseId": "appQ2", "tableIdOrName": "Deals", "fields": map[string]any{"Deal": n, "Value": a, "Close date": d}}
	}},
}

// agentRetypesAWrappedRecord: the model creates a record whose fields sit in a wrapper, the call
// fails or its answer is lost, and it creates it again with the amount and the day written in
// another type or notation. agent_retry.
func (g *corpusGen) agentRetypesAWrappedRecord() { g.agentRetypesOneOf(wrappedTools) }

// otherWrappedAmountAfterAFailure (near-miss): a record's create fails; a minute later the same
// record with another amount, in another notation.
func (g *corpusGen) otherWrappedAmountAfterAFailure() { g.otherAmountAfterAFailure(wrappedTools) }

// richText is a text as a rich-text document (Atlassian's document format): paragraphs of text
// nodes.
func richText(text string) map[string]any {
	return map[string]any{"type": "doc", "version": 1, "content": []any{
		map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": text}}},
	}}
}

var documentWordings = [][2]string{
	{"Checkout fails for order {n}", "{name} reports checkout failing for order {n} since {day} with a 502."},
	{"Order {n}: checkout failing", "Since {day}, checkout for order {n} fails with a 502, {name} says."},
	{"Checkout 502 on order {n}", "Order {n} cannot check out since {day} (502), per {name}."},
}

// agentDescribesInADocument: the model files an issue whose description is a rich-text document,
// the call fails or its answer is lost, and it files it again with the description as plain
// text (or the other way round), its words written anew. agent_retry.
func (g *corpusGen) agentDescribesInADocument() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	project := fmt.Sprintf("P%03d", g.r.IntN(1000))
	f := g.facts()
	order := g.r.Perm(len(documentWordings))
	first := g.r.IntN(2)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		w := documentWordings[order[i]]
		var desc any = f.fill(w[1])
		if i == first {
			desc = richText(f.fill(w[1]))
		}
		return target{"JIRA_CREATE_ISSUE", "jira", nil},
			map[string]any{"project_key": project, "summary": f.fill(w[0]), "issue_type": "Bug", "description": desc}
	})
}

// otherIssueInADocument (near-miss): an issue described in a document fails; a minute later
// another issue about another order, described the same way.
func (g *corpusGen) otherIssueInADocument() {
	c := g.current()
	project := fmt.Sprintf("P%03d", g.r.IntN(1000))
	w := pickOne(g.r, documentWordings)
	tg := target{"JIRA_CREATE_ISSUE", "jira", nil}
	args := func(f facts) map[string]any {
		return map[string]any{"project_key": project, "summary": f.fill(w[0]), "issue_type": "Bug", "description": richText(f.fill(w[1]))}
	}
	t := g.start()
	stopped := g.add(c, tg, args(g.facts()), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, args(g.facts()), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}
