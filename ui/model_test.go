package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/markdialog"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
	"github.com/exectriage/exectriage/ui/components/statusline"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/theme"
	"github.com/exectriage/exectriage/window"
)

func TestStaleFilterResultIsDropped(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	slow := h.m.setQuery("slack") // started first, answers last
	fast := h.m.setQuery("tool:GMAIL_SEND_EMAIL")
	h.send(fast())
	h.send(slow()) // stale: must not replace the newer result
	for _, it := range h.m.list.Items().Slice() {
		if tool := h.m.data.DS.Exec(int(it.Exec)).ToolSlug; tool != "GMAIL_SEND_EMAIL" {
			t.Fatalf("a stale filter result replaced the current one: row %s", tool)
		}
	}
	if h.m.list.Len() == 0 {
		t.Fatal("no rows for tool:GMAIL_SEND_EMAIL")
	}
}

func TestStaleLoadAndAnalysisAreDropped(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	n := h.m.data.DS.Len()
	old := h.m.load.tag
	h.m.load.tag++ // a newer load started
	received := h.m.load.received
	h.send(loadPageMsg{tag: old, n: 1}) // the feed dropped its records (app TestAFeedDropsAnOlderLoadsPages)
	h.send(loadDoneMsg{tag: old, err: errors.New("stale failure")})
	if h.m.load.received != received || h.m.data.DS.Len() != n {
		t.Error("a page of a superseded load was counted")
	}
	if l, text := h.m.status.Text(); strings.Contains(text, "stale failure") {
		t.Errorf("a superseded load's error is shown (level %d)", l)
	}
	h.send(analyzedMsg{tag: h.m.load.analyzeTag - 1, ds: window.Build(nil, nil, nil)})
	if h.m.data.DS.Len() != n {
		t.Error("a stale analysis replaced the dataset")
	}
}

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

func TestTogglesFlaggedWritesAndDuplicates(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	ds := h.m.data.DS
	h.keys("a")
	if h.m.list.Len() != ds.Flagged {
		t.Errorf("a: %d rows, %d flagged", h.m.list.Len(), ds.Flagged)
	}
	h.keys("a", "w")
	if h.m.list.Len() != ds.Writes {
		t.Errorf("w: %d rows, %d writes", h.m.list.Len(), ds.Writes)
	}
	h.keys("w", "d")
	groups := 0
	for _, it := range h.m.list.Items().Slice() {
		if it.Kind == window.ItemGroup {
			groups++
		}
	}
	if groups != len(ds.Groups) || groups == 0 {
		t.Errorf("d: %d group rows, %d groups", groups, len(ds.Groups))
	}
	h.keys("g") // the first row: a group
	before := h.m.list.Len()
	h.keys("enter") // fold the first group
	if h.m.list.Len() != before-len(ds.Members[h.m.list.Items().Slice()[0].Group]) {
		t.Errorf("enter on a group row: %d rows, was %d", h.m.list.Len(), before)
	}
	if !strings.Contains(h.screen(), "[d dups]") {
		t.Error("the status line does not show the duplicates toggle")
	}
}

func TestMarkRecordsAVerdictInTheJournal(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50) // room for every badge of a group member
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	h.keys("m", "2", "tab", "checked with the customer", "enter") // 1 confirmed_failed, 2 confirmed_succeeded
	vs, err := e.j.Verdicts(context.Background(), id)
	if err != nil || len(vs) != 1 || vs[0].Verdict != model.VerdictConfirmedSucceeded || vs[0].Note != "checked with the customer" {
		t.Fatalf("verdicts %+v, %v", vs, err)
	}
	s := h.screen()
	if !strings.Contains(s, "MARKED:confirmed_succeeded") || !strings.Contains(s, "verdict confirmed_succeeded") || !strings.Contains(s, "retries of it are now refused") {
		t.Errorf("the verdict is not shown:\n%s", s)
	}
}

func TestBundleIsWrittenAndItsPathShown(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	h.keys("b")
	_, text := h.m.status.Text()
	m := tempPath.FindString(text)
	if m == "" {
		t.Fatalf("no bundle path in the status line: %q", text)
	}
	b, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(h.m.data.DS.ID(0))) {
		t.Error("the bundle does not name the selected execution")
	}
	if fi, _ := os.Stat(m); fi.Mode().Perm() != 0o600 {
		t.Errorf("bundle mode %v", fi.Mode().Perm())
	}
	if filepath.Dir(m) != e.parts.BundleDir {
		t.Errorf("bundle written to %s", m)
	}
}

// sendSlack posts one Slack message through the sandbox's API, as an agent does: a new
// execution, newer than the history.
func (e *env) sendSlack(t *testing.T, text string) string {
	t.Helper()
	return testkit.SendSlack(t, e.srv, e.url, "test-key", text, "")
}

// Follow keeps following: with the cursor on the newest row, each execution that arrives is
// on top with the cursor on it; moved away, the cursor keeps its row and the header counts
// what came above it ("1 new") until the person is back at the top.
func TestFollowKeepsTheNewestRow(t *testing.T) {
	e := newEnv(t)
	// The source's clock runs as the sandbox's does, so that what is sent now is in its window.
	started := time.Now()
	src, err := source.Open(t.Context(), source.Options{BaseURL: e.url, APIKey: "test-key",
		Now: func() time.Time { return sandboxNow.Add(time.Since(started) + time.Second) }})
	if err != nil {
		t.Fatal(err)
	}
	e.src.Source = src
	h := newHarness(t, e, 140, 40)
	h.keys("F")
	if !h.m.follow {
		t.Fatal("F did not turn follow on")
	}
	selected := func() string {
		x, _, ok := h.m.selectedExec()
		if !ok {
			return ""
		}
		return x.ID
	}
	for i := range 3 {
		time.Sleep(5 * time.Millisecond)
		id := e.sendSlack(t, fmt.Sprintf("follow me %d", i))
		h.send(followTickMsg{tag: h.m.followTag})
		if got := selected(); got != id || h.m.list.Cursor() != 0 || h.m.paused {
			t.Fatalf("execution %d: cursor on %s at row %d (paused %v), want the new %s on top", i, got, h.m.list.Cursor(), h.m.paused, id)
		}
		if strings.Contains(h.screen(), "follow paused") {
			t.Fatal("the header says paused though nothing was scrolled")
		}
	}
	h.keys("j")
	kept := selected()
	h.send(followTickMsg{tag: h.m.followTag}) // the person moved away: paused
	time.Sleep(5 * time.Millisecond)
	e.sendSlack(t, "follow me later")
	h.send(followTickMsg{tag: h.m.followTag})
	if selected() != kept || !h.m.paused {
		t.Fatalf("moved away, the cursor went to %s (paused %v), want it kept on %s", selected(), h.m.paused, kept)
	}
	if !strings.Contains(h.screen(), "follow paused · 1 new") {
		t.Fatalf("the header does not count the new row:\n%s", h.screen())
	}
	h.keys("g")
	h.send(followTickMsg{tag: h.m.followTag})
	if h.m.paused || strings.Contains(h.screen(), "new") && strings.Contains(h.screen(), "follow paused") {
		t.Fatal("back at the top, follow is still paused")
	}
	loads := h.m.load.tag
	h.send(followTickMsg{tag: h.m.followTag - 1})
	if h.m.load.tag != loads {
		t.Error("a stale follow tick refreshed")
	}
}

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

