package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

// TestListOfAnExportFiltersAsAWholeLoad: list of an export streams it into rows
// with the filter's index, as scan reads it, instead of holding every record; for every shape
// an export comes in and every kind of term, it keeps the same executions in the same order,
// each judged the same, as the whole load it replaced (every record held, an index built
// over them).
func TestListOfAnExportFiltersAsAWholeLoad(t *testing.T) {
	ctx := context.Background()
	for name, file := range scanVariants(t, t.TempDir(), 23, 3000) {
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(nil)
			a, err := app.Open(ctx, app.Options{File: file, Getenv: env.Getenv, Now: env.Now})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if !a.Streams() {
				t.Fatal("an export is not streamed")
			}
			l, err := a.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := a.ScanIndexed(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Len() != len(l.Execs) {
				t.Fatalf("streamed %d executions, whole %d", sc.Len(), len(l.Execs))
			}
			// Terms drawn from the records: each field, free text (words and scattered
			// letters), negation, groups by id and cause.
			queries := []string{"", "flagged:yes", "flagged:no", "kind:write", "-kind:write", "status:failed", "outcome:ambiguous",
				"gmail", "slack send", "gmsnd", "group:yes", "group:no", "settled:no", "error:time", "-status:success gm"}
			for _, i := range []int{0, 7, len(l.Execs) / 2, len(l.Execs) - 1} {
				e := &l.Execs[i]
				queries = append(queries, "tool:"+e.ToolSlug, "toolkit:"+e.ToolkitSlug, "user:"+e.UserID, "id:"+e.ID,
					"account:"+e.ConnectedAccountID, fmt.Sprintf("tool:%s* -user:%s", e.ToolSlug[:4], e.UserID))
				if e.RequestID != "" {
					queries = append(queries, "request:"+e.RequestID)
				}
				if e.Error != nil && len(strings.Fields(e.Error.Message)) > 1 {
					w := strings.Fields(e.Error.Message)
					queries = append(queries, fmt.Sprintf("%q", w[0]+" "+w[1]), "error:"+w[1])
				}
			}
			for _, g := range l.Result.Groups[:min(3, len(l.Result.Groups))] {
				queries = append(queries, "group:"+g.ID, "pattern:"+string(g.Pattern))
			}
			nonEmpty := 0
			for _, qs := range queries {
				q, err := filter.Parse(qs)
				if err != nil {
					t.Fatalf("%q: %v", qs, err)
				}
				want := l.Filter(q)
				got, ok := sc.Filter(q)
				if !ok {
					t.Fatal("the streamed rows carry no filter index")
				}
				if len(want) > 0 {
					nonEmpty++
				}
				if len(got) != len(want) {
					t.Errorf("%q: streamed keeps %d, whole %d", qs, len(got), len(want))
					continue
				}
				for k := range want {
					ge, we := sc.Exec(got[k]), l.Execs[want[k]]
					gt, wt := sc.Triage(got[k]), l.Result.Triage[want[k]]
					if ge.ID != we.ID || gt.Flagged != wt.Flagged || gt.Outcome != wt.Outcome || gt.Kind != wt.Kind ||
						gt.GroupID != wt.GroupID || gt.Reason != wt.Reason {
						t.Errorf("%q, match %d: streamed %s %+v, whole %s %+v", qs, k, ge.ID, gt, we.ID, wt)
						break
					}
				}
			}
			if nonEmpty < len(queries)*2/3 {
				t.Errorf("only %d of %d queries matched anything: the comparison shows little", nonEmpty, len(queries))
			}
			// A whole identifier term being typed: both say the same, naming the values that
			// start so.
			e := &l.Execs[len(l.Execs)/3]
			for _, qs := range []string{"tool:" + e.ToolSlug[:len(e.ToolSlug)-2], "id:" + e.ID[:len(e.ID)-1], "user:"} {
				q := mustParse(t, qs)
				want, got := l.Hint(q, 0), sc.Hint(q, 0)
				if want != got || want == "" {
					t.Errorf("%q: streamed hints %q, whole %q", qs, got, want)
				}
			}
			if h := l.Hint(mustParse(t, "tool:"+e.ToolSlug[:len(e.ToolSlug)-2]), 0); !strings.Contains(h, e.ToolSlug) {
				t.Errorf("the hint does not name %s: %q", e.ToolSlug, h)
			}
		})
	}
}

