package model

import (
	"math"
	"time"
)

// The times a journal stores are Unix nanoseconds: they hold from 1677 to 2262. MaxTime and
// MinTime are those bounds; a time computed from input (a timeout added to now, a --since
// subtracted from it) is saturated to them instead of wrapping round.
var (
	MaxTime = time.Unix(0, math.MaxInt64).UTC()
	MinTime = time.Unix(0, math.MinInt64).UTC()
)

// AddSaturated is t+d kept within [MinTime, MaxTime]: a huge d never wraps round to the past
// (a deadline of 2,500,000 hours stored as the year 1727 would make a live attempt look long
// abandoned).
func AddSaturated(t time.Time, d time.Duration) time.Time {
	switch {
	case t.After(MaxTime):
		t = MaxTime
	case t.Before(MinTime):
		t = MinTime
	}
	if d > 0 && MaxTime.Sub(t) < d {
		return MaxTime
	}
	if d < 0 && (d == math.MinInt64 || t.Sub(MinTime) < -d) {
		return MinTime
	}
	return t.Add(d)
}

// UnixNanoSaturated is t as Unix nanoseconds, saturated at the int64 bounds instead of
// overflowing (time.Time.UnixNano is undefined outside 1677-2262).
func UnixNanoSaturated(t time.Time) int64 {
	switch {
	case t.After(MaxTime):
		return math.MaxInt64
	case t.Before(MinTime):
		return math.MinInt64
	}
	return t.UnixNano()
}
