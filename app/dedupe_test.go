package app

import (
	"slices"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestOneCopyOfEachID (issue 29): a loaded window keeps one copy of each log id, the one every
// front keeps (window.LatestCopies, whose cases window/copies_test.go holds), in the order the
// records arrived.
func TestOneCopyOfEachID(t *testing.T) {
	rec := func(id, status string, detailed bool) model.Execution {
		return model.Execution{ID: id, Status: status, Detailed: detailed}
	}
	in := []model.Execution{rec("a", "entry", false), rec("b", "s", true), rec("c", "1", true), rec("a", "whole", true),
		rec("c", "2", true), rec("d", "s", true), rec("c", "3", false)}
	out, dropped := dedupeExecs(slices.Clone(in))
	var got []string
	for _, e := range out {
		got = append(got, e.ID+":"+e.Status)
	}
	if want := []string{"b:s", "a:whole", "c:2", "d:s"}; !slices.Equal(got, want) || dropped != 3 {
		t.Errorf("kept %v (%d dropped), want %v (3)", got, dropped, want)
	}
}
