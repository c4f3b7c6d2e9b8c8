package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
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

// quickBackend are the Backend methods that read what the session holds and never block:
// Update and View may call them. Every other method may do I/O: only a tea.Cmd calls it.
var quickBackend = map[string]bool{
	"SourceName": true, "Hint": true, "JournalProblem": true, "ReadOnly": true, "CheckRead": true,
	"Profile": true, "SourceKind": true, "RateWaiting": true, "Hold": true, "VerdictsFor": true,
	"Policy": true, "NewFeed": true, "DashboardURL": true,
	"Pending": true, // the feed's queue length
}

// loopRules lists where the TUI's loop breaks its two rules (ui/README.md): Update and View do no
// I/O (a call through the backend or the feed that may block is only in a function literal, the
// body of a tea.Cmd), and a tea.Cmd changes no state (a literal returning a tea.Msg assigns to
// no field of the model it was made in: the result comes back as a message).
func loopRules(t *testing.T, fsys fs.FS) (out []string) {
	t.Helper()
	paths, err := fs.Glob(fsys, "*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		at := func(n ast.Node) string {
			return path + ":" + strings.TrimPrefix(fset.Position(n.Pos()).String(), path+":")
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			recv := ""
			if fd.Recv != nil && len(fd.Recv.List) == 1 && len(fd.Recv.List[0].Names) == 1 {
				recv = fd.Recv.List[0].Names[0].Name
			}
			var walk func(n ast.Node, inCmd bool)
			walk = func(n ast.Node, inCmd bool) {
				ast.Inspect(n, func(x ast.Node) bool {
					switch x := x.(type) {
					case *ast.FuncLit:
						if x != n {
							if recv != "" && returnsMsg(x) {
								out = append(out, assigns(x.Body, recv, at)...)
							}
							walk(x.Body, true)
							return false
						}
					case *ast.CallExpr:
						sel, ok := x.Fun.(*ast.SelectorExpr)
						if !ok || inCmd || quickBackend[sel.Sel.Name] {
							return true
						}
						if inner, ok := sel.X.(*ast.SelectorExpr); ok && (inner.Sel.Name == "be" || inner.Sel.Name == "feed") {
							out = append(out, at(x)+": "+fd.Name.Name+" calls "+inner.Sel.Name+"."+sel.Sel.Name+" on the loop: it may block (run it in a tea.Cmd)")
						}
					}
					return true
				})
			}
			walk(fd.Body, false)
		}
	}
	return out
}

// returnsMsg says fn is a tea.Cmd's body: no parameters, one tea.Msg result.
func returnsMsg(fn *ast.FuncLit) bool {
	if fn.Type.Params.NumFields() != 0 || fn.Type.Results.NumFields() != 1 {
		return false
	}
	sel, ok := fn.Type.Results.List[0].Type.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Msg"
}

// assigns lists the assignments in body to a field of recv (recv.x = …, recv.x[k] = …, recv.x++).
func assigns(body ast.Node, recv string, at func(ast.Node) string) (out []string) {
	rooted := func(e ast.Expr) bool {
		for {
			switch x := e.(type) {
			case *ast.SelectorExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.Ident:
				return x.Name == recv
			default:
				return false
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		}
		for _, e := range lhs {
			if _, field := e.(*ast.Ident); !field && rooted(e) {
				out = append(out, at(n)+": a tea.Cmd changes "+recv+"'s state (send a message instead)")
			}
		}
		return true
	})
	return out
}

