package triage

import (
	"cmp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // a write's time zone is read on any machine, with or without the system's zone files
	"unicode"

	"github.com/exectriage/exectriage/model"
)

// Pinned targets. Some writes name their target by facts of its own, whatever words come with
// them: an event by its start and its attendees (one slot, one set of people), a contact by its
// own email address or phone number (a CRM keeps one contact per address). The labels such a
// write carries (a title, a summary, a name, a subject) are words about the target, not the
// target: an agent that saw an error writes the call anew under another title, or spells the
// name otherwise. So when the arguments pin the target, the labels join the free text, the
// pinning values are compared as facts (an address in lower case, a phone by its digits, a
// start as an instant), and an attempt after one that did not succeed joins it whatever its
// words (clusterBucket). Which arguments pin is read from their names and values, for any
// tool: no list of tools.

// PinnedSimilarity is the similarity recorded for an attempt that joined by its pinned target
// alone (its labels and text written anew).
const PinnedSimilarity = 0.15

// labelKey: an argument that names or describes a target in words (its title, a person's name,
// the company they work for), not the target itself.
func labelKey(k string) bool {
	switch strings.ToLower(k) {
	case "title", "summary", "name", "subject", "first_name", "firstname", "last_name", "lastname", "full_name", "fullname",
		"display_name", "displayname", "given_name", "family_name", "company", "company_name", "jobtitle", "job_title":
		return true
	}
	return false
}

// startKey: an argument that says when an event starts (start, start_time, start_datetime,
// startDateTime, event_start...).
func startKey(k string) bool {
	l := strings.ToLower(k)
	return strings.Contains(l, "start") && !strings.Contains(l, "restart")
}

// extentKey: an argument that says how long an event lasts or when it ends (end, end_time,
// endDateTime, event_duration_hour, duration, length), by its name's words.
func extentKey(k string) bool {
	for _, w := range keyWords(k) {
		switch w {
		case "end", "ends", "until", "duration", "length":
			return true
		}
	}
	return false
}

// venueKey: an argument that says where or how an event is held (location, venue, room, place,
// a conference or call link: create_meeting_room, conferenceData), by its name's words. Of an
// event its slot and people pin it is an attribute: the same people cannot meet twice at once.
func venueKey(k string) bool {
	for _, w := range keyWords(k) {
		switch w {
		case "location", "venue", "room", "place", "conference", "hangout", "meet":
			return true
		}
	}
	return false
}

// keyWords are an argument name's words, lower case: split at '_', '-', '.', and where a
// capital follows a small letter or a digit (endDateTime: end, date, time).
func keyWords(k string) []string {
	var out []string
	start := 0
	flush := func(i int) {
		if w := strings.Trim(k[start:i], "_-."); w != "" {
			out = append(out, strings.ToLower(w))
		}
		start = i
	}
	for i := 1; i < len(k); i++ {
		c, p := k[i], k[i-1]
		switch {
		case strings.IndexByte("_-.", c) >= 0:
			flush(i)
		case c >= 'A' && c <= 'Z' && (p >= 'a' && p <= 'z' || p >= '0' && p <= '9'):
			flush(i)
		}
	}
	flush(len(k))
	return out
}

// peopleKey: an argument that lists the people an event gathers.
func peopleKey(k string) bool {
	l := strings.ToLower(k)
	return strings.Contains(l, "attendee") || strings.Contains(l, "guest") || strings.Contains(l, "participant") ||
		strings.Contains(l, "invitee")
}

// ownAddressKey: an argument (its name in lower case) that is the target's own address or
// phone (a contact's email), not whom a message goes to (recipientKey).
func ownAddressKey(l string) bool {
	if recipientKey(l) {
		return false
	}
	switch l {
	case "email", "email_address", "emailaddress", "primary_email", "work_email", "personal_email", "emails",
		"phone", "phone_number", "phonenumber", "mobile", "mobile_phone", "mobilephone", "mobile_number":
		return true
	}
	// a person record's own address named after the record: contact_email, lead_phone,
	// customerEmail (not an owner's, an assignee's or a sender's: other people)
	for _, suffix := range [...]string{"email_address", "emailaddress", "email", "phone_number", "phonenumber", "phone", "mobile"} {
		if who, ok := strings.CutSuffix(l, suffix); ok && personRecord(strings.TrimSuffix(who, "_")) {
			return true
		}
	}
	return false
}

// personRecord says whether a name is of a record a CRM or a directory keeps one of per
// address (not a user, a host or a client: often the one acting, not the record made).
func personRecord(who string) bool {
	switch who {
	case "contact", "lead", "person", "customer", "member", "subscriber", "prospect", "candidate", "employee", "patient":
		return true
	}
	return false
}

