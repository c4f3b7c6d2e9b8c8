package phrase

import (
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestAttemptTextSaysUntilWhenLateLogsMayCome: an indeterminate attempt's line names the moment
// its silence starts to prove something (sent + the settle time), in the one time format; a
// settled or never-sent attempt says nothing of the kind.
func TestAttemptTextSaysUntilWhenLateLogsMayCome(t *testing.T) {
	sent := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	a := model.RetryAttempt{ID: "att", State: model.AttemptIndeterminate, SentAt: sent, Who: "t"}
	if got := AttemptText(a, nil, sent.Add(time.Minute)); !strings.Contains(got, "its log may still come until 2026-12-05 10:15:00Z") {
		t.Errorf("indeterminate: %q", got)
	}
	// once the moment has passed, the line no longer says the log may still come
	if got := AttemptText(a, nil, sent.Add(20*time.Minute)); strings.Contains(got, "may still come") || !strings.Contains(got, "its log could come until 2026-12-05 10:15:00Z: from now on") {
		t.Errorf("indeterminate, the moment passed: %q", got)
	}
	for _, b := range []model.RetryAttempt{{ID: "x", State: model.AttemptFailed, SentAt: sent}, {ID: "y", State: model.AttemptIndeterminate}} {
		if got := AttemptText(b, nil, sent); strings.Contains(got, "could come") || strings.Contains(got, "may still come") {
			t.Errorf("%s sent %v: %q", b.State, b.SentAt, got)
		}
	}
}
