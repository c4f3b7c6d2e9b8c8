package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/sanitize"
)

// CacheOptions are cache's flags and argument.
type CacheOptions struct {
	Action string // info or clear
	Source sourceFlags
}

// NewCmdCache is `exectriage cache info|clear`: what the local cache of the API's logs holds,
// or its removal. The cache keeps list entries and fetched details between runs (never the
// API key), so that a load reads from the API only what is new.
func NewCmdCache(env *Env, runF func(context.Context, *CacheOptions) error) *cobra.Command {
	opts := &CacheOptions{}
	cmd := &cobra.Command{
		Use:       "cache info|clear",
		Short:     "the local cache of the API's logs: what it holds, or remove it",
		Example:   "  exectriage cache info\n  exectriage cache clear",
		ValidArgs: []string{"info", "clear"},
		Args: positional("cache", 1, 1, func(args []string) string {
			if len(args) == 0 {
				return "say info or clear"
			}
			return fmt.Sprintf("unexpected argument %q", sanitize.String(args[len(args)-1]))
		}),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Action = args[0]
			if opts.Action != "info" && opts.Action != "clear" {
				return usagef("cache", "%q: say info or clear", sanitize.String(opts.Action))
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "cache", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return cacheRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("cache"))
	registerFlagCompletions(cmd, env)
	return cmd
}

func cacheRun(ctx context.Context, env *Env, opts *CacheOptions) int {
	switch opts.Action {
	case "info":
		dir, infos, err := app.CacheInfo(ctx, env.Getenv)
		if err != nil {
			return fail(env, "cache", err)
		}
		if opts.Source.json {
			type fileJSON struct {
				Path    string     `json:"path"`
				Bytes   int64      `json:"bytes"`
				Entries int        `json:"entries"`
				Details int        `json:"details"`
				Covered []spanJSON `json:"covered"`
			}
			out := struct {
				SchemaVersion int        `json:"schema_version"`
				Dir           string     `json:"dir"`
				Files         []fileJSON `json:"files"`
			}{SchemaVersion, dir, []fileJSON{}}
			for _, in := range infos {
				f := fileJSON{Path: in.Path, Bytes: in.Bytes, Entries: in.Entries, Details: in.Details}
				for _, sp := range in.Covered {
					f.Covered = append(f.Covered, spanJSON{stamp(sp.From), stamp(sp.To)})
				}
				out.Files = append(out.Files, f)
			}
			printJSON(env.Stdout, out)
			return ExitOK
		}
		fmt.Fprintf(env.Stdout, "cache: %s\n", sanitize.String(dir))
		if len(infos) == 0 {
			fmt.Fprintln(env.Stdout, "  empty: nothing kept yet")
		}
		for _, in := range infos {
			var spans []string
			for _, sp := range in.Covered {
				spans = append(spans, stamp(sp.From)+" … "+stamp(sp.To))
			}
			fmt.Fprintf(
				env.Stdout,
				"  %s  %.1f MB  %d entries, %d details\n",
				sanitize.String(in.Path),
				float64(in.Bytes)/(1<<20),
				in.Entries,
				in.Details,
			)
			if len(spans) > 0 {
				fmt.Fprintf(env.Stdout, "    covers %s\n", strings.Join(spans, ", "))
			}
		}
		return ExitOK
	case "clear":
		if opts.Source.readonly {
			return usageError(env, "cache", "this session is read-only (--readonly): nothing was removed")
		}
		dir, n, err := app.ClearCache(env.Getenv)
		if err != nil {
			return fail(env, "cache", err)
		}
		fmt.Fprintf(env.Stdout, "removed %d cache file(s) from %s\n", n, sanitize.String(dir))
		return ExitOK
	}
	return ExitOK // info or clear: NewCmdCache refuses any other
}
