package intern

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkOfUsers numbers a million users and accounts as a scan meets them: 60k distinct
// strings, each in two copies (one per parse worker's table), in random order.
func BenchmarkOfUsers(b *testing.B) {
	for _, places := range []int{0, 1 << 12, Many} {
		b.Run(fmt.Sprint(places), func(b *testing.B) { benchOfUsers(b, places) })
	}
}

func benchOfUsers(b *testing.B, places int) {
	var copies [2][]string
	for i := range 60_000 {
		s := fmt.Sprintf("user_%d", i)
		if i%2 == 1 {
			s = fmt.Sprintf("ca_%012x", i*7919)
		}
		copies[0] = append(copies[0], s)
		copies[1] = append(copies[1], strings.Clone(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	seq := make([]string, 1_000_000)
	for i := range seq {
		seq[i] = copies[r.IntN(2)][r.IntN(60_000)]
	}
	for b.Loop() {
		t := New(places)
		for _, s := range seq {
			t.Of(s)
		}
	}
}
