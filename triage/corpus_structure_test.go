package triage_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// The corpus's families of re-sends that change the structure, not only the words (written for
// the pinned targets of pinned.go, none of them used to choose a rule): an agent that saw an
// error books the same slot for the same people under another title, or creates the same
// contact (one email, one phone) with the name spelled otherwise and the phone written another
// way, or appends the same rows with the numbers and dates written another way (rows.go). Their
// near-misses: another slot for the same people after a failure, another contact of the same name
// after a failure, a second meeting at one slot after the first was booked, and other rows
// appended to one sheet after a failure.

var (
	meetingTitles = [][]string{
		{"Q3 planning", "Planning sync: Q3", "Quarterly planning"},
		{"Contract review with legal", "Legal review - contract", "Review the contract"},
		{"Onboarding kickoff", "Kick-off: onboarding", "New customer onboarding"},
		{"Design critique", "Design review", "Critique of the new designs"},
	}
	spellings = [][2]string{{"Jon", "John"}, {"Müller", "Mueller"}, {"Aisha", "Aysha"}, {"Zoë", "Zoe"}, {"Sean", "Shawn"}, {"Katherine", "Catherine"}}
)

// attendees draws two or three people's addresses.
func (g *corpusGen) attendees() []string {
	n := 2 + g.r.IntN(2)
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s.%d@example.org", strings.ToLower(pickOne(g.r, corpusNames)), g.r.IntN(1000))
	}
	return out
}

// slot is a meeting's start, written as an agent might: with its offset, or in UTC.
func (g *corpusGen) slot() time.Time {
	d := g.now.Add(time.Duration(24+g.r.IntN(24*14)) * time.Hour)
	return time.Date(d.Year(), d.Month(), d.Day(), 9+g.r.IntN(8), 30*g.r.IntN(2), 0, 0, time.UTC)
}

func writeStart(t time.Time, variant int) string {
	if variant%2 == 0 {
		return t.Format(time.RFC3339)
	}
	return t.In(time.FixedZone("EDT", -4*3600)).Format(time.RFC3339) // one instant, another writing
}

var calendarTool = target{"GOOGLECALENDAR_CREATE_EVENT", "googlecalendar", nil}

func eventArgs(title, desc string, start string, people []string) map[string]any {
	return map[string]any{"calendar_id": "primary", "summary": title, "description": desc, "start_datetime": start,
		"event_duration_hour": 1, "event_duration_minutes": 0, "attendees": people, "timezone": "America/New_York"}
}

// shuffledCase is the same addresses in another order and case.
func (g *corpusGen) shuffledCase(people []string) []string {
	out := make([]string, len(people))
	for i, j := range g.r.Perm(len(people)) {
		out[i] = people[j]
		if g.r.IntN(2) == 0 {
			out[i] = strings.ToUpper(out[i][:1]) + out[i][1:]
		}
	}
	return out
}

// agentRebooks: the event's creation failed or timed out; the agent books it again under a title
// and description of its own, the attendees listed in another order.
func (g *corpusGen) agentRebooks() {
	c := g.current()
	c.framework = pickOne(g.r, []string{"langchain", "openai-agents", ""})
	key := g.newGroup(model.PatternAgentRetry)
	titles := pickOne(g.r, meetingTitles)
	people, at := g.attendees(), g.slot()
	t := g.start()
	n := 2 + g.r.IntN(2)
	for i := range n {
		end := endOK
		if i < n-1 {
			end = g.failure()
		}
		desc := fmt.Sprintf("Agenda %d: %s", i+1, pickOne(g.r, []string{"status, risks, next steps", "walk through the open items", "decide the owners"}))
		stopped := g.add(c, calendarTool, eventArgs(titles[i%len(titles)], desc, writeStart(at, i), g.shuffledCase(people)), t, end, g.fast(), -1, key)
		t = stopped.Add(time.Duration(3000+g.r.IntN(40000)) * time.Millisecond)
	}
}

var contactTool = target{"HUBSPOT_CREATE_CONTACT", "hubspot", nil}

// phoneWritten is one number written three ways.
func phoneWritten(digits string, variant int) string {
	switch variant % 3 {
	case 0:
		return "+1 " + digits[:3] + " " + digits[3:6] + " " + digits[6:]
	case 1:
		return "(" + digits[:3] + ") " + digits[3:6] + "-" + digits[6:]
	}
	return digits[:3] + "." + digits[3:6] + "." + digits[6:]
}

// agentRecreatesContact: the contact's creation failed or timed out; the agent creates it again
// with the name spelled otherwise, the address in another case, the phone written another way.
func (g *corpusGen) agentRecreatesContact() {
	c := g.current()
	key := g.newGroup(model.PatternAgentRetry)
	sp := pickOne(g.r, spellings)
	last := pickOne(g.r, []string{"Okafor", "Lindqvist", "Tanaka", "Haddad"})
	email := strings.ToLower(sp[1]) + "." + strings.ToLower(last) + fmt.Sprintf("%d@example.com", g.r.IntN(100))
	digits := fmt.Sprintf("415555%04d", g.r.IntN(10000))
	t := g.start()
	for i := range 2 {
		end := endOK
		if i == 0 {
			end = g.failure()
		}
		addr := email
		if i == 1 && g.r.IntN(2) == 0 {
			addr = strings.ToUpper(email[:1]) + email[1:]
		}
		args := map[string]any{"email": addr, "firstname": sp[i], "lastname": last, "company": "Acme Corp"}
		if g.r.IntN(3) > 0 {
			args["phone"] = phoneWritten(digits, i+g.r.IntN(3))
		}
		stopped := g.add(c, contactTool, args, t, end, g.fast(), -1, key)
		t = stopped.Add(time.Duration(3000+g.r.IntN(40000)) * time.Millisecond)
	}
}

