package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestReadOnlyClientRunsNoTool: a read-only client sends no tool execution at all, neither a
// write (Execute, Proxy) nor, unless told, a provider check's read tool; it still reads the
// logs. The refusal is a not-sent WriteError: the action certainly did not happen.
func TestReadOnlyClientRunsNoTool(t *testing.T) {
	var rec recorder
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.add(r)
		if strings.Contains(r.URL.Path, "/logs/") {
			_, _ = w.Write([]byte(`{"logs":[],"next_cursor":null}`))
			return
		}
		_, _ = w.Write([]byte(`{"data":{},"error":null,"successful":true}`))
	}))
	defer srv.Close()
	ctx := context.Background()
	call := model.ToolCall{Slug: "GMAIL_FETCH_EMAILS", Arguments: json.RawMessage(`{}`)}

	for _, toolReads := range []bool{false, true} {
		rec = recorder{}
		c := newTestClient(t, srv.URL, WithReadOnly(toolReads))
		_, err := c.WithoutRetries().Execute(ctx, "GMAIL_SEND_EMAIL", ExecuteRequest{Arguments: json.RawMessage(`{"to":"a@b.c"}`)})
		var we *WriteError
		if !errors.As(err, &we) || we.Kind != WriteNotSent || we.Sent || !errors.Is(err, ErrReadOnly) {
			t.Fatalf("Execute on a read-only client: %v", err)
		}
		if _, err := c.WithoutRetries().Proxy(ctx, ProxyRequest{Endpoint: "/x", Method: "POST"}); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("Proxy on a read-only client: %v", err)
		}
		_, err = c.RunReadTool(ctx, call)
		if toolReads != (err == nil) {
			t.Fatalf("RunReadTool with toolReads=%v: %v", toolReads, err)
		}
		_, err = c.RunReadToolOnce(ctx, call)
		if toolReads != (err == nil) {
			t.Fatalf("RunReadToolOnce with toolReads=%v: %v", toolReads, err)
		}
		if _, err := c.ListLogsPage(ctx, LogQuery{}, ""); err != nil {
			t.Fatalf("a read-only client cannot read the logs: %v", err)
		}
		want := 1 // the logs page
		if toolReads {
			want = 3 // and the two read tools
		}
		for _, r := range rec.all() {
			if strings.Contains(r.Path, "GMAIL_SEND_EMAIL") || strings.Contains(r.Path, "proxy") {
				t.Errorf("a read-only client sent %s %s", r.Method, r.Path)
			}
		}
		if rec.count() != want {
			t.Errorf("toolReads=%v: %d requests reached the server, want %d", toolReads, rec.count(), want)
		}
	}
}
