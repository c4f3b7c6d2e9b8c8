package heap

import (
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
)

func setting(t *testing.T, name string) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("no metric %s", name)
	}
	return s[0].Value.Uint64()
}

func gogc(t *testing.T) uint64  { return setting(t, "/gc/gogc:percent") }
func limit(t *testing.T) uint64 { return setting(t, "/gc/gomemlimit:bytes") }

// While loads run the proportional trigger is off (overlapping loads: until the last ends);
// the limit is the floor or half again the live heap, whichever is more; Close gives the
// process its limit back.
func TestBudget(t *testing.T) {
	before, beforeLimit := gogc(t), limit(t)
	b := New(8 << 20)
	first := b.Load()
	const off = math.MaxUint64 // GOGC=off, as the metric reports it
	if got := gogc(t); got != off {
		t.Fatalf("GOGC during a load = %d, want off", got)
	}
	second := b.Load()
	first()
	first() // twice changes nothing
	if got := gogc(t); got != off {
		t.Fatalf("GOGC with a load still running = %d, want off", got)
	}
	second()
	if got := gogc(t); got != before {
		t.Fatalf("GOGC after the loads = %d, want %d again", got, before)
	}
	if got := limit(t); got < 8<<20 || got == beforeLimit {
		t.Fatalf("limit %d: not set, or below the floor", got)
	}
	live := make([]byte, 64<<20) // a dataset: the live heap passes the floor
	for i := range live {
		live[i] = 1
	}
	runtime.GC()
	b.Fit()
	if got := limit(t); got < 96<<20 || int64(got) != b.Limit() {
		t.Errorf("limit %d (Limit %d) with 64 MB live, want at least 96 MB", got, b.Limit())
	}
	runtime.KeepAlive(live)
	b.Close()
	if got := limit(t); got != beforeLimit {
		t.Errorf("limit after Close = %d, want %d", got, beforeLimit)
	}
	var none *Budget // a nil budget does nothing
	none.Load()()
	none.Fit()
	none.Close()
	if none.Limit() != 0 || gogc(t) != before || limit(t) != beforeLimit {
		t.Error("a nil budget changed the collector's settings")
	}
}

func TestNoLimitBeforeAny(t *testing.T) {
	if got := New(1 << 30).Limit(); got != 0 {
		t.Errorf("Limit before any load = %d", got)
	}
	if limit(t) == 0 || limit(t) > math.MaxInt64 {
		t.Errorf("odd process limit %d", limit(t))
	}
}
