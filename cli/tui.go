package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/ui"
)

// runTUI opens the terminal UI: on the live API when COMPOSIO_API_KEY is set, else on the
// embedded demo sandbox; --demo, --file and --base-url choose explicitly.
func runTUI(ctx context.Context, env *Env, args []string) int {
	fs, sf := sourceCommand(env, "")
	follow := fs.Bool("follow", false, "start in follow mode: refresh every few seconds while the list is at the top (F toggles)")
	mouse := fs.Bool("mouse", false, "start with mouse capture on (M toggles it; off keeps the terminal's text selection)")
	color := fs.String("color", ui.ColorAuto, "colour: `auto` (NO_COLOR turns it off, CLICOLOR_FORCE on), always or never")
	palette := fs.String("theme", "", "built-in palette: `default`, high-contrast or ansi16 (the 16 terminal colours); [theme] palette in the config")
	_ = fs.MarkHidden("json") // accepted only to say where it belongs
	pos, code, done := parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return usageError(env, "", "unknown command %q (run 'exectriage help')", pos[0])
	}
	if sf.json {
		return usageError(env, "", "--json is for commands (list, scan, show...), not the TUI")
	}
	if err := ui.ValidColor(*color); err != nil {
		return usageError(env, "", "%s", err)
	}
	if f, ok := env.Stdout.(*os.File); ok && !term.IsTerminal(f.Fd()) {
		return usageError(env, "", "the TUI needs a terminal; for a pipe use `exectriage list` or `exectriage scan`")
	}
	cfg, err := app.LoadConfig(sf.options(env))
	if err != nil {
		return usageError(env, "", "%s", sanitize.String(err.Error()))
	}
	if _, err := ui.ApplyConfig(ui.Options{Palette: *palette}, cfg); err != nil {
		return usageError(env, "", "%s", sanitize.String(err.Error()))
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
	var notice string
	if a.SourceKind() == app.SourceLive && strings.HasPrefix(a.KeyFrom(), "the Composio CLI login") {
		notice = "using the API key of " + a.KeyFrom() + " (COMPOSIO_API_KEY is not set)"
	}
	var j *app.Journal
	if a.ReadOnly() { // read, never create or recover: a read-only session writes nothing
		var note string
		if j, note = app.OpenJournalIfExists(ctx, sf.options(env)); j == nil {
			err = errors.New(note)
		}
	} else {
		j, err = app.OpenJournal(ctx, sf.options(env))
	}
	if err != nil {
		a.NoJournal(err)
	} else {
		defer j.Close()
		a.UseJournal(j)
		if j.Recovered > 0 {
			notice = fmt.Sprintf("%d retry attempt(s) left in flight by a process that is gone are now indeterminate: `exectriage resolve ID` settles each", j.Recovered)
		}
	}

	deps := ui.Deps{App: a, UI: ui.Options{
		Since:   a.Window(),
		Now:     env.Now,
		Follow:  *follow,
		Mouse:   *mouse,
		Notice:  notice,
		Color:   *color,
		Palette: *palette,
	}}
	var popts []tea.ProgramOption
	if env.Stdin != nil && env.Stdin != os.Stdin {
		popts = append(popts, tea.WithInput(env.Stdin))
	}
	if env.Stdout != nil && env.Stdout != os.Stdout {
		popts = append(popts, tea.WithOutput(env.Stdout))
	}
	if err := ui.Run(ctx, deps, popts...); err != nil {
		fmt.Fprintf(env.Stderr, "exectriage: %s\n", sanitize.String(err.Error()))
		return ExitFinding
	}
	return ExitOK
}
