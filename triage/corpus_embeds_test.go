package triage_test

import (
	"fmt"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Families written on 2026-12-07 (seventh duplicate batch), before any rule read them: a message
// a model posts again with its text moved into a rich form the chat takes (Discord's embeds,
// Slack's attachments, Teams' cards), and a text message sent again to a number written bare,
// with its country code, or in its national form. Near-misses written with them: another
// message as an embed in the same channel, and the same text to the next number, each after a
// failure.

// embedded is a text put where a chat tool takes a rich message: a Discord embed (a title and
// a description), a Slack attachment (its text and its fallback), a Teams adaptive card.
func embedded(tool, channel, title, text string) (target, map[string]any) {
	switch tool {
	case "discord":
		return target{"DISCORDBOT_CREATE_MESSAGE", "discordbot", nil}, map[string]any{"channel_id": channel,
			"embeds": []any{map[string]any{"title": title, "description": text, "color": 5814783}}}
	case "slack":
		return target{"SLACK_SEND_MESSAGE", "slack", nil}, map[string]any{"channel": channel,
			"attachments": []any{map[string]any{"fallback": text, "text": text, "color": "good", "title": title}}}
	}
	return target{"MICROSOFT_TEAMS_SEND_MESSAGE", "microsoft_teams", nil}, map[string]any{"chat_id": channel,
		"attachments": []any{map[string]any{"contentType": "application/vnd.microsoft.card.adaptive", "content": map[string]any{
			"type": "AdaptiveCard", "version": "1.4", "body": []any{
				map[string]any{"type": "TextBlock", "text": title, "weight": "bolder"},
				map[string]any{"type": "TextBlock", "text": text, "wrap": true}}}}}}
}

// plain is the same text as a plain message.
func plain(tool, channel, text string) (target, map[string]any) {
	switch tool {
	case "discord":
		return target{"DISCORDBOT_CREATE_MESSAGE", "discordbot", nil}, map[string]any{"channel_id": channel, "content": text}
	case "slack":
		return target{"SLACK_SEND_MESSAGE", "slack", nil}, map[string]any{"channel": channel, "text": text}
	}
	return target{"MICROSOFT_TEAMS_SEND_MESSAGE", "microsoft_teams", nil}, map[string]any{"chat_id": channel, "message": text}
}

var embedTitles = []string{"Heads up", "Update", "Notice", "Status"}

// agentPostsAnEmbed: the model posts a message, the call fails or its answer is lost, and it
// posts it again as an embed, an attachment or a card (or the reverse), the text reworded.
// agent_retry.
func (g *corpusGen) agentPostsAnEmbed() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	tool := pickOne(g.r, []string{"discord", "slack", "teams"})
	ch := fmt.Sprint(1000000 + g.r.IntN(9000000))
	order := g.r.Perm(len(it.phrasings))
	embedFirst := g.r.IntN(2) == 0
	title := pickOne(g.r, embedTitles)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		text := f.fill(it.phrasings[order[i]])
		if embedFirst == (i == 0) {
			return embedded(tool, ch, title, text)
		}
		return plain(tool, ch, text)
	})
}