// TestShowOfAnExportReadsWhatTheWholeLoadRead: show and bundle of an export
// stream it into rows and read only the executions they name again, whole; for every shape
// an export comes in, each execution (all of its record), its triage, its group (and the
// group's tool) and the delivery that started it are what the whole load they replaced gave,
// and so is each session's timeline.
func TestShowOfAnExportReadsWhatTheWholeLoadRead(t *testing.T) {
	ctx := context.Background()
	for name, file := range scanVariants(t, t.TempDir(), 29, 2000) {
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(nil)
			_, l := openLoaded(t, app.Options{File: file, Getenv: env.Getenv, Now: env.Now})
			// every flagged write, every group's members, and a sample of the rest
			var ids []string
			sessions := map[string]bool{}
			for i := range l.Execs {
				if l.Result.Triage[i].Flagged || l.Result.Triage[i].GroupID != "" || i%97 == 0 {
					ids = append(ids, l.Execs[i].ID)
				}
				if s := l.Execs[i].SessionID; s != "" && len(sessions) < 5 {
					sessions[s] = true
				}
			}
			// show and bundle open an export lean (what triage never reads is dropped as it
			// loads) and read what they name again whole
			lean, err := app.Open(ctx, app.Options{File: file, Getenv: env.Getenv, Now: env.Now, Lean: true})
			if err != nil {
				t.Fatal(err)
			}
			defer lean.Close()
			c, err := lean.Choose(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Execs) != len(ids) {
				t.Fatalf("chose %d of %d", len(c.Execs), len(ids))
			}
			groups := 0
			for k, id := range ids {
				i, _ := l.Position(id)
				compareChosen(t, c, k, &l.Execs[i], l.Result.Triage[i])
				if g, ok := l.Result.Group(l.Result.Triage[i].GroupID); ok {
					groups++
					got, _ := c.Group(g.ID)
					if !reflect.DeepEqual(got, g) {
						t.Errorf("%s: group %+v, the whole load's %+v", id, got, g)
					}
					j, _ := l.Position(g.ExecutionIDs[0])
					if c.GroupTool(g.ID) != l.Execs[j].ToolSlug {
						t.Errorf("%s: group tool %q, want %q", g.ID, c.GroupTool(g.ID), l.Execs[j].ToolSlug)
					}
				}
				d := triage.NewDeliveries()
				for j := range l.Execs {
					d.Add(&l.Execs[j])
				}
				want, wok := d.StartedBy(&l.Execs[i])
				got, gok := c.Deliveries.StartedBy(&c.Execs[k])
				if want != got || wok != gok {
					t.Errorf("%s: started by %+v %v, the whole load's %+v %v", id, got, gok, want, wok)
				}
			}
			if groups == 0 || len(ids) < 20 || len(sessions) == 0 {
				t.Fatalf("%d executions, %d in groups, %d sessions: the comparison shows little", len(ids), groups, len(sessions))
			}
			for sid := range sessions {
				c, err := lean.ChooseSession(ctx, sid)
				if err != nil {
					t.Fatal(err)
				}
				var want []int
				for i := range l.Execs {
					if l.Execs[i].SessionID == sid {
						want = append(want, i)
					}
				}
				if len(c.Execs) != len(want) {
					t.Fatalf("session %s: %d executions, the whole load's %d", sid, len(c.Execs), len(want))
				}
				for k, i := range want {
					compareChosen(t, c, k, &l.Execs[i], l.Result.Triage[i])
				}
			}
			// an id the window (--since) leaves out: the whole load finds it and judges the
			// window with it, as for any source
			since := env.Now().Sub(l.Execs[len(l.Execs)/2].Timestamp)
			old := l.Execs[len(l.Execs)-1].ID
			for _, lean := range []bool{false, true} {
				o := app.Options{File: file, Getenv: env.Getenv, Now: env.Now, Since: since, SinceSet: true, Lean: lean}
				w, err := app.Open(ctx, o)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				c, err := w.Choose(ctx, []string{old, l.Execs[0].ID}) // with one the window holds
				if err != nil {
					t.Fatal(err)
				}
				o.Lean = false
				ref, err := app.Open(ctx, o)
				if err != nil {
					t.Fatal(err)
				}
				defer ref.Close()
				rl, err := ref.Load(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(rl.Execs) >= len(l.Execs) || len(rl.Execs) == 0 {
					t.Fatalf("the window holds %d of %d", len(rl.Execs), len(l.Execs))
				}
				for _, id := range []string{old, l.Execs[0].ID} {
					if _, err := rl.Lookup(ctx, id); err != nil {
						t.Fatal(err)
					}
				}
				for k, id := range []string{old, l.Execs[0].ID} {
					i, _ := rl.Position(id)
					compareChosen(t, c, k, &rl.Execs[i], rl.Result.Triage[i])
				}
			}
			if _, err := lean.Choose(ctx, []string{"log_not_there"}); !errors.Is(err, app.ErrNotFound) || !app.IsUsage(err) {
				t.Errorf("an id not in the export: %v, want a usage error naming it", err)
			}
		})
	}
}

