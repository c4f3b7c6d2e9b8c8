package sandbox

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/exectriage/exectriage/model"
)

// addEvents adds to the history the records of other types the logs carry beside tool
// executions (docs/platform.md, "Logs API"): a connected_account.created for each account made in
// the span, and a trigger.message (a Gmail new-message trigger delivered to the app) for about
// one Gmail execution in twenty. exectriage must show them and never take them for writes.
func (s *Server) addEvents() {
	var add []*model.Execution
	start := s.cfg.Now.Add(-s.cfg.Span)
	for _, a := range s.w.accounts {
		if a.created.Before(start) || a.created.After(s.cfg.Now) {
			continue
		}
		add = append(add, s.accountEvent(a, a.created))
	}
	// an account made while the sandbox serves is logged as it is made
	s.w.accountMade = func(a *account) {
		e := s.accountEvent(a, s.clock())
		i := sort.Search(len(s.logs), func(i int) bool { return !logLess(s.logs[i], e) })
		s.logs = slices.Insert(s.logs, i, e)
		s.byID[e.ID] = e
	}
	n := 0
	for _, e := range s.logs {
		if e.ToolkitSlug != "gmail" {
			continue
		}
		if n++; n%20 != 0 {
			continue
		}
		add = append(add, &model.Execution{ID: s.w.ids.logID(), Type: model.TypeTriggerMessage,
			Timestamp: e.Timestamp.Add(-1500 * time.Millisecond).Truncate(time.Millisecond), ToolSlug: "GMAIL_NEW_GMAIL_MESSAGE",
			ToolkitSlug: "gmail", UserID: e.UserID, ConnectedAccountID: e.ConnectedAccountID, Status: model.StatusSuccess, Level: "info",
			Message: "Trigger GMAIL_NEW_GMAIL_MESSAGE delivered", RetryCount: -1, Detailed: true,
			Delivery: &model.Delivery{EventID: "msg_" + s.w.ids.hex(16), Attempt: 1, TriggerID: "ti_" + s.w.ids.hex(10)}})
	}
	s.logs = append(s.logs, add...)
	sort.Slice(s.logs, func(i, j int) bool { return logLess(s.logs[i], s.logs[j]) })
	s.logs = slices.Clip(s.logs)
	for _, e := range add {
		s.byID[e.ID] = e
	}
}

// accountEvent is the connected_account.created record of a, made at.
func (s *Server) accountEvent(a *account, at time.Time) *model.Execution {
	return &model.Execution{ID: s.w.ids.logID(), Type: model.TypeAccountCreated, Timestamp: at.Truncate(time.Millisecond),
		ToolkitSlug: a.toolkit, UserID: a.userID, ConnectedAccountID: a.id, Status: model.StatusSuccess, Level: "info",
		Message: "Connected account " + a.id + " created", RetryCount: -1, Detailed: true}
}

// The trigger logs (POST /api/v3.1/internal/trigger/logs, GET .../internal/trigger/log/{id}),
// in the shape @composio/client 2.0.0-rc.6 types: each delivery with its connection, entity
// (the user), status, app and a meta object whose triggerClientPayload (a JSON string) carries
// the event's id, the webhook-id of every delivery of it; triggerClientError says why a
// delivery failed. The attempt is not in the logs (only in the webhook's headers).

// triggerLogsRequest is the trigger logs' body (every key the client's types name).
type triggerLogsRequest struct {
	From           *float64 `json:"from"`
	To             *float64 `json:"to"`
	Limit          *float64 `json:"limit"`
	Cursor         *string  `json:"cursor"`
	IncludePayload *bool    `json:"include_payload"`
	UserID         string   `json:"userId"`
	EntityID       string   `json:"entityId"`
	Status         string   `json:"status"`
}

var triggerLogsKeys = []string{
	"time",
	"from",
	"to",
	"status",
	"search",
	"integrationId",
	"entityId",
	"userId",
	"limit",
	"cursor",
	"search_params",
	"include_payload",
}

// MaxTriggerLogsLimit is the largest page of trigger logs served.
const MaxTriggerLogsLimit = 100

