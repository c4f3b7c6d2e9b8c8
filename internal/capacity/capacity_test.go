package capacity

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestGrow(t *testing.T) {
	s := []int{1, 2, 3}
	g := Grow(s, 10)
	if len(g) != 3 || cap(g) < 13 || g[0] != 1 || g[2] != 3 {
		t.Fatalf("Grow = %v (cap %d)", g, cap(g))
	}
	if h := Grow(g, 5); &h[0] != &g[0] {
		t.Error("Grow made a new array with enough room left")
	}
	if e := Grow([]int(nil), 0); e != nil {
		t.Errorf("Grow(nil, 0) = %v", e)
	}
}

// rssKB is the process's resident memory (VmRSS), or 0 where /proc is missing.
func rssKB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for l := range strings.Lines(string(b)) {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// The room Grow makes is not written: reserving 256 MB of fresh memory leaves the resident
// size about where it was (slices.Grow makes all of it resident).
func TestGrowLeavesTheRoomUntouched(t *testing.T) {
	if rssKB(t) == 0 {
		t.Skip("no /proc/self/status")
	}
	runtime.GC()
	before := rssKB(t)
	s := Grow([]uint64(nil), 32<<20) // 256 MB, more than any free span of this test process
	s = append(s, 1)
	after := rssKB(t)
	if grew := after - before; grew > 64<<10 {
		t.Errorf("resident grew by %d MB for 256 MB of room holding one element", grew>>10)
	}
	runtime.KeepAlive(s)
}
