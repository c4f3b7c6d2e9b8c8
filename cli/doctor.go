package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/doctor"
	"github.com/exectriage/exectriage/sanitize"
)

// runDoctor finds the Composio SDK versions of a project (its manifests and lock files) and
// flags those that still re-send timed-out writes. Exit status: 1 when one does, 0 when none
// does, 2 for a directory that cannot be scanned.
func runDoctor(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "doctor")
	if f := fs.Lookup("json"); f != nil {
		f.Usage = `print {"findings": [{"file", "ecosystem", "package", "version", "constraint", "retries_writes", "reason", ...}]} (with --api: the shape report)`
	}
	jsonOut := &sf.json
	api := fs.Bool("api", false, "report what the source's logs carry (tool, arguments, error kind, SDK version, retry count, session id...) over the newest records, as counts, and which triage signals are missing")
	last := fs.Int("last", 200, "with --api: how many of the newest records to read")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if *api {
		if len(pos) > 0 {
			return usageError(env, "doctor", "--api reads the logs, not a directory: drop %q", pos[0])
		}
		if *last < 1 || *last > 10_000 {
			return usageError(env, "doctor", "--last must be between 1 and 10000")
		}
		return runDoctorAPI(ctx, env, sf, *last)
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

// runDoctorAPI prints the shape report of the source's logs.
func runDoctorAPI(ctx context.Context, env *Env, sf *sourceFlags, n int) int {
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "doctor", err)
	}
	defer a.Close()
	if a.SourceKind() == app.SourceFile {
		return usageError(env, "doctor", "--api reads the API's logs: give the live API (COMPOSIO_API_KEY), --base-url or --demo, not --file")
	}
	sh, err := a.ShapeReport(ctx, n)
	if err != nil {
		return fail(env, "doctor", err)
	}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, sh)
	} else {
		fmt.Fprintf(w, "source: %s · the newest %d records (%d with their detail)\n\n", sanitize.String(sh.Source), sh.Records, sh.Detailed)
		for _, f := range sh.Fields {
			fmt.Fprintf(w, "  %-16s %5d of %d\n", f.Field, f.Found, sh.Records)
		}
		if len(sh.Unavailable) > 0 {
			fmt.Fprintln(w, "\nmissing from every record, so triage cannot use it:")
			for _, u := range sh.Unavailable {
				fmt.Fprintf(w, "  %s\n", sanitize.String(u))
			}
		}
		fmt.Fprintln(w, "\nno value is shown, only counts: this report can be shared.")
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fail(env, "doctor", err)
	}
	return ExitOK
}
