package triage_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Families written on 2026-12-07 (sixth duplicate batch), before any rule read them: a time, a
// day, an amount or a flag that a model writes again in another notation. Tools that take a time
// take it as seconds or milliseconds since 1970 (ClickUp's due_date, Slack's post_at, HubSpot's
// hs_timestamp) or as an RFC 3339 string in any offset, and a model writes whichever it thinks
// of; a due day comes as "2026-12-18", "Dec 18, 2026" or "18.12.2026"; an amount with its
// thousands grouped ("1,250.00", in Europe "1.250,00"); a flag as true, "true" or Python's
// "True". Near-misses written with them: another time, another day, another amount, each after
// a failure, written in another notation too.

// timedTools take a time at which the thing they make is due or sent.
var timedTools = []struct {
	slug, toolkit string
	args          func(ref, text string, at any) map[string]any
}{
	{"CLICKUP_CREATE_TASK", "clickup", func(r, t string, at any) map[string]any {
		return map[string]any{"list_id": r, "name": t, "due_date": at, "due_date_time": true}
	}},
	{"SLACK_SCHEDULE_MESSAGE", "slack", func(r, t string, at any) map[string]any {
		return map[string]any{"channel": "C" + r, "text": t, "post_at": at}
	}},
	{"HUBSPOT_CREATE_TASK", "hubspot", func(r, t string, at any) map[string]any {
		return map[string]any{"properties": map[string]any{"hs_task_subject": t, "hs_timestamp": at, "hubspot_owner_id": r}}
	}},
	{"TODOIST_CREATE_TASK", "todoist", func(r, t string, at any) map[string]any {
		return map[string]any{"project_id": r, "content": t, "due_datetime": at}
	}},
}

// timeWritten is an instant as a model may write it: milliseconds or seconds since 1970, as a
// number or a string, or RFC 3339 in UTC, with milliseconds, or in another offset.
func timeWritten(at time.Time, form int) any {
	switch form % 6 {
	case 0:
		return json.Number(strconv.FormatInt(at.UnixMilli(), 10))
	case 1:
		return json.Number(strconv.FormatInt(at.Unix(), 10))
	case 2:
		return at.UTC().Format(time.RFC3339)
	case 3:
		return at.UTC().Format("2006-01-02T15:04:05.000Z")
	case 4:
		return at.In(time.FixedZone("", -5*3600)).Format(time.RFC3339)
	default:
		return strconv.FormatInt(at.UnixMilli(), 10)
	}
}

var timedTexts = []string{"Send {name} the signed contract for order {n}", "Reminder: invoice {n} is due", "{svc} maintenance window starts"}

// agentRetimes: the model makes a task (a scheduled message) due at a time, the call fails or its
// answer is lost, and it makes it again with the time written in another notation. agent_retry.
func (g *corpusGen) agentRetimes() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	tool := pickOne(g.r, timedTools)
	ref := fmt.Sprint(900000 + g.r.IntN(90000))
	text := g.facts().fill(pickOne(g.r, timedTexts))
	at := time.Date(2026, time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 6+g.r.IntN(14), 15*g.r.IntN(4), 0, 0, time.UTC)
	form := g.r.IntN(6)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return target{tool.slug, tool.toolkit, nil}, tool.args(ref, text, timeWritten(at, form+i*(1+g.r.IntN(5))))
	})
}

// otherTimeAfterAFailure (near-miss): a task due at a time fails; a minute later the same task
// due an hour or a day later, the time in another notation: the corrected task.
func (g *corpusGen) otherTimeAfterAFailure() {
	c := g.current()
	tool := pickOne(g.r, timedTools)
	ref := fmt.Sprint(900000 + g.r.IntN(90000))
	text := g.facts().fill(pickOne(g.r, timedTexts))
	at := time.Date(2026, time.Month(1+g.r.IntN(12)), 1+g.r.IntN(28), 6+g.r.IntN(14), 15*g.r.IntN(4), 0, 0, time.UTC)
	later := at.Add(pickOne(g.r, []time.Duration{time.Hour, 24 * time.Hour, 30 * time.Minute}))
	form := g.r.IntN(6)
	tg := target{tool.slug, tool.toolkit, nil}
	t := g.start()
	stopped := g.add(c, tg, tool.args(ref, text, timeWritten(at, form)), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tool.args(ref, text, timeWritten(later, form+1+g.r.IntN(5))), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second),
		endOK, g.fast(), -1, "")
}

