package window

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/pace"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// history generates n executions over two hours with duplicate bursts (a write repeated with
// the same arguments seconds later, as SDK retries and double submits are), reads, failures
// and timeouts, in no particular order.
func history(seed uint64, n int) []model.Execution {
	r := rand.New(rand.NewPCG(seed, 1))
	tools := []string{"GMAIL_SEND_EMAIL", "SLACK_SEND_MESSAGE", "GMAIL_FETCH_EMAILS", "GITHUB_CREATE_AN_ISSUE"}
	var out []model.Execution
	for len(out) < n {
		var e model.Execution
		if len(out) > 0 && r.IntN(4) == 0 {
			e = out[len(out)-1] // a repeat of the previous call
			e.StartTime = e.StartTime.Add(time.Duration(400+r.IntN(4000)) * time.Millisecond)
			e.RetryCount = r.IntN(3)
		} else {
			e = model.Execution{ToolSlug: tools[r.IntN(len(tools))], ConnectedAccountID: fmt.Sprintf("ca_%d", r.IntN(5)),
				UserID: fmt.Sprintf("user_%d", r.IntN(3)), StartTime: t0.Add(time.Duration(r.IntN(7200_000)) * time.Millisecond),
				Arguments: json.RawMessage(fmt.Sprintf(`{"to":"u%d@example.com","n":%d}`, r.IntN(3), r.IntN(2))), RetryCount: -1}
			e.ToolkitSlug = map[bool]string{true: "gmail", false: "slack"}[e.ToolSlug[0] == 'G']
		}
		e.ID = fmt.Sprintf("log_%05d", len(out))
		e.Timestamp = e.StartTime
		e.Detailed = true
		e.Duration, e.HasDuration = time.Duration(50+r.IntN(70_000))*time.Millisecond, true
		e.Status, e.Error = "success", nil
		switch r.IntN(6) {
		case 0:
			e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrTimeout, Message: "timed out after 60 s"}
		case 1:
			e.Status, e.Error = "failed", &model.ExecError{Kind: model.ErrValidation, Message: "missing field"}
		}
		if r.IntN(10) == 0 {
			e.SDKVersion, e.Source = "0.15.1", model.Source{Language: "python"}
		}
		out = append(out, e)
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// stream cuts the executions into pages of random size and sends some again: as list
// entries (which must not replace the detail) and with a later status (which must). It
// returns the pages and each id's final record.
func stream(seed uint64, execs []model.Execution) ([][]model.Execution, map[string]model.Execution) {
	r := rand.New(rand.NewPCG(seed, 2))
	final := map[string]model.Execution{}
	var all []model.Execution
	for _, e := range execs {
		all = append(all, e)
		final[e.ID] = e
	}
	for _, e := range execs {
		switch r.IntN(10) {
		case 0: // the list entry of a record sent in detail before
			entry := e
			entry.Detailed, entry.Arguments, entry.Error, entry.Status = false, nil, nil, "success"
			all = append(all, entry)
		case 1: // a record sent again with its final status
			done := e
			done.Status, done.Error = "success", nil
			all = append(all, done)
			final[e.ID] = done
		}
	}
	var pages [][]model.Execution
	for len(all) > 0 {
		k := min(1+r.IntN(300), len(all))
		pages = append(pages, slices.Clone(all[:k]))
		all = all[k:]
	}
	return pages, final
}

func fetcher(final map[string]model.Execution) Fetcher {
	return func(_ context.Context, id string) (model.Execution, error) {
		e, ok := final[id]
		if !ok {
			return model.Execution{}, fmt.Errorf("no %s", id)
		}
		return e, nil
	}
}

// state is everything a dataset shows, for comparing two.
func state(t *testing.T, ds *Dataset) string {
	t.Helper()
	var b []byte
	b = fmt.Appendf(b, "len %d flagged %d writes %d hist %v %v %v %v\n", ds.Len(), ds.Flagged, ds.Writes,
		ds.Hist.From.UnixNano(), ds.Hist.To.UnixNano(), ds.Hist.Execs, ds.Hist.Flagged)
	for i := range ds.Len() {
		b = fmt.Appendf(b, "%d %+v %+v\n", i, ds.Exec(i), ds.Triage(i))
	}
	for gi, g := range ds.Groups {
		b = fmt.Appendf(b, "group %+v members %v\n", g, ds.Members[gi])
	}
	for _, text := range []string{"send", "gm", "user:user_1", "outcome:ambiguous", "group:yes", "group:dup", "-flagged:no timed", "slack ca_3"} {
		q, err := filter.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		b = fmt.Appendf(b, "%s %v\n", text, ds.Matches(q, nil))
	}
	for _, v := range []View{{}, {FlaggedOnly: true}, {WritesOnly: true}, {Duplicates: true}} {
		b = fmt.Appendf(b, "%+v %v\n", v, Select(ds, v, nil))
	}
	return string(b)
}

// TestBuilderEqualsBuild: pages streamed into a Builder, in any order, with records sent again
// (list entries after details, later statuses), give exactly the dataset that Build makes from
// the final records with triage.Analyze: order, rows, triage and reasons, duplicate groups,
// counts, histogram, filter results and list rows.
func TestBuilderEqualsBuild(t *testing.T) {
	for seed := range uint64(4) {
		execs := history(seed, 4000)
		pages, final := stream(seed, execs)
		b := NewBuilder(triage.NewKinds(), triage.Options{})
		for _, p := range pages {
			b.Add(p)
			if len(p)%7 == 0 {
				b.Snapshot() // snapshots along the way change nothing
			}
		}
		if err := b.Groups(context.Background(), fetcher(final)); err != nil {
			t.Fatal(err)
		}
		got := b.Snapshot()
		var finals []model.Execution
		for _, e := range final {
			finals = append(finals, e)
		}
		want := Build(finals, nil, analyzer)
		if len(want.Groups) < 20 || want.Flagged == 0 {
			t.Fatalf("seed %d: a weak fixture: %d groups, %d flagged", seed, len(want.Groups), want.Flagged)
		}
		if g, w := state(t, got), state(t, want); g != w {
			t.Fatalf("seed %d: the builder's dataset differs from Build's:\n%s", seed, firstDiff(g, w))
		}
		if b.Len() != len(final) {
			t.Errorf("builder holds %d executions, want %d", b.Len(), len(final))
		}
		for _, id := range []string{"log_00000", "log_01234", "log_03999"} {
			if i := got.Index(id); i < 0 || got.ID(i) != id {
				t.Errorf("Index(%s) = %d", id, i)
			}
		}
	}
}

func firstDiff(a, b string) string {
	la, lb := splitLines(a), splitLines(b)
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "got  " + la[i] + "\nwant " + lb[i]
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(la), len(lb))
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		s = s[min(i+1, len(s)):]
	}
	return out
}

