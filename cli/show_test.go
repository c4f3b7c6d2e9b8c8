package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/triage"
)

// show prints the whole record: secrets in it are redacted unless --reveal is given, and the
// configured API key is never printed, with or without it.
func TestShowRedactsSecrets(t *testing.T) {
	const key = "ak_live_0123456789abcdefSECRET"
	rec := `{"id":"log_sec","timestamp":"2026-03-01T10:00:00Z","status":"success","metadata":{"tool_slug":"GITHUB_CREATE_AN_ISSUE","toolkit_slug":"github"},` +
		`"data":{"request":{"arguments":{"title":"t","access_token":"ghp_abcdefghijklmnopqrstuvwxyz0123456789","note":"key ` + key + `"}}}}`
	path := filepath.Join(t.TempDir(), "sec.jsonl")
	if err := os.WriteFile(path, []byte(rec+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"COMPOSIO_API_KEY": key}
	for _, args := range [][]string{{"show", "--file", path, "log_sec"}, {"show", "--file", path, "--json", "log_sec"}} {
		code, out, stderr := run(t, vars, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(out, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || strings.Contains(out, key) {
			t.Errorf("%v printed a secret:\n%s", args, out)
		}
		if !strings.Contains(out, "REDACTED") {
			t.Errorf("%v: no redaction marker:\n%s", args, out)
		}
	}
	code, out, _ := run(t, vars, "show", "--file", path, "--reveal", "log_sec")
	if code != ExitOK || !strings.Contains(out, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("--reveal did not show the token (exit %d):\n%s", code, out)
	}
	if strings.Contains(out, key) {
		t.Errorf("--reveal printed the API key:\n%s", out)
	}
}

// TestNewCmdShow: show's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdShow(t *testing.T) {
	newCmdTable(t, NewCmdShow, []argvCase[ShowOptions]{
		{argv: "log_1 --reveal --json", want: func(o *ShowOptions) string {
			return differs("ID", o.ID, "log_1", "Reveal", o.Reveal, true, "json", o.Source.json, true)
		}},
		{argv: "--session trs_1", want: func(o *ShowOptions) string { return differs("Session", o.Session, "trs_1", "ID", o.ID, "") }},
		{argv: "", wantErr: "want exactly one execution ID"},
		{argv: "a b", wantErr: "want exactly one execution ID"},
	})
}

// show --session ID is the session's timeline as the TUI's t shows it (triage.Timeline: in the
// order they ran, a meta tool's children under it): the same executions as list --session, with
// the gaps, and every duplicate group among them. Wrong uses exit 2.
func TestShowSessionIsTheTimeline(t *testing.T) {
	base, vars, bySession := sessionSandbox(t)
	for sid, want := range sessionsOfTwo(t, bySession, 3) {
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
