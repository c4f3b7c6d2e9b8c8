// Package theme holds exectriage's colours: one named palette that the config file's [theme]
// table can override key by key. Styles are built from it in package styles; nothing else
// names a colour.
package theme

import (
	"fmt"
	"image/color"
	"regexp"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
)

// Theme is the palette. Every field is a colour as the config file spells it: "#rrggbb", "#rgb"
// or an ANSI index "0".."255".
type Theme struct {
	Text        string // ordinary text
	Muted       string // secondary text, separators, column headers
	Accent      string // titles, keys in help, the LIVE/DEMO badge
	Border      string // pane borders
	BorderFocus string // the focused pane's border
	SelectedFG  string // selected row text
	SelectedBG  string // selected row background
	Danger      string // flagged writes, errors
	Warn        string // rejected, duplicates, warnings
	OK          string // succeeded, verified absent, retried
	Info        string // verified found, spinner, progress
	Highlight   string // filter match highlight
}

// Default is the palette used when the config names none.
func Default() Theme {
	return Theme{
		Text:        "#d0d0d0",
		Muted:       "#7a7a7a",
		Accent:      "#7aa2f7",
		Border:      "#4a4a4a",
		BorderFocus: "#7aa2f7",
		SelectedFG:  "#ffffff",
		SelectedBG:  "#2f3b5a",
		Danger:      "#f7768e",
		Warn:        "#e0af68",
		OK:          "#9ece6a",
		Info:        "#7dcfff",
		Highlight:   "#ff9e64",
	}
}

// HighContrast is for low-vision use and washed-out projectors: pure, bright colours on the
// terminal's background and a strong selection.
func HighContrast() Theme {
	return Theme{
		Text: "#ffffff", Muted: "#c0c0c0", Accent: "#00d7ff", Border: "#ffffff", BorderFocus: "#ffff00",
		SelectedFG: "#000000", SelectedBG: "#ffff00", Danger: "#ff5f5f", Warn: "#ffaf00", OK: "#5fff5f",
		Info: "#5fffff", Highlight: "#ff87ff",
	}
}

// ANSI16 uses only the 16 colours every terminal has (indices 0-15), which the terminal's own
// palette decides: for terminals without 256 colours, and for people who tuned theirs.
func ANSI16() Theme {
	return Theme{
		Text: "7", Muted: "8", Accent: "12", Border: "8", BorderFocus: "12", SelectedFG: "15", SelectedBG: "4",
		Danger: "9", Warn: "11", OK: "10", Info: "14", Highlight: "13",
	}
}

// Named returns the built-in palette of that name: default, high-contrast, ansi16.
func Named(name string) (Theme, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "default":
		return Default(), nil
	case "high-contrast", "high_contrast":
		return HighContrast(), nil
	case "ansi16", "16":
		return ANSI16(), nil
	}
	return Theme{}, fmt.Errorf("theme: no palette %q (default, high-contrast, ansi16)", name)
}

// PaletteKey is the [theme] key that picks the built-in palette the other keys override.
const PaletteKey = "palette"

var colourRE = regexp.MustCompile(`^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[0-9]{1,3})$`)

// fields maps a config key to the field it sets; keys are snake_case as in the config file.
func (t *Theme) fields() map[string]*string {
	return map[string]*string{
		"text": &t.Text, "muted": &t.Muted, "accent": &t.Accent, "border": &t.Border,
		"border_focus": &t.BorderFocus, "selected_fg": &t.SelectedFG, "selected_bg": &t.SelectedBG,
		"danger": &t.Danger, "warn": &t.Warn, "ok": &t.OK, "info": &t.Info,
		"highlight": &t.Highlight,
	}
}

// Keys lists the names the config file's [theme] table accepts, sorted.
func Keys() []string {
	var t Theme
	var ks []string
	for k := range t.fields() {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Override returns t with the given colours replaced. An unknown name or a colour that is not
// "#rgb", "#rrggbb" or 0..255 is an error naming it; t is returned unchanged in that case.
func (t Theme) Override(colours map[string]string) (Theme, error) {
	out := t
	f := out.fields()
	names := make([]string, 0, len(colours))
	for k := range colours {
		if k != PaletteKey {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		v := strings.TrimSpace(colours[name])
		p, ok := f[strings.ToLower(name)]
		if !ok {
			return t, fmt.Errorf("theme: unknown colour %q (known: %s)", name, strings.Join(Keys(), ", "))
		}
		if !colourRE.MatchString(v) {
			return t, fmt.Errorf("theme: %s = %q is not a colour (#rrggbb, #rgb or 0-255)", name, v)
		}
		*p = v
	}
	return out, nil
}

// Color converts a palette entry for lipgloss.
func Color(s string) color.Color { return lipgloss.Color(s) }
