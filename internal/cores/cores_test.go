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
