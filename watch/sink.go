package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/exectriage/exectriage/journal"
)

// Sink is where events go.
type Sink interface {
	// Name names the sink in the outbox, the logs and the metrics ("webhook", "slack", "stdout").
	Name() string
	// Dedups: the receiver deduplicates by the event's id, so a delivery whose answer was lost
	// may be sent again (with the same id). A sink that does not is never sent an event twice.
	Dedups() bool
	// Batch is how many events one message carries.
	Batch() int
	// Send delivers events in one message; lost names earlier events whose delivery is
	// unclear (they are not sent again: the message says they may not have arrived).
	Send(ctx context.Context, events []Event, lost []string) Outcome
}

// Outcome is what a message came to.
type Outcome struct {
	State  journal.DeliveryState // sent, failed (may be tried again) or unclear
	Detail string
	// RetryIn is when a failed message may be tried again (0: the watcher's backoff).
	RetryIn time.Duration
}

// SendTimeout bounds one message, its answer included.
const SendTimeout = 10 * time.Second

// newHTTPClient is a sink's client: its own (it never carries the API's key), no redirect
// followed (the body and its signature go where they were told, or nowhere).
func newHTTPClient() *http.Client {
	return &http.Client{
		Timeout:       SendTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// post sends one message and says what it came to. A message that never fully left failed
// (nothing can have arrived); one that left and got no answer, or an answer that does not say
// it was refused, is unclear unless the receiver deduplicates (then it failed, and is sent
// again with the same id). The error detail never names the URL: a Slack URL is a secret.
func post(ctx context.Context, hc *http.Client, target string, header http.Header, body []byte, dedups bool) Outcome {
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			wrote.Store(true)
		}
	}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return Outcome{State: journal.DeliveryFailed, Detail: "bad URL"}
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "exectriage-watch")
	res, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		err = errors.New(strings.NewReplacer(req.URL.Host, "the receiver", req.URL.Hostname(), "the receiver").Replace(err.Error()))
		if !wrote.Load() {
			return Outcome{State: journal.DeliveryFailed, Detail: "not sent: " + err.Error()}
		}
		if dedups {
			return Outcome{State: journal.DeliveryFailed, Detail: "sent, no answer (sent again with the same id): " + err.Error()}
		}
		return Outcome{State: journal.DeliveryUnclear, Detail: "sent, no answer: it may have arrived: " + err.Error()}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	s := res.StatusCode
	detail := "HTTP " + strconv.Itoa(s)
	switch {
	case s >= 200 && s < 300:
		return Outcome{State: journal.DeliverySent, Detail: detail}
	case s == http.StatusTooManyRequests:
		return Outcome{State: journal.DeliveryFailed, Detail: detail, RetryIn: retryAfter(res.Header.Get("Retry-After"))}
	case s >= 300 && s < 500 && s != http.StatusRequestTimeout:
		return Outcome{State: journal.DeliveryFailed, Detail: detail + ": refused"}
	case dedups:
		return Outcome{State: journal.DeliveryFailed, Detail: detail}
	}
	return Outcome{State: journal.DeliveryUnclear, Detail: detail + ": it may have arrived"}
}

func retryAfter(v string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return min(time.Duration(n)*time.Second, 10*time.Minute)
	}
	return 0
}

// Webhook posts each event, signed as Standard Webhooks, to a URL. Its receiver deduplicates
// by webhook-id (the event's id): an event whose answer was lost is sent again, same id.
type Webhook struct {
	url    string
	secret Secret
	hc     *http.Client
	now    func() time.Time
}

// NewWebhook is a webhook sink; the secret signs every message.
func NewWebhook(target string, secret Secret) *Webhook {
	return &Webhook{url: target, secret: secret, hc: newHTTPClient(), now: time.Now}
}

func (*Webhook) Name() string { return "webhook" }
func (*Webhook) Dedups() bool { return true }
func (*Webhook) Batch() int   { return 1 }

