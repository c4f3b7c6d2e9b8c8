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

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/sanitize"
)

// ExportOptions are export's flags.
type ExportOptions struct {
	Source  sourceFlags
	Out     string
	Details bool
}

// NewCmdExport is `exectriage export [--out FILE]`: the window as JSON Lines in the Logs API's
// shapes, newest first: each execution's list entry, or its detail where the load fetched one
// (what triage needed), so that `--file` over the export judges every execution as the API's
// window did; --details fetches every detail.
// executions is "1 execution" or "N executions".
func executions(n int) string {
	if n == 1 {
		return "1 execution"
	}
	return strconv.Itoa(n) + " executions"
}

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
	cmd.Flags().BoolVar(&opts.Details, "details", false, "fetch every execution's detail (arguments, responses, errors): one request each, within the rate limit")
	registerFlagCompletions(cmd, env)
	return cmd
}

func exportRun(ctx context.Context, env *Env, opts *ExportOptions) int {
	sf := &opts.Source
	a, l, err := sf.load(ctx, env)
	if err != nil {
		return fail(env, "export", err)
	}
	defer a.Close()
	if opts.Details {
		if n, first := l.FetchAll(ctx); n > 0 {
			sf.detailErrors(env, a, n, first)
		}
	}
	write := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		enc := json.NewEncoder(bw)
		for i := range l.Execs {
			e := &l.Execs[i]
			if err := enc.Encode(model.ToWire(e, e.Detailed)); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	if opts.Out == "" {
		if err := write(env.Stdout); err != nil {
			return fail(env, "export", err)
		}
		return ExitOK
	}
	f, err := os.CreateTemp(filepath.Dir(opts.Out), ".export-*.jsonl")
	if err != nil {
		return fail(env, "export", err)
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, opts.Out)
	}
	if err != nil {
		os.Remove(tmp)
		return fail(env, "export", err)
	}
	fmt.Fprintf(env.Stderr, "exectriage export: %s written to %s\n", executions(len(l.Execs)), sanitize.String(opts.Out))
	return ExitOK
}
