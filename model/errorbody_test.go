package model

import (
	"slices"
	"testing"
)

// One reading of an error body serves the client's API errors and the triage's quotes.
func TestReadErrorBody(t *testing.T) {
	tests := []struct {
		body, message, slug string
		details             []string
		ok                  bool
	}{
		{`{"error":{"message":"Connected account not found","slug":"ConnectedAccount_NotFound","errors":["to is required"]}}`,
			"Connected account not found", "ConnectedAccount_NotFound", []string{"to is required"}, true},
		{`{"error":"channel_not_found","ok":false}`, "channel_not_found", "", nil, true},
		{`{"detail":"Not authenticated"}`, "Not authenticated", "", nil, true},
		{`{"errors":[{"message":"Variable $input was not provided."}]}`, "", "", []string{"Variable $input was not provided."}, true},
		{`{"error":{"code":500}}`, "", "", nil, true},
		{`[1,2]`, "", "", nil, false},
		{`not json`, "", "", nil, false},
	}
	for _, tt := range tests {
		eb, ok := ReadErrorBody([]byte(tt.body))
		if ok != tt.ok || eb.Message != tt.message || JSONText(eb.Fields["slug"]) != tt.slug || !slices.Equal(eb.Details, tt.details) {
			t.Errorf("%s: %v %q %q %q, want %v %q %q %q", tt.body, ok, eb.Message, JSONText(eb.Fields["slug"]), eb.Details,
				tt.ok, tt.message, tt.slug, tt.details)
		}
	}
}