// TestSnapshotIsImmutable: a dataset reads the same while its builder goes on adding, finding
// groups and snapshotting on another goroutine (run with -race, which also checks that the
// shared rows are never written under a reader).
func TestSnapshotIsImmutable(t *testing.T) {
	b, pages, final, half := halfLoaded(9, 3000)
	if err := b.Groups(context.Background(), fetcher(final)); err != nil {
		t.Fatal(err)
	}
	ds := b.Snapshot()
	before := state(t, ds)
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, p := range pages[half:] {
			b.Add(p)
			b.Snapshot()
		}
		_ = b.Groups(context.Background(), fetcher(final))
		b.Snapshot()
	})
	for range 3 {
		if got := state(t, ds); got != before {
			t.Fatalf("the dataset changed under its reader:\n%s", firstDiff(got, before))
		}
	}
	wg.Wait()
	if got := state(t, ds); got != before {
		t.Fatalf("the dataset changed after its builder went on:\n%s", firstDiff(got, before))
	}
	if after := b.Snapshot(); after.Len() <= ds.Len() {
		t.Errorf("the later snapshot has %d executions, the earlier %d", after.Len(), ds.Len())
	}
}

// TestGroupsErrorKeepsPreviousGroups: a failed re-read leaves the groups found before.
func TestGroupsErrorKeepsPreviousGroups(t *testing.T) {
	execs := history(3, 2000)
	b := NewBuilder(triage.NewKinds(), triage.Options{})
	b.Add(execs)
	final := map[string]model.Execution{}
	for _, e := range execs {
		final[e.ID] = e
	}
	if err := b.Groups(context.Background(), fetcher(final)); err != nil {
		t.Fatal(err)
	}
	n := len(b.Snapshot().Groups)
	if n == 0 {
		t.Fatal("no groups in the fixture")
	}
	if err := b.Groups(context.Background(), fetcher(nil)); err == nil {
		t.Fatal("a failing fetch gave no error")
	}
	if got := len(b.Snapshot().Groups); got != n {
		t.Errorf("%d groups after a failed Groups, had %d", got, n)
	}
}

