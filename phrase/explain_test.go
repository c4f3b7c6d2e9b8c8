package phrase

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/source"
)

// TestExplainSaysWhatToDo: every kind of failure gets one line with what happened and what to
// do next, in the words of the front that shows it.
func TestExplainSaysWhatToDo(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, tt := range []struct {
		err   error
		again Again
		want  string
	}{
		{nil, AgainCLI, ""},
		{&client.APIError{StatusCode: 401}, AgainCLI, "not authorised: check COMPOSIO_API_KEY"},
		{&client.APIError{StatusCode: 429}, AgainTUI, "wait a minute, then press R"},
		{&client.APIError{StatusCode: 429}, AgainCLI, "wait a minute, then run the command again"},
		{&client.APIError{StatusCode: 503}, AgainTUI, "press R to try again later"},
		{&client.APIError{StatusCode: 400, Message: "bad"}, AgainCLI, "400"},
		{&source.FileError{Path: "x", Msg: "not JSON"}, AgainCLI, "bad file"},
		{fmt.Errorf("no execution: %w", source.ErrNotFound), AgainTUI, "aged out of the window; press R"},
		{fmt.Errorf("no execution: %w", source.ErrNotFound), AgainCLI, "(--since)"},
		{context.DeadlineExceeded, AgainCLI, "timed out"},
		{&url.Error{Op: "Post", URL: "http://x", Err: errors.New("connection refused")}, AgainCLI, "network error"},
		{errors.New(long), AgainCLI, "…"},
	} {
		if got := Explain(tt.err, tt.again); !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("Explain(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	// a file that is not there is no network error, wherever the path comes from
	missing := &fs.PathError{Op: "open", Path: "/nowhere/journal.db", Err: syscall.ENOENT}
	if got := Explain(fmt.Errorf("journal: %w", missing), AgainCLI); strings.Contains(got, "network") || !strings.Contains(got, "/nowhere/journal.db: no such file") {
		t.Errorf("Explain(a missing file) = %q", got)
	}
}
