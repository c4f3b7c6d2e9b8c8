package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileDataCannotReachTheTerminal loads an export whose strings carry terminal escape
// sequences (an OSC 52 clipboard write, a screen clear, a title change), a bidi override and
// newlines, and checks that none of them reaches the screen as a control.
func TestHostileDataCannotReachTheTerminal(t *testing.T) {
	evil := "X\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b]0;pwned\x07\u202eevil\nnext"
	rec := map[string]any{
		"id": "log_evil", "timestamp": "2026-03-02T11:00:00.000Z", "status": "failed",
		"metadata": map[string]any{"tool_slug": "GMAIL_SEND_EMAIL" + evil, "toolkit_slug": "gmail", "user_id": "u" + evil, "connected_account_id": "ca_1"},
		"metrics":  map[string]any{"duration_ms": 61000},
		"timings":  map[string]any{"start_time": 1772449200000, "end_time": 1772449261000},
		"data": map[string]any{
			"request":  map[string]any{"arguments": map[string]any{"subject": evil}},
			"response": map[string]any{"successful": false, "error": evil},
			"error":    map[string]any{"message": "timeout " + evil, "kind": "timeout"},
		},
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "evil.jsonl")
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.useFile(path)
	for _, keys := range [][]string{{}, {"enter"}, {"m"}, {"/", "gmail"}} {
		h := newHarness(t, e, 160, 45)
		h.keys(keys...)
		raw := h.m.Render()
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\a", "\u202e", "pwned\x07"} {
			if strings.Contains(raw, bad) {
				t.Errorf("keys %v: the screen contains %q", keys, bad)
			}
		}
		if !strings.Contains(raw, `\x1b`) {
			t.Errorf("keys %v: the escape is not shown as text", keys)
		}
	}
}

// TestWindowTitleIsCleaned names the source with an OSC 2 and an OSC 52 (a file name can hold
// any byte but / and NUL): the window title the app sets must hold them as text, or the title
// sequence would end early and the rest would act on the terminal.
func TestWindowTitleIsCleaned(t *testing.T) {
	e := newEnv(t)
	e.src.name = "FILE x\x1b]2;OWNED\x07\x1b]52;c;b3duZWQ=\x07.jsonl"
	h := newHarness(t, e, 120, 40)
	title := h.m.View().WindowTitle
	if strings.ContainsAny(title, "\x1b\x07") {
		t.Errorf("the window title holds controls: %q", title)
	}
	if !strings.Contains(title, `x\x1b]2;OWNED\x07`) {
		t.Errorf("the window title does not show the name as text: %q", title)
	}
}

// What y copies has no control characters: an id from a hostile log pasted into a shell must
// not run anything.
func TestCopiedTextHasNoControls(t *testing.T) {
	for _, in := range []string{"log_1\x1b]52;c;ZXZpbA==\x07", "log_2\nrm -rf ~", "log_\u202e3", "bundle\nline two\x1b[31m\n"} {
		msg := copyText(in, strings.HasPrefix(in, "bundle"))()
		got := fmt.Sprint(msg)
		for _, r := range got {
			if r == 0x1b || r == 0x07 || r == 0x202e || (r == '\n' && !strings.HasPrefix(in, "bundle")) {
				t.Errorf("copyText(%q) put %q on the clipboard", in, got)
			}
		}
	}
}
