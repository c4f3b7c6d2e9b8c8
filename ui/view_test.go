package ui

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/ui/keys"
)

// TestEveryScreenFitsEverySize renders every state at many sizes: no line is wider than the
// terminal and the screen has exactly its height, so nothing wraps or scrolls.
func TestEveryScreenFitsEverySize(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	flagged, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged })
	if !ok {
		t.Fatal("no flagged execution")
	}
	h.selectRow(flagged)
	states := []struct {
		name string
		in   func()
		out  func()
	}{
		{"list", func() {}, func() {}},
		{"detail", func() { h.keys("enter") }, func() { h.keys("esc") }},
		{"provider", func() { h.keys("tab", "tab") }, func() { h.keys("esc") }},
		{"duplicates", func() { h.keys("d") }, func() { h.keys("d") }},
		{"help", func() { h.keys("?") }, func() { h.keys("?") }},
		{"filter", func() { h.keys("/", "gmail") }, func() { h.keys("esc") }},
		{"best match", func() { h.keys("/", "gmail send", "enter", "s") }, func() { h.keys("s", "esc") }},
		{"mark", func() { h.keys("m") }, func() { h.keys("esc") }},
		{"retry", func() { h.keys("r") }, func() { h.keys("esc") }},
	}
	for _, st := range states {
		st.in()
		for w := 40; w <= 220; w += 20 {
			for _, ht := range []int{12, 17, 24, 40, 50} {
				h.send(tea.WindowSizeMsg{Width: w, Height: ht})
				s := ansi.Strip(h.m.Render())
				lines := strings.Split(s, "\n")
				if len(lines) != ht {
					t.Fatalf("%s at %dx%d: %d lines", st.name, w, ht, len(lines))
				}
				for i, l := range lines {
					if n := ansi.StringWidth(l); n > w {
						t.Fatalf("%s at %dx%d: line %d is %d wide: %q", st.name, w, ht, i, n, l)
					}
				}
			}
		}
		h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
		st.out()
	}
	if h.m.retry.IsOpen() || h.m.mark.IsOpen() || h.m.showHelp || h.m.filter.Active() {
		t.Error("a dialog stayed open")
	}
}

func TestPanesStackUnderWideWidthAndSitSideBySideAbove(t *testing.T) {
	for _, tt := range []struct {
		w, h int
		f    focus
		wide bool
		show bool
	}{
		{80, 24, focusList, false, false},
		{80, 24, focusDetail, false, true},
		{99, 50, focusList, false, true},
		{100, 40, focusList, true, true},
		{200, 50, focusProvider, true, true},
	} {
		l := computeLayout(tt.w, tt.h, tt.f)
		if l.wide != tt.wide || l.panes != tt.show {
			t.Errorf("%dx%d focus %d: wide %v panes %v, want %v %v", tt.w, tt.h, tt.f, l.wide, l.panes, tt.wide, tt.show)
		}
		if l.panes && !tt.wide && (l.detail.x != 0 || l.provider.y <= l.detail.y) {
			t.Errorf("%dx%d: panes not stacked: %+v %+v", tt.w, tt.h, l.detail, l.provider)
		}
		if l.panes && tt.wide && (l.provider.x <= l.detail.x || l.provider.y != l.detail.y) {
			t.Errorf("%dx%d: panes not side by side: %+v %+v", tt.w, tt.h, l.detail, l.provider)
		}
	}
}