func TestTheLoopDoesNoIOAndCmdsChangeNoState(t *testing.T) {
	for _, v := range loopRules(t, os.DirFS(".")) {
		t.Error(v)
	}
	bad := fstest.MapFS{
		"io.go":     {Data: []byte("package ui\nfunc (m *Model) Update() { m.be.Verify(nil, nil); m.load.feed.Analyze(nil, nil, false, false); _ = m.be.ReadOnly() }\n")},
		"cmd.go":    {Data: []byte("package ui\nfunc (m *Model) c() tea.Cmd { return func() tea.Msg { m.n++; m.s.x = 1; v := 2; _ = v; return nil } }\n")},
		"ok.go":     {Data: []byte("package ui\nfunc (m *Model) c() tea.Cmd { be := m.be; return func() tea.Msg { return be.Verify(nil, nil) } }\nfunc (m *Model) d() tea.Cmd { return func() tea.Msg { return m.be.Get(nil, \"x\") } }\n")},
		"x_test.go": {Data: []byte("package ui\nfunc (m *Model) Update() { m.be.Verify(nil, nil) }\n")},
	}
	if got := loopRules(t, bad); len(got) != 4 {
		t.Errorf("reported %d:\n%s\nwant io.go's Verify and Analyze and cmd.go's two assignments", len(got), strings.Join(got, "\n"))
	}
}

// The flows run the real program loop (teatest) on the demo sandbox: commands run
// concurrently, ticks tick, and the screen is read back through inspect, which runs a function
// on the model inside the program's own goroutine.

// inspect asks the running program to call fn with the model (race-free: Update runs it).
type inspect func(m *Model)

// probe wraps the root model so tests can look inside the running program.
type probe struct{ m *Model }

func (p probe) Init() tea.Cmd { return p.m.Init() }

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if fn, ok := msg.(inspect); ok {
		fn(p.m)
		return p, nil
	}
	_, cmd := p.m.Update(msg)
	return p, cmd
}

func (p probe) View() tea.View { return p.m.View() }

type flow struct {
	t  *testing.T
	tm *teatest.TestModel
	e  *env
}

func startFlow(t *testing.T, e *env, w, h int) *flow {
	t.Helper()
	e.clock.run()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	tm := teatest.NewTestModel(t, probe{e.newModel(ctx)}, teatest.WithInitialTermSize(w, h))
	f := &flow{t: t, tm: tm, e: e}
	f.waitModel("the first load", func(m *Model) bool {
		return !m.load.loading && m.data.DS.Len() > 0 && !m.load.analyzing && m.sel.nextDS == nil
	})
	return f
}

// query runs fn in the program and returns its answer.
func query[T any](f *flow, fn func(m *Model) T) T {
	ch := make(chan T, 1)
	f.tm.Send(inspect(func(m *Model) { ch <- fn(m) }))
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		f.t.Fatal("the program did not answer")
		panic("unreachable")
	}
}

// waitModel polls until cond holds for the model.
func (f *flow) waitModel(what string, cond func(m *Model) bool) {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if query(f, cond) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("timed out waiting for %s; screen:\n%s", what, f.screen())
}

// waitScreen polls until the screen contains every text.
func (f *flow) waitScreen(texts ...string) {
	f.t.Helper()
	f.waitModel("the screen to show "+strings.Join(texts, ", "), func(m *Model) bool {
		s := ansi.Strip(m.Render())
		for _, t := range texts {
			if !strings.Contains(s, t) {
				return false
			}
		}
		return true
	})
}

func (f *flow) screen() string {
	return query(f, func(m *Model) string { return ansi.Strip(m.Render()) })
}

func (f *flow) press(ks ...string) {
	for _, k := range ks {
		switch k {
		case "enter":
			f.tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			f.tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "tab":
			f.tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
		default:
			f.tm.Type(k)
		}
	}
}

