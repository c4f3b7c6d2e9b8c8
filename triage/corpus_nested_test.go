package triage_test

import (
	"fmt"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Families written on 2026-12-07 (fourth batch), before any rule read them: writes whose
// arguments nest what a flat tool spells at the top (a database row's properties, a message
// object as a mail API takes it); and near-misses: another row in one database, another post from one account, each
// after a failure.

// rowWordings are one task row written three ways: its title and its note.
var rowWordings = [][2]string{
	{"Call {name} about order {n}", "{name} asked about order {n}; call back before {day}."},
	{"Follow up with {name}: order {n}", "Phone {name} about order {n} before {day}."},
	{"Order {n}: ring {name} back", "Before {day}, call {name} regarding order {n}."},
}

var notionRowTool = target{"NOTION_INSERT_ROW_DATABASE", "notion", nil}

// notionRow is a task row as a model writes NOTION_INSERT_ROW_DATABASE's arguments: the
// properties as a list of name, type and value, or as an object of columns.
func notionRow(db string, f facts, w [2]string, asList bool) map[string]any {
	title, note := f.fill(w[0]), f.fill(w[1])
	if asList {
		return map[string]any{"database_id": db, "properties": []map[string]any{
			{"name": "Name", "type": "title", "value": title},
			{"name": "Notes", "type": "rich_text", "value": note},
			{"name": "Status", "type": "select", "value": "To do"},
		}}
	}
	return map[string]any{"database_id": db, "row_data": map[string]any{"Name": title, "Notes": note, "Status": "To do"}}
}

// agentReinsertsRow: the model adds a task row to a Notion database, the call fails or its
// answer is lost, and it adds it again with the title and the note written anew (the
// properties in either shape). agent_retry.
func (g *corpusGen) agentReinsertsRow() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	f := g.facts()
	db := fmt.Sprintf("%08x-09b7-459b-89cc-01de4b71ec9d", g.r.Uint32())
	order := g.r.Perm(len(rowWordings))
	asList := g.r.IntN(2) == 0
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return notionRowTool, notionRow(db, f, rowWordings[order[i]], asList)
	})
}

// otherRowAfterAFailure (near-miss): a row's insert fails; a minute later another task's row
// in the same database (another order, another person).
func (g *corpusGen) otherRowAfterAFailure() {
	c := g.current()
	db := fmt.Sprintf("%08x-09b7-459b-89cc-01de4b71ec9d", g.r.Uint32())
	asList := g.r.IntN(2) == 0
	order := g.r.Perm(len(rowWordings))
	t := g.start()
	stopped := g.add(c, notionRowTool, notionRow(db, g.facts(), rowWordings[order[0]], asList), t, g.failure(), g.fast(), -1, "")
	g.add(c, notionRowTool, notionRow(db, g.facts(), rowWordings[order[1]], asList), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second),
		endOK, g.fast(), -1, "")
}

// agentSendsAMessageObject: the model sends mail through a tool that takes the mail API's own
// message object (subject, body with its content type, recipients as address objects), the
// call fails or its answer is lost, and it sends it again with the subject and the text written
// anew. agent_retry.
func (g *corpusGen) agentSendsAMessageObject() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	people := g.attendees()[:2]
	order := g.r.Perm(len(it.phrasings))
	subjects := []string{"Order {n}", "Your order {n}", "Update on order {n}"}
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		to := make([]map[string]any, len(people))
		for k, p := range people {
			to[k] = map[string]any{"emailAddress": map[string]any{"address": p}}
		}
		msg := map[string]any{"subject": f.fill(subjects[(order[i])%len(subjects)]),
			"body": map[string]any{"contentType": "Text", "content": f.fill(it.phrasings[order[i]])}, "toRecipients": to}
		return target{"OUTLOOK_SEND_MAIL", "outlook", nil}, map[string]any{"message": msg, "saveToSentItems": true}
	})
}

// postWordings are two announcements, each written three ways, short, with the marks a post
// carries. (A family of the model posting one of them again, reworded, scored 41/150 and is
// left: docs/judgement.md.)
var postWordings = [][]string{
	{"{svc} {n} is out today: faster exports for everyone. #release", "🚀 Just shipped {svc} {n}! Exports are faster now.",
		"New: {svc} {n} brings faster exports. Try it today 🎉"},
	{"We're hiring: {svc} team, {n} seats open. DM us!", "Join the {svc} team! {n} open roles 👋 #hiring",
		"{svc} is growing: {n} positions open now. Apply today."},
}

// otherPostAfterAFailure (near-miss): an announcement's post fails; a minute later the
// account posts the other announcement: another post.
func (g *corpusGen) otherPostAfterAFailure() {
	c := g.current()
	f := g.facts()
	tg := target{"TWITTER_CREATION_OF_A_POST", "twitter", nil}
	t := g.start()
	stopped := g.add(c, tg, map[string]any{"text": f.fill(pickOne(g.r, postWordings[0]))}, t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, map[string]any{"text": f.fill(pickOne(g.r, postWordings[1]))}, stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second),
		endOK, g.fast(), -1, "")
}