// mergeBranch says which side of a proposed merge an argument (its name) names: +1 the branch
// whose changes are proposed (head, source_branch, sourceRefName, from_branch), -1 the branch
// they would go into (base, target_branch, targetRefName, to_branch), 0 neither. A name of one
// word is read as GitHub writes it (head, base); a longer one must say it is a branch or a ref.
func mergeBranch(k string) int {
	ws := keyWords(k)
	switch {
	case len(ws) == 1 && ws[0] == "head":
		return 1
	case len(ws) == 1 && ws[0] == "base":
		return -1
	case len(ws) < 2 || !slices.ContainsFunc(ws[1:], func(w string) bool { return w == "branch" || w == "ref" }):
		return 0
	}
	switch ws[0] {
	case "head", "source", "from":
		return 1
	case "base", "target", "to", "destination", "dest":
		return -1
	}
	return 0
}

// pin is what pinOf reads of a write's arguments.
type pin struct {
	// slot: a start and the people it gathers pin an event; own: the target's own address or
	// phone pins it (a contact), and then nothing else of it is its identity; merge: a branch
	// proposed into another pins a pull or merge request (a host keeps one open request for a
	// pair), its title and description words about it
	slot, own, merge bool
	norm             map[string]string // the pinning values in their normal form, by key
	address          bool              // own pins by an email address (a phone beside it is an attribute)
}

// pinOf reads whether a write's top-level arguments pin its target; skip is the volatile keys
// (lower case), which pin nothing.
func pinOf(ms []model.ArgMember, skip map[string]bool, roles Roles) pin {
	var p pin
	var start, people, message, head, base bool
	zone := zoneOf(ms, skip)
	for _, m := range ms {
		lk := strings.ToLower(m.Key)
		role := roleOf(m.Key, lk, roles)
		message = message || role == RoleMessage
		if string(m.Raw) == "null" || model.Skips(skip, lk) {
			continue
		}
		var v string
		switch {
		case role == RoleStart:
			value, own := startValue(m)
			if v = instant(value, cmp.Or(own, zone)); v != "" {
				start = true
			}
		case role == RolePeople:
			if v = addressSet(string(m.Raw)); v != "" {
				people = true
			}
		case role == RoleOwnAddress && m.IsStr:
			if v = addressOrPhone(m.Str); v != "" {
				p.own = true
				p.address = p.address || strings.HasPrefix(v, "E:")
			}
		case role == RoleOwnAddress:
			// the address in a list or an object ([{"value": "dana@x.org", "primary": true}]):
			// one address is the record's; more are other people or attributes
			if a := addressSet(string(m.Raw)); a != "" && !strings.Contains(a, ",") {
				v, p.own, p.address = "E:"+a, true, true
			}
		case role == RoleNone && m.IsStr && strings.TrimSpace(m.Str) != "":
			switch mergeBranch(m.Key) {
			case 1:
				v, head = m.Str, true
			case -1:
				v, base = m.Str, true
			}
		}
		if v != "" {
			if p.norm == nil {
				p.norm = map[string]string{}
			}
			p.norm[m.Key] = v
		}
	}
	p.slot = start && people
	p.merge = head && base
	if message {
		// a write that carries a message is about its message: an address beside it says who
		// receives it (an email sent through a tool that names it "email"), not what it is
		p.own = false
	}
	return p
}

// roleOf is an argument's role: the one its tool's definition gives (roles, by the name as
// written), else the one its name says (lk: the name in lower case).
func roleOf(key, lk string, roles Roles) Role {
	if r := roles[key]; r != RoleNone {
		return r
	}
	switch {
	case messageKey(lk):
		return RoleMessage
	case startKey(lk):
		return RoleStart
	case peopleKey(lk):
		return RolePeople
	case ownAddressKey(lk):
		return RoleOwnAddress
	case labelKey(lk):
		return RoleLabel
	}
	return RoleNone
}

// messageKey: an argument (its name in lower case) that carries a message to someone (not a
// record's description).
func messageKey(l string) bool {
	switch l {
	case "body", "message", "message_body", "html_body", "text_body", "text", "markdown_text", "markdown", "content", "reply",
		"reply_text", "caption":
		return true
	}
	return false
}

