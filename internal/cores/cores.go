// Package cores says how many goroutines CPU-bound work should fan out over: the cores the
// process may use, even when GOMAXPROCS is set higher. The TUI runs with more Ps than cores
// (ui.Run) so that its event loop never waits for a P behind a parse or a filter; work sized
// by GOMAXPROCS would take those Ps too.
package cores

import (
	"runtime"
	"sync"
)

// N is min(GOMAXPROCS, the CPUs the process may run on), at least 1.
func N() int { return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU())) }

// Parts is how many goroutines share n items of CPU-bound work: one per core, each given at
// least least items (at least one part).
func Parts(n, least int) int { return max(1, min(N(), n/max(least, 1))) }

// Split runs work over [0, n) cut into parts parts of about equal size, each on a goroutine of
// its own (on the caller's when there is one part), and returns when all have. Part w covers
// [n*w/parts, n*(w+1)/parts).
func Split(parts, n int, work func(w, lo, hi int)) {
	if parts <= 1 {
		work(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range parts {
		wg.Go(func() { work(w, n*w/parts, n*(w+1)/parts) })
	}
	wg.Wait()
}
