package triage

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Trigger deliveries and the writes they start. Composio delivers a trigger's event at least
// once: when the app's handler fails or answers too late, the same event comes again (the same
// payload id, which the webhook-id header repeats, and the next attempt). A handler that wrote
// before failing writes again: a duplicate whose cause is neither an SDK nor the agent but the
// redelivery, and whose fix is in the handler (dedupe on the event id).

// DeliveryWindow is how long after a delivery a write of the same user is taken for its
// handler's work, when nothing in the records ties them more closely.
const DeliveryWindow = 60 * time.Second

// Deliveries indexes the trigger deliveries of a window by user, so that a write can be tied to
// the delivery that started it. Every front feeds it the records it reads (Add ignores all but
// trigger deliveries) and the duplicate groups read it; it is safe for concurrent use.
type Deliveries struct {
	mu     sync.RWMutex
	byUser map[string][]delivery // by start
	ids    map[string]string     // the deliveries held: their users, by id
}

// delivery is one trigger delivery, as the index keeps it.
type delivery struct {
	id, event, trigger, account string
	endpoint                    string
	attempt                     int
	at                          time.Time
}

// NewDeliveries returns an empty index.
func NewDeliveries() *Deliveries {
	return &Deliveries{byUser: map[string][]delivery{}, ids: map[string]string{}}
}

