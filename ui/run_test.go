package ui

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/internal/testkit/benchdata"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/ui/theme"
	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL journal's driver, to look at it
	_ "modernc.org/sqlite"             // a schema-1 journal is made by hand
)

func TestMouseCaptureToggles(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	if h.m.View().MouseMode != tea.MouseModeNone {
		t.Fatal("mouse captured by default: the terminal's text selection would not work")
	}
	h.keys("M")
	if h.m.View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("M did not capture the mouse")
	}
	// A click on the third row selects it.
	h.send(tea.MouseClickMsg{X: 10, Y: h.m.lay.list.y + 4, Button: tea.MouseLeft})
	if h.m.list.Cursor() != 2 {
		t.Errorf("click selected row %d", h.m.list.Cursor())
	}
	h.send(tea.MouseWheelMsg{X: 10, Y: h.m.lay.list.y + 4, Button: tea.MouseWheelDown})
	if h.m.list.Cursor() != 5 {
		t.Errorf("wheel moved to %d", h.m.list.Cursor())
	}
	if !h.m.View().AltScreen {
		t.Error("not on the alternate screen")
	}
}

// Colour control: --color never/always win; in auto NO_COLOR (any value) turns
// colour off, CLICOLOR_FORCE (not 0) on; otherwise the terminal decides.
func TestColorProfile(t *testing.T) {
	tests := []struct {
		mode, noColor, force string
		want                 colorprofile.Profile
		forced               bool
	}{
		{"", "", "", colorprofile.TrueColor, false},
		{ColorAuto, "1", "", colorprofile.Ascii, true},
		{ColorAuto, "0", "", colorprofile.Ascii, true}, // no-color.org: any non-empty value
		{ColorAuto, "yes", "1", colorprofile.Ascii, true},
		{ColorAuto, "", "1", colorprofile.TrueColor, true},
		{ColorAuto, "", "0", colorprofile.TrueColor, false},
		{ColorNever, "", "1", colorprofile.Ascii, true},
		{ColorAlways, "1", "", colorprofile.TrueColor, true},
	}
	for _, tt := range tests {
		env := map[string]string{"NO_COLOR": tt.noColor, "CLICOLOR_FORCE": tt.force}
		p, forced := ColorProfile(tt.mode, func(k string) string { return env[k] })
		if forced != tt.forced || forced && p != tt.want {
			t.Errorf("--color %q NO_COLOR=%q CLICOLOR_FORCE=%q: %v %v, want %v %v", tt.mode, tt.noColor, tt.force, p, forced, tt.want, tt.forced)
		}
	}
	if ValidColor("sometimes") == nil || ValidColor(ColorNever) != nil {
		t.Error("ValidColor")
	}
}

