package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
)

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
	tried := 0
	for sid, want := range bySession {
		if len(want) < 2 {
			continue
		}
		if tried++; tried > 3 {
			break
		}
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
	if tried == 0 {
		t.Fatal("the sandbox has no session of two")
	}
}

// A bundle of a session's execution carries the session's timeline: every execution of it,
// oldest first, this one marked.
func TestABundleCarriesTheSessionTimeline(t *testing.T) {
	base, vars, bySession := sessionSandbox(t)
	for sid, execs := range bySession {
		if len(execs) < 2 {
			continue
		}
		out := filepath.Join(t.TempDir(), "b.md")
		if code, _, errOut := run(t, vars, "bundle", execs[1].ID, "--out", out, "--no-verify", "--base-url", base); code != ExitOK {
			t.Fatalf("bundle: %d %s", code, errOut)
		}
		b, _ := os.ReadFile(out)
		text := string(b)
		head := fmt.Sprintf("Session `%s`, %d executions, oldest first:", sid, len(execs))
		i := strings.Index(text, head)
		if i < 0 {
			t.Fatalf("the bundle has no timeline of session %s:\n%s", sid, text)
		}
		last := i
		for _, e := range execs {
			j := strings.Index(text[i:], "`"+e.ID+"`")
			if j < 0 || i+j < last {
				t.Fatalf("the timeline lacks %s or has it out of order:\n%s", e.ID, text[i:])
			}
			last = i + j
		}
		if !strings.Contains(text[i:], "`"+execs[1].ID+"` ") || !strings.Contains(text[i:], "(this execution)") {
			t.Errorf("the bundle's own execution is not marked:\n%s", text[i:])
		}
		return
	}
	t.Fatal("the sandbox has no session of two")
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

// show --session ID is the session's timeline as the TUI's t shows it (triage.Timeline: in the
// order they ran, a meta tool's children under it): the same executions as list --session, with
// the gaps, and every duplicate group among them. Wrong uses exit 2.
func TestShowSessionIsTheTimeline(t *testing.T) {
	base, vars, bySession := sessionSandbox(t)
	tried := 0
	for sid, want := range bySession {
		if len(want) < 2 {
			continue
		}
		if tried++; tried > 3 {
			break
		}
		code, out, errOut := run(t, vars, "show", "--session", sid, "--json", "--base-url", base, "--since", "2000h")
		var s struct {
			Session string `json:"session"`
			Steps   []struct {
				ID             string  `json:"id"`
				DuplicateGroup *string `json:"duplicate_group"`
				GapMS          *int64  `json:"gap_ms"`
			} `json:"steps"`
			Groups []groupJSON `json:"duplicate_groups"`
		}
		if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil {
			t.Fatalf("show --session %s: %d %s", sid, code, errOut)
		}
		var got, ids []string
		for k, st := range s.Steps {
			got = append(got, st.ID)
			if (st.GapMS != nil) != (k > 0) {
				t.Errorf("step %d of %s: gap %v", k, sid, st.GapMS)
			}
			if st.DuplicateGroup != nil && !slices.ContainsFunc(s.Groups, func(g groupJSON) bool { return g.ID == *st.DuplicateGroup }) {
				t.Errorf("step %s is in group %s, which the answer leaves out", st.ID, *st.DuplicateGroup)
			}
		}
		for _, ts := range triage.Timeline(want) {
			ids = append(ids, want[ts.Index].ID)
		}
		if s.Session != sid || !slices.Equal(got, ids) {
			t.Errorf("show --session %s: %s %v, want %v", sid, s.Session, got, ids)
		}
		// the same executions as list --session
		code, out, _ = run(t, vars, "list", "--session", sid, "--json", "--base-url", base, "--since", "2000h")
		var l struct {
			Executions []execJSON `json:"executions"`
		}
		if code != ExitOK || json.Unmarshal([]byte(out), &l) != nil {
			t.Fatalf("list --session %s: %d", sid, code)
		}
		var listed []string
		for _, e := range l.Executions {
			listed = append(listed, e.ID)
		}
		slices.Sort(listed)
		slices.Sort(got)
		if !slices.Equal(listed, got) {
			t.Errorf("show --session and list --session disagree on %s: %v vs %v", sid, got, listed)
		}
	}
	if tried == 0 {
		t.Fatal("the sandbox has no session of two")
	}
	for _, args := range [][]string{
		{"show", "--session", "trs_none", "--base-url", base},
		{"show", "--session", "trs_x", "log_1", "--base-url", base},
		{"show", "--session", " ", "--base-url", base},
		{"show", "--base-url", base},
	} {
		if code, _, errOut := run(t, vars, args...); code != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, want %d and one line: %q", args, code, ExitUsage, errOut)
		}
	}
}
