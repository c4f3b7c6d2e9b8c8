package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sandbox"
)

// cutText is a word cut short with … (sanitize.Line's mark).
var cutText = regexp.MustCompile(`\S…`)

// TestTextReportsAreWholeOffATerminal: written to a file, a report cuts nothing with …: a
// reason or a fix cut in a saved report is advice lost (scan > out.txt cut 44 of 416
// lines).
func TestTextReportsAreWholeOffATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, args := range [][]string{
		{"scan", "--file", "testdata/export.jsonl"},
		{"list", "--file", "testdata/export.jsonl"},
		{"doctor", "../doctor/testdata/projects"},
	} {
		env := newTestEnv(map[string]string{"XDG_STATE_HOME": t.TempDir()})
		if err := f.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		env.Stdout = f
		Run(t.Context(), env.Env, args)
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || cutText.Match(b) { // "10:00:00Z … 10:50:00Z" is a span, not a cut

			t.Errorf("%v to a file cuts lines with …:\n%s", args, b)
		}
	}
}

// demoSession is the tool-router session of one of the demo's session re-sends.
func demoSession(t *testing.T, vars map[string]string) string {
	t.Helper()
	_, out, _ := run(t, vars, "list", "--demo", "--json", "--limit", "1", "--filter", "pattern:session_auto_retry")
	var l struct {
		Executions []struct {
			ID string `json:"id"`
		} `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Executions) == 0 {
		t.Fatalf("no session re-send in the demo: %v", err)
	}
	_, out, _ = run(t, vars, "show", l.Executions[0].ID, "--demo", "--json")
	var s struct {
		Execution struct {
			Context struct {
				SessionID string `json:"session_id"`
			} `json:"context"`
		} `json:"execution"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Execution.Context.SessionID == "" {
		t.Fatalf("the demo's session re-send %s carries no session id: %v", l.Executions[0].ID, err)
	}
	return s.Execution.Context.SessionID
}

// A key with no recognisable shape: only the policy's knowledge of the configured key hides
// it (a key shaped like ak_... is also caught by its pattern, which would hide a bypass).
const shapelessKey = "zz9ShapelessKey0123456789abcdef"

// keyForms are the spellings of the key a record may carry; each is written into a JSON
// string of the export as is.
func keyForms() map[string]string {
	esc, pct := "", ""
	for i := range len(shapelessKey) {
		esc += fmt.Sprintf(`\u%04x`, shapelessKey[i])
		pct += fmt.Sprintf("%%%02X", shapelessKey[i])
	}
	return map[string]string{
		"raw":              shapelessKey,
		"json-escaped":     esc,
		"partly escaped":   `\u007a` + shapelessKey[1:],
		"percent-encoded":  "https://cb.example/?k=" + pct,
		"base64":           base64.StdEncoding.EncodeToString([]byte(shapelessKey)),
		"basic credential": "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+shapelessKey)),
		"in a url":         "https://cb.example/hook?token=x&k=" + shapelessKey,
	}
}

// writeKeyExport writes an export whose records hold the key in every form: in the arguments,
// the error message, and (raw) in the user id.
func writeKeyExport(t *testing.T) (path string, ids []string) {
	t.Helper()
	var b strings.Builder
	n := 0
	for name, form := range keyForms() {
		n++
		id := fmt.Sprintf("log_key%02d", n)
		ids = append(ids, id)
		user := "u_" + strings.ReplaceAll(name, " ", "_")
		if name == "raw" {
			user = shapelessKey
		}
		fmt.Fprintf(&b, `{"id":%q,"timestamp":"2026-03-01T10:%02d:00Z","status":"failed","metadata":{"tool_slug":"GMAIL_SEND_EMAIL","toolkit_slug":"gmail","user_id":%q,"connected_account_id":"ca_1"},`+
			`"error":{"kind":"timeout","message":"upstream said %s"},"data":{"request":{"arguments":{"recipient_email":"a@b.c","subject":"s","note":"%s"}}}}`+"\n",
			id, n, user, form, form)
	}
	path = filepath.Join(t.TempDir(), "keys.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

type keyCommand struct {
	name string
	args []string
}

// commandsOver are the outputs the key must never appear in.
func commandsOver(path string, ids []string) []keyCommand {
	cmds := []keyCommand{
		{"list --json", []string{"list", "--file", path, "--json"}},
		{"list", []string{"list", "--file", path}},
		{"scan --json", []string{"scan", "--file", path, "--json"}},
		{"scan", []string{"scan", "--file", path}},
		{"bundle", append([]string{"bundle", "--file", path, "--no-verify"}, ids...)},
	}
	for _, id := range ids {
		cmds = append(cmds,
			keyCommand{"show", []string{"show", "--file", path, id}},
			keyCommand{"show --json", []string{"show", "--file", path, "--json", id}},
			keyCommand{"show --reveal", []string{"show", "--file", path, "--reveal", id}},
			keyCommand{"show --json --reveal", []string{"show", "--file", path, "--json", "--reveal", id}},
		)
	}
	return cmds
}

func TestTheConfiguredKeyIsNeverPrinted(t *testing.T) {
	path, ids := writeKeyExport(t)
	oracle := redact.NewPolicy(shapelessKey)
	vars := map[string]string{"COMPOSIO_API_KEY": shapelessKey, "EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	for _, c := range commandsOver(path, ids) {
		code, out, errOut := run(t, vars, c.args...)
		if code != ExitOK {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		if oracle.Leaks(out) || oracle.Leaks(errOut) {
			t.Errorf("%v printed the configured key in some form:\n%s\n%s", c.args, out, errOut)
		}
	}
}

// The control: the same commands without the key configured print it (the policy does not
// know it), and the oracle sees it. Were the policy bypassed, the test above would fail.
func TestTheKeyTestCanFail(t *testing.T) {
	path, ids := writeKeyExport(t)
	oracle := redact.NewPolicy(shapelessKey)
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(t.TempDir(), "j.db")}
	seen := map[string]bool{}
	for _, c := range commandsOver(path, ids) {
		if _, out, _ := run(t, vars, c.args...); oracle.Leaks(out) {
			seen[c.name] = true
		}
	}
	for _, want := range []string{"list --json", "list", "scan --json", "show --reveal", "show --json --reveal"} {
		if !seen[want] {
			t.Errorf("without the key configured, %q printed no form of it: the oracle or the export is wrong (seen %v)", want, seen)
		}
	}
}

// TestNoPasswordInLocations: info and journal show a journal DSN and a base URL without their
// credentials, whatever the parameter is called (sslpassword and a base URL's
// userinfo were printed).
func TestNoPasswordInLocations(t *testing.T) {
	const secret = "pw-s3cret-77"
	dir := t.TempDir()
	for _, args := range [][]string{
		{"info", "--journal", "host=127.0.0.1 port=9 dbname=d user=u sslpassword=" + secret},
		{"info", "--json", "--journal", "postgres://u:" + secret + "@127.0.0.1:9/d?sslpassword=" + secret},
		{"info", "--base-url", "http://ana:" + secret + "@127.0.0.1:9"},
		{"info", "--json", "--base-url", "http://127.0.0.1:9/?api_key=" + secret},
		{"journal", "--journal", "host=127.0.0.1 port=9 dbname=d user=u connect_timeout=1 sslpassword=" + secret},
		{"journal", "--journal", "postgres://u:" + secret + "@127.0.0.1:9/d?connect_timeout=1"},
	} {
		_, out, errOut := run(t, map[string]string{"XDG_STATE_HOME": dir, "COMPOSIO_API_KEY": "k"}, args...)
		if strings.Contains(out+errOut, secret) || strings.Contains(out+errOut, "s3cret") {
			t.Errorf("%v shows the password:\n%s%s", args, out, errOut)
		}
	}
}

// TestAProjectWithoutStoredDataAndWithEvents: against a project whose logs keep no arguments
// or responses ("Don't store data") and carry trigger deliveries and account events beside
// the executions, doctor --api says so, a retry and a provider check say why they cannot be
// made, and the other records are listed for what they are, never flagged or grouped (issue
// 28). The sandbox's clock runs an hour behind the CLI's, so the live account event is in the window.
func TestAProjectWithoutStoredDataAndWithEvents(t *testing.T) {
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 5, Size: 400, Now: fixedNow.Add(-time.Hour), NoStoreData: true, Events: true})
	vars := map[string]string{"COMPOSIO_API_KEY": "k", "XDG_STATE_HOME": t.TempDir()}
	// a new user's first call makes an account: the logs record the event
	req, _ := http.NewRequest("POST", base+"/api/v3.1/tools/execute/GMAIL_FETCH_EMAILS", strings.NewReader(`{"user_id":"newcomer","arguments":{}}`))
	req.Header.Set("x-api-key", "k")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
		t.Fatalf("a newcomer's call: %v %v", res, err)
	}
	code, out, errOut := run(t, vars, "doctor", "--api", "--base-url", base, "--last", "100")
	if code != ExitOK || !strings.Contains(out, `"Don't store data" is on`) {
		t.Fatalf("doctor --api: %d %s %s", code, out, errOut)
	}
	code, out, errOut = run(t, vars, "scan", "--base-url", base, "--since", "720h", "--json")
	if code != ExitOK {
		t.Fatalf("scan: %d %s", code, errOut)
	}
	var sc struct {
		Executions []execJSON  `json:"executions"`
		Groups     []groupJSON `json:"duplicate_groups"`
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil {
		t.Fatal(err)
	}
	triggers, accounts, flaggedWrite := 0, 0, ""
	for _, e := range sc.Executions {
		switch {
		case strings.Contains(e.Reason, "trigger delivery"):
			triggers++
		case strings.Contains(e.Reason, "account event"):
			accounts++
		case e.Flagged && e.Outcome == "ambiguous" && e.Status != "success" && flaggedWrite == "":
			flaggedWrite = e.ID
			continue
		default:
			continue
		}
		if e.Flagged || e.Kind != "read" || e.DuplicateGroup != nil {
			t.Errorf("an event record triaged as %+v", e)
		}
	}
	if triggers == 0 || accounts == 0 || flaggedWrite == "" {
		t.Fatalf("%d trigger deliveries, %d account events, flagged write %q", triggers, accounts, flaggedWrite)
	}
	code, _, errOut = run(t, vars, "retry", flaggedWrite, "--base-url", base, "--confirm-failed", "--reason", "r")
	if code != ExitRefused || !strings.Contains(errOut, "Don't store data") {
		t.Errorf("retry without stored arguments: %d %s", code, errOut)
	}
	code, out, _ = run(t, vars, "verify", flaggedWrite, "--base-url", base)
	if code != ExitOK || !strings.Contains(out, "Don't store data") {
		t.Errorf("verify without stored arguments: %d %s", code, out)
	}
}

// TestATriggerRedeliveryIsOneGroup: in the sandbox, a trigger event delivered again
// after the app's handler answered too late, whose handler wrote each time, is one
// trigger_redelivery group linked to every delivery of the event, read from the live API (the
// deliveries from the trigger logs) and from an export of the same records; the deliveries
// themselves are never grouped as writes.
func TestATriggerRedeliveryIsOneGroup(t *testing.T) {
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 31, Size: 3000, Now: fixedNow, APIKey: "k-redeliver", Events: true})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-redeliver", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	execs := srv.Executions()
	byID := map[string]model.Execution{}
	deliveriesOf := map[string][]model.Execution{} // by event id, oldest first
	for _, e := range execs {
		byID[e.ID] = e
		if e.Delivery != nil {
			deliveriesOf[e.Delivery.EventID] = append(deliveriesOf[e.Delivery.EventID], e)
		}
	}
	for _, ds := range deliveriesOf {
		slices.SortFunc(ds, func(a, b model.Execution) int { return a.Timestamp.Compare(b.Timestamp) })
	}
	export := exportOf(t, execs)
	// the truth: each redelivered event's handler writes
	want := map[string][]string{} // group key -> members, oldest first
	for _, r := range srv.Truth() {
		if r.Case == sandbox.CaseTriggerRedelivery {
			want[r.GroupKey] = append(want[r.GroupKey], r.ID)
		}
	}
	if len(want) < 2 {
		t.Fatalf("the sandbox made %d redelivered events, want 2 or more", len(want))
	}
	// show says what identifies a delivery, and which deliveries a redelivery's write came from
	for _, ds := range deliveriesOf {
		if len(ds) < 2 {
			continue
		}
		d := ds[1]
		code, out, errOut := run(t, vars, "show", d.ID, "--base-url", base, "--since", "2000h")
		if code != ExitOK || !strings.Contains(out, "delivery  event "+d.Delivery.EventID+", attempt 2") {
			t.Errorf("show %s: %d %s\n%.600s", d.ID, code, errOut, out)
		}
		break
	}
	for _, members := range want {
		code, out, _ := run(t, vars, "show", members[0], "--base-url", base, "--since", "2000h")
		if code != ExitOK || !strings.Contains(out, "trigger deliveries: ") || !strings.Contains(out, "trigger   started by delivery ") || !strings.Contains(out, "its trace names the event") {
			t.Errorf("show %s does not name the deliveries:\n%.900s", members[0], out)
		}
		break
	}
	for _, src := range [][]string{{"--base-url", base, "--since", "2000h"}, {"--file", export}} {
		var scan struct {
			Groups []groupJSON `json:"duplicate_groups"`
		}
		code, out, errOut := run(t, vars, append([]string{"scan", "--json"}, src...)...)
		if code != ExitOK || json.Unmarshal([]byte(out), &scan) != nil {
			t.Fatalf("scan %v: %d %s", src, code, errOut)
		}
		for key, members := range want {
			slices.SortFunc(members, func(a, b string) int { ea, eb := byID[a], byID[b]; return ea.Start().Compare(eb.Start()) })
			i := slices.IndexFunc(scan.Groups, func(g groupJSON) bool { return slices.Contains(g.ExecutionIDs, members[0]) })
			if i < 0 {
				t.Errorf("%v: the handler writes of %s (%v) are in no group", src[0], key, members)
				continue
			}
			g := scan.Groups[i]
			event := strings.TrimPrefix(byID[members[0]].TraceID, "evt")
			var dls []string
			for _, d := range deliveriesOf[event] {
				dls = append(dls, d.ID)
			}
			if g.Pattern != string(model.PatternTriggerRedelivery) || !slices.Equal(g.ExecutionIDs, members) || !slices.Equal(g.Deliveries, dls) || len(dls) < 2 {
				t.Errorf("%v: group %s: %s %v deliveries %v, want trigger_redelivery %v deliveries %v\n%s", src[0], g.ID, g.Pattern, g.ExecutionIDs, g.Deliveries, members, dls, g.Reason)
			}
		}
		for _, g := range scan.Groups {
			for _, id := range g.ExecutionIDs {
				if byID[id].Type == model.TypeTriggerMessage {
					t.Errorf("%v: a trigger delivery %s is in group %s", src[0], id, g.ID)
				}
			}
			if g.Pattern == string(model.PatternTriggerRedelivery) && !slices.ContainsFunc(slices.Collect(maps.Values(want)), func(m []string) bool { return slices.Equal(m, g.ExecutionIDs) }) {
				t.Errorf("%v: group %s is named a redelivery but is none: %v", src[0], g.ID, g.ExecutionIDs)
			}
		}
	}
}

