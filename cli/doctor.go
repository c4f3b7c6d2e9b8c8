package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/doctor"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// DoctorOptions are doctor's flags and argument.
type DoctorOptions struct {
	Source sourceFlags
	API    bool
	Last   int
	Dir    string
}

// NewCmdDoctor is `exectriage doctor [DIR]`: the Composio SDK versions of a project (its
// manifests and lock files), flagging those that still re-send timed-out writes. Exit status:
// 1 when one does, 0 when none does, 2 for a directory that cannot be scanned. With --api it
// reports what the source's logs carry instead.
func NewCmdDoctor(env *Env, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{Dir: "."}
	cmd := &cobra.Command{
		Use:   "doctor [DIR]",
		Short: "find Composio SDK versions that still auto-retry writes",
		Long: "doctor reads a project's manifests, lock files and code, and says which Composio SDK versions still re-send\n" +
			"a timed-out write, on which call path, and whether the code uses that path: tools.execute and the proxy\n" +
			"(with provider-wrapped tools), tool-router session writes (cited at the call that sends; a session used\n" +
			"only for its MCP address runs its tools over MCP, where the SDK's retries do not apply), the legacy\n" +
			"toolset, LangChain's ToolRetryMiddleware, the CLI and the workbench. The client is followed through\n" +
			"assignments, factories and imports across files. A retrying path the code never calls is \"not used\":\n" +
			"information, not an alarm. Exit status 1 when a finding re-sends writes, 0 when none does.",
		Example: "  exectriage doctor .\n  exectriage doctor --api --last 500",
		Args:    positional("doctor", 0, 1, wantText("want at most one directory (exectriage doctor [DIR] [--json])")),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.API {
				if len(args) > 0 {
					return usagef("doctor", "--api reads the logs, not a directory: drop %q", sanitize.String(args[0]))
				}
				if opts.Last < 1 || opts.Last > 10_000 {
					return usagef("doctor", "--last must be between 1 and 10000")
				}
			}
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "doctor", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return doctorRun(c.Context(), env, opts)
			}))
		},
	}
	fs := cmd.Flags()
	opts.Source.register(fs, commandFlags("doctor"))
	if f := fs.Lookup("json"); f != nil {
		f.Usage = `print {"schema_version", "findings": [{"file", "ecosystem", "package", "version", "constraint", "retries_writes", "call_path", "evidence", "reason", ...}]} (with --api: the shape report)`
	}
	fs.BoolVar(
		&opts.API,
		"api",
		false,
		"report what the source's logs carry (tool, arguments, error kind, SDK version, retry count, session id...) over the newest "+
			"records, as counts, and which triage signals are missing",
	)
	fs.IntVar(&opts.Last, "last", 200, "with --api: how many of the newest records to read")
	registerFlagCompletions(cmd, env)
	return cmd
}

// doctorRun scans the project, or the logs with --api.
func doctorRun(ctx context.Context, env *Env, opts *DoctorOptions) int {
	sf := &opts.Source
	if opts.API {
		return runDoctorAPI(ctx, env, sf, opts.Last)
	}
	dir := opts.Dir
	rep, err := doctor.Scan(ctx, dir)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(env.Stderr, "exectriage doctor: %s\n", sanitize.String(err.Error()))
			return ExitFinding
		}
		return usageError(env, "doctor", "%s", sanitize.String(err.Error()))
	}
	if doctor.CodeReader != "tree-sitter" {
		fmt.Fprintf(env.Stderr, "exectriage doctor: this build has no cgo, so the code was read by doctor's own tokenizer, "+
			"not the languages' grammars: %s may be missed (a build with cgo reads them)\n", doctor.TokenizerMisses)
	}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, struct {
			SchemaVersion int `json:"schema_version"`
			*doctor.Report
		}{SchemaVersion, rep})
	} else {
		err = rep.WriteText(w, dir, !isTerminal(env.Stdout))
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
	if a.SourceKind() == model.SourceFile {
		return usageError(
			env,
			"doctor",
			"--api reads the API's logs: give the live API (COMPOSIO_API_KEY), --base-url or --demo, not --file",
		)
	}
	sh, err := a.ShapeReport(ctx, n)
	if err != nil {
		return fail(env, "doctor", err)
	}
	w := bufio.NewWriter(env.Stdout)
	if sf.json {
		err = writeJSON(w, struct {
			SchemaVersion int `json:"schema_version"`
			app.Shape
		}{SchemaVersion, sh})
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
