package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/exectriage/exectriage/journal"
)

// Deliverer sends the outbox's due deliveries to the sinks, once each (see journal.Outbox).
type Deliverer struct {
	Outbox journal.Outbox
	Sinks  []Sink
	// Owner names this watcher in the outbox (host, pid, a random part).
	Owner string
	// Hold is how long a taken delivery stays this watcher's before it is stale: past it, a
	// watcher that finds it presumes the sender died (SendTimeout and a margin).
	Hold time.Duration
	// Digest: a sink sends at most once every Digest, everything due at once (0: as found).
	Digest time.Duration
	Log    *slog.Logger
	// Metrics counts deliveries (nil: none).
	Metrics *Metrics
	// Step, when set, is called at each step of a delivery ("taken", "sent", "finished"); an
	// error stops the round there, as a crash would (tests).
	Step func(step, sink string, events []Event) error

	last map[string]time.Time
	// lost are the events of a sink that does not deduplicate whose delivery is unclear, not
	// yet said in a message of that sink.
	lost map[string][]string
}

// ErrStopped is returned by Round when ctx ended between messages.
var ErrStopped = errors.New("watch: stopped")

// Round delivers what is due to every sink. A message under way is finished (its answer
// recorded) even when ctx ends: SIGTERM stops between messages, never inside one. force
// sends a digest's sinks now (--once).
func (d *Deliverer) Round(ctx context.Context, force bool) error {
	if d.last == nil {
		d.last, d.lost = map[string]time.Time{}, map[string][]string{}
	}
	var errs []error
	for _, s := range d.Sinks {
		if err := d.sink(ctx, s, force); err != nil {
			if errors.Is(err, ErrStopped) {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (d *Deliverer) sink(ctx context.Context, s Sink, force bool) error {
	name := s.Name()
	due, err := d.Outbox.Due(ctx, name, 500)
	if err != nil {
		return err
	}
	var ready []journal.Delivery
	for _, dl := range due {
		if dl.Stale && !s.Dedups() {
			// Its sender died with it in flight or before recording the answer: it may have
			// arrived, and this receiver cannot tell a second copy from a new alert.
			ok, err := d.Outbox.Abandon(ctx, dl.Event.ID, name, "its sender stopped before recording the answer: it may have arrived")
			if err != nil {
				return err
			}
			if ok {
				d.lost[name] = append(d.lost[name], dl.Event.ID)
				d.Metrics.Delivered(name, journal.DeliveryUnclear, 1)
				d.log().Warn("delivery unclear: not sent again", "sink", name, "event", dl.Event.ID)
			}
			continue
		}
		ready = append(ready, dl)
	}
	if len(ready) == 0 && len(d.lost[name]) == 0 {
		return nil
	}
	if len(ready) == 0 { // nothing else to say: say what may not have arrived now
		return d.note(ctx, s)
	}
	if d.Digest > 0 && !force && time.Since(d.last[name]) < d.Digest {
		return nil
	}
	sent := 0
	defer func() {
		if sent > 0 {
			d.log().Info("delivered", "sink", name, "events", sent)
		}
	}()
	for len(ready) > 0 {
		if ctx.Err() != nil {
			return ErrStopped
		}
		n := min(len(ready), max(s.Batch(), 1))
		batch := ready[:n]
		ready = ready[n:]
		n, err := d.message(ctx, s, batch)
		sent += n
		if err != nil {
			return err
		}
	}
	return nil
}

// note tells a sink that cannot deduplicate which alerts may not have arrived, when no event
// is due to carry it. The note is said once: an unclear answer is not followed by another.
func (d *Deliverer) note(ctx context.Context, s Sink) error {
	name := s.Name()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SendTimeout+5*time.Second)
	defer cancel()
	out := s.Send(sctx, nil, d.lost[name])
	if out.State == journal.DeliveryFailed {
		d.log().Warn("could not say which alerts may not have arrived: tried again later", "sink", name, "detail", out.Detail)
		return nil
	}
	d.lost[name] = nil
	return nil
}

// message takes a batch's deliveries, sends what it took as one message and records its end;
// it returns how many events were delivered.
func (d *Deliverer) message(ctx context.Context, s Sink, batch []journal.Delivery) (int, error) {
	name := s.Name()
	var events []Event
	var tries int
	for _, dl := range batch {
		ok, err := d.Outbox.Take(ctx, dl.Event.ID, name, d.Owner, d.Hold, s.Dedups())
		if err != nil {
			return 0, err
		}
		if !ok {
			continue // another watcher took it
		}
		e, err := decode(dl.Event)
		if err != nil {
			return 0, err
		}
		events = append(events, e)
		tries = max(tries, dl.Tries+1)
	}
	if len(events) == 0 {
		return 0, nil
	}
	if err := d.step("taken", name, events); err != nil {
		return 0, err
	}
	// The message goes out and its answer is recorded even if ctx ends meanwhile.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SendTimeout+5*time.Second)
	defer cancel()
	out := s.Send(sctx, events, d.lost[name])
	if err := d.step("sent", name, events); err != nil {
		return 0, err
	}
	retry := out.RetryIn
	if retry <= 0 {
		retry = min(time.Duration(1<<min(tries, 10))*time.Second, 10*time.Minute)
	}
	for _, e := range events {
		if err := d.Outbox.Finish(sctx, e.ID, name, d.Owner, out.State, out.Detail, retry); err != nil {
			return 0, err
		}
	}
	d.Metrics.Delivered(name, out.State, len(events))
	d.last[name] = time.Now()
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	switch out.State {
	case journal.DeliverySent:
		d.lost[name] = nil // said in this message
		d.log().Debug("delivered", "sink", name, "events", ids)
	case journal.DeliveryUnclear:
		d.lost[name] = append(d.lost[name], ids...)
		d.log().Warn("delivery unclear: not sent again", "sink", name, "events", ids, "detail", out.Detail)
	default:
		d.log().Warn("delivery failed: tried again later", "sink", name, "events", ids, "detail", out.Detail, "retry_in", retry.String())
	}
	delivered := 0
	if out.State == journal.DeliverySent {
		delivered = len(events)
	}
	return delivered, d.step("finished", name, events)
}

func (d *Deliverer) step(step, sink string, events []Event) error {
	if d.Step == nil {
		return nil
	}
	return d.Step(step, sink, events)
}

func (d *Deliverer) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Log
}

func decode(w journal.WatchEvent) (Event, error) {
	var e Event
	if err := json.Unmarshal(w.Body, &e); err != nil {
		return e, fmt.Errorf("watch: event %s in the outbox: %w", w.ID, err)
	}
	return e, nil
}
