package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/internal/heap"
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
	d.UI.Term = os.Getenv("TERM")
	d.UI.NoOSC52 = d.UI.NoOSC52 || d.UI.Term == "linux" || d.UI.Term == "dumb" || os.Getenv("NO_OSC52") != ""
	if os.Getenv("GOMAXPROCS") == "" {
		// More Ps than cores: CPU-bound work fans out over the cores only (package cores) and
		// a load's threads run niced (cores.Background), so the event loop and the renderer
		// always find a P and get the CPU first, instead of waiting out the scheduler's 10 ms
		// slice behind a parse, an analysis or a filter.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + spareProcs))
	}
	if d.UI.Memory == nil {
		d.UI.Memory = heap.New(memoryFloor)
	}
	if os.Getenv("GOGC") == "" {
		d.UI.IdleGC = idleGC
		defer d.UI.Memory.Idle(0) // the process's own pacing back when the TUI ends
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := New(ctx, d.App, d.UI)
	// 120 frames a second, Bubble Tea's most: a key's frame waits for the next tick, up to
	// 16.7 ms at the default 60, which alone would spend the keystroke-to-frame budget. A tick
	// with nothing new to draw writes nothing.
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(maxFPS)}
	if p, forced := ColorProfile(d.UI.Color, os.Getenv); forced {
		popts = append(popts, tea.WithColorProfile(p))
	}
	p := tea.NewProgram(m, append(popts, opts...)...)
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil && !errors.Is(err, tea.ErrProgramPanic) {
		return nil // the caller's context ended (a signal): a normal way out
	}
	return err
}

// spareProcs is how many Ps the TUI keeps beyond the cores (see Run): enough for every
// goroutine a load keeps busy beside the cores' workers (the read, the merge, the analysis,
// the selection, the collector's) and for the loop and the renderer. Measured on 2 cores, a
// key while the 1M load runs: p50 25 / p95 47 ms with 2 spare, 15 / 25 ms with 8.
const spareProcs = 8

// memoryFloor is the TUI's least memory limit (heap.Budget): room for a million-record export
// and the garbage of its load, within the 800 MB its load may peak at.
const memoryFloor = 640 << 20

// idleGC is the collector's percent between loads once a big load is in (handBackCmd), unless
// the process was given GOGC: a quarter of the dataset as headroom for what keys make, rather
// than the default's doubling into fresh memory (heap.Budget.Idle). Typing the bench's filters
// over the 1M export (in process, three runs): per key mean 16.4 -> 11.6 ms, p95 50.0 -> 37.4
// ms. Set from the start instead, it ran cycles in the gaps between the load's phases: a key
// pressed during the 1M load drew its frame later (p95 15.1-15.8 -> 16.4-19.8 ms).
const idleGC = 25

// keyHold is how long a key holds a running load back (Backend.Hold): three frames, time for
// the key's Update, its selection or filter off the loop, and the frame that shows it. A
// person typing ten keys a second slows the load by a quarter while they type.
const keyHold = 3 * time.Second / maxFPS

// maxFPS is the frame rate the TUI asks for.
const maxFPS = 120

// Colour modes (--color).
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// ColorProfile decides the colours: --color never, or (auto) NO_COLOR set to anything
// (https://no-color.org; colorprofile only reads it when it parses as a boolean), is no colour;
// --color always, or (auto) CLICOLOR_FORCE set and not 0, is full colour even when the output
// is not a terminal; otherwise forced is false and the terminal is asked.
func ColorProfile(mode string, getenv func(string) string) (p colorprofile.Profile, forced bool) {
	switch mode {
	case ColorNever:
		return colorprofile.Ascii, true
	case ColorAlways:
		return colorprofile.TrueColor, true
	}
	if getenv("NO_COLOR") != "" {
		return colorprofile.Ascii, true
	}
	if v := getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return colorprofile.TrueColor, true
	}
	return colorprofile.TrueColor, false
}

// ValidColor checks a --color value.
func ValidColor(mode string) error {
	switch mode {
	case "", ColorAuto, ColorAlways, ColorNever:
		return nil
	}
	return fmt.Errorf("--color %q: want auto, always or never", mode)
}

// ApplyConfig returns o with the config file's [theme] colours and [keys] bindings applied.
func ApplyConfig(o Options, c config.Config) (Options, error) {
	t := theme.Default()
	if o.Theme != nil {
		t = *o.Theme
	}
	name := o.Palette
	name = cmp.Or(name, c.Theme[theme.PaletteKey])
	if name != "" {
		p, err := theme.Named(name)
		switch {
		case err != nil && o.Palette != "": // the flag's, not the config's
			return o, fmt.Errorf("--theme %s: %w", o.Palette, err)
		case err != nil:
			return o, fmt.Errorf("%s: [theme]: %w", c.Path, err)
		}
		t = p
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