func TestExplainSaysWhatToDo(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{context.DeadlineExceeded, "check your connection"},
		{errors.New("plain"), "plain"},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}, "file does not exist"},
	} {
		if got := Explain(tt.err); !strings.Contains(got, tt.want) {
			t.Errorf("Explain(%v) = %q, want %q", tt.err, got, tt.want)
		}
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

// TestLoadPausesWhileTheBuilderIsBehind: while an analysis runs, pages beyond maxPending
// records wait in the source (the next page is not asked for) and the load reads on when the
// analysis ends, so a fast file cannot pile up full records in memory.
func TestLoadPausesWhileTheBuilderIsBehind(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	m := h.m
	m.load.loading, m.load.analyzing = true, true
	asked := 0
	next := func() tea.Msg { asked++; return nil }
	page := func(n, from int) []model.Execution {
		b := make([]model.Execution, n)
		for i := range b {
			b[i] = model.Execution{ID: fmt.Sprintf("log_p%06d", from+i), Timestamp: sandboxNow}
		}
		return b
	}
	h.send(queued(m, m.load.tag, page(1000, 0), next))
	if asked != 1 || m.load.held != nil {
		t.Fatalf("a small backlog paused the load (asked %d)", asked)
	}
	h.send(queued(m, m.load.tag, page(maxPending, 1000), next))
	if asked != 1 || m.load.held == nil {
		t.Fatalf("a backlog of %d records did not pause the load (asked %d)", m.load.feed.Pending(), asked)
	}
	// The running analysis ends: the load reads on and the backlog goes to the builder (and,
	// the last snapshot being old enough, to the list).
	m.load.snapAt = time.Time{}
	h.send(analyzedMsg{tag: m.load.analyzeTag, ds: m.data.DS})
	if asked != 2 || m.load.held != nil {
		t.Fatalf("the load did not resume (asked %d)", asked)
	}
	if m.load.feed.Pending() != 0 || m.data.DS.Index("log_p050999") < 0 {
		t.Errorf("the backlog was not built (%d pending)", m.load.feed.Pending())
	}
}

// TestBestMatchOrder: a free-text filter's matches come best first (the filter index's ranking,
// which cuts the tail that only scatters the term's letters) and s turns to every match newest
// first and back; the list and the status line say which order is shown and how many rows the
// ranking hid; with no text to score, s says how to use it.
func TestBestMatchOrder(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	h.keys("/", "gmsend", "enter")
	if !h.m.sel.ranked || !strings.Contains(h.screen(), "best match first") || !strings.Contains(h.screen(), "s best match") {
		t.Fatalf("the matches are not ranked by default:\n%s", h.screen())
	}
	ds := h.m.data.DS
	want, hidden := ds.Filter.Rank(h.m.query, h.m.sel.lastPos)
	got := slices.Clone(h.m.list.Items().Slice())
	if len(got) != len(want) || len(want) < 3 || hidden != h.m.sel.hidden {
		t.Fatalf("%d ranked rows, %d matches ranked, %d hidden (model says %d)", len(got), len(want), hidden, h.m.sel.hidden)
	}
	for i := range got {
		if int(got[i].Exec) != want[i] {
			t.Fatalf("row %d is execution %d, the ranking puts %d there", i, got[i].Exec, want[i])
		}
	}
	h.keys("j", "j")
	h.keys("s")
	newest := h.m.list.Items().Slice()
	if h.m.sel.ranked || strings.Contains(h.screen(), "best match first") || len(newest) != len(h.m.sel.lastPos) {
		t.Fatalf("s did not show every match newest first (%d rows, %d matches):\n%s", len(newest), len(h.m.sel.lastPos), h.screen())
	}
	for i := range newest {
		if int(newest[i].Exec) != h.m.sel.lastPos[i] {
			t.Fatalf("newest first: row %d is execution %d, want %d", i, newest[i].Exec, h.m.sel.lastPos[i])
		}
	}
	if slices.Equal(got, newest) {
		t.Fatal("the ranked order is the newest-first order: the fixture shows nothing")
	}
	h.keys("s")
	if !h.m.sel.ranked || !slices.Equal(h.m.list.Items().Slice(), got) {
		t.Fatal("s again did not rank the matches")
	}
	// the cursor goes to the best match (it stayed on the row it was on, far down)
	if sel, _ := h.m.list.Selected(); h.m.list.Cursor() != 0 || int(sel.Exec) != want[0] {
		t.Errorf("after s the cursor is on row %d (execution %d), want row 0, the best match %d", h.m.list.Cursor(), sel.Exec, want[0])
	}
	// Without free text there is nothing to score.
	h.keys("esc", "s", "s")
	if _, text := h.m.status.Text(); !strings.Contains(text, "type / and some text") {
		t.Errorf("status = %q", text)
	}
}

// TestAToolkitNameFindsItsRows: "/slack" lists Slack's executions first and hides the rows that
// only scatter s, l, a, c, k over their ids and error texts (the demo listed a Gmail fetch
// second); the hidden count is on screen and s shows them all again, newest first.
func TestAToolkitNameFindsItsRows(t *testing.T) {
	h := newHarness(t, newEnv(t), 140, 40)
	h.keys("/", "slack", "enter")
	items := h.m.list.Items()
	if items.Len() == 0 {
		t.Fatal("no rows")
	}
	for i := range items.Len() {
		e := h.m.data.DS.Exec(int(items.At(i).Exec))
		if !strings.Contains(strings.ToLower(e.ToolSlug+" "+e.ToolkitSlug+" "+e.ID), "slack") {
			t.Fatalf("row %d is %s %s %s: not Slack's", i, e.ToolSlug, e.ToolkitSlug, e.ID)
		}
	}
	if h.m.sel.hidden == 0 || !strings.Contains(h.screen(), "matching only scattered letters hidden") {
		t.Fatalf("the scattered tail was not cut or not said (%d hidden):\n%s", h.m.sel.hidden, h.screen())
	}
	hidden := h.m.sel.hidden
	h.keys("s")
	if h.m.list.Items().Len() != items.Len()+hidden {
		t.Errorf("newest first shows %d rows, want %d ranked + %d hidden", h.m.list.Items().Len(), items.Len(), hidden)
	}
}

// TestHeaderSaysWhileGroupsAreFound: when a load ends, the analysis that finds the duplicate
// groups runs on (seconds for a million executions): the header says so until it is done.
func TestHeaderSaysWhileGroupsAreFound(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	h.m.load.loading = true // a load whose last page has arrived
	_, cmd := h.m.Update(loadDoneMsg{tag: h.m.load.tag})
	if top := strings.SplitN(h.screen(), "\n", 2)[0]; !strings.Contains(top, "finding duplicate groups") {
		t.Fatalf("header while the groups are found: %q", top)
	}
	h.run(cmd)
	if top := strings.SplitN(h.screen(), "\n", 2)[0]; strings.Contains(top, "finding duplicate groups") || !strings.Contains(top, "refreshed") {
		t.Errorf("header after the groups were found: %q", top)
	}
}

// A filter error is read where the query is typed, at any width: the input gives up the room
// it does not need (before, the padded input pushed the message off the line).
func TestFilterErrorIsVisibleAtEveryWidth(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		w    int
		want string
	}{
		{80, "did you mean outcome:ambiguous?"},
		{120, "did you mean outcome:ambiguous?"},
		{40, "✗ outcome:ambigous"},
	} {
		h := newHarness(t, e, tc.w, 24)
		h.keys("/", "outcome:ambigous")
		if s := h.screen(); !strings.Contains(s, tc.want) {
			t.Errorf("at %d columns the filter error is not shown (%q):\n%s", tc.w, tc.want, s)
		}
	}
}

// q, ? and esc each close the help overlay; none of them quits from it.
func TestHelpOverlayClosesOnQ(t *testing.T) {
	e := newEnv(t)
	for k, press := range map[string]tea.KeyPressMsg{
		"q":   {Code: 'q', Text: "q"},
		"?":   {Code: '?', Text: "?"},
		"esc": {Code: tea.KeyEscape},
	} {
		h := newHarness(t, e, 80, 24)
		h.keys("?")
		if !h.m.showHelp {
			t.Fatal("? did not open the help")
		}
		_, cmd := h.m.Update(press)
		if h.m.showHelp {
			t.Errorf("%s left the help open", k)
		}
		if cmd != nil {
			if _, quit := cmd().(tea.QuitMsg); quit {
				t.Errorf("%s on the help screen quit the program", k)
			}
		}
	}
}

// The mark dialog starts with no verdict chosen: Enter alone records nothing and says why.
func TestMarkDialogNeedsAChoice(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	h.keys("m", "enter")
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 0 {
		t.Fatalf("one Enter recorded %+v (%v)", vs, err)
	}
	if !h.m.mark.IsOpen() || !strings.Contains(h.screen(), "choose a verdict first") {
		t.Fatalf("the dialog closed or did not say what is missing:\n%s", h.screen())
	}
	h.keys("j", "enter")
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 1 || vs[0].Verdict != model.Verdicts()[0] {
		t.Fatalf("j then Enter: verdicts %+v (%v)", vs, err)
	}
}

// TestTheMarkDialogNeverCutsAVerdictsMeaning: at 80 and 120 columns every
// offered verdict's meaning is on screen whole (wrapped under itself), none cut with "…".
func TestTheMarkDialogNeverCutsAVerdictsMeaning(t *testing.T) {
	e := newEnv(t)
	for _, width := range []int{80, 120} {
		h := newHarness(t, e, width, 40)
		i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound)
		h.selectRow(i)
		h.keys("m")
		box := ansi.Strip(h.m.mark.View())
		var text strings.Builder
		for l := range strings.SplitSeq(box, "\n") {
			text.WriteString(" " + strings.Trim(l, "│ "))
		}
		flat := strings.Join(strings.Fields(text.String()), " ")
		for _, v := range model.Verdicts() {
			if m := markdialog.Meaning(v); strings.Contains(box, string(v)) && !strings.Contains(flat, m) {
				t.Errorf("%d columns: the meaning of %s is not whole on screen (%q):\n%s", width, v, m, box)
			}
		}
		if strings.Contains(box, "…") {
			t.Errorf("%d columns: something is cut:\n%s", width, box)
		}
		h.keys("esc")
	}
}