// The built-in palettes: every colour valid, ansi16 only indices 0-15, chosen by --theme or the
// config's [theme] palette, and overridable key by key.
func TestPalettes(t *testing.T) {
	for _, name := range []string{"default", "high-contrast", "ansi16"} {
		p, err := theme.Named(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Override(nil); err != nil {
			t.Fatal(err)
		}
		o, err := ApplyConfig(Options{}, config.Config{Theme: map[string]string{"palette": name, "accent": "#123456"}})
		if err != nil || o.Theme.Accent != "#123456" {
			t.Fatalf("%s: %v %+v", name, err, o.Theme)
		}
		o, _ = ApplyConfig(Options{Palette: name}, config.Config{})
		want := p
		if *o.Theme != want {
			t.Errorf("--theme %s: %+v", name, o.Theme)
		}
	}
	a := theme.ANSI16()
	for _, c := range []string{a.Text, a.Muted, a.Accent, a.Border, a.BorderFocus, a.SelectedFG, a.SelectedBG, a.Danger, a.Warn, a.OK, a.Info, a.Highlight} {
		if n, err := strconv.Atoi(c); err != nil || n > 15 {
			t.Errorf("ansi16 colour %q is not 0-15", c)
		}
	}
	if _, err := ApplyConfig(Options{Palette: "neon"}, config.Config{}); err == nil {
		t.Error("an unknown palette was accepted")
	}
}

func TestApplyConfigRebindsAndRecolours(t *testing.T) {
	o, err := ApplyConfig(Options{}, config.Config{Theme: map[string]string{"accent": "#112233"}, Keys: map[string][]string{"retry": {"ctrl+r"}}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Theme.Accent != "#112233" || o.Keys.Retry.Keys()[0] != "ctrl+r" {
		t.Errorf("theme %q keys %v", o.Theme.Accent, o.Keys.Retry.Keys())
	}
	if _, err := ApplyConfig(Options{}, config.Config{Path: "c.toml", Keys: map[string][]string{"retry": {"q"}}}); err == nil || !strings.Contains(err.Error(), "c.toml") {
		t.Errorf("a conflicting binding: %v", err)
	}
}

// panicky is the real backend with a verifier that panics: the program must stop and give the
// terminal back, not leave it in raw mode on the alternate screen.
type panicky struct{ Backend }

func (panicky) Verify(context.Context, *model.Execution) model.ProviderState { panic("verifier bug") }

func TestPanicInACommandRestoresTheTerminal(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	m := New(context.Background(), panicky{e.deps().App}, e.ui)
	p := tea.NewProgram(probe{m}, tea.WithInput(&bytes.Buffer{}), tea.WithOutput(&syncWriter{w: &out}), tea.WithWindowSize(120, 40), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	loaded := func() bool {
		ch := make(chan bool, 1)
		p.Send(inspect(func(m *Model) { ch <- m.data.DS.Len() > 0 }))
		select {
		case ok := <-ch:
			return ok
		case <-time.After(5 * time.Second):
			return false
		}
	}
	for deadline := time.Now().Add(10 * time.Second); !loaded(); {
		if time.Now().After(deadline) {
			t.Fatal("the demo did not load")
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.Send(tea.KeyPressMsg{Code: 'v', Text: "v"})
	select {
	case err := <-done:
		if !errors.Is(err, tea.ErrProgramPanic) {
			t.Fatalf("Run returned %v, want ErrProgramPanic", err)
		}
	case <-time.After(10 * time.Second):
		p.Kill()
		t.Fatal("the program did not stop after a panic")
	}
	if !bytes.Contains(out.Bytes(), []byte("\x1b[?1049l")) {
		t.Error("the alternate screen was not left after the panic")
	}
}

// syncWriter serialises writes (the renderer and the panic handler may both write).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// listRow matches a row of the execution list (the focused list box, a date and time).
var listRow = regexp.MustCompile(`^┃.. \d\d-\d\d \d\d:\d\d:\d\d `)

// requireTmux returns tmux's path. Without tmux (or in -short mode) the end-to-end tests are
// skipped, unless EXECTRIAGE_REQUIRE_TMUX=1 (CI sets it): then they must run, and a missing
// tmux fails.
func requireTmux(t *testing.T) string {
	t.Helper()
	required := os.Getenv("EXECTRIAGE_REQUIRE_TMUX") == "1"
	if testing.Short() && !required {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if required {
			t.Fatal("EXECTRIAGE_REQUIRE_TMUX=1 but tmux is not installed: install it (apt-get install -y tmux)")
		}
		t.Skip("tmux is not installed, so the end-to-end test cannot run: install it (apt-get install -y tmux); .ci/run does")
	}
	return tmux
}

// buildBinary builds exectriage into a temporary directory.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "exectriage")
	build := exec.Command("go", "build", "-o", bin, "github.com/exectriage/exectriage")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// tmuxServer is a private tmux server (its own socket, no config file) for one test.
type tmuxServer struct {
	t    *testing.T
	tmux string
	sock string
}

func newTmuxServer(t *testing.T, tmux, name string) *tmuxServer {
	s := &tmuxServer{t: t, tmux: tmux, sock: fmt.Sprintf("exectriage-%s-%d", name, os.Getpid())}
	t.Cleanup(func() { s.run("kill-server") })
	return s
}

func (s *tmuxServer) run(args ...string) (string, error) {
	out, err := exec.Command(s.tmux, append([]string{"-L", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *tmuxServer) must(args ...string) string {
	s.t.Helper()
	out, err := s.run(args...)
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (s *tmuxServer) capture(target string, escapes bool) string {
	s.t.Helper()
	args := []string{"capture-pane", "-p", "-t", target}
	if escapes {
		args = append(args, "-e")
	}
	return s.must(args...)
}

func (s *tmuxServer) display(target, format string) string {
	out, _ := s.run("display-message", "-p", "-t", target, format)
	return strings.TrimSpace(out)
}

func (s *tmuxServer) send(target string, keys ...string) {
	s.t.Helper()
	s.must(append([]string{"send-keys", "-t", target}, keys...)...)
}

// waitFor polls the pane until ok holds for its (plain) screen.
func (s *tmuxServer) waitFor(target, what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var scr string
	for time.Now().Before(deadline) {
		scr = s.capture(target, false)
		if ok(scr) {
			return scr
		}
		time.Sleep(40 * time.Millisecond)
	}
	s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
	return ""
}

// buffers lists tmux's paste buffers (an OSC 52 write creates one when set-clipboard is on).
func (s *tmuxServer) buffers() string {
	out, _ := s.run("list-buffers", "-F", "#{buffer_name}: #{buffer_sample}")
	return strings.TrimSpace(out)
}

func contains(texts ...string) func(string) bool {
	return func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	}
}

// TestEndToEndInTmux runs the real binary in a real terminal (tmux at 120x40): the demo loads,
// the list shows, the filter narrows it, the help screen opens and closes, and q exits leaving
// the terminal as it was (normal screen, cursor shown, mouse reporting off).
func TestEndToEndInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	ts := newTmuxServer(t, tmux, "e2e")

	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color EXECTRIAGE_WHO=e2e %q --demo --journal %q; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin, filepath.Join(dir, "journal.db"))
	ts.must("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "sh", "-c", script)
	const pane = "e2e"

	// The list, once the demo has loaded. Every wait states the whole screen it expects (rows
	// included), never part of it: the list fills in from commands that run after the header
	// changes, and a check made between the two would fail on a loaded machine.
	countRows := func(s string) int {
		n := 0
		for l := range strings.SplitSeq(s, "\n") {
			if listRow.MatchString(l) {
				n++
			}
		}
		return n
	}
	s := ts.waitFor(pane, "the demo to load", func(s string) bool {
		return contains("[DEMO]", "execs", "refreshed", "TIME", "TOOL", "STATUS")(s) && countRows(s) >= 5
	})
	if ts.display(pane, "#{alternate_on}") != "1" {
		t.Error("the TUI is not on the alternate screen")
	}
	lines := strings.Split(s, "\n")
	if len(lines) < 40 {
		t.Errorf("the screen has %d lines", len(lines))
	}
	rows := 0
	for _, l := range lines {
		if listRow.MatchString(l) {
			rows++
		}
	}
	if rows < 5 {
		t.Errorf("the list shows %d execution rows:\n%s", rows, s)
	}

	// The filter: a field term keeps only Gmail sends.
	ts.send(pane, "/")
	ts.waitFor(pane, "the filter prompt", contains("/gmail send"))
	ts.send(pane, "-l", "tool:GMAIL_SEND_EMAIL")
	ts.send(pane, "Enter")
	s = ts.waitFor(pane, "the filtered list", func(s string) bool {
		if !strings.Contains(s, "Executions · /tool:GMAIL_SEND_EMAIL") || countRows(s) == 0 {
			return false
		}
		for l := range strings.SplitSeq(s, "\n") {
			if listRow.MatchString(l) && !strings.Contains(l, "GMAIL_SEND_EMAIL") {
				return false // the filter's rows have not replaced the list's yet
			}
		}
		return true
	})
	kept := 0
	for l := range strings.SplitSeq(s, "\n") {
		if !listRow.MatchString(l) {
			continue
		}
		if !strings.Contains(l, "GMAIL_SEND_EMAIL") {
			t.Errorf("a row that is not a Gmail send survived the filter: %q", l)
		}
		kept++
	}
	if kept == 0 {
		t.Errorf("the filter kept no rows:\n%s", s)
	}
	ts.send(pane, "Escape")
	ts.waitFor(pane, "the filter to clear", func(s string) bool { return !strings.Contains(s, "/tool:GMAIL_SEND_EMAIL") })

	// The help screen.
	ts.send(pane, "?")
	ts.waitFor(pane, "the help screen", contains("Keys", "Navigate", "Act on selection", "Program", "q, ? or esc to close"))
	ts.send(pane, "?")
	ts.waitFor(pane, "the help screen to close", func(s string) bool { return !strings.Contains(s, "Act on selection") })
	// q on the help screen closes it; the program keeps running.
	ts.send(pane, "?")
	ts.waitFor(pane, "the help screen again", contains("Act on selection"))
	ts.send(pane, "q")
	ts.waitFor(pane, "q to close the help screen, not the program", func(s string) bool {
		return !strings.Contains(s, "Act on selection") && strings.Contains(s, "Executions") && !strings.Contains(s, "EXITED")
	})

	// A clean exit: the shell's next line runs and the terminal is as it was.
	ts.send(pane, "q")
	s = ts.waitFor(pane, "exit", contains("EXITED:0"))
	if strings.Contains(s, "Executions") || strings.Contains(s, "[DEMO]") {
		t.Errorf("the TUI's screen is still visible after exit:\n%s", s)
	}
	for format, want := range map[string]string{"#{alternate_on}": "0", "#{cursor_flag}": "1", "#{mouse_any_flag}": "0"} {
		if got := ts.display(pane, format); got != want {
			t.Errorf("after exit %s = %q, want %q", format, got, want)
		}
	}
}

// Hostile strings: each would change the terminal (title, clipboard, colours, screen, cursor,
// links, reading order) if it reached it as bytes.
var hostile = map[string]string{
	"osc0":      "\x1b]0;PWNED\x07",
	"osc2":      "\x1b]2;PWNED\x1b\\",
	"osc52":     "\x1b]52;c;cHduZWQ=\x07",
	"osc52tmux": "\x1bPtmux;\x1b\x1b]52;c;cHduZWQ=\x07\x1b\\", // DCS passthrough around OSC 52
	"osc8":      "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
	"csi":       "\x1b[31mRED\x1b[38;2;1;2;3mRGB\x1b[48;2;3;2;1m\x1b[2J\x1b[H\x1b[10;10H\x1b[?1049l\x1b[?25l",
	"dcs":       "\x1bP$qm\x1b\\\x1bP1;1|17/ab\x1b\\", // DECRQSS asks the terminal to answer
	"c1":        "\u009b31m\u009d0;PWNED\u009c",
	"bidi":      "\u202eevil\u202c \u2066iso\u2069 \u202aembed\u202c",
	"zw":        "zero\u200bwidth\u200d\u2060\ufeffchars",
	"nul":       "nul\x00byte",
}

func allHostile() string {
	var b strings.Builder
	for _, k := range []string{"osc0", "osc2", "osc52", "osc52tmux", "osc8", "csi", "dcs", "c1", "bidi", "zw", "nul"} {
		b.WriteString(" " + k + ":" + hostile[k])
	}
	return b.String()
}

// invalidUTF8 is spliced into the file as raw bytes (JSON encoders would repair it): a lone
// continuation byte, an 8-bit C1 CSI, an overlong encoding.
const invalidUTF8 = "\x80\x9b31m\xc0\xaf\xff"

// writeHostileFile writes the records the tmux test opens: hostile text in every field a
// person sees (tool slug, user, error message, arguments, response), a 100 KB line, and raw
// invalid UTF-8.
func writeHostileFile(t *testing.T, path string) []string {
	t.Helper()
	all := allHostile()
	long := strings.Repeat("L", 100_000)
	type rec struct {
		id, tool, user, msg string
		args, resp          any
	}
	recs := []rec{
		{"log_h1", "GMAIL_SEND_EMAIL" + hostile["osc0"], "u1" + hostile["osc2"], "timeout" + hostile["osc52"] + hostile["csi"],
			map[string]any{"subject": hostile["osc8"] + hostile["dcs"], "body": hostile["c1"] + hostile["bidi"] + hostile["zw"] + hostile["nul"]},
			map[string]any{"error": hostile["osc0"] + hostile["osc52tmux"]}},
		{"log_h2", "SLACK_SEND_MESSAGE" + hostile["csi"], "u2" + hostile["osc52"], "boom" + hostile["osc2"] + hostile["dcs"],
			map[string]any{"text": all}, map[string]any{"echo": all, "nested": []any{all, map[string]any{all: all}}}},
		{"log_h3", "GITHUB_CREATE_AN_ISSUE" + hostile["bidi"], "u3" + hostile["zw"] + hostile["c1"], hostile["osc52"] + long + hostile["osc0"],
			map[string]any{"blob": hostile["osc2"] + long + hostile["osc52"]}, map[string]any{"line": long + all}},
		{"log_h4", "HUBSPOT_CREATE_CONTACT@@BAD@@", "u4@@BAD@@", "bad bytes @@BAD@@" + hostile["nul"],
			map[string]any{"name": "@@BAD@@" + hostile["osc0"]}, map[string]any{"raw": "@@BAD@@"}},
	}
	var buf bytes.Buffer
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.id
		line, err := json.Marshal(map[string]any{
			"id": r.id, "timestamp": fmt.Sprintf("2026-03-02T11:0%d:00.000Z", 9-i), "status": "failed",
			"metadata": map[string]any{"tool_slug": r.tool, "toolkit_slug": "gmail", "user_id": r.user, "connected_account_id": "ca_" + strconv.Itoa(i)},
			"metrics":  map[string]any{"duration_ms": 61000},
			"data": map[string]any{
				"request":  map[string]any{"arguments": r.args},
				"response": r.resp,
				"error":    map[string]any{"message": r.msg, "kind": "timeout"},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(bytes.ReplaceAll(line, []byte("@@BAD@@"), []byte(invalidUTF8)))
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return ids
}

// dataColour is the colour the hostile data sets (38;2;1;2;3 and 48;2;3;2;1: RGB colours the
// theme never uses). The app runs in truecolor, so if the data's SGR reached the renderer as a
// style, tmux would hold it in its cells and capture-pane -e would print it.
var dataColour = regexp.MustCompile(`\x1b\[(?:[0-9:]*;)*[34]8[;:]2[;:]+(?:1[;:]2[;:]3|3[;:]2[;:]1)[;:m]`)

// sgr matches the Select Graphic Rendition sequences capture-pane -e writes for cell styles.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestHostileRecordsInTmux opens an export full of terminal escape sequences in the real
// binary under tmux, opens and scrolls each record's detail, and checks with tmux itself that
// nothing acted: the pane title is the app's own (never PWNED), no paste buffer was created
// although set-clipboard is on (a control shows that an OSC 52 printed in another window does
// create one, so this check can fail), the screen holds the escapes as visible text and no
// ESC or colour from the data, the header is still on the first row, and q restores the
// terminal. The file's own name carries an OSC 2 and an OSC 52 too: it reaches the window
// title the app sets (a path around the renderer, which drops escapes from the screen's text).
func TestHostileRecordsInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	// A file name is data too: it is in the header and in the title the app sets.
	name := "hostile" + "\x1b]2;OWNED\x07\x1b]52;c;b3duZWQ=\x07" + ".jsonl"
	file := filepath.Join(dir, name)
	ids := writeHostileFile(t, file)
	ts := newTmuxServer(t, tmux, "hostile")

	// The server, with OSC 52 turned into paste buffers.
	ts.must("new-session", "-d", "-s", "h", "-n", "idle", "-x", "120", "-y", "40", "sleep", "600")
	ts.must("set-option", "-s", "set-clipboard", "on")
	ts.must("set-option", "-g", "allow-rename", "on")

	// The control: a real OSC 52 and OSC 2 printed by a shell in another window do set a
	// buffer and the title, so the checks below would see a leak.
	ts.must("new-window", "-d", "-t", "h:", "-n", "control", "sh", "-c",
		`printf '\033]52;c;Y29udHJvbA==\007'; printf '\033]2;CONTROLTITLE\033\\'; echo printed; sleep 600`)
	ts.waitFor("h:control", "the control to print", contains("printed"))
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(ts.buffers(), "control") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if b := ts.buffers(); !strings.Contains(b, "control") {
		t.Fatalf("control: an OSC 52 printed in tmux did not create a paste buffer (buffers %q): the clipboard check below could not fail", b)
	}
	if got := ts.display("h:control", "#{pane_title}"); got != "CONTROLTITLE" {
		t.Fatalf("control: an OSC 2 printed in tmux did not set the pane title (%q): the title check below could not fail", got)
	}
	ts.must("delete-buffer")
	if b := ts.buffers(); b != "" {
		t.Fatalf("buffers left after the control: %q", b)
	}

	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	// hostile*.jsonl: the shell passes the name's ESC and BEL through as bytes.
	script := fmt.Sprintf("cd %q && env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color COLORTERM=truecolor EXECTRIAGE_WHO=e2e %q --file hostile*.jsonl --journal %q; echo EXITED:$?; sleep 120",
		dir, home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin, filepath.Join(dir, "journal.db"))
	ts.must("new-window", "-t", "h:", "-n", "app", "sh", "-c", script)
	const pane = "h:app"
	const shownName = `hostile\x1b]2;OWNED\x07\x1b]52;c;b3duZWQ=\x07.jsonl`
	const appTitle = "exectriage · FILE " + shownName

	ts.waitFor(pane, "the file to load", contains("[FILE "+shownName+"]", "4 execs", "TIME", "TOOL"))

	// check is run after every step: tmux's view of the terminal state.
	check := func(step string, wantVisible bool) {
		t.Helper()
		if got := ts.display(pane, "#{pane_title}"); got != appTitle {
			t.Errorf("%s: the pane title is %q, want the app's own %q", step, got, appTitle)
		}
		if b := ts.buffers(); b != "" {
			t.Errorf("%s: a paste buffer was set (an OSC 52 reached the terminal): %q", step, b)
		}
		if _, err := ts.run("show-buffer"); err == nil {
			t.Errorf("%s: show-buffer succeeded: a clipboard write reached the terminal", step)
		}
		if ts.display(pane, "#{alternate_on}") != "1" {
			t.Errorf("%s: the alternate screen was left", step)
		}
		raw := ts.capture(pane, true)
		if m := dataColour.FindString(raw); m != "" {
			t.Errorf("%s: the data's colour %q reached the terminal", step, m)
		}
		if rest := sgr.ReplaceAllString(raw, ""); strings.ContainsRune(rest, 0x1b) {
			i := strings.IndexRune(rest, 0x1b)
			t.Errorf("%s: a raw ESC on screen: %q", step, rest[max(i-40, 0):min(i+40, len(rest))])
		}
		plain := ts.capture(pane, false)
		lines := strings.Split(strings.TrimRight(plain, "\n"), "\n")
		if len(lines) != 40 {
			t.Errorf("%s: %d lines on a 40-line pane", step, len(lines))
		}
		if !strings.HasPrefix(lines[0], "exectriage │ [FILE "+shownName+"] │ 4 execs") {
			t.Errorf("%s: the header is not on the first row (screen cleared or overwritten):\n%s", step, plain)
		}
		if !strings.Contains(lines[3], "Executions") {
			t.Errorf("%s: the list's frame is not under the header:\n%s", step, plain)
		}
		for _, bad := range []string{"\u202e", "\u2066", "\u200b", "\ufeff", "\u009b", "click me\n"} {
			if strings.Contains(plain, bad) {
				t.Errorf("%s: %q reached the screen", step, bad)
			}
		}
		if wantVisible && !strings.Contains(plain, `\x1b]`) {
			t.Errorf("%s: the escapes are not shown as visible text:\n%s", step, plain)
		}
	}
	check("the list", true)

	for i, id := range ids {
		step := "detail of " + id
		ts.send(pane, "Enter")
		s := ts.waitFor(pane, step, contains("id        "+id, "── arguments"))
		check(step, true)
		ts.send(pane, "G") // the bottom of the detail: the response
		s2 := ts.waitFor(pane, step+" scrolled", contains("100% ━"))
		check(step+" scrolled", false)
		if i == 0 { // the escapes read as text, wherever they were
			for _, want := range []string{`GMAIL_SEND_EMAIL\x1b]0;PWNED\x07`, `u1\x1b]2;PWNED\x1b\`, `\x1b]52;c;cHduZWQ=\x07\x1b[31mRED`,
				`\u202eevil`, `\u001b]8;;https://evil.example/`, `\u001bPtmux;`} {
				if !strings.Contains(s+s2, want) {
					t.Errorf("%s: %q is not shown as text", step, want)
				}
			}
		}
		ts.send(pane, "Tab", "G") // the provider pane, then back to the list and down a row
		ts.waitFor(pane, step+": the provider pane focused", contains("┏━ Provider state"))
		check(step+" provider", false)
		ts.send(pane, "Escape") // alone: ESC and a key sent together read as alt+key
		ts.waitFor(pane, step+": the list focused", contains("┏━ Executions"))
		ts.send(pane, "j")
	}

	ts.send(pane, "q")
	s := ts.waitFor(pane, "exit", contains("EXITED:0"))
	if strings.Contains(s, "Executions") {
		t.Errorf("the TUI's screen is still visible after exit:\n%s", s)
	}
	for format, want := range map[string]string{"#{alternate_on}": "0", "#{cursor_flag}": "1", "#{mouse_any_flag}": "0"} {
		if got := ts.display(pane, format); got != want {
			t.Errorf("after exit %s = %q, want %q", format, got, want)
		}
	}
	if got := ts.display(pane, "#{pane_title}"); strings.Contains(got, "PWNED") {
		t.Errorf("after exit the pane title is %q", got)
	}
	if b := ts.buffers(); b != "" {
		t.Errorf("after exit a paste buffer exists: %q", b)
	}
}

// TestExportInTmux opens a generated export of 30,000 executions in the real binary: the
// rows stream in, the duplicate groups appear when the load ends (found by re-reading the
// candidates from the file), the duplicates view lists them, and opening a member shows its
// arguments, read back from the file by offset (the list itself holds compact rows only).
func TestExportInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	file := filepath.Join(dir, "export.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	st, err := benchdata.Write(context.Background(), f, benchdata.Config{N: 30_000, Seed: 11})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || st.Duplicates == 0 {
		t.Fatalf("writing the export: %v (%d duplicates)", err, st.Duplicates)
	}
	ts := newTmuxServer(t, tmux, "export")
	home := filepath.Join(dir, "home")
	script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color %q --file %q --journal %q; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin, file, filepath.Join(dir, "journal.db"))
	ts.must("new-session", "-d", "-s", "x", "-x", "160", "-y", "60", "sh", "-c", script)
	const pane = "x"

	groups := regexp.MustCompile(`30,000 execs .* ([1-9][0-9,]*) dup groups`)
	s := ts.waitFor(pane, "the export to load with its duplicate groups", func(s string) bool {
		return groups.MatchString(s) && strings.Contains(s, "refreshed")
	})
	if !strings.Contains(s, "[FILE export.jsonl]") {
		t.Errorf("the header does not name the file:\n%s", s)
	}

	// The duplicates view, then the first group's first member.
	ts.send(pane, "d")
	ts.waitFor(pane, "the duplicates view", contains("Duplicate groups", "DUP×"))
	ts.send(pane, "j")
	s = ts.waitFor(pane, "a member's full record", contains("── arguments", "duplicate"))
	if !strings.Contains(s, "{") {
		t.Errorf("the arguments are not shown:\n%s", s)
	}

	ts.send(pane, "q")
	ts.waitFor(pane, "exit", contains("EXITED:0"))
}

// In a terminal, an export that cannot be one exits before the TUI with one line and exit 2:
// a directory, an empty file, binary data, a file without one readable record (each opened an
// empty TUI before).
func TestBadFileExitsBeforeTheTUIInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	bad := map[string]struct {
		body []byte
		want string
	}{
		"empty.jsonl":   {[]byte{}, "empty file"},
		"binary.dat":    {append([]byte{0x7f, 'E', 'L', 'F', 0}, make([]byte, 64)...), "binary data"},
		"norecs.jsonl":  {[]byte("{\"x\":1}\n{\"y\":2}\n"), "no readable record"},
		"directory.d/x": {nil, "is a directory"},
	}
	ts := newTmuxServer(t, tmux, "badfile")
	home := filepath.Join(dir, "home")
	n := 0
	for name, c := range bad {
		path := filepath.Join(dir, name)
		if c.body == nil {
			path = filepath.Dir(path)
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, c.body, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
		pane := fmt.Sprintf("b%d", n)
		script := fmt.Sprintf("env -u COMPOSIO_API_KEY HOME=%q XDG_STATE_HOME=%q TERM=xterm-256color %q --file %q --journal %q; echo EXITED:$?; sleep 120",
			home, filepath.Join(home, "state"), bin, path, filepath.Join(dir, "journal.db"))
		ts.must("new-session", "-d", "-s", pane, "-x", "120", "-y", "30", "sh", "-c", script)
		s := ts.waitFor(pane, name+" to be refused", contains("EXITED:"))
		if !strings.Contains(s, "EXITED:2") || !strings.Contains(s, c.want) || strings.Contains(s, "Executions") {
			t.Errorf("%s: want exit 2 and %q before any TUI:\n%s", name, c.want, s)
		}
	}
}

// TestColorControlInTmux: the real binary in a 256-colour terminal draws in colour by default,
// none with --color never or NO_COLOR, and the 16-colour palette uses only the basic SGR
// colours.
func TestColorControlInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	ts := newTmuxServer(t, tmux, "color")
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	trueColour := regexp.MustCompile(`\x1b\[[0-9;]*38;(2|5);`)
	anyColour := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;)`)
	for i, tt := range []struct {
		name, env, flags string
		check            func(screen string) string
	}{
		{"default", "", "", func(s string) string {
			if !trueColour.MatchString(s) {
				return "no colour"
			}
			return ""
		}},
		{"--color never", "", "--color never", func(s string) string {
			if anyColour.MatchString(s) {
				return "colour with --color never"
			}
			return ""
		}},
		{"NO_COLOR", "NO_COLOR=1", "", func(s string) string {
			if anyColour.MatchString(s) {
				return "colour with NO_COLOR"
			}
			return ""
		}},
		{"ansi16", "", "--theme ansi16", func(s string) string {
			if trueColour.MatchString(s) || !anyColour.MatchString(s) {
				return "not the 16 basic colours"
			}
			return ""
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			session := fmt.Sprintf("c%d", i)
			script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR -u CLICOLOR_FORCE %s HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color %q --demo --readonly %s; sleep 60",
				tt.env, home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin, tt.flags)
			ts.must("new-session", "-d", "-s", session, "-x", "100", "-y", "30", "sh", "-c", script)
			ts.waitFor(session, "the demo to load", contains("[DEMO]", "refreshed"))
			if msg := tt.check(ts.capture(session, true)); msg != "" {
				t.Error(msg)
			}
			ts.send(session, "q")
		})
	}
}

// TestReadOnlyTUIWritesNothingInTmux: the real TUI under --readonly, used for a while (keys
// that would retry, mark and verify pressed too), leaves a schema-1 journal byte-identical (no
// migration), creates no state file, and on an empty PostgreSQL database creates no table
// (a read-only TUI migrated schema 1 to 2 and created the schema on PostgreSQL).
func TestReadOnlyTUIWritesNothingInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	ts := newTmuxServer(t, tmux, "ro")
	home := filepath.Join(dir, "home")
	state := filepath.Join(home, "state")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.db")
	raw, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE schema_version (version BIGINT NOT NULL)`, `INSERT INTO schema_version (version) VALUES (1)`,
		`CREATE TABLE verdicts (id TEXT PRIMARY KEY, execution_id TEXT NOT NULL, verdict TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', who TEXT NOT NULL, at BIGINT NOT NULL)`,
		`INSERT INTO verdicts VALUES ('v1', 'log_x', 'ignored', '', 'ana', 1)`,
	} {
		if _, err := raw.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	before, _ := os.ReadFile(old)
	journals := []string{old}
	if dsn := os.Getenv("EXECTRIAGE_TEST_POSTGRES"); dsn != "" {
		journals = append(journals, testkit.FreshPostgresSchema(t, dsn, "ro_"))
	}
	for i, j := range journals {
		session := fmt.Sprintf("ro%d", i)
		script := fmt.Sprintf("env -u COMPOSIO_API_KEY HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color %q --readonly --demo --journal %q; sleep 60",
			home, state, filepath.Join(home, "config"), bin, j)
		ts.must("new-session", "-d", "-s", session, "-x", "120", "-y", "40", "sh", "-c", script)
		ts.waitFor(session, "the demo to load", contains("[DEMO]", "READ-ONLY", "refreshed"))
		ts.send(session, "a", "Down", "r", "Escape", "m", "Escape", "v", "Escape", "b", "q")
		time.Sleep(500 * time.Millisecond)
		if strings.HasPrefix(j, "postgres") {
			db, err := sql.Open("pgx", j)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&n); err != nil || n != 0 {
				t.Errorf("a read-only TUI made %d tables on an empty PostgreSQL database (%v)", n, err)
			}
			db.Close()
			continue
		}
		if after, _ := os.ReadFile(old); !bytes.Equal(before, after) {
			t.Error("a read-only TUI changed a schema-1 journal")
		}
	}
	if entries, _ := os.ReadDir(state); len(entries) > 0 {
		var names []string
		filepath.Walk(state, func(p string, _ os.FileInfo, _ error) error { names = append(names, p); return nil })
		t.Errorf("a read-only TUI wrote its state directory: %v", names)
	}
}

// TestQuitAsksWhileARetryIsSentInTmux runs the real binary against a sandbox whose Gmail sends
// take four seconds: with the retry in flight, q asks instead of quitting and esc asks before
// hiding the dialog; the send ends once (one new effect), and then q quits at once.
func TestQuitAsksWhileARetryIsSentInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	id := h.m.data.DS.ID(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound))
	effects := len(e.srv.Effects())
	e.srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.FaultLatency, Latency: 4 * time.Second})

	ts := newTmuxServer(t, tmux, "inflight")
	home := filepath.Join(dir, "home")
	since := time.Since(sandboxNow) + 48*time.Hour
	script := fmt.Sprintf("env -u NO_COLOR COMPOSIO_API_KEY=test-key HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q XDG_CACHE_HOME=%q TERM=xterm-256color EXECTRIAGE_WHO=e2e %q --base-url %q --since %s --journal %q; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), filepath.Join(home, "cache"), bin, e.url, since.Round(time.Hour), filepath.Join(dir, "j.db"))
	ts.must("new-session", "-d", "-s", "inflight", "-x", "120", "-y", "40", "sh", "-c", script)
	pane := "inflight"
	ts.waitFor(pane, "the list to load", contains("refreshed"))
	ts.send(pane, "/")
	ts.send(pane, "-l", "id:"+id)
	ts.send(pane, "Enter")
	ts.waitFor(pane, "the filter", contains(" 1/1 ")) // not "1/": the unfiltered list's "1/404" matches it before the filter lands
	ts.send(pane, "r")
	ts.waitFor(pane, "the confirmation", contains("Retry GMAIL_SEND_EMAIL once?", "tab moves"))
	ts.send(pane, "Tab", "Tab")
	ts.send(pane, "-l", "failed")
	ts.send(pane, "Enter")
	ts.send(pane, "-l", "the customer never got it")
	ts.send(pane, "Enter", "Enter")
	ts.waitFor(pane, "the send", contains("sending once (no retries)"))

	ts.send(pane, "q")
	ts.waitFor(pane, "the question", contains("quitting now leaves"))
	ts.send(pane, "Escape")
	ts.waitFor(pane, "the esc question", contains("esc again"))
	if strings.Contains(ts.capture(pane, false), "EXITED") {
		t.Fatal("the program quit while the retry was being sent")
	}
	ts.waitFor(pane, "the outcome", contains("✓ retried"))
	ts.send(pane, "Escape")
	ts.waitFor(pane, "the dialog to close", func(s string) bool { return !strings.Contains(s, "✓ retried") })
	ts.send(pane, "q")
	ts.waitFor(pane, "the exit", contains("EXITED:0"))
	if n := len(e.srv.Effects()); n != effects+1 {
		t.Fatalf("%d effects, want exactly %d", n, effects+1)
	}
}

// TestHelpScrollsInTmux: at 80x24 the real binary's help shows where it is and scrolls to the
// end of its legend (the header's marks), and q closes it, not the program.
func TestHelpScrollsInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	ts := newTmuxServer(t, tmux, "help")
	home := filepath.Join(dir, "home")
	script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color %q --demo --readonly; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin)
	ts.must("new-session", "-d", "-s", "help", "-x", "80", "-y", "24", "sh", "-c", script)
	const pane = "help"
	ts.waitFor(pane, "the demo to load", contains("[DEMO]", "refreshed"))
	ts.send(pane, "?")
	ts.waitFor(pane, "the help", contains("Navigate", "lines 1–", "scroll"))
	ts.send(pane, "G")
	ts.waitFor(pane, "the end of the legend", func(s string) bool {
		return contains("STALE:", "settled", "follow")(s) && !strings.Contains(s, "Navigate")
	})
	ts.send(pane, "g")
	ts.waitFor(pane, "the top again", contains("Navigate", "lines 1–"))
	ts.send(pane, "q")
	s := ts.waitFor(pane, "the help to close", func(s string) bool { return !strings.Contains(s, "Navigate") })
	if strings.Contains(s, "EXITED") {
		t.Fatal("q on the help quit the program")
	}
	ts.send(pane, "q")
	ts.waitFor(pane, "the exit", contains("EXITED:0"))
}