// TestIndexAcrossReplacement: a dataset made before a record arrived again still finds its
// own copy by id (the retry dialog looks the execution up while the next snapshot is being
// built), and the next dataset finds the new copy.
func TestIndexAcrossReplacement(t *testing.T) {
	b := NewBuilder(triage.NewKinds(), triage.Options{})
	e := ex("log_x", 0, "GMAIL_SEND_EMAIL", "failed", model.ErrTimeout, `{"to":"a"}`)
	b.Add([]model.Execution{e, ex("log_y", time.Second, "GMAIL_SEND_EMAIL", "success", "", `{"to":"b"}`)})
	before := b.Snapshot()
	done := e
	done.Status, done.Error = "success", nil
	b.Add([]model.Execution{done, done}) // twice: a chain of replacements
	if i := before.Index("log_x"); i < 0 || before.Exec(i).Status != "failed" {
		t.Fatalf("the earlier dataset lost its own copy: Index = %d", i)
	}
	after := b.Snapshot()
	if i := after.Index("log_x"); i < 0 || after.Exec(i).Status != "success" || after.Len() != 2 {
		t.Fatalf("the later dataset: Index = %d, %d executions", i, after.Len())
	}
	if before.Index("log_z") != -1 || after.Index("") != -1 {
		t.Error("an unknown id was found")
	}
}

// TestIndexHashCollision: an id whose hash another id holds is found through the map of
// its own, before and after it is replaced.
func TestIndexHashCollision(t *testing.T) {
	b := NewBuilder(triage.NewKinds(), triage.Options{})
	b.Add([]model.Execution{ex("log_a", 0, "GMAIL_SEND_EMAIL", "success", "", `{}`)})
	// Make log_b's hash point at log_a's row, as a collision would.
	b.ids.byH.Put(b.ids.hash("log_b"), 0)
	b.Add([]model.Execution{ex("log_b", time.Second, "GMAIL_SEND_EMAIL", "failed", model.ErrTimeout, `{}`)})
	ds := b.Snapshot()
	if len(b.ids.other) != 1 {
		t.Fatalf("the colliding id is not in the other map: %v", b.ids.other)
	}
	for _, id := range []string{"log_a", "log_b"} {
		if i := ds.Index(id); i < 0 || ds.ID(i) != id {
			t.Errorf("Index(%s) = %d", id, i)
		}
	}
	done := ex("log_b", time.Second, "GMAIL_SEND_EMAIL", "success", "", `{}`)
	b.Add([]model.Execution{done})
	if after := b.Snapshot(); after.Len() != 2 || after.Exec(after.Index("log_b")).Status != "success" {
		t.Errorf("the colliding id was not replaced: %d executions", after.Len())
	}
	if i := ds.Index("log_b"); i < 0 || ds.Exec(i).Status != "failed" {
		t.Errorf("the earlier dataset lost the colliding id's row: %d", i)
	}
}

