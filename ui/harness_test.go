package ui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/window"
)

// The golden files and flows run on the real backend over a seeded demo sandbox whose history
// ends at a fixed time, with a fixed UI clock: the same bytes every run.

var sandboxNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func sandboxConfig() sandbox.Config {
	return sandbox.Config{Seed: 47, Size: 400, Span: 36 * time.Hour, Now: sandboxNow, HoldTimeout: 2 * time.Second}
}

// The golden package (linked through teatest) defines -update; define it when it is not.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files")
	}
	return true
}()

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestMain(m *testing.M) {
	// Times in guard reasons use the local zone; pin it so goldens do not depend on the machine.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// clock is the injectable clock: fixed until a test advances it, or (running) the wall clock
// plus whatever the test advanced. The flows need the running kind: the retry protocol bounds
// the send with a deadline computed from its clock.
type clock struct {
	mu      sync.Mutex
	t       time.Time
	running bool
	frozen  bool
	offset  time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return time.Now().Add(c.offset)
	}
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.offset += d
	c.mu.Unlock()
}

func (c *clock) run() {
	c.mu.Lock()
	if c.frozen { // resume from where freeze stopped, without a jump
		c.offset, c.frozen = time.Until(c.t), false
	}
	c.running = true
	c.mu.Unlock()
}

// freeze stops a running clock where it is, so a test can step over a time-guarded moment
// (the retry dialog's first half second) however slowly a loaded machine runs it; run resumes.
func (c *clock) freeze() {
	c.mu.Lock()
	if c.running {
		c.t = time.Now().Add(c.offset)
	}
	c.running, c.frozen = false, true
	c.mu.Unlock()
}

// namedSource gives a source opened on the sandbox's random port a stable name, and can be
// switched to another source (a wrong API key) to produce real errors.
type namedSource struct {
	source.Source
	name string
	mu   sync.Mutex
	alt  source.Source
}

func (s *namedSource) Name() string { return s.name }

func (s *namedSource) cur() source.Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alt != nil {
		return s.alt
	}
	return s.Source
}

func (s *namedSource) Load(ctx context.Context, since time.Duration, page func([]model.Execution) error) error {
	return s.cur().Load(ctx, since, page)
}

func (s *namedSource) Get(ctx context.Context, id string) (model.Execution, error) {
	return s.cur().Get(ctx, id)
}

// env is one test's world: a sandbox, a source on it, a journal, a clock and the backend.
type env struct {
	t     testing.TB
	srv   *sandbox.Server
	url   string
	src   *namedSource
	j     journal.Journal
	clock *clock
	parts app.Parts // what the session is built from
	ui    Options
}

// deps builds the TUI's dependencies from e's parts: a new session each time, as each run of
// the program opens one.
func (e *env) deps() Deps { return Deps{App: app.New(e.parts), UI: e.ui} }

// newModel is the root model over e, with the config's theme and keys applied as Run does.
func (e *env) newModel(ctx context.Context) *Model {
	e.t.Helper()
	o, err := ApplyConfig(e.ui, e.parts.Config)
	if err != nil {
		e.t.Fatal(err)
	}
	d := e.deps()
	d.UI = o
	return New(ctx, d.App, d.UI)
}

// useFile makes e read the export at path (the whole file: no window).
func (e *env) useFile(path string) {
	e.t.Helper()
	src, err := source.Open(context.Background(), source.Options{File: path})
	if err != nil {
		e.t.Fatal(err)
	}
	e.parts.Source = src
	e.ui.Since = 0
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, sandboxConfig())
}

// newEnvWith is newEnv over a sandbox configured by cfg.
func newEnvWith(t testing.TB, cfg sandbox.Config) *env {
	t.Helper()
	ctx := context.Background()
	srv, url, err := sandbox.Start(ctx, cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	src, err := source.Open(ctx, source.Options{BaseURL: url, APIKey: "test-key", Now: func() time.Time { return sandboxNow }})
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	c := &clock{t: sandboxNow.Add(5 * time.Minute)}
	e := &env{t: t, srv: srv, url: url, src: &namedSource{Source: src, name: "DEMO"}, j: j, clock: c}
	e.parts = app.Parts{Source: e.src, Journal: j, Who: "tester@example", BundleDir: t.TempDir(), Now: c.Now}
	e.ui = Options{Now: c.Now, DetailDelay: time.Millisecond, FollowEvery: time.Millisecond}
	return e
}

// breakAuth makes every later request of the source fail with a real 401 from the sandbox.
func (e *env) breakAuth() {
	e.srv.Close()
	srv, url, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 7, Size: 10, Now: sandboxNow, APIKey: "the-right-key"}, "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { srv.Close() })
	bad, err := source.Open(context.Background(), source.Options{BaseURL: url, APIKey: "a-wrong-key"})
	if err != nil {
		e.t.Fatal(err)
	}
	e.src.mu.Lock()
	e.src.alt = bad
	e.src.mu.Unlock()
}

