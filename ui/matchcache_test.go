package ui

import (
	"fmt"
	"slices"
	"testing"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// Typing, erasing and retyping a query through the match cache (exact hits and narrowing
// from the smallest refined result) gives the same matches, rows and selected row as
// filtering afresh and Select.
func TestMatchCacheSameRows(t *testing.T) {
	ds := window.Build(synthetic(40_000), nil, func(execs []model.Execution) window.Analysis {
		r := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
		return window.Analysis{Triage: r.Triage, Groups: r.Groups}
	})
	seq := []string{"g", "gm", "gms", "gmse", "gmsen", "gmsend", "gmsen", "gmse", "gmsex", "gmse",
		"gms", "gms user:user_3", "gms user:user_", "gms", "", "g", "gmail", "gmai", "gm", "timed", "tim", "t", ""}
	views := []window.View{{}, {FlaggedOnly: true}, {Duplicates: true}}
	for _, v := range views {
		var c matchCache
		var lastQ filter.Query
		var lastPos []int
		for _, text := range seq {
			q, err := filter.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			var prev []int
			exact := false
			if c.ds == ds && !q.Empty() {
				prev, exact = c.lookup(q)
			}
			if prev == nil && lastPos != nil && !lastQ.Empty() && q.Refines(lastQ) {
				prev = lastPos
			}
			keep := ds.Exec(12345)
			msg := selectCmd(1, ds, v, q, prev, exact, keep.ID, window.ItemMember, -1)().(selectedMsg)
			want := ds.Matches(q, nil)
			if q.Empty() {
				want = nil
			}
			if !slices.Equal(msg.pos, want) {
				t.Fatalf("%+v %q: %d matches, want %d", v, text, len(msg.pos), len(want))
			}
			var wantItems []window.Item
			if q.Empty() {
				wantItems = window.Select(ds, v, nil)
			} else {
				match := make(map[int]bool, len(want))
				for _, p := range want {
					match[p] = true
				}
				wantItems = window.Select(ds, v, func(i int) bool { return match[i] })
			}
			if fmt.Sprint(msg.items.Slice()) != fmt.Sprint(wantItems) {
				t.Fatalf("%+v %q: rows differ from a fresh filter", v, text)
			}
			wantSel := 0
			for i, it := range wantItems {
				if int(it.Exec) == 12345 {
					wantSel = i
					if it.Kind == window.ItemMember {
						break
					}
					if v.Duplicates {
						continue
					}
					break
				}
			}
			if msg.sel != wantSel {
				t.Fatalf("%+v %q: selected row %d, want %d", v, text, msg.sel, wantSel)
			}
			lastQ, lastPos = msg.q, msg.pos
			c.add(msg.ds, msg.q, msg.pos)
		}
	}
}

// The cache keeps at most matchCacheEntries results of one dataset and forgets them when the
// dataset changes.
func TestMatchCacheBounds(t *testing.T) {
	a, b := &window.Dataset{}, &window.Dataset{}
	var c matchCache
	for i := range 12 {
		q, err := filter.Parse(fmt.Sprintf("q%d", i))
		if err != nil {
			t.Fatal(err)
		}
		c.add(a, q, []int{i})
	}
	if len(c.entries) != matchCacheEntries || c.entries[len(c.entries)-1].q.String() != "q11" {
		t.Fatalf("entries %d, newest %q", len(c.entries), c.entries[len(c.entries)-1].q.String())
	}
	q, _ := filter.Parse("q11")
	if pos, exact := c.lookup(q); !exact || !slices.Equal(pos, []int{11}) {
		t.Fatalf("lookup q11: %v %v", pos, exact)
	}
	big := make([]int, matchCachePositions)
	c.add(a, q, big)
	if len(c.entries) != 1 {
		t.Fatalf("%d entries after a result at the position bound", len(c.entries))
	}
	c.add(b, q, []int{1})
	if c.ds != b || len(c.entries) != 1 || c.entries[0].pos[0] != 1 {
		t.Fatalf("the cache kept another dataset's results")
	}
}
