package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Webhook deliveries, as the platform makes them (docs/platform.md, "Triggers and webhooks"):
// an app registers an endpoint (POST /api/v3.1/webhook_endpoints) and each trigger event is
// POSTed to it with the headers webhook-id (the event's id, the same on every delivery of it),
// webhook-timestamp, webhook-signature (Standard Webhooks: "v1," and the base64 HMAC-SHA256 of
// "id.timestamp.body" under the endpoint's secret), x-composio-webhook-version and
// x-composio-delivery-attempt. Delivery is at least once: an answer other than 2xx, or none
// within WebhookTimeout, is delivered again after RedeliveryDelay, up to MaxDeliveryAttempts;
// each delivery is a trigger.message record in the logs. POST /_sandbox/triggers/fire fires an
// event, so that an app's handler can be tested against redeliveries. The sandbox delivers to
// loopback addresses only.

// Defaults of the webhook deliveries (Config's fields when 0).
const (
	DefaultWebhookTimeout      = 5 * time.Second
	DefaultRedeliveryDelay     = time.Second
	DefaultMaxDeliveryAttempts = 3
)

type webhookEndpoint struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Secret string `json:"secret"`
}

// loopbackURL reports whether u is an http(s) URL on this machine.
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return false
	}
	h := p.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// handleWebhookEndpoints registers an endpoint (POST {"url"}) or lists them (GET).
func (s *Server) handleWebhookEndpoints(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.mu.Lock()
		list := append([]webhookEndpoint{}, s.webhooks...)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"items": list})
		return
	}
	var req struct {
		URL string `json:"url"`
	}
	if _, ok := s.readJSON(w, r, &req); !ok {
		return
	}
	if !loopbackURL(req.URL) {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"WebhookEndpoint_InvalidURL",
			fmt.Sprintf("%q is not an http(s) address on this machine", req.URL),
			"The sandbox delivers webhooks to loopback addresses only (http://127.0.0.1:PORT/...).",
		)
		return
	}
	// a fault armed for WebhookEndpointCreate (and only one named so) applies as to a tool
	fault, _ := s.takeMatching(func(r FaultRule) bool { return r.ToolSlug == WebhookEndpointCreate })
	switch fault.Mode {
	case Fault5xxBeforeCommit:
		s.writeError(
			w,
			r,
			orDefault(fault.HTTPStatus, http.StatusServiceUnavailable),
			1503,
			"WebhookEndpoint_Unavailable",
			"the service is unavailable",
			"Retry later.",
		)
		return
	case FaultTimeoutBeforeCommit:
		s.holdThenAbort(w, r, fault, func(time.Duration) {})
		return
	}
	s.mu.Lock()
	ep := webhookEndpoint{
		ID:     "we_" + s.w.ids.hex(12),
		URL:    req.URL,
		Secret: "whsec_" + base64.StdEncoding.EncodeToString([]byte(s.w.ids.hex(24))),
	}
	s.webhooks = append(s.webhooks, ep)
	s.mu.Unlock()
	switch fault.Mode { // created: the caller may not learn it, and a retrying client creates another
	case Fault5xxAfterCommit:
		s.writeError(
			w,
			r,
			orDefault(fault.HTTPStatus, http.StatusBadGateway),
			1502,
			"WebhookEndpoint_UpstreamError",
			"bad gateway",
			"Retry later.",
		)
	case FaultTimeoutAfterCommit:
		s.holdThenAbort(w, r, fault, func(time.Duration) {})
	default:
		writeJSON(w, http.StatusCreated, ep)
	}
}

// WebhookEndpointCreate is the name a fault is armed under for POST /webhook_endpoints
// (5xx and timeout, before or after the endpoint is made): what makes a retrying client's
// create leave a second endpoint for one URL.
const WebhookEndpointCreate = "WEBHOOK_ENDPOINTS_CREATE"

// fireRequest is POST /_sandbox/triggers/fire's body.
type fireRequest struct {
	UserID             string          `json:"user_id"`
	ConnectedAccountID string          `json:"connected_account_id"`
	TriggerSlug        string          `json:"trigger_slug"`
	Payload            json.RawMessage `json:"payload"`
}

// FiredDelivery is one delivery of a fired event: its log record, attempt and the answer.
type FiredDelivery struct {
	LogID   string `json:"log_id"`
	Attempt int    `json:"attempt"`
	Status  int    `json:"status"` // the handler's HTTP status, 0 for none
	Error   string `json:"error,omitempty"`
}

