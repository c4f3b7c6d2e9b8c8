package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
	"pgregory.net/rapid"
)

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