// otherEmbedAfterAFailure (near-miss): a message fails; a minute later another message, with
// facts of its own, as an embed under the same title, in the same channel. (As first written
// the second message was filled with the first one's facts: two texts that state the same name,
// number and day in one channel after a failure are one intent by the rule the corpus holds,
// whatever their words, so that draw was no near-miss.)
func (g *corpusGen) otherEmbedAfterAFailure() {
	c := g.current()
	its := corpusIntents()
	k := g.r.IntN(len(its))
	first := g.facts().fill(pickOne(g.r, its[k].phrasings))
	second := g.facts().fill(pickOne(g.r, its[(k+1+g.r.IntN(len(its)-1))%len(its)].phrasings))
	tool := pickOne(g.r, []string{"discord", "slack", "teams"})
	ch := fmt.Sprint(1000000 + g.r.IntN(9000000))
	title := pickOne(g.r, embedTitles)
	t := g.start()
	tg, args := plain(tool, ch, first)
	stopped := g.add(c, tg, args, t, g.failure(), g.fast(), -1, "")
	tg, args = embedded(tool, ch, title, second)
	g.add(c, tg, args, stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}

// numberDialed is a phone number as a model may write it for a text message: bare digits, with
// its country code and a +, the + alone, or, outside the US, its national form with the trunk 0.
func numberDialed(country, national string, form int) string {
	switch form % 4 {
	case 0:
		return national
	case 1:
		return "+" + country + national
	case 2:
		return "+" + country + " " + national[:3] + " " + national[3:]
	}
	if country == "1" {
		return country + national
	}
	return "0" + national
}

var smsTools = []struct {
	slug, toolkit, key string
}{
	{"TWILIO_SEND_SMS", "twilio", "to"},
	{"WHATSAPP_SEND_MESSAGE", "whatsapp", "to_number"},
	{"VONAGE_SEND_SMS", "vonage", "to"},
}

// agentRedialsANumber: the model texts a number, the call fails or its answer is lost, and it
// texts it again, the number written another way (bare, with its country code, national), the
// text reworded. agent_retry.
func (g *corpusGen) agentRedialsANumber() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	it := pickOne(g.r, corpusIntents())
	f := g.facts()
	tool := pickOne(g.r, smsTools)
	country, national := "1", fmt.Sprintf("415555%04d", g.r.IntN(10000))
	if g.r.IntN(2) == 0 {
		country, national = "44", fmt.Sprintf("7700%06d", g.r.IntN(1000000))
	}
	order := g.r.Perm(len(it.phrasings))
	form := g.r.IntN(4)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return target{tool.slug, tool.toolkit, nil}, map[string]any{tool.key: numberDialed(country, national, form+i*(1+g.r.IntN(3))),
			"body": f.fill(it.phrasings[order[i]])}
	})
}

// sameTextNextNumber (near-miss): a text message fails; a minute later the same text to the
// next number, written another way: another person.
func (g *corpusGen) sameTextNextNumber() {
	c := g.current()
	f := g.facts()
	text := f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings))
	tool := pickOne(g.r, smsTools)
	n := g.r.IntN(9999)
	form := g.r.IntN(4)
	tg := target{tool.slug, tool.toolkit, nil}
	t := g.start()
	stopped := g.add(c, tg, map[string]any{tool.key: numberDialed("1", fmt.Sprintf("415555%04d", n), form), "body": text}, t,
		g.failure(), g.fast(), -1, "")
	g.add(c, tg, map[string]any{tool.key: numberDialed("1", fmt.Sprintf("415555%04d", n+1), form+1), "body": text},
		stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second), endOK, g.fast(), -1, "")
}

// jobLibraryRetry: a background job sends the call, fails, and the job library runs it again on
// its own schedule (Sidekiq: 15 s + n⁴ + up to 10·(n+1) s; BullMQ's exponential backoff from 1 s
// or 5 s, doubling; Celery's retry_backoff, full jitter up to 2ⁿ s; a fixed delay of a minute),
// each attempt the same payload, until one works. app_retry: the application's own machinery.
func (g *corpusGen) jobLibraryRetry() {
	c := g.current()
	f := g.facts()
	tg := g.target(f)
	args := tg.args(f.fill(pickOne(g.r, pickOne(g.r, corpusIntents()).phrasings)))
	key := g.newGroup(model.PatternAppRetry)
	lib := g.r.IntN(4)
	bull := pickOne(g.r, []time.Duration{time.Second, 5 * time.Second})
	wait := func(n int) time.Duration { // the wait before attempt n+1, n = 1, 2, ...
		switch lib {
		case 0:
			return time.Duration(15+n*n*n*n+g.r.IntN(10)*(n+1)) * time.Second
		case 1:
			return bull << (n - 1)
		case 2:
			return time.Duration(g.r.Int64N(int64(time.Second << n)))
		}
		return time.Minute
	}
	fail := pickOne(g.r, []ending{end5xx, end429, endTimeout})
	n := 3 + g.r.IntN(2)
	t := g.start()
	for i := range n {
		end := failsBeforeLast(i, n, fail)
		stopped := g.add(c, tg, args, t, end, time.Duration(200+g.r.IntN(800))*time.Millisecond, -1, key)
		t = stopped.Add(wait(i + 1))
	}
}