// The help bar shows what a read-only session has turned off as off, and the hints say so
// instead of offering r and m; with [keys] remapped, the hints and the provider pane name the
// keys that work.
func TestHelpBarAndHintsFollowTheSession(t *testing.T) {
	flaggedUnchecked := func(h *harness) {
		t.Helper()
		i, ok := h.find(func(e *model.Execution, t *model.Triage) bool {
			_, checked := h.m.data.Provider[e.ID]
			return t.Flagged && t.Kind.IsWrite() && t.Case == nil && !checked
		})
		if !ok {
			t.Fatal("no flagged write")
		}
		h.selectRow(i)
	}
	lastLine := func(s string) string { ls := strings.Split(s, "\n"); return ls[len(ls)-1] }

	e := newEnv(t)
	e.parts.Config.Defaults.ReadOnly = true
	h := newHarness(t, e, 200, 40)
	flaggedUnchecked(h)
	s := h.screen()
	for _, off := range []string{"v verify (off)", "r retry (off)", "m mark verdict (off)"} {
		if bar := lastLine(s); !strings.Contains(bar, off) {
			t.Errorf("the read-only help bar lacks %q: %q", off, bar)
		}
	}
	if !strings.Contains(s, "flagged write: provider checks are off (") || !strings.Contains(s, "retry and verdicts are off: read-only") {
		t.Errorf("the read-only hint offers what is off:\n%s", s)
	}
	h.keys("?")
	if help := h.screen(); !strings.Contains(help, "retry (off)") || !strings.Contains(help, "mark verdict (off)") {
		t.Errorf("the read-only help screen lists retry and mark as on:\n%s", help)
	}
	h.keys("?")
	// --allow-reads: v works, r and m stay off
	e.parts.Config.Defaults.AllowReads = true
	h = newHarness(t, e, 200, 40)
	flaggedUnchecked(h)
	s = h.screen()
	if bar := lastLine(s); strings.Contains(bar, "v verify (off)") || !strings.Contains(bar, "r retry (off)") {
		t.Errorf("the read-only help bar with reads allowed: %q", bar)
	}
	if !strings.Contains(s, "flagged write: v checks the provider (retry and verdicts are off: read-only)") {
		t.Errorf("the read-only hint with reads allowed:\n%s", s)
	}

	e2 := newEnv(t)
	km, err := keys.Default().Rebind(map[string][]string{"verify": {"c"}, "retry": {"e"}, "mark": {"u"}})
	if err != nil {
		t.Fatal(err)
	}
	e2.ui.Keys = &km
	h2 := newHarness(t, e2, 200, 40)
	flaggedUnchecked(h2)
	s = h2.screen()
	for _, want := range []string{"flagged write: c checks the provider before any retry (e) or verdict (u)", "press c to ask the provider"} {
		if !strings.Contains(s, want) {
			t.Errorf("with [keys] remapped the screen lacks %q:\n%s", want, s)
		}
	}
	if bar := lastLine(s); strings.Contains(bar, "(off)") {
		t.Errorf("a writable session's help bar shows keys off: %q", bar)
	}
}

// A message longer than the status line goes on over the help bar, so an error's fix is not
// cut; L opens the log of every message, whole, with its time; esc closes it.
func TestTheMessageLogKeepsMessagesWhole(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 80, 24)
	h.m.setInfo("first message")
	e.breakAuth()
	h.keys("R")
	lvl, msg := h.m.status.Text()
	if lvl != statusline.Error || len(msg) <= 80 {
		t.Fatalf("the refresh error: %v %q", lvl, msg)
	}
	s := h.screen()
	lines := strings.Split(s, "\n")
	two := flat(lines[len(lines)-2] + " " + lines[len(lines)-1])
	end := strings.Fields(msg)
	if !strings.Contains(two, end[len(end)-1]) && !strings.Contains(two, "L: the whole message") {
		t.Errorf("the end of the error (%q) is cut and nothing says where it is:\n%s", end[len(end)-1], two)
	}
	h.keys("L")
	if !h.m.showLog {
		t.Fatal("L did not open the message log")
	}
	box := flat(h.m.msgLog.View())
	for _, want := range []string{"first message", strings.Join(strings.Fields(msg), " "), e.clock.Now().Local().Format("15:04:05"), "Messages (2)"} {
		if !strings.Contains(box, want) {
			t.Errorf("the log lacks %q:\n%s", want, box)
		}
	}
	if strings.Index(box, "first message") > strings.Index(box, "HTTP 401") {
		t.Error("the log is not oldest first")
	}
	h.keys("esc")
	if h.m.showLog {
		t.Fatal("esc did not close the log")
	}
}

