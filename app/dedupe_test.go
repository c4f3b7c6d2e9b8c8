package app

import (
	"slices"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestOneCopyOfEachID (issue 29): records sharing a log id are one execution, the copy the
// TUI's store keeps: the later one, unless it is only a list entry of a record kept whole; the
// order of the rest is kept.
func TestOneCopyOfEachID(t *testing.T) {
	rec := func(id, status string, detailed bool) model.Execution {
		return model.Execution{ID: id, Status: status, Detailed: detailed}
	}
	tests := []struct {
		name    string
		in      []model.Execution
		want    []string // id:status kept, in order
		dropped int
	}{
		{"no copies", []model.Execution{rec("a", "s", true), rec("b", "s", true)}, []string{"a:s", "b:s"}, 0},
		{"an identical copy", []model.Execution{rec("a", "s", true), rec("b", "s", true), rec("a", "s", true)}, []string{"b:s", "a:s"}, 1},
		{"a later status", []model.Execution{rec("a", "", true), rec("a", "failed", true)}, []string{"a:failed"}, 1},
		{"a list entry after the whole record", []model.Execution{rec("a", "whole", true), rec("a", "entry", false)}, []string{"a:whole"}, 1},
		{"a list entry before the whole record", []model.Execution{rec("a", "entry", false), rec("b", "s", false), rec("a", "whole", true)}, []string{"b:s", "a:whole"}, 1},
		{"three copies", []model.Execution{rec("a", "1", true), rec("a", "2", true), rec("a", "3", false)}, []string{"a:2"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, dropped := dedupeExecs(slices.Clone(tt.in))
			var got []string
			for _, e := range out {
				got = append(got, e.ID+":"+e.Status)
			}
			if !slices.Equal(got, tt.want) || dropped != tt.dropped {
				t.Errorf("kept %v (%d dropped), want %v (%d)", got, dropped, tt.want, tt.dropped)
			}
		})
	}
}
