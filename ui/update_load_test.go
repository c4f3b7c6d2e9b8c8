package ui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/exectriage/exectriage/internal/heap"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/window"
)

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

// The collector paces at the idle percent only once a big load is in and handed back: not
// from the start (a load's phases have gaps, where a tight percent would run a cycle over the
// load's garbage while keys are pressed), and the process's own comes back after.
func TestIdlePacingStartsWhenABigLoadIsIn(t *testing.T) {
	gogc := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	before := gogc()
	mem := heap.New(8 << 20)
	defer mem.Idle(0)
	e := newEnv(t)
	e.ui.Memory, e.ui.IdleGC = mem, 25
	m := New(context.Background(), e.deps().App, e.ui)
	if got := gogc(); got != before || m.load.idleGC != 25 {
		t.Fatalf("GOGC %d before any load is in (want %d), the loader's idle percent %d", got, before, m.load.idleGC)
	}
	handBackCmd(m.load.mem, m.load.idleGC)()
	if got := gogc(); got != 25 {
		t.Fatalf("GOGC %d after a big load was handed back, want 25", got)
	}
	mem.Idle(0)
	if got := gogc(); got != before {
		t.Fatalf("GOGC %d after the TUI ended, want %d", got, before)
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

// asyncLoop runs a model the way Bubble Tea does: commands run on their own goroutines and
// their messages come back one at a time to the test, which calls Update and View. Unlike the
// harness, nothing waits for a command to finish, so pages keep arriving while the test types.
type asyncLoop struct {
	ctx  context.Context
	msgs chan tea.Msg
	wg   sync.WaitGroup
}

func newAsyncLoop(t *testing.T) *asyncLoop {
	ctx, cancel := context.WithCancel(context.Background())
	l := &asyncLoop{ctx: ctx, msgs: make(chan tea.Msg, 256)}
	t.Cleanup(func() { cancel(); l.wg.Wait() })
	return l
}

func (l *asyncLoop) start(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	l.wg.Go(func() {
		msg := cmd()
		switch msg := msg.(type) {
		case nil, spinner.TickMsg, followTickMsg: // no animation, no follow
		case tea.BatchMsg:
			for _, c := range msg {
				l.start(c)
			}
		default:
			select {
			case l.msgs <- msg:
			case <-l.ctx.Done():
			}
		}
	})
}

var (
	progressRE = regexp.MustCompile(`loading ([\d,]+) records · page (\d+)`)
	rowsRE     = regexp.MustCompile(`(\d[\d,]*)/(\d[\d,]*)`)
)

func atoiCount(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}

// frame is what one View showed: the header's progress (page -1 when it shows none) and the
// list's row count (0 when the list shows no rows).
type frame struct {
	loaded, page int
	rows         int
	loading      bool
}

func readFrame(m *Model) frame {
	screen := ansi.Strip(m.View().Content)
	lines := strings.Split(screen, "\n")
	f := frame{page: -1}
	if p := progressRE.FindStringSubmatch(lines[0]); p != nil {
		f.loaded, f.page, f.loading = atoiCount(p[1]), atoiCount(p[2]), true
	}
	// The list box's top edge ends with "cursor/rows".
	if len(lines) > 3 {
		if r := rowsRE.FindAllStringSubmatch(lines[3], -1); r != nil && !strings.Contains(screen, "loading…") {
			f.rows = atoiCount(r[len(r)-1][2])
		}
	}
	return f
}

// TestLiveLoadStreams runs the TUI on the real backend against a sandbox serving 50 ms pages
// (live API): the first rows are on screen while later pages are still loading, the
// header counts pages and records as they come, the list grows across pages, and keys typed
// during the load are handled (the cursor moves) between pages, which keep arriving.
func TestLiveLoadStreams(t *testing.T) {
	const size = 3000
	e := newEnvWith(t, sandbox.Config{Seed: 9, Size: size, Span: 36 * time.Hour, Now: sandboxNow,
		PageLatency: 50 * time.Millisecond, HoldTimeout: 2 * time.Second})
	loop := newAsyncLoop(t)
	m := e.newModel(loop.ctx)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	loop.start(m.Init())

	var (
		frames        []frame
		pagesSeen     int  // loadPageMsgs handled
		firstRowsPage = -1 // pages received when rows first showed
		keysDuring    int  // keys handled while loading
		movedDuring   int  // of which moved the cursor
		pagesAfterKey = -1 // pages received when the first key moved the cursor
		done          bool
	)
	deadline := time.After(60 * time.Second)
	for !done || m.list.Len() < m.data.DS.Len() || m.sel.nextDS != nil || m.load.analyzing {
		var msg tea.Msg
		select {
		case msg = <-loop.msgs:
		case <-deadline:
			t.Fatalf("the load did not finish: %d pages, %d rows", pagesSeen, m.list.Len())
		}
		_, cmd := m.Update(msg)
		loop.start(cmd)
		switch msg.(type) {
		case loadPageMsg:
			pagesSeen++
		case loadDoneMsg:
			done = true
		}
		f := readFrame(m)
		frames = append(frames, f)
		if pagesSeen == 0 && f.rows > 0 {
			t.Fatalf("rows on screen before the first page arrived: %+v", f)
		}
		if f.rows > 0 && firstRowsPage < 0 {
			firstRowsPage = pagesSeen
		}
		// A person pressing j while the load runs, once between two pages: Update and View
		// return and the cursor moves. (A key after every message made a loop of its own: each
		// key's detail fetch is a message that pressed another key, until the messages queued
		// ahead of the next page took the test's whole minute under -race.)
		_, isPage := msg.(loadPageMsg)
		if isPage && m.load.loading && f.rows > 1 {
			before := m.list.Cursor()
			_, cmd := m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
			loop.start(cmd)
			_ = m.View()
			keysDuring++
			if m.list.Cursor() != before {
				movedDuring++
				if pagesAfterKey < 0 {
					pagesAfterKey = pagesSeen
				}
			}
		}
	}

	totalPages := pagesSeen
	total := m.data.DS.Len()
	t.Logf("%d pages, %d executions; rows first on screen after page %d; %d keys during the load (%d moved the cursor)",
		totalPages, total, firstRowsPage, keysDuring, movedDuring)
	if totalPages < 10 {
		t.Fatalf("only %d pages: the test needs a multi-page load", totalPages)
	}
	if total < size*9/10 {
		t.Fatalf("loaded %d executions of %d", total, size)
	}
	if firstRowsPage < 1 || firstRowsPage >= totalPages {
		t.Fatalf("rows first showed after page %d of %d: want after the first page, before the last", firstRowsPage, totalPages)
	}
	// The header's progress shows partial counts, growing page by page.
	var progress []frame
	for _, f := range frames {
		if f.loading && f.page > 0 {
			progress = append(progress, f)
		}
	}
	if len(progress) == 0 {
		t.Fatal("the header never showed the load's progress")
	}
	for i := 1; i < len(progress); i++ {
		if progress[i].page < progress[i-1].page || progress[i].loaded < progress[i-1].loaded {
			t.Fatalf("progress went back: %+v then %+v", progress[i-1], progress[i])
		}
	}
	if first, last := progress[0], progress[len(progress)-1]; first.loaded >= total || last.page <= first.page {
		t.Fatalf("progress did not show partial counts growing: first %+v, last %+v, total %d", first, last, total)
	}
	// The list grew across pages while loading (more than one partial row count on screen).
	counts := map[int]bool{}
	for _, f := range frames {
		if f.loading && f.rows > 0 && f.rows < total {
			counts[f.rows] = true
		}
	}
	if len(counts) < 2 {
		t.Fatalf("the list did not grow while loading: partial row counts %v", counts)
	}
	// Keys were handled between pages, and pages kept arriving after them: no freeze.
	if movedDuring == 0 || pagesAfterKey < 0 || pagesAfterKey >= totalPages {
		t.Fatalf("keys during the load: %d handled, %d moved the cursor, first after page %d of %d",
			keysDuring, movedDuring, pagesAfterKey, totalPages)
	}
	// At the end the header shows no progress and the list holds everything.
	if f := readFrame(m); f.loading || f.rows != total {
		t.Fatalf("final frame %+v, want all %d rows and no progress", f, total)
	}
}
