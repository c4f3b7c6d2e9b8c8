package watch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/watch"
	"github.com/exectriage/exectriage/watch/watchtest"
)

// events are 50 of each kind, each about log ids of its own.
func events() []watch.Event {
	var out []watch.Event
	for i := range 50 {
		for _, k := range watch.Kinds {
			ids := []string{fmt.Sprintf("log_%s_%02d", k, i)}
			e := watch.Event{Version: watch.EventVersion, Kind: k, ID: watch.IDFor(k, ids[0]), ExecutionIDs: ids, Reason: "r", Command: "exectriage show " + ids[0]}
			out = append(out, e)
		}
	}
	return out
}

var errCrash = errors.New("crash")

// A watcher that dies at any step of a delivery (taken, before the send; sent, before its
// answer is recorded; finished, after) and a watcher started after it tell every event once:
// the webhook receiver counts each webhook-id once (a message whose answer was lost comes
// again with its id, and only then), Slack never gets an event twice and is told which alert
// may not have arrived.
func TestACrashAtAnyStepTellsNothingTwice(t *testing.T) {
	for _, step := range []string{"taken", "sent", "finished"} {
		t.Run(step, func(t *testing.T) {
			ctx := context.Background()
			j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "journal.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			ob, _ := journal.OutboxOf(j)
			secret, _ := watch.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
			hook := watchtest.NewWebhook(secret)
			slack := &watchtest.Slack{}
			hs, ss := httptest.NewServer(hook), httptest.NewServer(slack)
			defer hs.Close()
			defer ss.Close()
			sinks := []watch.Sink{watch.NewWebhook(hs.URL, secret), watch.NewSlack(ss.URL)}
			all := events()
			var rec []journal.WatchEvent
			for _, e := range all {
				rec = append(rec, journal.WatchEvent{ID: e.ID, Kind: string(e.Kind), Body: e.Body()})
			}
			if _, err := ob.Record(ctx, rec, nil, []string{"webhook", "slack"}); err != nil {
				t.Fatal(err)
			}
			// The first watcher dies at its 7th webhook message and at its 3rd Slack message,
			// at this step; its hold is short so that the next finds them stale at once.
			count := map[string]int{}
			first := &watch.Deliverer{Outbox: ob, Sinks: sinks, Owner: "first", Hold: 20 * time.Millisecond,
				Step: func(s, sink string, _ []watch.Event) error {
					if s != step {
						return nil
					}
					count[sink]++
					if (sink == "webhook" && count[sink] == 7) || (sink == "slack" && count[sink] == 3) {
						return errCrash
					}
					return nil
				}}
			for _, s := range sinks { // one round per sink, each ending at its crash
				first.Sinks = []watch.Sink{s}
				if err := first.Round(ctx, false); !errors.Is(err, errCrash) {
					t.Fatalf("the first watcher did not die: %v", err)
				}
			}
			time.Sleep(50 * time.Millisecond)
			second := &watch.Deliverer{Outbox: ob, Sinks: sinks, Owner: "second", Hold: time.Minute}
			for range 3 {
				if err := second.Round(ctx, false); err != nil {
					t.Fatal(err)
				}
			}
			// Webhook: every event received, each id once but the one in flight at the crash.
			seen, bad := hook.Seen()
			if bad != 0 || len(seen) != len(all) {
				t.Fatalf("webhook: %d of %d events, %d refused", len(seen), len(all), bad)
			}
			again := 0
			for _, n := range seen {
				again += n - 1
			}
			if wantAgain := map[string]int{"taken": 0, "sent": 1, "finished": 0}[step]; again != wantAgain {
				t.Fatalf("webhook: %d messages came again with their id, want %d", again, wantAgain)
			}
			// Slack: no event twice; the message in flight at the crash is unclear (said in the
			// next message) only when it may have gone out.
			told, lost, _ := slack.Told()
			for id, n := range told {
				if n > 1 {
					t.Fatalf("slack was told %s %d times", id, n)
				}
			}
			wantLost := map[string]int{"taken": 20, "sent": 20, "finished": 0}[step]
			reached := map[string]bool{}
			for id := range told {
				reached[id] = true
			}
			for _, id := range lost {
				reached[id] = true
			}
			if len(lost) != wantLost || len(reached) != len(all) {
				t.Fatalf("slack: %d told, %d said lost (want %d), %d of %d accounted for", len(told), len(lost), wantLost, len(reached), len(all))
			}
			counts, _ := ob.Counts(ctx)
			if counts["webhook"][journal.DeliverySent] != len(all) || counts["slack"][journal.DeliveryUnclear] != wantLost {
				t.Fatalf("outbox %v", counts)
			}
		})
	}
}

// A digest sends each sink at most once a period, everything due at once; --once (force) sends
// what is due now.
func TestADigestSendsOncePerPeriod(t *testing.T) {
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ob, _ := journal.OutboxOf(j)
	slack := &watchtest.Slack{}
	ss := httptest.NewServer(slack)
	defer ss.Close()
	all := events()
	record := func(es []watch.Event) {
		var rec []journal.WatchEvent
		for _, e := range es {
			rec = append(rec, journal.WatchEvent{ID: e.ID, Kind: string(e.Kind), Body: e.Body()})
		}
		if _, err := ob.Record(ctx, rec, nil, []string{"slack"}); err != nil {
			t.Fatal(err)
		}
	}
	d := &watch.Deliverer{Outbox: ob, Sinks: []watch.Sink{watch.NewSlack(ss.URL)}, Owner: "w", Hold: time.Minute, Digest: time.Hour}
	record(all[:5])
	if err := d.Round(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, _, n := slack.Told(); n != 1 {
		t.Fatalf("the first round sent %d messages, want 1 with the 5 events", n)
	}
	record(all[5:8])
	if err := d.Round(ctx, false); err != nil {
		t.Fatal(err)
	}
	if told, _, n := slack.Told(); n != 1 || len(told) != 5 {
		t.Fatalf("within the digest's period: %d messages, %d events", n, len(told))
	}
	if err := d.Round(ctx, true); err != nil {
		t.Fatal(err)
	}
	if told, _, n := slack.Told(); n != 2 || len(told) != 8 {
		t.Fatalf("forced: %d messages, %d events", n, len(told))
	}
}
