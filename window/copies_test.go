package window

import (
	"slices"
	"testing"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// A loaded window keeps one copy of each log id, the one every builder keeps, in the order the
// records arrived (KeepLatest).
func TestKeepLatestKeepsArrivalOrder(t *testing.T) {
	rec := func(id, status string, detailed bool) model.Execution {
		return model.Execution{ID: id, Status: status, Detailed: detailed}
	}
	in := []model.Execution{rec("a", "entry", false), rec("b", "s", true), rec("c", "1", true), rec("a", "whole", true),
		rec("c", "2", true), rec("d", "s", true), rec("c", "3", false)}
	out, dropped := KeepLatest(slices.Clone(in))
	var got []string
	for _, e := range out {
		got = append(got, e.ID+":"+e.Status)
	}
	if want := []string{"b:s", "a:whole", "c:2", "d:s"}; !slices.Equal(got, want) || dropped != 3 {
		t.Errorf("kept %v (%d dropped), want %v (3)", got, dropped, want)
	}
}

// TestEveryBuilderKeepsTheSameCopy: records sharing a log id are one execution, and every way a
// window is built keeps the same copy of it (the later one, unless it is only a list entry of a
// record kept whole) and counts the same copies: LatestCopies (a loaded window's), a window
// streamed once (scan's, which looks for copies when the load is in) and the TUI's (which
// replaces a row on arrival), in one batch or a record at a time.
func TestEveryBuilderKeepsTheSameCopy(t *testing.T) {
	rec := func(id, status string, detailed bool) model.Execution {
		return model.Execution{ID: id, Status: status, Detailed: detailed}
	}
	tests := []struct {
		name   string
		in     []model.Execution
		want   []string // id:status kept, sorted
		copies int
	}{
		{"no copies", []model.Execution{rec("a", "s", true), rec("b", "s", true)}, []string{"a:s", "b:s"}, 0},
		{"an identical copy", []model.Execution{rec("a", "s", true), rec("b", "s", true), rec("a", "s", true)}, []string{"a:s", "b:s"}, 1},
		{"a later status", []model.Execution{rec("a", "", true), rec("a", "failed", true)}, []string{"a:failed"}, 1},
		{"a list entry after the whole record", []model.Execution{rec("a", "whole", true), rec("a", "entry", false)}, []string{"a:whole"}, 1},
		{"a list entry before the whole record", []model.Execution{rec("a", "entry", false), rec("b", "s", false), rec("a", "whole", true)}, []string{"a:whole", "b:s"}, 1},
		{"three copies", []model.Execution{rec("a", "1", true), rec("a", "2", true), rec("a", "3", false)}, []string{"a:2"}, 2},
		{"the same record again at once", []model.Execution{rec("a", "s", false), rec("a", "s", false), rec("b", "s", true)}, []string{"a:s", "b:s"}, 1},
		{"the same record many times", append(slices.Repeat([]model.Execution{rec("a", "s", false)}, 500), rec("b", "s", true), rec("a", "t", true)), []string{"a:t", "b:s"}, 500},
		{"the same id at once, another field", []model.Execution{rec("a", "1", false), {ID: "a", Status: "1", ToolSlug: "X"}}, []string{"a:1"}, 1},
	}
	kept := func(ds *Dataset) []string {
		var out []string
		for i := range ds.Len() {
			e := ds.Exec(i)
			out = append(out, e.ID+":"+e.Status)
		}
		slices.Sort(out)
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dead, n := LatestCopies(len(tt.in), func(i int) string { return tt.in[i].ID }, func(i int) bool { return tt.in[i].Detailed })
			var latest []string
			for i, e := range tt.in {
				if !bit(dead, int32(i)) {
					latest = append(latest, e.ID+":"+e.Status)
				}
			}
			slices.Sort(latest)
			if !slices.Equal(latest, tt.want) || n != tt.copies {
				t.Errorf("LatestCopies kept %v (%d copies), want %v (%d)", latest, n, tt.want, tt.copies)
			}
			builders := map[string]func() *Builder{
				"streamed once": func() *Builder { return NewStream(nil, triage.Options{}) },
				"the TUI's":     func() *Builder { return NewBuilder(nil, triage.Options{}) },
			}
			for name, mk := range builders {
				for _, oneByOne := range []bool{false, true} {
					b := mk()
					if oneByOne {
						for _, e := range tt.in {
							b.AddLocated([]model.Execution{e}, nil)
						}
					} else {
						b.AddLocated(slices.Clone(tt.in), nil)
					}
					if got := kept(b.Snapshot()); !slices.Equal(got, tt.want) || b.Copies() != tt.copies {
						t.Errorf("%s (one by one %v) kept %v (%d copies), want %v (%d)", name, oneByOne, got, b.Copies(), tt.want, tt.copies)
					}
				}
			}
		})
	}
}
