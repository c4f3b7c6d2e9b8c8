package triage_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Families written on 2026-12-07 (ninth batch), before any rule read them: an agent writes a
// call again to the people of the first one and one more (cc its manager, the person it forgot)
// or one fewer (the address it doubts), the text reworded: the people of both calls got it twice;
// a meeting booked again at its slot with an attendee more or fewer. Near-misses: the same text
// to other people after a failure (the next batch of a mailing), and the same people and one
// more after a success (a person re-sends on purpose, a forgotten cc).

// audience is people and one more, or people and one fewer (two at least either way).
func (g *corpusGen) audience(people []string, more bool) []string {
	if more {
		return append(append([]string(nil), people...), fmt.Sprintf("%s.%d@example.org",
			strings.ToLower(pickOne(g.r, corpusNames)), 1000+g.r.IntN(1000)))
	}
	out := append([]string(nil), people...)
	i := g.r.IntN(len(out))
	return append(out[:i], out[i+1:]...)
}

// agentWidensTheAudience: the model emails people, the call fails or its answer is lost, and
// it writes the call again to them and one more, or to them but one, reworded. agent_retry.
func (g *corpusGen) agentWidensTheAudience() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	people := append(g.attendees(), fmt.Sprintf("lead.%d@example.org", g.r.IntN(1000)))
	second := g.audience(people, g.r.IntN(3) > 0)
	order := g.r.Perm(len(it.phrasings))
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		who := people
		if i == 1 {
			who = second
		}
		return target{"GMAIL_SEND_EMAIL", "gmail", nil}, map[string]any{"recipient_email": who[0], "cc": who[1:],
			"subject": "Update " + f["{n}"], "body": f.fill(it.phrasings[order[i]])}
	})
}

// agentRebooksWithAnotherAttendee: the event's creation failed or timed out; the agent books it
// again at its slot with one attendee more or fewer, retitled.
func (g *corpusGen) agentRebooksWithAnotherAttendee() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	key := g.newGroup(model.PatternAgentRetry)
	titles := pickOne(g.r, meetingTitles)
	people, at := append(g.attendees(), fmt.Sprintf("host.%d@example.org", g.r.IntN(1000))), g.slot()
	second := g.audience(people, g.r.IntN(2) == 0)
	t := g.start()
	for i := range 2 {
		end := endOK
		who := people
		if i == 0 {
			end = g.failure()
		} else {
			who = second
		}
		stopped := g.add(c, calendarTool, eventArgs(titles[i], "Agenda: status, risks, next steps", writeStart(at, i), who), t, end, g.fast(), -1, key)
		t = stopped.Add(time.Duration(3000+g.r.IntN(40000)) * time.Millisecond)
	}
}

// sameTextToOthers (near-miss): the first email failed; the same text goes to other people
// (the next batch of one mailing), none of the first among them.
func (g *corpusGen) sameTextToOthers() {
	c := g.current()
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	first, next := g.attendees(), g.attendees()
	t := g.start()
	args := func(who []string) map[string]any {
		return map[string]any{"recipient_email": who[0], "cc": who[1:], "subject": "Update " + f["{n}"], "body": f.fill(it.phrasings[0])}
	}
	stopped := g.add(c, target{"GMAIL_SEND_EMAIL", "gmail", nil}, args(first), t, g.failure(), g.fast(), -1, "")
	g.add(c, target{"GMAIL_SEND_EMAIL", "gmail", nil}, args(next), stopped.Add(time.Duration(5+g.r.IntN(50))*time.Second), endOK, g.fast(), -1, "")
}

// oneMoreAfterASuccess (near-miss): the email went out; minutes later a person sends it again to
// the same people and the one they forgot (a re-send on purpose, not an attempt to get one out).
func (g *corpusGen) oneMoreAfterASuccess() {
	c := g.current()
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	people := g.attendees()
	t := g.start()
	args := func(who []string) map[string]any {
		return map[string]any{"recipient_email": who[0], "cc": who[1:], "subject": "Update " + f["{n}"], "body": f.fill(it.phrasings[0])}
	}
	stopped := g.add(c, target{"GMAIL_SEND_EMAIL", "gmail", nil}, args(people), t, endOK, g.fast(), -1, "")
	g.add(c, target{"GMAIL_SEND_EMAIL", "gmail", nil}, args(g.audience(people, true)),
		stopped.Add(time.Duration(120+g.r.IntN(600))*time.Second), endOK, g.fast(), -1, "")
}
