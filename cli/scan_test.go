package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/internal/testkit/benchdata"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sandbox"
	"github.com/exectriage/exectriage/triage"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixedNow is after every record of testdata/export.jsonl.
var fixedNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

type testEnv struct {
	*Env
	out, err *bytes.Buffer
}

// newTestEnv is an Env with captured output, the given variables only, and the test config
// (built-in defaults) so the user's own config cannot leak in.
func newTestEnv(vars map[string]string) testEnv {
	out, errb := &bytes.Buffer{}, &bytes.Buffer{}
	get := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		if k == "EXECTRIAGE_CONFIG" {
			return "testdata/config.toml"
		}
		return ""
	}
	return testEnv{&Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errb, Getenv: get, Now: func() time.Time { return fixedNow }}, out, errb}
}

func run(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	env := newTestEnv(vars)
	code = Run(context.Background(), env.Env, args)
	return code, env.out.String(), env.err.String()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestScanJSONGolden(t *testing.T) {
	code, out, errOut := run(t, nil, "scan", "--file", "testdata/export.jsonl", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "scan.golden.json", []byte(out))

	// The documented shape, checked independently of the golden file.
	var doc struct {
		Executions []map[string]any `json:"executions"`
		Groups     []map[string]any `json:"duplicate_groups"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Executions) != 18 {
		t.Fatalf("%d executions, want 18", len(doc.Executions))
	}
	var prev string
	groupOf := map[string]string{}
	for _, e := range doc.Executions {
		for _, k := range []string{"id", "tool_slug", "toolkit_slug", "kind", "outcome", "flagged", "reason", "duplicate_group"} {
			if _, ok := e[k]; !ok {
				t.Errorf("execution %v lacks %q", e["id"], k)
			}
		}
		if !slices.Contains([]string{"read", "idempotent_write", "write"}, e["kind"].(string)) ||
			!slices.Contains([]string{"succeeded", "failed", "rejected", "ambiguous"}, e["outcome"].(string)) {
			t.Errorf("bad kind/outcome in %v", e)
		}
		switch g := e["duplicate_group"].(type) {
		case nil:
		case string:
			groupOf[e["id"].(string)] = g
		default:
			t.Errorf("duplicate_group of %v is %T, want a string or null", e["id"], g)
		}
		ts := e["timestamp"].(string)
		if prev != "" && ts > prev {
			t.Errorf("executions not newest first: %s after %s", ts, prev)
		}
		prev = ts
	}
	if len(doc.Groups) == 0 {
		t.Fatal("no duplicate groups found in an export with three bursts")
	}
	for _, g := range doc.Groups {
		if !slices.Contains([]string{"sdk_auto_retry", "app_retry", "double_submit"}, g["pattern"].(string)) {
			t.Errorf("bad pattern in %v", g)
		}
		for _, id := range g["execution_ids"].([]any) {
			if groupOf[id.(string)] != g["id"] {
				t.Errorf("member %v of %v has duplicate_group %q", id, g["id"], groupOf[id.(string)])
			}
		}
	}
	// Flagged: writes only, never a read.
	for _, e := range doc.Executions {
		if e["flagged"] == true && e["kind"] == "read" {
			t.Errorf("read flagged: %v", e["id"])
		}
	}
}

func TestScanHumanReport(t *testing.T) {
	code, out, errOut := run(t, nil, "scan", "--file", "testdata/export.jsonl")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "scan.golden.txt", []byte(out))
	for _, want := range []string{"source: FILE export.jsonl", "flagged writes:", "duplicate groups:", "old SDKs:", "Python composio 0.15.2"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Error("a terminal control from the data reached stdout")
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantIDs []string // in order; nil means "check count only"
		count   int
	}{
		{name: "all", args: nil, count: 18},
		{name: "field and flag", args: []string{"--filter", "tool:gmail_send* flagged:yes"}, wantIDs: []string{"log_G10", "log_G02", "log_G01"}},
		{name: "fuzzy", args: []string{"--filter", "gmsend"}, count: 6}, // the five GMAIL_SEND_EMAIL rows, and log_S18 whose haystack spells it out
		{name: "user", args: []string{"--filter", "user:hank"}, wantIDs: []string{"log_H14", "log_H13", "log_H12"}},
		{name: "negated status", args: []string{"--filter", "-status:success kind:read"}, wantIDs: []string{"log_G08"}},
		{name: "positional query", args: []string{"outcome:rejected"}, wantIDs: []string{"log_P07"}},
		{name: "nothing", args: []string{"--filter", "zzzzqqq"}, count: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"list", "--file", "testdata/export.jsonl"}, tt.args...)
			code, out, errOut := run(t, nil, args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if out == "" {
				lines = nil
			}
			var got []string
			for _, l := range lines {
				f := strings.Fields(l)
				got = append(got, f[len(f)-1])
			}
			if tt.wantIDs != nil && !slices.Equal(got, tt.wantIDs) {
				t.Errorf("ids = %v, want %v\n%s", got, tt.wantIDs, out)
			}
			if tt.wantIDs == nil && len(got) != tt.count {
				t.Errorf("%d lines, want %d\n%s", len(got), tt.count, out)
			}
			if !strings.Contains(errOut, "source: FILE export.jsonl") {
				t.Errorf("stderr lacks the source note: %q", errOut)
			}
			// JSON: the same rows, as scan's execution objects.
			code, jout, _ := run(t, nil, append(args, "--json")...)
			var doc struct {
				Executions []execJSON `json:"executions"`
			}
			if code != ExitOK || json.Unmarshal([]byte(jout), &doc) != nil {
				t.Fatalf("--json: exit %d, %q", code, jout)
			}
			var jids []string
			for _, e := range doc.Executions {
				jids = append(jids, e.ID)
			}
			if !slices.Equal(jids, got) {
				t.Errorf("--json ids %v, text ids %v", jids, got)
			}
		})
	}
}

func TestListLineFormat(t *testing.T) {
	_, out, _ := run(t, nil, "list", "--file", "testdata/export.jsonl", "--filter", "id:log_G02")
	want := "2026-03-01 10:01:00Z  GMAIL_SEND_EMAIL  gmail  alice/ca_alice  failed     30.0s  AMBIGUOUS  DUP×3  log_G02\n"
	if out != want {
		t.Errorf("list line\n got %q\nwant %q", out, want)
	}
}

func TestShow(t *testing.T) {
	code, out, errOut := run(t, nil, "show", "log_G02", "--file", "testdata/export.jsonl")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"source: FILE export.jsonl", "execution log_G02", "outcome   ambiguous", "group ", "old SDK", "record:", `"recipient_email": "carol@example.com"`} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, nil, "show", "--json", "--file", "testdata/export.jsonl", "log_G02")
	var doc struct {
		Execution      model.WireRecord `json:"execution"`
		Triage         execJSON         `json:"triage"`
		DuplicateGroup *groupJSON       `json:"duplicate_group"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("show --json: exit %d %q", code, out)
	}
	if doc.Execution.ID != "log_G02" || doc.Triage.Outcome != "ambiguous" || doc.DuplicateGroup == nil || len(doc.DuplicateGroup.ExecutionIDs) != 3 {
		t.Errorf("show --json = %+v", doc)
	}
	// The escape sequence in log_S18's error must not reach the terminal.
	_, out, _ = run(t, nil, "show", "log_S18", "--file", "testdata/export.jsonl")
	if strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, "connection reset") {
		t.Errorf("unsanitized show:\n%q", out)
	}
}