func (s *Server) handleTriggerLogs(w http.ResponseWriter, r *http.Request) {
	var req triggerLogsRequest
	body, ok := s.readJSON(w, r, &req)
	if !ok || s.refuseUnknownKeys(w, r, body, triggerLogsKeys...) {
		return
	}
	bad := func(msg string) {
		s.writeError(
			w,
			r,
			http.StatusBadRequest,
			1400,
			"TriggerLogs_InvalidQuery",
			msg,
			"limit 1-100; from and to in epoch milliseconds; cursor as returned in nextCursor.",
		)
	}
	limit := 20
	if req.Limit != nil {
		l := *req.Limit
		if l < 1 || l > MaxTriggerLogsLimit || l != float64(int(l)) {
			bad(fmt.Sprintf("limit must be an integer from 1 to %d", MaxTriggerLogsLimit))
			return
		}
		limit = int(l)
	}
	pageNo := 0
	if req.Cursor != nil && *req.Cursor != "" {
		n, err := strconv.Atoi(*req.Cursor)
		if err != nil || n < 0 {
			bad("cursor: not a cursor this endpoint gave")
			return
		}
		pageNo = n
	}
	var from, to time.Time
	if req.From != nil {
		from = time.UnixMilli(int64(*req.From))
	}
	if req.To != nil {
		to = time.UnixMilli(int64(*req.To))
	}
	user := req.UserID
	user = cmp.Or(user, req.EntityID)
	payload := req.IncludePayload == nil || *req.IncludePayload
	s.mu.Lock()
	var all []*model.Execution
	for i := len(s.logs) - 1; i >= 0; i-- { // newest first
		e := s.logs[i]
		if e.Type != model.TypeTriggerMessage || e.Delivery == nil ||
			!from.IsZero() && e.Timestamp.Before(from) || !to.IsZero() && e.Timestamp.After(to) || user != "" && e.UserID != user ||
			req.Status == "success" && e.Status != model.StatusSuccess || req.Status == "error" && e.Status == model.StatusSuccess {
			continue
		}
		all = append(all, e)
	}
	data := []map[string]any{}
	lo := min(pageNo*limit, len(all))
	hi := min(lo+limit, len(all))
	for _, e := range all[lo:hi] {
		data = append(data, triggerLog(e, payload))
	}
	s.mu.Unlock()
	var next any
	if hi < len(all) {
		next = strconv.Itoa(pageNo + 1)
	}
	writeJSON(w, http.StatusOK, map[string]any{"nextCursor": next, "data": data})
}

func (s *Server) handleTriggerLog(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	e := s.byID[id]
	var rec map[string]any
	if e != nil && e.Type == model.TypeTriggerMessage && e.Delivery != nil {
		rec = triggerLog(e, true)
	}
	s.mu.Unlock()
	if rec == nil {
		s.writeError(
			w,
			r,
			http.StatusNotFound,
			1404,
			"TriggerLog_NotFound",
			"No trigger log with id "+id,
			"Check the id from the trigger logs list.",
		)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"log": rec})
}

// triggerLog is one delivery in the trigger logs' shape.
func triggerLog(e *model.Execution, payload bool) map[string]any {
	d := e.Delivery
	at := e.Timestamp.UTC().Format(model.WireTime)
	status := "success"
	if e.Status != model.StatusSuccess {
		status = "error"
	}
	meta := map[string]any{"id": e.ID, "type": "trigger", "createdAt": at, "updatedAt": at, "provider": e.ToolkitSlug,
		"clientId": "client_sandbox", "connectionId": e.ConnectedAccountID, "triggerName": e.ToolSlug,
		"triggerId": d.TriggerID, "triggerNanoId": d.TriggerID}
	if d.Error != "" {
		meta["triggerClientError"] = d.Error
	}
	if payload {
		client, _ := json.Marshal(map[string]any{"id": d.EventID, "type": "composio.trigger.message", "timestamp": at,
			"metadata": map[string]any{
				"trigger_slug":         e.ToolSlug,
				"trigger_id":           d.TriggerID,
				"connected_account_id": e.ConnectedAccountID,
				"user_id":              e.UserID,
			},
			"data": map[string]any{"message_id": d.EventID}})
		provider, _ := json.Marshal(map[string]any{"historyId": d.EventID, "emailAddress": e.UserID})
		meta["triggerClientPayload"], meta["triggerProviderPayload"] = string(client), string(provider)
		if d.Error == "" {
			meta["triggerClientResponse"] = `{"status":200}`
		}
	}
	return map[string]any{"id": e.ID, "connectionId": e.ConnectedAccountID, "clientId": "client_sandbox", "entityId": e.UserID,
		"status": status, "appName": e.ToolkitSlug, "createdAt": at, "type": "trigger", "meta": meta}
}
