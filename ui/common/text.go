package common

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/exectriage/exectriage/model"
)

// Width is the display width of s (ANSI aware).
func Width(s string) int {
	if w, ok := fastWidth(s); ok {
		return w
	}
	return ansi.StringWidth(s)
}

// fastWidth measures the common case of a frame's text without grapheme segmentation: printable
// ASCII, CSI escape sequences (lipgloss's colours) and the single-cell symbols the UI draws
// (box drawing, blocks, braille spinner frames, arrows, "…", "·", "×"). None of these joins
// with a neighbour into a wider cluster, so each counts one cell. Anything else (other
// non-ASCII text, control bytes, other escape sequences) reports ok false and the caller
// measures with ansi.StringWidth.
func fastWidth(s string) (int, bool) {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			w++
			i++
		case c == 0x1b:
			j, ok := csiEnd(s, i)
			if !ok {
				return 0, false
			}
			i = j
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !singleCell(r) {
				return 0, false
			}
			w++
			i += size
		default:
			return 0, false
		}
	}
	return w, true
}

// csiEnd is the end of the CSI escape sequence at s[i] (ESC [ parameters, intermediates,
// final byte); ok is false for anything else.
func csiEnd(s string, i int) (end int, ok bool) {
	if i+1 >= len(s) || s[i+1] != '[' {
		return 0, false
	}
	j := i + 2
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j >= len(s) || s[j] < 0x40 || s[j] > 0x7e {
		return 0, false
	}
	return j + 1, true
}

// singleCell reports whether r is one of the one-cell symbols fastWidth knows.
func singleCell(r rune) bool {
	switch {
	case r >= 0x2500 && r <= 0x259f: // box drawing, block elements
		return true
	case r >= 0x2801 && r <= 0x28ff: // braille (spinner frames)
		return true
	case r >= 0x2190 && r <= 0x2193: // arrows
		return true
	case r == 0x2026 || r == 0x00b7 || r == 0x00d7 || r == 0x2022 || r == 0x203a || r == 0x2039:
		return true // … · × • › ‹
	case r == 0x25b8 || r == 0x25be || r == 0x25b4 || r == 0x25c2: // ▸ ▾ ▴ ◂
		return true
	}
	return false
}

// Truncate cuts s to at most w cells, marking a cut with "…".
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Fit returns s cut or padded with spaces to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Truncate(s, w)
	if d := w - Width(s); d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}

// FitLeft returns s right-aligned in exactly w cells.
func FitLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Truncate(s, w)
	if d := w - Width(s); d > 0 {
		s = strings.Repeat(" ", d) + s
	}
	return s
}

