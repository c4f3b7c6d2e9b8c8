package ui

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/sandbox"
)

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