// truth finds the sandbox's ground truth for an execution.
func (e *env) truth(id string) sandbox.TruthRecord {
	for _, r := range e.srv.Truth() {
		if r.ID == id {
			return r
		}
	}
	e.t.Fatalf("no truth for %s", id)
	return sandbox.TruthRecord{}
}

// harness drives a Model synchronously: every command runs to completion and its message is
// fed back, so a test sees the screen after all the work a key started is done.
type harness struct {
	t testing.TB
	m *Model
	e *env
}

func newHarness(t testing.TB, e *env, w, h int) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hs := &harness{t: t, m: e.newModel(ctx), e: e}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil, spinner.TickMsg: // no animation in tests: frames would make screens differ
	case followTickMsg: // follow ticks are sent by the tests themselves
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	default:
		h.send(msg)
	}
}

func (h *harness) send(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// keys sends key presses: named keys ("enter", "esc", "tab", "down") or text typed rune by rune.
func (h *harness) keys(ks ...string) {
	for _, k := range ks {
		switch k {
		case "enter":
			h.send(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			h.send(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "tab":
			h.send(tea.KeyPressMsg{Code: tea.KeyTab})
		case "down":
			h.send(tea.KeyPressMsg{Code: tea.KeyDown})
		case "ctrl+c":
			h.send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
		default:
			for _, r := range k {
				h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
	}
}

// screen is the rendered screen without styling, trailing spaces removed.
func (h *harness) screen() string {
	lines := strings.Split(ansi.Strip(h.m.Render()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// find returns the index in the dataset of the newest execution satisfying ok.
func (h *harness) find(ok func(e *model.Execution, t *model.Triage) bool) (int, bool) {
	ds := h.m.data.DS
	for i := range ds.Len() {
		e, t := ds.Exec(i), ds.Triage(i)
		if ok(&e, &t) {
			return i, true
		}
	}
	return -1, false
}

// selectRow moves the list's cursor onto the row of execution i with j presses.
func (h *harness) selectRow(i int) {
	h.t.Helper()
	for n := 0; n < h.m.list.Len(); n++ {
		if it, ok := h.m.list.Selected(); ok && int(it.Exec) == i && it.Kind != window.ItemGroup {
			return
		}
		h.keys("j")
	}
	h.t.Fatalf("execution %d is not in the list", i)
}

// filterTo narrows the list to one execution by id through the filter prompt.
func (h *harness) filterTo(id string) {
	h.keys("/", "id:"+id, "enter")
	if h.m.list.Len() != 1 {
		h.t.Fatalf("filter id:%s left %d rows", id, h.m.list.Len())
	}
}

// golden compares the screen with testdata/name.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name+".golden"), []byte(got), updating())
}

var tempPath = regexp.MustCompile(`/[^ ]*exectriage-bundle-[^ ]*\.md`)

// flaggedWith finds the newest flagged ambiguous write of tool for which the provider answers
// state (asked through the backend, as the person would with v).
func (h *harness) flaggedWith(tool string, state model.ProviderStateKind) int {
	h.t.Helper()
	ds := h.m.data.DS
	for i := range ds.Len() {
		e, t := ds.Exec(i), ds.Triage(i)
		if !t.Flagged || e.ToolSlug != tool || t.Outcome != model.OutcomeAmbiguous {
			continue
		}
		d, err := h.m.be.Get(context.Background(), e.ID)
		if err != nil {
			h.t.Fatal(err)
		}
		if state == model.ProviderFound && d.Status != "failed" {
			continue // a timeout the log calls failed: only the provider shows it happened
		}
		if h.m.be.Verify(context.Background(), &d).State == state {
			return i
		}
	}
	h.t.Fatalf("the sandbox has no flagged %s the provider answers %s for", tool, state)
	return -1
}

func displayWidth(s string) int { return ansi.StringWidth(s) }

// sendSlack posts one Slack message through the sandbox's API, as an agent does: a new
// execution, newer than the history.
func (e *env) sendSlack(t *testing.T, text string) string {
	t.Helper()
	return testkit.SendSlack(t, e.srv, e.url, "test-key", text, "")
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

// queued gives a page's records to m's feed, as a load does, and returns the message that says
// so.
func queued(m *Model, tag int, page []model.Execution, next tea.Cmd) loadPageMsg {
	m.load.feed.Give(page)
	return loadPageMsg{tag: tag, n: len(page), next: next}
}
