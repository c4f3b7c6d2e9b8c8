package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/exectriage/exectriage/journal"
)

// webhookReceiver verifies each message's signature and deduplicates by webhook-id, as a
// Standard Webhooks receiver does.
type webhookReceiver struct {
	mu     sync.Mutex
	secret Secret
	seen   map[string]int // webhook-id → messages received
	bad    int
}

func (r *webhookReceiver) ServeHTTP(w http.ResponseWriter, q *http.Request) {
	body, _ := io.ReadAll(q.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	id := q.Header.Get("webhook-id")
	if err := r.secret.Verify(id, q.Header.Get("webhook-timestamp"), q.Header.Get("webhook-signature"), body, time.Now(), 5*time.Minute); err != nil {
		r.bad++
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var e Event
	if json.Unmarshal(body, &e) != nil || e.ID != id {
		r.bad++
		http.Error(w, "body", http.StatusBadRequest)
		return
	}
	r.seen[id]++
}

// slackReceiver keeps every message; the log ids say which events each told.
type slackReceiver struct {
	mu   sync.Mutex
	msgs []string
}

func (r *slackReceiver) ServeHTTP(w http.ResponseWriter, q *http.Request) {
	body, _ := io.ReadAll(q.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, string(body))
	_, _ = w.Write([]byte("ok"))
}

var logIDs = regexp.MustCompile("`(log_[0-9a-z_]+)`")

// told counts, per log id, the messages whose sections named it; lost is what the messages
// said may not have arrived.
func (r *slackReceiver) told() (map[string]int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := map[string]int{}
	var lost []string
	for _, m := range r.msgs {
		var msg struct {
			Blocks []struct{ Text struct{ Text string } }
		}
		_ = json.Unmarshal([]byte(m), &msg)
		for _, b := range msg.Blocks {
			if regexp.MustCompile("may not have arrived").MatchString(b.Text.Text) {
				lost = append(lost, regexp.MustCompile(`evt_[0-9a-f]+`).FindAllString(b.Text.Text, -1)...)
				continue
			}
			for _, m := range logIDs.FindAllStringSubmatch(b.Text.Text, -1) {
				n[m[1]]++
			}
		}
	}
	return n, lost
}

// events are 50 of each kind, each about log ids of its own.
func events() []Event {
	var out []Event
	for i := range 50 {
		for _, k := range Kinds {
			ids := []string{fmt.Sprintf("log_%s_%02d", k, i)}
			e := Event{Version: EventVersion, Kind: k, ID: IDFor(k, ids[0]), ExecutionIDs: ids, Reason: "r", Command: "exectriage show " + ids[0]}
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
			secret, _ := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
			hook := &webhookReceiver{secret: secret, seen: map[string]int{}}
			slack := &slackReceiver{}
			hs, ss := httptest.NewServer(hook), httptest.NewServer(slack)
			defer hs.Close()
			defer ss.Close()
			sinks := []Sink{NewWebhook(hs.URL, secret), NewSlack(ss.URL)}
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
			first := &Deliverer{Outbox: ob, Sinks: sinks, Owner: "first", Hold: 20 * time.Millisecond,
				Step: func(s, sink string, _ []Event) error {
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
				first.Sinks = []Sink{s}
				if err := first.Round(ctx, false); !errors.Is(err, errCrash) {
					t.Fatalf("the first watcher did not die: %v", err)
				}
			}
			time.Sleep(50 * time.Millisecond)
			second := &Deliverer{Outbox: ob, Sinks: sinks, Owner: "second", Hold: time.Minute}
			for range 3 {
				if err := second.Round(ctx, false); err != nil {
					t.Fatal(err)
				}
			}
			// Webhook: every event received, each id once but the one in flight at the crash.
			if hook.bad != 0 || len(hook.seen) != len(all) {
				t.Fatalf("webhook: %d of %d events, %d refused", len(hook.seen), len(all), hook.bad)
			}
			again := 0
			for _, n := range hook.seen {
				again += n - 1
			}
			if wantAgain := map[string]int{"taken": 0, "sent": 1, "finished": 0}[step]; again != wantAgain {
				t.Fatalf("webhook: %d messages came again with their id, want %d", again, wantAgain)
			}
			// Slack: no event twice; the message in flight at the crash is unclear (said in the
			// next message) only when it may have gone out.
			told, lost := slack.told()
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
			for _, e := range all {
				if slices.Contains(lost, e.ID) {
					reached[e.ExecutionIDs[0]] = true
				}
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
