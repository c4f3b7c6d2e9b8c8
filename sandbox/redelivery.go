package sandbox

import (
	"math/rand/v2"
	"time"

	"github.com/exectriage/exectriage/model"
)

// CaseTriggerRedelivery: a trigger's event delivered again because the app's handler answered
// too late; the handler wrote each time (docs/platform.md, "Triggers and webhooks": delivery is at least once, the
// webhook-id stays, the attempt counts up).
const CaseTriggerRedelivery = "trigger_redelivery"

// triggerSpec is a trigger delivery the history logs as a trigger.message record.
type triggerSpec struct {
	at      time.Time
	acct    *account
	event   string // the payload's id, which the webhook-id header repeats
	attempt int
	trigger string // the trigger instance (triggerNanoId)
	err     string // what the app's handler answered when it failed
}

// execution is the delivery's record.
func (t triggerSpec) execution(id string) *model.Execution {
	status, msg := model.StatusSuccess, "Trigger GMAIL_NEW_GMAIL_MESSAGE delivered"
	if t.err != "" {
		status, msg = model.StatusFailed, "Trigger GMAIL_NEW_GMAIL_MESSAGE delivery failed: "+t.err
	}
	return &model.Execution{ID: id, Type: model.TypeTriggerMessage, Timestamp: t.at.Truncate(time.Millisecond),
		ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE", ToolkitSlug: t.acct.toolkit, UserID: t.acct.userID, ConnectedAccountID: t.acct.id,
		Status: status, Level: "info", Message: msg, RetryCount: -1, Detailed: true,
		Delivery: &model.Delivery{EventID: t.event, Attempt: t.attempt, TriggerID: t.trigger, Error: t.err}}
}

// redeliveries plans about one redelivered event per thousand executions (two at least), with
// a random source of their own so the rest of the history is drawn as without them.
func (g *generator) redeliveries(seed int64, size int) {
	saved := g.r
	g.r = rand.New(rand.NewPCG(uint64(seed), 0x7219_de11_7e5e))
	defer func() { g.r = saved }()
	for range max(2, size/1000) {
		g.redelivery()
	}
}

// redelivery: a Gmail new-message trigger whose handler auto-replies (GMAIL_SEND_EMAIL) and
// then answers the delivery after Composio stopped waiting; Composio delivers the event again
// 30-90 s later (twice more, sometimes), and the handler replies again: one reply per attempt,
// the same arguments, each write's trace naming the event.
func (g *generator) redelivery() int {
	u, a := g.pickUserOf("gmail")
	if u == nil {
		return 0
	}
	tool := g.cat.bySlug["GMAIL_SEND_EMAIL"]
	n, at, args, key, ok := g.burstStart(tool, a)
	if !ok {
		return 0
	}
	event := "msg_" + g.w.ids.hex(16)
	trigger := "ti_" + g.w.ids.hex(10)
	for i := range n {
		spec := triggerSpec{at: at, acct: a, event: event, attempt: i + 1, trigger: trigger}
		if i < n-1 {
			spec.err = "the app's webhook did not answer within 15 s (timeout)"
		}
		g.triggers = append(g.triggers, spec)
		p := g.newPlan(u, a, tool, args, at.Add(g.between(400*time.Millisecond, 1500*time.Millisecond)), u.profile, CaseTriggerRedelivery)
		p.session, p.retryCount, p.groupKey, p.pattern = "evt-"+event, -1, key, model.PatternTriggerRedelivery
		at = at.Add(g.between(30*time.Second, 90*time.Second))
	}
	return n
}
