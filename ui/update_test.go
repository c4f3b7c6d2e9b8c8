package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/source"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/components/filterbar"
	"github.com/exectriage/exectriage/window"
)

// perfModel is a root model (real backend over a small sandbox for everything but the list)
// whose dataset holds n in-memory executions, with the list's rows installed.
func perfModel(b *testing.B, n int) *Model {
	b.Helper()
	h := newHarness(b, newEnv(b), 200, 50)
	ds := window.Build(synthetic(n), nil, func(execs []model.Execution) window.Analysis {
		r := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
		return window.Analysis{Triage: r.Triage, Groups: r.Groups}
	})
	h.m.data.DS = ds
	h.m.sel.nextDS, h.m.sel.lastDS, h.m.sel.lastPos = nil, nil, nil
	h.m.list.SetItems(window.SelectItems(ds, window.View{}), n/2)
	h.m.refreshPanes()
	return h.m
}

func keyPress(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// offLoop runs cmd in a goroutine of its own, as Bubble Tea does: a selection lowers its
// thread's priority (cores.Foreground), which must not stay with the benchmark's loop.
func offLoop(cmd tea.Cmd) tea.Msg {
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	return <-done
}

// BenchmarkUpdateView measures the UI loop at 10k and 1M executions (≤ 4 ms per key
// at 1M and 1M within 1.5× of 10k).
//
//   - cursor: Update of a cursor key (j and k alternately) plus View.
//   - filter-key: a character typed in the filter prompt as the loop runs it: Update of the
//     key (which parses the query and returns the filter command without running it) plus
//     View. The query cycles through "gmsend" typed key by key and erased with backspace.
//   - The filter command itself runs off the loop; its cost per keystroke is reported as
//     cmd-ms/key (and cmd-p95-ms/key), and installing its rows (Update of the result plus View)
//     as install-ms/key.
//
// Only the 1M sub-benchmarks report ms/key (the suite's table takes every ms/key it finds);
// the 10k ones report the same figure as ms/key@10k.
func BenchmarkUpdateView(b *testing.B) {
	for _, sz := range []struct {
		name string
		n    int
	}{{"10k", 10_000}, {"1M", 1_000_000}} {
		b.Run(sz.name, func(b *testing.B) { benchUpdateView(b, sz.n, sz.name) })
	}
}

func benchUpdateView(b *testing.B, n int, name string) {
	m := perfModel(b, n)
	unit := "ms/key"
	if n != 1_000_000 {
		unit = "ms/key@" + name
	}
	{
		b.Run("cursor", func(b *testing.B) {
			keys := [2]tea.KeyPressMsg{keyPress('j'), keyPress('k')}
			i := 0
			for b.Loop() {
				before := m.list.Cursor()
				m.Update(keys[i%2])
				_ = m.View()
				if m.list.Cursor() == before {
					b.Fatal("the cursor did not move")
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), unit)
		})
		b.Run("filter-key", func(b *testing.B) {
			m.Update(keyPress('/'))
			if !m.filter.Active() {
				b.Fatal("the filter prompt did not open")
			}
			const word = "gmsend"
			var loop, install time.Duration
			var cmdCost []time.Duration
			step := 0
			for b.Loop() {
				var k tea.KeyPressMsg
				if pos := step % (2 * len(word)); pos < len(word) {
					k = keyPress(rune(word[pos]))
				} else {
					k = tea.KeyPressMsg{Code: tea.KeyBackspace}
				}
				step++
				tag := m.sel.tag
				t0 := time.Now()
				m.Update(k)
				_ = m.View()
				loop += time.Since(t0)
				if m.sel.tag == tag {
					b.Fatalf("no filter command for %q", m.filter.Value())
				}
				// The command the key started, rebuilt (the key's own is in a batch with the
				// prompt's cursor blink): the same work, and its tag is the current one.
				cmd := m.reselect()
				t1 := time.Now()
				msg := offLoop(cmd)
				cmdCost = append(cmdCost, time.Since(t1))
				t2 := time.Now()
				m.Update(msg)
				_ = m.View()
				install += time.Since(t2)
				if m.lastSelTag() != m.sel.tag {
					b.Fatalf("the filter result was not installed (%T)", msg)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(loop.Nanoseconds())/1e6/n, unit)
			b.ReportMetric(float64(install.Nanoseconds())/1e6/n, "install-ms/key")
			var sum time.Duration
			for _, c := range cmdCost {
				sum += c
			}
			b.ReportMetric(float64(sum.Nanoseconds())/1e6/n, "cmd-ms/key")
			slices.Sort(cmdCost)
			b.ReportMetric(float64(cmdCost[len(cmdCost)*95/100].Nanoseconds())/1e6, "cmd-p95-ms/key")
			// Leave the model as the cursor benchmark expects it.
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
			_, cmd := m.Update(filterbar.ChangedMsg{})
			if cmd != nil {
				m.Update(offLoop(cmd))
			}
		})
	}
}

// BenchmarkDatasetMemory reports the bytes per execution the TUI holds for a dataset of 1M
// (HeapInuse after a GC, minus before, over N), built as a load builds it: pages of 1,000
// streamed into a window.Builder (each record triaged and indexed once), the duplicate groups
// found at the end (re-reading the candidates from the source), a Dataset snapshot and the
// list's rows (these synthetic records have no duplicates: internal/testkit/perfbench's
// BenchmarkMemory1M measures the same on the realistic 1M export, groups included). The records themselves are the source's (generated before the first reading)
// and are not counted: the dataset keeps compact rows and re-reads a record when it is opened.
// Issue 6's target is ≤ 512 B.
func BenchmarkDatasetMemory(b *testing.B) {
	const n = 1_000_000
	src := synthetic(n)
	byID := make(map[string]int, n)
	for i := range src {
		byID[src[i].ID] = i
	}
	fetch := func(_ context.Context, id string) (model.Execution, error) { return src[byID[id]], nil }
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		bld := window.NewBuilder(triage.NewKinds(), triage.Options{})
		for lo := 0; lo < n; lo += 1000 {
			bld.Add(slices.Clone(src[lo:min(lo+1000, n)]))
		}
		if err := bld.Groups(context.Background(), fetch); err != nil {
			b.Fatal(err)
		}
		ds := bld.Snapshot()
		items := window.Select(ds, window.View{}, nil)
		runtime.GC()
		runtime.ReadMemStats(&after)
		if ds.Len() != n || len(items) != n {
			b.Fatalf("%d executions, %d rows", ds.Len(), len(items))
		}
		runtime.KeepAlive(bld)
		runtime.KeepAlive(ds)
		runtime.KeepAlive(items)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/n, "B/exec")
	}
	runtime.KeepAlive(src)
}