// TestAMetaToolResendIsNamedFromItsRuns: in the sandbox (and so the demo), a
// session's meta tool sent again by the SDK after a client timeout ran both its tools again:
// the runs are one session_auto_retry group, and each tool's two runs (a send, a draft) a group
// of its own (two intents), named from the runs of the meta tool and linked to their
// group; the same from the live API and from an export.
func TestAMetaToolResendIsNamedFromItsRuns(t *testing.T) {
	srv, base := testkit.StartSandbox(t, sandbox.Config{Seed: 33, Size: 4000, Now: fixedNow, APIKey: "k-meta", Events: true})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-meta", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	export := exportOf(t, srv.Executions())
	want := map[string][]string{}
	for _, r := range srv.Truth() {
		if r.Case == sandbox.CaseMetaResend {
			want[r.GroupKey] = append(want[r.GroupKey], r.ID)
		}
	}
	if len(want) < 3 {
		t.Fatalf("the sandbox made %d meta-tool groups, want 3 or more", len(want))
	}
	for _, src := range [][]string{{"--base-url", base, "--since", "2000h"}, {"--file", export}} {
		var scan struct {
			Groups []groupJSON `json:"duplicate_groups"`
		}
		code, out, errOut := run(t, vars, append([]string{"scan", "--json"}, src...)...)
		if code != ExitOK || json.Unmarshal([]byte(out), &scan) != nil {
			t.Fatalf("scan %v: %d %s", src, code, errOut)
		}
		children := 0
		for key, members := range want {
			i := slices.IndexFunc(scan.Groups, func(g groupJSON) bool { return slices.Contains(g.ExecutionIDs, members[0]) })
			if i < 0 {
				t.Errorf("%v: %s (%v) is in no group", src[0], key, members)
				continue
			}
			g := scan.Groups[i]
			got := slices.Clone(g.ExecutionIDs)
			slices.Sort(got)
			slices.Sort(members)
			if g.Pattern != string(model.PatternSessionAutoRetry) || !slices.Equal(got, members) {
				t.Errorf("%v: group %s: %s %v, want session_auto_retry %v\n%s", src[0], g.ID, g.Pattern, g.ExecutionIDs, members, g.Reason)
			}
			if g.ToolSlug != "COMPOSIO_MULTI_EXECUTE_TOOL" {
				children++
				runs := slices.IndexFunc(scan.Groups, func(r groupJSON) bool { return r.ID == g.MetaGroup })
				if !strings.Contains(g.Reason, "the meta tool was sent again and ran the tools it holds again") || len(g.ExecutionIDs) != 2 ||
					len(g.MetaRuns) != 2 || runs < 0 || scan.Groups[runs].ToolSlug != "COMPOSIO_MULTI_EXECUTE_TOOL" ||
					!slices.Contains(scan.Groups[runs].ExecutionIDs, g.MetaRuns[0]) {
					t.Errorf("%v: group %s of a meta tool's children is not named from its runs, or not linked to their group: %s (runs %v, group %q)",
						src[0], g.ID, g.Reason, g.MetaRuns, g.MetaGroup)
				}
			}
		}
		if children < 1 || children*3 != len(want)*2 {
			t.Errorf("%v: %d groups of children for %d meta-tool groups", src[0], children, len(want))
		}
	}
}