// TestRetryDialogFitsInTmux: at 80x24 the real binary's retry dialog keeps its inputs and
// buttons in view and scrolls the evidence to its last line (the journal's scope); shrunk to
// 40x12 it asks for room instead of taking keys into inputs off the screen.
func TestRetryDialogFitsInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	ts := newTmuxServer(t, tmux, "dialog")
	home := filepath.Join(dir, "home")
	script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color %q --demo --journal %q; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin, filepath.Join(dir, "j.db"))
	ts.must("new-session", "-d", "-s", "dialog", "-x", "80", "-y", "24", "sh", "-c", script)
	const pane = "dialog"
	ts.waitFor(pane, "the demo to load", contains("[DEMO]", "refreshed"))
	ts.send(pane, "/")
	ts.send(pane, "-l", "flagged:yes tool:GMAIL_SEND_EMAIL outcome:ambiguous")
	ts.send(pane, "Enter")
	ts.waitFor(pane, "the filter", contains("outcome:ambiguous"))
	ts.send(pane, "r")
	s := ts.waitFor(pane, "the dialog", func(s string) bool {
		return strings.Contains(s, "[ Retry once ]") || strings.Contains(s, "Retry refused")
	})
	confirm := strings.Contains(s, "[ Retry once ]")
	last, bottom := "next", "Close"
	if confirm {
		last, bottom = "guarded by the SQLite journal", "[ Retry once ]"
	}
	if n := len(strings.Split(strings.TrimRight(s, "\n"), "\n")); n > 24 {
		t.Fatalf("the screen has %d lines", n)
	}
	if strings.Contains(s, last) || !strings.Contains(s, "pgup/pgdn scroll the evidence") {
		t.Logf("the evidence fits at 80x24 here:\n%s", s)
	}
	for range 6 {
		ts.send(pane, "PageDown")
	}
	ts.waitFor(pane, "the end of the evidence with the buttons in view", contains(last, bottom))
	if confirm {
		ts.must("resize-window", "-t", pane, "-x", "40", "-y", "12")
		ts.waitFor(pane, "the request for room", func(s string) bool { return strings.Contains(strings.Join(strings.Fields(s), " "), "enlarge") })
		time.Sleep(600 * time.Millisecond) // past the key delay
		ts.send(pane, "Tab", "Tab")
		ts.send(pane, "-l", "failed")
		time.Sleep(time.Second) // the keys are read while the screen is small
		ts.must("resize-window", "-t", pane, "-x", "80", "-y", "24")
		s = ts.waitFor(pane, "the inputs again", contains("[ Retry once ]"))
		if !strings.Contains(s, "> type failed") { // the empty field's placeholder
			t.Fatalf("typing went into the inputs while they were off the screen:\n%s", s)
		}
	}
	ts.send(pane, "Escape")
	ts.waitFor(pane, "the dialog to close", func(s string) bool { return !strings.Contains(s, bottom) })
	ts.send(pane, "q")
	ts.waitFor(pane, "the exit", contains("EXITED:0"))
}

