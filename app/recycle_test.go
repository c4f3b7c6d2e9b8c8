package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/internal/testkit"
	"github.com/exectriage/exectriage/model"
)

// A session streams an export in batches its caller may hand back (Recycle) for the load to
// fill again; SizeHint guesses the export's size for the whole file and says nothing for a
// window, which may cut it anywhere.
func TestSizeHintAndRecycle(t *testing.T) {
	var recs strings.Builder
	for i := range 40_000 { // twenty chunks: more than the load can parse ahead of its consumer
		if i > 0 {
			recs.WriteByte('\n')
		}
		fmt.Fprintf(&recs, `{"id":"log_%05d","status":"success","metadata":{"tool_slug":"GMAIL_SEND_EMAIL"}}`, i)
	}
	a := openExport(t, recs.String(), Options{Background: true})
	if got := a.SizeHint(0); got < 40_000 || got > 48_000 {
		t.Errorf("SizeHint(0) = %d, want 40,000 or a little more", got)
	}
	if got := a.SizeHint(time.Hour); got != 0 {
		t.Errorf("SizeHint(1h) = %d, want 0", got)
	}
	consumer := testkit.NewRefills(a.Recycle)
	n := 0
	err := a.Stream(context.Background(), 0, func(b []model.Execution) error {
		for i := range b {
			if want := fmt.Sprintf("log_%05d", n); b[i].ID != want {
				return fmt.Errorf("record %d is %s", n, b[i].ID)
			}
			n++
		}
		consumer.Take(b)
		return nil
	})
	if err != nil || n != 40_000 {
		t.Fatalf("Stream: %d records, %v", n, err)
	}
	if consumer.Refilled == 0 {
		t.Errorf("none of %d batches was an array the session's caller handed back", consumer.Batches)
	}
}
