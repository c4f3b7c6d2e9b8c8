package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/internal/testkit/benchdata"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/retry"
	"github.com/exectriage/exectriage/source"
)

// demoSession opens the demo with a journal of its own, as the TUI does.
func demoSession(t *testing.T) (*App, *Journal) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	env := func(k string) string {
		return map[string]string{"XDG_STATE_HOME": dir, "EXECTRIAGE_WHO": "tester", "HOME": dir}[k]
	}
	o := Options{Demo: true, Getenv: env, Version: "test", ConfigPath: filepath.Join(dir, "none.toml")}
	os.WriteFile(o.ConfigPath, nil, 0o600)
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	j, err := OpenJournal(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	a.UseJournal(j)
	return a, j
}

// TestASessionAsTheTUIUsesIt walks a session through what the TUI asks of it: the window
// streamed and loaded alike, a flagged write found, checked, its evidence shown, retried from
// the dialog once and then refused, marked, its journal state and history phrased, a bundle
// written, and the scan's rows agreeing with the load.
func TestASessionAsTheTUIUsesIt(t *testing.T) {
	ctx := context.Background()
	a, j := demoSession(t)
	if a.SourceKind() != model.SourceDemo || !a.CanSend() || a.ReadOnly() || a.AllowsReads() || a.Version() != "test" || a.Now().IsZero() {
		t.Fatalf("the demo session: %s send=%v ro=%v", a.SourceKind(), a.CanSend(), a.ReadOnly())
	}
	if a.Config().Path == "" || a.TriageOptions().Window <= 0 || a.Policy() == nil || a.Profile().Name != "" || !a.KeyFrom().None() {
		t.Errorf("session settings: %+v", a.TriageOptions())
	}
	if err := a.CheckFile(ctx); err != nil {
		t.Errorf("CheckFile of a demo: %v", err)
	}
	l, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	streamed := 0
	if err := a.Stream(ctx, a.Window(), func(b []model.Execution) error { streamed += len(b); a.Recycle(b); return nil }); err != nil {
		t.Fatal(err)
	}
	if streamed < len(l.Execs) || len(l.Execs) < 1000 {
		t.Fatalf("streamed %d, loaded %d", streamed, len(l.Execs))
	}
	// a flagged write whose effect the provider does not show
	var e model.Execution
	var tr model.Triage
	var full model.Execution
	var ps model.ProviderState
	for i := range l.Execs {
		if !l.Result.Triage[i].Flagged || l.Result.Triage[i].Outcome != model.OutcomeAmbiguous {
			continue
		}
		f, err := a.Record(ctx, l.Execs[i].ID)
		if err != nil || len(f.Arguments) == 0 {
			continue
		}
		if st := a.Verify(ctx, &f); st.State == model.ProviderNotFound {
			e, tr, full, ps = l.Execs[i], l.Result.Triage[i], f, st
			break
		}
	}
	if e.ID == "" {
		t.Fatal("no flagged write without an effect in the demo")
	}
	if i, err := l.Lookup(ctx, e.ID); err != nil || l.Execs[i].ID != e.ID {
		t.Fatalf("Lookup: %v", err)
	}
	if _, err := l.Lookup(ctx, "log_nope"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Lookup of nothing: %v", err)
	}
	if rec := a.RecordJSON(&full); !strings.Contains(rec, e.ID) {
		t.Errorf("RecordJSON lacks the id:\n%.200s", rec)
	}
	if ps.CheckedAt.IsZero() {
		t.Fatalf("Verify: %+v", ps)
	}
	ev, err := a.Evidence(ctx, full, tr, ps)
	if err != nil || len(ev.Send.Lines()) < 5 || !strings.Contains(strings.Join(ev.Send.Lines(), "\n"), "guarded by the SQLite journal") {
		t.Fatalf("Evidence: %+v %v", ev.Send.Lines(), err)
	}
	out := a.RetryConfirmed(ctx, full, ps, "the customer saw nothing")
	if out.AttemptID == "" || out.Err != "" {
		t.Fatalf("RetryConfirmed: %+v", out)
	}
	// the outcome carries the journal as the retry left it: the front need not ask again
	if out.Journal == nil || len(out.Journal.Attempts) != 1 || out.Journal.Attempts[0].ID != out.AttemptID ||
		len(out.Journal.Confirmations) != 1 {
		t.Errorf("RetryConfirmed's journal: %+v", out.Journal)
	}
	again := a.RetryConfirmed(ctx, full, ps, "again")
	switch {
	case out.State == model.AttemptFailed:
		// The first retry failed without effect (the demo's faults and the wall clock decide
		// which write is picked): a second one may go, as a new attempt of its own.
		if again.AttemptID == "" || again.AttemptID == out.AttemptID || again.Err != "" {
			t.Fatalf("a second retry after one that failed without effect: %+v", again)
		}
		return
	case !again.NotSent() || again.Refusal == "" || again.Err != "" || again.Next.IsZero():
		t.Fatalf("a second retry from the dialog after one in state %s: %+v", out.State, again)
	}
	if at, err := FindAttempt(ctx, j, e.ID); err != nil || at.ID != out.AttemptID {
		t.Errorf("FindAttempt: %+v %v", at, err)
	}
	// The demo's answer may leave the attempt indeterminate while its own log shows the outcome
	// (a 409 whose text names a 502): the first Resolve may settle it; once settled, a second
	// changes nothing.
	if _, err := Resolve(ctx, a, j, out.AttemptID, retry.ResolveOptions{}); err != nil {
		t.Errorf("Resolve: %v", err)
	}
	if at, _ := FindAttempt(ctx, j, out.AttemptID); at.State == model.AttemptSucceeded || at.State == model.AttemptFailed {
		if r, err := Resolve(ctx, a, j, out.AttemptID, retry.ResolveOptions{}); err != nil || r.Changed {
			t.Errorf("Resolve of a settled attempt: %+v %v", r, err)
		}
	}
	if lease, err := j.Lease(ctx, out.AttemptID); err != nil || lease.Target != "DEMO" {
		t.Errorf("journal.Lease: %+v %v", lease, err)
	}
	fits := a.VerdictsFor(&full, &tr)
	if len(fits) == 0 {
		t.Fatal("no verdict fits a flagged write")
	}
	if m, err := a.Mark(ctx, e.ID, fits[0], "checked by hand"); err != nil || m.Record.ID == "" || m.Effect == "" {
		t.Fatalf("Mark: %+v %v", m, err)
	}
	st, err := a.JournalStateOf(ctx, e.ID)
	hist := phrase.History(st.Confirmations, st.Attempts, st.Verdicts, a.Hint, a.Now())
	if err != nil || len(st.Attempts) != 1 || st.Verdict != fits[0] || len(hist) < 3 {
		t.Fatalf("JournalStateOf: %+v %v", st, err)
	}
	var texts []string
	for _, h := range hist {
		texts = append(texts, h.Text)
	}
	all := strings.Join(texts, "\n")
	for _, w := range []string{"confirmed failed by tester", "retry ", "verdict " + string(fits[0]) + " by tester: checked by hand", " on DEMO"} {
		if !strings.Contains(all, w) {
			t.Errorf("the history lacks %q:\n%s", w, all)
		}
	}
	states, err := a.JournalStates(ctx)
	if err != nil || states[e.ID].Verdict != fits[0] {
		t.Errorf("JournalStates: %v %v", states[e.ID], err)
	}
	if j.Kind() != "SQLite journal" || !strings.Contains(j.Guards().Sentence(), "guards this machine only") || j.Where() == "" {
		t.Errorf("journal: %s %s", j.Kind(), j.Guards().Sentence())
	}
	// a bundle of it, in a private directory
	t.Setenv("TMPDIR", t.TempDir())
	path, text, err := a.WriteBundle(ctx, bundleItems(l, e.ID))
	if err != nil || !strings.Contains(text, e.ID) || !strings.Contains(text, "checked by hand") {
		t.Fatalf("WriteBundle: %v\n%.300s", err, text)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the bundle file: %v %v", st, err)
	}
	if _, _, err := a.WriteBundle(ctx, nil); err == nil {
		t.Error("an empty bundle was written")
	}
	// scan's rows agree with the load on every execution
	sc := ScannedOf(l)
	if sc.Len() != len(l.Execs) {
		t.Fatalf("ScannedOf: %d rows, the load %d", sc.Len(), len(l.Execs))
	}
	for i := range sc.Len() {
		k, ok := l.Position(sc.ID(i))
		if !ok {
			t.Fatalf("scan row %s is not in the load", sc.ID(i))
		}
		if got, want := sc.Triage(i), l.Result.Triage[k]; got.Outcome != want.Outcome || got.Flagged != want.Flagged || got.Kind != want.Kind {
			t.Fatalf("%s: scan says %+v, load %+v", sc.ID(i), got, want)
		}
		if sc.Tool(i) != l.Execs[k].ToolSlug || !sc.Timestamp(i).Equal(l.Execs[k].Timestamp) || sc.Exec(i).ID != sc.ID(i) {
			t.Fatalf("%s: scan row differs from the load", sc.ID(i))
		}
	}
	// and a streaming scan agrees with a whole load of the same window: one clock for both (the
	// window's oldest edge moves with the wall clock, and an execution on it may leave between
	// two loads a few seconds apart)
	at := time.Now()
	same := Options{Demo: true, Getenv: a.o.Getenv, ConfigPath: a.o.ConfigPath, ReadOnly: true, Now: func() time.Time { return at }}
	whole, err := Open(ctx, same)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	wl, err := whole.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ScannedOf(wl)
	same.Lean = true
	lean, err := Open(ctx, same)
	if err != nil {
		t.Fatal(err)
	}
	defer lean.Close()
	sc2, err := lean.Scan(ctx)
	if err != nil || sc2.Len() != want.Len() || len(sc2.Groups) != len(want.Groups) || want.Len() < 1000 {
		t.Fatalf("Scan: %d rows %d groups, want %d and %d (%v)", sc2.Len(), len(sc2.Groups), want.Len(), len(want.Groups), err)
	}
	shape, err := a.ShapeReport(ctx, 50)
	if err != nil || shape.Records != 50 || len(shape.Fields) == 0 {
		t.Errorf("ShapeReport: %+v %v", shape, err)
	}
}

