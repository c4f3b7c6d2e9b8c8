package window

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func analyzer(execs []model.Execution) Analysis {
	r := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
	return Analysis{Triage: r.Triage, Groups: r.Groups}
}

func ex(id string, at time.Duration, tool, status string, kind model.ErrorKind, args string) model.Execution {
	e := model.Execution{ID: id, Timestamp: t0.Add(at), StartTime: t0.Add(at), ToolSlug: tool, ToolkitSlug: "gmail",
		ConnectedAccountID: "ca_1", UserID: "u1", Status: status, Duration: time.Second, HasDuration: true,
		Arguments: json.RawMessage(args), Detailed: true, RetryCount: -1}
	if kind != "" {
		e.Error = &model.ExecError{Kind: kind, Message: string(kind)}
	}
	return e
}

// fixture: an SDK auto-retry burst of a timed-out send, a read, and an unrelated success.
func fixture() []model.Execution {
	return []model.Execution{
		ex("log_a", 0, "GMAIL_SEND_EMAIL", "failed", model.ErrTimeout, `{"to":"x@y","subject":"hi"}`),
		ex("log_b", 61500*time.Millisecond, "GMAIL_SEND_EMAIL", "failed", model.ErrTimeout, `{"to":"x@y","subject":"hi"}`),
		ex("log_c", 3*time.Minute, "GMAIL_FETCH_EMAILS", "success", "", `{}`),
		ex("log_d", 5*time.Minute, "SLACK_SEND_MESSAGE", "success", "", `{"channel":"c","text":"t"}`),
	}
}

func TestBuildSortsNewestFirstAndMergesByID(t *testing.T) {
	base := fixture()
	updated := base[1]
	updated.Status = "success"
	updated.Error = nil
	ds := Build(base, []model.Execution{updated, ex("log_e", 10*time.Minute, "GMAIL_SEND_EMAIL", "success", "", `{"to":"z"}`)}, analyzer)
	var ids []string
	for i := range ds.Len() {
		ids = append(ids, ds.ID(i))
	}
	if got := fmt.Sprint(ids); got != "[log_e log_d log_c log_b log_a]" {
		t.Fatalf("order = %s", got)
	}
	if ds.Exec(ds.Index("log_b")).Status != "success" {
		t.Error("the newer record did not replace the older")
	}
	if base[1].Status != "failed" {
		t.Error("Build modified its input")
	}
	if ds.Index("nope") != -1 {
		t.Error("Index of an unknown id")
	}
}

func TestBuildKeepsDetailOverALaterListEntry(t *testing.T) {
	full := fixture()[0]
	entry := full
	entry.Detailed, entry.Arguments, entry.Status = false, nil, "success"
	ds := Build([]model.Execution{full}, []model.Execution{entry}, analyzer)
	if ds.Len() != 1 || ds.Exec(0).Status != "failed" {
		t.Error("a list entry replaced a detail record")
	}
}

func TestSelect(t *testing.T) {
	ds := Build(fixture(), nil, analyzer)
	if ds.Flagged != 2 || len(ds.Groups) != 1 || ds.Writes != 3 {
		t.Fatalf("flagged %d groups %d writes %d", ds.Flagged, len(ds.Groups), ds.Writes)
	}
	_, keep := matchSet(t, ds, "slack")
	tests := []struct {
		name  string
		v     View
		match func(int) bool
		want  string
	}{
		{"all", View{}, nil, "[E:log_d E:log_c E:log_b E:log_a]"},
		{"flagged only", View{FlaggedOnly: true}, nil, "[E:log_b E:log_a]"},
		{"writes only", View{WritesOnly: true}, nil, "[E:log_d E:log_b E:log_a]"},
		{"filter", View{}, func(i int) bool { return keep[i] }, "[E:log_d]"},
		{"duplicates", View{Duplicates: true}, nil, "[G:log_b M:log_a M:log_b]"},
		{"duplicates collapsed", View{Duplicates: true, Collapsed: map[string]bool{ds.Groups[0].ID: true}}, nil, "[G:log_b]"},
		{"duplicates filtered away", View{Duplicates: true}, func(i int) bool { return keep[i] }, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, it := range Select(ds, tt.v, tt.match) {
				k := map[ItemKind]string{ItemExec: "E", ItemGroup: "G", ItemMember: "M"}[it.Kind]
				got = append(got, k+":"+ds.ID(int(it.Exec)))
			}
			if s := fmt.Sprint(got); s != tt.want && !(len(got) == 0 && tt.want == "[]") {
				t.Errorf("got %s, want %s", s, tt.want)
			}
		})
	}
}