func (w *Webhook) Send(ctx context.Context, events []Event, _ []string) Outcome {
	e := events[0]
	body := e.Body()
	at := w.now()
	h := http.Header{}
	h.Set("webhook-id", e.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", w.secret.Sign(e.ID, at, body))
	return post(ctx, w.hc, w.url, h, body, true)
}

// Slack posts to a Slack incoming webhook: one Block Kit message for the events found at once
// (up to Batch). Slack cannot deduplicate: a message whose answer was lost is not sent again,
// and the next message says which alerts may not have arrived.
type Slack struct {
	url string
	hc  *http.Client
}

// NewSlack is a Slack sink. The URL is a secret: it is never printed, logged or put in an event.
func NewSlack(target string) *Slack { return &Slack{url: target, hc: newHTTPClient()} }

func (*Slack) Name() string { return "slack" }
func (*Slack) Dedups() bool { return false }
func (*Slack) Batch() int   { return 20 }

func (s *Slack) Send(ctx context.Context, events []Event, lost []string) Outcome {
	return post(ctx, s.hc, s.url, http.Header{}, SlackMessage(events, lost), false)
}

// JSONLines writes one event a line (stdout). A line written is delivered.
type JSONLines struct{ w io.Writer }

// NewJSONLines is a sink writing to w.
func NewJSONLines(w io.Writer) *JSONLines { return &JSONLines{w: w} }

func (*JSONLines) Name() string { return "stdout" }
func (*JSONLines) Dedups() bool { return true }
func (*JSONLines) Batch() int   { return 1 }

func (j *JSONLines) Send(_ context.Context, events []Event, _ []string) Outcome {
	if _, err := j.w.Write(append(events[0].Body(), '\n')); err != nil {
		return Outcome{State: journal.DeliveryFailed, Detail: err.Error()}
	}
	return Outcome{State: journal.DeliverySent}
}

// SlackMessage is the Block Kit message for events: a header, one section per event (what
// happened, the reason, the log ids, the command to copy), and a warning for lost alerts.
func SlackMessage(events []Event, lost []string) []byte {
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type block struct {
		Type string `json:"type"`
		Text *text  `json:"text,omitempty"`
	}
	title := fmt.Sprintf("exectriage: %d new", len(events))
	switch len(events) {
	case 0:
		title = "exectriage: alerts that may not have arrived"
	case 1:
		title = "exectriage: " + headline(events[0])
	}
	blocks := []block{{Type: "header", Text: &text{"plain_text", cut(title, 150)}}}
	for _, e := range events {
		ids := make([]string, len(e.ExecutionIDs))
		for i, id := range e.ExecutionIDs {
			ids[i] = "`" + mrkdwn(id) + "`"
		}
		body := fmt.Sprintf("*%s*%s\n%s\nlogs: %s\n```%s```\nevent %s", mrkdwn(headline(e)), toolOf(e), mrkdwn(cut(e.Reason, 1200)),
			strings.Join(ids, " "), mrkdwn(e.Command), e.ID)
		blocks = append(blocks, block{Type: "section", Text: &text{"mrkdwn", cut(body, 2900)}})
	}
	if len(lost) > 0 {
		blocks = append(blocks, block{Type: "section", Text: &text{"mrkdwn", cut(fmt.Sprintf(
			":warning: %d earlier alert(s) may not have arrived (Slack's answer was lost; they are not sent again, so nothing is told "+
				"twice): %s",
			len(lost),
			strings.Join(lost, ", "),
		), 2900)}})
	}
	b, _ := json.Marshal(struct {
		Text   string  `json:"text"`
		Blocks []block `json:"blocks"`
	}{Text: title, Blocks: blocks})
	return b
}

func headline(e Event) string {
	switch e.Kind {
	case KindFlagged:
		return "a write whose outcome is unknown"
	case KindGroup:
		return fmt.Sprintf("%d duplicate executions (%s)", len(e.ExecutionIDs), e.Cause)
	case KindGroupMember:
		return fmt.Sprintf("one more duplicate (%s)", e.Cause)
	case KindUnresolved:
		return "a retry left indeterminate"
	}
	return string(e.Kind)
}

func toolOf(e Event) string {
	if e.Tool == "" {
		return ""
	}
	return " · " + mrkdwn(e.Tool)
}

// mrkdwn escapes the three characters Slack's mrkdwn reads as markup.
func mrkdwn(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
