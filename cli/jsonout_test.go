package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// appendStamp writes what AppendFormat writes, in every year it handles itself and beyond.
func TestAppendStampMatchesAppendFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 3, 4, 5, 6, 7, 8e6, time.UTC), time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.FixedZone("x", 5*3600+1800))}
	for range 20000 {
		times = append(times, time.Unix(r.Int64N(1<<38)-1<<37, r.Int64N(1e9)))
	}
	for _, tm := range times {
		if got, want := string(appendStamp([]byte("x"), tm)), "x"+tm.UTC().Format(model.WireTime); got != want {
			t.Fatalf("%v: %q, AppendFormat %q", tm, got, want)
		}
	}
}

// appendJSONString writes what json.Marshal and sanitize.JSON write, for every byte at every
// place of a word, and for random mixes of plain and special bytes.
func TestAppendJSONStringMatchesMarshal(t *testing.T) {
	want := func(s string) string {
		q, _ := json.Marshal(s)
		return string(sanitize.JSON(q))
	}
	for c := range 256 {
		for at := range 9 {
			s := strings.Repeat("a", at) + string([]byte{byte(c)}) + strings.Repeat("b", 16-at)
			if got := string(appendJSONString(nil, s)); got != want(s) {
				t.Fatalf("byte %#x at %d: %s, want %s", c, at, got, want(s))
			}
		}
	}
	alphabet := []string{"a", "Z", "0", "_", "-", "\"", "\\", "<", ">", "&", "\x00", "\x1f", " ", "\x7f", "é", "\xff", "\u2028", "~", "!", "="}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			if r.IntN(4) == 0 {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			} else {
				b.WriteString("log_")
			}
		}
		s := b.String()
		if got := string(appendJSONString([]byte("x"), s)); got != "x"+want(s) {
			t.Fatalf("%q: %s, want %s", s, got, want(s))
		}
	}
}