// TestBuilderEqualsBuildProperty: for small random histories (few ids, so records arrive
// again often; list entries before and after details; zero times; empty ids) cut into random
// pages, the builder's dataset equals Build's over the records that win.
func TestBuilderEqualsBuildProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(rt, "n")
		tools := []string{"GMAIL_SEND_EMAIL", "SLACK_SEND_MESSAGE", "GMAIL_FETCH_EMAILS"}
		var all []model.Execution
		for range n {
			e := model.Execution{
				ID:                 rapid.SampledFrom([]string{"", "log_a", "log_b", "log_c", "log_d", "log_e", "log_f"}).Draw(rt, "id"),
				ToolSlug:           rapid.SampledFrom(tools).Draw(rt, "tool"),
				ConnectedAccountID: rapid.SampledFrom([]string{"ca_1", "ca_2"}).Draw(rt, "account"),
				Status:             rapid.SampledFrom([]string{"success", "failed", ""}).Draw(rt, "status"),
				Detailed:           rapid.Bool().Draw(rt, "detailed"),
				RetryCount:         -1,
			}
			if at := rapid.IntRange(-1, 600).Draw(rt, "at"); at >= 0 {
				e.Timestamp = t0.Add(time.Duration(at) * time.Second)
				e.StartTime = e.Timestamp
			}
			if e.Detailed {
				e.Arguments = json.RawMessage(rapid.SampledFrom([]string{`{"to":"a"}`, `{"to":"b"}`}).Draw(rt, "args"))
			}
			if e.Status == "failed" {
				e.Error = &model.ExecError{Kind: model.ErrTimeout, Message: "timed out"}
			}
			all = append(all, e)
		}
		b := NewBuilder(triage.NewKinds(), triage.Options{})
		final := map[string]model.Execution{}
		for rest := all; len(rest) > 0; {
			k := rapid.IntRange(1, len(rest)).Draw(rt, "page")
			b.Add(slices.Clone(rest[:k]))
			if rapid.Bool().Draw(rt, "snapshot") {
				b.Snapshot()
			}
			rest = rest[k:]
		}
		// The records that win, by the rule Build applies: a later copy replaces an earlier
		// one unless the earlier is a detail and the later only a list entry.
		var order []string
		for _, e := range all {
			if e.ID == "" {
				continue
			}
			if cur, ok := final[e.ID]; ok {
				if cur.Detailed && !e.Detailed {
					continue
				}
			} else {
				order = append(order, e.ID)
			}
			final[e.ID] = e
		}
		if err := b.Groups(context.Background(), fetcher(final)); err != nil {
			rt.Fatal(err)
		}
		var finals []model.Execution
		for _, id := range order {
			finals = append(finals, final[id])
		}
		if g, w := state(t, b.Snapshot()), state(t, Build(finals, nil, analyzer)); g != w {
			rt.Fatalf("the builder's dataset differs from Build's:\n%s", firstDiff(g, w))
		}
	})
}

// TestUnchangedRecordsTakeNoRow: a reload or a refresh's overlap sends records the builder
// has: an unchanged one is skipped (rows are never freed, so a follow mode or a reloaded file
// would otherwise grow without bound); a changed one replaces its row.
func TestUnchangedRecordsTakeNoRow(t *testing.T) {
	execs := history(5, 2000)
	b := NewBuilder(triage.NewKinds(), triage.Options{})
	b.Add(execs)
	rows := b.sum.Len()
	for range 3 { // reloaded three times
		b.Add(slices.Clone(execs))
	}
	if b.sum.Len() != rows {
		t.Fatalf("%d rows after reloading %d unchanged records, had %d", b.sum.Len(), len(execs), rows)
	}
	changed := slices.Clone(execs[:10])
	for i := range changed {
		changed[i].Status, changed[i].Error = "success", nil
		changed[i].Duration += time.Second // finished later than first recorded
	}
	b.Add(changed)
	if b.sum.Len() != rows+10 || b.Len() != len(execs) {
		t.Fatalf("%d rows (%d live) after 10 changed records, had %d", b.sum.Len(), b.Len(), rows)
	}
	ds := b.Snapshot()
	if i := ds.Index(changed[3].ID); i < 0 || ds.Exec(i).Status != "success" {
		t.Errorf("a changed record did not replace its row")
	}
}

// Add waits at its gate while the loop holds it (between slices of a batch), and goes on,
// every record added, once the gate opens.
func TestBuilderAddWaitsAtTheGate(t *testing.T) {
	execs := history(7, 3*addSlice)
	b := NewBuilder(triage.NewKinds(), triage.Options{})
	var gate pace.Gate
	b.WaitAt(&gate)
	gate.Hold(time.Hour)
	done := make(chan struct{})
	go func() { b.Add(execs); close(done) }()
	select {
	case <-done:
		t.Fatal("Add finished while the gate was held")
	case <-time.After(100 * time.Millisecond):
	}
	gate.Release()
	<-done
	if b.Len() != len(execs) {
		t.Fatalf("%d rows after the release, want %d", b.Len(), len(execs))
	}
	// The same records through a builder without a gate give the same dataset.
	ref := NewBuilder(triage.NewKinds(), triage.Options{})
	ref.Add(execs)
	a, r := b.Snapshot(), ref.Snapshot()
	if a.Len() != r.Len() {
		t.Fatalf("a held Add built %d rows, the reference %d", a.Len(), r.Len())
	}
	for i := range a.Len() {
		if a.ID(i) != r.ID(i) || a.Triage(i) != r.Triage(i) {
			t.Fatalf("row %d: %s %+v, the reference's %s %+v", i, a.ID(i), a.Triage(i), r.ID(i), r.Triage(i))
		}
	}
}

