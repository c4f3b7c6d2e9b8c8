package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/filter"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/ui/common"
)

// The loader is the load pipeline on its own, without the root: it takes the current load's
// pages and drops an older load's, holds the next page back while the builder is behind and
// gives it back when the analysis ends, analyses once at a time (pages that come meanwhile ask
// for another), finds the groups only once the load has ended, and says when a load failed.
func TestLoaderAlone(t *testing.T) {
	e := newEnv(t)
	l := newLoader(e.deps().App.NewFeed(), nil, 0)
	ctx := context.Background()
	l.start(ctx, 0)
	defer l.stop()
	page := func(tag, n int) loadPageMsg {
		if tag == l.tag { // the feed drops an older load's pages
			recs := make([]model.Execution, n)
			for i := range recs {
				recs[i] = model.Execution{ID: fmt.Sprintf("log_%d_%d", l.received, i), Timestamp: time.Now()}
			}
			l.feed.Give(recs)
		}
		return loadPageMsg{tag: tag, n: n, next: func() tea.Msg { return nil }}
	}
	if _, ok := l.page(page(l.tag-1, 10)); ok || l.received != 0 {
		t.Fatalf("an older load's page was counted (%d received)", l.received)
	}
	next, ok := l.page(page(l.tag, 10))
	if !ok || next == nil || l.feed.Pending() != 10 || l.received != 10 || l.pages != 1 {
		t.Fatalf("a page: ok %v, next %v, %d pending, %d received, %d pages", ok, next != nil, l.feed.Pending(), l.received, l.pages)
	}
	cmd := l.analyze(ctx, 0)
	if cmd == nil || !l.analyzing || l.grouping {
		t.Fatalf("analysis while loading: cmd %v, analyzing %v, grouping %v", cmd != nil, l.analyzing, l.grouping)
	}
	if msg, ok := cmd().(analyzedMsg); !ok || msg.ds == nil || msg.ds.Len() != 10 || l.feed.Pending() != 0 {
		t.Fatalf("the first analysis took the queue into the builder and gave the first screen: %v, %d pending", ok, l.feed.Pending())
	}
	// The builder is behind: a full queue holds the next page.
	next, _ = l.page(page(l.tag, maxPending))
	if next != nil || l.held == nil {
		t.Fatal("a page past maxPending while the builder works did not hold the load")
	}
	if cmd := l.analyze(ctx, 0); cmd != nil || !l.dirty {
		t.Fatal("a second analysis started while one runs")
	}
	if _, _, ok := l.analyzed(analyzedMsg{tag: l.analyzeTag - 1}); ok {
		t.Fatal("an older analysis's result was taken")
	}
	held, again, ok := l.analyzed(analyzedMsg{tag: l.analyzeTag})
	if !ok || held == nil || !again || l.held != nil || l.analyzing {
		t.Fatalf("the analysis ended: held %v, again %v, ok %v", held != nil, again, ok)
	}
	// The load ends on an error: failed, and the next analysis finds the groups.
	if l.done(loadDoneMsg{tag: l.tag - 1}) {
		t.Fatal("an older load's end was taken")
	}
	if !l.done(loadDoneMsg{tag: l.tag, err: errors.New("boom")}) || l.loading || !l.failed {
		t.Fatalf("the load's end: loading %v, failed %v", l.loading, l.failed)
	}
	if cmd := l.analyze(ctx, 10); cmd == nil || !l.grouping || !l.busy() {
		t.Fatal("the analysis after the load does not find the groups")
	}
	// A cancelled load did not fail.
	l.start(ctx, 0)
	if l.done(loadDoneMsg{tag: l.tag, err: context.Canceled}); l.failed {
		t.Error("a cancelled load counts as failed")
	}
}

// judged is what every front must say alike of one execution.
type judged struct {
	Kind, Outcome string
	Flagged       bool
	Reason        string
	Group         string
	OldSDK        string
	Case          string // the journal's case, as JSON ("" for none)
}

// groupView is a duplicate group as every front must show it.
type groupView struct {
	Members []string
	Pattern string
}