// TestEveryStateFitsAndKeepsHelpAndQuit: from 40x12 to 220x50, every state's
// screen fits the terminal, the help bar keeps `? help` and `q quit` visible whatever it cuts,
// and from 70 columns the list shows the date (a 36-hour window spans days) and who called.
func TestEveryStateFitsAndKeepsHelpAndQuit(t *testing.T) {
	sizes := [][2]int{{40, 12}, {60, 20}, {80, 24}, {100, 30}, {120, 40}, {220, 50}}
	states := []struct {
		name     string
		setup    func(h *harness)
		helpQuit bool // the help bar must end with ? help • q quit
	}{
		{"list", func(h *harness) {}, true},
		{"duplicates", func(h *harness) { h.keys("d") }, true},
		{"detail focus", func(h *harness) {
			h.selectRow(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound))
			h.keys("enter")
		}, true},
		{"help overlay", func(h *harness) { h.keys("?") }, true},
		{"filter typing", func(h *harness) { h.keys("/", "gmsend") }, false},
		{"retry dialog", func(h *harness) {
			h.selectRow(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound))
			h.keys("r")
			h.e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
		}, false},
		{"mark dialog", func(h *harness) {
			h.selectRow(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound))
			h.keys("m")
		}, false},
	}
	date := regexp.MustCompile(`\b\d\d-\d\d \d\d:\d\d`)
	for _, st := range states {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", st.name, sz[0], sz[1]), func(t *testing.T) {
				h := newHarness(t, newEnv(t), sz[0], sz[1])
				st.setup(h)
				s := h.screen()
				checkFits(t, s, sz[0], sz[1])
				lines := strings.Split(s, "\n")
				bar := lines[len(lines)-1]
				if st.helpQuit && (!strings.Contains(bar, "? help") || !strings.HasSuffix(strings.TrimRight(bar, " "), "q quit")) {
					t.Errorf("help bar %q lost ? help or q quit", bar)
				}
				if st.name == "list" && sz[0] >= 80 {
					if !date.MatchString(lines[5]) {
						t.Errorf("no date in the first row %q", lines[5])
					}
					if !strings.Contains(lines[4], "USER") {
						t.Errorf("no USER column: %q", lines[4])
					}
				}
			})
		}
	}
}

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

// Fake secrets with real shapes; none of them is real.
const (
	configuredKey = "ak_ConfiguredKey0123456789abc" // COMPOSIO_API_KEY of the test
	bearerToken   = "s3cr3tBearerTok3n0123456789xyz"
	githubToken   = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	slackToken    = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
	otherAPIKey   = "k3y-of-another-service-77aa99bb"
)

// writeJSONL writes records as a JSON Lines export and returns its path.
func writeJSONL(t *testing.T, name string, recs ...map[string]any) string {
	t.Helper()
	var b []byte
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, line...), '\n')
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// logRecord is a Logs API record in the wire shape a file export holds.
func logRecord(id, at, tool, user string, args, resp any, errMsg string) map[string]any {
	d := map[string]any{"request": map[string]any{"arguments": args}, "response": resp}
	status := "success"
	if errMsg != "" {
		d["error"] = map[string]any{"message": errMsg, "kind": "timeout"}
		status = "failed"
	}
	return map[string]any{
		"id": id, "timestamp": at, "status": status,
		"metadata": map[string]any{"tool_slug": tool, "toolkit_slug": "slack", "user_id": user, "connected_account_id": "ca_1"},
		"metrics":  map[string]any{"duration_ms": 1200},
		"data":     d,
	}
}

