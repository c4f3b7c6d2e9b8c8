package triage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// What pins a target is read from the arguments' names and values, for any tool: a start and
// the people it gathers, or the target's own address or phone; a message's recipients do not.
func TestWhatPinsATarget(t *testing.T) {
	for _, c := range []struct {
		name, args string
		pinned     bool
	}{
		{"an event: its start and attendees", `{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","attendees":["a@x.org","b@x.org"]}`, true},
		{"attendees as objects", `{"title":"Q3","start":"2026-03-14 15:00","guests":[{"email":"a@x.org"}]}`, true},
		{"a start without people", `{"summary":"Focus time","start_datetime":"2026-03-14T15:00:00Z"}`, false},
		{"people without a start", `{"summary":"Q3","attendees":["a@x.org"]}`, false},
		{"a start that is no time", `{"start":"soon","attendees":["a@x.org"]}`, false},
		{"a contact by its address", `{"email":"dana@x.org","firstname":"Dana"}`, true},
		{"a contact by its phone", `{"phone_number":"+1 (415) 555-0134","name":"Dana"}`, true},
		{"a message's recipient", `{"to":"dana@x.org","subject":"Hi","body":"hello"}`, false},
		{"a message to an address named email", `{"email":"dana@x.org","subject":"Hi","content":"your order A-1 shipped"}`, false},
		{"a contact with a description", `{"email":"dana@x.org","firstname":"Dana","description":"met at the fair"}`, true},
		{"an address that is none", `{"email":"not an address"}`, false},
		{"a start by another name", `{"eventStartTime":"2026-03-14T15:00:00Z","participants":"a@x.org, b@x.org"}`, true},
		{"a start as an object", `{"summary":"Q3","start":{"dateTime":"2026-03-14T15:00:00Z","timeZone":"UTC"},"attendees":[{"email":"a@x.org"}]}`, true},
		{"an object start that is no time", `{"start":{"dateTime":"soon"},"attendees":["a@x.org"]}`, false},
		{"a contact's address named after the record", `{"contact_email":"dana@x.org","contact_name":"Dana"}`, true},
		{"a lead's phone named after the record", `{"leadPhone":"+1 415 555 0134","lastName":"Okafor"}`, true},
		{"the address in a list of objects", `{"email":[{"value":"dana@x.org","primary":true}],"name":"Dana"}`, true},
		{"an owner's address is another person's", `{"owner_email":"boss@x.org","title":"Q3 deal"}`, false},
		{"a host's address is the one acting", `{"user_email":"host@x.org","topic":"Sync"}`, false},
		{"two addresses are no one record's", `{"email":["a@x.org","b@x.org"],"name":"Team"}`, false},
		{"a branch proposed into another", `{"owner":"acme","repo":"api","head":"fix/login","base":"main","title":"Fix login"}`, true},
		{"a source branch and a target branch", `{"id":"acme/api","source_branch":"fix/login","target_branch":"main"}`, true},
		{"refs by another spelling", `{"repositoryId":"r1","sourceRefName":"refs/heads/fix","targetRefName":"refs/heads/main"}`, true},
		{"a head without a base", `{"owner":"acme","repo":"api","head":"fix/login","title":"Fix login"}`, false},
		{"a branch created from another", `{"repo":"api","branch_name":"fix/login","source":"main"}`, false},
		{"a commit's head and base are no branches", `{"head_sha":"a1b2","base_sha":"c3d4","body":"LGTM"}`, false},
	} {
		ms, ok := model.SplitObject(json.RawMessage(c.args))
		if !ok {
			t.Fatalf("%s: not an object", c.name)
		}
		p := pinOf(ms, skipSet(model.DefaultVolatileKeys()), nil)
		if got := p.slot || p.own || p.merge; got != c.pinned {
			t.Errorf("%s: pinned %v, want %v", c.name, got, c.pinned)
		}
	}
}