type execOut struct {
	ID             string      `json:"id"`
	Kind           string      `json:"kind"`
	Outcome        string      `json:"outcome"`
	Flagged        bool        `json:"flagged"`
	Reason         string      `json:"reason"`
	DuplicateGroup *string     `json:"duplicate_group"`
	OldSDK         string      `json:"old_sdk"`
	Journal        *model.Case `json:"journal"`
}

func (e execOut) judged() judged {
	j := judged{Kind: e.Kind, Outcome: e.Outcome, Flagged: e.Flagged, Reason: e.Reason, OldSDK: e.OldSDK, Case: caseJSON(e.Journal)}
	if e.DuplicateGroup != nil {
		j.Group = *e.DuplicateGroup
	}
	return j
}

type groupOut struct {
	ID           string   `json:"id"`
	Pattern      string   `json:"pattern"`
	ExecutionIDs []string `json:"execution_ids"`
}

func caseJSON(c *model.Case) string {
	if c == nil {
		return ""
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// crossWorld is the binary, its environment and the sandbox the live and export sources read.
type crossWorld struct {
	t       *testing.T
	bin     string
	env     []string
	vars    map[string]string
	base    string
	journal string
}

func (w *crossWorld) run(args ...string) (string, int) {
	w.t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env = w.env
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("%v: %v", args, err)
	}
	return string(out), code
}

func (w *crossWorld) runJSON(v any, args ...string) {
	w.t.Helper()
	out, code := w.run(append(args, "--json")...)
	if code != 0 {
		w.t.Fatalf("exectriage %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		w.t.Fatalf("exectriage %s: %v", strings.Join(args, " "), err)
	}
}

// tuiDataset loads the source the way the TUI does (its backend, its builder, the journal
// read as it reads it) and returns the dataset its list shows.
func (w *crossWorld) tuiDataset(o app.Options) *Model {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w.t.Cleanup(cancel)
	o.Getenv = func(k string) string { return w.vars[k] }
	o.Background = true
	a, err := app.Open(ctx, o)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { a.Close() })
	if j, note := app.OpenJournalIfExists(ctx, o); j != nil {
		w.t.Cleanup(func() { j.Close() })
		a.UseJournal(j)
	} else {
		w.t.Fatalf("the journal: %s", note)
	}
	d := Deps{App: a, UI: Options{Since: a.Window(), Now: time.Now, DetailDelay: time.Millisecond, FollowEvery: time.Hour}}
	h := &harness{t: w.t, m: New(ctx, d.App, d.UI)}
	h.send(tea.WindowSizeMsg{Width: 160, Height: 50})
	h.run(h.m.Init())
	if h.m.load.loading || h.m.load.analyzing || h.m.sel.nextDS != nil {
		w.t.Fatalf("the TUI's load did not finish (loading %v, analyzing %v)", h.m.load.loading, h.m.load.analyzing)
	}
	return h.m
}

// TestEveryFrontJudgesAlike: for the demo, a live sandbox and an export of the
// same records, with a journal that holds a retry that took effect, verdicts that settle and
// one that does not, scan, list, show, bundle and the TUI's dataset say the same of every
// execution: kind, outcome, flagged, reason, duplicate group (members and pattern), old-SDK
// note and journal case.
func TestEveryFrontJudgesAlike(t *testing.T) {
	dir := t.TempDir()
	w := &crossWorld{t: t, bin: buildBinary(t, dir), journal: filepath.Join(dir, "journal.db")}
	// the sandbox runs on the real clock, so the retry's new log is in every window
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 47, Size: 400, Span: 36 * time.Hour, APIKey: "k-cross", Events: true,
		Approvals: []string{"SLACK_SEND_MESSAGE"}})
	w.base = base
	w.vars = map[string]string{
		"HOME": dir, "XDG_STATE_HOME": filepath.Join(dir, "state"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_CACHE_HOME": filepath.Join(dir, "cache"), "COMPOSIO_API_KEY": "k-cross", "EXECTRIAGE_JOURNAL": w.journal, "TZ": "UTC",
	}
	for k, v := range w.vars {
		w.env = append(w.env, k+"="+v)
	}
	w.env = append(w.env, "PATH="+os.Getenv("PATH"))
	live := []string{"--base-url", base}

	// The journal: a retry that took effect, a duplicate verdict and a confirmed_succeeded
	// (both settle), a confirmed_failed (does not).
	var list struct {
		Executions []execOut `json:"executions"`
	}
	retried := unsentWrite(t, srv, base)
	w.runJSON(&list, append([]string{"list", "--filter", "flagged:yes"}, live...)...)
	if !slices.ContainsFunc(list.Executions, func(e execOut) bool {
		return e.ID == retried && e.Outcome == string(model.OutcomeAmbiguous) && e.DuplicateGroup == nil
	}) {
		t.Fatalf("the send that got a 503 (%s) is not a flagged ambiguous write of no group", retried)
	}
	if out, code := w.run(append([]string{"retry", retried, "--confirm-failed", "--reason", "cross-path"}, live...)...); code != 0 {
		t.Fatalf("retry %s: exit %d %s", retried, code, out)
	}
	marks := map[model.Verdict]string{}
	for _, e := range list.Executions {
		v := model.VerdictConfirmedSucceeded
		switch {
		case e.ID == retried:
			continue
		case e.DuplicateGroup != nil && marks[model.VerdictDuplicate] == "":
			v = model.VerdictDuplicate
		case marks[model.VerdictConfirmedSucceeded] == "":
		case marks[model.VerdictConfirmedFailed] == "":
			v = model.VerdictConfirmedFailed
		default:
			continue
		}
		if marks[v] != "" {
			continue
		}
		if out, code := w.run(append([]string{"mark", e.ID, string(v), "--note", "cross-path"}, live...)...); code != 0 {
			t.Fatalf("mark %s %s: exit %d %s", e.ID, v, code, out)
		}
		marks[v] = e.ID
	}
	if len(marks) != 3 {
		t.Fatalf("verdicts recorded: %v", marks)
	}

	// An agent re-send as production makes them: a Gmail send in Portuguese fails
	// after the provider took it, and the agent writes the message in English as a draft. One
	// agent_retry group on every front: the live load must read both whole (the draft is
	// another tool's, the same caller's).
	resend := agentResendThroughADraft(t, srv, base)

	// A session call that asked for approval, and its approved re-call sent twice: the
	// ask waits, the two re-calls are one group; the same on every front.
	approval, approvalSession := approvedTwice(t, base)

	// The export: the same records, whole, the retry's new log among them.
	export := filepath.Join(dir, "export.jsonl")
	var lines []string
	for _, e := range srv.Executions() {
		b, err := json.Marshal(model.ToWire(&e, true))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	// Overlapping pages: some records a second time, one of them a list entry of a record
	// already there whole, and an earlier list entry before its detail. Each id is one
	// execution, the same one on every front.
	for _, i := range []int{3, 40, 77} {
		lines = append(lines, lines[i])
	}
	execs := srv.Executions()
	entry, _ := json.Marshal(model.ToWire(&execs[5], false))
	lines = append(lines, string(entry)) // a list entry after the whole record: the whole one stays
	entry, _ = json.Marshal(model.ToWire(&execs[9], false))
	lines = append([]string{string(entry)}, lines...) // a list entry before the whole record
	if err := os.WriteFile(export, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, src := range []struct {
		name string
		args []string
		opt  app.Options
	}{
		{"live", live, app.Options{BaseURL: base}},
		{"export", []string{"--file", export}, app.Options{File: export}},
		{"demo", []string{"--demo"}, app.Options{Demo: true}},
	} {
		t.Run(src.name, func(t *testing.T) {
			w.t = t
			if src.name == "demo" { // the demo's own journal: a verdict recorded there
				var demo struct {
					Executions []execOut `json:"executions"`
				}
				w.runJSON(&demo, "list", "--demo", "--filter", "flagged:yes")
				if len(demo.Executions) == 0 {
					t.Fatal("the demo has no flagged write")
				}
				if out, code := w.run("mark", demo.Executions[0].ID, "confirmed_succeeded", "--demo", "--note", "cross-path"); code != 0 {
					t.Fatalf("mark on the demo: %d %s", code, out)
				}
				src.opt.Journal = ""
			}
			compareFronts(t, w, src.args, src.opt, src.name != "demo", retried, marks)
			if src.name != "demo" {
				var scan struct {
					Groups []groupOut `json:"duplicate_groups"`
				}
				w.runJSON(&scan, append([]string{"scan"}, src.args...)...)
				found := false
				for _, g := range scan.Groups {
					found = found || slices.Equal(g.ExecutionIDs, resend[:]) && g.Pattern == string(model.PatternAgentRetry)
				}
				if !found {
					t.Errorf("the agent's re-send through a draft %v is no agent_retry group of its own", resend)
				}
			}
			if src.name != "demo" {
				var scan struct {
					Executions []execOut  `json:"executions"`
					Groups     []groupOut `json:"duplicate_groups"`
				}
				w.runJSON(&scan, append([]string{"scan"}, src.args...)...)
				for _, e := range scan.Executions {
					if e.ID == approval[0] && (e.Outcome != string(model.OutcomeWaiting) || e.Flagged || e.DuplicateGroup != nil) {
						t.Errorf("the call that asked for approval: %+v", e)
					}
				}
				if !slices.ContainsFunc(scan.Groups, func(g groupOut) bool { return slices.Equal(g.ExecutionIDs, approval[1:]) }) {
					t.Errorf("the approved re-call sent twice %v is no group of its own: %+v", approval[1:], scan.Groups)
				}
				var session struct {
					Steps []struct {
						ID        string `json:"id"`
						Continues string `json:"continues"`
					} `json:"steps"`
				}
				w.runJSON(&session, append([]string{"show", "--session", approvalSession}, src.args...)...)
				continued := 0
				for _, s := range session.Steps {
					if s.ID == approval[1] || s.ID == approval[2] {
						if s.Continues != approval[0] {
							t.Errorf("show --session: %s continues %q, want %s", s.ID, s.Continues, approval[0])
						}
						continued++
					}
				}
				if continued != 2 {
					t.Errorf("show --session %s: %d of the approved re-calls: %+v", approvalSession, continued, session.Steps)
				}
			}
			if src.name == "export" { // each id once, whatever copies the file holds
				var scan struct {
					Executions []execOut `json:"executions"`
				}
				w.runJSON(&scan, append([]string{"scan"}, src.args...)...)
				if ids := len(srv.Executions()); len(scan.Executions) != ids {
					t.Errorf("scan of the export: %d executions, the sandbox has %d ids", len(scan.Executions), ids)
				}
			}
		})
	}
}

// compareFronts runs scan, list, show and bundle over one source and loads the TUI on it, and
// compares what each says of every execution.
func compareFronts(t *testing.T, w *crossWorld, args []string, opt app.Options, journaled bool, retried string, marks map[model.Verdict]string) {
	var scan struct {
		Summary struct {
			Flagged, Settled int
		} `json:"summary"`
		Executions []execOut  `json:"executions"`
		Groups     []groupOut `json:"duplicate_groups"`
	}
	w.runJSON(&scan, append([]string{"scan"}, args...)...)
	var list struct {
		Executions []execOut `json:"executions"`
	}
	w.runJSON(&list, append([]string{"list"}, args...)...)
	if len(scan.Executions) < 100 || len(scan.Executions) != len(list.Executions) {
		t.Fatalf("scan %d executions, list %d", len(scan.Executions), len(list.Executions))
	}
	want := map[string]judged{}
	for _, e := range scan.Executions {
		want[e.ID] = e.judged()
	}
	groups := map[string]groupView{}
	for _, g := range scan.Groups {
		groups[g.ID] = groupView{Members: g.ExecutionIDs, Pattern: g.Pattern}
	}
	for _, e := range list.Executions {
		if got := e.judged(); got != want[e.ID] {
			t.Errorf("%s: list says %+v, scan %+v", e.ID, got, want[e.ID])
		}
	}

	// The TUI's dataset, every execution and group.
	m := w.tuiDataset(opt)
	ds := m.data.DS
	if ds.Len() != len(want) {
		t.Fatalf("the TUI holds %d executions, scan %d", ds.Len(), len(want))
	}
	for i := range ds.Len() {
		tr := ds.Triage(i)
		got := judged{Kind: string(tr.Kind), Outcome: string(tr.Outcome), Flagged: tr.Flagged, Reason: tr.Reason,
			Group: tr.GroupID, OldSDK: tr.OldSDK, Case: caseJSON(tr.Case)}
		if got != want[ds.ID(i)] {
			t.Errorf("%s: the TUI says %+v, scan %+v", ds.ID(i), got, want[ds.ID(i)])
		}
		if ds.Flag(i) != got.Flagged {
			t.Errorf("%s: the TUI's list flags it %v, its triage %v", ds.ID(i), ds.Flag(i), got.Flagged)
		}
	}
	if len(ds.Groups) != len(groups) {
		t.Errorf("the TUI has %d groups, scan %d", len(ds.Groups), len(groups))
	}
	for _, g := range ds.Groups {
		if sg, ok := groups[g.ID]; !ok || !slices.Equal(sg.Members, g.ExecutionIDs) || sg.Pattern != string(g.Pattern) {
			t.Errorf("group %s: the TUI has %v %s, scan %+v", g.ID, g.ExecutionIDs, g.Pattern, sg)
		}
	}
	if ds.Flagged != scan.Summary.Flagged || ds.Settled != scan.Summary.Settled {
		t.Errorf("the TUI's header counts %d flagged, %d settled; scan %d, %d", ds.Flagged, ds.Settled, scan.Summary.Flagged, scan.Summary.Settled)
	}
	if head := ansi.Strip(m.header.View()); !strings.Contains(head, fmt.Sprintf("!%s flagged", common.Count(scan.Summary.Flagged))) {
		t.Errorf("the header does not show scan's %d flagged: %s", scan.Summary.Flagged, head)
	}

	// The journal's cases are in the window.
	if journaled {
		settled := 0
		for _, id := range []string{retried, marks[model.VerdictDuplicate], marks[model.VerdictConfirmedSucceeded]} {
			if c := want[id]; !strings.Contains(c.Case, `"settled":true`) || c.Flagged {
				t.Errorf("%s: %+v, want settled and not flagged", id, c)
			}
			settled++
		}
		if c := want[marks[model.VerdictConfirmedFailed]]; !strings.Contains(c.Case, `"verdict":"confirmed_failed","settled":false`) || !c.Flagged {
			t.Errorf("confirmed_failed: %+v, want flagged and not settled", c)
		}
		retryLog := ""
		for id, j := range want {
			if strings.Contains(j.Case, `"retry_of":"`+retried+`"`) {
				retryLog = id
			}
		}
		if retryLog == "" || !strings.Contains(want[retried].Case, `"retry_log":"`+retryLog+`"`) {
			t.Errorf("the retry's new log is not linked: %q, %+v", retryLog, want[retried])
		}
		if scan.Summary.Settled < settled {
			t.Errorf("scan counts %d settled, want at least %d", scan.Summary.Settled, settled)
		}
	} else if scan.Summary.Settled != 1 {
		t.Errorf("the demo's journal settles %d, want 1", scan.Summary.Settled)
	}

	// show and bundle, on a sample: every execution with a case, a member of each group (up
	// to twelve), and up to twelve each of the flagged, those with an old-SDK note, and the rest.
	var sample []string
	seenGroup := map[string]bool{}
	count := map[string]int{}
	for _, e := range scan.Executions {
		j := want[e.ID]
		what := "rest"
		switch {
		case j.Case != "":
			what = "case"
		case j.Group != "":
			if seenGroup[j.Group] {
				continue
			}
			seenGroup[j.Group], what = true, "group"
		case j.Flagged:
			what = "flagged"
		case j.OldSDK != "":
			what = "old sdk"
		}
		if what != "case" && count[what] >= 12 {
			continue
		}
		count[what]++
		sample = append(sample, e.ID)
	}
	for _, id := range sample {
		var show struct {
			Triage execOut   `json:"triage"`
			Group  *groupOut `json:"duplicate_group"`
		}
		w.runJSON(&show, append([]string{"show", id}, args...)...)
		if got := show.Triage.judged(); got != want[id] {
			t.Errorf("%s: show says %+v, scan %+v", id, got, want[id])
		}
		if g := show.Group; g != nil {
			if sg := groups[g.ID]; !slices.Equal(sg.Members, g.ExecutionIDs) || sg.Pattern != g.Pattern {
				t.Errorf("%s: show's group %+v, scan's %+v", id, g, sg)
			}
		}
	}
	// request: finds a read by its request id from every source (the API lists none: the
	// server is asked), in list and in the TUI's filter.
	// (the first read that succeeded and carries a request id: a meta tool's child run, say,
	// carries none)
	var read, rid string
	for _, e := range scan.Executions {
		if e.Kind != string(model.KindRead) || e.Outcome != string(model.OutcomeSucceeded) {
			continue
		}
		var rec struct {
			Execution struct {
				Context struct {
					RequestID string `json:"request_id"`
				} `json:"context"`
			} `json:"execution"`
		}
		w.runJSON(&rec, append([]string{"show", e.ID}, args...)...)
		if rec.Execution.Context.RequestID != "" {
			read, rid = e.ID, rec.Execution.Context.RequestID
			break
		}
	}
	if read == "" {
		t.Fatal("no read that succeeded carries a request id")
	}
	var byReq struct {
		Executions []execOut `json:"executions"`
	}
	w.runJSON(&byReq, append([]string{"list", "--filter", "request:" + rid[:13] + "*"}, args...)...)
	if len(byReq.Executions) != 1 || byReq.Executions[0].ID != read {
		t.Errorf("list --filter request:%s: %+v, want %s", rid[:13], byReq.Executions, read)
	}
	h := &harness{t: t, m: m}
	h.keys("/", "request:"+rid[:13]+"*", "enter")
	if it, ok := m.list.Selected(); m.list.Len() != 1 || !ok || m.data.DS.ID(int(it.Exec)) != read {
		t.Errorf("the TUI's filter request:%s keeps %d rows, want %s", rid[:13], m.list.Len(), read)
	}

	bundleIDs := sample[:min(len(sample), 25)]
	out, code := w.run(append(append([]string{"bundle", "--no-verify"}, bundleIDs...), args...)...)
	if code != 0 {
		t.Fatalf("bundle: exit %d", code)
	}
	flagged := 0
	for _, id := range bundleIDs {
		j := want[id]
		if j.Flagged {
			flagged++
		}
		flag := ""
		if j.Flagged {
			flag = " (flagged)"
		}
		line := "- Outcome: **" + j.Outcome + "**" + flag + ": `" + j.Reason + "`"
		if !strings.Contains(out, line) {
			t.Errorf("%s: the bundle has no line %q", id, line)
		}
		if j.Group != "" && !strings.Contains(out, "`"+j.Group+"` `"+groups[j.Group].Pattern+"`") {
			t.Errorf("%s: the bundle does not name its group %s %s", id, j.Group, groups[j.Group].Pattern)
		}
		if j.OldSDK != "" && !strings.Contains(out, "triage: `"+j.OldSDK+"`") {
			t.Errorf("%s: the bundle does not carry its note %q", id, j.OldSDK)
		}
	}
	if head := fmt.Sprintf("| Executions | %d (%d flagged) |", len(bundleIDs), flagged); !strings.Contains(out, head) {
		t.Errorf("the bundle's header is not %q", head)
	}
}

// gmailAccount is a Gmail account and user of the sandbox's history.
func gmailAccount(t *testing.T, srv *sandbox.Server) (acct, user string) {
	t.Helper()
	for _, e := range srv.Executions() {
		if e.ToolSlug == "GMAIL_SEND_EMAIL" && e.ConnectedAccountID != "" && e.UserID != "" {
			return e.ConnectedAccountID, e.UserID
		}
	}
	t.Fatal("the sandbox has no Gmail account")
	return "", ""
}

// sendThroughTheAPI posts one tools/execute call to the sandbox as an agent would and returns
// the id of the log it left, after checking the answer's status.
func sendThroughTheAPI(t *testing.T, srv *sandbox.Server, base, tool, acct, user string, args map[string]any, status int) string {
	t.Helper()
	resp := postCross(t, base+"/api/v3.1/tools/execute/"+tool,
		map[string]any{"connected_account_id": acct, "user_id": user, "version": "20250909_00", "arguments": args})
	resp.Body.Close()
	if resp.StatusCode != status {
		t.Fatalf("%s: status %d, want %d", tool, resp.StatusCode, status)
	}
	subject, _ := args["subject"].(string)
	id := ""
	for _, e := range srv.Executions() { // the log the call left (a 5xx names none)
		if e.ToolSlug == tool && strings.Contains(string(e.Arguments), subject) {
			id = e.ID
		}
	}
	if id == "" {
		t.Fatalf("%s left no log", tool)
	}
	return id
}

// approvedTwice makes a session call that needs approval (the sandbox requires it for Slack
// sends), then makes the approved re-call twice, as an app that re-sends it does: the log ids of
// the ask and of the two re-calls.
func approvedTwice(t *testing.T, base string) ([3]string, string) {
	t.Helper()
	post := func(path string, body any) map[string]json.RawMessage {
		resp := postCross(t, base+"/api/v3.1/tool_router/session"+path, body)
		defer resp.Body.Close()
		var out map[string]json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode/100 != 2 {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		return out
	}
	var sid, state string
	_ = json.Unmarshal(post("", map[string]any{"user_id": "user_1"})["session_id"], &sid)
	call := map[string]any{"tool_slug": "SLACK_SEND_MESSAGE", "arguments": map[string]any{"channel": "#billing", "text": "Refund R-5521 approved for Ana Ruiz"}}
	ask := post("/"+sid+"/execute", call)
	var reqs []struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(ask["request_state"], &state)
	_ = json.Unmarshal(ask["input_requests"], &reqs)
	if state == "" || len(reqs) != 1 {
		t.Fatalf("the first call did not ask for approval: %v", ask)
	}
	var ids [3]string
	_ = json.Unmarshal(ask["log_id"], &ids[0])
	call["request_state"], call["input_responses"] = state, []map[string]any{{"id": reqs[0].ID, "approved": true}}
	for k := 1; k <= 2; k++ {
		time.Sleep(300 * time.Millisecond)
		_ = json.Unmarshal(post("/"+sid+"/execute", call)["log_id"], &ids[k])
	}
	return ids, sid
}

// unsentWrite sends a Gmail email that gets a 503 before the provider ran it: a flagged write
// the provider has nothing of, so a guarded retry may send it. The generated history holds
// such writes only on some minutes (it is generated for the minute the sandbox starts), so the
// test that retries one makes its own.
func unsentWrite(t *testing.T, srv *sandbox.Server, base string) string {
	t.Helper()
	acct, user := gmailAccount(t, srv)
	srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault5xxBeforeCommit, Count: 1})
	return sendThroughTheAPI(t, srv, base, "GMAIL_SEND_EMAIL", acct, user, map[string]any{"recipient_email": "kwame.mensah@example.org",
		"subject": "Invoice INV-30412 is ready", "body": "Hello Kwame, invoice INV-30412 for November is attached to your account."}, 503)
}

// agentResendThroughADraft sends, through the sandbox's API as an agent would, a Gmail email
// in Portuguese that fails after the provider took it (502), then the same message in English
// as a draft; it returns the two log ids.
func agentResendThroughADraft(t *testing.T, srv *sandbox.Server, base string) [2]string {
	t.Helper()
	acct, user := gmailAccount(t, srv)
	srv.ArmFault(sandbox.FaultRule{ToolSlug: "GMAIL_SEND_EMAIL", Mode: sandbox.Fault5xxAfterCommit, Count: 1})
	var ids [2]string
	for k, c := range []struct{ tool, subject, body string }{
		{"GMAIL_SEND_EMAIL", "Seu pedido A-78274 foi enviado", "Olá Ana, seu pedido A-78274 foi enviado em 14 de março. Código de rastreamento: 1Z999AA10123456784."},
		{"GMAIL_CREATE_EMAIL_DRAFT", "Your order A-78274 has shipped", "Hi Ana, your order A-78274 shipped on March 14. Tracking number: 1Z999AA10123456784."},
	} {
		ids[k] = sendThroughTheAPI(t, srv, base, c.tool, acct, user, map[string]any{"recipient_email": "Ana Ruiz <ana.ruiz@example.org>",
			"subject": c.subject, "body": c.body}, map[bool]int{true: 502, false: 200}[k == 0])
		time.Sleep(1100 * time.Millisecond) // the draft written a second later
	}
	return ids
}

// postCross POSTs body as JSON to url with the cross-path world's key; the caller closes the
// answer's body.
func postCross(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", "k-cross")
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestTheTUIsMatchesAreTheListsMatches: ranking changes the TUI's order,
// never its match set: for free text, field terms and both together, the TUI's every-match
// view (s: newest first) lists exactly the executions list --filter lists, in its order (the
// whole load's filter, app.Loaded.Filter, which list reads), and best match lists the same
// executions less the hidden scattered ones.
func TestTheTUIsMatchesAreTheListsMatches(t *testing.T) {
	e := newEnv(t)
	l, err := app.New(e.parts).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, e, 160, 40)
	for _, qs := range []string{"slack", "gmsend", "toolkit:gmail outcome:ambiguous", "send -toolkit:slack", "tool:GMAIL_SEND_EMAIL"} {
		q, err := filter.Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, i := range l.Filter(q) {
			want = append(want, l.Execs[i].ID)
		}
		h.keys("esc", "/", qs, "enter")
		wasRanked := h.m.sel.ranked
		if q.Scored() != wasRanked {
			t.Errorf("%q: ranked %v, want best match for free text only", qs, wasRanked)
		}
		if wasRanked {
			ranked := map[string]bool{}
			for _, it := range h.m.list.Items().Slice() {
				ranked[h.m.data.DS.ID(int(it.Exec))] = true
			}
			if len(ranked)+h.m.sel.hidden != len(want) {
				t.Errorf("%q: best match shows %d and hides %d, list lists %d", qs, len(ranked), h.m.sel.hidden, len(want))
			}
			for id := range ranked {
				if !slices.Contains(want, id) {
					t.Errorf("%q: best match shows %s, which list does not list", qs, id)
				}
			}
			h.keys("s")
		}
		var got []string
		for _, it := range h.m.list.Items().Slice() {
			got = append(got, h.m.data.DS.ID(int(it.Exec)))
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%q: the TUI lists %d newest first, list %d (first differing at %d)", qs, len(got), len(want), firstDiff(got, want))
		}
		if strings.Contains(h.screen(), "best match first") {
			t.Errorf("%q: newest first still says best match", qs)
		}
		if wasRanked {
			h.keys("s") // back to best match for the next query
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestTheDetailPaneNamesADuplicateSubscription: a delivery of an event that also
// went to a second webhook endpoint says so in the TUI's detail pane, as show says it.
func TestTheDetailPaneNamesADuplicateSubscription(t *testing.T) {
	cfg := sandboxConfig()
	cfg.Events = true
	cfg.Now = sandboxNow.Add(-time.Minute) // its clock runs on: the deliveries fired come before the source's now
	e := newEnvWith(t, cfg)
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer handler.Close()
	post := func(path string, body, out any) { testkit.SandboxPost(t, e.url, "test-key", path, body, out) }
	for range 2 { // one endpoint created twice
		post("/api/v3.1/webhook_endpoints", map[string]any{"url": handler.URL + "/hook"}, nil)
	}
	var fired struct {
		EventID    string `json:"event_id"`
		Deliveries []struct {
			LogID string `json:"log_id"`
		} `json:"deliveries"`
	}
	post("/_sandbox/triggers/fire", map[string]any{"user_id": "user_1"}, &fired)
	if len(fired.Deliveries) != 2 {
		t.Fatalf("fired %+v", fired)
	}
	h := newHarness(t, e, 160, 50)
	h.filterTo(fired.Deliveries[1].LogID)
	h.keys("enter")

	if got := ansi.Strip(h.m.detail.Content()); !strings.Contains(got, "duplicate subscription: event "+fired.EventID) {
		t.Errorf("the detail pane of %s does not name the duplicate subscription:\n%s", fired.Deliveries[1].LogID, got)
	}
}
