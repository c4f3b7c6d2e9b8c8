package cli

import (
	"cmp"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/sanitize"
)

// InfoOptions are info's flags.
type InfoOptions struct {
	Source sourceFlags
}

// NewCmdInfo is `exectriage info [--json]`: where exectriage keeps things and what it would
// use (config, journal and whom it guards, state, demo anchor, spool, source and where the API
// key came from, never the key), without opening anything.
func NewCmdInfo(env *Env, runF func(context.Context, *InfoOptions) error) *cobra.Command {
	opts := &InfoOptions{}
	cmd := &cobra.Command{
		Use:     "info",
		Short:   "where exectriage keeps things and what it would use (never the API key)",
		Example: "  exectriage info\n  exectriage info --json",
		Args:    noArgs("info"),
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "info", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return infoRun(env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("info"))
	registerFlagCompletions(cmd, env)
	return cmd
}

// infoRun prints what info says.
func infoRun(env *Env, opts *InfoOptions) int {
	sf := &opts.Source
	o := sf.options(env)
	if o.Demo && (o.File != "" || o.BaseURL != "") {
		return usageError(env, "info", "--demo cannot be combined with --file or --base-url")
	}
	in, err := app.GetInfo(o)
	if err != nil {
		return fail(env, "info", err)
	}
	in.Version = versionString()
	if sf.json {
		printJSON(env.Stdout, struct {
			SchemaVersion int `json:"schema_version"`
			app.Info
		}{SchemaVersion, in})
		return ExitOK
	}
	found := func(ok bool) string {
		if ok {
			return ""
		}
		return " (not there yet)"
	}
	dashboard := in.DashboardURL
	dashboard = cmp.Or(dashboard, "none: set [dashboard] log_url = \"https://…/{log_id}\" in the config to open logs with o")
	rows := [][2]string{
		{"version", in.Version},
		{"config", in.Config + found(in.ConfigFound) + " (from " + in.ConfigFrom + ")"},
		{"journal", in.JournalKind + " " + in.Journal + found(in.JournalFound || in.JournalKind == "PostgreSQL")},
		{"  guards", in.JournalGuards.String()},
		{"  schema", fmt.Sprint(in.JournalSchema)},
		{"team index", orWord(in.Index, "none: the API's logs are kept in the local cache (exectriage cache info)")},
		{"state", in.StateDir},
		{"demo anchor", in.DemoAnchor},
		{"spool", in.Spool + " (gzipped exports, 0600, while open)"},
		{"source", in.Source + " (" + in.SourceWhy.String() + ")"},
		{"API key from", in.KeyFrom.Label()},
		{"dashboard", dashboard},
	}
	for _, r := range rows {
		line(env.Stdout, "%-13s %s", r[0], sanitize.String(r[1]))
	}
	return ExitOK
}

// orWord is s, or what its absence means.
func orWord(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
