package triage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// One event delivered to two webhook endpoints (or subscriptions) of a project is a duplicate
// subscription: every event comes twice, whatever its handlers do with it. It is told by the
// deliveries alone (the same event id, the same attempt number twice or two endpoints), so it is
// named even when the handlers wrote nothing, or wrote different things; the writes the handlers
// made twice are the duplicate_subscription groups that link to it.

// DuplicateSubscription is one event delivered once to each of two endpoints or more.
type DuplicateSubscription struct {
	EventID    string    `json:"event_id"`
	Trigger    string    `json:"trigger,omitempty"`
	User       string    `json:"user_id"`
	Endpoints  []string  `json:"endpoints"`  // the endpoints named by the deliveries (may be fewer than them)
	Deliveries []string  `json:"deliveries"` // the deliveries' log ids, oldest first
	At         time.Time `json:"at"`         // the first delivery
	Reason     string    `json:"reason"`
}

// Subscriptions are the events the index holds delivered to more than one endpoint (or
// subscription) at once, oldest first: the deliveries of one event that repeat an attempt
// number, or that went to two endpoints. A redelivery (attempt 2 after attempt 1, to the one
// endpoint) is not one.
func (d *Deliveries) Subscriptions() []DuplicateSubscription {
	if d == nil {
		return nil
	}
	d.mu.RLock()
	type key struct{ user, event string }
	by := map[key][]delivery{}
	for user, list := range d.byUser {
		for _, dl := range list {
			k := key{user, dl.event}
			by[k] = append(by[k], dl)
		}
	}
	d.mu.RUnlock()
	var out []DuplicateSubscription
	for k, dls := range by {
		if len(dls) < 2 || !atOnce(dls) {
			continue
		}
		out = append(out, subscriptionOf(k.user, k.event, dls))
	}
	slices.SortFunc(out, func(a, b DuplicateSubscription) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.EventID, b.EventID))
	})
	return out
}

// SubscriptionOf is the duplicate subscription a delivery (its log id) is one of, if any.
func (d *Deliveries) SubscriptionOf(id string) (DuplicateSubscription, bool) {
	if d == nil {
		return DuplicateSubscription{}, false
	}
	d.mu.RLock()
	user, event := d.ids[id], ""
	if i := slices.IndexFunc(d.byUser[user], func(x delivery) bool { return x.id == id }); i >= 0 {
		event = d.byUser[user][i].event
	}
	var dls []delivery
	for _, dl := range d.byUser[user] {
		if event != "" && dl.event == event {
			dls = append(dls, dl)
		}
	}
	d.mu.RUnlock()
	if len(dls) < 2 || !atOnce(dls) {
		return DuplicateSubscription{}, false
	}
	return subscriptionOf(user, event, dls), true
}

// subscriptionOf describes one event's deliveries (oldest first).
func subscriptionOf(user, event string, dls []delivery) DuplicateSubscription {
	slices.SortFunc(dls, func(a, b delivery) int { return cmp.Or(a.at.Compare(b.at), strings.Compare(a.id, b.id)) })
	s := DuplicateSubscription{EventID: event, User: user, At: dls[0].at, Trigger: dls[0].trigger, Endpoints: []string{}}
	var parts []string
	for _, dl := range dls {
		s.Deliveries = append(s.Deliveries, dl.id)
		if dl.endpoint != "" && !slices.Contains(s.Endpoints, dl.endpoint) {
			s.Endpoints = append(s.Endpoints, dl.endpoint)
		}
		a := "attempt ?"
		if dl.attempt > 0 {
			a = fmt.Sprintf("attempt %d", dl.attempt)
		}
		if dl.endpoint != "" {
			a += " to " + dl.endpoint
		}
		parts = append(parts, dl.id+" ("+a+")")
	}
	to := "two webhook endpoints or subscriptions"
	if n := len(s.Endpoints); n > 1 {
		to = fmt.Sprintf("%d webhook endpoints", n)
	}
	s.Reason = fmt.Sprintf(
		"event %s was delivered once to each of %s of the project (%s), not redelivered: every event reaches the app twice, "+
			"whatever its handlers do; a second endpoint is what a webhook endpoint (or subscription) create sent twice leaves: delete one",
		event,
		to,
		strings.Join(parts, ", "),
	)
	return s
}

// Line says it in one line, for a delivery's detail (show, the TUI's detail pane).
func (s DuplicateSubscription) Line() string {
	to := "two endpoints or subscriptions"
	if len(s.Endpoints) > 1 {
		to = fmt.Sprintf("%d endpoints (%s)", len(s.Endpoints), strings.Join(s.Endpoints, ", "))
	}
	return fmt.Sprintf(
		"duplicate subscription: event %s went once to each of %s, deliveries %s: every event reaches the app twice; delete one endpoint",
		s.EventID,
		to,
		strings.Join(s.Deliveries, ", "),
	)
}
