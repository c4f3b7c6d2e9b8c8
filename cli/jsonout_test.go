package cli

import (
	"math/rand/v2"
	"testing"
	"time"
)

// appendStamp writes what AppendFormat writes, in every year it handles itself and beyond.
func TestAppendStampMatchesAppendFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 3, 4, 5, 6, 7, 8e6, time.UTC), time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.FixedZone("x", 5*3600+1800))}
	for range 20000 {
		times = append(times, time.Unix(r.Int64N(1<<38)-1<<37, r.Int64N(1e9)))
	}
	for _, tm := range times {
		if got, want := string(appendStamp([]byte("x"), tm)), "x"+tm.UTC().Format(stampLayout); got != want {
			t.Fatalf("%v: %q, AppendFormat %q", tm, got, want)
		}
	}
}