// billedTools bill an amount, due on a day, with a flag.
var billedTools = []struct {
	slug, toolkit string
	args          func(ref string, amount, day, flag any) map[string]any
}{
	{"QUICKBOOKS_CREATE_INVOICE", "quickbooks", func(r string, a, d, f any) map[string]any {
		return map[string]any{"customer_id": r, "due_date": d, "allow_online_payment": f,
			"line_items": []any{map[string]any{"description": "Consulting", "amount": a}}}
	}},
	{"XERO_CREATE_INVOICE", "xero", func(r string, a, d, f any) map[string]any {
		return map[string]any{"ContactID": r, "DueDate": d, "SentToContact": f, "Type": "ACCREC",
			"LineItems": []any{map[string]any{"Description": "Support plan", "UnitAmount": a, "Quantity": 1}}}
	}},
	{"ASANA_CREATE_A_TASK", "asana", func(r string, a, d, f any) map[string]any {
		return map[string]any{"projects": []string{r}, "name": fmt.Sprintf("Collect payment of %v", a), "due_on": d, "liked": f}
	}},
}

// amountGrouped is an amount in cents, at least 1,000.00, as a model may write it: a number, a
// string with two decimals, its thousands grouped by commas, or grouped by points with a decimal
// comma.
func amountGrouped(cents, form int) any {
	whole, frac := cents/100, cents%100
	group := func(sep string) string {
		s := strconv.Itoa(whole)
		out := ""
		for len(s) > 3 {
			out = sep + s[len(s)-3:] + out
			s = s[:len(s)-3]
		}
		return s + out
	}
	switch form % 4 {
	case 0:
		return json.Number(strconv.FormatFloat(float64(cents)/100, 'f', -1, 64))
	case 1:
		return fmt.Sprintf("%d.%02d", whole, frac)
	case 2:
		return fmt.Sprintf("%s.%02d", group(","), frac)
	default:
		return fmt.Sprintf("%s,%02d", group("."), frac)
	}
}

// dayInWords is a day as a model may write it: ISO, the month named before or after the day
// (with or without its weekday), year first with slashes, or day first with points.
func dayInWords(day time.Time, form int) string {
	return dayIn(day, form, time.DateOnly, "Jan 2, 2006", "2 January 2006", "Monday, January 2, 2006", "2006/01/02", "02.01.2006")
}

// flagWritten is true as a model may write it: a boolean, a string, or Python's str(True).
func flagWritten(form int) any {
	return []any{true, "true", "True"}[form%3]
}

// agentRenotatesABill: the model bills an amount due on a day, the call fails or its answer is
// lost, and it bills it again with the amount, the day and the flag written in other notations.
// agent_retry.
func (g *corpusGen) agentRenotatesABill() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", "crewai", ""})
	tool := pickOne(g.r, billedTools)
	ref := fmt.Sprint(100 + g.r.IntN(9000))
	cents := 100000 + 100*g.r.IntN(2000000)
	day := time.Date(2026, time.Month(1+g.r.IntN(12)), 13+g.r.IntN(16), 0, 0, 0, 0, time.UTC)
	a, d, f := g.r.IntN(4), g.r.IntN(6), g.r.IntN(3)
	key := g.newGroup(model.PatternAgentRetry)
	g.modelTurns(c, 2, key, func(i int) (target, map[string]any) {
		return target{tool.slug, tool.toolkit, nil}, tool.args(ref, amountGrouped(cents, a+i*(1+g.r.IntN(3))),
			dayInWords(day, d+i*(1+g.r.IntN(5))), flagWritten(f+i*(1+g.r.IntN(2))))
	})
}

// otherBillAfterAFailure (near-miss): a bill fails; a minute later the same customer billed
// another amount, or due another day, in other notations.
func (g *corpusGen) otherBillAfterAFailure() {
	c := g.current()
	tool := pickOne(g.r, billedTools)
	ref := fmt.Sprint(100 + g.r.IntN(9000))
	cents := 100000 + 100*g.r.IntN(2000000)
	day := time.Date(2026, time.Month(1+g.r.IntN(12)), 13+g.r.IntN(15), 0, 0, 0, 0, time.UTC)
	cents2, day2 := cents, day
	if g.r.IntN(2) == 0 {
		cents2 += 100 * (1 + g.r.IntN(500))
	} else {
		day2 = day.AddDate(0, 0, 1)
	}
	a, d := g.r.IntN(4), g.r.IntN(6)
	tg := target{tool.slug, tool.toolkit, nil}
	t := g.start()
	stopped := g.add(c, tg, tool.args(ref, amountGrouped(cents, a), dayInWords(day, d), true), t, g.failure(), g.fast(), -1, "")
	g.add(c, tg, tool.args(ref, amountGrouped(cents2, a+1), dayInWords(day2, d+1), "true"), stopped.Add(time.Duration(30+g.r.IntN(90))*time.Second),
		endOK, g.fast(), -1, "")
}
