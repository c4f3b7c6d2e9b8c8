package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
)

// call makes one request to the sandbox and decodes its JSON answer into out.
func call(t *testing.T, method, url, key string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("x-api-key", key)
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && json.Unmarshal(raw, out) != nil {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode
}

// TestWebhookRedeliveries: an app registers its handler; a fired trigger event is
// POSTed to it with webhook-id (the event's id), webhook-timestamp, a Standard Webhooks
// signature, the webhook version and x-composio-delivery-attempt; the handler sends a Slack
// message and then answers 500, so the event comes again (attempt 2, the same webhook-id),
// and it sends the message again and answers 200. The logs hold both deliveries (trigger.message
// records, attempts 1 and 2, the first with why it failed) and both writes; triage names the
// writes one trigger_redelivery group linked to both deliveries. Only loopback handlers are
// taken, and a fire without an endpoint is refused.
func TestWebhookRedeliveries(t *testing.T) {
	const key = "k-hooks"
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{APIKey: key, Seed: 4, Size: 50, RedeliveryDelay: 20 * time.Millisecond}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	acct := activeSlackAccount(t, base, key)

	if code := call(t, "POST", base+"/_sandbox/triggers/fire", key, map[string]any{"user_id": acct.UserID}, &map[string]any{}); code != http.StatusConflict {
		t.Errorf("a fire without an endpoint: %d", code)
	}
	if code := call(t, "POST", base+"/api/v3.1/webhook_endpoints", key, map[string]any{"url": "https://example.com/hook"}, &map[string]any{}); code != http.StatusBadRequest {
		t.Errorf("an endpoint off this machine: %d", code)
	}

	type got struct {
		headers http.Header
		body    []byte
	}
	var mu sync.Mutex
	var deliveries []got
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		deliveries = append(deliveries, got{r.Header.Clone(), body})
		n := len(deliveries)
		mu.Unlock()
		// the handler's work: one message, every time it is called
		call(t, "POST", base+"/api/v3.1/tools/execute/SLACK_SEND_MESSAGE", key, map[string]any{"user_id": acct.UserID, "connected_account_id": acct.ID,
			"arguments": map[string]any{"channel": "#orders", "text": "New order from the inbox"}}, &map[string]any{})
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError) // fails after writing: the event comes again
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer handler.Close()
	var ep struct{ ID, URL, Secret string }
	if code := call(t, "POST", base+"/api/v3.1/webhook_endpoints", key, map[string]any{"url": handler.URL + "/hook"}, &ep); code != http.StatusCreated || ep.Secret == "" {
		t.Fatalf("register: %d %+v", code, ep)
	}
	var fired struct {
		EventID    string                  `json:"event_id"`
		Deliveries []sandbox.FiredDelivery `json:"deliveries"`
	}
	if code := call(t, "POST", base+"/_sandbox/triggers/fire", key, map[string]any{"user_id": acct.UserID, "connected_account_id": acct.ID,
		"trigger_slug": "GMAIL_NEW_GMAIL_MESSAGE", "payload": map[string]any{"subject": "order"}}, &fired); code != http.StatusOK {
		t.Fatalf("fire: %d", code)
	}
	if len(fired.Deliveries) != 2 || fired.Deliveries[0].Status != 500 || fired.Deliveries[1].Status != 200 || fired.Deliveries[0].Error == "" {
		t.Fatalf("deliveries %+v", fired.Deliveries)
	}
	if len(deliveries) != 2 {
		t.Fatalf("the handler was called %d times", len(deliveries))
	}
	for i, d := range deliveries {
		h := d.headers
		if h.Get("webhook-id") != fired.EventID || h.Get("x-composio-delivery-attempt") != []string{"1", "2"}[i] || h.Get("x-composio-webhook-version") == "" {
			t.Errorf("delivery %d headers %v", i+1, h)
		}
		if want := sandbox.WebhookSignature(ep.Secret, h.Get("webhook-id"), h.Get("webhook-timestamp"), d.body); h.Get("webhook-signature") != want {
			t.Errorf("delivery %d signature %q, want %q", i+1, h.Get("webhook-signature"), want)
		}
		var payload struct{ ID string }
		if json.Unmarshal(d.body, &payload) != nil || payload.ID != fired.EventID {
			t.Errorf("delivery %d payload %s", i+1, d.body)
		}
	}
	if sandbox.WebhookSignature(ep.Secret+"x", fired.EventID, "1", []byte("{}")) == sandbox.WebhookSignature(ep.Secret, fired.EventID, "1", []byte("{}")) {
		t.Error("the signature does not depend on the secret")
	}

	execs := srv.Executions()
	var dls, writes []string
	for _, e := range execs {
		switch {
		case e.Type == model.TypeTriggerMessage && e.Delivery != nil && e.Delivery.EventID == fired.EventID:
			dls = append(dls, e.ID)
			if e.Delivery.Attempt == 1 && (e.Delivery.Error == "" || e.Status != model.StatusFailed) {
				t.Errorf("the failed delivery's record: %+v", e.Delivery)
			}
		case e.ToolSlug == "SLACK_SEND_MESSAGE" && strings.Contains(string(e.Arguments), "New order from the inbox"):
			writes = append(writes, e.ID)
		}
	}
	if len(dls) != 2 || len(writes) != 2 {
		t.Fatalf("%d deliveries and %d writes in the logs", len(dls), len(writes))
	}
	res := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
	i := slices.IndexFunc(res.Groups, func(g model.DuplicateGroup) bool { return slices.Contains(g.ExecutionIDs, writes[0]) })
	if i < 0 {
		t.Fatal("the handler's two writes are in no group")
	}
	g := res.Groups[i]
	slices.Sort(dls)
	gd := slices.Clone(g.Deliveries)
	slices.Sort(gd)
	if g.Pattern != model.PatternTriggerRedelivery || !slices.Contains(g.ExecutionIDs, writes[1]) || !slices.Equal(gd, dls) {
		t.Errorf("group %s %v deliveries %v, want trigger_redelivery of %v by %v: %s", g.Pattern, g.ExecutionIDs, g.Deliveries, writes, dls, g.Reason)
	}
}