// startValue is a start's time as written and the zone written with it: the string, or in an
// object ({"dateTime": ..., "timeZone": ...}, as Google Calendar writes it) its date-time and
// time-zone members; seconds or milliseconds since 1970, as a number or a string, are their
// instant in RFC 3339 (notation.go).
func startValue(m model.ArgMember) (value, zone string) {
	digits := m.Str
	if !m.IsStr {
		digits = string(m.Raw)
	}
	if t, ok := epochTime(digits); ok {
		return t.Format(time.RFC3339), ""
	}
	if m.IsStr {
		return m.Str, ""
	}
	ms, ok := model.SplitObject(m.Raw)
	if !ok {
		return "", ""
	}
	for _, x := range ms {
		switch lk := strings.ToLower(x.Key); {
		case !x.IsStr:
		case lk == "datetime" || lk == "date_time" || lk == "date" || lk == "time" || lk == "value":
			value = x.Str
		case zoneKey(lk):
			zone = x.Str
		}
	}
	return value, zone
}

// zoneKey: an argument (its name in lower case) that names the time zone the write's times are
// in (timezone, time_zone, timeZone, tz).
func zoneKey(l string) bool {
	return strings.Contains(l, "timezone") || strings.Contains(l, "time_zone") || l == "tz"
}

// zoneOf is the time zone a write's top-level arguments name, "" for none.
func zoneOf(ms []model.ArgMember, skip map[string]bool) string {
	for _, m := range ms {
		if lk := strings.ToLower(m.Key); m.IsStr && zoneKey(lk) && !model.Skips(skip, lk) {
			return m.Str
		}
	}
	return ""
}

// instant is a start time in a normal form: an RFC 3339 time in UTC; a local date and time in
// UTC too when zone names a time zone (the tool reads it there: 10:00 in America/New_York is
// 15:00Z), else as written ("" when s is neither).
func instant(s, zone string) string {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		if loc := zoneNamed(zone); loc != nil && layout != "2006-01-02" {
			return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc).UTC().Format(time.RFC3339)
		}
		return "local " + t.Format("2006-01-02T15:04:05")
	}
	return ""
}

// zoneNamed is the time zone a write names, nil for none, an unknown one, or the machine's own
// ("Local": what it says depends on where exectriage runs).
func zoneNamed(zone string) *time.Location {
	zone = strings.TrimSpace(zone)
	if zone == "" || strings.EqualFold(zone, "local") {
		return nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil
	}
	return loc
}

// addressSet is the email addresses in a value (a list of addresses, or of attendees with
// theirs), lower case, sorted, unique, joined ("" when there is none).
func addressSet(s string) string {
	var as []string
	for _, e := range entities(s) {
		if a, ok := strings.CutPrefix(e, "E:"); ok {
			as = append(as, a)
		}
	}
	sortUnique(&as)
	return strings.Join(as, ",")
}

// addressOrPhone is an email address in lower case, or a phone number by its last ten digits
// (a country code written or not), "" for anything else.
func addressOrPhone(s string) string {
	s = strings.TrimSpace(s)
	if bareAddress(s) {
		return "E:" + strings.ToLower(s)
	}
	var digits []rune
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits = append(digits, r)
		case strings.ContainsRune(" +-().", r):
		default:
			return ""
		}
	}
	if len(digits) < 7 {
		return ""
	}
	return "P:" + string(digits[max(len(digits)-10, 0):])
}

// pinnedMembers applies pinning to a write's members: labels move to the free text (true in
// text), pinning values are replaced by their normal form, as JSON strings. A target pinned by
// its own address keeps only that address as its identity: the other strings said of it (a
// name, a company, a phone beside the address) are words about it, and move to the text too.
func pinnedMembers(ms []model.ArgMember, skip map[string]bool, roles Roles) (pinned bool, text []bool, out []model.ArgMember) {
	p := pinOf(ms, skip, roles)
	if !p.slot && !p.own && !p.merge {
		return false, nil, ms
	}
	text = make([]bool, len(ms))
	out = slices.Clone(ms)
	for i, m := range out {
		v, pins := p.norm[m.Key]
		if pins && p.own && p.address && strings.HasPrefix(v, "P:") {
			pins = false // a phone beside the address that pins
		}
		switch {
		case pins:
			out[i].Raw, out[i].Str, out[i].IsStr = model.AppendKey(nil, v), v, true
		case p.slot && (extentKey(m.Key) || venueKey(m.Key)):
			// one slot however its length is written and wherever it is held: an end or a
			// duration, a place or a call link is an attribute of the event its start and people
			// pin, not its identity (absent, as null is)
			out[i].Raw, out[i].Str, out[i].IsStr = []byte("null"), "", false
		case p.own:
			text[i] = m.IsStr
		default:
			text[i] = roleOf(m.Key, strings.ToLower(m.Key), roles) == RoleLabel && m.IsStr
		}
	}
	return true, text, out
}