// compareChosen compares the k-th chosen execution with the whole load's.
func compareChosen(t *testing.T, c *app.Chosen, k int, e *model.Execution, tr model.Triage) {
	t.Helper()
	got, _ := json.Marshal(model.ToWire(&c.Execs[k], true))
	want, _ := json.Marshal(model.ToWire(e, true))
	if !bytes.Equal(got, want) {
		t.Errorf("%s: chosen record\n%s\nthe whole load's\n%s", e.ID, got, want)
	}
	if !reflect.DeepEqual(c.Triage[k], tr) {
		t.Errorf("%s: triage %+v, the whole load's %+v", e.ID, c.Triage[k], tr)
	}
}

// TestExportOfAnExportWritesWhatTheWholeLoadHeld: export of an export file reads
// where each record is, then each again in order, instead of holding them; for every shape an
// export comes in, it writes what the whole load it replaced held, record for record.
func TestExportOfAnExportWritesWhatTheWholeLoadHeld(t *testing.T) {
	ctx := context.Background()
	for name, file := range scanVariants(t, t.TempDir(), 31, 1500) {
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(nil)
			a, l := openLoaded(t, app.Options{File: file, Getenv: env.Getenv, Now: env.Now})
			var want bytes.Buffer
			for i := range l.Execs {
				b, _ := json.Marshal(model.ToWire(&l.Execs[i], l.Execs[i].Detailed))
				want.Write(append(b, '\n'))
			}
			var got bytes.Buffer
			w, err := a.Each(ctx, false, func(e *model.Execution) error {
				b, err := json.Marshal(model.ToWire(e, e.Detailed))
				got.Write(append(b, '\n'))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if w.Executions != len(l.Execs) || w.Duplicates != l.Duplicates {
				t.Errorf("walked %d executions, %d copies; the whole load %d, %d", w.Executions, w.Duplicates, len(l.Execs), l.Duplicates)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				gl, wl := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
				for k := range min(len(gl), len(wl)) {
					if gl[k] != wl[k] {
						t.Fatalf("line %d:\n%s\nthe whole load's\n%s", k+1, gl[k], wl[k])
					}
				}
				t.Fatalf("%d lines, the whole load's %d", len(gl), len(wl))
			}
		})
	}
}

// openLoaded opens a session with o, loaded whole as before exports were streamed (the
// reference each streamed path is held to); it is closed when the test ends.
func openLoaded(t *testing.T, o app.Options) (*app.App, *app.Loaded) {
	t.Helper()
	a, err := app.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	l, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return a, l
}

func mustParse(t *testing.T, s string) filter.Query {
	t.Helper()
	q, err := filter.Parse(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return q
}