// SelectItems gives the rows Select gives, holding no slice for the view of every execution.
func TestSelectItemsIsSelect(t *testing.T) {
	ds := Build(fixture(), nil, analyzer)
	for _, v := range []View{{}, {FlaggedOnly: true}, {WritesOnly: true}, {Duplicates: true}} {
		it := SelectItems(ds, v)
		want := Select(ds, v, nil)
		if got := it.Slice(); !slices.Equal(got, want) || it.Len() != len(want) {
			t.Errorf("%+v: %v, Select says %v", v, got, want)
		}
		if whole := !v.FlaggedOnly && !v.WritesOnly && !v.Duplicates; it.Whole() != whole {
			t.Errorf("%+v: whole %v", v, it.Whole())
		}
	}
	if n := (Items{}).Len(); n != 0 {
		t.Errorf("no items: %d", n)
	}
}

func TestHistogramCountsEveryExecution(t *testing.T) {
	ds := Build(fixture(), nil, analyzer)
	var n, f int32
	for b := range HistBuckets {
		n += ds.Hist.Execs[b]
		f += ds.Hist.Flagged[b]
	}
	if n != 4 || f != 2 {
		t.Errorf("histogram holds %d executions, %d flagged", n, f)
	}
	if ds.Hist.Execs[HistBuckets-1] == 0 || ds.Hist.Execs[0] == 0 {
		t.Error("the newest and oldest executions should sit in the last and first buckets")
	}
}

func BenchmarkBuild100k(b *testing.B) {
	execs := make([]model.Execution, 100_000)
	for i := range execs {
		execs[i] = ex(fmt.Sprintf("log_%06d", i), time.Duration(i)*time.Second, "GMAIL_SEND_EMAIL", "success", "", fmt.Sprintf(`{"n":%d}`, i%5000))
	}
	b.ResetTimer()
	for b.Loop() {
		Build(execs, nil, analyzer)
	}
}

// SelectMatches gives the same rows as Select with a match function, for every toggle and
// several queries.
func TestSelectMatchesEqualsSelect(t *testing.T) {
	ds := Build(fixture(), nil, analyzer)
	for _, text := range []string{"gmail", "send", "slack", "user:u1", "nothing-matches"} {
		pos, keep := matchSet(t, ds, text)
		for _, v := range []View{{}, {FlaggedOnly: true}, {WritesOnly: true}, {Duplicates: true}, {Duplicates: true, FlaggedOnly: true}} {
			want := Select(ds, v, func(i int) bool { return keep[i] })
			got := SelectMatches(ds, v, pos)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%q %+v: SelectMatches %v, Select %v", text, v, got, want)
			}
			if items := SelectMatchItems(ds, v, pos); fmt.Sprint(rowsOf(items)) != fmt.Sprint(want) {
				t.Errorf("%q %+v: SelectMatchItems %v, Select %v", text, v, rowsOf(items), want)
			}
		}
	}
}

// A filter's matches in a view that shows executions as they come are the list's rows as
// they are: no row is made until the list reads it (at 1M, the 16 MB of rows a broad query's
// matches made cost a key 30-70 ms, most of it the fresh memory's page faults).
func TestMatchedRowsAreReadFromTheMatches(t *testing.T) {
	ds := Build(fixture(), nil, analyzer)
	pos, _ := matchSet(t, ds, "gmail")
	if len(pos) < 2 {
		t.Fatalf("%d matches", len(pos))
	}
	var items Items
	if allocs := testing.AllocsPerRun(20, func() { items = SelectMatchItems(ds, View{}, pos) }); allocs != 0 {
		t.Errorf("SelectMatchItems made %.0f allocations for the plain view", allocs)
	}
	if items.Whole() || items.Len() != len(pos) || int(items.At(1).Exec) != pos[1] {
		t.Errorf("rows: whole %v, %d rows, second %d; want %d rows, second %d", items.Whole(), items.Len(),
			items.At(1).Exec, len(pos), pos[1])
	}
}

// rowsOf reads every row of items, as the list does, whatever holds them.
func rowsOf(items Items) []Item {
	out := make([]Item, items.Len())
	for i := range out {
		out[i] = items.At(i)
	}
	return out
}

