// Package watchtest holds loopback receivers for watch's tests: a Standard Webhooks receiver
// that verifies signatures and deduplicates by webhook-id, and a Slack-shaped one that keeps
// every message.
package watchtest

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/exectriage/exectriage/watch"
)

// Webhook verifies each message's signature and deduplicates by webhook-id, as a Standard
// Webhooks receiver does. SetHold makes it wait before each answer.
type Webhook struct {
	Secret watch.Secret
	hold   time.Duration

	mu   sync.Mutex
	seen map[string]int // webhook-id → messages received
	bad  int
	got  chan struct{}
}

// NewWebhook is a receiver for messages signed with secret.
func NewWebhook(secret watch.Secret) *Webhook {
	return &Webhook{Secret: secret, seen: map[string]int{}, got: make(chan struct{}, 1024)}
}

func (r *Webhook) ServeHTTP(w http.ResponseWriter, q *http.Request) {
	body, _ := io.ReadAll(q.Body)
	id := q.Header.Get("webhook-id")
	r.mu.Lock()
	err := r.Secret.Verify(id, q.Header.Get("webhook-timestamp"), q.Header.Get("webhook-signature"), body, time.Now(), 5*time.Minute)
	var e watch.Event
	if err == nil && (json.Unmarshal(body, &e) != nil || e.ID != id) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		r.bad++
		r.mu.Unlock()
		http.Error(w, "refused", http.StatusUnauthorized)
		return
	}
	r.seen[id]++
	hold := r.hold
	r.mu.Unlock()
	select {
	case r.got <- struct{}{}:
	default:
	}
	time.Sleep(hold)
}

// SetHold sets how long each answer waits.
func (r *Webhook) SetHold(d time.Duration) {
	r.mu.Lock()
	r.hold = d
	r.mu.Unlock()
}

// Got is signalled when a message has been received (before its answer).
func (r *Webhook) Got() <-chan struct{} { return r.got }

// Seen is how many messages came with each webhook-id, and how many were refused.
func (r *Webhook) Seen() (map[string]int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.seen))
	maps.Copy(out, r.seen)
	return out, r.bad
}

// Slack keeps every message, as Slack's incoming webhook would post it.
type Slack struct {
	mu   sync.Mutex
	msgs []string
}

func (r *Slack) ServeHTTP(w http.ResponseWriter, q *http.Request) {
	body, _ := io.ReadAll(q.Body)
	r.mu.Lock()
	r.msgs = append(r.msgs, string(body))
	r.mu.Unlock()
	_, _ = w.Write([]byte("ok"))
}

var (
	eventID = regexp.MustCompile(`\nevent (evt_[0-9a-f]+)`)
	lostIDs = regexp.MustCompile(`evt_[0-9a-f]+`)
	lostSay = regexp.MustCompile("may not have arrived")
)

// Told counts, per event id, the messages whose sections told it; lost is the event ids the
// messages said may not have arrived.
func (r *Slack) Told() (told map[string]int, lost []string, messages int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	told = map[string]int{}
	for _, m := range r.msgs {
		var msg struct {
			Blocks []struct{ Text struct{ Text string } }
		}
		_ = json.Unmarshal([]byte(m), &msg)
		for _, b := range msg.Blocks {
			if lostSay.MatchString(b.Text.Text) {
				lost = append(lost, lostIDs.FindAllString(b.Text.Text, -1)...)
				continue
			}
			for _, id := range eventID.FindAllStringSubmatch(b.Text.Text, -1) {
				told[id[1]]++
			}
		}
	}
	return told, lost, len(r.msgs)
}
