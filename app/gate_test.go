package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/model"
)

// openExport opens a session over an export holding rec, with a home of its own (no config).
func openExport(t *testing.T, rec string, o Options) *App {
	t.Helper()
	dir := t.TempDir()
	o.File = filepath.Join(dir, "x.jsonl")
	if err := os.WriteFile(o.File, []byte(rec+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o.Getenv = func(k string) string { return map[string]string{"HOME": dir, "XDG_CONFIG_HOME": dir}[k] }
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// The session's gate reaches the export's loader: a held gate holds Stream's batches back.
func TestStreamWaitsAtTheSessionsGate(t *testing.T) {
	gate := &pace.Gate{}
	a := openExport(t, `{"id":"log_a1","tool_slug":"GMAIL_SEND_EMAIL"}`, Options{Gate: gate, Background: true})
	a.Hold(time.Hour) // the session holds its gate
	got := make(chan int, 4)
	done := make(chan error, 1)
	go func() {
		done <- a.Stream(context.Background(), 0, func(b []model.Execution) error { got <- len(b); return nil })
	}()
	select {
	case <-got:
		t.Fatal("a batch arrived while the gate was held")
	case <-time.After(100 * time.Millisecond):
	}
	gate.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
}

// An interactive session's load leaves the arguments out (the TUI keeps compact rows), and Get
// still reads the record whole; any other session's load keeps them.
func TestInteractiveLoadsSkipArguments(t *testing.T) {
	rec := `{"id":"log_a1","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","connected_account_id":"ca_1"},"data":{"request":{"arguments":{"to":"a@example.com"}}}}`
	for _, interactive := range []bool{false, true} {
		a := openExport(t, rec, Options{Background: interactive})
		var got []model.Execution
		if err := a.Stream(context.Background(), 0, func(b []model.Execution) error { got = append(got, b...); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !got[0].Detailed || (got[0].Arguments == nil) != interactive {
			t.Fatalf("interactive %v: %d records, detailed %v, arguments %s", interactive, len(got), len(got) > 0 && got[0].Detailed, got[0].Arguments)
		}
		full, err := a.Get(context.Background(), "log_a1")
		if err != nil || string(full.Arguments) != `{"to":"a@example.com"}` {
			t.Fatalf("interactive %v: Get gave %s, %v", interactive, full.Arguments, err)
		}
	}
}
