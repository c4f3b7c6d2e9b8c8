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

// While loads run the proportional trigger is off (overlapping loads: until the last ends)
// and the limit is the floor or half again the live heap, whichever is more; when the last
// ends, the process has its own pacing and limit back.
func TestBudget(t *testing.T) {
	before, beforeLimit := gogc(t), limit(t)
	b := New(8 << 20)
	first := b.Load()
	const off = math.MaxUint64 // GOGC=off, as the metric reports it
	if got := gogc(t); got != off {
		t.Fatalf("GOGC during a load = %d, want off", got)
	}
	if got := limit(t); got < 8<<20 || int64(got) != b.Limit() {
		t.Fatalf("limit %d during a load (Limit %d), want at least the floor", got, b.Limit())
	}
	second := b.Load()
	first()
	first() // twice changes nothing
	if got := gogc(t); got != off {
		t.Fatalf("GOGC with a load still running = %d, want off", got)
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
	second()
	if got, lim := gogc(t), limit(t); got != before || lim != beforeLimit || b.Limit() != 0 {
		t.Fatalf("after the loads: GOGC %d, limit %d (Limit %d); want %d and %d again", got, lim, b.Limit(), before, beforeLimit)
	}
	b.Fit() // no load: nothing changes
	if limit(t) != beforeLimit {
		t.Error("Fit with no load set a limit")
	}
	var none *Budget // a nil budget does nothing
	none.Load()()
	none.Fit()
	if none.Limit() != 0 || gogc(t) != before || limit(t) != beforeLimit {
		t.Error("a nil budget changed the collector's settings")
	}
}

// Idle paces the collector at its percent between loads (from the call on, and after each
// load), leaves a load's pacing alone while it runs, and Idle(0) puts the process's own back,
// whether a load runs then or not.
func TestIdlePacing(t *testing.T) {
	before := gogc(t)
	b := New(8 << 20)
	b.Idle(25)
	if got := gogc(t); got != 25 {
		t.Fatalf("GOGC with no load under Idle(25) = %d", got)
	}
	done := b.Load()
	if got := gogc(t); got != math.MaxUint64 {
		t.Fatalf("GOGC during a load under Idle = %d, want off", got)
	}
	done()
	if got := gogc(t); got != 25 {
		t.Fatalf("GOGC after a load under Idle(25) = %d", got)
	}
	done = b.Load()
	b.Idle(0)
	done()
	if got := gogc(t); got != before {
		t.Fatalf("GOGC after Idle ended during a load = %d, want %d", got, before)
	}
	done = b.Load() // Idle called first while a load runs: it applies when the load ends
	b.Idle(30)
	if got := gogc(t); got != math.MaxUint64 {
		t.Fatalf("Idle during a load changed its pacing to %d", got)
	}
	done()
	if got := gogc(t); got != 30 {
		t.Fatalf("GOGC after a load under Idle(30) = %d", got)
	}
	b.Idle(0)
	b.Idle(0)
	if got := gogc(t); got != before {
		t.Fatalf("GOGC after Idle ended = %d, want %d", got, before)
	}
	var none *Budget
	none.Idle(25)
	if got := gogc(t); got != before {
		t.Fatalf("a nil budget's Idle changed GOGC to %d", got)
	}
}
