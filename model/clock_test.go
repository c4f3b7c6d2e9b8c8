package model

import (
	"math"
	"testing"
	"time"
)

func TestAddSaturated(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for name, tt := range map[string]struct {
		t    time.Time
		d    time.Duration
		want time.Time
	}{
		"ordinary":             {now, time.Hour, now.Add(time.Hour)},
		"negative":             {now, -time.Hour, now.Add(-time.Hour)},
		"2,500,000 hours":      {now, 2500000 * time.Hour, MaxTime},
		"max duration":         {now, math.MaxInt64, MaxTime},
		"min duration":         {now, math.MinInt64, MinTime},
		"beyond the nanos":     {time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), time.Second, MaxTime},
		"before the nanos":     {time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), -time.Second, MinTime},
		"exactly to the bound": {MaxTime.Add(-time.Second), time.Second, MaxTime},
	} {
		t.Run(name, func(t *testing.T) {
			got := AddSaturated(tt.t, tt.d)
			if !got.Equal(tt.want) {
				t.Fatalf("AddSaturated(%v, %v) = %v, want %v", tt.t, tt.d, got, tt.want)
			}
			if n := UnixNanoSaturated(got); (tt.d > 0 && n < UnixNanoSaturated(tt.t)) || (tt.d < 0 && n > UnixNanoSaturated(tt.t)) {
				t.Fatalf("the stored time went the other way: %d", n)
			}
		})
	}
	if UnixNanoSaturated(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)) != math.MaxInt64 {
		t.Fatal("a time after 2262 must store as the largest")
	}
	if UnixNanoSaturated(time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)) != math.MinInt64 {
		t.Fatal("a time before 1677 must store as the smallest")
	}
}