// TestAppendExecJSONMatchesEncoder holds the hand-written EXEC encoder to encoding/json's
// output for toExecJSON, byte for byte, on awkward text and numbers.
func TestAppendExecJSONMatchesEncoder(t *testing.T) {
	text := rapid.OneOf(
		rapid.SampledFrom([]string{"", "GMAIL_SEND_EMAIL", "a<b>&c", `quote " back \ slash`, "tab\tnl\ncr\r\x00\x1f\x7f", "é日本😀", "\u2028\u2029", "bad\xff\xfeutf8", "dup-1a2b"}),
		rapid.String(),
		rapid.StringOf(rapid.RuneFrom(nil, unicode.Latin, unicode.Cc, unicode.Han)),
	)
	rapid.Check(t, func(rt *rapid.T) {
		e := model.Execution{
			ID: text.Draw(rt, "id"), ToolSlug: text.Draw(rt, "tool"), ToolkitSlug: text.Draw(rt, "kit"),
			UserID: text.Draw(rt, "user"), ConnectedAccountID: text.Draw(rt, "account"), Status: text.Draw(rt, "status"),
			RequestID: text.Draw(rt, "req"),
		}
		if rapid.Bool().Draw(rt, "has_ts") {
			e.Timestamp = time.Unix(rapid.Int64Range(-1e11, 1e11).Draw(rt, "ts"), rapid.Int64Range(0, 1e9-1).Draw(rt, "ns"))
		}
		if rapid.Bool().Draw(rt, "has_dur") {
			e.HasDuration = true
			e.Duration = time.Duration(rapid.OneOf(rapid.Int64Range(-10, 10), rapid.Int64(), rapid.Int64Range(0, 1e12)).Draw(rt, "dur"))
		}
		tr := model.Triage{
			Kind: model.ToolKind(text.Draw(rt, "kind")), Outcome: model.Outcome(text.Draw(rt, "outcome")), Flagged: rapid.Bool().Draw(rt, "flagged"),
			Reason: text.Draw(rt, "reason"), GroupID: text.Draw(rt, "group"), OldSDK: text.Draw(rt, "old"),
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(toExecJSON(&e, &tr, func(s string) string { return s })); err != nil {
			rt.Fatal(err)
		}
		got := appendExecJSON(nil, &e, &tr, nil)
		if string(got) != strings.TrimSuffix(string(sanitize.JSON(want.Bytes())), "\n") {
			rt.Fatalf("appendExecJSON:\n got %s\nwant %s", got, want.String())
		}
	})
}

func TestWriteArrayLinesParallelMatchesSequential(t *testing.T) {
	item := func(b []byte, k int) []byte { return fmt.Appendf(b, `{"k":%d}`, k) }
	for _, n := range []int{0, 1, 5, 16383, 16384, 40000, 100001} {
		var seq, par bytes.Buffer
		if err := writeArrayLines(&seq, n, item); err != nil {
			t.Fatal(err)
		}
		if err := writeArrayLinesParallel(&par, n, item); err != nil {
			t.Fatal(err)
		}
		if seq.String() != par.String() {
			t.Errorf("n=%d: parallel output differs (%d vs %d bytes)", n, par.Len(), seq.Len())
		}
	}
}

// failAfter accepts n writes, then fails.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

// A write that fails stops the parallel writer with its error: the workers end, nothing hangs.
func TestWriteArrayLinesParallelStopsOnAWriteError(t *testing.T) {
	item := func(b []byte, k int) []byte { return fmt.Appendf(b, `{"k":%d}`, k) }
	for _, n := range []int{0, 1, 3} {
		done := make(chan error, 1)
		go func() { done <- writeArrayLinesParallel(&failAfter{n: n}, 500_000, item) }()
		select {
		case err := <-done:
			if err == nil || err.Error() != "disk full" {
				t.Fatalf("after %d writes: %v, want the write's error", n, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("after %d writes: the writer hung", n)
		}
	}
}

const schemaFile = "../docs/schema/exectriage.schema.json"

// compileAnswer compiles the schema of one command's answer ($defs/name).
func compileAnswer(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	abs, err := filepath.Abs(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile(abs + "#/$defs/" + name)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return sch
}

// validAnswer checks one --json answer against its schema.
func validAnswer(t *testing.T, name, out string) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%.400s", name, err, out)
	}
	if err := compileAnswer(t, name).Validate(doc); err != nil {
		t.Errorf("%s's answer does not match docs/schema/exectriage.schema.json#/$defs/%s:\n%v\n%.600s", name, name, err, out)
	}
}

// TestJSONAnswersMatchTheSchema: every command's --json answer validates against the schema
// users read (docs/schema, explained in docs/json.md), which closes every object: a key added
// to an answer without being written down fails here.
func TestJSONAnswersMatchTheSchema(t *testing.T) {
	w := newPlacementWorld(t)
	state := filepath.Join(t.TempDir(), "state")
	copyDir(t, w.template, state)
	vars := w.varsFor(state)
	file := []string{"--file", "testdata/export.jsonl"}
	demoWrite := flaggedDemoWrite(t, vars)
	must := func(code int, args ...string) string {
		t.Helper()
		got, out, errOut := run(t, vars, args...)
		if got != code {
			t.Fatalf("%v: exit %d, want %d: %s", args, got, code, errOut)
		}
		return out
	}
	validAnswer(t, "scan", must(ExitOK, append([]string{"scan", "--json"}, file...)...))
	demoScan := must(ExitOK, "scan", "--demo", "--json")
	validAnswer(t, "scan", demoScan)
	if !strings.Contains(demoScan, `"other_causes":[{"cause":"`) {
		t.Error("scan --demo --json: no group lists other causes (the demo has groups named from timing alone)")
	}
	validAnswer(t, "list", must(ExitOK, append([]string{"list", "--json", "--limit", "3"}, file...)...))
	validAnswer(t, "show", must(ExitOK, append([]string{"show", "log_G01", "--json"}, file...)...))
	validAnswer(t, "show", must(ExitOK, append([]string{"show", "log_S18", "--json"}, file...)...))
	validAnswer(t, "show_session", must(ExitOK, "show", "--session", demoSession(t, vars), "--demo", "--json"))
	validAnswer(t, "verify", must(ExitOK, append([]string{"verify", "log_G01", "--json"}, file...)...))
	validAnswer(t, "verify", must(ExitOK, "verify", demoWrite, "--demo", "--json"))
	validAnswer(t, "retry", must(ExitRefused, "retry", demoWrite, "--demo", "--json"))
	sent := must(ExitOK, "retry", demoWrite, "--demo", "--json", "--confirm-failed", "--reason", "schema")
	validAnswer(t, "retry", sent)
	attempt := regexp.MustCompile(`"id": "([0-9a-f-]{36})"`).FindStringSubmatch(sent)
	if attempt == nil {
		t.Fatalf("no attempt id in %s", sent)
	}
	validAnswer(t, "resolve", must(ExitOK, "resolve", attempt[1], "--demo", "--json"))
	validAnswer(t, "mark", must(ExitOK, append([]string{"mark", "log_G02", "ignored", "--json"}, file...)...))
	validAnswer(t, "journal", must(ExitOK, "journal", "--json"))
	validAnswer(t, "journal", must(ExitOK, "journal", "--demo", "--json"))
	validAnswer(t, "info", must(ExitOK, "info", "--json"))
	events := strings.Split(strings.TrimSpace(must(ExitOK, "watch", "--demo", "--once", "--json")), "\n")
	if len(events) < 10 {
		t.Fatalf("watch --demo --once --json told %d events", len(events))
	}
	for _, line := range events {
		validAnswer(t, "watch_event", line)
	}
	validAnswer(t, "doctor", must(ExitFinding, "doctor", "../doctor/testdata/projects", "--json"))
	validAnswer(t, "doctor", must(ExitFinding, "doctor", "../doctor/testdata/callpaths", "--json"))
	validAnswer(t, "doctor", must(ExitFinding, "doctor", "../doctor/testdata/filekinds", "--json"))
	validAnswer(t, "doctor_api", must(ExitOK, "doctor", "--api", "--demo", "--last", "50", "--json"))

	// mark's answer names what it marked (it said "" for the verdict's id)
	var m struct {
		ExecutionID string `json:"execution_id"`
		Verdict     struct {
			ID          string `json:"id"`
			ExecutionID string `json:"execution_id"`
		} `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(must(ExitOK, append([]string{"mark", "log_G03", "ignored", "--json"}, file...)...)), &m); err != nil ||
		m.ExecutionID != "log_G03" || m.Verdict.ExecutionID != "log_G03" || m.Verdict.ID == "" {
		t.Errorf("mark --json: %+v %v", m, err)
	}
}

// TestTheSchemaRefusesWhatIsNotWrittenDown: the schema can fail: an answer with a key it does
// not name, or without schema_version, is refused.
func TestTheSchemaRefusesWhatIsNotWrittenDown(t *testing.T) {
	for _, bad := range []string{
		`{"schema_version": 1, "source": "x", "matched": 0, "executions": [], "extra": 1}`,
		`{"source": "x", "matched": 0, "executions": []}`,
		`{"schema_version": 2, "source": "x", "matched": 0, "executions": []}`,
	} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if compileAnswer(t, "list").Validate(doc) == nil {
			t.Errorf("the list schema accepts %s", bad)
		}
	}
}

// TestJSONDocsNameEveryAnswer: docs/json.md explains every answer the schema defines.
func TestJSONDocsNameEveryAnswer(t *testing.T) {
	doc, err := os.ReadFile("../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"scan", "list", "show", "show --session", "verify", "retry", "resolve", "mark", "journal", "info", "doctor", "doctor --api"} {
		if !strings.Contains(string(doc), "## `"+cmd+" --json`") && !strings.Contains(string(doc), "## `"+cmd+"`") {
			t.Errorf("docs/json.md has no section for %s", cmd)
		}
	}
	if !strings.Contains(string(doc), "schema_version") {
		t.Error("docs/json.md does not explain schema_version")
	}
}