func TestViewRanks(t *testing.T) {
	text, _ := filter.Parse("gmail send")
	field, _ := filter.Parse("user:u1 -slack")
	tests := []struct {
		name string
		v    View
		q    filter.Query
		n    int
		want bool
	}{
		{"best match with text", View{BestMatch: true}, text, 10, true},
		{"at the cap", View{BestMatch: true}, text, MaxRanked, true},
		{"over the cap", View{BestMatch: true}, text, MaxRanked + 1, false},
		{"newest first", View{}, text, 10, false},
		{"no free text to score", View{BestMatch: true}, field, 10, false},
		{"duplicates view keeps group order", View{BestMatch: true, Duplicates: true}, text, 10, false},
	}
	for _, tt := range tests {
		if got := tt.v.Ranks(tt.q, tt.n); got != tt.want {
			t.Errorf("%s: Ranks = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// matchSet is the positions the filter text matches in ds, as a list and a set.
func matchSet(t *testing.T, ds *Dataset, text string) ([]int, map[int]bool) {
	t.Helper()
	q, err := filter.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	pos := ds.Matches(q, nil)
	keep := map[int]bool{}
	for _, p := range pos {
		keep[p] = true
	}
	return pos, keep
}

// TestChildrenUnderTheirRun: the list shows a meta tool's children right under its
// run, in the order they ran, marked as children; a child whose run is filtered out stays in
// its own place; the selection over given matches nests the same way.
func TestChildrenUnderTheirRun(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	rec := func(id string, at time.Duration, parent string) model.Execution {
		e := model.Execution{ID: id, ToolSlug: "GMAIL_SEND_EMAIL", UserID: "u1", Timestamp: t0.Add(at), StartTime: t0.Add(at), Status: "success", RetryCount: -1}
		if parent != "" {
			e.Parent = &model.Parent{LogID: parent, ToolSlug: "COMPOSIO_MULTI_EXECUTE_TOOL"}
		}
		return e
	}
	run := rec("run", 0, "")
	run.ToolSlug = "COMPOSIO_MULTI_EXECUTE_TOOL"
	execs := []model.Execution{rec("later", 10*time.Second, ""), rec("c2", 3*time.Second, "run"), rec("between", 2*time.Second, ""), rec("c1", time.Second, "run"), run, rec("before", -time.Second, "")}
	b := NewBuilder(nil, triage.Options{})
	b.Add(execs) // newest first, as a source hands them on
	ds := b.Snapshot()
	show := func(items []Item) string {
		var out []string
		for _, it := range items {
			w := ds.ID(int(it.Exec))
			if it.Child {
				w = "└" + w
			}
			out = append(out, w)
		}
		return strings.Join(out, " ")
	}
	if got, want := show(Select(ds, View{}, nil)), "later between run └c1 └c2 before"; got != want {
		t.Errorf("list %q, want %q", got, want)
	}
	if it := SelectItems(ds, View{}); it.Whole() || show(it.Slice()) != "later between run └c1 └c2 before" {
		t.Errorf("SelectItems with runs to nest: whole %v, %q", it.Whole(), show(it.Slice()))
	}
	noRun := func(i int) bool { return ds.ID(i) != "run" }
	if got, want := show(Select(ds, View{}, noRun)), "later c2 between c1 before"; got != want {
		t.Errorf("without the run %q, want %q", got, want)
	}
	var pos []int
	for i := range ds.Len() {
		if ds.ID(i) != "later" {
			pos = append(pos, i)
		}
	}
	if got, want := show(SelectMatches(ds, View{}, pos)), "between run └c1 └c2 before"; got != want {
		t.Errorf("over matches %q, want %q", got, want)
	}
	// the rows read from the matches nest as the slice does; without the run, none moves
	for _, p := range [][]int{pos, slices.DeleteFunc(slices.Clone(pos), func(i int) bool { return ds.ID(i) == "run" })} {
		if got, want := show(rowsOf(SelectMatchItems(ds, View{}, p))), show(SelectMatches(ds, View{}, p)); got != want {
			t.Errorf("SelectMatchItems over %v: %q, SelectMatches %q", p, got, want)
		}
	}
	if got := ds.Children(ds.Index("run")); len(got) != 2 || ds.ID(int(got[0])) != "c1" {
		t.Errorf("Children(run) = %v", got)
	}
}

// A row prints what the record it stands for says: the dataset's compact row and a full record
// (RowOf) give the same strings for every execution, each field of its own (a session, no
// duration, another toolkit).
func TestARowIsWhatItsRecordSays(t *testing.T) {
	execs := fixture()
	execs[1].SessionID, execs[1].HasDuration, execs[1].Duration = "trs_1", false, 0
	execs[2].ToolkitSlug, execs[2].UserID, execs[2].ConnectedAccountID = "other", "", "ca_9"
	execs[3].Duration = 1234 * time.Millisecond
	ds := Build(execs, nil, analyzer)
	for i := range ds.Len() {
		full := execs[slices.IndexFunc(execs, func(e model.Execution) bool { return e.ID == ds.ID(i) })]
		if got, want := ds.Row(i), RowOf(&full); got != want {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got, want)
		}
		e := ds.Exec(i)
		if got, want := ds.Row(i), RowOf(&e); got != want {
			t.Errorf("row %d and Exec differ:\n got %+v\nwant %+v", i, got, want)
		}
	}
}
