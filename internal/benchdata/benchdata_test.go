package benchdata

import (
	"bytes"
	"context"
	"testing"

	"github.com/exectriage/exectriage/model"
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
		if !e.Detailed || e.ToolSlug == "" || e.ConnectedAccountID == "" || e.Arguments == nil || ids[e.ID] {
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
