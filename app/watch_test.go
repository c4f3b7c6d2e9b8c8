package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/journal"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/watch"
)

// lines is a JSON-lines sink's output, read by a test while the watcher writes.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) events(t *testing.T) []watch.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []watch.Event
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e watch.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("a line that is not an event: %q", sc.Text())
		}
		out = append(out, e)
	}
	return out
}

// watchWorld is a live sandbox with a small history, the API's key, a journal and a way to
// send a write through the API as an agent does.
type watchWorld struct {
	srv     *sandbox.Server
	base    string
	dir     string
	journal string
}

const watchKey = "k-watch"

func newWatchWorld(t *testing.T, journalDSN string, cfg sandbox.Config) *watchWorld {
	t.Helper()
	cfg.APIKey, cfg.Seed, cfg.Size = watchKey, 4, 120
	srv, base, err := sandbox.Start(context.Background(), cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "none.toml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if journalDSN == "" {
		journalDSN = filepath.Join(dir, "journal.db")
	}
	return &watchWorld{srv: srv, base: base, dir: dir, journal: journalDSN}
}

// open is one watcher's session: its own App and journal handle, as a second process has.
func (w *watchWorld) open(t *testing.T, o Options) (*App, *Journal) {
	t.Helper()
	ctx := context.Background()
	env := map[string]string{"COMPOSIO_API_KEY": watchKey, "XDG_STATE_HOME": w.dir, "EXECTRIAGE_WHO": "watcher", "HOME": w.dir}
	o.BaseURL, o.Journal, o.ConfigPath, o.Since, o.SinceSet = w.base, w.journal, filepath.Join(w.dir, "none.toml"), 24*time.Hour, true
	o.Getenv = func(k string) string { return env[k] }
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

// send posts one Slack message through the API as an agent does, fault armed first (""
// for none), and returns the id of its log.
func (w *watchWorld) send(t *testing.T, text string, fault sandbox.FaultMode) string {
	t.Helper()
	return testkit.SendSlack(t, w.srv, w.base, watchKey, text, fault)
}

func kindsOf(events []watch.Event) map[watch.Kind]int {
	n := map[watch.Kind]int{}
	for _, e := range events {
		n[e.Kind]++
	}
	return n
}

// One pass after another tells only what is new: a write that failed after the provider took
// it is one flagged event; the agent's re-send of it makes a group (told whole, once); a third
// send is the group's new member; nothing is told twice, and the filter keeps another toolkit's
// executions out. Every event says what the list says of its execution.
func TestWatchTellsWhatIsNewOnce(t *testing.T) {
	w := newWatchWorld(t, "", sandbox.Config{})
	a, j := w.open(t, Options{})
	out := &lines{}
	pass := func(f string) []watch.Event {
		t.Helper()
		before := len(out.events(t))
		o := WatchOptions{Sinks: []watch.Sink{watch.NewJSONLines(out)}, Once: true}
		if f != "" {
			q, err := filter.Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			o.Filter, o.Filtered = q, true
		}
		if err := a.Watch(t.Context(), j, o); err != nil {
			t.Fatal(err)
		}
		return out.events(t)[before:]
	}
	first := pass("toolkit:slack")
	for _, e := range first {
		if e.Toolkit != "slack" && e.Kind != watch.KindUnresolved {
			t.Fatalf("the filter let %s of %s through", e.Kind, e.Toolkit)
		}
	}
	if again := pass("toolkit:slack"); len(again) != 0 {
		t.Fatalf("a second pass told %d events again", len(again))
	}
	id := w.send(t, "Deploy 4411 is rolling back", sandbox.Fault5xxAfterCommit)
	flagged := pass("")
	if got := kindsOf(flagged); got[watch.KindFlagged] == 0 {
		t.Fatalf("the failed-after-commit send was not told: %v", got)
	}
	found := false
	for _, e := range flagged {
		found = found || (e.Kind == watch.KindFlagged && e.ExecutionIDs[0] == id)
	}
	if !found {
		t.Fatalf("no flagged event for %s in %+v", id, flagged)
	}
	time.Sleep(1100 * time.Millisecond)
	w.send(t, "Deploy 4411 is rolling back", "")
	grouped := pass("")
	if got := kindsOf(grouped); got[watch.KindGroup] != 1 || got[watch.KindGroupMember] != 0 {
		t.Fatalf("the re-send: %v, want one group", got)
	}
	time.Sleep(1100 * time.Millisecond)
	w.send(t, "Deploy 4411 is rolling back", "")
	member := pass("")
	if got := kindsOf(member); got[watch.KindGroupMember] != 1 || got[watch.KindGroup] != 0 {
		t.Fatalf("the third send: %v, want one new member", got)
	}
	if len(pass("")) != 0 {
		t.Fatal("a pass with nothing new told something")
	}
	// A retry of exectriage's left indeterminate needs a person again: told once.
	now := time.Now()
	c := journal.Claim{Attempt: model.RetryAttempt{ID: uuid.NewString(), ExecutionID: id, ToolSlug: "SLACK_SEND_MESSAGE", ArgumentHash: "h",
		Who: "ana", CreatedAt: now}, Deadline: now.Add(time.Minute), Target: a.SourceName(), Confirmation: journal.Confirmation{Who: "ana", At: now,
		Reason: "customer saw nothing", Outcome: model.OutcomeAmbiguous, OutcomeReason: "502", Provider: model.ProviderState{State: model.ProviderNotFound}}}
	if ok, _, err := j.j.ClaimAttempt(t.Context(), c); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	for _, st := range []model.AttemptState{model.AttemptSent, model.AttemptIndeterminate} {
		if err := j.j.UpdateAttempt(t.Context(), c.Attempt.ID, st, "", "no answer", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	unresolved := pass("")
	if len(unresolved) != 1 || unresolved[0].Kind != watch.KindUnresolved || unresolved[0].AttemptID != c.Attempt.ID || unresolved[0].ExecutionIDs[0] != id {
		t.Fatalf("the indeterminate retry: %+v", unresolved)
	}
	if len(pass("")) != 0 {
		t.Fatal("the indeterminate retry was told twice")
	}
	// Every event's execution is judged as the list judges it.
	l, err := a.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range out.events(t) {
		if e.Kind != watch.KindFlagged {
			continue
		}
		i, ok := l.Position(e.ExecutionIDs[0])
		if !ok || !l.Result.Triage[i].Flagged || l.Result.Triage[i].Reason != e.Reason {
			t.Fatalf("event %s of %s: the list says flagged=%v %q", e.ID, e.ExecutionIDs[0], ok && l.Result.Triage[i].Flagged, e.Reason)
		}
	}
}

// Two watchers on one PostgreSQL journal: one sends, each event is told once; when it stops,
// the other takes over within the lease and tells what came after.
func TestTwoWatchersOfOneJournalTellOnce(t *testing.T) {
	dsn := testkit.PostgresOrSkip(t, "w_")
	w := newWatchWorld(t, dsn, sandbox.Config{RateLimit: 600})
	type watcher struct {
		out    *lines
		cancel context.CancelFunc
		done   chan error
	}
	start := func() *watcher {
		a, j := w.open(t, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		wt := &watcher{out: &lines{}, cancel: cancel, done: make(chan error, 1)}
		go func() {
			wt.done <- a.Watch(ctx, j, WatchOptions{Sinks: []watch.Sink{watch.NewJSONLines(wt.out)}, Every: 100 * time.Millisecond, Lease: time.Second})
		}()
		return wt
	}
	w.send(t, "Invoice 9920 is ready", sandbox.Fault5xxAfterCommit)
	one, two := start(), start()
	defer one.cancel()
	defer two.cancel()
	told := func() map[string]int {
		n := map[string]int{}
		for _, wt := range []*watcher{one, two} {
			for _, e := range wt.out.events(t) {
				n[e.ID]++
			}
		}
		return n
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waited 20 s for %s", what)
			}
		}
	}
	waitFor("the first pass", func() bool { return len(told()) > 0 })
	time.Sleep(500 * time.Millisecond) // a few more passes of both
	leader, other := one, two
	if len(two.out.events(t)) > 0 {
		leader, other = two, one
	}
	if len(other.out.events(t)) != 0 {
		t.Fatal("both watchers sent")
	}
	leader.cancel()
	if err := <-leader.done; err != nil {
		t.Fatalf("a stopped watcher returned %v", err)
	}
	id := w.send(t, "Invoice 9921 reminder", sandbox.Fault5xxAfterCommit)
	took := time.Now()
	waitFor("the other watcher to tell the new write", func() bool {
		for _, e := range other.out.events(t) {
			if e.ExecutionIDs[0] == id {
				return true
			}
		}
		return false
	})
	if d := time.Since(took); d > 10*time.Second {
		t.Fatalf("the take-over took %s", d)
	}
	for id, n := range told() {
		if n != 1 {
			t.Fatalf("event %s told %d times", id, n)
		}
	}
}

// The watcher stays within the API's rate limit (no request answered 429), and its /metrics
// parse with Prometheus's own text parser and count what it did.
func TestWatchMetricsAndTheRateLimit(t *testing.T) {
	w := newWatchWorld(t, "", sandbox.Config{RateLimit: 40, RateLimitWindow: 2 * time.Second})
	m := watch.NewMetrics()
	var mu sync.Mutex
	codes := map[int]int{}
	a, j := w.open(t, Options{OnRequest: func(status int) {
		m.Request(status)
		mu.Lock()
		codes[status]++
		mu.Unlock()
	}, OnRateWait: func(RateWait) { m.RateWait() }})
	out := &lines{}
	for range 3 {
		if err := a.Watch(t.Context(), j, WatchOptions{Sinks: []watch.Sink{watch.NewJSONLines(out)}, Once: true, Metrics: m}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	refused, sent := codes[429], 0
	for _, n := range codes {
		sent += n
	}
	mu.Unlock()
	if refused != 0 || sent == 0 {
		t.Fatalf("%d requests, %d answered 429", sent, refused)
	}
	srv := httptest.NewServer(m.Handler(time.Minute, time.Now()))
	defer srv.Close()
	for path, want := range map[string]int{"/healthz": 200, "/metrics": 200} {
		resp, err := http.Get(srv.URL + path)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("%s: %v %v", path, resp, err)
		}
		if path == "/metrics" {
			p := expfmt.NewTextParser(pmodel.UTF8Validation)
			fams, err := p.TextToMetricFamilies(resp.Body)
			if err != nil {
				t.Fatalf("metrics do not parse: %v", err)
			}
			sum := func(name string) float64 {
				var s float64
				for _, mt := range fams[name].GetMetric() {
					s += mt.GetCounter().GetValue() + mt.GetGauge().GetValue()
				}
				return s
			}
			if sum("exectriage_watch_api_requests_total") != float64(sent) || sum("exectriage_watch_passes_total") != 3 ||
				sum("exectriage_watch_deliveries_total") != float64(len(out.events(t))) || sum("exectriage_watch_executions") == 0 {
				t.Fatalf("metrics: requests %v (sent %d), passes %v, deliveries %v (told %d)", sum("exectriage_watch_api_requests_total"), sent,
					sum("exectriage_watch_passes_total"), sum("exectriage_watch_deliveries_total"), len(out.events(t)))
			}
		}
		resp.Body.Close()
	}
}

// A watcher told only of new members (--tell group_member) counts a new group as seen without
// telling it, so that the group's next member is told.
func TestAWatcherOfMembersOnlyTellsTheNextMember(t *testing.T) {
	w := newWatchWorld(t, "", sandbox.Config{})
	a, j := w.open(t, Options{})
	out := &lines{}
	pass := func() []watch.Event {
		t.Helper()
		before := len(out.events(t))
		if err := a.Watch(t.Context(), j, WatchOptions{Sinks: []watch.Sink{watch.NewJSONLines(out)}, Once: true,
			Kinds: []watch.Kind{watch.KindGroupMember}}); err != nil {
			t.Fatal(err)
		}
		return out.events(t)[before:]
	}
	w.send(t, "Rollback 5512 started", sandbox.Fault5xxAfterCommit)
	time.Sleep(1100 * time.Millisecond)
	w.send(t, "Rollback 5512 started", "")
	if got := pass(); len(got) != 0 {
		t.Fatalf("a new group was told to a watcher of members only: %+v", got)
	}
	time.Sleep(1100 * time.Millisecond)
	w.send(t, "Rollback 5512 started", "")
	got := pass()
	if len(got) != 1 || got[0].Kind != watch.KindGroupMember {
		t.Fatalf("the group's third send: %+v, want one new member", got)
	}
}
