package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/exectriage/exectriage/config"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/theme"
)

func TestMouseCaptureToggles(t *testing.T) {
	h := newHarness(t, newEnv(t), 120, 40)
	if h.m.View().MouseMode != tea.MouseModeNone {
		t.Fatal("mouse captured by default: the terminal's text selection would not work")
	}
	h.keys("M")
	if h.m.View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("M did not capture the mouse")
	}
	// A click on the third row selects it.
	h.send(tea.MouseClickMsg{X: 10, Y: h.m.lay.list.y + 4, Button: tea.MouseLeft})
	if h.m.list.Cursor() != 2 {
		t.Errorf("click selected row %d", h.m.list.Cursor())
	}
	h.send(tea.MouseWheelMsg{X: 10, Y: h.m.lay.list.y + 4, Button: tea.MouseWheelDown})
	if h.m.list.Cursor() != 5 {
		t.Errorf("wheel moved to %d", h.m.list.Cursor())
	}
	if !h.m.View().AltScreen {
		t.Error("not on the alternate screen")
	}
}

// Colour control: --color never/always win; in auto NO_COLOR (any value) turns
// colour off, CLICOLOR_FORCE (not 0) on; otherwise the terminal decides.
func TestColorProfile(t *testing.T) {
	tests := []struct {
		mode, noColor, force string
		want                 colorprofile.Profile
		forced               bool
	}{
		{"", "", "", colorprofile.TrueColor, false},
		{ColorAuto, "1", "", colorprofile.Ascii, true},
		{ColorAuto, "0", "", colorprofile.Ascii, true}, // no-color.org: any non-empty value
		{ColorAuto, "yes", "1", colorprofile.Ascii, true},
		{ColorAuto, "", "1", colorprofile.TrueColor, true},
		{ColorAuto, "", "0", colorprofile.TrueColor, false},
		{ColorNever, "", "1", colorprofile.Ascii, true},
		{ColorAlways, "1", "", colorprofile.TrueColor, true},
	}
	for _, tt := range tests {
		env := map[string]string{"NO_COLOR": tt.noColor, "CLICOLOR_FORCE": tt.force}
		p, forced := ColorProfile(tt.mode, func(k string) string { return env[k] })
		if forced != tt.forced || forced && p != tt.want {
			t.Errorf("--color %q NO_COLOR=%q CLICOLOR_FORCE=%q: %v %v, want %v %v", tt.mode, tt.noColor, tt.force, p, forced, tt.want, tt.forced)
		}
	}
	if ValidColor("sometimes") == nil || ValidColor(ColorNever) != nil {
		t.Error("ValidColor")
	}
}

// The built-in palettes: every colour valid, ansi16 only indices 0-15, chosen by --theme or the
// config's [theme] palette, and overridable key by key.
func TestPalettes(t *testing.T) {
	for _, name := range []string{"default", "high-contrast", "ansi16"} {
		p, err := theme.Named(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Override(nil); err != nil {
			t.Fatal(err)
		}
		o, err := ApplyConfig(Options{}, config.Config{Theme: map[string]string{"palette": name, "accent": "#123456"}})
		if err != nil || o.Theme.Accent != "#123456" {
			t.Fatalf("%s: %v %+v", name, err, o.Theme)
		}
		o, _ = ApplyConfig(Options{Palette: name}, config.Config{})
		want := p
		if *o.Theme != want {
			t.Errorf("--theme %s: %+v", name, o.Theme)
		}
	}
	a := theme.ANSI16()
	for _, c := range []string{a.Text, a.Muted, a.Accent, a.Border, a.BorderFocus, a.SelectedFG, a.SelectedBG, a.Danger, a.Warn, a.OK, a.Info, a.Highlight} {
		if n, err := strconv.Atoi(c); err != nil || n > 15 {
			t.Errorf("ansi16 colour %q is not 0-15", c)
		}
	}
	if _, err := ApplyConfig(Options{Palette: "neon"}, config.Config{}); err == nil {
		t.Error("an unknown palette was accepted")
	}
}

func TestApplyConfigRebindsAndRecolours(t *testing.T) {
	o, err := ApplyConfig(Options{}, config.Config{Theme: map[string]string{"accent": "#112233"}, Keys: map[string][]string{"retry": {"ctrl+r"}}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Theme.Accent != "#112233" || o.Keys.Retry.Keys()[0] != "ctrl+r" {
		t.Errorf("theme %q keys %v", o.Theme.Accent, o.Keys.Retry.Keys())
	}
	if _, err := ApplyConfig(Options{}, config.Config{Path: "c.toml", Keys: map[string][]string{"retry": {"q"}}}); err == nil || !strings.Contains(err.Error(), "c.toml") {
		t.Errorf("a conflicting binding: %v", err)
	}
}

// panicky is the real backend with a verifier that panics: the program must stop and give the
// terminal back, not leave it in raw mode on the alternate screen.
type panicky struct{ Backend }

func (panicky) Verify(context.Context, *model.Execution) model.ProviderState { panic("verifier bug") }

func TestPanicInACommandRestoresTheTerminal(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	m := New(context.Background(), panicky{e.deps().App}, e.ui)
	p := tea.NewProgram(probe{m}, tea.WithInput(&bytes.Buffer{}), tea.WithOutput(&syncWriter{w: &out}), tea.WithWindowSize(120, 40), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	loaded := func() bool {
		ch := make(chan bool, 1)
		p.Send(inspect(func(m *Model) { ch <- m.data.DS.Len() > 0 }))
		select {
		case ok := <-ch:
			return ok
		case <-time.After(5 * time.Second):
			return false
		}
	}
	for deadline := time.Now().Add(10 * time.Second); !loaded(); {
		if time.Now().After(deadline) {
			t.Fatal("the demo did not load")
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.Send(tea.KeyPressMsg{Code: 'v', Text: "v"})
	select {
	case err := <-done:
		if !errors.Is(err, tea.ErrProgramPanic) {
			t.Fatalf("Run returned %v, want ErrProgramPanic", err)
		}
	case <-time.After(10 * time.Second):
		p.Kill()
		t.Fatal("the program did not stop after a panic")
	}
	if !bytes.Contains(out.Bytes(), []byte("\x1b[?1049l")) {
		t.Error("the alternate screen was not left after the panic")
	}
}

// syncWriter serialises writes (the renderer and the panic handler may both write).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
