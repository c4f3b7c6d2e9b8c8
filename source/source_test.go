package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"go.uber.org/goleak"
)

func collect(t *testing.T, src Source, since time.Duration) []model.Execution {
	t.Helper()
	var all []model.Execution
	if err := src.Load(context.Background(), since, func(b []model.Execution) error {
		all = append(all, b...)
		return nil
	}); err != nil {
		t.Fatalf("Load: %v", err)
	}
	return all
}

func TestDemoSource(t *testing.T) {
	src, err := Open(context.Background(), Options{Demo: true, Sandbox: sandbox.Config{Seed: 1, Size: 120}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Name() != "DEMO" || src.Client() == nil {
		t.Fatalf("name %q, client %v", src.Name(), src.Client())
	}
	all := collect(t, src, 0)
	if len(all) != 120 {
		t.Fatalf("demo loaded %d executions, want 120", len(all))
	}
	d, err := src.Get(context.Background(), all[0].ID)
	if err != nil || d.ID != all[0].ID || !d.Detailed {
		t.Errorf("Get(%s) = %+v, %v", all[0].ID, d.ID, err)
	}
	if _, err := src.Get(context.Background(), "log_nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "DEMO") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestLiveSourceAgainstSandbox(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 2, Size: 200}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	src, err := Open(ctx, Options{BaseURL: base}) // loopback: no key needed
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if !strings.HasPrefix(src.Name(), "LIVE 127.0.0.1:") {
		t.Errorf("name %q", src.Name())
	}
	all := collect(t, src, 0)
	if len(all) != 200 {
		t.Fatalf("loaded %d, want 200", len(all))
	}
	// since keeps the executions of the window, and only them.
	now := time.Now()
	recent := collect(t, src, 24*time.Hour)
	want := 0
	for _, e := range all {
		if !e.Timestamp.Before(now.Add(-24*time.Hour + time.Second)) {
			want++
		}
	}
	if len(recent) == 0 || len(recent) >= len(all) || abs(len(recent)-want) > 2 {
		t.Errorf("since 24h: %d of %d, about %d expected", len(recent), len(all), want)
	}
	stop := errors.New("stop")
	if err := src.Load(ctx, 0, func([]model.Execution) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v", err)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestLoadFileLeavesNoGoroutines stops loads early every way there is and checks the
// reader and parser goroutines are gone.
func TestLoadFileLeavesNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := filepath.Join(t.TempDir(), "many.jsonl")
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"id":"log_%d","status":"success","metadata":{"tool_slug":"X_GET"}}`+"\n", i)
	}
	b.WriteString(`{"id":"log_trunc","status":`)
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	if _, err := LoadFileWith(context.Background(), p, FileOptions{BatchSize: 100}, func([]model.Execution) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := LoadFileWith(ctx, p, FileOptions{BatchSize: 100}, func([]model.Execution) error {
		if n++; n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}
	total := 0
	_, err = LoadFile(context.Background(), p, func(b []model.Execution) error { total += len(b); return nil })
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 20001 || total != 20000 {
		t.Errorf("truncated last line: %v after %d records", err, total)
	}
}
