package client

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Tolerant decoding of the API's JSON: a field of an unexpected type is treated as absent
// rather than failing the whole answer. Log records are parsed by package model.

// texts reads a JSON array of strings, skipping items that are not text.
func texts(raw json.RawMessage) []string {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s := model.JSONText(it); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// objectRaw returns raw when it is a JSON object, else nil.
func objectRaw(raw json.RawMessage) json.RawMessage {
	if model.JSONObject(raw) == nil {
		return nil
	}
	return bytes.TrimSpace(raw)
}

// listPage is the shape of the tools and connected-accounts lists: {items, next_cursor, ...}.
type listPage struct {
	items      []json.RawMessage
	nextCursor string
}

func parseListPage(body []byte) (listPage, error) {
	top := model.JSONObject(body)
	if top == nil {
		return listPage{}, errors.New("list response is not a JSON object")
	}
	var p listPage
	if !isJSONArray(top["items"]) || json.Unmarshal(top["items"], &p.items) != nil {
		return listPage{}, errors.New(`list response has no "items" array`)
	}
	p.nextCursor = model.JSONText(top["next_cursor"])
	return p, nil
}

func isJSONArray(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '['
}

// parseTool reads a tool definition: slug, name, description, toolkit {slug, name},
// input_parameters, output_parameters, version, tags.
func parseTool(raw json.RawMessage) (model.Tool, error) {
	m := model.JSONObject(raw)
	if m == nil {
		return model.Tool{}, errors.New("tool is not a JSON object")
	}
	t := model.Tool{
		Slug:             model.JSONText(m["slug"]),
		Name:             model.JSONText(m["name"]),
		Description:      model.JSONText(m["description"]),
		Version:          model.JSONText(m["version"]),
		Tags:             texts(m["tags"]),
		InputParameters:  objectRaw(m["input_parameters"]),
		OutputParameters: objectRaw(m["output_parameters"]),
	}
	if tk := model.JSONObject(m["toolkit"]); tk != nil {
		t.ToolkitSlug = model.JSONText(tk["slug"])
	} else {
		t.ToolkitSlug = model.JSONText(m["toolkit"]) // tolerate a bare slug
	}
	if len(t.Tags) == 0 {
		t.Tags = nil
	}
	return t, nil
}

// ConnectedAccount is a user's connection to a toolkit, as the connected_accounts endpoints
// describe it. Zero times mean the field was absent or unreadable.
type ConnectedAccount struct {
	ID          string
	UserID      string
	Status      string // ACTIVE, EXPIRED, INACTIVE, FAILED, INITIATED, INITIALIZING, ...
	ToolkitSlug string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func parseAccount(raw json.RawMessage) (ConnectedAccount, error) {
	m := model.JSONObject(raw)
	if m == nil {
		return ConnectedAccount{}, errors.New("connected account is not a JSON object")
	}
	a := ConnectedAccount{
		ID:     model.JSONText(m["id"]),
		UserID: model.JSONText(m["user_id"]),
		Status: model.JSONText(m["status"]),
	}
	if a.ID == "" {
		return ConnectedAccount{}, errors.New("connected account has no id")
	}
	if tk := model.JSONObject(m["toolkit"]); tk != nil {
		a.ToolkitSlug = model.JSONText(tk["slug"])
	}
	a.CreatedAt, _ = model.ParseTime(model.JSONText(m["created_at"]))
	a.UpdatedAt, _ = model.ParseTime(model.JSONText(m["updated_at"]))
	return a, nil
}

// parseToolResult reads the 200 body of tools/execute: {data, error, successful, log_id}. A
// body without a boolean "successful" is an error: it does not say what happened.
func parseToolResult(body []byte) (model.ToolResult, error) {
	m := model.JSONObject(body)
	if m == nil {
		return model.ToolResult{}, fmt.Errorf("tool result is not a JSON object (%d bytes)", len(bytes.TrimSpace(body)))
	}
	var res model.ToolResult
	switch string(bytes.TrimSpace(m["successful"])) {
	case "true":
		res.Successful = true
	case "false":
	default:
		return model.ToolResult{}, errors.New(`tool result has no boolean "successful"`)
	}
	if d := bytes.TrimSpace(m["data"]); len(d) > 0 && string(d) != "null" {
		res.Data = d
	}
	res.Error = model.JSONText(m["error"])
	// Tolerate {"error": {"message": ...}} although the spec says string|null.
	res.Error = cmp.Or(res.Error, model.FirstJSONText(model.JSONObject(m["error"]), "message"))
	res.LogID = model.JSONText(m["log_id"])
	res.ResultType, res.RequestState = model.JSONText(m["result_type"]), model.JSONText(m["request_state"])
	if ir := bytes.TrimSpace(m["input_requests"]); len(ir) > 0 && ir[0] == '[' {
		res.InputRequests = ir
	}
	return res, nil
}