// A verdict that settles a flagged write takes it out of the header's count of what needs a
// person, and the header says how many are settled.
func TestSettledWritesLeaveTheFlaggedCount(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged })
	if !ok {
		t.Fatal("no flagged execution in the demo")
	}
	before := h.m.data.DS.Flagged
	want := fmt.Sprintf("!%s flagged", common.Count(before))
	if s := h.screen(); !strings.Contains(s, want) || strings.Contains(s, "settled") {
		t.Fatalf("before: want %q and no settled count:\n%s", want, s)
	}
	h.filterTo(h.m.data.DS.ID(i))
	h.keys("m", "3", "enter") // duplicate
	s := h.screen()
	if want := fmt.Sprintf("!%s flagged  ✓1 settled", common.Count(before-1)); !strings.Contains(s, want) {
		t.Errorf("after a duplicate verdict: want %q:\n%s", want, s)
	}
}

// When the journal could not be opened the header says so for the whole session, and r and m
// refuse at once with the real reason (not after Enter, not with advice to pass --journal).
func TestNoJournalIsShownAndTurnsRetryAndMarkOff(t *testing.T) {
	e := newEnv(t)
	e.parts.Journal = nil
	d := e.deps()
	d.App.NoJournal(errors.New("open /srv/j.db: permission denied"))
	h := &harness{t: t, m: New(context.Background(), d.App, d.UI), e: e}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.run(h.m.Init())
	for _, k := range []string{"r", "m"} {
		h.keys(k)
		s := h.screen()
		if !strings.Contains(s, "NO JOURNAL") {
			t.Errorf("%s: no journal marker in the header:\n%s", k, s)
		}
		if h.m.retry.IsOpen() || h.m.mark.IsOpen() {
			t.Errorf("%s opened its dialog without a journal", k)
			h.keys("esc")
		}
		if _, text := h.m.status.Text(); !strings.Contains(text, k+" is off: the journal could not be opened (open /srv/j.db: permission denied)") {
			t.Errorf("%s: status %q does not give the reason", k, text)
		}
	}
	h.keys("j", "j")
	if !strings.Contains(h.screen(), "NO JOURNAL") {
		t.Error("the marker went away")
	}
}

// TestMarkDialogOffersVerdictsThatFit: a read can only be ignored, a clean success
// cannot be confirmed failed, duplicate is offered for group members only; the dialog says
// what the execution is marked now, and a stray ignored does not lift a duplicate.
func TestMarkDialogOffersVerdictsThatFit(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	ds := h.m.data.DS
	read, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Kind == model.KindRead })
	if !ok {
		t.Fatal("no read")
	}
	h.selectRow(read)
	h.keys("m")
	s := h.screen()
	if !strings.Contains(s, "1  ignored") || strings.Contains(s, "confirmed_failed") || strings.Contains(s, "2  ") && strings.Contains(s, "duplicate ") {
		t.Errorf("a read's dialog offers more than ignored:\n%s", s)
	}
	h.keys("esc")
	member, ok := h.find(func(e *model.Execution, t *model.Triage) bool { return t.GroupID != "" && t.Flagged })
	if !ok {
		t.Fatal("no flagged group member")
	}
	h.selectRow(member)
	id := ds.ID(member)
	h.keys("m")
	if s := h.screen(); !strings.Contains(s, "3  duplicate") || !strings.Contains(s, "1  confirmed_failed") {
		t.Fatalf("a flagged group member's dialog:\n%s", s)
	}
	h.keys("3", "enter")
	h.keys("m", "4", "enter") // a stray ignored afterwards
	if s := h.screen(); !strings.Contains(s, "changes nothing the guard allows: it still goes by duplicate") || !strings.Contains(s, "MARKED:duplicate") {
		t.Errorf("after duplicate then ignored:\n%s", s)
	}
	h.keys("m")
	if s := h.screen(); !strings.Contains(s, "now marked duplicate") {
		t.Errorf("the dialog does not say the execution is marked duplicate:\n%s", s)
	}
	h.keys("esc")
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 2 {
		t.Fatalf("verdicts %+v %v", vs, err)
	}
}

// When the retry dialog's evidence arrives, a command is scheduled for the end of the key
// delay, so the frame after it drops "keys are ignored…" without a key press (the
// notice stayed until the next key).
func TestRetryDialogSchedulesTheEndOfTheKeyDelay(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	h.m.retry.Open(id)
	start := time.Now() // the tick may start counting when Update makes it
	_, cmd := h.m.Update(evidenceMsg{id: id, ev: app.RetryEvidence{Exec: *h.m.data.Exec(i), Decision: triage.GuardDecision{Code: triage.RefusedNotConfirmed}}})
	if !strings.Contains(ansi.Strip(h.m.View().Content), "keys are ignored") {
		t.Fatal("no key-delay notice right after the evidence")
	}
	if cmd == nil {
		t.Fatal("no command scheduled for the end of the key delay")
	}
	if at, ok := armedAfter(cmd); !ok || at.Sub(start) < retrydialog.KeyDelay {
		t.Fatalf("the command did not wait out the delay and say so (%v, after %v)", ok, at.Sub(start))
	}
	e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
	h.send(retrydialog.ArmedMsg{})
	if s := ansi.Strip(h.m.View().Content); strings.Contains(s, "keys are ignored") || !strings.Contains(s, "tab moves") {
		t.Error("the notice stayed after the delay")
	}
}

// A load that stops after some pages says its counts are partial; a refresh that fails before
// any page says the rows are stale; a complete load clears either.
func TestHeaderMarksPartialAndStaleLoads(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	header := func() string { return strings.SplitN(h.screen(), "\n", 2)[0] }
	if s := header(); strings.Contains(s, "PARTIAL") || strings.Contains(s, "STALE") {
		t.Fatalf("a complete load is marked: %s", s)
	}
	stop := func(pages int) {
		h.m.load.tag++
		h.m.load.loading, h.m.load.pages = true, 0
		for range pages {
			h.send(queued(h.m, h.m.load.tag, []model.Execution{*h.m.data.Exec(0)}, nil))
		}
		h.send(loadDoneMsg{tag: h.m.load.tag, err: errors.New("HTTP 502 from the logs endpoint")})
	}
	stop(2)
	if s := header(); !strings.Contains(s, "PARTIAL: load stopped") {
		t.Errorf("a load that stopped after two pages: %s", s)
	}
	stop(0)
	if s := header(); !strings.Contains(s, "STALE: refresh failed") {
		t.Errorf("a refresh that failed before any page: %s", s)
	}
	h.m.load.tag++
	h.m.load.loading = true
	h.send(loadDoneMsg{tag: h.m.load.tag})
	if s := header(); strings.Contains(s, "PARTIAL") || strings.Contains(s, "STALE") {
		t.Errorf("a complete load left the mark: %s", s)
	}
	// A first load that fails: nothing was loaded, so nothing is stale.
	h.m.refreshed = time.Time{}
	stop(0)
	if s := header(); !strings.Contains(s, "LOAD FAILED") || strings.Contains(s, "STALE") {
		t.Errorf("a first load that failed before any page: %s", s)
	}
}

// An execution a guarded retry made is linked to the one it retried: a RETRY OF badge in the
// list and a "retry of" row in its detail.
func TestRetriedExecutionIsLinkedToItsOriginal(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	ds := h.m.data.DS
	orig, made := ds.ID(5), ds.ID(2) // stand-ins: the journal says row 2 is row 5's retry
	h.m.applyJournal(orig, app.JournalState{Entries: app.Entries{Attempts: []model.RetryAttempt{{ID: "att-1", ExecutionID: orig, State: model.AttemptSucceeded, NewLogID: made}}}})
	h.m.refreshPanes()
	h.selectRow(2)
	s := h.screen()
	if !strings.Contains(s, "RETRY OF "+orig) {
		t.Errorf("no RETRY OF badge on %s:\n%s", made, s)
	}
	if !strings.Contains(s, "retry of  "+orig) && !strings.Contains(s, "retry of "+orig) {
		t.Errorf("no retry-of row in the detail of %s", made)
	}
}

// The TUI's filter takes pattern: too: the rows left are the members of groups with that cause.
func TestFilterByPatternInTheTUI(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	ds := h.m.data.DS
	want := 0
	for gi, g := range ds.Groups {
		if g.Pattern == model.PatternSDKAutoRetry {
			want += len(ds.Members[gi])
		}
	}
	if want == 0 {
		t.Fatal("no sdk_auto_retry group in the sandbox")
	}
	h.keys("/", "pattern:sdk_auto_retry", "enter")
	if h.m.list.Len() != want {
		t.Fatalf("%d rows, want the %d members of sdk_auto_retry groups", h.m.list.Len(), want)
	}
	for _, it := range h.m.list.Items().Slice() {
		if g := ds.Group(int(it.Exec)); g == nil || g.Pattern != model.PatternSDKAutoRetry {
			t.Errorf("row %d is not in an sdk_auto_retry group", it.Exec)
		}
	}
}

