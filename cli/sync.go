package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/logcache"
	"github.com/exectriage/exectriage/sanitize"
)

// SyncOptions are sync's flags.
type SyncOptions struct {
	Source  sourceFlags
	Details bool
}

// NewCmdSync is `exectriage sync`: the project's logs of the window into the team index
// (--index, a profile's index, or EXECTRIAGE_INDEX), incrementally, so that the team's
// sessions read one copy of them instead of one each.
func NewCmdSync(env *Env, runF func(context.Context, *SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "keep the project's logs in the team's PostgreSQL index, for every engineer's session",
		Long: "sync reads the window's logs from the API into the team index: only what the index does not\n" +
			"cover yet (what is newer than its newest record, with an overlap for late writes and statuses\n" +
			"that changed), and the details triage needs (--details: every detail). Every session configured\n" +
			"with the same index (a profile's index = \"postgres://…\", --index or EXECTRIAGE_INDEX) then reads\n" +
			"the logs from it, and only what is newer from the API; when the index cannot be reached it reads\n" +
			"the API. Run it from cron or a CI schedule; the index never holds the API key.",
		Example: "  exectriage sync --profile prod\n  exectriage sync --index postgres://triage@db/exectriage --since 720h --details",
		Args:    noArgs("sync"),
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "sync", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return syncRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("sync"))
	cmd.Flags().
		BoolVar(&opts.Details, "details", false, "fetch every execution's detail into the index (one request each, within the rate limit)")
	registerFlagCompletions(cmd, env)
	return cmd
}

func syncRun(ctx context.Context, env *Env, opts *SyncOptions) int {
	sf := &opts.Source
	if code, refused := sf.refuseIfReadOnly(env, "sync", "sync writes the team index"); refused {
		return code
	}
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "sync", err)
	}
	defer a.Close()
	s, err := a.Sync(ctx, opts.Details)
	if err != nil {
		return fail(env, "sync", err)
	}
	if s.DetailErrors > 0 {
		sf.detailErrors(env, a, s.DetailErrors, s.FirstDetailError)
	}
	covered := func(in logcache.Info) []spanJSON {
		out := []spanJSON{}
		for _, sp := range in.Covered {
			out = append(out, spanJSON{stamp(sp.From), stamp(sp.To)})
		}
		return out
	}
	if sf.json {
		printJSON(env.Stdout, struct {
			SchemaVersion int        `json:"schema_version"`
			Index         string     `json:"index"`
			Window        string     `json:"window"`
			Executions    int        `json:"executions"`
			NewEntries    int        `json:"new_entries"`
			NewDetails    int        `json:"new_details"`
			Entries       int        `json:"entries"`
			Details       int        `json:"details"`
			Covered       []spanJSON `json:"covered"`
			DetailErrors  int        `json:"detail_errors"`
		}{SchemaVersion, s.Index, a.Window().String(), s.Executions, s.After.Entries - s.Before.Entries, s.After.Details - s.Before.Details,
			s.After.Entries, s.After.Details, covered(s.After), s.DetailErrors})
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "synced %d executions of the last %s into the team index %s: %+d entries, %+d details\n",
		s.Executions, a.Window(), sanitize.String(s.Index), s.After.Entries-s.Before.Entries, s.After.Details-s.Before.Details)
	var spans []string
	for _, sp := range covered(s.After) {
		spans = append(spans, sp.From+" … "+sp.To)
	}
	fmt.Fprintf(env.Stdout, "the index holds %d entries and %d details of this project, covering %s\n",
		s.After.Entries, s.After.Details, strings.Join(spans, ", "))
	return ExitOK
}

// spanJSON is a stretch of time a cache covers.
type spanJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
}
