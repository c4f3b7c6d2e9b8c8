package triage

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/model"
)

// TestTimeline: a session's executions in the order they ran, a meta tool's children right
// under it (even when another execution started between them), the gap from the end of
// everything before (a child's from its previous sibling, or its parent's start); a parent
// outside the list leaves its child in place; a cycle of parents still shows each execution
// once.
func TestTimeline(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ex := func(id string, at, dur float64, parent string) model.Execution {
		e := model.Execution{ID: id, StartTime: t0.Add(time.Duration(at * float64(time.Second)))}
		e.Timestamp = e.StartTime
		if dur > 0 {
			e.EndTime = e.StartTime.Add(time.Duration(dur * float64(time.Second)))
			e.Duration, e.HasDuration = e.EndTime.Sub(e.StartTime), true
		}
		if parent != "" {
			e.Parent = &model.Parent{LogID: parent, ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL"}
		}
		return e
	}
	tests := []struct {
		name  string
		execs []model.Execution
		want  string // id[child mark][gap ms], in order
	}{
		{"by start", []model.Execution{ex("b", 2, 1, ""), ex("a", 0, 1, ""), ex("c", 5, 1, "")},
			"a b+1000 c+2000"},
		{"children under their parent", []model.Execution{
			ex("p", 0, 10, ""), ex("other", 1, 0.5, ""), ex("c1", 2, 1, "p"), ex("c2", 4, 1, "p"), ex("late", 12, 1, ""),
		}, "p └c1+2000 └c2+1000 other-9000 late+2000"},
		{"parent outside the list", []model.Execution{ex("c", 1, 1, "gone"), ex("a", 0, 0.5, "")},
			"a c+500"},
		{"a cycle of parents", []model.Execution{ex("x", 0, 1, "y"), ex("y", 1, 1, "x")},
			"x └y+1000"}, // a child counts from its parent's start
		{"no end recorded", []model.Execution{ex("a", 0, 0, ""), ex("b", 1, 1, "")},
			"a b+1000"}, // an execution without an end counts from its start
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range Timeline(tt.execs) {
				w := tt.execs[s.Index].ID
				if s.Child {
					w = "└" + w
				}
				if s.HasGap {
					ms := s.Gap.Milliseconds()
					if ms >= 0 {
						w += "+"
					}
					w += strconv.FormatInt(ms, 10)
				}
				got = append(got, w)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}