// exportOf writes the records as an export of the Logs API (detail shape, one per line) and
// returns its path.
func exportOf(t *testing.T, execs []model.Execution) string {
	t.Helper()
	var lines []string
	for _, e := range execs {
		b, err := json.Marshal(model.ToWire(&e, true))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	export := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(export, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return export
}

// TestADuplicateSubscriptionIsToldWithoutWrites: two webhook endpoints of one URL (a
// create sent twice) receive every event once each; the handler writes nothing. scan names the
// event a duplicate subscription from its deliveries alone (text and JSON, valid against the
// schema) and show of either delivery says so; a project with one endpoint has none. The trigger
// logs name no endpoint and no attempt: the second delivery, after a first that succeeded, is no
// redelivery (Composio delivers again only after a failure).
func TestADuplicateSubscriptionIsToldWithoutWrites(t *testing.T) {
	const key = "k-subs"
	_, base := testkit.StartSandbox(t, sandbox.Config{APIKey: key, Seed: 4, Size: 50, Now: fixedNow.Add(-time.Minute), Events: true}) // its clock runs on: the deliveries fired come before the CLI's now)
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer handler.Close()
	post := func(path string, body, out any) { testkit.SandboxPost(t, base, key, path, body, out) }
	dir := t.TempDir()
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(dir, "j.db"), "COMPOSIO_API_KEY": key, "XDG_STATE_HOME": dir}
	scan := func() (subs []struct {
		EventID    string   `json:"event_id"`
		Deliveries []string `json:"deliveries"`
		Endpoints  []string `json:"endpoints"`
	}) {
		t.Helper()
		code, out, errOut := run(t, vars, "scan", "--json", "--base-url", base, "--no-cache")
		if code != ExitOK {
			t.Fatalf("scan: %d %s", code, errOut)
		}
		validAnswer(t, "scan", out)
		var doc struct {
			Subs []struct {
				EventID    string   `json:"event_id"`
				Deliveries []string `json:"deliveries"`
				Endpoints  []string `json:"endpoints"`
			} `json:"duplicate_subscriptions"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Subs
	}
	type fired struct {
		EventID    string `json:"event_id"`
		Deliveries []struct {
			LogID   string `json:"log_id"`
			Attempt int    `json:"attempt"`
			Status  int    `json:"status"`
			Error   string `json:"error"`
		} `json:"deliveries"`
	}
	post("/api/v3.1/webhook_endpoints", map[string]any{"url": handler.URL + "/hook"}, nil)
	var one fired
	post("/_sandbox/triggers/fire", map[string]any{"user_id": "user_1"}, &one)
	if subs := scan(); len(subs) != 0 {
		t.Fatalf("one endpoint, one delivery: %+v", subs)
	}
	post("/api/v3.1/webhook_endpoints", map[string]any{"url": handler.URL + "/hook"}, nil) // the create sent again
	var two fired
	post("/_sandbox/triggers/fire", map[string]any{"user_id": "user_1"}, &two)
	if len(two.Deliveries) != 2 {
		t.Fatalf("deliveries %+v, want one to each endpoint", two.Deliveries)
	}
	subs := scan()
	if len(subs) != 1 || subs[0].EventID != two.EventID || len(subs[0].Deliveries) != 2 || len(subs[0].Endpoints) == 1 {
		t.Fatalf("duplicate subscriptions %+v, want event %s's two deliveries", subs, two.EventID)
	}
	code, out, errOut := run(t, vars, "scan", "--base-url", base, "--no-cache")
	if code != ExitOK || !strings.Contains(out, "duplicate subscriptions: 1 events delivered to two webhook endpoints or more") || !strings.Contains(out, two.EventID) {
		t.Fatalf("scan's text: %d %s\n%s", code, errOut, out)
	}
	for _, d := range two.Deliveries {
		code, out, errOut := run(t, vars, "show", d.LogID, "--base-url", base, "--no-cache")
		if code != ExitOK || !strings.Contains(out, "duplicate subscription: event "+two.EventID) {
			t.Errorf("show %s: %d %s\n%s", d.LogID, code, errOut, out)
		}
	}
	if code, out, _ := run(t, vars, "show", one.Deliveries[0].LogID, "--base-url", base, "--no-cache"); code != ExitOK || strings.Contains(out, "duplicate subscription") {
		t.Errorf("the single delivery is said to be a duplicate subscription:\n%s", out)
	}
}
