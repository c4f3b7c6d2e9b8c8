package capacity

import (
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
