package common

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// cells draws a frame into a terminal's cells, as Bubble Tea's renderer does.
func cells(s string, w, h int) uv.ScreenBuffer {
	b := uv.NewScreenBuffer(w, h)
	b.Method = ansi.GraphemeWidth // as Bubble Tea's renderer and lipgloss measure
	uv.NewStyledString(s).Draw(b, b.Bounds())
	return b
}

// Overlay must put the same cells on the terminal as lipgloss's Compositor, colours included,
// for coloured lines, box drawing, wide characters across the box's edges and boxes partly off
// the screen.
func TestOverlayDrawsWhatTheCompositorDraws(t *testing.T) {
	const w, h = 60, 14
	red := lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	blue := lipgloss.NewStyle().Background(lipgloss.Color("4"))
	var rows []string
	for i := range h {
		var l string
		switch i % 4 {
		case 0:
			l = red.Render(fmt.Sprintf("row %02d ", i)) + blue.Render(strings.Repeat("─", 20)) + " plain tail text that runs on"
		case 1:
			l = "wide 漢字漢字漢字 " + red.Render("漢字 colour") + " more 漢字 and text"
		case 2:
			l = blue.Render("• spinner ⠋ arrows ↑↓ " + red.Render("nested") + " still blue")
		default:
			l = "ascii only line with nothing styled at all, long enough"
		}
		rows = append(rows, l)
	}
	screen := Lines(strings.Join(rows, "\n"), w, h)
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("5")).Padding(0, 1).
		Render(red.Render("Help") + "\nkeys ? q j k\n" + blue.Render("a line with 漢字"))
	for _, at := range [][2]int{{0, 0}, {7, 1}, {8, 2}, {13, 3}, {20, 5}, {45, 9}, {58, 12}, {3, 13}} {
		x, y := at[0], at[1]
		want := Lines(lipgloss.NewCompositor(lipgloss.NewLayer(screen), lipgloss.NewLayer(box).X(x).Y(y).Z(1)).Render(), w, h)
		got := Overlay(screen, box, x, y)
		wb, gb := cells(want, w, h), cells(got, w, h)
		for r := range h {
			for c := range w {
				if wc, gc := wb.CellAt(c, r), gb.CellAt(c, r); !wc.Equal(gc) {
					t.Fatalf("box at %d,%d: cell %d,%d is %q %+v, the compositor's is %q %+v\ngot:\n%s\nwant:\n%s",
						x, y, c, r, gc.Content, gc.Style, wc.Content, wc.Style, got, want)
				}
			}
		}
	}
}
