package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
)

// TestStepsOnSeveralDaysCarryTheirDate: a trace over four days showed only
// times of day, so "oldest first" read as out of order. Steps on more than one day carry their
// date in the list's format; a timeline within one day keeps the time alone.
func TestStepsOnSeveralDaysCarryTheirDate(t *testing.T) {
	c := common.Common{Styles: styles.New(theme.Default()), Keys: &keys.KeyMap{}, Now: time.Now}
	at := func(d, h int) model.Execution {
		return model.Execution{ID: "log_x", ToolSlug: "SLACK_SEND_MESSAGE", Status: "success",
			Timestamp: time.Date(2026, 12, d, h, 0, 0, 0, time.UTC)}
	}
	m := New(c)
	m.SetSize(120, 40)
	m.Open("trace t", []Step{{Exec: at(1, 23)}, {Exec: at(2, 1)}, {Exec: at(4, 9)}}, "")
	v := ansi.Strip(m.View())
	for _, want := range []string{"12-01 23:00:00.000", "12-02 01:00:00.000", "12-04 09:00:00.000"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q:\n%s", want, v)
		}
	}
	m.Open("trace t", []Step{{Exec: at(1, 9)}, {Exec: at(1, 10)}}, "")
	if v := ansi.Strip(m.View()); strings.Contains(v, "12-01 ") || !strings.Contains(v, " 09:00:00.000") {
		t.Errorf("one day's steps:\n%s", v)
	}
}
