package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
)

var sizes = [][2]int{{80, 24}, {120, 40}, {200, 50}}

// TestGoldenScreens pins what a person sees, at three terminal sizes, for each main state.
func TestGoldenScreens(t *testing.T) {
	scenarios := []struct {
		name  string
		setup func(h *harness)
		check func(t *testing.T, screen string)
	}{
		{"list_flagged", func(h *harness) {
			i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool {
				return t.Flagged && t.Outcome == model.OutcomeAmbiguous
			})
			if !ok {
				h.t.Fatal("no flagged execution")
			}
			h.selectRow(i)
		}, func(t *testing.T, s string) {
			if !strings.Contains(s, "›!") || !strings.Contains(s, "AMBIGUOUS") {
				t.Error("the selected flagged row is not marked")
			}
		}},
		{"duplicates", func(h *harness) { h.keys("d") }, func(t *testing.T, s string) {
			if !strings.Contains(s, "Duplicate groups") || !strings.Contains(s, "DUP×") {
				t.Error("no duplicate groups shown")
			}
		}},
		{"detail_provider", func(h *harness) {
			h.selectRow(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound))
			h.keys("v", "enter")
		}, func(t *testing.T, s string) {
			for _, want := range []string{"Detail", "Provider state", "FOUND", "outcome"} {
				if !strings.Contains(s, want) {
					t.Errorf("missing %q", want)
				}
			}
		}},
		{"retry_allowed", func(h *harness) {
			h.filterTo(h.m.data.DS.ID(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound)))
			h.keys("r")
			h.e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
		}, func(t *testing.T, s string) {
			for _, want := range []string{"Retry GMAIL_SEND_EMAIL once?", "NOT FOUND", "[ No ]", "Retry once", "will send"} {
				if !strings.Contains(s, want) {
					t.Errorf("missing %q", want)
				}
			}
		}},
		{"retry_refused", func(h *harness) {
			h.filterTo(h.m.data.DS.ID(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound)))
			h.keys("r")
		}, func(t *testing.T, s string) {
			for _, want := range []string{"Retry refused", "provider shows the effect"} {
				if !strings.Contains(s, want) {
					t.Errorf("missing %q", want)
				}
			}
		}},
		{"help", func(h *harness) { h.keys("?") }, func(t *testing.T, s string) {
			for _, want := range []string{"Navigate", "Act on selection", "retry", "quit"} {
				if !strings.Contains(s, want) {
					t.Errorf("missing %q", want)
				}
			}
		}},
		{"error", func(h *harness) {
			h.e.breakAuth()
			h.keys("R")
		}, func(t *testing.T, s string) {
			if !strings.Contains(s, "HTTP 401, not authorised") || !strings.Contains(s, "COMPOSIO_API_KEY") {
				t.Error("the 401 and what to do are not shown")
			}
			if !strings.Contains(s, "400 execs") {
				t.Error("the list did not keep what it had")
			}
		}},
	}
	for _, sc := range scenarios {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				// a fresh sandbox each time: a verify runs a read tool, which the sandbox logs
				h := newHarness(t, newEnv(t), sz[0], sz[1])
				sc.setup(h)
				s := h.screen()
				checkFits(t, s, sz[0], sz[1])
				sc.check(t, s)
				golden(t, name, s+"\n")
			})
		}
	}
}

// checkFits fails when the screen has more lines or wider lines than the terminal.
func checkFits(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("%d lines on a %d-line terminal", len(lines), h)
	}
	for i, l := range lines {
		if n := displayWidth(l); n > w {
			t.Errorf("line %d is %d wide on a %d-column terminal: %q", i, n, w, l)
		}
	}
}

// TestTheREADMESampleIsTheScreen: the README's sample screen is the duplicates view as the
// code draws it now (it said "effective ?" long after the list said "took effect
// ?"). -update rewrites the golden and the README's block.
func TestTheREADMESampleIsTheScreen(t *testing.T) {
	h := newHarness(t, newEnv(t), 100, 30)
	h.keys("d")
	s := h.screen() + "\n"
	checkFits(t, strings.TrimSuffix(s, "\n"), 100, 30)
	golden(t, "readme_sample_100x30", s)
	const marker = "<!-- sample: ui/testdata/readme_sample_100x30.golden, kept by TestTheREADMESampleIsTheScreen (-update) -->\n```\n"
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatal("the README has no sample block")
	}
	from := i + len(marker)
	to := strings.Index(text[from:], "```")
	if to < 0 {
		t.Fatal("the README's sample block does not end")
	}
	if text[from:from+to] == s {
		return
	}
	if !updating() {
		t.Fatal("the README's sample is not the screen the code draws: go test ./ui/ -run TestTheREADMESampleIsTheScreen -update")
	}
	if err := os.WriteFile("../README.md", []byte(text[:from]+s+text[from+to:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenGroupRowsPerPattern: the duplicates view on the demo's history (seed 0, 3000
// executions), with the cursor on the oldest member of the first group of each pattern: the
// group row names the cause, the members show their gaps, and the detail says what matched
// (identical arguments, or the reworded text and its similarity) and the fix.
func TestGoldenGroupRowsPerPattern(t *testing.T) {
	patterns := []model.RetryPattern{model.PatternSDKAutoRetry, model.PatternSessionAutoRetry, model.PatternFrameworkRetry,
		model.PatternAgentRetry, model.PatternAppRetry, model.PatternDoubleSubmit}
	e := newEnvWith(t, sandbox.Config{Seed: 0, Size: 3000, Now: sandboxNow, HoldTimeout: 2 * time.Second})
	for _, p := range patterns {
		t.Run(string(p), func(t *testing.T) {
			h := newHarness(t, e, 120, 40)
			ds := h.m.data.DS
			member := -1
			for i := range ds.Len() {
				if g := ds.Group(i); g != nil && g.Pattern == p && g.ExecutionIDs[0] == ds.ID(i) {
					member = i
					break
				}
			}
			if member < 0 {
				t.Fatalf("the demo has no %s group", p)
			}
			g := *ds.Group(member)
			h.keys("d")
			h.selectRow(member)
			s := h.screen()
			checkFits(t, s, 120, 40)
			if !strings.Contains(s, "DUP×") || !strings.Contains(s, string(p)) {
				t.Errorf("no %s group row on the screen", p)
			}
			if !strings.Contains(s, string(p)+" "+g.SimilarityWord()) {
				t.Errorf("the group row does not say what matched (%q)", g.SimilarityWord())
			}
			if p == model.PatternAgentRetry && !strings.Contains(s, "reworded") {
				t.Error("an agent_retry group does not say its text was reworded")
			}
			golden(t, "group_"+string(p)+"_120x40", s+"\n")
		})
	}
}
