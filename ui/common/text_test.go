package common

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"
)

func TestFitIsExactlyTheWidth(t *testing.T) {
	for _, s := range []string{"", "abc", "GMAIL_SEND_EMAIL", "日本語のテキスト", "emoji 👍🏽 mix", lipgloss.NewStyle().Bold(true).Render("styled text")} {
		for _, w := range []int{1, 2, 5, 10, 40} {
			if got := ansi.StringWidth(Fit(s, w)); got != w {
				t.Errorf("Fit(%q, %d) is %d wide", s, w, got)
			}
			if got := ansi.StringWidth(FitLeft(s, w)); got != w {
				t.Errorf("FitLeft(%q, %d) is %d wide", s, w, got)
			}
		}
	}
}

func TestLinesIsExactlyTheBox(t *testing.T) {
	got := Lines("one\ntwo that is far too long for the box\n", 10, 4)
	lines := strings.Split(got, "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		if ansi.StringWidth(l) != 10 {
			t.Errorf("line %d %q is %d wide", i, l, ansi.StringWidth(l))
		}
	}
}

func TestBoxIsExactlyItsSizeWithTitleInTheBorder(t *testing.T) {
	st := BoxStyles{}
	tests := []struct {
		title, right string
		w, h         int
		focused      bool
	}{
		{"Detail", "", 30, 5, false},
		{"Executions · /gmail flagged", "12/2,000", 40, 6, true},
		{"A title far longer than the box itself can hold", "99%", 16, 3, false},
		{"", "", 4, 2, false},
	}
	for _, tt := range tests {
		got := Box(st, tt.title, tt.right, "body line\nsecond body line that overflows the box", tt.w, tt.h, tt.focused)
		lines := strings.Split(got, "\n")
		if len(lines) != tt.h {
			t.Fatalf("%q: %d lines, want %d:\n%s", tt.title, len(lines), tt.h, got)
		}
		for i, l := range lines {
			if ansi.StringWidth(l) != tt.w {
				t.Errorf("%q line %d is %d wide, want %d: %q", tt.title, i, ansi.StringWidth(l), tt.w, l)
			}
		}
		corner := "╭"
		if tt.focused {
			corner = "┏"
		}
		if !strings.HasPrefix(lines[0], corner) {
			t.Errorf("%q: top %q does not start with %s (focus must show without colour)", tt.title, lines[0], corner)
		}
	}
}

func TestFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{Duration(850 * time.Millisecond), "850ms"},
		{Duration(1234 * time.Millisecond), "1.2s"},
		{Duration(61 * time.Second), "61s"},
		{Duration(123 * time.Second), "2m03s"},
		{Duration(3700 * time.Second), "1h01m"},
		{Gap(450 * time.Millisecond), "+0.45 s"},
		{Gap(14600 * time.Millisecond), "+14.6 s"}, // rounded like the reasons' "14.6 s", not cut to +14s
		{Gap(75 * time.Second), "+1.2 min"},
		{Gap(-790 * time.Millisecond), "overlap 0.79 s"}, // never "-0.79s" beside "started 0.1 s after"
		{Gap(-15 * time.Second), "overlap 15.0 s"},       // never "+-15s"
		{Count(0), "0"},
		{Count(1234567), "1,234,567"},
		{Count(-1200), "-1,200"},
		{Clock(time.Date(2026, 3, 1, 14, 2, 11, 0, time.UTC)), "14:02:11"},
		{Stamp(time.Date(2026, 3, 1, 14, 2, 11, 0, time.UTC)), "03-01 14:02:11"},
		{Ago(time.Unix(100, 0), time.Unix(40, 0)), "1m ago"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestCleanNeutralisesTerminalControl(t *testing.T) {
	evil := "subject\x1b]52;c;cm0gLXJmIC8=\x07 \x1b[2J\u202eevil\nline"
	got := Clean(evil)
	if strings.ContainsAny(got, "\x1b\x07\n\u202e") {
		t.Errorf("Clean left control characters: %q", got)
	}
	block := CleanBlock("a\x1b[31m\nb")
	if strings.Contains(block, "\x1b") || strings.Count(block, "\n") != 1 {
		t.Errorf("CleanBlock = %q", block)
	}
	if p := Body([]byte(`{"b":"\u001b[31mred","a":1}`), nil, false); strings.Contains(p, "\x1b") || !strings.Contains(p, `"a": 1`) {
		t.Errorf("Body = %q", p)
	}
}

// TestFastWidthMatchesANSI checks the fast path against ansi.StringWidth: every symbol it
// knows, and random strings of ASCII, escape sequences, known symbols and other text.
func TestFastWidthMatchesANSI(t *testing.T) {
	var known []rune
	for r := rune(0x80); r < 0x3000; r++ {
		if singleCell(r) {
			known = append(known, r)
			if got, want := Width(string(r)), ansi.StringWidth(string(r)); got != want {
				t.Fatalf("Width(%q) = %d, ansi says %d", r, got, want)
			}
		}
	}
	pieces := []string{"a", "Z", " ", "~", "\x1b[31m", "\x1b[0m", "\x1b[38;2;1;2;3m", "\x1b]8;;x\x1b\\", "\x1b",
		"\t", "\n", "\x7f", "é", "e\u0301", "世", "🙂", "\u200d", "\ufe0f", "🇫🇷"}
	for _, r := range known {
		pieces = append(pieces, string(r))
	}
	rapid.Check(t, func(t *rapid.T) {
		s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 40).Draw(t, "pieces"), "")
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Fatalf("Width(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
		if w, ok := fastWidth(s); ok && w != ansi.StringWidth(s) {
			t.Fatalf("fastWidth(%q) = %d", s, w)
		}
	})
}

// Wrap breaks at spaces only: ids, uuids and dates stay whole (ansi.Wrap broke them after
// each '-': "log_a-" / "NA1LoG7qec", "2026-" / "03-02").
func TestWrapKeepsHyphenatedWordsWhole(t *testing.T) {
	for _, s := range []string{
		"only a fresh `exectriage verify log_a-NA1LoG7qec` that no longer finds it",
		"found email at 2026-03-02 08:05:53Z (GMAIL_FETCH_EMAILS): do not retry",
		"retry succeeded · attempt 58d9c377-02a2-4e36-bbf0-e7a96fec6de9 by tester",
	} {
		for w := 37; w <= 70; w++ { // no word is longer than 36: none may be broken
			got := Wrap(s, w)
			words := strings.Fields(s)
			for l := range strings.SplitSeq(got, "\n") {
				if Width(l) > w && !slices.Contains(words, strings.TrimSpace(l)) {
					t.Errorf("width %d: line %q is wider", w, l)
				}
			}
			if strings.Join(strings.Fields(got), " ") != strings.Join(words, " ") {
				t.Errorf("width %d: a word was broken:\n%s", w, got)
			}
		}
	}
}

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
