package triage

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestSubscriptionsAreToldByTheirDeliveries: one event delivered to two endpoints is
// named from the deliveries alone, whether or not the handlers wrote anything; a redelivery to
// one endpoint, or two events, is not one.
func TestSubscriptionsAreToldByTheirDeliveries(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	dl := func(id, user, event, endpoint string, attempt int, at time.Duration) model.Execution {
		return model.Execution{ID: id, Type: model.TypeTriggerMessage, UserID: user, Timestamp: t0.Add(at),
			Delivery: &model.Delivery{EventID: event, Attempt: attempt, EndpointID: endpoint, TriggerID: "ti_1"}}
	}
	for _, tc := range []struct {
		name  string
		recs  []model.Execution
		want  [][]string // each subscription's deliveries
		names []string   // the endpoints of the first
	}{
		{"two endpoints, each attempt 1", []model.Execution{dl("d1", "u", "evt_1", "we_a", 1, 0), dl("d2", "u", "evt_1", "we_b", 1, 80*time.Millisecond)},
			[][]string{{"d1", "d2"}}, []string{"we_a", "we_b"}},
		{"attempt 1 twice, no endpoint recorded", []model.Execution{dl("d1", "u", "evt_1", "", 1, 0), dl("d2", "u", "evt_1", "", 1, time.Second)},
			[][]string{{"d1", "d2"}}, []string{}},
		{"a redelivery to one endpoint", []model.Execution{dl("d1", "u", "evt_1", "we_a", 1, 0), dl("d2", "u", "evt_1", "we_a", 2, 30*time.Second)}, nil, nil},
		{"two events", []model.Execution{dl("d1", "u", "evt_1", "we_a", 1, 0), dl("d2", "u", "evt_2", "we_b", 1, time.Second)}, nil, nil},
		{"a redelivery and a second endpoint", []model.Execution{dl("d3", "u", "evt_1", "we_a", 2, 30*time.Second), dl("d1", "u", "evt_1", "we_a", 1, 0), dl("d2", "u", "evt_1", "we_b", 1, 0)},
			[][]string{{"d1", "d2", "d3"}}, []string{"we_a", "we_b"}},
		{"a read of no event", []model.Execution{{ID: "x", UserID: "u", ToolSlug: "GMAIL_SEND_EMAIL", Timestamp: t0}}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDeliveries()
			for i := range tc.recs {
				d.Add(&tc.recs[i])
			}
			subs := d.Subscriptions()
			if len(subs) != len(tc.want) {
				t.Fatalf("%d subscriptions, want %d: %+v", len(subs), len(tc.want), subs)
			}
			for i, s := range subs {
				if !slices.Equal(s.Deliveries, tc.want[i]) || !strings.Contains(s.Reason, "not redelivered") {
					t.Errorf("subscription %d: %+v, want deliveries %v", i, s, tc.want[i])
				}
				for _, id := range s.Deliveries {
					if of, ok := d.SubscriptionOf(id); !ok || of.EventID != s.EventID {
						t.Errorf("SubscriptionOf(%s) = %+v %v", id, of, ok)
					}
				}
			}
			if len(subs) > 0 && !slices.Equal(subs[0].Endpoints, tc.names) {
				t.Errorf("endpoints %v, want %v", subs[0].Endpoints, tc.names)
			}
			if len(subs) == 0 {
				for _, r := range tc.recs {
					if _, ok := d.SubscriptionOf(r.ID); ok {
						t.Errorf("%s is said to be in a duplicate subscription", r.ID)
					}
				}
			}
		})
	}
}
