package capacity

import (
	"os"
	"slices"
	"syscall"
	"testing"
	"unsafe"
)

// residentPages counts the pages of b's memory the kernel holds (mincore(2)): what a slice
// made resident, and not the process's other memory (the race detector's shadow, say).
func residentPages(t *testing.T, b []byte) int {
	t.Helper()
	page := os.Getpagesize()
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b))) &^ uintptr(page-1)
	end := uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b))
	vec := make([]byte, (end-start+uintptr(page)-1)/uintptr(page))
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, start, end-start, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// The room Grow makes is not written: of 64 MB of fresh room holding one element, a page or
// so is resident; the room slices.Grow makes is resident whole.
func TestGrowLeavesTheRoomUntouched(t *testing.T) {
	for _, tt := range []struct {
		name string
		grow func([]uint64, int) []uint64
		most int // resident pages
	}{
		{"capacity.Grow", Grow[[]uint64], 16},
		{"slices.Grow", slices.Grow[[]uint64], -1},
	} {
		s := tt.grow(nil, 8<<20) // 64 MB: more than any free span of this test process
		s = append(s, 1)
		room := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 8*cap(s))
		got, all := residentPages(t, room), len(room)/os.Getpagesize()
		switch {
		case tt.most >= 0 && got > tt.most:
			t.Errorf("%s: %d of %d pages resident for one element", tt.name, got, all)
		case tt.most < 0 && got < all/2:
			t.Errorf("%s: only %d of %d pages resident: the test cannot tell written room from unwritten", tt.name, got, all)
		}
	}
}
