package perfbench

import (
	"context"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/window"
)

// typedOver loads the 1M export as the TUI loads it and paces the collector as the TUI does
// once a big load is in (ui's idleGC, heap.Budget.Idle), until the benchmark ends.
func typedOver(b *testing.B) *window.Dataset {
	b.Helper()
	v, err := load(context.Background(), benchData(b, "1m.jsonl"), 1_000_000)
	if err != nil {
		b.Fatal(err)
	}
	prev := debug.SetGCPercent(25)
	b.Cleanup(func() { debug.SetGCPercent(prev) })
	return v.ds
}

// BenchmarkFilterKeys1M types the tmux bench's queries key by key over bench-data/1m.jsonl
// loaded as the TUI loads it, and times what the TUI's selection command does per key: the
// matches (narrowed from the shorter query's as the TUI's selector does) and the list's rows
// made of them. Erasing reuses the shorter query's matches (the selector's cache).
func BenchmarkFilterKeys1M(b *testing.B) {
	ds := typedOver(b)
	var match, rows []time.Duration
	for b.Loop() {
		for _, typed := range []string{"g", "gmsend", "user:42", "timedout"} {
			cache := map[string][]int{}
			var prevQ filter.Query
			var prev []int
			key := func(text string) {
				q, err := filter.Parse(text)
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				pos, ok := cache[text]
				if !ok && !q.Empty() {
					var from []int
					if prev != nil && q.Refines(prevQ) {
						from = prev
					}
					pos = ds.Matches(q, from)
					cache[text] = pos
				}
				t1 := time.Now()
				var items window.Items
				if q.Empty() {
					items = window.SelectItems(ds, window.View{})
				} else {
					items = window.SelectMatchItems(ds, window.View{}, pos)
				}
				_ = items.Len()
				match, rows = append(match, t1.Sub(t0)), append(rows, time.Since(t1))
				prevQ, prev = q, pos
			}
			for i := range typed {
				key(typed[:i+1])
			}
			for i := len(typed) - 1; i >= 0; i-- {
				key(typed[:i])
			}
		}
	}
	total := make([]time.Duration, len(match))
	for i := range match {
		total[i] = match[i] + rows[i]
	}
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"match", match}, {"rows", rows}, {"key", total}} {
		slices.Sort(s.d)
		var sum time.Duration
		for _, d := range s.d {
			sum += d
		}
		b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(s.d)), s.name+"-ms")
		b.ReportMetric(float64(s.d[len(s.d)*95/100].Microseconds())/1000, s.name+"-p95-ms")
	}
}

// BenchmarkFilterBurst1M types "gmsend" over the 1M export as a fast typist does, a key every
// 30 ms, each key's search started as the TUI starts it (off the loop, narrowing from the last
// finished result), and reports how long after its key the last one's matches come: with each
// key stopping the search before it (as the TUI does) and with every search left to finish.
func BenchmarkFilterBurst1M(b *testing.B) {
	ds := typedOver(b)
	const word, gap = "gmsend", 30 * time.Millisecond
	burst := func(stopStale bool) time.Duration {
		type result struct {
			q   filter.Query
			pos []int
		}
		done := make(chan result, len(word))
		var last result // the last finished search: the next key narrows from it
		stop := func() {}
		var lastKey time.Time
		for i := range word {
			q, err := filter.Parse(word[:i+1])
			if err != nil {
				b.Fatal(err)
			}
		drain:
			for {
				select {
				case r := <-done:
					if r.pos != nil {
						last = r
					}
				default:
					break drain
				}
			}
			var from []int
			if last.pos != nil && q.Refines(last.q) {
				from = last.pos
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if stopStale {
				stop()
			}
			stop = cancel
			lastKey = time.Now()
			go func() {
				pos, err := ds.MatchesContext(ctx, q, from)
				if err != nil {
					pos = nil
				}
				done <- result{q: q, pos: pos}
			}()
			if i < len(word)-1 {
				time.Sleep(gap)
			}
		}
		want, _ := filter.Parse(word)
		for r := range done {
			if r.q.String() == want.String() {
				stop()
				return time.Since(lastKey)
			}
		}
		return 0
	}
	var stopped, finished []time.Duration
	for b.Loop() {
		stopped = append(stopped, burst(true))
		finished = append(finished, burst(false))
		time.Sleep(200 * time.Millisecond) // the searches left running end
	}
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"stopping", stopped}, {"finishing", finished}} {
		slices.Sort(s.d)
		b.ReportMetric(float64(s.d[len(s.d)/2].Microseconds())/1000, "last-key-ms-"+s.name)
	}
}
