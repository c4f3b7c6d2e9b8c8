package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
)

// TestNewCmdList: list's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdList(t *testing.T) {
	newCmdTable(t, NewCmdList, []argvCase[ListOptions]{
		{argv: "gmsend --filter flagged:yes --limit 7 --jq .executions --since 2d --file x.jsonl", want: func(o *ListOptions) string {
			return differs("Filter", o.Filter, "flagged:yes", "Query", o.Query, []string{"gmsend"}, "Limit", o.Limit, 7,
				"jq", o.Source.jq, ".executions", "since", o.Source.since, 48*time.Hour, "sinceSet", o.Source.sinceSet, true,
				"file", o.Source.file, "x.jsonl")
		}},
		{argv: "--session trs_1 --no-pager --view team", want: func(o *ListOptions) string {
			return differs("Session", o.Session, "trs_1", "NoPager", o.NoPager, true, "view", o.Source.view, "team", "Query", len(o.Query), 0)
		}},
		{argv: "--limit -1", wantErr: "--limit must not be negative"},
		{argv: "--reason x", wantErr: "unknown flag: --reason"},
		{argv: "''", wantErr: "an empty argument"},
	})
}

// list --filter pattern:CAUSE keeps the members of the groups with that cause; a typo is
// refused with the closest cause (exit 2), not answered with "0 of N".
func TestListFilterByPattern(t *testing.T) {
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	code, out, errOut := run(t, vars, "list", "--file", "testdata/export.jsonl", "--filter", "pattern:sdk_auto_retry")
	if code != ExitOK || !strings.Contains(errOut, "3 of ") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, id := range []string{"log_G01", "log_G02", "log_G03"} {
		if !strings.Contains(out, id) {
			t.Errorf("%s missing:\n%s", id, out)
		}
	}
	if strings.Contains(out, "log_S04") || strings.Contains(out, "log_H12") {
		t.Errorf("members of other causes listed:\n%s", out)
	}
	code, _, errOut = run(t, vars, "list", "--file", "testdata/export.jsonl", "--filter", "pattern:dobule_submit")
	if code != ExitUsage || !strings.Contains(errOut, "did you mean pattern:double_submit?") {
		t.Errorf("typo: exit %d, %s", code, errOut)
	}
}

// TestTheSessionFilter: `list --filter session:<id>` gives exactly that tool-router
// session's executions, on a live sandbox (whose list entries carry no session id: the API is
// asked) and on the demo (read back from an export of it), and `show --json` prints the
// session id rather than redacting it.
func TestTheSessionFilter(t *testing.T) {
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 9, Size: 800, Now: fixedNow, APIKey: "k-session"})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-session", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	bySession := map[string][]string{}
	for _, e := range srv.Executions() {
		if e.SessionID != "" {
			bySession[e.SessionID] = append(bySession[e.SessionID], e.ID)
		}
	}
	check := func(name string, sessions map[string][]string, src ...string) {
		t.Helper()
		tried := 0
		for sid, want := range sessions {
			if len(want) < 2 {
				continue
			}
			if tried++; tried > 3 {
				break
			}
			code, out, errOut := run(t, vars, append([]string{"list", "--filter", "session:" + sid, "--json"}, src...)...)
			var l struct {
				Executions []execJSON `json:"executions"`
			}
			if code != ExitOK || json.Unmarshal([]byte(out), &l) != nil {
				t.Fatalf("%s list session:%s: %d %s", name, sid, code, errOut)
			}
			var got []string
			for _, e := range l.Executions {
				got = append(got, e.ID)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s session:%s: %v, want %v", name, sid, got, want)
			}
			code, out, _ = run(t, vars, append([]string{"show", want[0], "--json"}, src...)...)
			if code != ExitOK || !strings.Contains(out, `"session_id": "`+sid+`"`) {
				t.Errorf("%s show %s does not print its session id %s:\n%.400s", name, want[0], sid, out)
			}
		}
		if tried == 0 {
			t.Fatalf("%s: no session of two executions to look for", name)
		}
	}
	check("sandbox", bySession, "--base-url", base, "--since", "720h")

	// the demo: its sessions, read from an export with every detail
	code, out, errOut := run(t, vars, "export", "--demo", "--details")
	if code != ExitOK {
		t.Fatalf("export --demo: %d %s", code, errOut)
	}
	demo := map[string][]string{}
	for line := range strings.Lines(out) {
		e, err := model.ParseRecord([]byte(line))
		if err == nil && e.SessionID != "" {
			demo[e.SessionID] = append(demo[e.SessionID], e.ID)
		}
	}
	check("demo", demo, "--demo")
}

// list --session ID is the session's timeline: exactly its executions, oldest first, on the
// sandbox (whose list entries carry no session id) as on the demo.
func TestListSessionIsItsTimeline(t *testing.T) {
	base, vars, bySession := sessionSandbox(t)
	for sid, want := range sessionsOfTwo(t, bySession, 3) {
		code, out, errOut := run(t, vars, "list", "--session", sid, "--json", "--base-url", base, "--since", "2000h")
		var l struct {
			Executions []execJSON `json:"executions"`
		}
		if code != ExitOK || json.Unmarshal([]byte(out), &l) != nil {
			t.Fatalf("list --session %s: %d %s", sid, code, errOut)
		}
		var got, ids []string
		for _, e := range l.Executions {
			got = append(got, e.ID)
		}
		for _, e := range want {
			ids = append(ids, e.ID)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("list --session %s: %v, want %v (oldest first)", sid, got, ids)
		}
	}
}

// sessionsOfTwo is up to n of the sessions that ran two executions or more (a test fails
// when there is none).
func sessionsOfTwo(t *testing.T, bySession map[string][]model.Execution, n int) map[string][]model.Execution {
	t.Helper()
	out := map[string][]model.Execution{}
	for sid, execs := range bySession {
		if len(execs) >= 2 && len(out) < n {
			out[sid] = execs
		}
	}
	if len(out) == 0 {
		t.Fatal("the sandbox has no session of two")
	}
	return out
}

// sessionSandbox starts a sandbox whose history has tool-router sessions, with the variables
// that reach it and its executions by session, oldest first.
func sessionSandbox(t *testing.T) (string, map[string]string, map[string][]model.Execution) {
	t.Helper()
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 9, Size: 800, Now: fixedNow, APIKey: "k-session"})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-session", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	bySession := map[string][]model.Execution{}
	for _, e := range srv.Executions() {
		if e.SessionID != "" {
			bySession[e.SessionID] = append(bySession[e.SessionID], e)
		}
	}
	for _, es := range bySession {
		slices.SortFunc(es, func(a, b model.Execution) int { return a.Start().Compare(b.Start()) })
	}
	return base, vars, bySession
}

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
