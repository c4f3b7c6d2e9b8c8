package retry

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/model"
)

// answer is a 200 with successful:false whose data carries upstream (0: no status) and whose
// error is text.
func answer(text string, upstream int) (model.ToolResult, error) {
	data := json.RawMessage(`{}`)
	if upstream != 0 {
		data, _ = json.Marshal(map[string]int{"status": upstream})
	}
	return model.ToolResult{Error: text, LogID: "log_1", Data: data},
		&client.WriteError{Kind: client.WriteAmbiguous, Sent: true, StatusCode: 200, ToolError: text}
}

// A write's own answer frees the claim (failed) only on a structured status that proves a
// refusal; free text never does, and a text that names a timeout, a gateway, a dropped
// connection or an unknown state keeps the attempt indeterminate whatever else it says (issue
// 27.1: texts holding a "never sent" word were matched before their timeout, and sent twice).
func TestSettleFreesTheClaimOnlyOnProof(t *testing.T) {
	status := func(kind client.WriteErrorKind, code int) (model.ToolResult, error) {
		return model.ToolResult{}, &client.WriteError{Kind: kind, Sent: true, StatusCode: code}
	}
	type c struct {
		name string
		tr   model.ToolResult
		err  error
		want model.AttemptState
	}
	cases := []c{
		{"no text in a 200", model.ToolResult{}, &client.WriteError{Kind: client.WriteAmbiguous, Sent: true, StatusCode: 200}, model.AttemptIndeterminate},
		{"Composio 429", first(status(client.WriteRejected, 429)), second(status(client.WriteRejected, 429)), model.AttemptFailed},
		{"Composio 400", first(status(client.WriteFailed, 400)), second(status(client.WriteFailed, 400)), model.AttemptFailed},
		{"Composio 504", first(status(client.WriteAmbiguous, 504)), second(status(client.WriteAmbiguous, 504)), model.AttemptIndeterminate},
		{"Composio 409", first(status(client.WriteAmbiguous, 409)), second(status(client.WriteAmbiguous, 409)), model.AttemptIndeterminate},
		{"Composio 303", first(status(client.WriteAmbiguous, 303)), second(status(client.WriteAmbiguous, 303)), model.AttemptIndeterminate},
		{"not sent", model.ToolResult{}, &client.WriteError{Kind: client.WriteNotSent}, model.AttemptFailed},
		{"some other error", model.ToolResult{}, errors.New("boom"), model.AttemptIndeterminate},
		{"success", model.ToolResult{Successful: true, LogID: "log_2"}, nil, model.AttemptSucceeded},
	}
	// structured upstream statuses
	for _, tt := range []struct {
		text     string
		upstream int
		want     model.AttemptState
	}{
		{"Invalid recipient email", 400, model.AttemptFailed},
		{"Thread not found", 404, model.AttemptFailed},
		{"provider answered 401 Unauthorized", 401, model.AttemptFailed},
		{"User-rate limit exceeded", 429, model.AttemptFailed},
		{"Bad Gateway", 502, model.AttemptIndeterminate},
		{"Invalid recipient; request timed out", 400, model.AttemptIndeterminate},
		{"not found (the message may have been sent)", 404, model.AttemptIndeterminate},
		{"Conflict", 409, model.AttemptIndeterminate},
	} {
		tr, err := answer(tt.text, tt.upstream)
		cases = append(cases, c{tt.text, tr, err, tt.want})
	}
	// free text: never failed, whatever it says
	for _, text := range []string{
		"Invalid recipient email",
		"Thread not found",
		"provider answered 401 Unauthorized",
		"rate limit exceeded",
		"Request timed out after 60000ms waiting for the provider",
		"Upstream provider returned 502 Bad Gateway",
		"socket hang up",
		"Something went wrong",
		"x509 certificate has expired on the callback host; the email was sent",
		"Request timed out after 60000ms while uploading certificate.pdf",
		"connection refused by the webhook after Gmail accepted the message",
		"getaddrinfo ENOTFOUND hooks.internal (email queued)",
		"DNS lookup of the audit host failed; delivery in progress",
		"not sent to the CRM: the Gmail send timed out",
		"unreachable status page; 504 from Gmail",
		"TLS handshake with the tracker failed, message delivered",
		"certificate verify failed",
		"connection refused",
		"the request was not sent",
		"ECONNREFUSED 10.0.0.4:443",
		"too many requests",
	} {
		tr, err := answer(text, 0)
		cases = append(cases, c{"free text: " + text, tr, err, model.AttemptIndeterminate})
	}
	for _, tt := range cases {
		got, _, detail := settle("GMAIL_SEND_EMAIL", model.KindWrite, tt.tr, tt.err)
		if got != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.name, got, detail, tt.want)
		}
	}
}

// FuzzAnswerTextNeverFreesTheClaim: whatever a 200 with successful:false says, its text alone
// never makes the attempt failed; and with a structured refusal status, a text that names a
// timeout, a gateway error or a dropped connection still keeps it indeterminate.
func FuzzAnswerTextNeverFreesTheClaim(f *testing.F) {
	words := []string{"x509", "certificate", "unreachable", "connection refused", "dns", "getaddrinfo", "not sent",
		"invalid", "not found", "rate limit", "unauthorized", "timed out", "timeout", "504", "bad gateway", "socket hang up",
		"the email was sent", "accepted", "validation error", "ECONNRESET"}
	for i, w := range words {
		f.Add(w+" "+words[(i*7+3)%len(words)], 0)
		f.Add(strings.ToUpper(w), 400)
	}
	f.Fuzz(func(t *testing.T, text string, upstream int) {
		tr, err := answer(text, 0)
		if got, _, detail := settle("GMAIL_SEND_EMAIL", model.KindWrite, tr, err); got != model.AttemptIndeterminate {
			t.Fatalf("free text %q settled %s (%s)", text, got, detail)
		}
		// a timeout, a gateway error or a dropped connection named anywhere keeps it open, whatever
		// else the text says and whatever the status
		for _, named := range []string{"Request timed out after 60000ms: " + text, text + " (504 Gateway Timeout)", text + "; socket hang up"} {
			for _, code := range []int{400, 401, 403, 404, 422, 429, upstream} {
				tr, err := answer(named, code)
				if got, _, detail := settle("GMAIL_SEND_EMAIL", model.KindWrite, tr, err); got == model.AttemptFailed {
					t.Fatalf("%q with status %d settled failed (%s)", named, code, detail)
				}
			}
		}
	})
}

func first(tr model.ToolResult, _ error) model.ToolResult { return tr }
func second(_ model.ToolResult, err error) error          { return err }