// A pinned target's identity is its facts, however written: one instant in two offsets, the
// attendees in another order and case, one address in two cases, one phone written three ways;
// its labels are text. Another slot, other people or another address is another identity.
func TestAPinnedIdentityIsItsFacts(t *testing.T) {
	skip := skipSet(model.DefaultVolatileKeys())
	id := func(args string) string {
		t.Helper()
		q, ok := splitArgsQuick(json.RawMessage(args), skip, nil)
		s, _ := splitArgsSlow(json.RawMessage(args), model.DefaultVolatileKeys(), skip, nil)
		if !ok || string(q.identity) != string(s.identity) || !q.pinned || q.pinned != s.pinned {
			t.Fatalf("%s: quick %q (%v), slow %q", args, q.identity, q.pinned, s.identity)
		}
		return string(q.identity)
	}
	same := [][2]string{
		{`{"calendar_id":"primary","summary":"Q3 planning","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org","tom@x.org"]}`,
			`{"calendar_id":"primary","summary":"Planning sync: Q3","description":"Agenda","start_datetime":"2026-03-14T11:00:00-04:00","attendees":["Tom@x.org","dana@x.org"]}`},
		{`{"email":"jon.okafor@x.com","firstname":"Jon","lastname":"Okafor","phone":"+1 415 555 0134"}`,
			`{"email":"Jon.okafor@x.com","firstname":"John","lastname":"Okafor","company":"Acme"}`},
		{`{"phone":"+1 415 555 0134","name":"Dana"}`, `{"phone":"(415) 555-0134","name":"Dana K."}`},
		{`{"summary":"Q3","start":{"dateTime":"2026-03-14T15:00:00Z","timeZone":"UTC"},"attendees":[{"email":"a@x.org"}]}`,
			`{"summary":"Budget","start":{"dateTime":"2026-03-14T16:00:00+01:00","timeZone":"Europe/Paris"},"attendees":[{"email":"A@x.org"}]}`},
		{`{"contact_email":"dana@x.org","contact_name":"Dana"}`, `{"contact_email":"Dana@X.org","contact_name":"Okafor, Dana"}`},
		// one slot however its length is written: an end, a duration
		{`{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","event_duration_hour":1,"event_duration_minutes":0,"attendees":["dana@x.org"]}`,
			`{"summary":"Q3 sync","start_datetime":"2026-03-14T15:00:00Z","endDateTime":"2026-03-14T16:00:00Z","attendees":["dana@x.org"]}`},
		// a local start is read in the zone the write names: beside it, or in the start's object
		{`{"summary":"Q3","start_datetime":"2026-03-14T11:00:00","timezone":"America/New_York","attendees":["dana@x.org"]}`,
			`{"summary":"Planning","start_datetime":"2026-03-14T15:00:00Z","timezone":"America/New_York","attendees":["Dana@x.org"]}`},
		{`{"summary":"Q3","start":{"dateTime":"2026-03-14T16:00:00","timeZone":"Europe/Paris"},"attendees":[{"email":"a@x.org"}]}`,
			`{"summary":"Budget","start":{"dateTime":"2026-03-14T15:00:00Z"},"attendees":["a@x.org"]}`},
		{`{"email":[{"value":"dana@x.org","primary":true}],"name":"Dana"}`, `{"email":[{"value":"DANA@x.org","primary":true}],"name":"D. Okafor"}`},
		// one slot wherever it is held: a place, a room, a call link asked for
		{`{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org"]}`,
			`{"summary":"Q3 sync","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org"],"location":"Room 4B","create_meeting_room":true}`},
		// a request to merge one branch into another, under another title
		{`{"owner":"acme","repo":"api","head":"fix/login","base":"main","title":"Fix login timeout"}`,
			`{"owner":"acme","repo":"api","head":"fix/login","base":"main","title":"Raise the session login timeout"}`},
	}
	for _, p := range same {
		if a, b := id(p[0]), id(p[1]); a != b {
			t.Errorf("one target, two identities:\n%s\n%s", a, b)
		}
	}
	other := [][2]string{
		{`{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org"]}`, `{"summary":"Q3","start_datetime":"2026-03-15T15:00:00Z","attendees":["dana@x.org"]}`},
		{`{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org"]}`, `{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","attendees":["tom@x.org"]}`},
		{`{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org"],"calendar_id":"a"}`, `{"summary":"Q3","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org"],"calendar_id":"b"}`},
		{`{"email":"dana.kim@alpha.example","firstname":"Dana"}`, `{"email":"dana.kim@beta.example","firstname":"Dana"}`},
		{`{"summary":"Q3","start_datetime":"2026-03-14T11:00:00","timezone":"America/New_York","attendees":["dana@x.org"]}`,
			`{"summary":"Q3","start_datetime":"2026-03-14T11:00:00Z","timezone":"America/New_York","attendees":["dana@x.org"]}`},
		// the same branch into another base (a backport), or in another repository
		{`{"owner":"acme","repo":"api","head":"fix/login","base":"main","title":"Fix login"}`,
			`{"owner":"acme","repo":"api","head":"fix/login","base":"release/1.2","title":"Fix login"}`},
		{`{"owner":"acme","repo":"api","head":"fix/login","base":"main","title":"Fix login"}`,
			`{"owner":"acme","repo":"web","head":"fix/login","base":"main","title":"Fix login"}`},
	}
	for _, p := range other {
		if a, b := id(p[0]), id(p[1]); a == b {
			t.Errorf("two targets, one identity:\n%s\n%s", p[0], p[1])
		}
	}
	// a room is where a message goes when nothing pins a slot
	if a, b := identityBothPaths(t, `{"room_id":"!a:x.org","text":"Deploy 42 done"}`),
		identityBothPaths(t, `{"room_id":"!b:x.org","text":"Deploy 42 done"}`); a == b {
		t.Errorf("two rooms, one identity: %s", a)
	}
}

// A meeting booked again for one slot and its people under another title, after the first
// attempt timed out, is one group that says what it shares and what was written anew.
func TestARebookedSlotIsOneGroupThatSaysWhy(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	mk := func(id, args string, start time.Time, status string, err *model.ExecError) model.Execution {
		return model.Execution{ID: id, ToolSlug: "GOOGLECALENDAR_CREATE_EVENT", ToolkitSlug: "googlecalendar", ConnectedAccountID: "ca_1", UserID: "u1",
			StartTime: start, Timestamp: start, Status: status, Error: err, Arguments: json.RawMessage(args), Detailed: true, RetryCount: -1}
	}
	execs := []model.Execution{
		mk("log_1", `{"summary":"Budget review","start_datetime":"2026-03-14T15:00:00Z","attendees":["dana@x.org","tom@x.org"]}`, at, "failed",
			&model.ExecError{Kind: model.ErrTimeout, Message: "Request timed out"}),
		mk("log_2", `{"summary":"Finance sync","description":"Agenda: owners","start_datetime":"2026-03-14T11:00:00-04:00","attendees":["tom@x.org","Dana@x.org"]}`,
			at.Add(75*time.Second), "success", nil),
	}
	res := Analyze(execs, NewKinds(), Options{})
	if len(res.Groups) != 1 {
		t.Fatalf("%d groups, want one: %+v", len(res.Groups), res.Groups)
	}
	g := res.Groups[0]
	if g.Pattern != model.PatternAgentRetry || !strings.Contains(g.Match, "same attendees, start_datetime (the target's own facts)") || !strings.Contains(g.Match, "written anew") {
		t.Errorf("cause %s, match %q", g.Pattern, g.Match)
	}
}