// TestSecretsHiddenUntilRevealedForTheSelectionOnly opens an export whose record carries the
// configured API key, an Authorization bearer header, another service's api_key, a GitHub
// token and a Slack token (in arguments, response, error message and user id, and in the
// provider's evidence): the screen shows none by default; x shows them for that execution,
// except the configured key, of which not even the start shows (the list's user column
// would cut it to a prefix); moving the selection away and back hides them again.
func TestSecretsHiddenUntilRevealedForTheSelectionOnly(t *testing.T) {
	args := map[string]any{
		"channel": "#deploys",
		"api_key": configuredKey,
		"service": map[string]any{"api_key": otherAPIKey},
		"headers": map[string]any{"Authorization": "Bearer " + bearerToken},
		"text":    "deploy with " + githubToken + " please",
	}
	resp := map[string]any{"successful": false, "echo": "posted as " + slackToken, "key": "used " + configuredKey}
	path := writeJSONL(t, "secrets.jsonl",
		logRecord("log_secret", "2026-03-02T11:00:00.000Z", "SLACK_SEND_MESSAGE", "u_"+configuredKey, args, resp,
			"timeout talking to slack with "+slackToken+" (key "+configuredKey+")"),
		logRecord("log_plain", "2026-03-02T10:00:00.000Z", "SLACK_SEND_MESSAGE", "u_2",
			map[string]any{"channel": "#general", "text": "hello"}, map[string]any{"successful": true}, ""),
	)
	src, err := source.Open(context.Background(), source.Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.parts.Source = src
	e.parts.APIKey = configuredKey
	h := newHarness(t, e, 200, 60)
	i := h.m.data.DS.Index("log_secret")
	if i < 0 {
		t.Fatal("log_secret not loaded")
	}
	h.selectRow(i)
	h.keys("enter")
	if !h.m.data.Exec(i).Detailed {
		t.Fatal("the full record did not load")
	}
	// The provider's evidence quotes secrets too.
	h.m.data.Provider["log_secret"] = model.ProviderState{State: model.ProviderFound, Verifier: "test", ReadTool: "SLACK_FETCH_CONVERSATION_HISTORY",
		ReadArgs: json.RawMessage(`{"channel":"#deploys","token":"` + githubToken + `"}`),
		Matches:  []model.EvidenceItem{{ID: "msg_1", Summary: "message by bot " + slackToken}},
		Reason:   "found with Bearer " + bearerToken, CheckedAt: sandboxNow}
	h.m.refreshPanes()

	revealable := map[string]string{"bearer token": bearerToken, "GitHub token": githubToken, "Slack token": slackToken, "another api_key": otherAPIKey}
	// seen is what a person can see: the rendered View, the detail and provider panes' whole
	// content (beyond the scrolled part), and the status line.
	seen := func() string {
		return strings.Join([]string{ansi.Strip(h.m.View().Content), ansi.Strip(h.m.detail.Content()), ansi.Strip(h.m.provider.Content())}, "\n")
	}
	screen := func() string { return ansi.Strip(h.m.View().Content) }
	hidden := func(step string) {
		t.Helper()
		s := seen()
		for what, v := range revealable {
			if strings.Contains(s, v) {
				t.Errorf("%s: the %s is on screen", step, what)
			}
		}
		if strings.Contains(s, configuredKey[:10]) {
			t.Errorf("%s: the configured API key (or its start) is on screen", step)
		}
		if !strings.Contains(screen(), "[REDACTED") {
			t.Errorf("%s: no redaction marker shows that something was hidden:\n%s", step, screen())
		}
		if strings.Contains(screen(), "secrets shown") {
			t.Errorf("%s: the screen says secrets are shown", step)
		}
	}
	hidden("by default")

	h.keys("x")
	s := screen()
	for what, v := range revealable {
		if !strings.Contains(s, v) {
			t.Errorf("after x the %s is not on screen:\n%s", what, s)
		}
	}
	if !strings.Contains(ansi.Strip(h.m.provider.Content()), "message by bot "+slackToken) {
		t.Error("after x the provider's evidence is still redacted")
	}
	if strings.Contains(seen(), configuredKey[:10]) {
		t.Error("after x the configured API key (or its start) is on screen")
	}
	if !strings.Contains(s, redact.KnownMarker) {
		t.Error("after x the configured API key's place is not marked")
	}
	if !strings.Contains(s, "Detail · secrets shown: x hides") {
		t.Errorf("the detail pane's title does not say secrets are shown:\n%s", s)
	}
	if !strings.Contains(s, "[x secrets shown]") {
		t.Error("the status line does not say secrets are shown")
	}

	h.keys("x")
	hidden("after x again")

	h.keys("x") // reveal, then move away and back: hidden again
	if !strings.Contains(screen(), githubToken) {
		t.Fatal("x did not reveal")
	}
	h.keys("esc", "j")
	if it, ok := h.m.list.Selected(); !ok || h.m.data.DS.ID(int(it.Exec)) != "log_plain" {
		t.Fatalf("j did not move the selection to log_plain")
	}
	if strings.Contains(screen(), "secrets shown") {
		t.Error("the reveal survived moving the selection")
	}
	h.keys("k")
	h.m.refreshPanes()
	hidden("after moving away and back")

	// y copies the log id; the bundle (b, Y) is redacted, with the configured key removed.
	h.keys("x", "b")
	if h.m.bundleText == "" {
		l, txt := h.m.status.Text()
		t.Fatalf("no bundle written: %v %s", l, txt)
	}
	for what, v := range revealable {
		if what != "another api_key" && strings.Contains(h.m.bundleText, v) {
			t.Errorf("the bundle holds the %s even though the screen was revealed", what)
		}
	}
	if strings.Contains(h.m.bundleText, configuredKey) {
		t.Error("the bundle holds the configured API key")
	}
}

// TestHugeResponseIsCutWithAMarker puts a 9 MiB response (and a 9 MiB error message) in the
// detail pane through the root model: the pane shows the first 64 KiB with a marker saying
// how big the value was, and the screen still renders at its size.
func TestHugeResponseIsCutWithAMarker(t *testing.T) {
	path := writeJSONL(t, "small.jsonl",
		logRecord("log_big", "2026-03-02T11:00:00.000Z", "GMAIL_FETCH_EMAILS", "u_1", map[string]any{"q": "in:inbox"}, map[string]any{"successful": true}, ""))
	src, err := source.Open(context.Background(), source.Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.parts.Source = src
	h := newHarness(t, e, 120, 40)
	h.keys("enter")
	i := h.m.data.DS.Index("log_big")
	big := h.m.data.Exec(i)
	const size = 9 << 20
	resp, err := json.Marshal(map[string]any{"data": strings.Repeat("a", size)})
	if err != nil {
		t.Fatal(err)
	}
	big.Response = resp
	big.Arguments = json.RawMessage(`{"ids":[` + strings.Repeat(`"id_0123456789",`, 200_000) + `"last"]}`)
	big.Error = &model.ExecError{Message: strings.Repeat("line of a huge error message\n", size/29)}
	h.m.data.Details["log_big"] = *big
	start := time.Now()
	h.m.refreshPanes()
	h.keys("G") // the detail pane has focus: its bottom, where the response's marker is
	took := time.Since(start)

	content := ansi.Strip(h.m.detail.Content())
	if n := strings.Count(content, "… [truncated: "); n != 3 {
		t.Errorf("%d truncation markers, want 3 (arguments, error, response)", n)
	}
	if !strings.Contains(content, "… [truncated: 9 MiB, showing the first 64 KiB") {
		t.Errorf("the response's marker is missing:\n%s", content[max(len(content)-400, 0):])
	}
	if len(content) > 4*common.MaxShown {
		t.Errorf("the pane holds %d bytes for three values cut to %d", len(content), common.MaxShown)
	}
	s := h.screen()
	checkFits(t, s, 120, 40)
	if !strings.Contains(s, "[truncated: 9 MiB") {
		t.Errorf("the marker is not on screen at the bottom of the pane:\n%s", s)
	}
	t.Logf("9 MiB values rendered and scrolled in %v; the pane has %d lines", took, h.m.detail.Lines())
}

// The TUI's detail pane never shows the configured key in any form, hidden or revealed (the
// same forms the CLI's table test covers; the oracle is the policy's own Leaks).
func TestDetailPaneNeverShowsTheKeyInAnyForm(t *testing.T) {
	const key = "zz9ShapelessKey0123456789abcdef"
	esc, pct := "", ""
	for i := range len(key) {
		esc += fmt.Sprintf(`\u%04x`, key[i])
		pct += fmt.Sprintf("%%%02X", key[i])
	}
	forms := map[string]string{
		"raw": key, "json-escaped": esc, "percent-encoded": "https://cb.example/?k=" + pct,
		"base64": base64.StdEncoding.EncodeToString([]byte(key)), "basic credential": "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key)),
	}
	oracle := redact.NewPolicy(key)
	var b strings.Builder
	n := 0
	for _, form := range forms {
		n++
		fmt.Fprintf(&b, `{"id":"log_k%d","timestamp":"2026-03-02T11:%02d:00.000Z","status":"failed","metadata":{"tool_slug":"SLACK_SEND_MESSAGE","toolkit_slug":"slack","user_id":"u_%d"},`+
			`"data":{"error":{"kind":"timeout","message":"slack said %s"},"request":{"arguments":{"channel":"#c","text":"%s"}}}}`+"\n", n, n, n, form, form)
	}
	path := filepath.Join(t.TempDir(), "keys.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.useFile(path)
	e.parts.APIKey = key
	for k := 1; k <= n; k++ {
		id := fmt.Sprintf("log_k%d", k)
		h := newHarness(t, e, 200, 60)
		h.filterTo(id)
		h.keys("enter")
		for _, reveal := range []bool{false, true} {
			if reveal {
				h.keys("x")
			}
			seen := ansi.Strip(h.m.View().Content) + "\n" + ansi.Strip(h.m.detail.Content())
			if !strings.Contains(seen, "slack said") {
				t.Fatalf("%s: the detail pane does not show the record:\n%s", id, seen)
			}
			if oracle.Leaks(seen) {
				t.Errorf("%s (reveal %v): the configured key shows in some form:\n%s", id, reveal, ansi.Strip(h.m.detail.Content()))
			}
		}
	}
}