func TestVerifyFileSourceIsUnknown(t *testing.T) {
	code, out, errOut := run(t, nil, "verify", "log_G02", "--file", "testdata/export.jsonl", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		ID       string              `json:"id"`
		State    string              `json:"state"`
		Evidence model.ProviderState `json:"provider"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ID != "log_G02" || doc.State != "unknown" || !strings.HasPrefix(doc.Evidence.Reason, "no API access for a file source") {
		t.Errorf("verify = %+v", doc)
	}
	code, out, _ = run(t, nil, "verify", "log_G02", "--file", "testdata/export.jsonl")
	if code != ExitOK || !strings.Contains(out, "UNKNOWN") {
		t.Errorf("verify text: %d %q", code, out)
	}
}

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		args []string
		code int
		want string // in stderr
	}{
		{"missing file", nil, []string{"scan", "--file", "testdata/nope.jsonl"}, ExitUsage, "nope.jsonl"},
		{"truncated file", nil, []string{"scan", "--file", "testdata/truncated.jsonl"}, ExitUsage, "testdata/truncated.jsonl:1: truncated"},
		{"not an export", nil, []string{"list", "--file", "testdata/config.toml"}, ExitUsage, "testdata/config.toml:1: not JSON"},
		{"unknown id", nil, []string{"show", "log_nope", "--file", "testdata/export.jsonl"}, ExitUsage, "no execution log_nope in FILE export.jsonl"},
		{"verify unknown id", nil, []string{"verify", "log_nope", "--file", "testdata/export.jsonl"}, ExitUsage, "no execution log_nope in FILE export.jsonl"},
		{"show without id", nil, []string{"show", "--file", "testdata/export.jsonl"}, ExitUsage, "want exactly one execution ID"},
		{"verify two ids", nil, []string{"verify", "a", "b"}, ExitUsage, "want exactly one execution ID"},
		{"scan argument", nil, []string{"scan", "extra"}, ExitUsage, `unexpected argument "extra"`},
		{"bad since", nil, []string{"scan", "--since", "yesterday"}, ExitUsage, "not a duration"},
		{"bad filter", nil, []string{"list", "--file", "testdata/export.jsonl", "--filter", "foo:bar"}, ExitUsage, `unknown field "foo"`},
		{"no readable record", nil, []string{"list", "--file", "testdata/norecs.jsonl"}, ExitUsage, "testdata/norecs.jsonl: no readable record (2 unreadable"},
		{"unknown command, no stray space", nil, []string{"nope"}, ExitUsage, "exectriage: unknown command \"nope\""},
		{"typo in a fixed vocabulary", nil, []string{"list", "--file", "testdata/export.jsonl", "--filter", "outcome:ambigous"}, ExitUsage, `did you mean outcome:ambiguous?`},
		{"demo and file", nil, []string{"scan", "--demo", "--file", "testdata/export.jsonl"}, ExitUsage, "--demo cannot be combined"},
		{"remote without key", nil, []string{"scan", "--base-url", "https://backend.example.com"}, ExitUsage, "COMPOSIO_API_KEY is not set"},
		{"bad config", map[string]string{"EXECTRIAGE_CONFIG": "testdata/nope.toml"}, []string{"scan", "--file", "testdata/export.jsonl"}, ExitUsage, "nope.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.vars, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.code, tt.want)
			}
			if out != "" {
				t.Errorf("stdout on error: %q", out)
			}
		})
	}
}

func TestBadLinesAreReportedAndSkipped(t *testing.T) {
	code, out, errOut := run(t, nil, "scan", "--file", "testdata/bad_line.jsonl", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "testdata/bad_line.jsonl: line 2: record is not a JSON object") {
		t.Errorf("stderr = %q", errOut)
	}
	var doc scanJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Executions) != 2 {
		t.Errorf("loaded %d executions (%v)", len(doc.Executions), err)
	}
}

func TestSinceOnAFile(t *testing.T) {
	// fixedNow is 2026-03-02 12:00; the export spans 10:00-10:50 on 2026-03-01.
	_, out, _ := run(t, nil, "list", "--file", "testdata/export.jsonl", "--since", "25h30m")
	if n := strings.Count(out, "\n"); n != 9 {
		t.Errorf("--since 25h30m kept %d executions, want the 9 from 10:30 on:\n%s", n, out)
	}
}

// TestAPISources runs the commands against a sandbox served on loopback: as --base-url
// (no key needed on loopback) and as the demo. Their history ends now, so the clock is real;
// it spans six days, so that none of it is at the edge of the seven-day window by the time
// scan asks (a busy machine once put the oldest record a moment past it).
func TestAPISources(t *testing.T) {
	ctx := t.Context()
	srv, base, err := sandbox.Start(ctx, sandbox.Config{Seed: 7, Size: 300, Span: 6 * 24 * time.Hour}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// The history is generated for the minute the sandbox starts, and on some minutes it holds
	// no duplicate group: make one as an app that re-sends a Slack message after a 502 does.
	sendTwice(t, srv, base)
	realNow := func(e testEnv) testEnv { e.Now = time.Now; return e }

	env := realNow(newTestEnv(nil))
	if code := Run(ctx, env.Env, []string{"scan", "--base-url", base, "--json"}); code != ExitOK {
		t.Fatalf("scan --base-url: exit %d: %s", code, env.err)
	}
	var doc scanJSON
	if err := json.Unmarshal(env.out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.Source, "LIVE 127.0.0.1:") || len(doc.Executions) != 302 {
		t.Fatalf("source %q, %d executions, want 302", doc.Source, len(doc.Executions))
	}
	if doc.Summary.Flagged == 0 || len(doc.DuplicateGroups) == 0 {
		t.Errorf("sandbox history triaged to %d flagged, %d groups", doc.Summary.Flagged, len(doc.DuplicateGroups))
	}

	// show and verify a flagged write; the sandbox knows the truth, so verify must decide.
	var flagged string
	for _, e := range doc.Executions {
		if e.Flagged && e.Kind == "write" {
			flagged = e.ID
			break
		}
	}
	env = realNow(newTestEnv(nil))
	if code := Run(ctx, env.Env, []string{"show", flagged, "--base-url", base}); code != ExitOK || !strings.Contains(env.out.String(), "execution "+flagged) {
		t.Errorf("show %s: exit %d %s %s", flagged, code, env.out, env.err)
	}
	env = realNow(newTestEnv(nil))
	if code := Run(ctx, env.Env, []string{"verify", flagged, "--base-url", base, "--json"}); code != ExitOK {
		t.Fatalf("verify: exit %d: %s", code, env.err)
	}
	var v verifyJSON
	if err := json.Unmarshal(env.out.Bytes(), &v); err != nil || v.ID != flagged || v.State == "" {
		t.Errorf("verify = %+v (%v)", v, err)
	}
	env = realNow(newTestEnv(nil))
	if code := Run(ctx, env.Env, []string{"show", "log_nope", "--base-url", base}); code != ExitUsage || !strings.Contains(env.err.String(), "no execution log_nope in LIVE") {
		t.Errorf("show unknown id on the API: exit %d %s", code, env.err)
	}

	// COMPOSIO_BASE_URL alone, on loopback, is a local sandbox: no key needed.
	env = realNow(newTestEnv(map[string]string{"COMPOSIO_BASE_URL": base}))
	if code := Run(ctx, env.Env, []string{"scan", "--since", "1h"}); code != ExitOK || !strings.HasPrefix(env.out.String(), "source: LIVE 127.0.0.1:") {
		t.Errorf("COMPOSIO_BASE_URL on loopback: exit %d, %q %s", code, firstLine(env.out.String()), env.err)
	}

	// The demo: nothing extra on stdout for --json, the source named in the text header.
	env = realNow(newTestEnv(nil))
	if code := Run(ctx, env.Env, []string{"scan", "--demo", "--since", "2h", "--json"}); code != ExitOK {
		t.Fatalf("scan --demo: exit %d: %s", code, env.err)
	}
	if err := json.Unmarshal(env.out.Bytes(), &doc); err != nil || doc.Source != "DEMO" {
		t.Errorf("demo json: source %q, %v", doc.Source, err)
	}
	env = realNow(newTestEnv(nil)) // no key at all: the demo is the default
	if code := Run(ctx, env.Env, []string{"scan", "--since", "1h"}); code != ExitOK || !strings.HasPrefix(env.out.String(), "source: DEMO") {
		t.Errorf("default source: exit %d, %q", code, firstLine(env.out.String()))
	}
}

func firstLine(s string) string {
	if before, _, ok := strings.Cut(s, "\n"); ok {
		return before
	}
	return s
}

// BenchmarkScanFile100k scans an export of 100,000 detail records (classification and
// duplicate groups), the way `exectriage scan --file F --json` does.
func BenchmarkScanFile100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "export.jsonl")
	writeBenchExport(b, path, 100_000)
	for b.Loop() {
		env := newTestEnv(nil)
		env.Stdout = io.Discard
		if code := Run(context.Background(), env.Env, []string{"scan", "--file", path, "--json"}); code != ExitOK {
			b.Fatalf("exit %d: %s", code, env.err)
		}
	}
}

// writeBenchExport writes n records: mostly reads and successful writes, with timeouts,
// 5xx and duplicate bursts sprinkled in.
func writeBenchExport(b *testing.B, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	tools := []struct{ slug, kit string }{
		{"GMAIL_SEND_EMAIL", "gmail"}, {"GMAIL_FETCH_EMAILS", "gmail"}, {"SLACK_SEND_MESSAGE", "slack"},
		{"GITHUB_CREATE_AN_ISSUE", "github"}, {"HUBSPOT_SEARCH_CONTACTS", "hubspot"}, {"GMAIL_ADD_LABEL_TO_EMAIL", "gmail"},
	}
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	for i := range n {
		tl := tools[i%len(tools)]
		at := start.Add(time.Duration(i) * 3 * time.Second)
		k := i // whose account and arguments: every 100th record repeats the call 6 records back
		if i%100 == 6 {
			k = i - 6
		}
		e := model.Execution{
			ID: fmt.Sprintf("log_%07d", i), Timestamp: at, StartTime: at, ToolSlug: tl.slug, ToolkitSlug: tl.kit,
			UserID: fmt.Sprintf("user_%d", k%900), ConnectedAccountID: fmt.Sprintf("ca_%d", k%900), Status: model.StatusSuccess,
			Duration: 700 * time.Millisecond, HasDuration: true, RequestID: fmt.Sprintf("req_%d", i), RetryCount: -1,
			Arguments: json.RawMessage(fmt.Sprintf(`{"recipient_email":"u%d@example.com","subject":"Order %d","body":"Thanks for your order."}`, k%900, k)),
			Response:  json.RawMessage(`{"data":{"id":"x"},"error":null,"successful":true}`),
		}
		e.EndTime = at.Add(e.Duration)
		switch i % 50 {
		case 7:
			e.Status, e.Error = model.StatusFailed, &model.ExecError{Message: "Read timed out", Kind: model.ErrTimeout}
			e.Duration, e.EndTime = 60*time.Second, at.Add(60*time.Second)
		case 19:
			e.Status, e.Error = model.StatusFailed, &model.ExecError{Message: "502 Bad Gateway", Kind: model.ErrUpstream5xx, HTTPStatus: 502}
		}
		line, err := json.Marshal(model.ToWire(&e, true))
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		if buf.Len() > 1<<20 {
			f.Write(buf.Bytes())
			buf.Reset()
		}
	}
	f.Write(buf.Bytes())
}

func TestTimeoutFlagSetsTheCallersTimeout(t *testing.T) {
	outcome := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(t, nil, append([]string{"show", "log_G10", "--file", "testdata/export.jsonl", "--json"}, args...)...)
		var doc showJSON
		if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return doc.Triage.Outcome
	}
	// log_G10 succeeded after 75 s: past the default 60 s the caller saw a timeout.
	if got := outcome(); got != "ambiguous" {
		t.Errorf("default timeout: %s", got)
	}
	if got := outcome("--timeout", "90s"); got != "succeeded" {
		t.Errorf("--timeout 90s: %s", got)
	}
}

// sendTwice posts one Slack message through the sandbox's API, failing after the provider took
// it (502), then the same message again a second later: a duplicate group in any history.
func sendTwice(t *testing.T, srv *sandbox.Server, base string) {
	t.Helper()
	testkit.SendSlack(t, srv, base, "any-key", "Deploy 7781 rolled back", sandbox.Fault5xxAfterCommit)
	time.Sleep(1100 * time.Millisecond)
	testkit.SendSlack(t, srv, base, "any-key", "Deploy 7781 rolled back", "")
}

// referenceScan is scan as it was before it streamed: every record loaded whole (nothing
// dropped), triaged by Analyze over all of them, then printed.
func referenceScan(t *testing.T, vars map[string]string, file string, asJSON bool, since ...time.Duration) string {
	t.Helper()
	env := newTestEnv(vars)
	ctx := context.Background()
	o := app.Options{File: file, Getenv: env.Getenv, Now: env.Now}
	if len(since) > 0 {
		o.Since, o.SinceSet = since[0], true
	}
	a, err := app.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	l, err := a.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sc := app.ScannedOf(l)
	r := newScanReport(env.Env, a, sc)
	r.indexFirstMembers()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if asJSON {
		if err := r.writeScanJSON(w); err != nil {
			t.Fatal(err)
		}
	} else {
		r.scanReport(w, env.Now())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// scanVariants writes one generated history in the shapes an export comes in: newest first
// (as the generator writes), oldest first, shuffled, with repeated records, blank and bad
// lines, and gzipped.
func scanVariants(t *testing.T, dir string, seed uint64, n int) map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := benchdata.Write(context.Background(), &buf, benchdata.Config{N: n, Seed: seed, Span: 3 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	r := rand.New(rand.NewPCG(seed, 11))
	out := map[string]string{}
	write := func(name string, ls [][]byte, gz bool) {
		p := filepath.Join(dir, fmt.Sprintf("%d-%s.jsonl", seed, name))
		data := bytes.Join(ls, nil)
		if gz {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			data, p = z.Bytes(), p+".gz"
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	write("newest-first", lines, false)
	rev := slices.Clone(lines)
	slices.Reverse(rev)
	write("oldest-first", rev, false)
	shuf := slices.Clone(lines)
	r.Shuffle(len(shuf), func(a, b int) { shuf[a], shuf[b] = shuf[b], shuf[a] })
	write("shuffled", shuf, false)
	var messy [][]byte
	for i, l := range shuf {
		messy = append(messy, l)
		switch {
		case i%97 == 0:
			messy = append(messy, l) // the same record twice
		case i%89 == 0:
			messy = append(messy, []byte("\n"), []byte("{\"id\": \"broken\n"))
		}
	}
	write("messy", messy, false)
	write("gzip", lines, true)
	return out
}

// The streaming scan prints byte for byte what the in-memory scan prints, as JSON and as
// text, over exports in every order and shape, including a gzip export whose decompressed
// copy cannot be made (its candidates are then kept whole as they stream).
func TestStreamingScanMatchesLoadingEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("generates exports")
	}
	dir := t.TempDir()
	groups := 0
	for _, seed := range []uint64{1, 2, 3} {
		for name, file := range scanVariants(t, dir, seed, 1500+int(seed)*700) {
			for _, asJSON := range []bool{true, false} {
				args := []string{"scan", "--file", file}
				if asJSON {
					args = append(args, "--json")
				}
				code, got, errOut := run(t, nil, args...)
				if code != ExitOK {
					t.Fatalf("%s: exit %d: %s", name, code, errOut)
				}
				want := referenceScan(t, nil, file, asJSON)
				if got != want {
					t.Fatalf("seed %d %s (json %v): the streaming scan differs from loading everything:\n%s", seed, name, asJSON, testkit.LineDiff(want, got))
				}
				if asJSON {
					groups += bytes.Count([]byte(got), []byte(`"pattern":`))
				}
			}
		}
	}
	if groups < 50 {
		t.Fatalf("only %d groups over all files: the comparison says little", groups)
	}
	// a window cut from the file (--since): the rows, the candidates and the groups of what is
	// inside it only
	shuffled := scanVariants(t, dir, 5, 3000)["shuffled"]
	since := fixedNow.Sub(time.Date(2026, 2, 28, 22, 30, 0, 0, time.UTC)) // half the history
	code, got, errOut := run(t, nil, "scan", "--file", shuffled, "--json", "--since", since.String())
	want := referenceScan(t, nil, shuffled, true, since)
	if code != ExitOK || got != want {
		t.Fatalf("--since: exit %d %s\n%s", code, errOut, testkit.LineDiff(want, got))
	}
	all := referenceScan(t, nil, shuffled, true)
	if strings.Count(got, `"id":"log_`) == 0 || strings.Count(got, `"id":"log_`) >= strings.Count(all, `"id":"log_`) {
		t.Fatalf("--since kept %d of %d executions: the window cut nothing or everything", strings.Count(got, `"id":"log_`), strings.Count(all, `"id":"log_`))
	}
	// a gzip export whose decompressed copy cannot be written
	file := scanVariants(t, dir, 4, 2000)["gzip"]
	want = referenceScan(t, nil, file, true)
	t.Setenv("TMPDIR", filepath.Join(dir, "no-such-dir"))
	code, got, errOut = run(t, nil, "scan", "--file", file, "--json")
	if code != ExitOK || got != want {
		t.Fatalf("gzip without a spool: exit %d %s\n%s", code, errOut, testkit.LineDiff(want, got))
	}
}

