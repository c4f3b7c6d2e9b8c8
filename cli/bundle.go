package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/bundle"
	"github.com/exectriage/exectriage/sanitize"
)

// BundleOptions are bundle's flags and arguments.
type BundleOptions struct {
	Source   sourceFlags
	Out      string
	NoVerify bool
	IDs      []string
}

// NewCmdBundle is `exectriage bundle ID... [--out FILE]`: the Markdown support bundle for one
// or more executions, each with its triage, its duplicate group, the provider's state (checked
// now for writes, when the source has API access) and the journal's history; secrets redacted.
func NewCmdBundle(env *Env, runF func(context.Context, *BundleOptions) error) *cobra.Command {
	opts := &BundleOptions{}
	cmd := &cobra.Command{
		Use:               "bundle ID...",
		Short:             "a Markdown support bundle, secrets redacted",
		Example:           "  exectriage bundle log_a-NA1LoG7qec --out ticket-1234.md",
		Args:              positional("bundle", 1, -1, wantText("want at least one execution ID (exectriage bundle ID... [--out FILE])")),
		ValidArgsFunction: idCompletion(env, true),
		RunE: func(c *cobra.Command, args []string) error {
			opts.IDs = args
			if opts.Out != "" {
				if st, err := os.Stat(opts.Out); err == nil && st.IsDir() {
					return usagef(
						"bundle",
						"--out %s is a directory: name the bundle's file (e.g. %s)",
						sanitize.String(opts.Out),
						sanitize.String(filepath.Join(opts.Out, "bundle.md")),
					)
				}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(bundleRun(c.Context(), env, opts))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("bundle"))
	cmd.Flags().StringVar(&opts.Out, "out", "", "write the bundle to `FILE` (created with mode 0600) instead of standard output")
	cmd.Flags().BoolVar(&opts.NoVerify, "no-verify", false, "do not check the provider (runs no read tools)")
	registerFlagCompletions(cmd, env)
	return cmd
}

// bundleRun writes the bundle.
func bundleRun(ctx context.Context, env *Env, opts *BundleOptions) int {
	sf := &opts.Source
	out, noVerify, pos := &opts.Out, &opts.NoVerify, opts.IDs
	a, c, err := sf.choose(ctx, env, dedupe(pos), "")
	if err != nil {
		return fail(env, "bundle", err)
	}
	defer a.Close()

	// A bundle is a read-only command: it reads a journal that exists and never creates one.
	j, jerr := app.OpenJournalIfExists(ctx, sf.options(env))
	note := ""
	if jerr != nil {
		note = jerr.Error()
	} else {
		defer j.Close()
	}

	var items []bundle.Item
	for i := range c.Execs {
		e, t := c.Execs[i], c.Triage[i]
		it := bundle.Item{Exec: e, Triage: t}
		if t.GroupID != "" {
			if g, ok := c.Group(t.GroupID); ok {
				it.Group = &g
			}
		}
		if a.CanSend() && !*noVerify && t.Kind.IsWrite() && a.CheckRead() == nil {
			st := a.Verify(ctx, &e)
			it.Provider = &st
		}
		items = append(items, it)
	}
	in, err := a.BundleInput(ctx, j, note, items)
	if err != nil {
		fmt.Fprintf(env.Stderr, "exectriage bundle: %s\n", sanitize.String(err.Error()))
		in.HistoryNote = err.Error()
	}
	text, err := app.RenderBundle(in)
	if err != nil {
		return fail(env, "bundle", err)
	}
	if *out == "" {
		w := bufio.NewWriter(env.Stdout)
		_, err = w.Write(text)
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return fail(env, "bundle", err)
		}
		return ExitOK
	}
	if err := writeFileAtomic(*out, text); err != nil {
		return fail(env, "bundle", err)
	}
	fmt.Fprintf(env.Stderr, "exectriage bundle: %s written to %s\n", executions(len(in.Items)), sanitize.String(*out))
	return ExitOK
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// writeFileAtomic writes data to path through a temporary file in the same directory, so a
// reader never sees half a bundle; the file is private to the user (it holds log content).
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".bundle-*.md")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
