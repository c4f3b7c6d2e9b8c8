package triage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

func TestIdentityFact(t *testing.T) {
	tests := []struct {
		in, fact string
		number   bool
	}{
		{"1250.00", "1250.00", true},
		{"42", "42", true},
		{"-3.5", "-3.5", true},
		{"0.5", "0.5", true},
		{"007", "007", false},                               // a code
		{"+1", "+1", false},                                 // a sign
		{"1e2", "1e2", false},                               // an exponent
		{"1.", "1.", false},                                 // no digits after the point
		{"1712345678.1234567", "1712345678.1234567", false}, // past what a float keeps
		{"12345678901234567890", "12345678901234567890", true},
		{"2026-03-14T00:00:00Z", "2026-03-14", false},
		{"2026-03-14 00:00:00.000+00:00", "2026-03-14", false},
		{"2026-03-14T00:00:00", "2026-03-14", false},
		{"2026-03-14T00:00:00-05:00", "2026-03-14T05:00:00Z", false}, // another instant, in UTC
		{"2026-03-14T09:00:00Z", "2026-03-14T09:00:00Z", false},
		{"2026-03-14T10:00:00+01:00", "2026-03-14T09:00:00Z", false},
		{"2026-03-14 04:00:00.250-0500", "2026-03-14T09:00:00.25Z", false},
		{"2026-03-14T09:00", "2026-03-14t09:00", false}, // no offset: a local time, as written
		{"Mar 14, 2026", "2026-03-14", false},
		{"Saturday, 14 March 2026", "2026-03-14", false},
		{"14th of March, 2026", "2026-03-14", false},
		{"14.03.2026", "2026-03-14", false},       // points: the day first
		{"2026/03/14", "2026-03-14", false},       // the year first
		{"03/14/2026", "2026-03-14", false},       // 14 cannot be a month
		{"03/04/2026", "03/04/2026", false},       // March 4 or April 3: as written
		{"31 April 2026", "31 april 2026", false}, // no such day
		{"March 2026", "march 2026", false},       // a month, no day
		{"1,250.00", "1250.00", true},
		{"12,500", "12500", true},
		{"-1,250", "-1250", true},
		{"1.250,00", "1250.00", true},
		{"1.250.000", "1250000", true},
		{"1.250", "1.250", true},    // plain notation's 1.25
		{"1,25", "1,25", false},     // no group of three: as written
		{"01,250", "01,250", false}, // a leading zero: no number
		{"12,50,000", "12,50,000", false},
		{"True", "true", true},
		{"FALSE", "false", true},
		{"truly", "truly", false},
		{"+1 415 555 0142", "tel:4155550142", false},
		{"(415) 555-0142", "tel:4155550142", false},
		{"415.555.0142", "tel:4155550142", false},
		{"4155550142", "4155550142", true},  // no phone's punctuation: a number
		{"2026-03-14", "2026-03-14", false}, // eight digits: no phone
		{"#General", "general", false},
	}
	for _, tt := range tests {
		fact, number := identityFact(tt.in)
		if fact != tt.fact || number != tt.number {
			t.Errorf("identityFact(%q) = %q, %v; want %q, %v", tt.in, fact, number, tt.fact, tt.number)
		}
	}
}

// TestIdentityFactOnBothPaths: the quick split and the reference split read a string's fact
// alike, so a value written as a number, a string, a midnight or a punctuated phone lands in one
// bucket on every front.
// TestNamesOfOneWordsSentTogether: a call that sends one argument under two spellings of its
// name keeps both (neither is read as the other), and both paths agree.
func TestNamesOfOneWordsSentTogether(t *testing.T) {
	const args = `{"user_id":"u1","userId":"u2","text_id":"t"}`
	a, ok := splitArgsQuick(json.RawMessage(args), nil, nil)
	s, _ := splitArgsSlow(json.RawMessage(args), nil, nil, nil)
	if !ok || string(a.identity) != string(s.identity) {
		t.Fatalf("quick %s (%v), slow %s", a.identity, ok, s.identity)
	}
	if !strings.Contains(string(a.identity), `"userId":"u2"`) || !strings.Contains(string(a.identity), `"user_id":"u1"`) {
		t.Errorf("identity %s: both spellings kept, as sent", a.identity)
	}
}

