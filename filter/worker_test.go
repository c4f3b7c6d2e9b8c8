package filter

import (
	"sync/atomic"
	"testing"

	"github.com/exectriage/exectriage/internal/cores"
)

// A parallel scan runs the index's worker setup first in each of its goroutines, and a view
// made of the index keeps it.
func TestWorkerSetupRunsInEachWorker(t *testing.T) {
	n := 4 * minChunk
	ix := NewIndex(n)
	for i := range n {
		ix.AppendFields(Fields{Tool: "GMAIL_SEND_EMAIL", ID: "log_" + string(rune('a'+i%26))})
	}
	var calls atomic.Int32
	ix.SetWorkerSetup(func() { calls.Add(1) })
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	v := ix.View(order, nil, nil, nil)
	q, err := Parse("gmail")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(v.Filter(q)); got != n {
		t.Fatalf("%d rows match, want %d", got, n)
	}
	want := int32(min(cores.N(), n/minChunk))
	if want == 1 {
		want = 0 // one part runs on the caller's goroutine
	}
	if calls.Load() != want {
		t.Errorf("the setup ran %d times, want once in each of %d workers", calls.Load(), want)
	}
}
