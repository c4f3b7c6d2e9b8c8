package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/exectriage/exectriage/doctor"
	"github.com/exectriage/exectriage/sanitize"
)

// runDoctor finds the Composio SDK versions of a project (its manifests and lock files) and
// flags those that still re-send timed-out writes. Exit status: 1 when one does, 0 when none
// does, 2 for a directory that cannot be scanned.
func runDoctor(ctx context.Context, env *Env, args []string) int {
	fs := newFlagSet(env, "doctor")
	jsonOut := fs.Bool("json", false, `print {"findings": [{"file", "ecosystem", "package", "version", "constraint", "retries_writes", "reason", ...}]}`)
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 1 {
		return usageError(env, "doctor", "want at most one directory (exectriage doctor [DIR] [--json])")
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	rep, err := doctor.Scan(ctx, dir)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(env.Stderr, "exectriage doctor: %s\n", sanitize.String(err.Error()))
			return ExitFinding
		}
		return usageError(env, "doctor", "%s", sanitize.String(err.Error()))
	}
	w := bufio.NewWriter(env.Stdout)
	if *jsonOut {
		err = rep.WriteJSON(w)
	} else {
		err = rep.WriteText(w, dir)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "exectriage doctor: %s\n", sanitize.String(err.Error()))
		return ExitFinding
	}
	if rep.RetriesWrites() {
		return ExitFinding
	}
	return ExitOK
}