// TestTimelineInTmux: in the real binary, t on a row of a tool-router session shows the
// session's steps in order with the re-sent step marked (its duplicate group and cause), at
// 80x24 and 120x40.
func TestTimelineInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	cfg := sandboxConfig()
	cfg.Seed, cfg.Size = 9, 1500
	e := newEnvWith(t, cfg)
	h := newHarness(t, e, 120, 40)
	sid, i := sessionWithADuplicate(h)
	id := h.m.data.DS.ID(i)
	since := time.Since(sandboxNow) + 48*time.Hour
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		ts := newTmuxServer(t, tmux, fmt.Sprintf("tl%d", size[0]))
		home := filepath.Join(dir, fmt.Sprintf("home%d", size[0]))
		script := fmt.Sprintf("env -u NO_COLOR COMPOSIO_API_KEY=test-key HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q XDG_CACHE_HOME=%q TERM=xterm-256color %q --base-url %q --since %s --readonly; echo EXITED:$?; sleep 120",
			home, filepath.Join(home, "state"), filepath.Join(home, "config"), filepath.Join(home, "cache"), bin, e.url, since.Round(time.Hour))
		ts.must("new-session", "-d", "-s", "tl", "-x", strconv.Itoa(size[0]), "-y", strconv.Itoa(size[1]), "sh", "-c", script)
		ts.waitFor("tl", "the list", contains("refreshed"))
		ts.send("tl", "/")
		ts.send("tl", "-l", "id:"+id)
		ts.send("tl", "Enter")
		ts.waitFor("tl", "the row", contains(" 1/1 "))
		ts.send("tl", "t")
		s := ts.waitFor("tl", "the timeline", func(s string) bool {
			if strings.Contains(s, "still coming") {
				ts.send("tl", "t") // the full record (which has the session id) came after the key
			}
			return strings.Contains(s, "Session "+sid[:12]) && strings.Contains(s, "session_auto_retry")
		})
		var times []string
		for l := range strings.SplitSeq(s, "\n") {
			if m := regexp.MustCompile(`\d\d:\d\d:\d\d\.\d\d\d`).FindString(l); m != "" {
				times = append(times, m)
			}
		}
		if len(times) < 2 || !slices.IsSorted(times) {
			t.Errorf("%dx%d: the steps are not in order: %v\n%s", size[0], size[1], times, s)
		}
		if !strings.Contains(s, "›") {
			t.Errorf("%dx%d: the row t was pressed on is not marked:\n%s", size[0], size[1], s)
		}
		ts.send("tl", "Escape")
		ts.waitFor("tl", "the timeline to close", func(s string) bool { return !strings.Contains(s, "Session "+sid[:12]) })
		ts.send("tl", "q")
		ts.waitFor("tl", "the exit", contains("EXITED:0"))
	}
}

