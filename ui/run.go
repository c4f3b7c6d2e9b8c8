package ui

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/theme"
)

// Run runs the TUI until the person quits (q or ctrl+c) or ctx ends. Bubble Tea restores the
// terminal on exit and on a panic in Update, View or a command (it returns tea.ErrProgramPanic).
func Run(ctx context.Context, d Deps, opts ...tea.ProgramOption) error {
	if d.App == nil {
		return errors.New("ui: no session")
	}
	o, err := ApplyConfig(d.UI, d.App.Config())
	if err != nil {
		return err
	}
	d.UI = o
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := New(ctx, NewBackend(d), d.UI)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if noColor(os.Getenv) {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(m, append(popts, opts...)...)
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil && !errors.Is(err, tea.ErrProgramPanic) {
		return nil // the caller's context ended (a signal): a normal way out
	}
	return err
}

// noColor honours NO_COLOR (https://no-color.org: any non-empty value), which colorprofile
// only reads when it parses as a boolean.
func noColor(getenv func(string) string) bool { return getenv("NO_COLOR") != "" }

// ApplyConfig returns o with the config file's [theme] colours and [keys] bindings applied.
func ApplyConfig(o Options, c config.Config) (Options, error) {
	t := theme.Default()
	if o.Theme != nil {
		t = *o.Theme
	}
	t, err := t.Override(c.Theme)
	if err != nil {
		return o, fmt.Errorf("%s: [theme]: %w", c.Path, err)
	}
	k := keys.Default()
	if o.Keys != nil {
		k = *o.Keys
	}
	k, err = k.Rebind(c.Keys)
	if err != nil {
		return o, fmt.Errorf("%s: [keys]: %w", c.Path, err)
	}
	o.Theme, o.Keys = &t, &k
	return o, nil
}
