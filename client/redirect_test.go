package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/internal/hostile"
	"github.com/exectriage/exectriage/model"
)

// A server at the base URL that answers 307 (or 302, 308) to another host must not receive
// the API key there: net/http drops Authorization and Cookie on a cross-host redirect, not
// x-api-key. No read follows a redirect (writes never did): one policy.
func TestNoReadOrWriteFollowsARedirectWithTheKey(t *testing.T) {
	const key = "ak_redirect_test_key_0123456789"
	for _, status := range []int{302, 307, 308} {
		other := hostile.Serve(t, hostile.JSON(200, `{"logs":[],"next_cursor":null}`))
		base := hostile.Serve(t, hostile.RedirectTo(other.URL, status))
		c, err := client.New(client.WithAPIKey(key), client.WithBaseURL(base.URL), client.WithMaxRetries(2))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		calls := map[string]func() error{
			"logs search": func() error {
				_, err := c.ListLogsPage(ctx, client.LogQuery{}, "")
				return err
			},
			"log detail": func() error { _, err := c.GetLog(ctx, "log_1"); return err },
			"tool":       func() error { _, err := c.GetTool(ctx, "GMAIL_SEND_EMAIL"); return err },
			"read tool": func() error {
				_, err := c.RunReadTool(ctx, model.ToolCall{Slug: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{}`), ConnectedAccountID: "ca_1"})
				return err
			},
			"account": func() error { _, err := c.GetConnectedAccount(ctx, "ca_1"); return err },
			"write": func() error {
				_, err := c.WithoutRetries().Execute(ctx, "GMAIL_SEND_EMAIL", client.ExecuteRequest{Arguments: json.RawMessage(`{}`), ConnectedAccountID: "ca_1"})
				return err
			},
		}
		for name, call := range calls {
			err := call()
			var ae *client.APIError
			var we *client.WriteError
			switch {
			case errors.As(err, &we):
				if we.Kind != client.WriteAmbiguous {
					t.Errorf("%d %s: write error kind %s, want ambiguous (a redirect proves nothing)", status, name, we.Kind)
				}
			case errors.As(err, &ae):
				if ae.StatusCode != status {
					t.Errorf("%d %s: API error status %d", status, name, ae.StatusCode)
				}
			default:
				t.Errorf("%d %s: err = %v, want the redirect as an error", status, name, err)
			}
		}
		if n := len(other.Requests()); n != 0 {
			t.Errorf("%d: the other host received %d requests (key sent: %v)", status, n, other.SawHeader("x-api-key", key))
		}
		if got := base.Count("GET", "/logs/tool_execution/log_1"); got != 1 {
			t.Errorf("%d: the log detail was asked %d times, want once (a redirect is not retried)", status, got)
		}
	}
}

// A server whose cursors never end (fresh ones every page) stops the walk at the page cap
// with an error that says so, instead of loading forever.
func TestEndlessCursorsEnd(t *testing.T) {
	srv := hostile.Serve(t, hostile.EndlessCursor())
	c, err := client.New(client.WithAPIKey("k-endless-test"), client.WithBaseURL(srv.URL), client.WithMaxPages(30))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	var last error
	for _, err := range c.ListLogs(context.Background(), client.LogQuery{}) {
		if err != nil {
			last = err
			break
		}
		pages++
	}
	if pages != 30 || last == nil || !strings.Contains(last.Error(), "past 30 pages") {
		t.Fatalf("%d pages, err %v", pages, last)
	}
	if got := srv.Count("POST", "/logs/tool_execution"); got != 30 {
		t.Errorf("%d requests, want 30", got)
	}
}

// A server stricter than the documented page size (a 400 naming the limit) gets half the page
// size until it accepts, and the client keeps the size that worked; the load never fails.
func TestStricterPageSizeIsHalved(t *testing.T) {
	var refused atomic.Int32
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Limit  int     `json:"limit"`
			Cursor *string `json:"cursor"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		if body.Limit > 30 {
			refused.Add(1)
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"limit must be less than or equal to 30","status":400}}`)
			return
		}
		page := 0
		if body.Cursor != nil {
			page, _ = strconv.Atoi(*body.Cursor)
		}
		var logs []string
		for i := range body.Limit {
			logs = append(logs, fmt.Sprintf(`{"id":"log_%d_%d","timestamp":"2026-03-01T10:00:00Z","status":"success","metadata":{"tool_slug":"GMAIL_FETCH_EMAILS"}}`, page, i))
		}
		next := "null"
		if page < 2 {
			next = fmt.Sprintf("%q", strconv.Itoa(page+1))
		}
		fmt.Fprintf(w, `{"logs":[%s],"next_cursor":%s}`, strings.Join(logs, ","), next)
	})
	c, err := client.New(client.WithAPIKey("k-page"), client.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for page, err := range c.ListLogs(context.Background(), client.LogQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Executions) > 30 {
			t.Fatalf("a page of %d", len(page.Executions))
		}
		n += len(page.Executions)
	}
	if n != 3*25 || refused.Load() != 2 {
		t.Fatalf("%d records, %d refusals; want 75 (pages of 25: 100 → 50 → 25) and 2", n, refused.Load())
	}
	// The next walk starts at the size that worked: no refusal.
	if _, err := c.ListLogsPage(context.Background(), client.LogQuery{}, ""); err != nil || refused.Load() != 2 {
		t.Fatalf("second walk: %v, %d refusals", err, refused.Load())
	}
}