func bundleItems(l *Loaded, id string) []bundle.Item {
	i, _ := l.Position(id)
	return []bundle.Item{{Exec: l.Execs[i], Triage: l.Result.Triage[i]}}
}

// TestHideKnownHidesTheKey: the configured key never shows, whatever the text around it.
func TestHideKnownHidesTheKey(t *testing.T) {
	if got := HideKnown("key ak_live_secret_123456 here", "ak_live_secret_123456"); strings.Contains(got, "ak_live_secret") {
		t.Errorf("HideKnown = %q", got)
	}
}

// TestInfoSaysWhatItWouldUse: info names the source and why, the journal and whom it guards,
// and where the key came from, without opening anything.
func TestInfoSaysWhatItWouldUse(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		o    Options
		env  map[string]string
		want []string
	}{
		{Options{Demo: true}, nil, []string{"DEMO", "--demo"}},
		{Options{File: "x.jsonl"}, nil, []string{"FILE x.jsonl", "--file"}},
		{Options{}, map[string]string{"COMPOSIO_API_KEY": "k"}, []string{"LIVE https://backend.composio.dev", "COMPOSIO_API_KEY"}},
		{Options{Journal: "postgres://u@h/db"}, nil, []string{"PostgreSQL", "everyone who uses it"}},
	} {
		env := map[string]string{"XDG_STATE_HOME": dir, "HOME": dir}
		maps.Copy(env, tt.env)
		o := tt.o
		o.Getenv, o.ConfigPath = func(k string) string { return env[k] }, filepath.Join(dir, "none.toml")
		in, err := GetInfo(o)
		if err != nil {
			t.Fatal(err)
		}
		all := fmt.Sprintf("%+v", in)
		for _, w := range tt.want {
			if !strings.Contains(all, w) {
				t.Errorf("info %+v lacks %q:\n%s", tt.o, w, all)
			}
		}
	}
}

