package window

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/exectriage/exectriage/model"
)

func TestSummaries(t *testing.T) {
	if n := unsafe.Sizeof(Summary{}); n != 48 {
		t.Errorf("Summary is %d bytes, want 48", n)
	}
	ts := time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC)
	execs := []model.Execution{
		{ID: "log_1", Timestamp: ts, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "user_1", ConnectedAccountID: "ca_1",
			Status: "failed", Duration: 1500*time.Millisecond + 999*time.Microsecond, HasDuration: true, Error: &model.ExecError{Kind: model.ErrTimeout}, Detailed: true},
		{ID: "log_2", ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "user_1", Status: "success", Duration: 1 << 62, HasDuration: true},
		{ID: "", Timestamp: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}, // beyond Unix nanoseconds
	}
	tr := []*model.Triage{
		{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true, OldSDK: "Python composio 0.15.2 auto-retries writes"},
		{Kind: model.KindIdempotentWrite, Outcome: model.OutcomeSucceeded},
		nil,
	}
	var s Summaries
	for i := range execs {
		s.Append(&execs[i], tr[i])
	}
	if s.Len() != 3 {
		t.Fatalf("len %d", s.Len())
	}
	r0, r1, r2 := s.Row(0), s.Row(1), s.Row(2)
	checks := []struct {
		name      string
		got, want any
	}{
		{"id 0", s.ID(0), "log_1"}, {"id 1", s.ID(1), "log_2"}, {"id 2", s.ID(2), ""},
		{"time", s.Timestamp(0), ts}, {"no time", s.Timestamp(1).IsZero(), true}, {"far time", s.Timestamp(2), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"tool", s.Str(r0.Tool), "GMAIL_SEND_EMAIL"}, {"toolkit", s.Str(r0.Toolkit), "gmail"}, {"user", s.Str(r0.User), "user_1"},
		{"account", s.Str(r0.Account), "ca_1"}, {"no account", s.Str(r1.Account), ""}, {"status", s.Str(r0.Status), "failed"},
		{"shared symbol", r0.Tool == r1.Tool, true}, {"symbols", s.syms.Len(), 6},
		{"duration", r0.Duration, int32(1500)}, {"huge duration", r1.Duration, int32(1<<31 - 1)}, {"no duration", r2.Duration, int32(-1)},
		{"outcome", r0.Outcome.Outcome(), model.OutcomeAmbiguous}, {"kind", r1.Kind.Kind(), model.KindIdempotentWrite}, {"untriaged", r2.Outcome.Outcome(), model.Outcome("")},
		{"flags 0", r0.Flags, FlagFlagged | FlagError | FlagDetailed}, {"flags 1", r1.Flags, SummaryFlags(0)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Ids stay valid as the list grows.
	id0 := s.ID(0)
	for i := range 10000 {
		s.Append(&model.Execution{ID: strings.Repeat("x", i%50)}, nil)
	}
	if id0 != "log_1" || s.ID(0) != "log_1" || s.ID(10002) != strings.Repeat("x", 9999%50) {
		t.Errorf("ids moved: %q %q", id0, s.ID(0))
	}
	if s.Size() < 10003*48 {
		t.Errorf("Size %d too small", s.Size())
	}
}

// TestSummariesSnapshot: a snapshot keeps seeing the rows, ids and symbols it was made over
// while the list grows past its capacity.
func TestSummariesSnapshot(t *testing.T) {
	var s Summaries
	add := func(i int) {
		e := model.Execution{ID: fmt.Sprintf("log_%d", i), ToolSlug: fmt.Sprintf("TOOL_%d", i%7), Timestamp: time.Unix(int64(i), 0)}
		s.Append(&e, nil)
	}
	for i := range 10 {
		add(i)
	}
	snap := s.Snapshot()
	for i := 10; i < 5000; i++ {
		add(i)
	}
	if snap.Len() != 10 || s.Len() != 5000 {
		t.Fatalf("snapshot %d rows, list %d", snap.Len(), s.Len())
	}
	for i := range 10 {
		if got, want := snap.ID(i), fmt.Sprintf("log_%d", i); got != want {
			t.Errorf("snapshot row %d: id %q, want %q", i, got, want)
		}
		if got, want := snap.Str(snap.Row(i).Tool), fmt.Sprintf("TOOL_%d", i%7); got != want {
			t.Errorf("snapshot row %d: tool %q, want %q", i, got, want)
		}
	}
	late := model.Execution{ID: "log_late", ToolSlug: "LATE_TOOL"}
	s.Append(&late, nil)
	if y := s.Row(s.Len() - 1).Tool; s.Str(y) != "LATE_TOOL" || snap.Str(y) != "" {
		t.Errorf("a symbol added after the snapshot: list %q, snapshot %q", s.Str(y), snap.Str(y))
	}
}