// BenchmarkFirstScreen1M opens bench-data/1m.jsonl in the TUI as `exectriage --file` does
// (the real backend over the file source, the real load, builder and select commands run
// concurrently as the program runs them) and reports the time from Init to the first frame
// that lists executions, while the rest of the file still streams in. Issue 6: ≤ 500 ms.
func BenchmarkFirstScreen1M(b *testing.B) {
	path := filepath.Join("..", "bench-data", "1m.jsonl")
	if d := os.Getenv("EXECTRIAGE_BENCH_DATA"); d != "" {
		path = filepath.Join(d, "1m.jsonl")
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s not found: run make bench-data", path)
	}
	var total time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		src, err := source.Open(ctx, source.Options{File: path})
		if err != nil {
			b.Fatal(err)
		}
		m := New(ctx, app.New(app.Parts{Source: src, BundleDir: b.TempDir()}), Options{})
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
		msgs := make(chan tea.Msg, 64)
		var exec func(tea.Cmd)
		exec = func(cmd tea.Cmd) {
			if cmd == nil {
				return
			}
			go func() {
				msg := cmd()
				if batch, ok := msg.(tea.BatchMsg); ok {
					for _, c := range batch {
						exec(c)
					}
					return
				}
				select {
				case msgs <- msg:
				case <-ctx.Done():
				}
			}()
		}
		start := time.Now()
		exec(m.Init())
		for m.list.Len() == 0 {
			_, cmd := m.Update(<-msgs)
			exec(cmd)
		}
		view := m.View().Content
		took := time.Since(start)
		loaded := m.data.DS.Len()
		cancel()
		src.Close()
		if !strings.Contains(view, "GMAIL") && !strings.Contains(view, "SLACK") {
			b.Fatalf("the first frame lists no executions:\n%s", view)
		}
		if loaded >= 1_000_000 {
			b.Fatalf("the first frame came after the whole file (%d executions)", loaded)
		}
		total += took
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "first-screen-ms")
}

func synthetic(n int) []model.Execution {
	execs := make([]model.Execution, n)
	tools := []string{"GMAIL_SEND_EMAIL", "SLACK_SEND_MESSAGE", "GMAIL_FETCH_EMAILS", "GITHUB_CREATE_AN_ISSUE"}
	for i := range execs {
		e := model.Execution{ID: fmt.Sprintf("log_%08d", i), Timestamp: sandboxNow.Add(-time.Duration(i) * time.Second),
			ToolSlug: tools[i%len(tools)], ToolkitSlug: "gmail", UserID: fmt.Sprintf("user_%d", i%50),
			ConnectedAccountID: fmt.Sprintf("ca_%d", i%50), Status: "success", Duration: time.Second, HasDuration: true,
			Arguments: json.RawMessage(fmt.Sprintf(`{"to":"u%d@example.com","subject":"s%d"}`, i%997, i%13)), Detailed: true, RetryCount: -1}
		if i%7 == 0 {
			e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrTimeout, Message: "timed out"}
		}
		execs[i] = e
	}
	return execs
}

// BenchmarkRender measures one frame at 200x50: it must not grow with the number of executions.
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{1_000, 300_000} {
		h := newHarness(b, newEnv(b), 200, 50)
		ds := window.Build(synthetic(n), nil, func(execs []model.Execution) window.Analysis {
			r := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
			return window.Analysis{Triage: r.Triage, Groups: r.Groups}
		})
		h.m.data.DS = ds
		h.m.list.SetItems(window.SelectItems(ds, window.View{}), n/2)
		h.m.refreshPanes()
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = h.m.Render()
			}
		})
		b.Run(fmt.Sprintf("n=%d/key-down", n), func(b *testing.B) {
			for b.Loop() {
				h.keys("j")
			}
		})
	}
}