// TestScanOfAFileAgreesWithTheLoad: scan's streaming row store, over an export, gives every
// execution the triage the whole-window load gives it, and the same duplicate groups.
func TestScanOfAFileAgreesWithTheLoad(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := benchdata.Write(ctx, f, benchdata.Config{N: 4000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	env := func(string) string { return "" }
	full, err := Open(ctx, Options{File: path, Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	l, err := full.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lean, err := Open(ctx, Options{File: path, Getenv: env, Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lean.Close()
	sc, err := lean.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Len() != len(l.Execs) || len(sc.Groups) != len(l.Result.Groups) || len(sc.Groups) == 0 {
		t.Fatalf("scan: %d rows %d groups; load: %d and %d", sc.Len(), len(sc.Groups), len(l.Execs), len(l.Result.Groups))
	}
	for i := range sc.Len() {
		k, ok := l.Position(sc.ID(i))
		if !ok {
			t.Fatalf("scan row %s is not in the load", sc.ID(i))
		}
		got, want := sc.Triage(i), l.Result.Triage[k]
		if got.Outcome != want.Outcome || got.Flagged != want.Flagged || got.Kind != want.Kind || got.Reason != want.Reason || (got.GroupID == "") != (want.GroupID == "") {
			t.Fatalf("%s: scan says %+v, load %+v", sc.ID(i), got, want)
		}
	}
	for gi, g := range sc.Groups {
		if w := l.Result.Groups[gi]; g.Pattern != w.Pattern || strings.Join(g.ExecutionIDs, ",") != strings.Join(w.ExecutionIDs, ",") {
			t.Fatalf("group %d: scan %s %v, load %s %v", gi, g.Pattern, g.ExecutionIDs, w.Pattern, w.ExecutionIDs)
		}
	}
}
