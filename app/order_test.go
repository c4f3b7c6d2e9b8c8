package app

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/window"
)

// TestEveryFrontOrdersAlike: executions of one instant are listed in one order by
// every front: list and export (SortNewestFirst), scan (a window streamed once, or a loaded
// window's) and the TUI (its builder), whatever order they arrive in. The TUI's builder broke
// ties by id the other way round.
func TestEveryFrontOrdersAlike(t *testing.T) {
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(3, 4))
	var execs []model.Execution
	for i := range 300 {
		at := base.Add(time.Duration(rng.IntN(20)) * time.Second) // many executions per instant
		execs = append(execs, model.Execution{ID: fmt.Sprintf("log_%03d", rng.IntN(1000)*1000+i), Timestamp: at, ToolSlug: "GMAIL_SEND_EMAIL", Status: "success"})
	}
	want := slices.Clone(execs)
	SortNewestFirst(want)
	ids := func(n int, id func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	wantIDs := ids(len(want), func(i int) string { return want[i].ID })
	for name, arrive := range map[string]func([]model.Execution){
		"shuffled": func(es []model.Execution) { rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] }) },
		"oldest first": func(es []model.Execution) {
			slices.Reverse(es)
		},
		"newest first": func([]model.Execution) {},
	} {
		in := slices.Clone(want)
		arrive(in)
		tui := window.NewBuilder(nil, triage.Options{})
		tui.Add(slices.Clone(in))
		stream := window.NewStream(nil, triage.Options{})
		stream.AddLocated(slices.Clone(in), nil)
		for front, ds := range map[string]*window.Dataset{"the TUI's": tui.Snapshot(), "scan's": stream.Snapshot()} {
			if got := ids(ds.Len(), ds.ID); !slices.Equal(got, wantIDs) {
				t.Errorf("%s, arriving %s: %v…, list says %v…", front, name, got[:6], wantIDs[:6])
			}
		}
	}
}
