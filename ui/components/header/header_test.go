package header

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/ui/data"
)

func TestSparkScalesToTheLargestAndLeavesGaps(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{[]int{0, 1, 2, 4, 8}, " ▁▂▄█"},
		{[]int{0, 0, 0}, "   "},
		{[]int{5, 5}, "██"},
		{[]int{1, 100}, "▁█"},
	}
	for _, tt := range tests {
		if got := spark(tt.in); got != tt.want {
			t.Errorf("spark(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResampleKeepsEveryCount(t *testing.T) {
	var h data.Histogram
	for b := range data.HistBuckets {
		h.Execs[b] = 1
		if b%10 == 0 {
			h.Flagged[b] = 1
		}
	}
	for _, n := range []int{8, 37, 100, 600} {
		e, f := resample(&h, n)
		se, sf := 0, 0
		for i := range e {
			se += e[i]
			sf += f[i]
		}
		if se != data.HistBuckets || sf != (data.HistBuckets+9)/10 || len(e) != n {
			t.Errorf("n=%d: %d executions, %d flagged in %d columns", n, se, sf, len(e))
		}
	}
}

func TestJoinLRFitsTheWidth(t *testing.T) {
	for _, w := range []int{20, 40, 80, 200} {
		got := joinLR(strings.Repeat("left ", 20), "right side", w)
		if ansi.StringWidth(got) != w {
			t.Errorf("w=%d: %d wide: %q", w, ansi.StringWidth(got), got)
		}
	}
}