// A read-only session says so in the header and refuses r, m and v with the reason; nothing
// reaches the journal.
func TestReadOnlySessionRefusesWritingKeys(t *testing.T) {
	e := newEnv(t)
	e.parts.Config.Defaults.ReadOnly = true
	h := newHarness(t, e, 120, 40)
	if s := strings.SplitN(h.screen(), "\n", 2)[0]; !strings.Contains(s, "READ-ONLY") {
		t.Fatalf("the header does not say read-only: %s", s)
	}
	i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged && t.Kind.IsWrite() })
	if !ok {
		t.Fatal("no flagged write")
	}
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	for _, k := range []string{"r", "m", "v"} {
		h.keys(k)
		if h.m.retry.IsOpen() || h.m.mark.IsOpen() || h.m.data.Verifying[id] {
			t.Fatalf("%s opened its action in a read-only session", k)
		}
		if s := h.screen(); !strings.Contains(s, k+" is off") || !strings.Contains(s, "read-only") {
			t.Errorf("%s: no reason on the status line", k)
		}
	}
	if as, _ := e.j.Attempts(context.Background(), id); len(as) != 0 {
		t.Errorf("attempts journaled: %+v", as)
	}
	if vs, _ := e.j.Verdicts(context.Background(), id); len(vs) != 0 {
		t.Errorf("verdicts journaled: %+v", vs)
	}
}

// y opens the copy menu: the log id, the request id, the record as redacted JSON,
// a curl reproduction that names $COMPOSIO_API_KEY and never the key, the bundle; a terminal
// that cannot take OSC 52 gets a 0600 file and the path.
func TestCopyMenu(t *testing.T) {
	e := newEnv(t)
	e.parts.APIKey = "test-key"
	h := newHarness(t, e, 220, 40)
	i, ok := h.find(func(x *model.Execution, t *model.Triage) bool { return t.Kind.IsWrite() })
	if !ok {
		t.Fatal("no write")
	}
	full, err := h.m.be.Get(context.Background(), h.m.data.DS.ID(i)) // the record, as after the detail fetch
	if err != nil || full.RequestID == "" {
		t.Fatalf("%v, request id %q", err, full.RequestID)
	}
	h.m.data.PutDetail(full.ID, full)
	h.selectRow(i)
	ex := h.m.data.Exec(i)
	h.keys("y")
	if !h.m.copyMenu.IsOpen() {
		t.Fatal("y did not open the copy menu")
	}
	s := h.screen()
	for _, w := range []string{"log id", "2  request id", "3  record (JSON", "4  curl reproduction", "5  support bundle", ex.RequestID} {
		if !strings.Contains(s, w) {
			t.Errorf("the menu lacks %q", w)
		}
	}
	curl := h.m.be.CurlFor(ex).String()
	if !strings.Contains(curl, `x-api-key: $COMPOSIO_API_KEY`) || strings.Contains(curl, "test-key") || !strings.Contains(curl, "/tools/execute/"+ex.ToolSlug) {
		t.Errorf("curl: %s", curl)
	}
	rec := h.m.be.RecordJSON(ex)
	if !strings.Contains(rec, ex.ID) || strings.Contains(rec, "test-key") {
		t.Errorf("record: %.200s", rec)
	}
	hostile := *ex
	hostile.ToolSlug = "X'; rm -rf ~; echo '"
	if c := h.m.be.CurlFor(&hostile).String(); strings.Contains(c, "curl ") {
		t.Errorf("a hostile slug made a command: %s", c)
	}
	// a terminal without OSC 52: the text goes to a file
	h.m.opt.NoOSC52, h.m.opt.Term = true, "linux"
	h.keys("4")
	if !h.m.copyMenu.IsOpen() {
		t.Fatal("a digit acted at once: digits choose, enter acts")
	}
	h.keys("enter")
	s = h.screen()
	if !strings.Contains(s, "cannot take OSC 52 (TERM=linux)") {
		t.Fatalf("no fallback message:\n%s", s)
	}
	m := regexp.MustCompile(`is in (\S+\.txt)`).FindStringSubmatch(ansi.Strip(s))
	if m == nil {
		t.Fatalf("no path in the message:\n%s", s)
	}
	b, err := os.ReadFile(m[1])
	st, _ := os.Stat(m[1])
	if err != nil || string(b) != curl || st.Mode().Perm() != 0o600 {
		t.Errorf("fallback file %s: %v, mode %v, %q", m[1], err, st.Mode(), b)
	}
}

// armedAfter runs cmd (and, for a batch, every command in it, concurrently) and reports when an
// ArmedMsg came out, if one did within two seconds.
func armedAfter(cmd tea.Cmd) (time.Time, bool) {
	got := make(chan time.Time, 16)
	var run func(c tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case retrydialog.ArmedMsg:
			got <- time.Now()
		case tea.BatchMsg:
			for _, sub := range msg {
				go run(sub)
			}
		}
	}
	go run(cmd)
	select {
	case at := <-got:
		return at, true
	case <-time.After(2 * time.Second):
		return time.Time{}, false
	}
}

