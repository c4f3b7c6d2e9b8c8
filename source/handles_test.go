package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
)

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	return len(ents)
}

func exportOf(tool string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"log_%04d","status":"success","metadata":{"tool_slug":%q}}`+"\n", i, tool)
	}
	return b.String()
}

// Records are read again through handles the source keeps (one read a Get, not an open, a
// read and a close): a Get reads the file its load indexed even when another file has taken
// its name since, a new load reads the new one, and no handle outlives Close.
func TestGetReadsThroughKeptHandles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts open files in /proc")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jsonl")
	if err := os.WriteFile(path, []byte(exportOf("GMAIL_SEND_EMAIL", 50)), 0o600); err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	src, err := Open(context.Background(), Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	load := func() {
		if err := src.Load(ctx, 0, func([]model.Execution) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	get := func(id, tool string) {
		t.Helper()
		e, err := src.Get(ctx, id)
		if err != nil || e.ToolSlug != tool {
			t.Fatalf("Get %s: %q, %v; want %s", id, e.ToolSlug, err, tool)
		}
	}
	load()
	get("log_0001", "GMAIL_SEND_EMAIL")
	// Another file takes the name (an export rewritten by rename): the loaded index still
	// points into the first, which the kept handle reads.
	next := filepath.Join(dir, "next.jsonl")
	if err := os.WriteFile(next, []byte(exportOf("SLACK_SEND_MESSAGE", 50)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		get(fmt.Sprintf("log_%04d", i), "GMAIL_SEND_EMAIL")
	}
	load() // a new load reads the new file, through a new handle
	get("log_0002", "SLACK_SEND_MESSAGE")
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if after := openFDs(t); after != before {
		t.Fatalf("%d files open after Close, %d before", after, before)
	}
}
