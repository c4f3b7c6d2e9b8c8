package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// ExportOptions are export's flags.
type ExportOptions struct {
	Source  sourceFlags
	Out     string
	Details bool
}

// executions is "1 execution" or "N executions".
func executions(n int) string {
	if n == 1 {
		return "1 execution"
	}
	return strconv.Itoa(n) + " executions"
}

// NewCmdExport is `exectriage export [--out FILE]`: the window as JSON Lines in the Logs API's
// shapes, newest first: each execution's list entry, or its detail where the load fetched one
// (what triage needed), so that `--file` over the export judges every execution as the API's
// window did; --details fetches every detail.
func NewCmdExport(env *Env, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "the window as JSON Lines, for a ticket or offline triage (--file)",
		Example: "  exectriage export --since 24h --out window.jsonl\n  exectriage export --since 2h --details | gzip > window.jsonl.gz\n" +
			"  exectriage scan --file window.jsonl",
		Args: noArgs("export"),
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(exportRun(c.Context(), env, opts))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("export"))
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "write to `FILE` (0600, replaced whole) instead of stdout")
	cmd.Flags().
		BoolVar(&opts.Details, "details", false,
			"fetch every execution's detail (arguments, responses, errors): one request each, within the rate limit")
	registerFlagCompletions(cmd, env)
	return cmd
}

func exportRun(ctx context.Context, env *Env, opts *ExportOptions) int {
	sf := &opts.Source
	var walked app.Walked
	// The executions are written as they are read (an export is never held whole).
	write := func(a *app.App, w io.Writer) (err error) {
		bw := bufio.NewWriterSize(w, 64<<10)
		enc := json.NewEncoder(bw)
		if walked, err = a.Each(ctx, opts.Details, func(e *model.Execution) error {
			return enc.Encode(model.ToWire(e, e.Detailed))
		}); err != nil {
			return err
		}
		return bw.Flush()
	}
	a, err := sf.loadWith(ctx, env, func(a *app.App) error {
		if opts.Out == "" {
			return write(a, env.Stdout)
		}
		f, err := os.CreateTemp(filepath.Dir(opts.Out), ".export-*.jsonl")
		if err != nil {
			return err
		}
		tmp := f.Name()
		err = write(a, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, opts.Out)
		}
		if err != nil {
			os.Remove(tmp)
		}
		return err
	})
	if err != nil {
		return fail(env, "export", err)
	}
	defer a.Close()
	sf.detailErrors(env, a, walked.DetailErrors, walked.FirstDetailError)
	copiesOnce(env, walked.Duplicates)
	if opts.Out != "" {
		fmt.Fprintf(env.Stderr, "exectriage export: %s written to %s\n", executions(walked.Executions), sanitize.String(opts.Out))
	}
	return ExitOK
}
