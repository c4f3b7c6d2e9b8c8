package cli

import (
	"context"
	"fmt"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/sanitize"
)

// runInfo is `exectriage info [--json]`: where exectriage keeps things and what it would use
// (config, journal and whom it guards, state, demo anchor, spool, source and where the API key
// came from, never the key), without opening anything.
func runInfo(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "info")
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return usageError(env, "info", "unexpected argument %q", sanitize.String(pos[0]))
	}
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
		printJSON(env.Stdout, in)
		return ExitOK
	}
	found := func(ok bool) string {
		if ok {
			return ""
		}
		return " (not there yet)"
	}
	dashboard := in.DashboardURL
	if dashboard == "" {
		dashboard = "none: set [dashboard] log_url = \"https://…/{log_id}\" in the config to open logs with o"
	}
	rows := [][2]string{
		{"version", in.Version},
		{"config", in.Config + found(in.ConfigFound) + " (from " + in.ConfigFrom + ")"},
		{"journal", in.JournalKind + " " + in.Journal + found(in.JournalFound || in.JournalKind == "PostgreSQL")},
		{"  guards", in.JournalGuards},
		{"  schema", fmt.Sprint(in.JournalSchema)},
		{"state", in.StateDir},
		{"demo anchor", in.DemoAnchor},
		{"spool", in.Spool + " (gzipped exports, 0600, while open)"},
		{"source", in.Source + " (" + in.SourceWhy + ")"},
		{"API key from", in.KeyFrom},
		{"dashboard", dashboard},
	}
	for _, r := range rows {
		line(env.Stdout, "%-13s %s", r[0], sanitize.String(r[1]))
	}
	return ExitOK
}
