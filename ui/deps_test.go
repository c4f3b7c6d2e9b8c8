package ui

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestExplainSaysWhatToDo(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{context.DeadlineExceeded, "check your connection"},
		{errors.New("plain"), "plain"},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}, "file does not exist"},
	} {
		if got := Explain(tt.err); !strings.Contains(got, tt.want) {
			t.Errorf("Explain(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
