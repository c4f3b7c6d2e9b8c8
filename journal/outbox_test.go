package journal

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func outboxT(t *testing.T, j Journal) Outbox {
	t.Helper()
	o, err := OutboxOf(j)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// An event is recorded once however often it is found, and each of its deliveries is taken by
// exactly one of any number of racing watchers (two processes on one journal).
func TestAnEventIsDeliveredByOneTaker(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			o1, o2 := outboxT(t, openT(t, dsn)), outboxT(t, openT(t, dsn))
			ev := []WatchEvent{{ID: "flagged:a", Kind: "flagged", Body: []byte(`{"a":1}`)}, {ID: "group:b", Kind: "group", Body: []byte(`{}`)}}
			added, err := o1.Record(ctx, ev, []string{"group_member:b:x"}, []string{"webhook", "slack"})
			if err != nil || len(added) != 2 {
				t.Fatalf("first record: %v %v", added, err)
			}
			if added, err = o2.Record(ctx, ev, nil, []string{"webhook", "slack"}); err != nil || len(added) != 0 {
				t.Fatalf("second record added %v (%v): an event found again is not new", added, err)
			}
			known, err := o2.Known(ctx, []string{"group_member:b:x", "group_member:b:y", "flagged:a"})
			if err != nil || !known["group_member:b:x"] || known["group_member:b:y"] || !known["flagged:a"] {
				t.Fatalf("known %v %v", known, err)
			}
			due, err := o1.Due(ctx, "slack", 10)
			if err != nil || len(due) != 2 || due[0].Event.ID != "flagged:a" || string(due[0].Event.Body) != `{"a":1}` {
				t.Fatalf("due %+v %v", due, err)
			}
			var took atomic.Int32
			var wg sync.WaitGroup
			for i, o := range []Outbox{o1, o2, o1, o2} {
				wg.Go(func() {
					ok, err := o.Take(ctx, "flagged:a", "slack", []string{"w1", "w2", "w3", "w4"}[i], time.Minute, true)
					if err != nil {
						t.Error(err)
					}
					if ok {
						took.Add(1)
					}
				})
			}
			wg.Wait()
			if took.Load() != 1 {
				t.Fatalf("%d watchers took one delivery", took.Load())
			}
			if due, _ = o1.Due(ctx, "slack", 10); len(due) != 1 || due[0].Event.ID != "group:b" {
				t.Fatalf("a delivery in flight is not due: %+v", due)
			}
		})
	}
}

// A delivery's end is recorded only by the watcher holding it; a failed one is due again; a
// delivery left in sending is stale after its deadline: taken again only when asked (a
// receiver that deduplicates), else abandoned as unclear and never due again.
func TestADeliveryLeftInFlight(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			o := outboxT(t, openT(t, b.fresh(t)))
			ev := []WatchEvent{{ID: "e1", Kind: "flagged"}, {ID: "e2", Kind: "flagged"}, {ID: "e3", Kind: "flagged"}}
			if _, err := o.Record(ctx, ev, nil, []string{"hook"}); err != nil {
				t.Fatal(err)
			}
			take := func(id, owner string, hold time.Duration, stale bool) bool {
				ok, err := o.Take(ctx, id, "hook", owner, hold, stale)
				if err != nil {
					t.Fatal(err)
				}
				return ok
			}
			// e1: sent. Another watcher cannot record its end.
			if !take("e1", "a", time.Minute, false) {
				t.Fatal("e1 not taken")
			}
			if err := o.Finish(ctx, "e1", "hook", "b", DeliverySent, "", 0); !errors.Is(err, ErrTransition) {
				t.Fatalf("another watcher finished e1: %v", err)
			}
			if err := o.Finish(ctx, "e1", "hook", "a", DeliverySent, "200", 0); err != nil {
				t.Fatal(err)
			}
			// e2: failed, due again at once (retryIn 0).
			take("e2", "a", time.Minute, false)
			if err := o.Finish(ctx, "e2", "hook", "a", DeliveryFailed, "503", 0); err != nil {
				t.Fatal(err)
			}
			// e3: taken with a hold that has passed: the process died with it in flight.
			take("e3", "a", -time.Second, false)
			due, err := o.Due(ctx, "hook", 10)
			if err != nil || len(due) != 2 || due[0].Event.ID != "e2" || due[0].Stale || due[1].Event.ID != "e3" || !due[1].Stale {
				t.Fatalf("due %+v %v", due, err)
			}
			if take("e3", "b", time.Minute, false) {
				t.Fatal("a stale delivery was taken without asking for stale ones")
			}
			if ok, err := o.Abandon(ctx, "e3", "hook", "answer lost"); err != nil || !ok {
				t.Fatalf("abandon: %v %v", ok, err)
			}
			if take("e3", "b", time.Minute, true) {
				t.Fatal("an unclear delivery was taken again")
			}
			if !take("e2", "b", time.Minute, true) {
				t.Fatal("a failed delivery is not taken again")
			}
			counts, err := o.Counts(ctx)
			if err != nil || counts["hook"][DeliverySent] != 1 || counts["hook"][DeliveryUnclear] != 1 || counts["hook"][DeliverySending] != 1 {
				t.Fatalf("counts %v %v", counts, err)
			}
		})
	}
}

// One lease: its holder renews it, nobody else takes it until it has run out.
func TestOneWatcherLeads(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.fresh(t)
			j2 := openT(t, dsn)
			o1, o2 := outboxT(t, openT(t, dsn)), outboxT(t, j2)
			lead := func(o Outbox, who string, ttl time.Duration) bool {
				ok, err := o.Lead(ctx, "watch", who, ttl)
				if err != nil {
					t.Fatal(err)
				}
				return ok
			}
			if !lead(o1, "a", time.Minute) || lead(o2, "b", time.Minute) || !lead(o1, "a", 50*time.Millisecond) {
				t.Fatal("the first holder does not keep its lease alone")
			}
			time.Sleep(100 * time.Millisecond)
			if !lead(o2, "b", time.Minute) || lead(o1, "a", time.Minute) {
				t.Fatal("a lease that ran out was not taken over")
			}
			if err := o2.Release(ctx, "watch", "b"); err != nil || !lead(o1, "a", time.Minute) {
				t.Fatalf("a released lease is not free: %v", err)
			}
			// A holder whose process is provably gone holds nothing: a restart after a crash
			// takes over at once, not when the lease runs out.
			h1, h2 := NewLeaseHolder(), NewLeaseHolder()
			if err := o1.Release(ctx, "watch", "a"); err != nil || !lead(o1, h1, time.Minute) || lead(o2, h2, time.Minute) {
				t.Fatalf("a live holder's lease was taken: %v", err)
			}
			j2.(*store).opt.alive = func(Owner) (bool, bool) { return false, true }
			if !lead(o2, h2, time.Minute) {
				t.Fatal("the lease of a holder that is gone was not taken")
			}
		})
	}
}
