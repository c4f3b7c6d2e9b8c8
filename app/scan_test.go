package app

import (
	"strings"
	"testing"
)

// The arena gives back every string exactly, a packed UUID included, and packs only what it
// can give back.
func TestArenaRoundTrip(t *testing.T) {
	var a arena
	in := []string{"", "log_abc", "9533085f-d13d-4f7b-a25d-b59e4a04a302", "9533085F-D13D-4F7B-A25D-B59E4A04A302",
		"9533085f-d13d-4f7b-a25d-b59e4a04a30", "9533085f-d13d-4f7b-a25d-b59e4a04a3022", "9533085fxd13d-4f7b-a25d-b59e4a04a302",
		"g533085f-d13d-4f7b-a25d-b59e4a04a302", strings.Repeat("x", arenaBlock/8+1), "é-ünïcode", "00000000-0000-0000-0000-000000000000"}
	refs := make([]strRef, len(in))
	for i, s := range in {
		r, err := a.add(s)
		if err != nil {
			t.Fatal(err)
		}
		refs[i] = r
	}
	for i, s := range in {
		if got := a.str(refs[i]); got != s {
			t.Errorf("%q came back as %q", s, got)
		}
	}
	if refs[2].n&packedUUID == 0 || refs[3].n&packedUUID != 0 || refs[4].n&packedUUID != 0 {
		t.Errorf("packing: %+v %+v %+v", refs[2], refs[3], refs[4])
	}
}