// Add keeps e if it is a trigger delivery that names its event; another record is ignored. A
// delivery added again (the same id) replaces the first.
func (d *Deliveries) Add(e *model.Execution) {
	if d == nil || e.Type != model.TypeTriggerMessage || e.Delivery == nil || e.Delivery.EventID == "" {
		return
	}
	dl := delivery{id: e.ID, event: e.Delivery.EventID, trigger: e.Delivery.TriggerID, account: e.ConnectedAccountID,
		endpoint: e.Delivery.EndpointID, attempt: e.Delivery.Attempt, at: e.Start()}
	d.mu.Lock()
	defer d.mu.Unlock()
	list := d.byUser[e.UserID]
	if _, again := d.ids[dl.id]; again { // again (rare): the earlier copy goes
		for u, l := range d.byUser {
			if i := slices.IndexFunc(l, func(x delivery) bool { return x.id == dl.id }); i >= 0 {
				d.byUser[u] = slices.Delete(l, i, i+1)
				if u == e.UserID {
					list = d.byUser[u]
				}
			}
		}
	}
	d.ids[dl.id] = e.UserID
	i, _ := slices.BinarySearchFunc(list, dl, func(a, b delivery) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	d.byUser[e.UserID] = slices.Insert(list, i, dl)
}

// Delivery is what the index keeps of delivery id (its event, attempt, trigger and endpoint),
// for a record rebuilt from a row (window.Dataset.Exec), which keeps none of it.
func (d *Deliveries) Delivery(id string) (model.Delivery, bool) {
	if d == nil {
		return model.Delivery{}, false
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	user, ok := d.ids[id]
	if !ok {
		return model.Delivery{}, false
	}
	for _, dl := range d.byUser[user] {
		if dl.id == id {
			return model.Delivery{EventID: dl.event, Attempt: dl.attempt, TriggerID: dl.trigger, EndpointID: dl.endpoint}, true
		}
	}
	return model.Delivery{}, false
}

// Len is how many deliveries the index holds.
func (d *Deliveries) Len() int {
	if d == nil {
		return 0
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return len(d.ids)
}

// of is the delivery that started e: one whose event id the execution's trace or session id
// names, else the latest delivery to e's user that came no more than DeliveryWindow before e
// started.
func (d *Deliveries) of(e *model.Execution) (delivery, bool) {
	if d == nil {
		return delivery{}, false
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	list := d.byUser[e.UserID]
	if len(list) == 0 {
		return delivery{}, false
	}
	start := e.Start()
	for k := len(list) - 1; k >= 0; k-- { // tied by id: the app passed the event on
		if dl := list[k]; !dl.at.After(start) &&
			(e.TraceID != "" && strings.Contains(e.TraceID, dl.event) || e.SessionID != "" && strings.Contains(e.SessionID, dl.event)) {
			return dl, true
		}
	}
	for k := len(list) - 1; k >= 0; k-- {
		dl := list[k]
		if dl.at.After(start) {
			continue
		}
		if start.Sub(dl.at) > DeliveryWindow {
			break
		}
		return dl, true
	}
	return delivery{}, false
}

// StartDelivery is the trigger delivery that started an execution (StartedBy).
type StartDelivery struct {
	ID, EventID string
	Attempt     int
	// ByID says the records tie them by the event's id (in the execution's trace or session
	// id); otherwise by user and account within seconds.
	ByID bool
}

// StartedByWindow is how soon after a delivery a write of the same user and account is shown
// as its handler's, when nothing ties them by id.
const StartedByWindow = 10 * time.Second

// StartedBy is the delivery that started e, where the records tie them: the event's id in e's
// trace or session id, or a delivery to the same user and connected account at most
// StartedByWindow before e started. ok is false for a trigger delivery itself and when nothing
// ties one.
func (d *Deliveries) StartedBy(e *model.Execution) (StartDelivery, bool) {
	if d == nil || !e.IsToolExecution() {
		return StartDelivery{}, false
	}
	dl, ok := d.of(e)
	if !ok {
		return StartDelivery{}, false
	}
	byID := e.TraceID != "" && strings.Contains(e.TraceID, dl.event) || e.SessionID != "" && strings.Contains(e.SessionID, dl.event)
	if !byID && (dl.account == "" || dl.account != e.ConnectedAccountID || e.Start().Sub(dl.at) > StartedByWindow) {
		return StartDelivery{}, false
	}
	return StartDelivery{ID: dl.id, EventID: dl.event, Attempt: dl.attempt, ByID: byID}, true
}

// redelivered reports whether every member of a group was started by its own delivery of one
// event (two deliveries or more: a redelivery), and names them.
func redelivered(ms []member, d *Deliveries) (event string, dls []delivery, ok bool) {
	if d.Len() == 0 || len(ms) < 2 {
		return "", nil, false
	}
	seen := map[string]bool{}
	for _, m := range ms {
		dl, found := d.of(m.e)
		if !found || event != "" && dl.event != event {
			return "", nil, false
		}
		event = dl.event
		if !seen[dl.id] {
			seen[dl.id] = true
			dls = append(dls, dl)
		}
	}
	if len(dls) < len(ms) { // deliveries moments apart (one event to two endpoints): the handlers' writes came after both
		if all := d.ofEvent(ms[0].e.UserID, event, ms[len(ms)-1].e.Start()); len(all) >= len(ms) && atOnce(all) {
			dls = all
		}
	}
	if len(dls) < 2 {
		return "", nil, false // one delivery whose handler wrote twice: the handler's own doing
	}
	return event, dls, true
}

// ofEvent is every delivery of event to user that came no later than before, oldest first.
func (d *Deliveries) ofEvent(user, event string, before time.Time) []delivery {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []delivery
	for _, dl := range d.byUser[user] {
		if dl.event == event && !dl.at.After(before) {
			out = append(out, dl)
		}
	}
	return out
}

// atOnce reports whether deliveries of one event were made as one: at least two with the same
// attempt number, or to different endpoints. A redelivery is the next attempt to the same
// endpoint; a second endpoint (or subscription) gets the event as its own attempt 1.
func atOnce(dls []delivery) bool {
	attempts, endpoints := map[int]bool{}, map[string]bool{}
	for _, dl := range dls {
		if dl.attempt > 0 && attempts[dl.attempt] {
			return true
		}
		attempts[dl.attempt] = true
		if dl.endpoint != "" {
			endpoints[dl.endpoint] = true
		}
	}
	return len(endpoints) > 1
}

// subscriptionReason says that one event went to two endpoints (or subscriptions), naming the
// deliveries, their attempts and endpoints.
func subscriptionReason(ms []member, gaps []time.Duration, event string, dls []delivery) string {
	var parts []string
	endpoints := map[string]bool{}
	for _, dl := range dls {
		a := "attempt ?"
		if dl.attempt > 0 {
			a = fmt.Sprintf("attempt %d", dl.attempt)
		}
		if dl.endpoint != "" {
			a += " to " + dl.endpoint
			endpoints[dl.endpoint] = true
		}
		parts = append(parts, dl.id+" ("+a+")")
	}
	to := "two webhook endpoints or subscriptions"
	if n := len(endpoints); n > 1 {
		to = fmt.Sprintf("%d webhook endpoints", n)
	}
	return fmt.Sprintf(
		"%d writes, each by the handler of its own delivery of one trigger event (event id %s: %s), %s: the event was delivered once to "+
			"each of %s of the project, not redelivered; a second endpoint is what a webhook endpoint (or subscription) create sent "+
			"twice leaves",
		len(ms),
		event,
		strings.Join(parts, ", "),
		gapList(gaps, "after the previous"),
		to,
	)
}

// redeliveryReason says what happened, naming the deliveries and their attempts.
func redeliveryReason(ms []member, gaps []time.Duration, event string, dls []delivery) string {
	var parts []string
	for _, dl := range dls {
		a := "attempt ?"
		if dl.attempt > 0 {
			a = fmt.Sprintf("attempt %d", dl.attempt)
		}
		parts = append(parts, dl.id+" ("+a+")")
	}
	return fmt.Sprintf(
		"%d writes, each by the handler of a delivery of one trigger event (event id %s: %s), %s: the event was delivered again "+
			"(delivery is at least once) and the handler wrote each time",
		len(ms),
		event,
		strings.Join(parts, ", "),
		gapList(gaps, "after the previous"),
	)
}