// flaggedSend finds a flagged ambiguous GMAIL_SEND_EMAIL whose truth is committed (or not),
// and whose effect the provider shows (or not): a later duplicate's effect can match too.
func (f *flow) flaggedSend(committed bool) string {
	f.t.Helper()
	ids := query(f, func(m *Model) []string {
		var out []string
		ds := m.data.DS
		for i := range ds.Len() {
			if t := ds.Triage(i); t.Flagged && t.Outcome == model.OutcomeAmbiguous && ds.Exec(i).ToolSlug == "GMAIL_SEND_EMAIL" {
				out = append(out, ds.ID(i))
			}
		}
		return out
	})
	be := f.e.deps().App
	for _, id := range ids {
		if f.e.truth(id).Committed != committed {
			continue
		}

		d, err := be.Get(context.Background(), id)
		if err != nil {
			f.t.Fatal(err)
		}
		if committed && d.Status != "failed" {
			continue // a committed timeout the log calls failed: only the provider can refuse it
		}
		if found := be.Verify(context.Background(), &d).State == model.ProviderFound; found == committed {
			return id
		}
	}
	f.t.Fatalf("no flagged Gmail send with committed=%v", committed)
	return ""
}

func (f *flow) quit() {
	f.press("q")
	f.tm.WaitFinished(f.t, teatest.WithFinalTimeout(10*time.Second))
}

// TestFlowRetryRefusedWhenProviderShowsEffect: filter to a Gmail send flagged ambiguous, verify
// it (the provider has the email), press r: the guard refuses at once and nothing is sent.
func TestFlowRetryRefusedWhenProviderShowsEffect(t *testing.T) {
	e := newEnv(t)
	f := startFlow(t, e, 120, 40)
	id := f.flaggedSend(true)
	effects := len(e.srv.Effects())

	f.press("/", "gmsend flagged:yes id:"+id, "enter")
	f.waitModel("the filter to keep one row", func(m *Model) bool { return m.list.Len() == 1 && !m.filter.Active() })
	f.waitScreen("GMAIL_SEND_EMAIL", "AMBIGUOUS", "/gmsend flagged:yes id:"+id)

	f.press("v")
	f.waitModel("the verify", func(m *Model) bool { return m.data.Provider[id].State == model.ProviderFound })
	f.waitScreen("VERIFIED:found", "FOUND  the effect exists")

	f.press("r")
	f.waitScreen("Retry refused", "provider shows the effect")
	if got := len(e.srv.Effects()); got != effects {
		t.Fatalf("the provider has %d effects, had %d: a refused retry sent something", got, effects)
	}
	if atts, err := e.j.Attempts(context.Background(), id); err != nil || len(atts) != 0 {
		t.Fatalf("journal attempts %v, %v: a refused retry claimed an attempt", atts, err)
	}
	f.press("esc")
	f.waitModel("the dialog to close", func(m *Model) bool { return !m.retry.IsOpen() })

	// y opens the copy menu; 1 copies the log id to the clipboard with OSC 52.
	f.press("y")
	f.waitScreen("Copy to the clipboard", "log id", "record (JSON, secrets redacted)", "curl reproduction", "support bundle")
	f.press("1", "enter")
	osc := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(id))
	teatest.WaitFor(t, f.tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(osc)) },
		teatest.WithDuration(5*time.Second))
	f.quit()
}

