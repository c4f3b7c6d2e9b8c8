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

// Background lowers only the calling goroutine's thread, which leaves with the goroutine.
func TestBackgroundNicesItsOwnThread(t *testing.T) {
	before := niceness()
	done := make(chan int)
	go func() {
		Background()
		done <- niceness()
	}()
	if got := <-done; runtime.GOOS == "linux" && got != backgroundNice {
		t.Errorf("the background thread's nice = %d, want %d", got, backgroundNice)
	}
	if after := niceness(); after != before {
		t.Errorf("the test's own thread went from nice %d to %d", before, after)
	}
}
