package model

import (
	"bytes"
	"cmp"
	"encoding/json"
)

// ErrorBody is an error sent as a JSON object, read as Composio writes one ({"error": {"message",
// "code", "slug", "request_id", "suggested_fix", "errors"}}) and as frameworks and providers do
// ({"error": "channel_not_found"}, {"message": ...}, {"detail": ...}, GraphQL's {"errors":
// [{"message": ...}]}).
type ErrorBody struct {
	// Message is what a person reads first: the error's own string, else its (or the body's)
	// message, detail or error_description; "" when the body says none.
	Message string
	// Details are the messages of its errors list, in order.
	Details []string
	// Fields are the members of the object the message is read from (the error object, or the
	// body itself): code, slug, request_id, suggested_fix.
	Fields map[string]json.RawMessage
}

// ReadErrorBody reads body as an error object; ok is false when it is not a JSON object.
func ReadErrorBody(body []byte) (eb ErrorBody, ok bool) {
	top := JSONObject(body)
	if top == nil {
		return eb, false
	}
	eb.Fields = top
	if raw, has := top["error"]; has {
		if inner := JSONObject(raw); inner != nil {
			eb.Fields = inner
		} else {
			eb.Message = JSONText(raw) // {"error": "..."}
		}
	}
	eb.Message = cmp.Or(eb.Message, FirstJSONText(eb.Fields, "message", "detail", "error_description"))
	var items []json.RawMessage
	if json.Unmarshal(eb.Fields["errors"], &items) == nil {
		for _, it := range items {
			if s := cmp.Or(JSONText(it), FirstJSONText(JSONObject(it), "message", "msg")); s != "" {
				eb.Details = append(eb.Details, s)
			}
		}
	}
	return eb, true
}

// JSONText reads a JSON string, number or bool as text; anything else is "".
func JSONText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if json.Valid(raw) {
			return string(raw)
		}
	}
	return ""
}

// JSONObject is raw's members when it is a JSON object, else nil.
func JSONObject(raw json.RawMessage) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// FirstJSONText is the first non-empty text among keys of m.
func FirstJSONText(m map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		if s := JSONText(m[k]); s != "" {
			return s
		}
	}
	return ""
}
