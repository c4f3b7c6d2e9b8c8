package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/ui"
)

// TUIOptions are the root command's flags: the TUI's own and the shared ones it takes.
type TUIOptions struct {
	Source  sourceFlags
	Follow  bool
	Mouse   bool
	Color   string
	Palette string
}

// NewCmdTUI is the root command: without a subcommand it opens the terminal UI, on the live
// API when COMPOSIO_API_KEY is set, else on the embedded demo sandbox; --demo, --file and
// --base-url choose explicitly.
func NewCmdTUI(env *Env, runF func(context.Context, *TUIOptions) error) *cobra.Command {
	opts := &TUIOptions{}
	cmd := &cobra.Command{
		Use:   "exectriage",
		Short: "triage Composio tool executions: ambiguous writes, duplicates, a guarded retry",
		Long: "exectriage lists Composio tool executions, flags writes whose outcome is ambiguous, groups\n" +
			"duplicates and names their cause, checks the provider's real state and offers a retry that\n" +
			"can never cause a duplicate. Without a command it opens the TUI.\n\n" +
			"Source: --file, --base-url, --demo; else the live API when COMPOSIO_API_KEY (or a Composio\n" +
			"CLI login) is set, else the embedded demo.\n\n" +
			"Flags may stand before or after the command's name: `exectriage --readonly retry ID` and\n" +
			"`exectriage retry ID --readonly` are the same; a flag a command does not take is refused.\n\n" + exitCodes,
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("", "unknown command %q%s", sanitize.String(args[0]), didYouMean(c.Root(), args[0]))
			}
			if err := refuseForeignFlags(c); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return codeErr(tuiRun(c.Context(), env, opts))
		},
	}
	fs := cmd.Flags()
	opts.Source.register(fs, commandFlags(""))
	_ = fs.MarkHidden("json") // accepted only to say where it belongs
	_ = fs.MarkHidden("jq")
	fs.BoolVar(
		&opts.Follow,
		"follow",
		false,
		"start in follow mode: refresh every few seconds; the cursor on the newest row stays on the newest (F toggles)",
	)
	fs.BoolVar(&opts.Mouse, "mouse", false, "start with mouse capture on (M toggles it; off keeps the terminal's text selection)")
	fs.StringVar(&opts.Color, "color", ui.ColorAuto, "colour: `auto` (NO_COLOR turns it off, CLICOLOR_FORCE on), always or never")
	fs.StringVar(
		&opts.Palette,
		"theme",
		"",
		"built-in palette: `default`, high-contrast or ansi16 (the 16 terminal colours); [theme] palette in the config",
	)
	registerFlagCompletions(cmd, env)
	return cmd
}

// tuiRun opens the TUI.
func tuiRun(ctx context.Context, env *Env, opts *TUIOptions) int {
	sf := &opts.Source
	// Nothing may write to the terminal behind the TUI: what would go to stderr while it runs
	// (an unreadable record, a journal note from a background load) is kept and written when
	// it ends; a rate-limit wait is the header's alone (sourceFlags.options).
	held := &heldWriter{w: env.Stderr}
	tenv := *env
	tenv.Stderr = held
	env = &tenv
	if sf.json || sf.jq != "" {
		return usageError(env, "", "--json is for commands (list, scan, show...), not the TUI")
	}
	if err := ui.ValidColor(opts.Color); err != nil {
		return usageError(env, "", "%s", err)
	}
	if f, ok := env.Stdout.(*os.File); ok && !term.IsTerminal(f.Fd()) {
		return usageError(env, "", "the TUI needs a terminal; for a pipe use `exectriage list` or `exectriage scan`")
	}
	cfg, err := app.LoadConfig(sf.options(env))
	if err != nil {
		return usageError(env, "", "%s", sanitize.String(err.Error()))
	}
	if _, err := ui.ApplyConfig(ui.Options{Palette: opts.Palette}, cfg); err != nil {
		return usageError(env, "", "%s", sanitize.String(err.Error()))
	}
	if _, _, err := sf.savedView(ctx, env); err != nil { // an unknown --view: exit 2 with the names there are
		return fail(env, "", err)
	}
	var views []ui.SavedView
	saved, viewsErr := app.SavedViews(ctx, sf.options(env))
	for _, v := range saved {
		if !v.Shadowed {
			views = append(views, ui.SavedView{Name: v.Name, Filter: v.Filter, Show: v.Show, Team: strings.HasPrefix(v.From, "journal ")})
		}
	}
	sf.interactive = true
	a, err := sf.open(ctx, env)
	if err != nil {
		return fail(env, "", err)
	}
	defer a.Close()
	// An export that cannot be one is refused here, with exit 2, not shown as an empty list.
	if err := a.CheckFile(ctx); err != nil {
		return fail(env, "", err)
	}

	// The journal is needed for retries and verdicts, not for browsing: without one the TUI
	// still opens and says why those are off.
	// (the preamble is said on stderr too, which the screen then covers)
	notice := strings.Join(phrase.Preamble(a.SourceKind() == model.SourceLive, a.KeyFrom(), a.Index().Err), " ")
	var j *app.Journal
	if a.ReadOnly() { // read, never create, migrate or recover: a read-only session writes nothing
		j, err = app.OpenJournalIfExists(ctx, sf.options(env))
	} else {
		j, err = app.OpenJournal(ctx, sf.options(env))
	}
	if err != nil {
		a.NoJournal(err)
	} else {
		defer j.Close()
		a.UseJournal(j)
		if j.Recovered > 0 {
			notice = phrase.Recovered(j.Recovered, a.Hint)
		}
	}

	if viewsErr != nil {
		notice = strings.TrimSpace(notice + " " + viewsErr.Error())
	}
	deps := ui.Deps{App: a, UI: ui.Options{
		Since:   a.Window(),
		Now:     env.Now,
		Follow:  opts.Follow,
		Mouse:   opts.Mouse,
		Notice:  notice,
		Color:   opts.Color,
		Palette: opts.Palette,
		Views:   views,
		View:    strings.TrimSpace(sf.view),
	}}
	var popts []tea.ProgramOption
	if env.Stdin != nil && env.Stdin != os.Stdin {
		popts = append(popts, tea.WithInput(env.Stdin))
	}
	if env.Stdout != nil && env.Stdout != os.Stdout {
		popts = append(popts, tea.WithOutput(env.Stdout))
	}
	held.Hold()
	err = ui.Run(ctx, deps, popts...)
	held.Release()
	if err != nil {
		fmt.Fprintf(env.Stderr, "exectriage: %s\n", sanitize.String(err.Error()))
		return ExitFinding
	}
	return ExitOK
}
