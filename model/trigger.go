package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The trigger logs (POST /api/v3.1/internal/trigger/logs; @composio/client 2.0.0-rc.6's
// types): each delivery of a trigger's event to the app. exectriage reads them as records of
// type trigger.message carrying their Delivery: the event's id (triggerClientPayload's id,
// which the webhook-id header repeats on every delivery of the event), the trigger instance
// (triggerNanoId) and the handler's error (triggerClientError). The logs do not say the
// attempt: NumberAttempts counts the deliveries of each event in time order.

// TriggerLogsPage is one page of the trigger logs.
type TriggerLogsPage struct {
	Deliveries []Execution
	NextCursor string // "" at the end
	Bad        []RecordError
}

// ParseTriggerLogsPage reads a page ({nextCursor, data: [...]}); an entry that cannot be read
// is listed in Bad.
func ParseTriggerLogsPage(data []byte) (TriggerLogsPage, error) {
	var p struct {
		NextCursor *string           `json:"nextCursor"`
		Data       []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return TriggerLogsPage{}, fmt.Errorf("trigger logs page: %w", err)
	}
	var out TriggerLogsPage
	if p.NextCursor != nil {
		out.NextCursor = strings.TrimSpace(*p.NextCursor)
	}
	for i, raw := range p.Data {
		e, err := ParseTriggerLog(raw)
		if err != nil {
			out.Bad = append(out.Bad, RecordError{Index: i, Err: err})
			continue
		}
		out.Deliveries = append(out.Deliveries, e)
	}
	return out, nil
}

// ParseTriggerLog reads one trigger log entry (or the {log: ...} of GET .../trigger/log/{id}).
// Only an entry without an id is an error; a field of the wrong type is left out.
func ParseTriggerLog(data []byte) (Execution, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return Execution{}, ErrNotObject
	}
	var wrapped struct {
		Log json.RawMessage `json:"log"`
	}
	if decodeLenient(data, &wrapped) == nil && isObject(wrapped.Log) {
		data = wrapped.Log
	}
	var l struct {
		ID           flexString      `json:"id"`
		ConnectionID flexString      `json:"connectionId"`
		EntityID     flexString      `json:"entityId"`
		Status       flexString      `json:"status"`
		AppName      flexString      `json:"appName"`
		CreatedAt    flexTime        `json:"createdAt"`
		Meta         json.RawMessage `json:"meta"`
	}
	if err := decodeLenient(data, &l); err != nil {
		return Execution{}, err
	}
	if l.ID == "" {
		return Execution{}, ErrNoID
	}
	e := Execution{
		ID:                 string(l.ID),
		Type:               TypeTriggerMessage,
		Timestamp:          time.Time(l.CreatedAt),
		ToolkitSlug:        strings.ToLower(string(l.AppName)),
		UserID:             string(l.EntityID),
		ConnectedAccountID: string(l.ConnectionID),
		Level:              "info",
		RetryCount:         -1,
		Detailed:           true,
	}
	switch strings.ToLower(string(l.Status)) {
	case "success", "succeeded", "delivered":
		e.Status = StatusSuccess
	case "":
	default:
		e.Status = StatusFailed
	}
	d := Delivery{}
	if isObject(l.Meta) {
		var m struct {
			TriggerName          flexString `json:"triggerName"`
			TriggerID            flexString `json:"triggerId"`
			TriggerNanoID        flexString `json:"triggerNanoId"`
			TriggerClientError   flexString `json:"triggerClientError"`
			TriggerClientPayload flexString `json:"triggerClientPayload"`
			ConnectionID         flexString `json:"connectionId"`
		}
		_ = decodeLenient(l.Meta, &m)
		e.ToolSlug = string(m.TriggerName)
		e.ConnectedAccountID = first(e.ConnectedAccountID, string(m.ConnectionID))
		d.TriggerID = first(string(m.TriggerNanoID), string(m.TriggerID))
		d.Error = string(m.TriggerClientError)
		var payload struct {
			ID flexString `json:"id"`
		}
		if p := []byte(m.TriggerClientPayload); isObject(p) {
			_ = decodeLenient(p, &payload)
			d.EventID = string(payload.ID)
		}
	}
	if d.Error != "" && e.Status == "" {
		e.Status = StatusFailed
	}
	e.Message = "Trigger " + first(e.ToolSlug, "delivery") + " delivered"
	if e.Status == StatusFailed {
		e.Message = "Trigger " + first(e.ToolSlug, "delivery") + " delivery failed"
		if d.Error != "" {
			e.Message += ": " + d.Error
		}
	}
	if d != (Delivery{}) {
		e.Delivery = &d
	}
	return e, nil
}

// NumberAttempts sets each delivery's Attempt where the log did not say it (the trigger logs
// do not), from the deliveries of one event (its EventID) in time order. Composio delivers an
// event again only after a delivery of it failed: a delivery after a failed one is the next
// attempt; one after a delivery that succeeded is not a redelivery but a delivery to another
// endpoint (or subscription) of the project, and counts as an attempt 1 of its own.
func NumberAttempts(deliveries []Execution) {
	byEvent := map[string][]int{}
	for i := range deliveries {
		if d := deliveries[i].Delivery; d != nil && d.EventID != "" {
			byEvent[d.EventID] = append(byEvent[d.EventID], i)
		}
	}
	for _, idx := range byEvent {
		slices.SortFunc(idx, func(a, b int) int {
			if c := deliveries[a].Timestamp.Compare(deliveries[b].Timestamp); c != 0 {
				return c
			}
			return strings.Compare(deliveries[a].ID, deliveries[b].ID)
		})
		failed := 0 // the attempts so far of the chain whose last delivery failed (0: none open)
		for _, i := range idx {
			d := *deliveries[i].Delivery
			if d.Attempt == 0 {
				d.Attempt = failed + 1
				deliveries[i].Delivery = &d
			}
			if deliveries[i].Status == StatusFailed {
				failed = d.Attempt
			} else {
				failed = 0
			}
		}
	}
}