// Lines returns exactly h lines of exactly w cells from s: extra lines are dropped, missing
// ones are blank, every line is cut or padded.
func Lines(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	in := strings.Split(s, "\n")
	out := make([]string, h)
	for i := range out {
		if i < len(in) {
			out[i] = Fit(in[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return strings.Join(out, "\n")
}

// Box draws body inside a border of exactly w x h cells with title set into the top edge, the
// way k9s and lazygit frame their panes. A focused box uses a heavy border so focus shows
// without colour.
func Box(st BoxStyles, title, right, body string, w, h int, focused bool) string {
	if w < 4 || h < 2 {
		return Lines(body, max(w, 0), max(h, 0))
	}
	b := lipgloss.RoundedBorder()
	bs, ts := st.Border, st.Title
	if focused {
		b = lipgloss.ThickBorder()
		bs, ts = st.BorderFocus, st.TitleFocus
	}
	inner := w - 2
	// top edge: ╭─ Title ───── right ─╮
	t := ""
	if title != "" {
		t = " " + Truncate(title, max(inner-4, 1)) + " "
	}
	r := ""
	if right != "" {
		r = " " + right + " "
		if Width(t)+Width(r)+2 > inner {
			r = ""
		}
	}
	fill := inner - 1 - Width(t) - Width(r)
	if right != "" && r != "" {
		fill--
	}
	var top strings.Builder
	top.WriteString(bs.Render(b.TopLeft + b.Top))
	top.WriteString(ts.Render(t))
	top.WriteString(bs.Render(strings.Repeat(b.Top, max(fill, 0))))
	if r != "" {
		top.WriteString(st.Title.Render(r))
		top.WriteString(bs.Render(b.Top))
	}
	top.WriteString(bs.Render(b.TopRight))

	lines := strings.Split(Lines(body, inner, h-2), "\n")
	left, rightEdge := bs.Render(b.Left), bs.Render(b.Right)
	var sb strings.Builder
	sb.WriteString(top.String())
	for _, l := range lines {
		if h-2 <= 0 {
			break
		}
		sb.WriteString("\n")
		sb.WriteString(left)
		sb.WriteString(l)
		sb.WriteString(rightEdge)
	}
	sb.WriteString("\n")
	sb.WriteString(bs.Render(b.BottomLeft + strings.Repeat(b.Bottom, inner) + b.BottomRight))
	return sb.String()
}

// BoxStyles are the styles Box needs (a subset of styles.Styles.Pane).
type BoxStyles struct {
	Border, BorderFocus, Title, TitleFocus lipgloss.Style
}

// Duration formats a duration for a column: 850ms, 1.2s, 61s, 2m03s, 1h02m.
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		return "-"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < 100*time.Second:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// Gap formats the time between two duplicates: +0.45s, +12s, +3m10s.
func Gap(d time.Duration) string { return model.GapText(d) }

// Count formats an integer with thousands separators: 1,234,567.
func Count(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Clock formats a time of day in UTC, the zone the Logs API speaks.
func Clock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.UTC().Format("15:04:05")
}

// Stamp formats a date and time in UTC for columns with room: 01-02 15:04:05.
func Stamp(t time.Time) string {
	if t.IsZero() {
		return "--"
	}
	return t.UTC().Format("01-02 15:04:05")
}

// ShortStamp is Stamp to the minute, for narrow columns: the date stays.
func ShortStamp(t time.Time) string {
	if t.IsZero() {
		return "--"
	}
	return t.UTC().Format("01-02 15:04")
}

// FullTime formats a time with milliseconds for the detail pane.
func FullTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000Z")
}

// Ago says how long before now t was: 5s ago, 3m ago, 2h ago.
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
}

// nonBreakingHyphen stands in for '-' while Wrap runs.
const nonBreakingHyphen = "\u2011"

// Wrap wraps s to width w (ANSI-aware) at spaces, breaking a word only when it is longer than
// a whole line: ids, dates and hyphenated words stay in one piece (ansi.Wrap also breaks after
// every '-', which cut log_a-NA1L… and 2026-03-02 in two).
func Wrap(s string, w int) string {
	if !strings.Contains(s, "-") {
		return ansi.Wrap(s, w, "")
	}
	return strings.ReplaceAll(ansi.Wrap(strings.ReplaceAll(s, "-", nonBreakingHyphen), w, ""), nonBreakingHyphen, "-")
}

// WrapJSON is Wrap for compact JSON: a line may also break after a comma, so a long object
// wraps between its members ("limit":200, / "oldest":...) rather than inside a token.
func WrapJSON(s string, w int) string {
	if w < 1 {
		return s
	}
	// The members, each with its comma; as many on a line as fit; one longer than a line is
	// wrapped as text (at its spaces) on lines of its own.
	var members []string
	for rest := s; rest != ""; {
		i := strings.IndexByte(rest, ',')
		if i < 0 {
			members = append(members, rest)
			break
		}
		members = append(members, rest[:i+1])
		rest = rest[i+1:]
	}
	var lines []string
	cur := ""
	for _, p := range members {
		switch {
		case Width(cur)+Width(p) <= w:
			cur += p
		case Width(strings.TrimLeft(p, " ")) <= w:
			lines = append(lines, cur)
			cur = strings.TrimLeft(p, " ") // a comma inside a string leaves a space
		default:
			if cur != "" {
				lines = append(lines, cur)
			}
			parts := strings.Split(Wrap(p, w), "\n")
			lines = append(lines, parts[:len(parts)-1]...)
			cur = parts[len(parts)-1]
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	if len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// LabelMark starts a pane line that is "label     value" (a 9-cell label and a space): the
// pane wraps its value under itself. Panes take it off before showing the line.
const LabelMark = "\x1f"

// Overlay sets box over screen (lines of equal width, as Lines makes them) with box's top
// left corner at column x, row y: each of box's lines replaces as many cells of the screen's
// line under it as it is wide, and what lies right of it keeps its colours. It does what
// lipgloss's Compositor does for one box over a frame, without drawing both into cells and
// rendering them again (a few milliseconds a frame at 120x40, with a dialog or the help
// open). Parts of box off the screen are cut, marked with "…" as Lines marks a cut.
func Overlay(screen, box string, x, y int) string {
	lines := strings.Split(screen, "\n")
	for i, bl := range strings.Split(box, "\n") {
		r := y + i
		if r < 0 || r >= len(lines) {
			continue
		}
		lines[r] = splice(lines[r], bl, max(x, 0))
	}
	return strings.Join(lines, "\n")
}

// splice replaces the cells of line under mid, which starts at column x.
func splice(line, mid string, x int) string {
	lw := Width(line)
	if x >= lw {
		return line
	}
	mw := Width(mid)
	if x+mw > lw {
		mid = Truncate(mid, lw-x) // marked with "…", as Lines cuts a frame
		mw = Width(mid)
	}
	left, right, ok := splitCells(line, x, x+mw)
	if !ok {
		left, right = ansi.Truncate(line, x, ""), ansi.TruncateLeft(line, x+mw, "")
	}
	if d := x - Width(left); d > 0 { // a wide character across the box's left edge
		left += strings.Repeat(" ", d)
	}
	if d := Width(right) - (lw - x - mw); d > 0 { // and across its right edge
		right = strings.Repeat(" ", lw-x-mw) // rare: blank rather than misalign
	}
	return left + ansi.ResetStyle + mid + ansi.ResetStyle + right
}

// splitCells splits a line fastWidth can measure into its first n cells (with the escape
// sequences among them) and the cells from m on, preceded by every escape sequence before
// them so that they keep their style; ok is false for a line fastWidth cannot measure.
func splitCells(s string, n, m int) (left, right string, ok bool) {
	var esc strings.Builder
	col, leftEnd := 0, -1
	for i := 0; i < len(s); {
		if col == n && leftEnd < 0 {
			leftEnd = i
		}
		if col == m {
			return s[:leftEnd], esc.String() + s[i:], true
		}
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			col++
			i++
		case c == 0x1b:
			j, ok := csiEnd(s, i)
			if !ok {
				return "", "", false
			}
			esc.WriteString(s[i:j])
			i = j
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !singleCell(r) {
				return "", "", false
			}
			col++
			i += size
		default:
			return "", "", false
		}
	}
	if leftEnd < 0 {
		leftEnd = len(s)
	}
	return s[:leftEnd], esc.String(), true
}
