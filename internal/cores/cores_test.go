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