// TestARateLimitWaitStaysInTheHeaderInTmux: a load held back by the API's
// rate limit printed "exectriage: waiting … for the API's rate limit" on stderr, into the
// TUI's alternate screen over its header, where it stayed. At 100x30 the wait is said in the
// header only, nothing is written outside the TUI's frame while it runs, and nothing of it is
// left on the terminal after q.
func TestARateLimitWaitStaysInTheHeaderInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 44, Size: 500, Span: 20 * time.Hour, APIKey: "k-rate",
		RateLimit: 20, RateLimitWindow: 5 * time.Second})
	ts := newTmuxServer(t, tmux, "rate")
	home := filepath.Join(dir, "home")
	script := fmt.Sprintf("env -u NO_COLOR COMPOSIO_API_KEY=k-rate HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q XDG_CACHE_HOME=%q TERM=xterm-256color %q --base-url %q --since 24h --no-cache --journal %q; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), filepath.Join(home, "cache"), bin, base, filepath.Join(dir, "j.db"))
	ts.must("new-session", "-d", "-s", "rate", "-x", "100", "-y", "30", "sh", "-c", script)
	const pane = "rate"
	outside := func(s string) bool { return strings.Contains(s, "exectriage:") }
	waited := false
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := ts.capture(pane, false)
		if outside(s) {
			t.Fatalf("a line was written behind the TUI:\n%s", s)
		}
		if head, _, _ := strings.Cut(s, "\n"); strings.Contains(head, "rate limit") {
			waited = true // said in the header, in the words that fit
		}
		if strings.Contains(s, "refreshed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the load did not end:\n%s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !waited {
		t.Fatal("the load never waited for the rate limit: the test shows nothing")
	}
	ts.send(pane, "q")
	s := ts.waitFor(pane, "the exit", contains("EXITED:0"))
	if outside(s) || strings.Contains(s, "rate limit") {
		t.Fatalf("the wait was left on the terminal after the TUI:\n%s", s)
	}
}

