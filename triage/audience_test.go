package triage

import (
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// A write sent again after an attempt that did not succeed, to an audience that contains the
// first's or is contained in it, is one intent; audiences that only overlap or are apart, a
// re-send after a success, one past the window, and another slot or other words stay apart.
func TestWidenedAudiencesJoin(t *testing.T) {
	mail := func(to, cc, body string) string {
		return `{"recipient_email":"` + to + `","cc":` + cc + `,"subject":"Order A-1","body":"` + body + `"}`
	}
	event := func(start, people string) string {
		return `{"summary":"Review","start_datetime":"` + start + `","event_duration_hour":1,"attendees":` + people + `}`
	}
	const body = "Your order A-1 ships tomorrow."
	tests := []struct {
		name        string
		slug, a, b  string
		firstFailed bool
		gap         time.Duration
		group       bool
	}{
		{"one more copied in", "GMAIL_SEND_EMAIL", mail("ana@x.com", `["bob@x.com"]`, body),
			mail("ana@x.com", `["bob@x.com","lead@x.com"]`, "Order A-1 ships tomorrow, as promised."), true, 20 * time.Second, true},
		{"one fewer", "GMAIL_SEND_EMAIL", mail("ana@x.com", `["bob@x.com","lead@x.com"]`, body), mail("ana@x.com", `["bob@x.com"]`, body),
			true, 20 * time.Second, true},
		{"an attendee more at the slot", "GOOGLECALENDAR_CREATE_EVENT", event("2026-12-09T10:00:00Z", `["ana@x.com","bob@x.com"]`),
			event("2026-12-09T10:00:00Z", `["ana@x.com","bob@x.com","cy@x.com"]`), true, 20 * time.Second, true},
		{"near miss: a recipient swapped", "GMAIL_SEND_EMAIL", mail("ana@x.com", `["bob@x.com"]`, body), mail("ana@x.com", `["carl@x.com"]`, body),
			true, 20 * time.Second, false},
		{"near miss: other people", "GMAIL_SEND_EMAIL", mail("ana@x.com", `["bob@x.com"]`, body), mail("dee@x.com", `["eve@x.com"]`, body),
			true, 20 * time.Second, false},
		{"near miss: after a success", "GMAIL_SEND_EMAIL", mail("ana@x.com", `["bob@x.com"]`, body), mail("ana@x.com", `["bob@x.com","lead@x.com"]`, body),
			false, 20 * time.Second, false},
		{"near miss: past the window", "GMAIL_SEND_EMAIL", mail("ana@x.com", `["bob@x.com"]`, body), mail("ana@x.com", `["bob@x.com","lead@x.com"]`, body),
			true, 3 * time.Hour, false},
		{"near miss: another order", "GMAIL_SEND_EMAIL", mail("ana@x.com", `["bob@x.com"]`, body),
			mail("ana@x.com", `["bob@x.com","lead@x.com"]`, "Your order A-2 ships tomorrow."), true, 20 * time.Second, false},
		{"near miss: an attendee more at another slot", "GOOGLECALENDAR_CREATE_EVENT", event("2026-12-09T10:00:00Z", `["ana@x.com","bob@x.com"]`),
			event("2026-12-10T10:00:00Z", `["ana@x.com","bob@x.com","cy@x.com"]`), true, 20 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := attempt{id: "a", at: 0, dur: sec(1), retry: -1, args: tt.a}
			if tt.firstFailed {
				first.err = gatewayErr
			}
			a, b := first.exec(), attempt{id: "b", at: tt.gap, dur: sec(1), retry: -1, args: tt.b}.exec()
			a.ToolSlug, b.ToolSlug = tt.slug, tt.slug
			res := Analyze([]model.Execution{b, a}, NewKinds(), Options{})
			if got := len(res.Groups) == 1; got != tt.group {
				t.Fatalf("grouped = %v, want %v (%+v)", got, tt.group, res.Groups)
			}
		})
	}
}

// A write whose first attempts are a group already (sent twice to the same people) joins the
// later one to one more with that group: the pass asks whether the later write is in a group of
// its own, not whether it is in the first group found.
func TestAWidenedAudienceJoinsAGroup(t *testing.T) {
	mail := func(cc string) string {
		return `{"recipient_email":"ana@x.com","cc":` + cc + `,"subject":"Order A-1","body":"Your order A-1 ships tomorrow."}`
	}
	execs := []model.Execution{
		attempt{id: "c", at: 40 * time.Second, dur: sec(1), retry: -1, args: mail(`["bob@x.com","lead@x.com"]`)}.exec(),
		attempt{id: "b", at: 20 * time.Second, dur: sec(1), err: gatewayErr, retry: -1, args: mail(`["bob@x.com"]`)}.exec(),
		attempt{id: "a", at: 0, dur: sec(1), err: gatewayErr, retry: -1, args: mail(`["bob@x.com"]`)}.exec(),
	}
	for i := range execs {
		execs[i].ToolSlug = "GMAIL_SEND_EMAIL"
	}
	res := Analyze(execs, NewKinds(), Options{})
	if len(res.Groups) != 1 || len(res.Groups[0].ExecutionIDs) != 3 {
		t.Fatalf("groups %+v, want one of a, b and c", res.Groups)
	}
}
