package window

import (
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// TestAnInstallationsDetailNamesItsEntries: list entries of a write whose SDK version re-sends
// in one language only are named once a detail of their installation comes (a later page, as
// a live load gives it), on every builder a front reads (the TUI's stream, scan's once, a whole
// load's Judged); a dataset made before the detail keeps the note it was given.
func TestAnInstallationsDetailNamesItsEntries(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	entry := func(id string, min int) model.Execution {
		return model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "u1", SDKVersion: "0.15.0",
			Status: "success", Timestamp: at.Add(time.Duration(min) * time.Minute)}
	}
	detail := entry("log_c", 30)
	detail.Detailed, detail.Source = true, model.Source{Language: "python", Host: "sdk"}
	detail.Arguments = []byte(`{"to":"a@example.com"}`)
	first := []model.Execution{entry("log_a", 0), entry("log_b", 10), entry("log_c", 30)}
	conditional := "Composio SDK 0.15.0 (language not in its list entry) auto-retries writes if it is Python composio"
	named := "Python composio 0.15.0 auto-retries writes (language from the same user's executions on this SDK version)"
	for _, tt := range []struct {
		name string
		b    *Builder
	}{
		{"stream", NewBuilder(triage.NewKinds(), triage.Options{})},
		{"once", New(triage.NewKinds(), triage.Options{}, Options{Once: true, Exact: true})},
	} {
		b := tt.b
		b.Add(first)
		before := b.Snapshot()
		b.Add([]model.Execution{detail})
		after := b.Snapshot()
		notes := func(ds *Dataset) map[string]string {
			out := map[string]string{}
			for i := range ds.Len() {
				out[ds.ID(i)] = ds.Triage(i).OldSDK
			}
			return out
		}
		if got := notes(before); got["log_a"] != conditional || got["log_b"] != conditional {
			t.Errorf("%s: before the detail: %q", tt.name, got)
		}
		if got := notes(after); got["log_a"] != named || got["log_b"] != named || got["log_c"] != "Python composio 0.15.0 auto-retries writes" {
			t.Errorf("%s: after the detail: %q", tt.name, got)
		}
		if got := notes(before); got["log_a"] != conditional {
			t.Errorf("%s: the dataset made before the detail changed: %q", tt.name, got)
		}
		ts, _ := b.Judged(nil)
		for r, tr := range ts {
			if strings.Contains(tr.OldSDK, "language not") {
				t.Errorf("%s: Judged row %d: %q", tt.name, r, tr.OldSDK)
			}
		}
	}
}
