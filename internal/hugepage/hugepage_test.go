package hugepage

import "testing"

func TestAdvise(t *testing.T) {
	// Small, empty and large slices: no panic, and the memory stays usable.
	Advise([]int(nil))
	Advise(make([]byte, 10))
	big := make([]int64, 0, 4<<20)
	Advise(big)
	big = append(big, 1, 2, 3)
	big = big[:cap(big)]
	big[len(big)-1] = 7
	if big[0] != 1 || big[len(big)-1] != 7 {
		t.Fatal("memory changed")
	}
}
