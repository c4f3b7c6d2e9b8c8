package phrase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"strings"

	"github.com/exectriage/exectriage/client"
	"github.com/exectriage/exectriage/source"
)

// Again is how a person runs the failed step again: the TUI says "press R", the CLI "run it
// again".
type Again string

const (
	AgainTUI Again = "press R"
	AgainCLI Again = "run the command again"
)

// Explain turns an error into one line saying what happened and what to do about it, the one
// wording the CLI and the TUI share. The caller redacts and sanitizes it for its output.
func Explain(err error, again Again) string {
	if err == nil {
		return ""
	}
	var ae *client.APIError
	var fe *source.FileError
	var ne net.Error
	var ue *url.Error
	var se *json.SyntaxError
	switch {
	case errors.As(err, &ae) && (ae.StatusCode == 401 || ae.StatusCode == 403):
		return fmt.Sprintf("HTTP %d, not authorised: check COMPOSIO_API_KEY (and COMPOSIO_BASE_URL), then %s", ae.StatusCode, again)
	case errors.As(err, &ae) && ae.StatusCode == 429:
		if again == AgainTUI {
			return "HTTP 429, rate limited: wait a minute, then press R (the list keeps what it had)"
		}
		return "HTTP 429, rate limited: wait a minute, then " + string(again)
	case errors.As(err, &ae) && ae.StatusCode >= 500:
		return fmt.Sprintf("HTTP %d from the API: %s later (%s)", ae.StatusCode, tryAgain(again), oneLine(ae.Error()))
	case errors.As(err, &ae):
		return oneLine(ae.Error())
	case errors.As(err, &fe), errors.As(err, &se):
		return "bad file: " + oneLine(err.Error()) + ": check --file (JSON Lines, a JSON array or a logs page)"
	case errors.Is(err, source.ErrNotFound):
		if again == AgainTUI {
			return oneLine(err.Error()) + ": it may have aged out of the window; press R"
		}
		return oneLine(err.Error()) + ": it may have aged out of the window (--since)"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + oneLine(err.Error()) + ": check your connection, then " + string(again)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		// a file's ENOENT or EACCES answers net.Error's methods (syscall.Errno) but is no
		// network error
		return oneLine(err.Error())
	case errors.As(err, &ne), errors.As(err, &ue):
		return "network error: " + oneLine(err.Error()) + ": check your connection or --base-url, then " + string(again)
	}
	return oneLine(err.Error())
}

func tryAgain(again Again) string {
	if again == AgainTUI {
		return "press R to try again"
	}
	return "try again"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "…"
	}
	return s
}
