package triage_test

import (
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// TestWritesOfOtherShapes: pairs written by hand from toolkits the corpus families began with
// none of (Trello, Stripe, HubSpot's properties, Jira's rich text, Linear, Telegram), before the
// rules that read them: a first attempt that timed out and a second 8 s later by one caller.
// An agent's call written anew is one group however its shape changed; another thing (another
// patch, invoice, day) never is.
func TestWritesOfOtherShapes(t *testing.T) {
	tests := []struct {
		name, slug, first, second string
		group                     bool
	}{
		{"a rich-text description, then plain text", "JIRA_CREATE_ISSUE",
			`{"project_key":"OPS","summary":"Checkout fails for order 42609","issue_type":"Bug","description":{"type":"doc","version":1,` +
				`"content":[{"type":"paragraph","content":[{"type":"text","text":"Customer reports checkout fails with error 502 for order 42609 since Monday."}]}]}}`,
			`{"project_key":"OPS","summary":"Checkout fails for order 42609","issue_type":"Bug",` +
				`"description":"Since Monday, checkout for order 42609 fails with a 502 error, the customer says."}`, true},
		{"a wrapper's amount and day retyped", "HUBSPOT_CREATE_DEAL",
			`{"properties":{"dealname":"Acme renewal 2026","amount":"12500","closedate":"2026-03-31"}}`,
			`{"properties":{"dealname":"Acme renewal 2026","amount":12500.0,"closedate":"2026-03-31T00:00:00.000Z"}}`, true},
		{"a note added to a refund", "STRIPE_CREATE_REFUND",
			`{"payment_intent":"pi_3Nx","amount":1250,"reason":"requested_by_customer"}`,
			`{"payment_intent":"pi_3Nx","amount":1250,"reason":"requested_by_customer","metadata":{"note":"duplicate charge"}}`, true},
		{"a note to the payer dropped", "PAYPAL_ISSUE_REFUND",
			`{"capture_id":"2GG2","amount":{"value":"12.50","currency_code":"USD"},"note_to_payer":"Sorry about order 42609"}`,
			`{"capture_id":"2GG2","amount":{"value":"12.50","currency_code":"USD"}}`, true},
		{"a card's title written anew", "TRELLO_ADD_CARDS",
			`{"idList":"5f1a","name":"Fix payments export for account 84989"}`,
			`{"idList":"5f1a","name":"Account 84989: payments exports failing"}`, true},
		{"a title written anew over one body", "LINEAR_CREATE_LINEAR_ISSUE",
			`{"team_id":"9cfb","title":"Search returns stale results for 'invoice 8812'","description":"Reported by Dana."}`,
			`{"team_id":"9cfb","title":"Stale search results (query: invoice 8812)","description":"Reported by Dana."}`, true},
		{"a chat id as a number, then a string", "TELEGRAM_SEND_MESSAGE",
			`{"chat_id":-100123456,"text":"Server db-2 is back up after 14 minutes."}`,
			`{"chat_id":"-100123456","text":"Server db-2 is back up after 14 minutes."}`, true},
		{"a due time in milliseconds, then in RFC 3339", "CLICKUP_CREATE_TASK",
			`{"list_id":"901","name":"Renew SSL cert for shop.example.com","due_date":1796742000000}`,
			`{"list_id":"901","name":"Renew SSL cert for shop.example.com","due_date":"2026-12-08T10:00:00-05:00"}`, true},
		{"a post time in seconds, then in milliseconds as a string", "SLACK_SCHEDULE_MESSAGE",
			`{"channel":"C0123","text":"Maintenance on db-2 starts in one hour.","post_at":1796742000}`,
			`{"channel":"C0123","text":"Maintenance on db-2 starts in one hour.","post_at":"1796742000000"}`, true},
		{"a due day in words, then in figures", "ASANA_CREATE_A_TASK",
			`{"projects":["77"],"name":"Send Q4 report to board","due_on":"Friday, December 18, 2026"}`,
			`{"projects":["77"],"name":"Send Q4 report to board","due_on":"18.12.2026"}`, true},
		{"an amount's thousands grouped, then not", "QUICKBOOKS_CREATE_INVOICE",
			`{"customer_id":"58","line_items":[{"description":"Consulting, November","amount":"1,250.00"}]}`,
			`{"customer_id":"58","line_items":[{"description":"Consulting, November","amount":1250}]}`, true},
		{"a flag as Python writes it", "GITHUB_CREATE_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER",
			`{"name":"billing-exports","private":true,"description":"Exports of billing data"}`,
			`{"name":"billing-exports","private":"True","description":"Exports of billing data"}`, true},
		{"a title's amount in the other convention", "ASANA_CREATE_A_TASK",
			`{"projects":["7926"],"name":"Collect payment of 282455","due_on":"2026-02-22"}`,
			`{"projects":["7926"],"name":"Collect payment of 282.455,00","due_on":"2026-02-22"}`, true},
		{"a meeting's start in seconds, then in RFC 3339, retitled", "CALCOM_CREATE_BOOKING",
			`{"start":1796742000,"attendees":["dana@acme.com"],"title":"Renewal call with Dana"}`,
			`{"start":"2026-12-08T15:00:00Z","attendees":["dana@acme.com"],"title":"Dana / Acme: renewal"}`, true},
		{"a post's link tagged for a campaign, its text written anew", "LINKEDIN_CREATE_LINKED_IN_POST",
			`{"author":"urn:li:person:8a","commentary":"Our Q4 report is out: https://acme.com/blog/q4-2026"}`,
			`{"author":"urn:li:person:8a","commentary":"Our Q4 report is out now https://acme.com/blog/q4-2026?utm_source=linkedin"}`, true},
		{"another report's post", "LINKEDIN_CREATE_LINKED_IN_POST",
			`{"author":"urn:li:person:8a","commentary":"Our Q4 report is out: https://acme.com/blog/q4-2026"}`,
			`{"author":"urn:li:person:8a","commentary":"Our Q3 report is out: https://acme.com/blog/q3-2026?utm_source=linkedin"}`, false},
		{"a due time a day later, in another notation", "CLICKUP_CREATE_TASK",
			`{"list_id":"901","name":"Renew SSL cert for shop.example.com","due_date":1796742000000}`,
			`{"list_id":"901","name":"Renew SSL cert for shop.example.com","due_date":"2026-12-09T15:00:00Z"}`, false},
		{"another due day in words", "ASANA_CREATE_A_TASK",
			`{"projects":["77"],"name":"Send Q4 report to board","due_on":"2026-12-18"}`,
			`{"projects":["77"],"name":"Send Q4 report to board","due_on":"Dec 19, 2026"}`, false},
		{"another amount, grouped", "QUICKBOOKS_CREATE_INVOICE",
			`{"customer_id":"58","line_items":[{"description":"Consulting, November","amount":"1,250.00"}]}`,
			`{"customer_id":"58","line_items":[{"description":"Consulting, November","amount":1350}]}`, false},
		{"an id of ten digits is no time", "TELEGRAM_SEND_MESSAGE",
			`{"chat_id":1796742000,"text":"Server db-2 is back up."}`,
			`{"chat_id":1796742000000,"text":"Server db-2 is back up."}`, false},
		{"another card of one account", "TRELLO_ADD_CARDS",
			`{"idList":"5f1a","name":"Fix payments export for account 84989"}`,
			`{"idList":"5f1a","name":"Close account 84989"}`, false},
		{"another account's card", "TRELLO_ADD_CARDS",
			`{"idList":"5f1a","name":"Fix payments export for account 84989"}`,
			`{"idList":"5f1a","name":"Fix payments export for account 84990"}`, false},
		{"another refund amount, with a note", "STRIPE_CREATE_REFUND",
			`{"payment_intent":"pi_3Nx","amount":1250}`,
			`{"payment_intent":"pi_3Nx","amount":1750,"metadata":{"note":"partial return"}}`, false},
		{"another amount in the wrapper", "HUBSPOT_CREATE_DEAL",
			`{"properties":{"dealname":"Acme renewal 2026","amount":"12500","closedate":"2026-03-31"}}`,
			`{"properties":{"dealname":"Acme renewal 2026","amount":13000,"closedate":"2026-03-31"}}`, false},
		{"another issue under one body", "LINEAR_CREATE_LINEAR_ISSUE",
			`{"team_id":"9cfb","title":"Stale results for invoice 8812","description":"Reported by Dana."}`,
			`{"team_id":"9cfb","title":"Stale results for invoice 8813","description":"Reported by Dana."}`, false},
		{"a notice as an embed, then as text", "DISCORDBOT_CREATE_MESSAGE",
			`{"channel_id":"1122","embeds":[{"title":"Update","description":"Patch 1.4.2 is live: it fixes the login loop.","color":5814783}]}`,
			`{"channel_id":"1122","content":"Patch 1.4.2 is live and fixes the login loop."}`, true},
		{"a message as an attachment, then as text", "SLACK_SEND_MESSAGE",
			`{"channel":"C0123","attachments":[{"fallback":"db-2 is back up after 14 minutes","text":"db-2 is back up after 14 minutes","color":"good"}]}`,
			`{"channel":"C0123","text":"Server db-2 is back up (down 14 minutes)."}`, true},
		{"a number bare, then with its country code", "TWILIO_SEND_SMS",
			`{"to":"4155550123","body":"Your code for order 8812 is ready for pickup."}`,
			`{"to":"+14155550123","body":"Order 8812 is ready for pickup."}`, true},
		{"a national number, then international", "WHATSAPP_SEND_MESSAGE",
			`{"to_number":"07700900123","body":"Your table for 4 is booked for Friday."}`,
			`{"to_number":447700900123,"body":"Table for 4 booked on Friday."}`, true},
		{"another embed's notice", "DISCORDBOT_CREATE_MESSAGE",
			`{"channel_id":"1122","content":"Patch 1.4.2 is live: fixes the login loop."}`,
			`{"channel_id":"1122","embeds":[{"title":"Update","description":"Patch 1.4.3 is live: fixes the avatar upload.","color":5814783}]}`, false},
		{"the next number, bare", "TWILIO_SEND_SMS",
			`{"to":"+14155550123","body":"Order 8812 is ready for pickup."}`,
			`{"to":"4155550124","body":"Order 8812 is ready for pickup."}`, false},
		{"a recipient's id is no phone", "ACME_SEND_NOTICE",
			`{"recipient_id":"1004155550123","text":"Your order 8812 is ready for pickup."}`,
			`{"recipient_id":"2004155550123","text":"Your order 8812 is ready for pickup."}`, false},
		{"an order number is no phone", "ZENDESK_CREATE_TICKET",
			`{"subject":"Refund for a damaged order","order_number":"2104155550123"}`,
			`{"subject":"Refund for a damaged order","order_number":"3104155550123"}`, false},
		{"the arguments' names in another case style", "GOOGLESHEETS_BATCH_UPDATE",
			`{"spreadsheet_id":"1abc","sheet_name":"Sheet1","values":[["Dana","8812","120.50"]]}`,
			`{"spreadsheetId":"1abc","SheetName":"Sheet1","values":[["Dana","8812","120.50"]]}`, true},
		{"another sheet, its name in another case style", "GOOGLESHEETS_BATCH_UPDATE",
			`{"spreadsheet_id":"1abc","sheet_name":"Sheet1","values":[["Dana","8812","120.50"]]}`,
			`{"spreadsheetId":"1abc","sheetName":"Sheet2","values":[["Dana","8812","120.50"]]}`, false},
		{"another patch's notice", "DISCORD_CREATE_MESSAGE",
			`{"channel_id":"1122","content":"Patch 1.4.2 is live: fixes the login loop."}`,
			`{"channel_id":"1122","content":"Patch 1.4.3 is live: fixes the avatar upload."}`, false},
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := model.Execution{ID: "log_1", ToolSlug: tt.slug, Status: "failed", RetryCount: -1,
				Error:  &model.ExecError{Kind: model.ErrTimeout, Message: "Request timed out"},
				UserID: "u1", ConnectedAccountID: "ca_1", StartTime: at, Timestamp: at.Add(30 * time.Second),
				Duration: 30 * time.Second, HasDuration: true, Arguments: []byte(tt.first)}
			second := model.Execution{ID: "log_2", ToolSlug: tt.slug, Status: "success", RetryCount: -1,
				UserID: "u1", ConnectedAccountID: "ca_1", StartTime: at.Add(38 * time.Second), Timestamp: at.Add(39 * time.Second),
				Duration: time.Second, HasDuration: true, Arguments: []byte(tt.second)}
			res := triage.Analyze([]model.Execution{first, second}, triage.NewKinds(), triage.Options{})
			grouped := len(res.Groups) == 1 && len(res.Groups[0].ExecutionIDs) == 2
			if grouped != tt.group {
				t.Errorf("grouped %v, want %v (%+v)", grouped, tt.group, res.Groups)
			}
			if grouped && res.Groups[0].Pattern != model.PatternAgentRetry {
				t.Errorf("cause %s, want agent_retry: %s", res.Groups[0].Pattern, res.Groups[0].Reason)
			}
		})
	}
}