// TestListFitsTheTerminalInTmux: list's rows were 128-138 columns, so on
// an 80, 100 or 120 column terminal the log id landed on the next line, and thousands of lines
// went to the terminal without a pager. Now every row fits the terminal and ends with its
// whole log id; a list taller than the terminal goes through $PAGER (--no-pager writes it
// directly); a pipe gets whole lines.
func TestListFitsTheTerminalInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	ts := newTmuxServer(t, tmux, "list")
	home := filepath.Join(dir, "home")
	env := fmt.Sprintf("env -u COMPOSIO_API_KEY HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color", home,
		filepath.Join(home, "state"), filepath.Join(home, "config"))
	row := regexp.MustCompile(`^(\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\dZ?  .*  log_[A-Za-z0-9_-]{12}$`)
	for _, w := range []int{80, 100, 120} {
		pane := fmt.Sprintf("w%d", w)
		script := fmt.Sprintf("%s %q list --demo --filter flagged:yes --limit 40 --no-pager; echo EXITED:$?; sleep 60", env, bin)
		ts.must("new-session", "-d", "-s", pane, "-x", strconv.Itoa(w), "-y", "60", "sh", "-c", script)
		s := ts.waitFor(pane, "the list", contains("EXITED:0"))
		rows := 0
		for l := range strings.SplitSeq(s, "\n") {
			l = strings.TrimRight(l, " ")
			switch {
			case l == "", strings.HasPrefix(l, "source: "), strings.HasPrefix(l, "EXITED:"):
			case row.MatchString(l):
				rows++
			default:
				t.Errorf("at %d columns a line is not a whole row (wrapped, or its id cut): %q", w, l)
			}
		}
		if rows != 40 {
			t.Errorf("at %d columns %d rows, want 40:\n%s", w, rows, s)
		}
	}
	// Taller than the terminal: through $PAGER (here a sed that marks each line).
	script := fmt.Sprintf("%s PAGER='sed s/^/PAGED:/' %q list --demo --limit 50; echo EXITED:$?; sleep 60", env, bin)
	ts.must("new-session", "-d", "-s", "paged", "-x", "100", "-y", "20", "sh", "-c", script)
	s := ts.waitFor("paged", "the paged list", contains("EXITED:0"))
	if !strings.Contains(s, "PAGED:") || regexp.MustCompile(`(?m)^\d\d-\d\d `).MatchString(s) {
		t.Errorf("a list taller than the terminal did not go through $PAGER:\n%s", s)
	}
	// The pager is another program: it gets no API key (a PAGER that writes its environment).
	seen := filepath.Join(dir, "pager-env")
	script = fmt.Sprintf("%s COMPOSIO_API_KEY=k-pager-secret PAGER='env > %s; cat' %q list --demo --limit 50; echo EXITED:$?; sleep 60", env, seen, bin)
	ts.must("new-session", "-d", "-s", "keyless", "-x", "100", "-y", "20", "sh", "-c", script)
	ts.waitFor("keyless", "the paged list", contains("EXITED:0"))
	if b, err := os.ReadFile(seen); err != nil || bytes.Contains(b, []byte("k-pager-secret")) || !bytes.Contains(b, []byte("PATH=")) {
		t.Errorf("the pager's environment (%v) holds the API key or not even a PATH:\n%s", err, b)
	}
	// A pipe: whole lines, however wide.
	out, err := exec.Command("sh", "-c", fmt.Sprintf("%s %q list --demo --filter flagged:yes --limit 40 | cat", env, bin)).Output()
	if err != nil {
		t.Fatal(err)
	}
	widest := 0
	for l := range strings.SplitSeq(string(out), "\n") {
		widest = max(widest, len([]rune(l)))
	}
	if widest <= 120 || !regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  `).Match(out) {
		t.Errorf("a pipe got fitted lines (widest %d):\n%s", widest, out)
	}
}

// TestFollowKeepsTheNewestInTmux: `exectriage --follow` on the live sandbox shows
// three executions sent one after another, each on top with the cursor on it (follow stopped
// after the first before); after j the cursor keeps its row and the header says "1 new".
func TestFollowKeepsTheNewestInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 45, Size: 200, Span: 20 * time.Hour, APIKey: "k-follow"})
	ts := newTmuxServer(t, tmux, "follow")
	home := filepath.Join(dir, "home")
	script := fmt.Sprintf("env -u NO_COLOR COMPOSIO_API_KEY=k-follow HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q XDG_CACHE_HOME=%q TERM=xterm-256color %q --follow --base-url %q --since 24h --no-cache --journal %q; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), filepath.Join(home, "cache"), bin, base, filepath.Join(dir, "j.db"))
	ts.must("new-session", "-d", "-s", "follow", "-x", "160", "-y", "40", "sh", "-c", script)
	const pane = "follow"
	ts.waitFor(pane, "the first load", contains("refreshed"))
	send := func(text string) string { return testkit.SendSlack(t, srv, base, "k-follow", text, "") }
	// onTop: the cursor (›) is on the list's first row and the detail pane shows id.
	onTop := func(id string) func(string) bool {
		return func(s string) bool {
			_, after, ok := strings.Cut(s, "TOOLKIT")
			first, _, _ := strings.Cut(strings.TrimPrefix(after, after[:strings.Index(after, "\n")+1]), "\n")
			return ok && strings.Contains(first, "›") && regexp.MustCompile(`id +`+regexp.QuoteMeta(id)).MatchString(s) && !strings.Contains(s, "follow paused")
		}
	}
	for i := range 3 {
		id := send(fmt.Sprintf("follow in tmux %d", i))
		ts.waitFor(pane, "execution "+id+" on top with the cursor", onTop(id))
	}
	ts.send(pane, "j")
	time.Sleep(300 * time.Millisecond)
	send("follow in tmux later")
	s := ts.waitFor(pane, "the new row counted", contains("1 new"))
	if !strings.Contains(s, "follow paused") {
		t.Fatalf("moved away, the header does not say paused:\n%s", s)
	}
	ts.send(pane, "q")
	ts.waitFor(pane, "the exit", contains("EXITED:0"))
}

// TestSlackFindsSlackRowsInTmux: "/slack" on the demo fills the first screen with Slack's
// executions (before, a Gmail fetch whose ids scattered s, l, a, c, k came second), says how
// many rows only scattered the letters, and s lists every match newest first.
func TestSlackFindsSlackRowsInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	ts := newTmuxServer(t, tmux, "slack")
	home := filepath.Join(dir, "home")
	script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color %q --demo --readonly; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin)
	ts.must("new-session", "-d", "-s", "slack", "-x", "120", "-y", "30", "sh", "-c", script)
	const pane = "slack"
	ts.waitFor(pane, "the demo to load", contains("[DEMO]", "refreshed"))
	ts.send(pane, "/")
	ts.send(pane, "-l", "slack")
	ts.send(pane, "Enter")
	count := regexp.MustCompile(`\d+/([\d,]+) ━`)
	s := ts.waitFor(pane, "the ranked matches, settled", func(s string) bool { // "matching…": rows of the query before
		return strings.Contains(s, "best match first") && strings.Contains(s, "scattered letters hidden") &&
			!strings.Contains(s, "matching…") && count.MatchString(s)
	})
	rows := 0
	for line := range strings.SplitSeq(s, "\n") {
		if !regexp.MustCompile(`^┃.{1,3}\d\d-\d\d \d\d:\d\d:\d\d`).MatchString(line) { // a row of the list
			continue
		}
		rows++
		if !strings.Contains(line, "slack") {
			t.Errorf("a row of the first screen is not Slack's: %q", line)
		}
	}
	if rows < 15 {
		t.Fatalf("%d rows on the first screen:\n%s", rows, s)
	}
	ranked := count.FindStringSubmatch(s)
	if ranked == nil {
		t.Fatalf("no row count in the title:\n%s", s)
	}
	ts.send(pane, "s")
	all := ts.waitFor(pane, "every match newest first", func(s string) bool {
		m := count.FindStringSubmatch(s)
		return !strings.Contains(s, "best match first") && m != nil && m[1] != ranked[1]
	})
	if a, r := count.FindStringSubmatch(all)[1], ranked[1]; len(a) < len(r) || len(a) == len(r) && a <= r {
		t.Errorf("newest first lists %s rows, best match %s: the hidden ones did not come back", a, r)
	}
	ts.send(pane, "q")
	ts.waitFor(pane, "the exit", contains("EXITED:0"))
}

// TestTeamViewAndTypedValuesInTmux: a view saved in the journal with exectriage view
// save is in the TUI's S menu, marked the team's, and shows its rows with the header naming
// it; a tool term being typed names the tools that start so.
func TestTeamViewAndTypedValuesInTmux(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	home := filepath.Join(dir, "home")
	envv := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	save := exec.Command(bin, "view", "save", "team-slack", "--demo", "--filter", "toolkit:slack", "--show", "flagged")
	save.Env = append(os.Environ(), envv...)
	if out, err := save.CombinedOutput(); err != nil {
		t.Fatalf("view save: %v\n%s", err, out)
	}
	ts := newTmuxServer(t, tmux, "views")
	script := fmt.Sprintf("env -u COMPOSIO_API_KEY -u NO_COLOR HOME=%q XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q TERM=xterm-256color %q --demo --readonly; echo EXITED:$?; sleep 120",
		home, filepath.Join(home, "state"), filepath.Join(home, "config"), bin)
	ts.must("new-session", "-d", "-s", "views", "-x", "120", "-y", "30", "sh", "-c", script)
	const pane = "views"
	ts.waitFor(pane, "the demo to load", contains("[DEMO]", "refreshed"))
	ts.send(pane, "/")
	ts.send(pane, "-l", "tool:GMAIL_S")
	ts.waitFor(pane, "the values that start so", contains("tool:GMAIL_S* matches those that start so: GMAIL_SEND_EMAIL"))
	ts.send(pane, "Escape") // alone: ESC and a key sent together read as alt+key
	ts.waitFor(pane, "the filter cleared", func(s string) bool { return !strings.Contains(s, "tool:GMAIL_S") })
	ts.send(pane, "S")
	ts.waitFor(pane, "the team's view in the menu", contains("team-slack", "team's · flagged", "toolkit:slack"))
	ts.send(pane, "Enter")
	s := ts.waitFor(pane, "the view's rows", func(s string) bool {
		return strings.Contains(s, "view team-slack") && !strings.Contains(s, "matching…")
	})
	for line := range strings.SplitSeq(s, "\n") {
		if regexp.MustCompile(`^┃.{1,3}\d\d-\d\d \d\d:\d\d:\d\d`).MatchString(line) && !strings.Contains(line, "slack") {
			t.Errorf("a row of the team's view is not Slack's: %q", line)
		}
	}
	ts.send(pane, "q")
	ts.waitFor(pane, "the exit", contains("EXITED:0"))
}
