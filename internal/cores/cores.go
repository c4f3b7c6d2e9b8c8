// Package cores says how many goroutines CPU-bound work should fan out over: the cores the
// process may use, even when GOMAXPROCS is set higher. The TUI runs with more Ps than cores
// (ui.Run) so that its event loop never waits for a P behind a parse or a filter; work sized
// by GOMAXPROCS would take those Ps too.
package cores

import "runtime"

// N is min(GOMAXPROCS, the CPUs the process may run on), at least 1.
func N() int { return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU())) }