func TestIdentityFactOnBothPaths(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"amount":1250,"close":"2026-03-14","to":"+1 415 555 0142"}`, `{"amount":"1250.00","close":"2026-03-14T00:00:00Z","to":"(415) 555-0142"}`},
		{`{"issue_number":42}`, `{"issue_number":"42"}`},
		{`{"due_date":1796742000000,"private":true,"amount":1250}`, `{"due_date":"2026-12-08T10:00:00-05:00","private":"True","amount":"1,250.00"}`},
		{`{"post_at":1796742000,"due_on":"2026-12-18"}`, `{"post_at":"1796742000000","due_on":"Dec 18, 2026"}`},
		{`{"properties":{"closedate":1796688000000,"flag":false}}`, `{"properties":{"closedate":"December 8th, 2026","flag":"false"}}`},
		{`{"to":"4155550142","contact":{"mobile":14155550142}}`, `{"to":"+1 415 555 0142","contact":{"mobile":"(415) 555-0142"}}`},
		{`{"to_number":447700900123}`, `{"to_number":"07700900123"}`},
		{`{"due_date":1796742000000}`, `{"due_date":"2026-12-08T10:00:00-05:00"}`},
		{`{"sms_send_at":1796742000}`, `{"sms_send_at":"1796742000"}`}, // a name that holds a time and a phone: a time, either way
		{`{"spreadsheet_id":"1abc","sheet-name":"Sheet1"}`, `{"spreadsheetId":"1abc","SheetName":"Sheet1"}`},
	} {
		a, okA := splitArgsQuick(json.RawMessage(pair[0]), nil, nil)
		b, okB := splitArgsQuick(json.RawMessage(pair[1]), nil, nil)
		if !okA || !okB {
			t.Errorf("the quick path gave up on %s or %s", pair[0], pair[1])
		}
		sa, _ := splitArgsSlow(json.RawMessage(pair[0]), nil, nil, nil)
		sb, _ := splitArgsSlow(json.RawMessage(pair[1]), nil, nil, nil)
		if string(a.identity) != string(b.identity) || string(sa.identity) != string(a.identity) || string(sb.identity) != string(b.identity) {
			t.Errorf("identities differ: quick %s / %s, slow %s / %s", a.identity, b.identity, sa.identity, sb.identity)
		}
	}
}

// TestAnotherFormIsTheAgents: a deal created again 20 s after a failure, with the same facts:
// its amount and close day written in another type is the model writing the call anew
// (agent_retry, the argument named); the same bytes are a program's re-send (app_retry).
func TestAnotherFormIsTheAgents(t *testing.T) {
	const first = `{"dealname":"Renewal 2027","amount":1250,"closedate":"2026-03-14","pipeline":"default"}`
	for _, tt := range []struct {
		name, second string
		want         model.RetryPattern
		reason       string
	}{
		{"amount and day retyped", `{"dealname":"Renewal 2027","amount":"1250.00","closedate":"2026-03-14T00:00:00Z","pipeline":"default"}`,
			model.PatternAgentRetry, `written in another form (amount 1250, then "1250.00")`},
		{"the same bytes", first, model.PatternAppRetry, ""},
		{"keys in another order", `{"pipeline":"default","closedate":"2026-03-14","amount":1250,"dealname":"Renewal 2027"}`,
			model.PatternAppRetry, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resentAs(t, "HUBSPOT_CREATE_DEAL", "hubspot", first, tt.second, tt.want, tt.reason)
		})
	}
}

// TestAnyArgumentWrittenAnewIsTheAgents: texts that read alike and one identity, and yet another
// argument written otherwise (a body in other spacing, a label list in another order and case,
// a link with other tracking tags) are a model's writing, since a program writes every argument
// the same way each time; what a program regenerates (a footer's timestamp and reference, an
// empty argument sent as null) is not.
func TestAnyArgumentWrittenAnewIsTheAgents(t *testing.T) {
	const first = `{"owner":"acme","repo":"web","title":"Export fails for account 84989","labels":["bug","P1"],` +
		`"body":"Since Dec 3, see https://acme.com/status/84989\n-- sent 09:00:01 ref 6f1c2a9e-4b7d-4e21-9c3f-0a1b2c3d4e5f"}`
	for _, tt := range []struct {
		name, second string
		want         model.RetryPattern
		reason       string
	}{
		{"labels in another order and case", `{"owner":"acme","repo":"web","title":"Export fails for account 84989","labels":["p1","Bug"],` +
			`"body":"Since Dec 3, see https://acme.com/status/84989\n-- sent 09:00:01 ref 6f1c2a9e-4b7d-4e21-9c3f-0a1b2c3d4e5f"}`,
			model.PatternAgentRetry, `labels ["bug","P1"], then ["p1","Bug"]`},
		{"the body in other spacing", `{"owner":"acme","repo":"web","title":"Export fails for account 84989","labels":["bug","P1"],` +
			`"body":"Since Dec 3,  see https://acme.com/status/84989 \n-- sent 09:00:01 ref 6f1c2a9e-4b7d-4e21-9c3f-0a1b2c3d4e5f"}`,
			model.PatternAgentRetry, "written in another form (body"},
		{"a link with a campaign's tags", `{"owner":"acme","repo":"web","title":"Export fails for account 84989","labels":["bug","P1"],` +
			`"body":"Since Dec 3, see https://acme.com/status/84989?utm_source=agent\n-- sent 09:00:01 ref 6f1c2a9e-4b7d-4e21-9c3f-0a1b2c3d4e5f"}`,
			model.PatternAgentRetry, "written in another form (body"},
		{"a footer regenerated, an empty argument sent as null", `{"owner":"acme","repo":"web","title":"Export fails for account 84989",` +
			`"labels":["bug","P1"],"assignees":null,` +
			`"body":"Since Dec 3, see https://acme.com/status/84989\n-- sent 09:00:21 ref 0d9e8f7a-1b2c-4d3e-8f4a-5b6c7d8e9f0a"}`,
			model.PatternAppRetry, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resentAs(t, "GITHUB_CREATE_AN_ISSUE", "github", first, tt.second, tt.want, tt.reason)
		})
	}
}

// TestAnArgumentUnderAnotherNameIsTheAgents: the same text sent under another argument's name (a
// body as html_body) is a model's writing: a program sends the same arguments each time. An empty
// argument added is no other argument.
func TestAnArgumentUnderAnotherNameIsTheAgents(t *testing.T) {
	const first = `{"to":"dana@acme.com","subject":"Invoice 5531","body":"Invoice 5531 for $1,250.00 is attached."}`
	for _, tt := range []struct {
		name, second string
		want         model.RetryPattern
		reason       string
	}{
		{"the body as html_body", `{"to":"dana@acme.com","subject":"Invoice 5531","html_body":"<p>Invoice 5531 for <b>$1,250.00</b> is attached.</p>"}`,
			model.PatternAgentRetry, "(arguments body, subject, to, then html_body, subject, to)"},
		{"an empty cc added", `{"to":"dana@acme.com","subject":"Invoice 5531","cc":[],"body":"Invoice 5531 for $1,250.00 is attached."}`,
			model.PatternAppRetry, ""},
	} {
		t.Run(tt.name, func(t *testing.T) { resentAs(t, "OUTLOOK_SEND_EMAIL", "outlook", first, tt.second, tt.want, tt.reason) })
	}
}

// resentAs groups a first attempt of a tool that failed at a gateway and a second one 20 s later,
// and checks the one group both paths find and its cause (oneGroupOnBothPaths).
func resentAs(t *testing.T, slug, toolkit, first, second string, want model.RetryPattern, reason string) {
	t.Helper()
	a := attempt{id: "a", at: sec(0), dur: sec(1), retry: -1, args: first, account: "ca_1", err: gatewayErr}
	b := attempt{id: "b", at: sec(20), dur: sec(1), retry: -1, args: second, account: "ca_1"}
	execs := []model.Execution{b.exec(), a.exec()}
	for i := range execs {
		execs[i].ToolSlug, execs[i].ToolkitSlug = slug, toolkit
	}
	oneGroupOnBothPaths(t, execs, want, reason)
}

// TestNumberReadersAgree: a text's signature (similar.go) and its entities (entities.go) read a
// number written in either convention as one number, and two numbers as two: the heading of a
// write and its body are compared by the same facts.
func TestNumberReadersAgree(t *testing.T) {
	same := [][]string{
		{"1250", "1,250.00", "1.250,00", "1250.00"},
		{"1976833", "1,976,833.00", "1.976.833,00"},
		{"282455.5", "282,455.50", "282.455,50"},
	}
	key := func(s string) (sig, ent string) {
		return strings.Join(signature("order "+s).nums, " "), strings.Join(entities("order "+s), " ")
	}
	for _, writings := range same {
		sig0, ent0 := key(writings[0])
		for _, w := range writings[1:] {
			if sig, ent := key(w); sig != sig0 || ent != ent0 {
				t.Errorf("%q and %q: signature %q / %q, entities %q / %q; want one number", writings[0], w, sig0, sig, ent0, ent)
			}
		}
	}
	for _, pair := range [][2]string{{"1,250.00", "1.250,50"}, {"1976833", "1.976.834,00"}} {
		sa, ea := key(pair[0])
		sb, eb := key(pair[1])
		if sa == sb || ea == eb {
			t.Errorf("%q and %q read as one number: signature %q / %q, entities %q / %q", pair[0], pair[1], sa, sb, ea, eb)
		}
	}
}

// TestNameByWords: a name already written as its words is itself; any other is its words.
func TestNameByWords(t *testing.T) {
	for in, want := range map[string]string{"spreadsheet_id": "spreadsheet_id", "spreadsheetId": "spreadsheet_id",
		"SheetName": "sheet_name", "sheet-name": "sheet_name", "a__b": "a_b", "_id": "id", "to": "to", "HTTPStatus": "httpstatus",
		"user.id": "user_id", "v2": "v2"} {
		if got := nameByWords(in); got != want {
			t.Errorf("nameByWords(%q) = %q, want %q", in, got, want)
		}
	}
}