// handleFire fires one trigger event and delivers it to every endpoint until each answers
// 2xx or the attempts run out; it answers with the deliveries once they are done.
func (s *Server) handleFire(w http.ResponseWriter, r *http.Request) {
	var req fireRequest
	if _, ok := s.readJSON(w, r, &req); !ok {
		return
	}
	if req.UserID == "" {
		s.writeError(w, r, http.StatusBadRequest, 1400, "Trigger_MissingUser", "user_id is required", "Name the user whose trigger fires.")
		return
	}
	req.TriggerSlug = cmp.Or(req.TriggerSlug, "GMAIL_NEW_GMAIL_MESSAGE")
	if len(req.Payload) == 0 {
		req.Payload = json.RawMessage(`{}`)
	}
	s.mu.Lock()
	eps := append([]webhookEndpoint{}, s.webhooks...)
	event := "msg_" + s.w.ids.hex(16)
	trigger := "ti_" + s.w.ids.hex(10)
	s.mu.Unlock()
	if len(eps) == 0 {
		s.writeError(
			w,
			r,
			http.StatusConflict,
			1409,
			"Trigger_NoEndpoint",
			"no webhook endpoint is registered",
			"POST /api/v3.1/webhook_endpoints {\"url\": ...} first.",
		)
		return
	}
	body, _ := json.Marshal(map[string]any{"id": event, "type": "composio.trigger.message", "metadata": map[string]any{
		"trigger_slug": req.TriggerSlug, "trigger_id": trigger, "user_id": req.UserID, "connected_account_id": req.ConnectedAccountID},
		"data": req.Payload})
	var out []FiredDelivery
	for _, ep := range eps {
		out = append(out, s.deliver(r.Context(), ep, event, trigger, req, body)...)
	}
	writeJSON(w, http.StatusOK, map[string]any{"event_id": event, "deliveries": out})
}

// deliver delivers one event to one endpoint, again after each failure.
func (s *Server) deliver(ctx context.Context, ep webhookEndpoint, event, trigger string, req fireRequest, body []byte) []FiredDelivery {
	var out []FiredDelivery
	for attempt := 1; attempt <= cmp.Or(s.cfg.MaxDeliveryAttempts, DefaultMaxDeliveryAttempts); attempt++ {
		if attempt > 1 && !sleepCtx(ctx, cmp.Or(s.cfg.RedeliveryDelay, DefaultRedeliveryDelay), s.closing) {
			break
		}
		at := s.clock()
		d := FiredDelivery{Attempt: attempt}
		d.Status, d.Error = s.post(ctx, ep, event, attempt, body)
		e := &model.Execution{Type: model.TypeTriggerMessage, Timestamp: at.Truncate(time.Millisecond), ToolSlug: req.TriggerSlug,
			ToolkitSlug: strings.ToLower(
				strings.SplitN(req.TriggerSlug, "_", 2)[0],
			), UserID: req.UserID, ConnectedAccountID: req.ConnectedAccountID,
			Status: model.StatusSuccess, Level: "info", Message: "Trigger " + req.TriggerSlug + " delivered", RetryCount: -1,
			Detailed: true,
			Delivery: &model.Delivery{EventID: event, Attempt: attempt, TriggerID: trigger, Error: d.Error, EndpointID: ep.ID}}
		if d.Error != "" {
			e.Status, e.Level, e.Message = model.StatusFailed, "error", "Trigger "+req.TriggerSlug+" delivery failed: "+d.Error
		}
		s.mu.Lock()
		e.ID = s.w.ids.logID()
		s.addLog(e)
		s.mu.Unlock()
		d.LogID = e.ID
		out = append(out, d)
		if d.Error == "" {
			break
		}
	}
	return out
}

// post makes one delivery: the handler's status, and why it failed ("" when it answered 2xx).
func (s *Server) post(ctx context.Context, ep webhookEndpoint, event string, attempt int, body []byte) (int, string) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(s.cfg.WebhookTimeout, DefaultWebhookTimeout))
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	ts := strconv.FormatInt(s.clock().Unix(), 10)
	hr.Header.Set("content-type", "application/json")
	hr.Header.Set("webhook-id", event)
	hr.Header.Set("webhook-timestamp", ts)
	hr.Header.Set("webhook-signature", WebhookSignature(ep.Secret, event, ts, body))
	hr.Header.Set("x-composio-webhook-version", "V3")
	hr.Header.Set("x-composio-delivery-attempt", strconv.Itoa(attempt))
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Sprintf("no answer within %s", cmp.Or(s.cfg.WebhookTimeout, DefaultWebhookTimeout))
		}
		return 0, "could not deliver: " + err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Sprintf("the handler answered %d", resp.StatusCode)
	}
	return resp.StatusCode, ""
}

// WebhookSignature is the webhook-signature header of a delivery (Standard Webhooks): "v1,"
// and the base64 HMAC-SHA256 of "id.timestamp.body" under the secret (its whsec_ prefix off and
// the rest base64-decoded, as the standard's libraries read it).
func WebhookSignature(secret, id, timestamp string, body []byte) string {
	key := []byte(secret)
	if k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_")); err == nil {
		key = k
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