// benchData returns the path of a generated export (make bench-data) of the given name, from
// $EXECTRIAGE_BENCH_DATA or the repository's bench-data/; the benchmark is skipped without it.
func benchData(b *testing.B, name string) string {
	dir := os.Getenv("EXECTRIAGE_BENCH_DATA")
	if dir == "" {
		dir = filepath.Join("..", "bench-data")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s not found: run make bench-data", p)
	}
	return p
}

// BenchmarkScanFile1M is `exectriage scan --file bench-data/1m.jsonl --json` in process: load,
// classification, duplicate groups and the JSON report (to io.Discard). The benchmark suite
// also runs the real binary, for its peak RSS.
func BenchmarkScanFile1M(b *testing.B) {
	path := benchData(b, "1m.jsonl")
	for b.Loop() {
		env := newTestEnv(nil)
		env.Stdout = io.Discard
		if code := Run(context.Background(), env.Env, []string{"scan", "--file", path, "--json"}); code != ExitOK {
			b.Fatalf("exit %d: %s", code, env.err)
		}
	}
}

// BenchmarkScanFileProduction1M is the same scan of the production-shaped export (benchdata's
// Production bodies: 4.2 KB a record, make bench generates bench-data/1m-production.jsonl).
func BenchmarkScanFileProduction1M(b *testing.B) {
	path := benchData(b, "1m-production.jsonl")
	for b.Loop() {
		env := newTestEnv(nil)
		env.Stdout = io.Discard
		if code := Run(context.Background(), env.Env, []string{"scan", "--file", path, "--json"}); code != ExitOK {
			b.Fatalf("exit %d: %s", code, env.err)
		}
	}
}

