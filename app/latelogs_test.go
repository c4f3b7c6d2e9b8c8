package app

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
	if got := AttemptText(a, nil); !strings.Contains(got, "its log may still come until 2026-12-05 10:15:00Z") {
		t.Errorf("indeterminate: %q", got)
	}
	for _, b := range []model.RetryAttempt{{ID: "x", State: model.AttemptFailed, SentAt: sent}, {ID: "y", State: model.AttemptIndeterminate}} {
		if got := AttemptText(b, nil); strings.Contains(got, "may still come") {
			t.Errorf("%s sent %v: %q", b.State, b.SentAt, got)
		}
	}
}
