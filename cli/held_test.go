package cli

import (
	"strings"
	"testing"
)

// TestStderrIsHeldWhileTheTUIRuns: what goes to stderr while the TUI owns
// the terminal is kept, bounded, and written when it ends; before and after, it passes through.
func TestStderrIsHeldWhileTheTUIRuns(t *testing.T) {
	var out strings.Builder
	h := &heldWriter{w: &out}
	h.Write([]byte("before\n"))
	h.Hold()
	h.Write([]byte("exectriage: skipped an unreadable record\n"))
	if out.String() != "before\n" {
		t.Fatalf("written while held: %q", out.String())
	}
	h.Write([]byte(strings.Repeat("x", maxHeld)))
	h.Release()
	got := out.String()
	if !strings.HasPrefix(got, "before\nexectriage: skipped an unreadable record\nxxx") ||
		!strings.HasSuffix(got, "exectriage: 41 more bytes of messages from while the TUI ran were dropped\n") {
		t.Fatalf("released: %.80q … %q", got, got[max(0, len(got)-100):])
	}
	out.Reset()
	h.Write([]byte("after\n"))
	if out.String() != "after\n" {
		t.Fatalf("after release: %q", out.String())
	}
}