// TestNewCmdScan: scan's argv binds its options (in any order), and an argv it refuses never
// reaches runF.
func TestNewCmdScan(t *testing.T) {
	newCmdTable(t, NewCmdScan, []argvCase[ScanOptions]{
		{argv: "--file x.jsonl --json", want: func(o *ScanOptions) string {
			return differs("file", o.Source.file, "x.jsonl", "json", o.Source.json, true)
		}},
		{argv: "--demo --timeout 30s", want: func(o *ScanOptions) string {
			return differs("demo", o.Source.demo, true, "timeout", o.Source.timeout, 30*time.Second, "timeSet", o.Source.timeSet, true)
		}},
		{argv: "x", wantErr: "unexpected argument"},
		{argv: "--limit 3", wantErr: "unknown flag: --limit"},
	})
}

// TestARateLimitedScanSaysWhatItRead: while scan waits for the API's rate
// limit, its stderr line says how many executions it has read so far, as the TUI's header does.
func TestARateLimitedScanSaysWhatItRead(t *testing.T) {
	_, base := testkit.StartSandbox(t, sandbox.Config{Seed: 6, Size: 600, Now: fixedNow, APIKey: "k-rate", RateLimit: 20, RateLimitWindow: time.Second})
	vars := map[string]string{"COMPOSIO_API_KEY": "k-rate", "XDG_STATE_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	code, _, errOut := run(t, vars, "scan", "--base-url", base, "--since", "720h", "--no-cache")
	if code != ExitOK {
		t.Fatalf("scan: %d %s", code, errOut)
	}
	m := regexp.MustCompile(`waiting \S+ for the API's rate limit[^\n]*; (\d+) executions read so far`).FindStringSubmatch(errOut)
	if m == nil || m[1] == "0" {
		t.Fatalf("the waits do not say what was read: %q", errOut)
	}
}

// Every path reaches the same duplicate groups as show: scan --json's groups over a live
// sandbox load and over the demo (whose list entries carry no arguments, like the Logs API's)
// are the groups show reports for each member, members and all (groups lost their
// last, successful attempt), near-duplicates (agent_retry) included.
func TestScanGroupsAgreeWithShow(t *testing.T) {
	srv, base, err := sandbox.Start(context.Background(), sandbox.Config{Seed: 1, Size: 1500, Now: fixedNow}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, src := range []struct {
		name string
		args []string
	}{{"live sandbox", []string{"--base-url", base}}, {"demo", []string{"--demo"}}} {
		t.Run(src.name, func(t *testing.T) { scanAgreesWithShow(t, src.args) })
	}
}

func scanAgreesWithShow(t *testing.T, source []string) {
	dir := t.TempDir()
	vars := map[string]string{"EXECTRIAGE_JOURNAL": filepath.Join(dir, "j.db"), "COMPOSIO_API_KEY": "k-groups", "XDG_STATE_HOME": dir}
	code, out, errOut := run(t, vars, append([]string{"scan", "--json"}, source...)...)
	if code != ExitOK {
		t.Fatalf("scan: %d %s", code, errOut)
	}
	var scan struct {
		Groups []struct {
			ID           string   `json:"id"`
			Pattern      string   `json:"pattern"`
			ExecutionIDs []string `json:"execution_ids"`
		} `json:"duplicate_groups"`
	}
	if err := json.Unmarshal([]byte(out), &scan); err != nil {
		t.Fatal(err)
	}
	if len(scan.Groups) < 10 {
		t.Fatalf("only %d groups on the demo", len(scan.Groups))
	}
	var all struct {
		Executions []struct {
			ID, Timestamp, ToolSlug string
			UserID                  string `json:"user_id"`
			Account                 string `json:"connected_account_id"`
		} `json:"executions"`
	}
	code, out, errOut = run(t, vars, append([]string{"list", "--json"}, source...)...)
	if code != ExitOK {
		t.Fatalf("list: %d %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for i, e := range all.Executions {
		byID[e.ID] = i
	}
	// the execution of the same tool and caller right after a group's last member (newest
	// first: the one before it in the list): the attempt a lossy grouping left out
	next := func(last string) string {
		i, ok := byID[last]
		if !ok {
			return ""
		}
		e := all.Executions[i]
		for k := i - 1; k >= 0; k-- {
			n := all.Executions[k]
			if n.ToolSlug == e.ToolSlug && n.Account == e.Account && n.UserID == e.UserID {
				return n.ID
			}
		}
		return ""
	}
	checked, agent := 0, 0
	for gi, g := range scan.Groups {
		if g.Pattern == "agent_retry" {
			agent++
		} else if gi >= 15 {
			continue // each show builds the source again: 15 groups and every near-duplicate
		}
		ids := []string{g.ExecutionIDs[0], g.ExecutionIDs[len(g.ExecutionIDs)-1]}
		if n := next(g.ExecutionIDs[len(g.ExecutionIDs)-1]); n != "" {
			ids = append(ids, n)
		}
		for k, id := range ids {
			code, out, errOut := run(t, vars, append([]string{"show", id, "--json"}, source...)...)
			if code != ExitOK {
				t.Fatalf("show %s: %d %s", id, code, errOut)
			}
			var show struct {
				Group *struct {
					ExecutionIDs []string `json:"execution_ids"`
				} `json:"duplicate_group"`
			}
			if err := json.Unmarshal([]byte(out), &show); err != nil {
				t.Fatal(err)
			}
			if show.Group == nil {
				if k < 2 {
					t.Errorf("%s is in scan's group %s but show puts it in none", id, g.ID)
				}
				continue
			}
			a, b := append([]string(nil), g.ExecutionIDs...), append([]string(nil), show.Group.ExecutionIDs...)
			sort.Strings(a)
			sort.Strings(b)
			if strings.Join(a, ",") != strings.Join(b, ",") {
				t.Errorf("group of %s: scan %v, show %v", id, g.ExecutionIDs, show.Group.ExecutionIDs)
			}
			checked++
		}
	}
	if agent == 0 {
		t.Error("no agent_retry (near-duplicate) group to compare")
	}
	t.Logf("%d groups (%d agent_retry), %d members compared", len(scan.Groups), agent, checked)
}

// A success whose data is the provider's failure reads alike on every path: `list --file
// --json` (the one-pass parser, which keeps a response by its members, then the loader's
// reading) gives each record the outcome Classify gives the record decoded whole, and the
// failures among them are not "succeeded".
func TestADataFailureReadsAlikeLoadedAndDecoded(t *testing.T) {
	bodies := []string{
		`{"successful":true,"error":null,"data":{"ok":false,"error":"channel_not_found","warning":"missing_charset"}}`,
		`{"successful":true,"data":{"error":{"code":503,"message":"The service is currently unavailable."}}}`,
		`{"successful":true,"data":{"Error_Message":"Recipient rejected","numErrors":1}}`,
		`{"successful":true,"data":{"status":"404","message":"Not Found"}}`,
		`{"successful":true,"data":{"id":"m1","errors":["row 4: invalid date"]}}`,
		`{"successful":true,"data":{"\u006fk":false}}`,               // an escaped key: the parser's slow path
		`{"status":404,"data":{"message":"Not Found"},"headers":{}}`, // a proxy's answer relaying the provider's status
		`{"successful":true,"data":{"ok":true,"error":null,"errors":[]}}`,
		`{"successful":true,"data":{"messages":[{"ok":false}],"status":200}}`,
	}
	var file bytes.Buffer
	var execs []model.Execution
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i, b := range bodies {
		e := model.Execution{ID: fmt.Sprintf("log_df%02d", i), ToolSlug: "SLACK_SEND_MESSAGE", ToolkitSlug: "slack", Status: "success",
			Timestamp: at, StartTime: at, Response: json.RawMessage(b), Arguments: json.RawMessage(`{"channel":"C1","text":"hi"}`),
			Detailed: true, RetryCount: -1}
		line, err := json.Marshal(model.ToWire(&e, true))
		if err != nil {
			t.Fatal(err)
		}
		file.Write(append(line, '\n'))
		execs = append(execs, e)
		at = at.Add(time.Hour)
	}
	path := filepath.Join(t.TempDir(), "data-failures.jsonl")
	if err := os.WriteFile(path, file.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runAt(t, at, nil, "list", "--file", path, "--json")
	if code != ExitOK {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	var l demoList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range l.Executions {
		got[e.ID] = e.Outcome
	}
	failures := 0
	for i := range execs {
		want, why := triage.Classify(&execs[i], model.KindWrite, triage.Options{})
		if got[execs[i].ID] != string(want) {
			t.Errorf("%s: loaded %q, decoded %s (%s)", bodies[i], got[execs[i].ID], want, why)
		}
		if want != model.OutcomeSucceeded {
			failures++
		}
	}
	if failures != 7 {
		t.Errorf("%d of the records read as other than a success, want the 7 whose data is a failure", failures)
	}
}
