package window

import (
	"slices"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// A window that keeps what scan prints gives every request id, duration and time back exactly:
// a UUID packed in 16 bytes, anything else as text (an upper-case UUID, one digit short or
// long, a non-hex digit, the one UUID whose packing would read as text), durations that are not
// whole milliseconds, negative or past what a row holds, times outside Unix nanoseconds and the
// epoch itself.
func TestExactColumnsRoundTrip(t *testing.T) {
	reqs := []string{"", "req_abc", "9533085f-d13d-4f7b-a25d-b59e4a04a302", "9533085F-D13D-4F7B-A25D-B59E4A04A302",
		"9533085f-d13d-4f7b-a25d-b59e4a04a30", "9533085f-d13d-4f7b-a25d-b59e4a04a3022", "9533085fxd13d-4f7b-a25d-b59e4a04a302",
		"g533085f-d13d-4f7b-a25d-b59e4a04a302", "00000000-0000-0000-0000-000000000000", "12345678-9abc-def0-ffff-ffffffffffff", "é-ünïcode"}
	durs := []time.Duration{-1, 0, 2609 * time.Millisecond, 1500*time.Millisecond + 999*time.Microsecond, 7, -3 * time.Millisecond, 1 << 62}
	times := []time.Time{{}, time.Unix(0, 0).UTC(), time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC),
		time.Date(3000, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(1200, 5, 6, 7, 8, 9, 0, time.UTC)}
	var execs []model.Execution
	for i := range 60 {
		e := model.Execution{ID: "log_" + string(rune('a'+i%26)) + string(rune('a'+i/26)), RequestID: reqs[i%len(reqs)], Timestamp: times[i%len(times)]}
		if d := durs[i%len(durs)]; d != -1 {
			e.Duration, e.HasDuration = d, true
		}
		execs = append(execs, e)
	}
	b := NewStream(nil, triage.Options{})
	b.AddLocated(slices.Clone(execs), nil)
	ds := b.Snapshot()
	if ds.Len() != len(execs) {
		t.Fatalf("%d rows, want %d", ds.Len(), len(execs))
	}
	byID := map[string]model.Execution{}
	for _, e := range execs {
		byID[e.ID] = e
	}
	for i := range ds.Len() {
		got := ds.Exec(i)
		want := byID[got.ID]
		if got.RequestID != want.RequestID || got.Duration != want.Duration || got.HasDuration != want.HasDuration || !got.Timestamp.Equal(want.Timestamp) {
			t.Errorf("%s: request %q, duration %v (%v), time %v; want %q, %v (%v), %v", got.ID, got.RequestID, got.Duration, got.HasDuration, got.Timestamp,
				want.RequestID, want.Duration, want.HasDuration, want.Timestamp)
		}
	}
	// Newest first, the unknown time last, whatever the year.
	for i := 1; i < ds.Len(); i++ {
		if ds.Timestamp(i).After(ds.Timestamp(i - 1)) {
			t.Fatalf("row %d (%v) is newer than row %d (%v)", i, ds.Timestamp(i), i-1, ds.Timestamp(i-1))
		}
	}
	// Packed: the canonical UUIDs take no text.
	var s Summaries
	s.exact = true
	for _, r := range reqs {
		s.Append(&model.Execution{ID: "x", RequestID: r}, nil)
	}
	if packed := s.req[2]; packed.second == textReq {
		t.Error("a canonical UUID was kept as text")
	}
	for _, k := range []int{3, 9} {
		if s.req[k].second != textReq {
			t.Errorf("request %q was packed", reqs[k])
		}
	}
	// Whole milliseconds take no duration column.
	var w Summaries
	w.exact = true
	w.Append(&model.Execution{ID: "x", Duration: 2 * time.Second, HasDuration: true}, nil)
	w.Append(&model.Execution{ID: "y"}, nil)
	if w.dur != nil {
		t.Errorf("a duration column was made for whole milliseconds: %v", w.dur)
	}
}