// halfLoaded is a builder given the first half of the pages of n executions of history seed.
func halfLoaded(seed uint64, n int) (b *Builder, pages [][]model.Execution, final map[string]model.Execution, half int) {
	pages, final = stream(seed, history(seed, n))
	b = NewBuilder(triage.NewKinds(), triage.Options{})
	half = len(pages) / 2
	for _, p := range pages[:half] {
		b.Add(p)
	}
	return b, pages, final, half
}

// Once a load is in (Groups and a snapshot), the builder gives back what it needed only while
// loading (the symbols' cache), and goes on as before: pages added after it
// give the dataset one pass over them all gives.
func TestGroupsGivesBackTheRoom(t *testing.T) {
	b, pages, final, half := halfLoaded(11, 40_000)
	b.Snapshot()
	if err := b.Groups(context.Background(), fetcher(final)); err != nil {
		t.Fatal(err)
	}
	b.Snapshot()
	if b.sum.syms.tab.HasCache() {
		t.Error("after the load: the symbols' cache was kept")
	}
	for _, p := range pages[half:] {
		b.Add(p)
	}
	if err := b.Groups(context.Background(), fetcher(final)); err != nil {
		t.Fatal(err)
	}
	one := NewBuilder(triage.NewKinds(), triage.Options{})
	for _, p := range pages {
		one.Add(p)
	}
	if err := one.Groups(context.Background(), fetcher(final)); err != nil {
		t.Fatal(err)
	}
	if got, want := state(t, b.Snapshot()), state(t, one.Snapshot()); !reflect.DeepEqual(got, want) {
		t.Fatal("the trimmed builder's dataset differs from one pass's")
	}
}

// Reserve makes room for a load's rows at once: adding them grows no per-row array (each
// stays where it was), and the dataset is the one a builder growing as it goes gives.
func TestReserveMakesRoomOnce(t *testing.T) {
	pages, final := stream(5, history(5, 6000))
	n := 0
	for _, p := range pages {
		n += len(p)
	}
	b := NewBuilder(triage.NewKinds(), triage.Options{})
	b.Reserve(n)
	arrays := func() []any {
		return []any{unsafe.SliceData(b.sum.rows), unsafe.SliceData(b.sum.ids), unsafe.SliceData(b.reason),
			unsafe.SliceData(b.note), unsafe.SliceData(b.sig)}
	}
	before := arrays()
	for i, p := range pages {
		b.Add(p)
		if i == len(pages)/2 {
			b.Snapshot()
		}
	}
	if after := arrays(); !reflect.DeepEqual(after, before) {
		t.Errorf("per-row arrays moved while adding the %d records room was made for: %v, then %v", n, before, after)
	}
	if err := b.Groups(context.Background(), fetcher(final)); err != nil {
		t.Fatal(err)
	}
	grown := NewBuilder(triage.NewKinds(), triage.Options{})
	for _, p := range pages {
		grown.Add(p)
	}
	if err := grown.Groups(context.Background(), fetcher(final)); err != nil {
		t.Fatal(err)
	}
	if got, want := state(t, b.Snapshot()), state(t, grown.Snapshot()); got != want {
		t.Fatalf("the dataset differs from a growing builder's:\n%s", firstDiff(got, want))
	}
	// More room on a builder with rows: the ids' room follows the length of those it holds.
	b.Reserve(b.sum.Len() + 100_000)
	if got := cap(b.sum.ids) - len(b.sum.ids); got < 100_000*len("log_00000") {
		t.Errorf("room for %d id bytes after reserving 100,000 more rows", got)
	}
	if got := cap(b.sum.rows) - len(b.sum.rows); got < 100_000 {
		t.Errorf("room for %d rows after reserving 100,000 more", got)
	}
	rows := unsafe.SliceData(b.sum.rows)
	b.Reserve(10) // fewer than it holds: nothing changes
	if unsafe.SliceData(b.sum.rows) != rows {
		t.Error("reserving fewer rows than the builder holds moved its rows")
	}
}