// TestFlowRetrySendsOnceAfterTypedConfirmation: on an execution the provider does not show, the
// dialog starts on No, ignores a typed-ahead Enter, and sends exactly once after `failed` and a
// reason are typed; the row then shows RETRIED.
func TestFlowRetrySendsOnceAfterTypedConfirmation(t *testing.T) {
	e := newEnv(t)
	f := startFlow(t, e, 120, 40)
	id := f.flaggedSend(false)
	effects := len(e.srv.Effects())

	f.press("/", "id:"+id, "enter")
	f.waitModel("the filter to keep one row", func(m *Model) bool { return m.list.Len() == 1 && !m.filter.Active() })

	// The clock stands still from the dialog's opening until the test steps past its first
	// half second, so a slow machine cannot let the typed-ahead Enter through by itself.
	e.clock.freeze()
	f.press("r")
	f.waitModel("the confirmation", func(m *Model) bool { return m.retry.Confirming() })
	f.waitScreen("Retry GMAIL_SEND_EMAIL once?", "NOT FOUND", "[ No ]", "[ Retry once ]")

	// An Enter typed ahead (within the first half second) must not answer the dialog.
	f.press("enter")
	if !query(f, func(m *Model) bool { return m.retry.Confirming() }) {
		t.Fatal("a typed-ahead Enter answered the dialog")
	}
	f.waitScreen("keys are ignored for half a second")
	e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
	e.clock.run()
	// The notice goes when the delay ends, with no key pressed (it stayed for
	// seconds, until the next key).
	f.waitScreen("tab moves · enter chooses")

	// Enter on the focused "No" would cancel; move to the fields and confirm instead.
	f.press("tab", "tab", "failed", "enter", "customer reports the email never arrived")
	if n := len(e.srv.Effects()); n != effects {
		t.Fatal("something was sent before the confirmation was complete")
	}
	f.press("enter") // reason done: focus moves to "Retry once"
	f.waitModel("focus on Retry once", func(m *Model) bool { return strings.Contains(ansi.Strip(m.retry.View()), "[ Retry once ]") })
	f.press("enter")
	f.waitScreen("✓ retried", "new log")

	got := e.srv.Effects()
	if len(got) != effects+1 {
		t.Fatalf("the provider has %d effects, want exactly one more than %d", len(got), effects)
	}
	atts, err := e.j.Attempts(context.Background(), id)
	if err != nil || len(atts) != 1 || atts[0].State != model.AttemptSucceeded {
		t.Fatalf("journal attempts %+v, %v", atts, err)
	}
	if last := got[len(got)-1]; last.RequestID != atts[0].ID || last.ToolSlug != "GMAIL_SEND_EMAIL" {
		t.Errorf("the new effect %+v was not sent with x-request-id = attempt %s", last, atts[0].ID)
	}
	cons, err := e.j.Confirmations(context.Background(), id)
	if err != nil || len(cons) != 1 || cons[0].Reason != "customer reports the email never arrived" || cons[0].Who != "tester@example" {
		t.Errorf("confirmations %+v, %v", cons, err)
	}

	f.press("esc")
	f.waitScreen("RETRIED")
	f.waitModel("the journal line in the provider pane", func(m *Model) bool {
		return strings.Contains(ansi.Strip(m.provider.Content()), "succeeded → new log")
	})
	// The status line says the retry took effect (it said "retried before…").
	f.waitScreen("retried: the retry took effect")

	// A second retry of the same execution is refused by the guard.
	f.press("r")
	f.waitScreen("Retry refused", "already")
	f.press("esc")
	if n := len(e.srv.Effects()); n != effects+1 {
		t.Fatalf("%d effects after the refused second retry", n)
	}

	// The original's detail names the execution its retry made.
	f.waitScreen("retried as " + atts[0].NewLogID)
	f.quit()
}

// TestFlowTypingAFilterKeepsRowsNewestFirst types a query key by key while each keystroke's
// filter runs concurrently with the previous ones: the rows shown are always the newest-first,
// duplicate-free result of the latest query.
func TestFlowTypingAFilterKeepsRowsNewestFirst(t *testing.T) {
	e := newEnv(t)
	f := startFlow(t, e, 120, 40)
	f.press("/", "gmsend")
	f.waitModel("the filter for the whole query", func(m *Model) bool {
		return m.query.String() == "gmsend" && m.sel.lastQ.String() == "gmsend" && m.sel.tag == m.lastSelTag()
	})
	bad := query(f, func(m *Model) string {
		items := m.list.Items().Slice()
		for k := 1; k < len(items); k++ {
			if items[k].Exec <= items[k-1].Exec {
				return "rows out of order or repeated at " + m.data.DS.ID(int(items[k].Exec))
			}
		}
		if len(items) == 0 {
			return "no rows"
		}
		return ""
	})
	if bad != "" {
		t.Fatal(bad)
	}
	f.press("esc", "esc")
	f.quit()
}
