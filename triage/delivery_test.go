package triage

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestTriggerRedelivery: writes each made by the handler of its own delivery of one
// trigger event are one group whose cause is trigger_redelivery, linked to the deliveries;
// the near misses are not: two events of one trigger, one delivery whose handler wrote twice,
// another user's delivery, a delivery after the write. A write is tied to a delivery by the
// event id in its trace id even after the time window. Analyze and Incremental agree, and the
// deliveries are never grouped themselves.
func TestTriggerRedelivery(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	deliver := func(id, event string, attempt int, at time.Duration, user string) model.Execution {
		e := model.Execution{ID: id, Type: model.TypeTriggerMessage, ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE", ToolkitSlug: "gmail",
			UserID: user, ConnectedAccountID: "ca_gmail", Status: model.StatusSuccess, RetryCount: -1, Detailed: true,
			Delivery: &model.Delivery{EventID: event, Attempt: attempt, TriggerID: "ti_1"}}
		e.StartTime, e.Timestamp = t0.Add(at), t0.Add(at)
		if attempt == 1 {
			e.Delivery.Error = "handler timed out after 15 s"
		}
		return e
	}
	write := func(id string, at time.Duration, user, trace string) model.Execution {
		e := model.Execution{ID: id, ToolSlug: "SLACK_SEND_MESSAGE", ToolkitSlug: "slack", UserID: user, ConnectedAccountID: "ca_slack_" + user,
			Status: model.StatusSuccess, RetryCount: -1, Detailed: true, TraceID: trace,
			Arguments: json.RawMessage(`{"channel":"#sales","text":"New lead: Ada (ada@example.com)"}`)}
		e.StartTime, e.Timestamp = t0.Add(at), t0.Add(at)
		e.EndTime, e.Duration, e.HasDuration = e.StartTime.Add(sec(0.6)), sec(0.6), true
		return e
	}
	to := func(e model.Execution, endpoint string) model.Execution {
		e.Delivery.EndpointID = endpoint
		return e
	}
	tests := []struct {
		name       string
		execs      []model.Execution
		pattern    model.RetryPattern // "" when the deliveries explain nothing
		deliveries []string
	}{
		{"a redelivery whose handler wrote each time", []model.Execution{
			deliver("d1", "msg_1", 1, 0, "u1"), write("w1", sec(0.8), "u1", ""),
			deliver("d2", "msg_1", 2, sec(30), "u1"), write("w2", sec(30.9), "u1", ""),
		}, model.PatternTriggerRedelivery, []string{"d1", "d2"}},
		{"three attempts", []model.Execution{
			deliver("d1", "msg_1", 1, 0, "u1"), write("w1", sec(0.8), "u1", ""),
			deliver("d2", "msg_1", 2, sec(30), "u1"), write("w2", sec(30.9), "u1", ""),
			deliver("d3", "msg_1", 3, sec(90), "u1"), write("w3", sec(90.7), "u1", ""),
		}, model.PatternTriggerRedelivery, []string{"d1", "d2", "d3"}},
		{"tied by the event id in the trace, past the window", []model.Execution{
			deliver("d1", "msg_7", 1, 0, "u1"), write("w1", sec(70), "u1", "evt-msg_7"),
			deliver("d2", "msg_7", 2, sec(120), "u1"), write("w2", sec(200), "u1", "evt-msg_7"),
		}, model.PatternTriggerRedelivery, []string{"d1", "d2"}},
		{"one event to two endpoints, each attempt 1", []model.Execution{
			to(deliver("d1", "msg_3", 1, 0, "u1"), "we_a"), write("w1", sec(0.8), "u1", ""),
			to(deliver("d2", "msg_3", 1, sec(1.5), "u1"), "we_b"), write("w2", sec(2.2), "u1", ""),
		}, model.PatternDuplicateSubscription, []string{"d1", "d2"}},
		{"one event to two subscriptions the records do not name, both delivered before either write", []model.Execution{
			deliver("d1", "msg_4", 1, 0, "u1"), deliver("d2", "msg_4", 1, sec(0.05), "u1"),
			write("w1", sec(0.8), "u1", ""), write("w2", sec(0.9), "u1", ""),
		}, model.PatternDuplicateSubscription, []string{"d1", "d2"}},
		{"near miss: two events of one trigger", []model.Execution{
			deliver("d1", "msg_1", 1, 0, "u1"), write("w1", sec(0.8), "u1", ""),
			deliver("d2", "msg_2", 1, sec(30), "u1"), write("w2", sec(30.9), "u1", ""),
		}, "", nil},
		{"near miss: one delivery, the handler wrote twice", []model.Execution{
			deliver("d1", "msg_1", 1, 0, "u1"), write("w1", sec(0.8), "u1", ""), write("w2", sec(2.5), "u1", ""),
		}, "", nil},
		{"near miss: the deliveries went to another user", []model.Execution{
			deliver("d1", "msg_1", 1, 0, "u2"), write("w1", sec(0.8), "u1", ""),
			deliver("d2", "msg_1", 2, sec(30), "u2"), write("w2", sec(30.9), "u1", ""),
		}, "", nil},
		{"near miss: the second delivery came after the second write", []model.Execution{
			deliver("d1", "msg_1", 1, 0, "u1"), write("w1", sec(0.8), "u1", ""),
			write("w2", sec(10), "u1", ""), deliver("d2", "msg_1", 2, sec(30), "u1"),
		}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Analyze(tt.execs, nil, Options{})
			var writes []model.DuplicateGroup
			for _, g := range res.Groups {
				for _, id := range g.ExecutionIDs {
					if strings.HasPrefix(id, "d") {
						t.Fatalf("a delivery was grouped: %+v", g)
					}
				}
				writes = append(writes, g)
			}
			if len(writes) != 1 {
				t.Fatalf("%d groups, want the writes' one: %+v", len(writes), writes)
			}
			g := writes[0]
			if tt.pattern != "" && g.Pattern != tt.pattern || tt.pattern == "" && (g.Pattern == model.PatternTriggerRedelivery || g.Pattern == model.PatternDuplicateSubscription) {
				t.Fatalf("pattern %s (%s), want %q", g.Pattern, g.Reason, tt.pattern)
			}
			if !slices.Equal(g.Deliveries, tt.deliveries) {
				t.Errorf("deliveries %v, want %v", g.Deliveries, tt.deliveries)
			}
			if tt.pattern == model.PatternDuplicateSubscription && (!strings.Contains(g.Reason, "delivered once to each of") || !strings.Contains(g.Reason, "webhook_endpoints")) {
				t.Errorf("the reason does not name the second endpoint and its fix: %s", g.Reason)
			}
			if tt.pattern == model.PatternDuplicateSubscription && strings.Contains(g.Reason, "we_a") != strings.Contains(tt.name, "two endpoints") {
				t.Errorf("the reason names the endpoints the records name, no others: %s", g.Reason)
			}
			if tt.pattern == model.PatternTriggerRedelivery && (!strings.Contains(g.Reason, "msg_") || !strings.Contains(g.Reason, "attempt 2") || !strings.Contains(g.Reason, "webhook-id")) {
				t.Errorf("the reason does not name the event, the attempts and the fix: %s", g.Reason)
			}
			// the streaming path (the TUI's) names it the same
			inc := NewIncremental(nil, Options{})
			for i := range tt.execs {
				inc.Add(&tt.execs[i])
			}
			groups, _, err := inc.Groups(context.Background(), func(_ context.Context, pos int) (model.Execution, error) { return tt.execs[pos], nil })
			if err != nil || len(groups) != 1 || groups[0].Pattern != g.Pattern || !slices.Equal(groups[0].Deliveries, g.Deliveries) || groups[0].Reason != g.Reason {
				t.Errorf("Incremental: %+v %v, Analyze: %+v", groups, err, g)
			}
		})
	}
}

// A delivery read twice (its list entry, then the trigger log) is one delivery: the later copy
// replaces the earlier, wherever its user put it.
func TestADeliveryAddedAgainReplacesIt(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	d := NewDeliveries()
	e := model.Execution{ID: "d1", Type: model.TypeTriggerMessage, UserID: "u1", StartTime: at, Delivery: &model.Delivery{EventID: "msg_1"}}
	d.Add(&e)
	e.UserID, e.Delivery = "u2", &model.Delivery{EventID: "msg_2"}
	d.Add(&e)
	if d.Len() != 1 || len(d.byUser["u1"]) != 0 || len(d.byUser["u2"]) != 1 || d.byUser["u2"][0].event != "msg_2" {
		t.Fatalf("%d deliveries, by user %v", d.Len(), d.byUser)
	}
}