// TestADuplicateSubscription: a webhook endpoint create whose answer is lost after
// the endpoint was made (a 502 after commit), sent again by a retrying client as every SDK's
// default client does, leaves two endpoints for one URL; a fired event then comes to the handler
// twice, each delivery an attempt 1 to its own endpoint, and the handler writes twice. Triage
// names the writes' group duplicate_subscription, with both deliveries and both endpoints.
func TestADuplicateSubscription(t *testing.T) {
	const key = "k-subs"
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{APIKey: key, Seed: 4, Size: 50}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	acct := activeSlackAccount(t, base, key)
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call(t, "POST", base+"/api/v3.1/tools/execute/SLACK_SEND_MESSAGE", key, map[string]any{"user_id": acct.UserID, "connected_account_id": acct.ID,
			"arguments": map[string]any{"channel": "#leads", "text": "New lead: Ada Okafor"}}, &map[string]any{})
		w.WriteHeader(http.StatusOK)
	}))
	defer handler.Close()

	srv.ArmFault(sandbox.FaultRule{ToolSlug: sandbox.WebhookEndpointCreate, Mode: sandbox.Fault5xxAfterCommit, Count: 1})
	var code int
	for range 3 { // the retrying client: again on a 5xx, up to 2 retries
		if code = call(t, "POST", base+"/api/v3.1/webhook_endpoints", key, map[string]any{"url": handler.URL + "/hook"}, &map[string]any{}); code < 500 {
			break
		}
	}
	var eps struct {
		Items []struct{ ID, URL string } `json:"items"`
	}
	call(t, "GET", base+"/api/v3.1/webhook_endpoints", key, nil, &eps)
	if code != http.StatusCreated || len(eps.Items) != 2 || eps.Items[0].URL != eps.Items[1].URL {
		t.Fatalf("a create that got a 502 after it made the endpoint, sent again: %d, endpoints %+v", code, eps.Items)
	}

	var fired struct {
		EventID    string                  `json:"event_id"`
		Deliveries []sandbox.FiredDelivery `json:"deliveries"`
	}
	call(t, "POST", base+"/_sandbox/triggers/fire", key, map[string]any{"user_id": acct.UserID, "connected_account_id": acct.ID}, &fired)
	if len(fired.Deliveries) != 2 || fired.Deliveries[0].Attempt != 1 || fired.Deliveries[1].Attempt != 1 {
		t.Fatalf("deliveries %+v, want two, each attempt 1", fired.Deliveries)
	}
	execs := srv.Executions()
	endpoints := map[string]bool{}
	var writes []string
	for _, e := range execs {
		switch {
		case e.Type == model.TypeTriggerMessage && e.Delivery != nil && e.Delivery.EventID == fired.EventID:
			endpoints[e.Delivery.EndpointID] = true
		case e.ToolSlug == "SLACK_SEND_MESSAGE" && strings.Contains(string(e.Arguments), "Ada Okafor"):
			writes = append(writes, e.ID)
		}
	}
	if len(endpoints) != 2 || endpoints[""] || len(writes) != 2 {
		t.Fatalf("the deliveries' endpoints %v, the handler's writes %v", endpoints, writes)
	}
	res := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
	i := slices.IndexFunc(res.Groups, func(g model.DuplicateGroup) bool { return slices.Contains(g.ExecutionIDs, writes[0]) })
	if i < 0 {
		t.Fatal("the handler's two writes are in no group")
	}
	g := res.Groups[i]
	if g.Pattern != model.PatternDuplicateSubscription || len(g.Deliveries) != 2 || !strings.Contains(g.Reason, eps.Items[0].ID) || !strings.Contains(g.Reason, eps.Items[1].ID) {
		t.Errorf("group %s %v deliveries %v: %s", g.Pattern, g.ExecutionIDs, g.Deliveries, g.Reason)
	}
}

// slackAccount is a connected account as the sandbox lists it.
type slackAccount struct {
	ID     string
	UserID string `json:"user_id"`
}

// activeSlackAccount is the sandbox's first active Slack account.
func activeSlackAccount(t *testing.T, base, key string) slackAccount {
	t.Helper()
	var accts struct {
		Items []slackAccount `json:"items"`
	}
	call(t, "GET", base+"/api/v3.1/connected_accounts?toolkit_slugs=slack&statuses=ACTIVE", key, nil, &accts)
	if len(accts.Items) == 0 {
		t.Fatal("no active Slack account")
	}
	return accts.Items[0]
}