// o opens the selected execution's page in the dashboard from the config's [dashboard]
// log_url, copies the address when there is no browser, and says how to configure it when
// the config names none: exectriage never guesses the address.
func TestDashboardKey(t *testing.T) {
	script, got := testkit.FakeBrowser(t)
	t.Setenv("BROWSER", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")

	e := newEnv(t)
	h := newHarness(t, e, 160, 40)
	h.selectRow(0)
	id := h.m.data.DS.ID(0)
	h.keys("o")
	if s := ansi.Strip(h.screen()); !strings.Contains(s, "dashboard's address for one log is not known") {
		t.Fatalf("o without a configured address:\n%s", s)
	}

	cfg, err := config.Parse("c.toml", []byte("[dashboard]\nlog_url = \"https://dash.example/acme/main/logs/{log_id}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.parts.Config = cfg
	want := "https://dash.example/acme/main/logs/" + id
	h = newHarness(t, e, 160, 40)
	h.selectRow(0)
	t.Setenv("BROWSER", script)
	h.keys("o")
	if b, err := os.ReadFile(got); err != nil || string(b) != want+"\n" {
		t.Fatalf("the browser got %q (%v), want %q", b, err, want)
	}
	if s := ansi.Strip(h.screen()); !strings.Contains(s, "opened "+id+" in the browser") {
		t.Errorf("no opened message:\n%s", s)
	}

	// no browser (ssh, a container): the address is copied; here, into the fallback file
	t.Setenv("BROWSER", "")
	h.m.opt.NoOSC52, h.m.opt.Term = true, "dumb"
	h.keys("o")
	s := ansi.Strip(h.screen())
	m := regexp.MustCompile(`the dashboard URL is in (\S+\.txt)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no copy of the address:\n%s", s)
	}
	if b, err := os.ReadFile(m[1]); err != nil || string(b) != want {
		t.Errorf("copied %q (%v), want %q", b, err, want)
	}

	// a browser that fails: its error and where the address went, both on the status line
	failing := filepath.Join(t.TempDir(), "failing.sh")
	if err := os.WriteFile(failing, []byte("#!/bin/sh\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", failing)
	h.keys("o")
	if s := ansi.Strip(h.screen()); !strings.Contains(s, "dashboard URL is in") || !strings.Contains(s, "exit status 3") {
		t.Errorf("a failing browser: the status line does not say both why and where:\n%s", s)
	}

	h.keys("y")
	if s := h.screen(); !strings.Contains(s, "dashboard URL") {
		t.Errorf("the copy menu lacks the dashboard URL:\n%s", s)
	}
}

// holds is the real backend, counting the holds the loop asks for.
type holds struct {
	Backend
	n *int
	d *time.Duration
}

func (h holds) Hold(d time.Duration) { *h.n++; *h.d = d }

// A key pressed while a load or an analysis runs holds the load back for a few frames, so
// that the key's frame gets the cores; a key with nothing loading holds nothing.
func TestKeysHoldTheLoad(t *testing.T) {
	e := newEnv(t)
	var n int
	var d time.Duration
	m := New(context.Background(), holds{e.deps().App, &n, &d}, e.ui)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.load.loading, m.load.analyzing = false, false
	m.Update(keyPress('j'))
	if n != 0 {
		t.Fatalf("a key with nothing loading held the load %d times", n)
	}
	m.load.loading = true
	m.Update(keyPress('?'))
	m.load.loading, m.load.analyzing = false, true
	m.Update(keyPress('?'))
	if n != 2 || d != keyHold || keyHold < time.Second/maxFPS {
		t.Fatalf("keys while loading: %d holds of %v, want 2 of %v (at least a frame)", n, d, keyHold)
	}
}

// Once a big load's groups are in, its memory is handed back when the list shows them (the
// selection that follows leaves its own garbage), once.
func TestBigLoadHandsMemoryBack(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	ds := h.m.data.DS
	h.m.load.analyzing = true
	h.m.Update(analyzedMsg{tag: h.m.load.analyzeTag, ds: ds, big: true})
	if !h.m.load.handBack {
		t.Fatal("a big load's last analysis did not ask for the memory to be handed back")
	}
	_, cmd := h.m.Update(selectedMsg{tag: h.m.sel.tag, ds: ds})
	if h.m.load.handBack || cmd == nil {
		t.Fatalf("the list shows the big load, the memory is not handed back (pending %v)", h.m.load.handBack)
	}
	h.m.Update(analyzedMsg{tag: h.m.load.analyzeTag, ds: ds})
	if h.m.load.handBack {
		t.Error("a small analysis asked for the memory to be handed back")
	}
}

// When a load ends while an analysis of its pages is still under way, the duplicate groups are
// found after it: the header says so until they are, never "refreshed" before.
func TestLoadEndSaysGroupsAreComing(t *testing.T) {
	e := newEnv(t)
	m := New(context.Background(), e.deps().App, e.ui)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.load.loading, m.load.analyzing = true, true // a page's analysis runs
	m.header.Loading = true
	m.Update(loadDoneMsg{tag: m.load.tag})
	if s := ansi.Strip(m.Render()); !strings.Contains(s, "finding duplicate groups") || strings.Contains(s, "refreshed") {
		t.Fatalf("the load is done, its groups are not: the header reads\n%s", strings.SplitN(s, "\n", 3)[:2])
	}
	if !m.load.dirty {
		t.Fatal("no analysis with groups is due after the one under way")
	}
}

// loadingModel is a 120x40 model whose load has started and received nothing, and a page of
// two records to give it.
func loadingModel(t *testing.T) (*Model, []model.Execution) {
	t.Helper()
	e := newEnv(t)
	m := New(context.Background(), e.deps().App, e.ui)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.load.loading, m.header.Loading, m.header.Loaded, m.header.Pages = true, true, 0, 0
	return m, []model.Execution{{ID: "log_1"}, {ID: "log_2"}}
}

// Pages that come faster than the header can be read change its counts once: the first at
// once, then at most every progressEvery or with the spinner's next frame, so a fast load does
// not redraw the screen for every page.
func TestProgressIsPaced(t *testing.T) {
	m, page := loadingModel(t)
	for range 5 {
		m.Update(queued(m, m.load.tag, page, nil))
	}
	if m.header.Pages != 1 || m.header.Loaded != 2 {
		t.Fatalf("after 5 quick pages the header shows page %d, %d records; want the first's", m.header.Pages, m.header.Loaded)
	}
	m.Update(spinner.TickMsg{})
	if m.header.Pages != 5 || m.header.Loaded != 10 {
		t.Fatalf("after a spinner frame the header shows page %d, %d records; want 5, 10", m.header.Pages, m.header.Loaded)
	}
	m.load.progressAt = time.Now().Add(-progressEvery)
	m.Update(queued(m, m.load.tag, page, nil))
	if m.header.Pages != 6 {
		t.Fatalf("a page after progressEvery shows page %d, want 6", m.header.Pages)
	}
}

// A page that changes nothing on the screen (its counts wait for progressEvery) gives the
// frame before again, not a new rendering of the whole screen; a page whose counts show, and
// any other message, renders anew.
func TestInvisiblePagesReuseTheFrame(t *testing.T) {
	m, page := loadingModel(t)
	m.Update(queued(m, m.load.tag, page, nil))
	first := m.Render()
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	m.Update(queued(m, m.load.tag, page, nil))
	if got := m.Render(); !same(got, first) {
		t.Fatal("a page whose counts do not show rendered the screen again")
	}
	m.load.progressAt = time.Now().Add(-progressEvery)
	m.Update(queued(m, m.load.tag, page, nil))
	shown := m.Render()
	if same(shown, first) || shown == first || !strings.Contains(ansi.Strip(shown), "loading 6 records · page 3") {
		t.Fatalf("a page whose counts show kept the old frame:\n%s", ansi.Strip(shown))
	}
	m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	if got := m.Render(); same(got, shown) || !strings.Contains(ansi.Strip(got), "esc to close") {
		t.Fatal("a key after an invisible page did not render anew")
	}
}

// While a load runs its analyses give the list a dataset at most every snapshotEvery (each
// costs a pass over every row so far): the first at once, then none until the time is up; the
// analysis with the groups always gives one.
// The pace of a load's datasets slows as the list grows, so that their cost grows with the
// export rather than with its square.
func TestSnapshotIntervalGrowsWithTheRows(t *testing.T) {
	for _, c := range []struct {
		rows int
		want time.Duration
	}{
		{0, snapshotEvery}, {1000, snapshotEvery}, {snapshotRows - 1, snapshotEvery}, {2 * snapshotRows, 2 * snapshotEvery},
		{1_000_000, 4 * snapshotEvery}, {5_000_000, snapshotMost},
	} {
		if got := snapshotInterval(c.rows); got != c.want {
			t.Errorf("snapshotInterval(%d) = %v, want %v", c.rows, got, c.want)
		}
	}
}

func TestAnalysesSnapshotPaced(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	m := h.m
	m.data.DS = nil // nothing on screen yet
	analyze := func() analyzedMsg {
		t.Helper()
		m.load.analyzing = false
		msg, ok := m.scheduleAnalyze()().(analyzedMsg)
		if !ok {
			t.Fatal("scheduleAnalyze gave no analysis")
		}
		return msg
	}
	m.load.loading = true
	first := analyze()
	if first.ds == nil {
		t.Fatal("the first analysis of a load gave no dataset for the first screen")
	}
	m.data.DS = first.ds
	if analyze().ds != nil {
		t.Fatal("an analysis right after a snapshot gave another")
	}
	m.load.snapAt = time.Now().Add(-snapshotEvery)
	if analyze().ds == nil {
		t.Fatal("an analysis after snapshotEvery gave no dataset")
	}
	m.load.loading = false // the load is in: the analysis with the groups
	if analyze().ds == nil {
		t.Fatal("the analysis with the groups gave no dataset")
	}
}

// Enter on an invalid filter applies nothing quietly (/kind:wrte + Enter applied
// its valid prefix kind:wr and the error went away): the prompt stays open with the error, esc
// drops it and the list is back to every row.
func TestEnterOnAnInvalidFilterKeepsTheError(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	all := h.m.list.Len()
	h.keys("/", "kind:wrte", "enter")
	if !h.m.filter.Active() || !strings.Contains(h.screen(), "kind:wrte") || h.m.filter.Err == "" {
		t.Fatalf("Enter on an invalid filter closed the prompt or lost the error (%q):\n%s", h.m.filter.Err, h.screen())
	}
	h.keys("esc")
	if h.m.filter.Active() || h.m.list.Len() != all {
		t.Errorf("esc: prompt open %v, %d rows of %d", h.m.filter.Active(), h.m.list.Len(), all)
	}
	h.keys("/", "kind:write", "enter")
	if h.m.filter.Active() || h.m.list.Len() == all {
		t.Errorf("a valid filter was not applied: prompt open %v, %d rows", h.m.filter.Active(), h.m.list.Len())
	}
}

// flat is a screen's text as one line of words, boxes and wrapping gone: for phrases a
// dialog may wrap.
func flat(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┃", " ").Replace(ansi.Strip(s))), " ")
}

// isQuit runs cmd (when there is one) and reports whether it quits the program.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		if slices.ContainsFunc(msg, isQuit) {
			return true
		}
	}
	return false
}

// While a retry is being sent, q and ctrl+c ask before leaving (leaving cuts the send off and
// makes its outcome unknown), and esc asks before hiding the sending dialog. Any
// other key withdraws the question; once the send is over, q leaves at once.
func TestQuitAndEscAskWhileARetryIsSent(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	effects := len(e.srv.Effects())
	h.keys("r")
	if !h.m.retry.Confirming() {
		t.Fatal("r did not open the confirmation")
	}
	e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
	h.keys("tab", "tab", "failed", "enter", "never arrived", "enter")
	// The last Enter asks to send; the send itself is held back, so it stays in flight.
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	send, ok := cmd().(retrydialog.SendMsg)
	if !ok || send.ExecID != id {
		t.Fatalf("Enter on Retry once gave %T, not the send of %s", cmd(), id)
	}
	h.m.Update(send) // its command (the retry) is not run
	if !h.m.data.Retrying[id] {
		t.Fatal("the send is not in flight")
	}
	press := func(k tea.KeyPressMsg) tea.Cmd { _, c := h.m.Update(k); return c }
	q, esc, ctrlC, x := tea.KeyPressMsg{Code: 'q', Text: "q"}, tea.KeyPressMsg{Code: tea.KeyEscape}, tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, tea.KeyPressMsg{Code: 'x', Text: "x"}

	// esc in the sending dialog asks; any key withdraws; esc twice hides it.
	if isQuit(press(esc)) || !h.m.retry.IsOpen() {
		t.Fatal("the first esc closed the sending dialog")
	}
	if s := flat(h.m.retry.View()); !strings.Contains(s, "esc again hides it") {
		t.Fatalf("the first esc did not say what a second does:\n%s", s)
	}
	press(x)
	press(esc)
	if !h.m.retry.IsOpen() {
		t.Fatal("esc, x, esc closed the dialog: the x should have withdrawn the question")
	}
	press(esc)
	if h.m.retry.IsOpen() {
		t.Fatal("a second esc did not hide the dialog")
	}

	// q asks, x withdraws, q asks again, q leaves; ctrl+c the same.
	for _, k := range []tea.KeyPressMsg{q, ctrlC} {
		if isQuit(press(k)) {
			t.Fatalf("%s quit while a retry was being sent", k)
		}
		if s := ansi.Strip(h.m.View().Content); !strings.Contains(s, "quitting now leaves its outcome unknown") {
			t.Fatalf("%s did not say why it asks:\n%s", k, s)
		}
		if isQuit(press(x)) || isQuit(press(k)) {
			t.Fatalf("%s, x, %s quit: the x should have withdrawn the question", k, k)
		}
		if !isQuit(press(k)) {
			t.Fatalf("%s twice did not quit", k)
		}
		h.m.quitAsked = false
	}

	// q and ctrl+c over the open sending dialog ask in the dialog as well.
	h.m.retry.Open(id)
	h.m.retry.SetSending()
	for _, k := range []tea.KeyPressMsg{q, ctrlC} {
		if isQuit(press(k)) {
			t.Fatalf("%s quit over the sending dialog", k)
		}
		if s := flat(h.m.retry.View()); !strings.Contains(s, "quitting now leaves") {
			t.Fatalf("the dialog does not say why %s asks:\n%s", k, s)
		}
		press(x)
	}

	// The send ends: q leaves at once.
	h.send(retriedMsg{id: id, res: app.RetryOutcome{Err: "held back by the test"}})
	press(esc) // the dialog shows the outcome; esc closes it at once
	if h.m.retry.IsOpen() {
		t.Fatal("esc did not close the dialog once the send was over")
	}
	if !isQuit(press(q)) {
		t.Fatal("q did not quit once nothing was in flight")
	}
	if n := len(e.srv.Effects()); n != effects {
		t.Fatalf("%d effects, want %d: the test's send must not run", n, effects)
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

// The copy menu and the mark dialog behave alike: a digit chooses and Enter acts
// (a digit used to copy at once, and the Enter after it opened the detail); esc and q close;
// the rows' second column lines up.
func TestMenusBehaveAlike(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged && t.Kind.IsWrite() })
	if !ok {
		t.Fatal("no flagged write")
	}
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	column := func(s string, labels ...string) {
		t.Helper()
		at := -1
		for l := range strings.SplitSeq(ansi.Strip(s), "\n") {
			for _, lb := range labels {
				j := strings.Index(l, " "+lb+" ")
				if j < 0 {
					continue
				}
				rest, _, _ := strings.Cut(l[j+len(lb)+2:], "│") // to the box's edge
				if strings.TrimSpace(rest) == "" {
					continue // no second column in this row
				}
				col := ansi.StringWidth(l[:j+len(lb)+2]) + len(rest) - len(strings.TrimLeft(rest, " "))
				if at >= 0 && col != at {
					t.Errorf("%q's second column is at %d, the first row's at %d:\n%s", lb, col, at, s)
				}
				at = col
			}
		}
		if at < 0 {
			t.Fatalf("none of %v on the screen:\n%s", labels, s)
		}
	}
	for _, menu := range []struct {
		open   string
		labels []string
	}{
		{"y", []string{"log id", "request id"}},
		{"m", []string{"confirmed_failed", "duplicate", "ignored"}},
	} {
		isOpen := func() bool {
			if menu.open == "y" {
				return h.m.copyMenu.IsOpen()
			}
			return h.m.mark.IsOpen()
		}
		for _, closer := range []string{"esc", "q"} {
			h.keys(menu.open)
			if !isOpen() {
				t.Fatalf("%s did not open its menu", menu.open)
			}
			column(h.screen(), menu.labels...)
			h.keys("2")
			if !isOpen() {
				t.Fatalf("%s menu: a digit acted at once", menu.open)
			}
			h.keys(closer)
			if isOpen() || h.m.focus != focusList {
				t.Fatalf("%s menu: %s did not close it (or went on to the screen below)", menu.open, closer)
			}
		}
	}
	// Enter acts on what the digit chose, and nothing is left for the list.
	h.keys("m", "2", "enter")
	if h.m.mark.IsOpen() || h.m.focus != focusList {
		t.Fatal("enter did not record the verdict, or went on to the list")
	}
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 1 || vs[0].Verdict != model.VerdictConfirmedSucceeded {
		t.Fatalf("verdicts after m 2 enter: %+v %v", vs, err)
	}
}

// n and N move between a filter's matches, past a group's header and its other members in the
// duplicates view, and wrap at the ends; ctrl+d and ctrl+u move half a page.
func TestNextMatchAndHalfPages(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	h.keys("n")
	if _, text := h.m.status.Text(); !strings.Contains(text, "type / first") {
		t.Errorf("n without a filter: %q", text)
	}
	ctrl := func(r rune) { h.send(tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl}) }
	rows := h.m.list.Len()
	ctrl('d')
	half := h.m.list.Cursor()
	if half < 5 || half > 20 {
		t.Fatalf("ctrl+d moved to row %d of %d", half, rows)
	}
	ctrl('u')
	if h.m.list.Cursor() != 0 {
		t.Fatalf("ctrl+u went to row %d, not back to 0", h.m.list.Cursor())
	}

	h.keys("/", "gmsend", "enter")
	n := h.m.list.Len()
	if n < 3 {
		t.Fatalf("the filter kept %d rows", n)
	}
	h.keys("n")
	if h.m.list.Cursor() != 1 {
		t.Errorf("n went to row %d, want 1", h.m.list.Cursor())
	}
	h.keys("N", "N")
	if _, text := h.m.status.Text(); h.m.list.Cursor() != n-1 || !strings.Contains(text, "wrapped to the bottom") {
		t.Errorf("N, N from row 1 went to row %d (%q), want the last, %d, wrapped", h.m.list.Cursor(), text, n-1)
	}
	h.keys("esc", "esc")

	// the duplicates view: a group shows every member; n skips to the one the filter matched
	ds := h.m.data.DS
	var member string
	for gi := range ds.Groups {
		if ids := ds.Groups[gi].ExecutionIDs; len(ids) >= 3 {
			member = ids[1]
			break
		}
	}
	if member == "" {
		t.Fatal("no group of three")
	}
	h.keys("d", "/", "id:"+member, "enter")
	if it, _ := h.m.list.Selected(); it.Kind != window.ItemGroup || h.m.list.Len() < 4 {
		t.Fatalf("the duplicates view of %s: %d rows, the cursor on a %v", member, h.m.list.Len(), it.Kind)
	}
	h.keys("n")
	if it, _ := h.m.list.Selected(); it.Kind == window.ItemGroup || h.m.data.DS.ID(int(it.Exec)) != member {
		t.Fatalf("n went to %s (%v), not the matching member %s", h.m.data.DS.ID(int(it.Exec)), it.Kind, member)
	}
	before := h.m.list.Cursor()
	h.keys("n")
	if _, text := h.m.status.Text(); h.m.list.Cursor() != before || !strings.Contains(text, "no other match") {
		t.Errorf("n with one match moved to row %d (%q)", h.m.list.Cursor(), text)
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

// sessionWithADuplicate finds a session of the sandbox with at least two executions in the
// window, one of them in a duplicate group; it returns the session and that member's position.
func sessionWithADuplicate(h *harness) (string, int) {
	h.t.Helper()
	ds := h.m.data.DS
	count := map[string]int{}
	for _, e := range h.e.srv.Executions() {
		if e.SessionID != "" && ds.Index(e.ID) >= 0 {
			count[e.SessionID]++
		}
	}
	var best string
	pos := -1
	for _, e := range h.e.srv.Executions() {
		i := ds.Index(e.ID)
		if e.SessionID == "" || i < 0 || count[e.SessionID] < 2 || ds.Group(i) == nil {
			continue
		}
		if best == "" || e.SessionID < best {
			best, pos = e.SessionID, i
		}
	}
	if best == "" {
		h.t.Fatal("the sandbox has no session of two with a duplicate in it")
	}
	return best, pos
}

// t on a row lines up its session: every execution of it, oldest first, the one t was pressed
// on marked, the duplicates among them named with their cause.
func TestTimelineOfASession(t *testing.T) {
	cfg := sandboxConfig()
	cfg.Seed, cfg.Size = 9, 1500 // a history with tool-router sessions in its window
	e := newEnvWith(t, cfg)
	h := newHarness(t, e, 120, 40)
	sid, i := sessionWithADuplicate(h)
	want := 0
	for _, x := range e.srv.Executions() {
		if x.SessionID == sid {
			want++
		}
	}
	h.selectRow(i)
	h.keys("t")
	if !h.m.showTime || h.m.timeline.Len() != want {
		t.Fatalf("t on a row of session %s: shown %v, %d steps, want %d", sid, h.m.showTime, h.m.timeline.Len(), want)
	}
	box := ansi.Strip(h.m.timeline.View())
	for _, w := range []string{"Session " + sid, "› ", "DUP×", "oldest first"} {
		if !strings.Contains(box, w) {
			t.Errorf("the timeline lacks %q:\n%s", w, box)
		}
	}
	var last string
	for l := range strings.SplitSeq(box, "\n") {
		if m := regexp.MustCompile(`\d\d:\d\d:\d\d\.\d\d\d`).FindString(l); m != "" {
			if m < last {
				t.Errorf("the steps are not oldest first: %s after %s", m, last)
			}
			last = m
		}
	}
	golden(t, "timeline_120x40", h.screen()+"\n")
	h.keys("esc")
	if h.m.showTime {
		t.Fatal("esc did not close the timeline")
	}
	h2 := newHarness(t, e, 80, 24)
	h2.selectRow(i)
	h2.keys("t")
	s := h2.screen()
	checkFits(t, s, 80, 24)
	golden(t, "timeline_80x24", s+"\n")
}

// TestTheTimelineLinksAnApprovedReCall: in a session's timeline the call that asked
// for approval shows as waiting, and each approved re-call names the call it continues; the
// list marks the ask WAITING FOR APPROVAL and never flags it.
func TestTheTimelineLinksAnApprovedReCall(t *testing.T) {
	cfg := sandboxConfig()
	cfg.Approvals = []string{"SLACK_SEND_MESSAGE"}
	e := newEnvWith(t, cfg)
	ids, sid := approvedTwice(t, e.url)
	h := newHarness(t, e, 140, 40)
	ds := h.m.data.DS
	ask := ds.Index(ids[0])
	if ask < 0 || ds.Index(ids[1]) < 0 {
		t.Fatalf("the approval's calls are not in the list (%v)", ids)
	}
	if tr := ds.Triage(ask); tr.Outcome != model.OutcomeWaiting || tr.Flagged {
		t.Fatalf("the ask: %s flagged=%v", tr.Outcome, tr.Flagged)
	}
	h.filterTo(ids[0])
	if s := h.screen(); !strings.Contains(s, "WAITING FOR APPROVAL") {
		t.Errorf("the ask's row has no WAITING FOR APPROVAL badge:\n%s", s)
	}
	h.keys("t")
	box := ansi.Strip(h.m.timeline.View())
	if !strings.Contains(box, "Session "+sid) || !strings.Contains(box, "WAITING") {
		t.Fatalf("the timeline of %s:\n%s", sid, box)
	}
	if n := strings.Count(box, "approved re-call of "+ids[0]); n != 2 {
		t.Errorf("%d steps name the ask they continue, want 2:\n%s", n, box)
	}
}

// The list's filter marks follow the query: made again when it changes, kept while it does not
// (a row's marks are worked out once, not in every frame).
func TestListHighlightsFollowTheQuery(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	marked := func() string {
		it, _ := h.m.list.Selected()
		e := h.m.data.Exec(int(it.Exec))
		var b strings.Builder
		for _, p := range h.m.list.Highlight(int(it.Exec))["tool"] {
			b.WriteByte(e.ToolSlug[p])
		}
		return b.String()
	}
	h.keys("/", "gmsend", "enter")
	if got := marked(); got != "GMSEND" {
		t.Fatalf("gmsend marks %q in the tool", got)
	}
	first := fmt.Sprintf("%p", h.m.list.Highlight)
	h.keys("j")
	if fmt.Sprintf("%p", h.m.list.Highlight) != first {
		t.Error("a move made the marks again for the same query")
	}
	h.keys("esc", "/", "slmsg", "enter")
	if got := marked(); !strings.HasPrefix(got, "SL") {
		t.Fatalf("after a new query the tool marks %q (the old query's marks?)", got)
	}
}

// TestKeysWaitForTheRowsTheyFollow: keys typed faster than the filter is applied act on the
// rows the filter makes, not on the rows on screen before it landed: "/ id:x enter r" opens
// the retry of x (the CI's tmux run pressed r between the filter's enter and its rows, and the
// key acted on an intermediate, empty list: "nothing selected").
func TestKeysWaitForTheRowsTheyFollow(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	want := h.m.data.DS.ID(h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound))
	var held []tea.Cmd
	press := func(k tea.KeyPressMsg) {
		_, cmd := h.m.Update(k)
		held = append(held, cmd) // the selections run later, as a slow filter's would
	}
	press(tea.KeyPressMsg{Code: '/', Text: "/"})
	for _, r := range "id:" + want {
		press(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	press(tea.KeyPressMsg{Code: tea.KeyEnter})
	press(tea.KeyPressMsg{Code: 'j', Text: "j"}) // moves within the filtered rows (one): stays
	press(tea.KeyPressMsg{Code: 'r', Text: "r"})
	if h.m.retry.IsOpen() {
		t.Fatalf("r acted on the rows before the filter landed (retry of %s)", h.m.retry.ExecID())
	}
	for _, c := range held {
		h.run(c)
	}
	if !h.m.retry.IsOpen() || h.m.retry.ExecID() != want {
		t.Fatalf("after the filter's rows came, r opened %v for %q, want the retry of %s; status %q",
			h.m.retry.IsOpen(), h.m.retry.ExecID(), want, h.m.status.View())
	}
	if len(h.m.deferred) != 0 {
		t.Fatalf("%d keys still waiting", len(h.m.deferred))
	}
}

// TestSettlingARowLeavesTheCursorOnTheNext: in the flagged view a row
// that a verdict settles leaves the view; the cursor went to row 1 and the confirmation was
// overwritten at once. The cursor now lands on the row that came next, as lazygit does after
// staging, and the confirmation stays until the next key.
func TestSettlingARowLeavesTheCursorOnTheNext(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 160, 50)
	h.keys("a") // flagged only
	for range 3 {
		h.keys("j")
	}
	at := h.m.list.Cursor()
	it, _ := h.m.list.Selected()
	settled := h.m.data.DS.ID(int(it.Exec))
	h.keys("j")
	next, _ := h.m.list.Selected()
	nextID := h.m.data.DS.ID(int(next.Exec))
	h.keys("k")
	h.keys("m", "3", "enter") // duplicate: settles it, whatever its outcome (it must be in a group)
	if _, text := h.m.status.Text(); !strings.Contains(text, "marked") {
		// not in a group: confirmed_succeeded fits any flagged write
		h.keys("esc", "m", "2", "enter")
	}
	if c := h.m.data.Case(settled); c == nil || !c.Settled {
		t.Fatalf("%s is not settled: %+v (status %q)", settled, c, h.m.status.View())
	}
	if got := h.m.list.Cursor(); got != at {
		t.Errorf("the cursor is on row %d, want %d (where the settled row was)", got, at)
	}
	if it, _ := h.m.list.Selected(); h.m.data.DS.ID(int(it.Exec)) != nextID {
		t.Errorf("the cursor is on %s, want the next row's %s", h.m.data.DS.ID(int(it.Exec)), nextID)
	}
	if _, text := h.m.status.Text(); !strings.Contains(text, settled+" marked") {
		t.Errorf("the confirmation is gone: %q", text)
	}
	h.keys("j")
	if _, text := h.m.status.Text(); strings.Contains(text, "marked") {
		t.Errorf("the confirmation outlived the next key: %q", text)
	}
}

// TestTheFilterSaysWhatItsRowsDoNotShow: an identifier term being typed
// (tool:GMAIL_S) emptied the list without a word, user: with no value matched everything
// silently, and the [s best match] badge stayed after esc with nothing to rank.
func TestTheFilterSaysWhatItsRowsDoNotShow(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 160, 40)
	h.keys("/", "tool:GMAIL_S")
	if s := h.screen(); !strings.Contains(s, "tool:GMAIL_S* matches those that start so: GMAIL_SEND_EMAIL") {
		t.Errorf("no hint naming the values that start as a whole value that matches nothing:\n%s", s)
	}
	h.keys("esc", "/", "user:")
	if s := h.screen(); !strings.Contains(s, "user: has no value yet: it matches every row") {
		t.Errorf("no hint for a field with no value:\n%s", s)
	}
	h.keys("esc", "/", "gmail", "enter") // best match is on by default
	if s := h.screen(); !strings.Contains(s, "best match]") {
		t.Errorf("best match is not shown while it orders the matches:\n%s", s)
	}
	h.keys("esc")
	if s := h.screen(); strings.Contains(s, "best match]") {
		t.Errorf("the best match badge stayed with nothing to rank:\n%s", s)
	}
}

// Many rows at once: space selects rows (and moves on), * every row shown; m opens one dialog
// that says how many and what happens, and records the verdict on each it fits, one by one;
// v asks once, then checks every selected write; r refuses (a retry is one row at a time); esc
// clears the selection.
func TestManyRowsAtOnce(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 160, 50)
	h.keys("a") // flagged only
	h.keys(" ", " ", " ")
	if len(h.m.data.Picked) != 3 || h.m.list.Cursor() != 3 {
		t.Fatalf("three spaces: %d selected, cursor at %d", len(h.m.data.Picked), h.m.list.Cursor())
	}
	if !strings.Contains(h.screen(), "3 selected") {
		t.Fatal("the list does not say how many are selected")
	}
	h.keys("r")
	if _, text := h.m.status.Text(); !strings.Contains(text, "one execution at a time") {
		t.Fatalf("r on a selection: %q", text)
	}
	execs, triages := h.m.pickedRows()
	var choices []model.Verdict
	for _, v := range model.Verdicts() {
		for i := range execs {
			if slices.Contains(h.m.be.VerdictsFor(&execs[i], &triages[i]), v) {
				choices = append(choices, v)
				break
			}
		}
	}
	k := slices.Index(choices, model.VerdictIgnored)
	if k < 0 {
		t.Fatalf("ignored does not fit the selection: %v", choices)
	}
	h.keys("m")
	if !h.m.mark.IsOpen() || !strings.Contains(h.screen(), "3 selected executions") {
		t.Fatalf("m on a selection did not open the dialog that says how many:\n%s", h.screen())
	}
	h.keys(strconv.Itoa(k+1), "enter")
	for _, x := range execs {
		if h.m.data.Verdicts[x.ID] != model.VerdictIgnored {
			t.Fatalf("%s was not marked: %v (status %q)", x.ID, h.m.data.Verdicts[x.ID], h.m.status.View())
		}
		recs, err := e.j.Verdicts(t.Context(), x.ID)
		if err != nil || len(recs) != 1 || recs[0].Verdict != model.VerdictIgnored {
			t.Fatalf("the journal of %s: %+v %v", x.ID, recs, err)
		}
	}
	if len(h.m.data.Picked) != 0 {
		t.Fatal("the selection stayed after it was marked")
	}
	h.keys("*")
	if n := h.m.list.Len(); len(h.m.data.Picked) != n || n == 0 {
		t.Fatalf("* selected %d of %d rows", len(h.m.data.Picked), n)
	}
	h.keys("*")
	if len(h.m.data.Picked) != 0 {
		t.Fatal("* again did not clear the selection")
	}
	h.keys("g", " ", " ")
	h.keys("v")
	if _, text := h.m.status.Text(); !strings.Contains(text, "press v again") || len(h.m.data.Provider) != 0 {
		t.Fatalf("the first v on a selection: %q, %d checked", text, len(h.m.data.Provider))
	}
	h.keys("v")
	if len(h.m.data.Provider) != 2 {
		t.Fatalf("the second v checked %d of 2 writes", len(h.m.data.Provider))
	}
	h.keys("esc")
	if len(h.m.data.Picked) != 0 {
		t.Fatal("esc did not clear the selection")
	}
}

// Saved views: S opens a menu of the config's views; choosing one puts its filter in the prompt,
// shows its rows (flagged writes here) and the header names it; "no view" clears it; a session
// started with --view shows it from the start.
func TestSavedViewsFromTheMenu(t *testing.T) {
	e := newEnv(t)
	e.ui.Views = []SavedView{{Name: "gmail-unknown", Filter: "toolkit:gmail", Show: "flagged"}, {Name: "groups", Show: "duplicates"}}
	h := newHarness(t, e, 160, 40)
	h.keys("S")
	if !h.m.copyMenu.IsOpen() || !strings.Contains(h.screen(), "Saved views") || !strings.Contains(h.screen(), "gmail-unknown") {
		t.Fatalf("V did not open the views menu:\n%s", h.screen())
	}
	h.keys("1", "enter")
	if h.m.query.String() != "toolkit:gmail" || !h.m.view.FlaggedOnly || !strings.Contains(h.screen(), "view gmail-unknown") {
		t.Fatalf("the view was not applied: query %q flagged %v\n%s", h.m.query.String(), h.m.view.FlaggedOnly, h.screen())
	}
	for i := range h.m.list.Len() {
		it := h.m.list.Items().At(i)
		if x := h.m.data.DS.Exec(int(it.Exec)); x.ToolkitSlug != "gmail" || !h.m.data.DS.Triage(int(it.Exec)).Flagged {
			t.Fatalf("row %d: %s %s in the view", i, x.ToolkitSlug, x.ID)
		}
	}
	h.keys("S", "3", "enter") // no view
	if h.m.query.String() != "" || h.m.view.FlaggedOnly || strings.Contains(h.screen(), "view gmail-unknown") {
		t.Fatal("no view did not clear the view")
	}
	// Until a view's rows come, the title says so: the rows below are the previous view's.
	_, cmd := h.m.Update(viewChosenMsg{name: "gmail-unknown"})
	if s := h.screen(); !strings.Contains(s, "view gmail-unknown") || !strings.Contains(s, "matching…") {
		t.Fatalf("the view's header over the previous rows does not say they are on their way:\n%s", s)
	}
	h.run(cmd)
	if s := h.screen(); strings.Contains(s, "matching…") {
		t.Fatalf("the view's rows came and the title still says matching:\n%s", s)
	}
	_, cmd = h.m.Update(tea.KeyPressMsg{Code: 'a', Text: "a"}) // the flagged view off: rows on their way
	if !strings.Contains(h.screen(), "matching…") {
		t.Fatalf("a view toggled over the previous rows does not say they are on their way:\n%s", h.screen())
	}
	h.run(cmd)
	e.ui.View = "groups"
	h2 := newHarness(t, e, 160, 40)
	if !h2.m.view.Duplicates || !strings.Contains(h2.screen(), "view groups") {
		t.Fatalf("--view did not show the view from the start:\n%s", h2.screen())
	}
}

// queued gives a page's records to m's feed, as a load does, and returns the message that says
// so.
func queued(m *Model, tag int, page []model.Execution, next tea.Cmd) loadPageMsg {
	m.load.feed.Give(page)
	return loadPageMsg{tag: tag, n: len(page), next: next}
}

// journalReads is the real backend, counting the journal reads the loop asks for.
type journalReads struct {
	Backend
	n *int
}

func (j journalReads) JournalStateOf(ctx context.Context, id string) (app.JournalState, error) {
	*j.n++
	return j.Backend.JournalStateOf(ctx, id)
}

// A retry's end carries what the journal holds of the execution: the TUI shows the attempt at
// once and does not ask the journal again; only when that read failed does it ask.
func TestARetrysEndCarriesItsJournal(t *testing.T) {
	e := newEnv(t)
	var n int
	h := &harness{t: t, m: New(context.Background(), journalReads{e.deps().App, &n}, e.ui), e: e}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.run(h.m.Init())
	id := h.m.data.DS.ID(0)
	att := model.RetryAttempt{ID: "att_1", ExecutionID: id, State: model.AttemptFailed, Detail: "HTTP 404"}
	n = 0
	h.send(retriedMsg{id: id, res: app.RetryOutcome{AttemptID: "att_1", State: model.AttemptFailed, Detail: "HTTP 404",
		Journal: &app.JournalState{Entries: app.Entries{Attempts: []model.RetryAttempt{att}}}}})
	if got := h.m.data.Attempts[id]; len(got) != 1 || got[0].ID != "att_1" {
		t.Fatalf("the attempts shown: %+v", got)
	}
	if n != 0 {
		t.Errorf("the journal was read %d times after a retry's end that carried it", n)
	}
	h.send(retriedMsg{id: id, res: app.RetryOutcome{Err: "the journal could not be read"}})
	if n != 1 {
		t.Errorf("the journal was read %d times after a retry's end that did not carry it, want 1", n)
	}
}
