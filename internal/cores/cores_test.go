package cores

import (
	"runtime"
	"testing"
)

func TestNIsBoundedByCoresAndGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(runtime.NumCPU() + 2)
	if got := N(); got != runtime.NumCPU() {
		t.Errorf("GOMAXPROCS above the cores: N = %d, want %d", got, runtime.NumCPU())
	}
	runtime.GOMAXPROCS(1)
	if got := N(); got != 1 {
		t.Errorf("GOMAXPROCS 1: N = %d", got)
	}
}

// Background and Foreground lower only the calling goroutine's thread, which leaves with the
// goroutine; Foreground less.
func TestBackgroundNicesItsOwnThread(t *testing.T) {
	for _, tt := range []struct {
		lower func()
		nice  int
	}{{Background, backgroundNice}, {Foreground, foregroundNice}} {
		before := niceness()
		done := make(chan int)
		go func() {
			tt.lower()
			done <- niceness()
		}()
		if got := <-done; runtime.GOOS == "linux" && got != tt.nice {
			t.Errorf("the lowered thread's nice = %d, want %d", got, tt.nice)
		}
		if after := niceness(); after != before {
			t.Errorf("the test's own thread went from nice %d to %d", before, after)
		}
	}
	if runtime.GOOS == "linux" && (foregroundNice >= backgroundNice || foregroundNice <= 0) {
		t.Errorf("Foreground's nice %d is not between the loop's 0 and Background's %d", foregroundNice, backgroundNice)
	}
}

// Split's parts cover [0, n) once, in order of w, each given to work once; Parts gives at
// least least items a part, one part at least, and no more parts than cores.
func TestSplitCoversEveryItemOnce(t *testing.T) {
	for _, c := range []struct{ parts, n int }{{1, 0}, {1, 7}, {2, 7}, {3, 100}, {4, 3}} {
		seen := make([]int, c.n)
		bounds := make([][2]int, max(c.parts, 1))
		Split(c.parts, c.n, func(w, lo, hi int) {
			bounds[w] = [2]int{lo, hi}
			for i := lo; i < hi; i++ {
				seen[i]++ // each part its own items: no two write one
			}
		})
		for i, k := range seen {
			if k != 1 {
				t.Fatalf("Split(%d, %d): item %d worked on %d times", c.parts, c.n, i, k)
			}
		}
		for w := 1; w < len(bounds); w++ {
			if bounds[w][0] != bounds[w-1][1] {
				t.Fatalf("Split(%d, %d): part %d starts at %d, the one before ends at %d", c.parts, c.n, w,
					bounds[w][0], bounds[w-1][1])
			}
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(64)
	if got := Parts(10, 4); got != min(2, N()) {
		t.Errorf("Parts(10, 4) = %d, want %d", got, min(2, N()))
	}
	if got := Parts(3, 4); got != 1 {
		t.Errorf("Parts(3, 4) = %d, want 1", got)
	}
	if got := Parts(1<<30, 1); got != N() {
		t.Errorf("Parts of a billion = %d, want one per core (%d)", got, N())
	}
}
