package retry

import (
	"errors"
	"testing"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
)

// A write's own answer is read with the rules that read logs: only a definite refusal frees
// the claim (failed); a timeout, a 5xx, a dropped connection or text no rule knows inside a
// 200 leaves the attempt indeterminate.
func TestSettleReadsTheAnswerLikeALog(t *testing.T) {
	tool := func(text string) (model.ToolResult, error) {
		return model.ToolResult{Error: text, LogID: "log_1"},
			&client.WriteError{Kind: client.WriteAmbiguous, Sent: true, StatusCode: 200, ToolError: text}
	}
	status := func(kind client.WriteErrorKind, code int) (model.ToolResult, error) {
		return model.ToolResult{}, &client.WriteError{Kind: kind, Sent: true, StatusCode: code}
	}
	for _, tt := range []struct {
		name string
		tr   model.ToolResult
		err  error
		want model.AttemptState
	}{
		{"provider timeout in a 200", first(tool("Request timed out after 60000ms waiting for the provider")), second(tool("Request timed out after 60000ms waiting for the provider")), model.AttemptIndeterminate},
		{"provider 5xx in a 200", first(tool("Upstream provider returned 502 Bad Gateway")), second(tool("Upstream provider returned 502 Bad Gateway")), model.AttemptIndeterminate},
		{"connection reset in a 200", first(tool("socket hang up")), second(tool("socket hang up")), model.AttemptIndeterminate},
		{"unknown text in a 200", first(tool("Something went wrong")), second(tool("Something went wrong")), model.AttemptIndeterminate},
		{"no text in a 200", model.ToolResult{}, &client.WriteError{Kind: client.WriteAmbiguous, Sent: true, StatusCode: 200}, model.AttemptIndeterminate},
		{"validation in a 200", first(tool("Invalid recipient email")), second(tool("Invalid recipient email")), model.AttemptFailed},
		{"not found in a 200", first(tool("Thread not found")), second(tool("Thread not found")), model.AttemptFailed},
		{"provider 401 in a 200", first(tool("provider answered 401 Unauthorized")), second(tool("provider answered 401 Unauthorized")), model.AttemptFailed},
		{"provider rate limit in a 200", first(tool("rate limit exceeded")), second(tool("rate limit exceeded")), model.AttemptFailed},
		{"Composio 429", first(status(client.WriteRejected, 429)), second(status(client.WriteRejected, 429)), model.AttemptFailed},
		{"Composio 400", first(status(client.WriteFailed, 400)), second(status(client.WriteFailed, 400)), model.AttemptFailed},
		{"Composio 504", first(status(client.WriteAmbiguous, 504)), second(status(client.WriteAmbiguous, 504)), model.AttemptIndeterminate},
		{"Composio 409", first(status(client.WriteAmbiguous, 409)), second(status(client.WriteAmbiguous, 409)), model.AttemptIndeterminate},
		{"Composio 303", first(status(client.WriteAmbiguous, 303)), second(status(client.WriteAmbiguous, 303)), model.AttemptIndeterminate},
		{"not sent", model.ToolResult{}, &client.WriteError{Kind: client.WriteNotSent}, model.AttemptFailed},
		{"some other error", model.ToolResult{}, errors.New("boom"), model.AttemptIndeterminate},
		{"success", model.ToolResult{Successful: true, LogID: "log_2"}, nil, model.AttemptSucceeded},
	} {
		got, _, detail := settle("GMAIL_SEND_EMAIL", model.KindWrite, tt.tr, tt.err)
		if got != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.name, got, detail, tt.want)
		}
	}
}

func first(tr model.ToolResult, _ error) model.ToolResult { return tr }
func second(_ model.ToolResult, err error) error          { return err }
