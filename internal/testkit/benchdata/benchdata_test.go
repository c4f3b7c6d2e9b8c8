package benchdata

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
)

func TestWriteIsSeededNewestFirstAndParses(t *testing.T) {
	var a, b bytes.Buffer
	st, err := Write(context.Background(), &a, Config{N: 3000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(context.Background(), &b, Config{N: 3000, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed, different bytes")
	}
	if st.Records != 3000 || st.Bytes != int64(a.Len()) || st.Failed == 0 || st.Duplicates == 0 {
		t.Errorf("stats %+v", st)
	}
	lines := bytes.Split(bytes.TrimSuffix(a.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != 3000 {
		t.Fatalf("%d lines", len(lines))
	}
	var prev model.Execution
	ids := map[string]bool{}
	for i, l := range lines {
		e, err := model.ParseRecord(l)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !e.Detailed || e.ToolSlug == "" || e.ConnectedAccountID == "" || e.Arguments == nil && e.IsToolExecution() || ids[e.ID] { // a trigger delivery has no arguments
			t.Fatalf("line %d: %+v", i+1, e)
		}
		ids[e.ID] = true
		if i > 0 && e.Timestamp.After(prev.Timestamp) {
			t.Fatalf("line %d is newer than the line before", i+1)
		}
		prev = e
	}
	var c bytes.Buffer
	if _, err := Write(context.Background(), &c, Config{N: 3000, Seed: 8}); err != nil || bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Errorf("another seed gave the same bytes (%v)", err)
	}
}

// The bench traffic carries every cause triage names (sessions, frameworks and agents
// included) and near-misses that must stay ungrouped (realistic traffic).
func TestTrafficHasEveryCause(t *testing.T) {
	t.Run("generator", func(t *testing.T) { testTrafficHasEveryCause(t, false) })
	// production bodies change the bytes, not the executions' causes: every one is still there
	t.Run("production", func(t *testing.T) { testTrafficHasEveryCause(t, true) })
}

func testTrafficHasEveryCause(t *testing.T, production bool) {
	var buf bytes.Buffer
	st, err := Write(context.Background(), &buf, Config{N: 40000, Seed: 3, Production: production})
	if err != nil {
		t.Fatal(err)
	}
	if per := st.Bytes / int64(st.Records); production && per < 3000 || !production && per > 1500 {
		t.Errorf("%d bytes a record (production %v)", per, production)
	}
	var execs []model.Execution
	for l := range bytes.SplitSeq(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")) {
		e, err := model.ParseRecord(l)
		if err != nil {
			t.Fatal(err)
		}
		execs = append(execs, e)
	}
	res := triage.Analyze(execs, triage.NewKinds(), triage.Options{})
	count := map[model.RetryPattern]int{}
	for _, g := range res.Groups {
		count[g.Pattern]++
	}
	t.Logf("groups by cause: %v", count)
	for _, p := range model.Patterns() {
		if count[p] == 0 {
			t.Errorf("no %s group in 40k records", p)
		}
	}
	sessions := 0
	for i := range execs {
		if execs[i].SessionID != "" {
			sessions++
			if !strings.HasPrefix(execs[i].SessionID, "trs_") {
				t.Fatalf("a session id %q outside a tool-router session", execs[i].SessionID)
			}
		}
	}
	if sessions == 0 || sessions > len(execs)/50 {
		t.Errorf("%d of %d records carry a session id", sessions, len(execs))
	}
}