// otherSlotSamePeople (near-miss): the first booking failed; the agent books the same people
// for another meeting, another day.
func (g *corpusGen) otherSlotSamePeople() {
	c := g.current()
	people, at := g.attendees(), g.slot()
	titles := pickOne(g.r, meetingTitles)
	t := g.start()
	stopped := g.add(c, calendarTool, eventArgs(titles[0], "Agenda: status", writeStart(at, 0), people), t, g.failure(), g.fast(), -1, "")
	g.add(c, calendarTool, eventArgs(titles[1], "Agenda: follow-up", writeStart(at.Add(24*time.Hour), 0), people), stopped.Add(20*time.Second), endOK, g.fast(), -1, "")
}

// sameNameOtherContact (near-miss): a contact's creation failed; the next contact created has
// the same name and another address (two people of one name).
func (g *corpusGen) sameNameOtherContact() {
	c := g.current()
	sp := pickOne(g.r, spellings)
	t := g.start()
	n := g.r.IntN(10000) // two draws of one name are two people, not one contact created twice
	stopped := g.add(c, contactTool, map[string]any{"email": fmt.Sprintf("%s.kim%d@alpha.example", strings.ToLower(sp[0]), n), "firstname": sp[0], "lastname": "Kim"},
		t, g.failure(), g.fast(), -1, "")
	g.add(c, contactTool, map[string]any{"email": fmt.Sprintf("%s.kim%d@beta.example", strings.ToLower(sp[0]), n), "firstname": sp[0], "lastname": "Kim"},
		stopped.Add(15*time.Second), endOK, g.fast(), -1, "")
}

// secondMeetingAtOneSlot (near-miss): a meeting is booked; minutes later another, under another
// title, for the same people at the same time (a second calendar entry the person wants).
func (g *corpusGen) secondMeetingAtOneSlot() {
	c := g.current()
	people, at := g.attendees(), g.slot()
	titles := pickOne(g.r, meetingTitles)
	t := g.start()
	stopped := g.add(c, calendarTool, eventArgs(titles[0], "Agenda: status", writeStart(at, 0), people), t, endOK, g.fast(), -1, "")
	g.add(c, calendarTool, eventArgs("Prep for "+titles[0], "Prepare the numbers", writeStart(at, 0), people), stopped.Add(3*time.Minute), endOK, g.fast(), -1, "")
}

var sheetTool = target{"GOOGLESHEETS_SPREADSHEETS_VALUES_APPEND", "googlesheets", nil}

// sheetRow is one order's row: its date, customer, order number and amount, written one of two
// ways (a model writing the call anew formats numbers and dates as it likes).
func sheetRow(day time.Time, customer string, order, cents int, variant int) []any {
	amount := float64(cents) / 100
	if variant%2 == 0 {
		return []any{day.Format("2006-01-02"), customer, fmt.Sprintf("A-%d", order), fmt.Sprintf("%s.%02d", thousands(cents/100), cents%100)}
	}
	return []any{day.Format("01/02/2006"), customer, fmt.Sprintf("A-%d", order), json.Number(strconv.FormatFloat(amount, 'f', -1, 64))}
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (g *corpusGen) orderRows(day time.Time) [][3]int {
	rows := make([][3]int, 1+g.r.IntN(3))
	for i := range rows {
		rows[i] = [3]int{g.r.IntN(len(corpusNames)), 10000 + g.r.IntN(89999), 1000 + g.r.IntN(900000)}
	}
	return rows
}

func sheetArgs(sheet string, day time.Time, rows [][3]int, variant int) map[string]any {
	values := make([]any, len(rows))
	for i, r := range rows {
		values[i] = sheetRow(day, corpusNames[r[0]], r[1], r[2], variant)
	}
	return map[string]any{"spreadsheetId": sheet, "range": "Orders!A:D", "valueInputOption": "USER_ENTERED", "values": values}
}

// agentReappendsRows: the rows' append failed or timed out; the agent appends them again with
// the numbers and dates written another way.
func (g *corpusGen) agentReappendsRows() {
	c := g.current()
	key := g.newGroup(model.PatternAgentRetry)
	sheet := fmt.Sprintf("1Bx%08x", g.r.Uint32())
	day := g.now.Add(-time.Duration(g.r.IntN(72)) * time.Hour)
	rows := g.orderRows(day)
	t := g.start()
	stopped := g.add(c, sheetTool, sheetArgs(sheet, day, rows, 0), t, g.failure(), g.fast(), -1, key)
	g.add(c, sheetTool, sheetArgs(sheet, day, rows, 1), stopped.Add(time.Duration(3000+g.r.IntN(40000))*time.Millisecond), endOK, g.fast(), -1, key)
}

// otherRowsAfterAFailure (near-miss): an append failed; the next append to the sheet carries
// other orders.
func (g *corpusGen) otherRowsAfterAFailure() {
	c := g.current()
	sheet := fmt.Sprintf("1Bx%08x", g.r.Uint32())
	day := g.now.Add(-time.Duration(g.r.IntN(72)) * time.Hour)
	t := g.start()
	stopped := g.add(c, sheetTool, sheetArgs(sheet, day, g.orderRows(day), 0), t, g.failure(), g.fast(), -1, "")
	g.add(c, sheetTool, sheetArgs(sheet, day, g.orderRows(day), 0), stopped.Add(time.Duration(5+g.r.IntN(60))*time.Second), endOK, g.fast(), -1, "")
}
