package logcache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func entry(id string, at time.Time, status string) model.Execution {
	return model.Execution{ID: id, Timestamp: at, ToolSlug: "GMAIL_SEND_EMAIL", ToolkitSlug: "gmail", UserID: "u1",
		ConnectedAccountID: "ca_1", Status: status, Message: "m " + status, RetryCount: -1}
}

// stores are the two kinds of store: a file, and (with EXECTRIAGE_TEST_POSTGRES) a team index
// in a schema of the test's own. Each test runs on both; mk opens another handle on the same
// store (another process).
func stores(t *testing.T, run func(t *testing.T, mk func(Options) *Cache)) {
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sub", "logs.db")
		run(t, func(o Options) *Cache { return open(t, path, o) })
	})
	t.Run("index", func(t *testing.T) {
		dsn := testkit.PostgresOrSkip(t, "logcache_")
		run(t, func(o Options) *Cache { return openIndex(t, dsn, "project-a", o) })
	})
}

func openIndex(t *testing.T, dsn, project string, o Options) *Cache {
	t.Helper()
	c, err := OpenIndex(context.Background(), dsn, project, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func open(t *testing.T, path string, o Options) *Cache {
	t.Helper()
	c, err := Open(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func all(t *testing.T, c *Cache, from, to time.Time) []model.Execution {
	t.Helper()
	var out []model.Execution
	if err := c.Entries(context.Background(), from, to, func(b []model.Execution) error {
		out = append(out, b...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// Entries and details come back as they were kept, newest first, within the asked span; an
// entry that changed loses its detail, one that did not keeps it.
func TestEntriesAndDetails(t *testing.T) { stores(t, testEntriesAndDetails) }

func testEntriesAndDetails(t *testing.T, mk func(Options) *Cache) {
	ctx := context.Background()
	c := mk(Options{})
	var es []model.Execution
	for i := range 2500 { // more than one batch
		es = append(es, entry("log_"+strings.Repeat("x", i%3)+time.Duration(i).String(), t0.Add(time.Duration(i)*time.Second), "success"))
	}
	if err := c.PutEntries(ctx, es); err != nil {
		t.Fatal(err)
	}
	got := all(t, c, t0.Add(100*time.Second), t0.Add(199*time.Second))
	if len(got) != 100 || got[0].Timestamp != t0.Add(199*time.Second) || got[99].Timestamp != t0.Add(100*time.Second) {
		t.Fatalf("%d entries, first %v last %v", len(got), got[0].Timestamp, got[len(got)-1].Timestamp)
	}
	if got[0].Detailed || got[0].ToolSlug != "GMAIL_SEND_EMAIL" || got[0].ConnectedAccountID != "ca_1" || got[0].Status != "success" {
		t.Errorf("entry %+v", got[0])
	}
	if n := len(all(t, c, time.Time{}, t0.Add(time.Hour))); n != 2500 {
		t.Errorf("the whole cache: %d entries", n)
	}
	// A batch's callback may use the cache while the walk goes on (a file has one connection:
	// a walk that held it waited for the callback, which waited for it).
	batches := 0
	if err := c.Entries(ctx, time.Time{}, t0.Add(time.Hour), func(b []model.Execution) error {
		batches++
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := c.PutTool(cctx, model.Tool{Slug: "GMAIL_SEND_EMAIL"}, t0); err != nil {
			return err
		}
		_, _, _, err := c.Tool(cctx, "GMAIL_SEND_EMAIL")
		return err
	}); err != nil || batches != 3 {
		t.Fatalf("the cache used from a batch's callback: %v after %d batches", err, batches)
	}
	// The next page is read while a batch is handed on: a callback that fails, or a context
	// that ends, stops the walk there, with that error.
	stop := errors.New("enough")
	batches = 0
	if err := c.Entries(ctx, time.Time{}, t0.Add(time.Hour), func([]model.Execution) error {
		batches++
		return stop
	}); !errors.Is(err, stop) || batches != 1 {
		t.Fatalf("a callback's error: %v after %d batches", err, batches)
	}
	cctx, cancel := context.WithCancel(ctx)
	batches = 0
	if err := c.Entries(cctx, time.Time{}, t0.Add(time.Hour), func([]model.Execution) error {
		batches++
		cancel()
		return nil
	}); !errors.Is(err, context.Canceled) || batches != 1 {
		t.Fatalf("a context ended in the walk: %v after %d batches", err, batches)
	}

	d := es[5]
	d.Detailed, d.Arguments, d.RequestID = true, json.RawMessage(`{"to":"a@example.com"}`), "req-5"
	if err := c.PutDetail(ctx, d); err != nil {
		t.Fatal(err)
	}
	back, ok, err := c.Detail(ctx, d.ID)
	if err != nil || !ok || !back.Detailed || back.RequestID != "req-5" || string(back.Arguments) != `{"to":"a@example.com"}` {
		t.Fatalf("detail %+v %v %v", back, ok, err)
	}
	// a walk of the entries hands that one on as its detail, whole: nothing to ask for again
	if got := all(t, c, d.Timestamp, d.Timestamp); len(got) != 1 || !got[0].Detailed || got[0].RequestID != "req-5" || string(got[0].Arguments) != `{"to":"a@example.com"}` {
		t.Fatalf("the entry whose detail is kept came as %+v", got)
	}
	// the same entry again keeps the detail; a changed one drops it
	if err := c.PutEntries(ctx, es[5:6]); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Detail(ctx, d.ID); !ok {
		t.Error("the same entry again dropped its detail")
	}
	changed := es[5]
	changed.Status, changed.Message = "failed", "m failed"
	if err := c.PutEntries(ctx, []model.Execution{changed}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Detail(ctx, d.ID); ok {
		t.Error("a changed entry kept its old detail")
	}
	// a detail without its entry is not kept
	lone := entry("log_lone", t0, "success")
	lone.Detailed = true
	if err := c.PutDetail(ctx, lone); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Detail(ctx, "log_lone"); ok {
		t.Error("a detail without its entry was kept")
	}
}

// The covered spans merge when they touch or overlap and stay apart otherwise.
func TestCoverMerges(t *testing.T) { stores(t, testCoverMerges) }

func testCoverMerges(t *testing.T, mk func(Options) *Cache) {
	ctx := context.Background()
	c := mk(Options{})
	ms := time.Millisecond
	for _, s := range []Span{{t0, t0.Add(time.Hour)}, {t0.Add(3 * time.Hour), t0.Add(4 * time.Hour)}, {t0.Add(time.Hour + ms), t0.Add(2 * time.Hour)}} {
		if err := c.Cover(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Covered(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Span{{t0, t0.Add(2 * time.Hour)}, {t0.Add(3 * time.Hour), t0.Add(4 * time.Hour)}}
	if len(got) != 2 || !got[0].From.Equal(want[0].From) || !got[0].To.Equal(want[0].To) || !got[1].From.Equal(want[1].From) {
		t.Fatalf("covered %v, want %v", got, want)
	}
	if err := c.Cover(ctx, Span{t0.Add(-time.Hour), t0.Add(5 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Covered(ctx); len(got) != 1 {
		t.Errorf("a span over both: %v", got)
	}
}

// Past its bound the oldest entries go, and the spans no longer claim their time.
func TestPruneKeepsTheNewest(t *testing.T) { stores(t, testPruneKeepsTheNewest) }

func testPruneKeepsTheNewest(t *testing.T, mk func(Options) *Cache) {
	ctx := context.Background()
	c := mk(Options{MaxEntries: 100})
	var es []model.Execution
	for i := range 250 {
		es = append(es, entry("log_"+time.Duration(i).String(), t0.Add(time.Duration(i)*time.Minute), "success"))
	}
	if err := c.PutEntries(ctx, es); err != nil {
		t.Fatal(err)
	}
	if err := c.Cover(ctx, Span{t0, t0.Add(250 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := c.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	got := all(t, c, time.Time{}, t0.Add(time.Hour*10))
	if len(got) != 100 || !got[len(got)-1].Timestamp.Equal(t0.Add(150*time.Minute)) {
		t.Fatalf("%d entries left, oldest %v", len(got), got[len(got)-1].Timestamp)
	}
	spans, _ := c.Covered(ctx)
	if len(spans) != 1 || !spans[0].From.After(t0.Add(149*time.Minute)) {
		t.Errorf("covered after the prune: %v", spans)
	}
}

// The file and its directory are private; its name says nothing of the key; a read-only open
// of a cache that is not there creates nothing, and one of a cache that is writes nothing.
func TestPrivateNamelessAndReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "exectriage")
	const key = "ak_SECRET-key-123"
	name := Name("https://backend.composio.dev/", key)
	if strings.Contains(name, "SECRET") || strings.Contains(name, "composio") || name == Name("https://backend.composio.dev/", key+"x") ||
		name != Name("https://user:pw@backend.composio.dev/", key) {
		t.Errorf("name %q", name)
	}
	path := filepath.Join(dir, name)
	if _, err := Open(ctx, path, Options{ReadOnly: true}); err != ErrNone {
		t.Fatalf("a read-only open of nothing: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a read-only open made %s", dir)
	}
	c := open(t, path, Options{})
	if err := c.PutEntries(ctx, []model.Execution{entry("log_1", t0, "success")}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", p, st.Mode().Perm(), err, want)
		}
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), key) {
		t.Error("the key is in the file")
	}
	ro := open(t, path, Options{ReadOnly: true})
	if err := ro.PutEntries(ctx, []model.Execution{entry("log_2", t0, "success")}); err != nil {
		t.Fatal(err)
	}
	if err := ro.Cover(ctx, Span{t0, t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got := all(t, c, time.Time{}, t0.Add(time.Hour)); len(got) != 1 {
		t.Errorf("a read-only cache wrote: %d entries", len(got))
	}
	if spans, _ := c.Covered(ctx); len(spans) != 0 {
		t.Errorf("a read-only cache covered %v", spans)
	}
}

// Two processes (two opens) writing the same store at once lose nothing: neither their
// entries nor the spans each covered.
func TestConcurrentWriters(t *testing.T) { stores(t, testConcurrentWriters) }

func testConcurrentWriters(t *testing.T, mk func(Options) *Cache) {
	ctx := context.Background()
	a, b := mk(Options{}), mk(Options{})
	var wg sync.WaitGroup
	for w, c := range []*Cache{a, b} {
		wg.Go(func() {
			for i := range 50 {
				e := entry("log_"+string(rune('a'+w))+time.Duration(i).String(), t0.Add(time.Duration(i)*time.Second), "success")
				if err := c.PutEntries(ctx, []model.Execution{e}); err != nil {
					t.Error(err)
					return
				}
				// each writer covers spans of its own, apart from every other one
				at := t0.Add(time.Duration(2*i+w) * time.Hour)
				if err := c.Cover(ctx, Span{at, at.Add(time.Minute)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(all(t, a, time.Time{}, t0.Add(time.Hour))); n != 100 {
		t.Errorf("%d entries, want 100", n)
	}
	if spans, err := b.Covered(ctx); err != nil || len(spans) != 100 {
		t.Errorf("%d spans covered (%v), want the 100 both writers covered", len(spans), err)
	}
}

// TestATeamIndexKeepsProjectsApart: projects sharing an index never see each other's
// entries, details or spans; the location it names has no password; a read-only open of a
// database without the tables is ErrNone and creates nothing, and one of an index writes
// nothing; an unreachable server is an error soon, with no password in it.
func TestATeamIndexKeepsProjectsApart(t *testing.T) {
	ctx := context.Background()
	dsn := testkit.PostgresOrSkip(t, "logcache_")
	if _, err := OpenIndex(ctx, dsn, "p1", Options{ReadOnly: true}); err != ErrNone {
		t.Fatalf("a read-only open of a database without the index: %v", err)
	}
	a, b := openIndex(t, dsn, "p1", Options{}), openIndex(t, dsn, "p2", Options{})
	if err := a.PutEntries(ctx, []model.Execution{entry("log_1", t0, "success"), entry("log_2", t0.Add(time.Second), "error")}); err != nil {
		t.Fatal(err)
	}
	d := entry("log_1", t0, "success")
	d.Detailed, d.Arguments = true, json.RawMessage(`{"x":1}`)
	if err := a.PutDetail(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := a.Cover(ctx, Span{t0, t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutEntries(ctx, []model.Execution{entry("log_1", t0, "failed")}); err != nil { // the same id in another project
		t.Fatal(err)
	}
	if got := all(t, b, time.Time{}, t0.Add(time.Hour)); len(got) != 1 || got[0].Status != "failed" {
		t.Errorf("project p2 sees %+v", got)
	}
	if _, ok, _ := b.Detail(ctx, "log_1"); ok {
		t.Error("project p2 sees p1's detail")
	}
	if _, ok, _ := a.Detail(ctx, "log_1"); !ok {
		t.Error("p2's entry of the same id dropped p1's detail")
	}
	if spans, _ := b.Covered(ctx); len(spans) != 0 {
		t.Errorf("p2 covered %v", spans)
	}
	if err := a.PutTool(ctx, model.Tool{Slug: "ACME_CUSTOM_TOOL", Tags: []string{"readOnlyHint"}}, t0); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := b.Tool(ctx, "ACME_CUSTOM_TOOL"); ok {
		t.Error("project p2 sees p1's tool definition (a custom tool is a project's own)")
	}
	in, err := a.Stat(ctx)
	if err != nil || !in.Index || in.Entries != 2 || in.Details != 1 || in.Bytes == 0 || len(in.Covered) != 1 {
		t.Errorf("stat %+v %v", in, err)
	}
	ro := openIndex(t, dsn, "p1", Options{ReadOnly: true})
	if err := ro.PutEntries(ctx, []model.Execution{entry("log_3", t0, "success")}); err != nil {
		t.Fatal(err)
	}
	if got := all(t, ro, time.Time{}, t0.Add(time.Hour)); len(got) != 2 {
		t.Errorf("a read-only index wrote or lost: %d entries", len(got))
	}

	secret := strings.Replace(dsn, "postgres://postgres@", "postgres://postgres:pw-SECRET@", 1)
	if secret != dsn {
		c := openIndex(t, secret, "p1", Options{ReadOnly: true})
		if strings.Contains(c.Path(), "SECRET") {
			t.Errorf("the index names itself %q", c.Path())
		}
	}
	start := time.Now()
	_, err = OpenIndex(ctx, "postgres://u:pw-SECRET@127.0.0.1:1/x?connect_timeout=2", "p1", Options{})
	if err == nil || strings.Contains(err.Error(), "SECRET") || time.Since(start) > 15*time.Second {
		t.Errorf("an unreachable index: %v after %v", err, time.Since(start))
	}
}

// TestAReadOnlyOpenCreatesNothingBesideIt: a read-only open of a cache closed cleanly made
// its -wal and -shm files (and could not open one on read-only media); it reads the file as
// it is now, and a cache another process has open is read through that process's side files
// with its newest entries.
func TestAReadOnlyOpenCreatesNothingBesideIt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	c := open(t, path, Options{})
	if err := c.PutEntries(ctx, []model.Execution{entry("log_1", t0, "success")}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Fatalf("%s is still there after a clean close", side)
		}
	}
	ro := open(t, path, Options{ReadOnly: true})
	if got := all(t, ro, time.Time{}, t0.Add(time.Hour)); len(got) != 1 {
		t.Fatalf("read %d entries", len(got))
	}
	ro.Close()
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("a read-only open created %s", path+side)
		}
	}
	w := open(t, path, Options{}) // another process writes, its WAL not checkpointed
	if err := w.PutEntries(ctx, []model.Execution{entry("log_2", t0.Add(time.Minute), "success")}); err != nil {
		t.Fatal(err)
	}
	ro = open(t, path, Options{ReadOnly: true})
	if got := all(t, ro, time.Time{}, t0.Add(time.Hour)); len(got) != 2 {
		t.Fatalf("a read-only open beside a writer read %d entries, want its newest too", len(got))
	}
}

// A tool's definition comes back as it was kept, with when it was fetched, whatever the case of
// the slug asked; a newer one replaces it; a read-only store keeps nothing.
func TestToolDefinitionsAreKept(t *testing.T) { stores(t, testToolDefinitionsAreKept) }

func testToolDefinitionsAreKept(t *testing.T, mk func(Options) *Cache) {
	ctx := context.Background()
	c := mk(Options{})
	if _, _, ok, err := c.Tool(ctx, "GMAIL_SEND_EMAIL"); ok || err != nil {
		t.Fatalf("an empty store has a tool: %v %v", ok, err)
	}
	def := model.Tool{Slug: "GMAIL_SEND_EMAIL", Version: "20251024_00", Tags: []string{"createHint"}, Description: "Sends an email"}
	if err := c.PutTool(ctx, def, t0); err != nil {
		t.Fatal(err)
	}
	got, at, ok, err := c.Tool(ctx, "gmail_send_email")
	if err != nil || !ok || !at.Equal(t0) || got.Version != def.Version || len(got.Tags) != 1 || got.Tags[0] != "createHint" {
		t.Fatalf("kept %+v at %v (%v %v)", got, at, ok, err)
	}
	def.Version, def.Tags = "20251201_00", []string{"updateHint"}
	if err := c.PutTool(ctx, def, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, at, _, _ := c.Tool(ctx, def.Slug); got.Version != "20251201_00" || !at.Equal(t0.Add(time.Hour)) {
		t.Errorf("the newer definition did not replace the older: %+v at %v", got, at)
	}
	ro := mk(Options{ReadOnly: true})
	if err := ro.PutTool(ctx, model.Tool{Slug: "SLACK_SEND_MESSAGE"}, t0); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := c.Tool(ctx, "SLACK_SEND_MESSAGE"); ok {
		t.Error("a read-only store kept a tool")
	}
}

// The walk reads the entries in the order of an index (time, then id): a page sorted in a
// temporary tree costs the reopen of 100k a sixth of its read. A cache made before the index
// gets it when opened for writing.
func TestTheWalkNeedsNoSort(t *testing.T) {
	ctx := context.Background()
	plan := func(t *testing.T, c *Cache) string {
		t.Helper()
		rows, err := c.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+c.q.entries, c.args(int64(0), int64(1)<<50, "", entriesPerQuery)...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var steps []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(steps, "; ")
	}
	check := func(t *testing.T, c *Cache) {
		t.Helper()
		if err := c.PutEntries(ctx, []model.Execution{entry("a", t0, "success"), entry("b", t0, "failed")}); err != nil {
			t.Fatal(err)
		}
		p := plan(t, c)
		if strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, "INDEX") {
			t.Fatalf("the walk's plan sorts or reads no index: %s", p)
		}
		if got := all(t, c, time.Time{}, t0.Add(time.Hour)); len(got) != 2 || got[0].ID != "b" || got[1].ID != "a" {
			t.Fatalf("the walk gave %+v, want b then a (one millisecond: by id, descending)", got)
		}
	}
	t.Run("new", func(t *testing.T) { check(t, open(t, filepath.Join(t.TempDir(), "logs.db"), Options{})) })
	t.Run("made before the index", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "logs.db")
		old, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.ExecContext(ctx, `CREATE TABLE entries (id TEXT PRIMARY KEY, ts INTEGER NOT NULL, entry BLOB NOT NULL, detail BLOB);
CREATE INDEX entries_ts ON entries (ts);`); err != nil {
			t.Fatal(err)
		}
		old.Close()
		check(t, open(t, path, Options{}))
	})
}
