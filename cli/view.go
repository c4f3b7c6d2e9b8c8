package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/sanitize"
)

// ViewOptions are view's flags and arguments.
type ViewOptions struct {
	Action, Name string // list, save NAME or delete NAME
	Filter, Show string // save's view
	Source       sourceFlags
}

// NewCmdView is `exectriage view list|save|delete`: the saved views, and the team's kept in the
// journal it shares. A person keeps theirs in the config ([views.NAME]); a view saved here is
// everyone's who opens the same journal (a PostgreSQL journal: the team), picked with --view
// NAME or the TUI's S menu. The config's view of a name comes before the journal's.
func NewCmdView(env *Env, runF func(context.Context, *ViewOptions) error) *cobra.Command {
	opts := &ViewOptions{}
	cmd := &cobra.Command{
		Use:   "view list | view save NAME [--filter QUERY] [--show all|flagged|duplicates] | view delete NAME",
		Short: "the saved views: list them, keep one in the journal for the team, or remove it",
		Example: "  exectriage view list\n" +
			"  exectriage view save gmail-unknown --filter 'toolkit:gmail outcome:ambiguous' --show flagged\n" +
			"  exectriage list --view gmail-unknown\n  exectriage view delete gmail-unknown",
		ValidArgs: []string{"list", "save", "delete"},
		Args: func(c *cobra.Command, args []string) error {
			want := map[string]int{"list": 1, "save": 2, "delete": 2}
			n, ok := 0, false
			if len(args) > 0 {
				n, ok = want[args[0]]
			}
			if !ok {
				return usagef("view", "say list, save NAME or delete NAME")
			}
			return positional("view", n, n, func(args []string) string {
				switch {
				case len(args) < n:
					return fmt.Sprintf("view %s needs the view's NAME", args[0])
				}
				return fmt.Sprintf("unexpected argument %q", sanitize.String(args[len(args)-1]))
			})(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Action = args[0]
			if len(args) > 1 {
				opts.Name = args[1]
			}
			if opts.Action != "save" && (c.Flags().Changed("filter") || c.Flags().Changed("show")) {
				return usagef("view", "--filter and --show go with view save")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(withJQ(c.Context(), env, "view", opts.Source.jq, &opts.Source.json, func(env *Env) int {
				return viewRun(c.Context(), env, opts)
			}))
		},
	}
	opts.Source.register(cmd.Flags(), commandFlags("view"))
	cmd.Flags().StringVar(&opts.Filter, "filter", "", "save: the view's filter `QUERY` (the list's filter language; empty: every row)")
	cmd.Flags().StringVar(&opts.Show, "show", "all", "save: which rows the view shows: `all`, flagged or duplicates")
	registerFlagCompletions(cmd, env)
	return cmd
}

func viewRun(ctx context.Context, env *Env, opts *ViewOptions) int {
	sf := &opts.Source
	switch opts.Action {
	case "list":
		views, err := app.SavedViews(ctx, sf.options(env))
		if views == nil && err != nil {
			return fail(env, "view", err)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "exectriage view: %s\n", sanitize.String(err.Error()))
		}
		if sf.json {
			out := struct {
				SchemaVersion int        `json:"schema_version"`
				Views         []app.View `json:"views"`
			}{SchemaVersion, append([]app.View{}, views...)}
			printJSON(env.Stdout, out)
			return ExitOK
		}
		if len(views) == 0 {
			line(
				env.Stdout,
				"no saved views: add [views.NAME] to the config, or keep one for the team: exectriage view save NAME --filter QUERY",
			)
		}
		for _, v := range views {
			from := v.From
			if v.Saved != "" {
				from += ", saved by " + v.Saved
			}
			if v.Shadowed {
				from += " (hidden by the config's view of this name)"
			}
			line(env.Stdout, "%s  show %s  filter %q  · %s", v.Name, v.Show, v.Filter, from)
		}
		return ExitOK
	case "save", "delete":
		if code, stop := sf.refuseIfReadOnly(env, "view", "no view was "+map[string]string{"save": "saved",
			"delete": "deleted"}[opts.Action]); stop {
			return code
		}
		var v app.View
		if opts.Action == "save" {
			var err error
			if v, err = app.CheckView(opts.Name, opts.Filter, opts.Show); err != nil {
				return fail(env, "view", err)
			}
		}
		j, code := openJournalFor(ctx, env, "view", sf)
		if j == nil {
			return code
		}
		defer j.Close()
		if opts.Action == "delete" {
			if err := j.DeleteView(ctx, strings.TrimSpace(opts.Name)); err != nil {
				return fail(env, "view", err)
			}
			line(env.Stdout, "deleted view %s from the journal %s", opts.Name, j.Where())
			return ExitOK
		}
		if err := j.SaveView(ctx, v, app.Who(env.Getenv), env.Now()); err != nil {
			return fail(env, "view", err)
		}
		who := "everyone who uses this journal can pick it"
		if j.Kind() != "PostgreSQL journal" {
			who = "the sessions of this machine on this journal can pick it (a team shares views through a PostgreSQL journal)"
		}
		line(env.Stdout, "saved view %s (show %s, filter %q) in the %s %s: %s with --view %s or the TUI's S",
			v.Name, v.Show, v.Filter, j.Kind(), j.Where(), who, v.Name)
		if cv, err := app.SavedView(ctx, sf.options(env), v.Name); err == nil && strings.HasPrefix(cv.From, "config ") {
			line(env.Stderr, "exectriage view: your %s has a view %s too, which comes first for you", cv.From, v.Name)
		}
		return ExitOK
	}
	return usageError(env, "view", "%q: say list, save NAME or delete NAME", sanitize.String(opts.Action))
}
