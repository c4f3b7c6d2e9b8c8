// Package sanitize makes text from untrusted places (execution logs, API answers, export files,
// provider data) safe to print on a terminal or to paste into Markdown. Anything a terminal would
// act on instead of showing (C0 and C1 controls, the ESC that starts CSI/OSC/DCS/APC/PM/SOS
// sequences such as OSC 52 clipboard writes, OSC 8 links and title changes) and anything that
// changes how the text around it reads without being seen (bidirectional overrides and
// isolates, zero-width and other format characters) is shown as a visible escape like `\x1b` or
// `\u202e` and never emitted. Tabs are expanded, invalid UTF-8 becomes U+FFFD, and lines can be
// cut to a display width (wide characters count two cells) with an ellipsis.
//
// The escapes are for reading, not for decoding: a literal backslash in the input is kept as
// it is, so `\x1b` typed by someone looks the same as an escaped ESC. That is harmless: neither
// reaches the terminal as a control.
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
)

// TabWidth is the tab stop used when tabs are expanded to spaces. Four keeps indented log
// payloads readable in narrow panes.
const TabWidth = 4

// Ellipsis marks a line that was cut to fit its width. It is one cell wide.
const Ellipsis = "…"

// String returns s made safe for a single-line context, without a width limit: newlines and
// every other control show as escapes.
func String(s string) string { return Line(s, 0) }

// Line returns s made safe for a single-line context: newlines show as `\n`, controls and
// invisible format characters as escapes, tabs become spaces, and when maxWidth > 0 the result
// is at most maxWidth cells wide, ending in Ellipsis when something was cut. Plain printable
// ASCII that fits is returned unchanged, without allocating.
func Line(s string, maxWidth int) string {
	if n := printableASCII(s); n == len(s) {
		if maxWidth <= 0 || len(s) <= maxWidth {
			return s
		}
		return s[:maxWidth-1] + Ellipsis
	}
	w := newWriter(len(s), maxWidth, false)
	w.text(s)
	return string(w.buf)
}

// Block returns s made safe for a multi-line context: line breaks ("\n", and "\r\n" which
// becomes "\n") are kept, everything within a line is treated as by Line, and when
// maxWidth > 0 every line is cut to at most maxWidth cells. Lone carriage returns, vertical
// tabs, form feeds and Unicode line separators show as escapes, so a line can never overwrite
// another. Printable ASCII with plain newlines whose lines fit is returned unchanged.
func Block(s string, maxWidth int) string {
	if blockFast(s, maxWidth) {
		return s
	}
	w := newWriter(len(s), maxWidth, true)
	w.text(s)
	return string(w.buf)
}

// printableASCII returns the length of the longest prefix of s made of bytes 0x20-0x7e.
func printableASCII(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return i
		}
	}
	return len(s)
}

// BlockBytes is Block for text held as bytes: b itself when it needs no change (a large
// record printed whole is not copied).
func BlockBytes(b []byte, maxWidth int) []byte {
	if blockFast(b, maxWidth) {
		return b
	}
	w := newWriter(len(b), maxWidth, true)
	w.text(string(b))
	return w.buf
}

// blockFast reports whether s is printable ASCII and plain newlines with every line fitting.
func blockFast[T string | []byte](s T, maxWidth int) bool {
	col := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			col = 0
			continue
		}
		if c < 0x20 || c > 0x7e {
			return false
		}
		col++
		if maxWidth > 0 && col > maxWidth {
			return false
		}
	}
	return true
}

// writer lays out sanitised text: it tracks the display column of the current line and where
// the line could still take an ellipsis, so a line that overflows is cut back to that point.
type writer struct {
	buf   []byte
	max   int  // maximum cells per line; <= 0 means no limit
	block bool // keep line breaks
	col   int  // cells used on the current line
	save  int  // len(buf) at the last point where col <= max-1 on this line
	cut   bool // the current line has been cut; drop the rest of it
}

func newWriter(n, maxWidth int, block bool) *writer {
	if maxWidth > 0 && n > 4*maxWidth+16 && !block {
		n = 4*maxWidth + 16 // a cut line never needs more than this (4 bytes per cell is generous)
	}
	return &writer{buf: make([]byte, 0, n+n/8+8), max: maxWidth, block: block}
}

// unit appends text that occupies width cells and must not be split.
func (w *writer) unit(text string, width int) {
	if w.cut {
		return
	}
	if w.max > 0 && w.col+width > w.max {
		w.buf = append(w.buf[:w.save], Ellipsis...)
		w.cut = true
		return
	}
	w.buf = append(w.buf, text...)
	w.col += width
	if w.max <= 0 || w.col <= w.max-1 {
		w.save = len(w.buf)
	}
}

func (w *writer) newline() {
	w.buf = append(w.buf, '\n')
	w.col, w.cut = 0, false
	w.save = len(w.buf)
}

func (w *writer) tab() {
	for n := TabWidth - w.col%TabWidth; n > 0 && !w.cut; n-- {
		w.unit(" ", 1)
	}
}

// escape appends the visible form of an unsafe rune.
func (w *writer) escape(r rune) {
	var tmp [10]byte
	e := appendEscape(tmp[:0], r)
	w.unit(string(e), len(e))
}

// appendEscape appends the visible form of a rune that must not be emitted: \n and \r by
// name, other C0 controls and DEL as \xNN, everything else as \uNNNN or \UNNNNNNNN.
func appendEscape(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch {
	case r == '\n':
		return append(b, `\n`...)
	case r == '\r':
		return append(b, `\r`...)
	case r < 0x20 || r == 0x7f:
		return append(b, '\\', 'x', hex[r>>4], hex[r&0xf])
	case r <= 0xffff:
		b = append(b, '\\', 'u')
		for shift := 12; shift >= 0; shift -= 4 {
			b = append(b, hex[(r>>shift)&0xf])
		}
		return b
	default:
		b = append(b, '\\', 'U')
		for shift := 28; shift >= 0; shift -= 4 {
			b = append(b, hex[(r>>shift)&0xf])
		}
		return b
	}
}

// text lays out s. Invalid UTF-8 is repaired first so that grapheme segmentation only ever
// sees valid text.
func (w *writer) text(s string) {
	if !utf8.ValidString(s) {
		s = repair(s)
	}
	g := displaywidth.StringGraphemes(s)
	for g.Next() {
		c := g.Value()
		if w.cut && !w.block {
			return
		}
		switch c {
		case "\n":
			if w.block {
				w.newline()
			} else {
				w.escape('\n')
			}
			continue
		case "\r\n":
			if w.block {
				w.newline()
			} else {
				w.escape('\r')
				w.escape('\n')
			}
			continue
		case "\t":
			w.tab()
			continue
		}
		if w.cut {
			continue // block mode: skip the rest of a cut line
		}
		if len(c) == 1 {
			if b := c[0]; b < 0x20 || b == 0x7f {
				w.escape(rune(b))
			} else {
				w.unit(c, 1)
			}
			continue
		}
		w.cluster(c, g.Width())
	}
}

// cluster appends one grapheme cluster, escaping the unsafe runes in it. A zero width joiner
// inside a cluster (an emoji ZWJ sequence) and the tag characters of an emoji tag sequence
// (subdivision flags) are kept; anywhere else they are invisible and escaped. A cluster that
// starts with a combining mark has no base of its own (it followed a control, a line start or
// the start of the text): printed, it would fuse with whatever precedes it on screen (an escape,
// a pane border), so its marks are escaped too, as are marks left dangling after an escape.
func (w *writer) cluster(c string, width int) {
	first, _ := utf8.DecodeRuneInString(c)
	orphan := unicode.Is(unicode.M, first)
	flag := tagFlag(c)
	if !orphan && cleanCluster(c, flag) {
		w.unit(c, width)
		return
	}
	start, escaped := 0, orphan
	for i, r := range c {
		bad := unsafeRune(r) && !allowedInCluster(c, i, r, flag)
		if escaped && (r == zwj || unicode.Is(unicode.M, r)) {
			bad = true
		}
		if !bad {
			continue
		}
		if start < i {
			w.unit(c[start:i], displaywidth.String(c[start:i]))
		}
		w.escape(r)
		escaped = true
		start = i + utf8.RuneLen(r)
	}
	if start < len(c) {
		w.unit(c[start:], displaywidth.String(c[start:]))
	}
}

// cleanCluster reports whether no rune of c needs escaping.
func cleanCluster(c string, flag bool) bool {
	for i, r := range c {
		if unsafeRune(r) && !allowedInCluster(c, i, r, flag) {
			return false
		}
	}
	return true
}

const (
	zwj        = 0x200d
	blackFlag  = 0x1f3f4 // base of emoji tag sequences (England, Scotland, Wales flags)
	cancelTag  = 0xe007f
	tagSpace   = 0xe0020
	tagTildeUp = 0xe007e
)

// allowedInCluster reports whether the unsafe rune r at byte offset i of cluster c is part of
// a legitimate emoji sequence; flag says whether c is an emoji tag sequence (tagFlag).
func allowedInCluster(c string, i int, r rune, flag bool) bool {
	switch {
	case r == zwj:
		// joins what comes before to what comes after; a leading or trailing ZWJ joins nothing
		if i == 0 || i+utf8.RuneLen(r) >= len(c) {
			return false
		}
		next, _ := utf8.DecodeRuneInString(c[i+utf8.RuneLen(r):])
		return !unsafeRune(next)
	case r >= tagSpace && r <= cancelTag:
		return flag
	}
	return false
}

// tagFlag reports whether c is an emoji tag sequence: a black flag, tag characters, and a
// cancel tag (the England, Scotland and Wales flags).
func tagFlag(c string) bool {
	first, n := utf8.DecodeRuneInString(c)
	last, _ := utf8.DecodeLastRuneInString(c)
	if first != blackFlag || last != cancelTag {
		return false
	}
	for _, t := range c[n:] {
		if t != cancelTag && (t < tagSpace || t > tagTildeUp) && t != 0xfe0f {
			return false
		}
	}
	return true
}

// unsafeRune reports whether r must never reach a terminal as itself: C0 and C1 controls,
// DEL, and format characters (general category Cf: bidi embeddings, overrides and isolates,
// zero-width space and joiners, word joiner, BOM, soft hyphen, interlinear annotation, tags),
// plus the line and paragraph separators U+2028/U+2029.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r < 0xa0:
		return true // C1 controls, including CSI (U+009B), OSC (U+009D), DCS (U+0090), ST (U+009C)
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// repair replaces every byte that is not part of valid UTF-8 with U+FFFD, one per byte, the
// way a range loop decodes it.
func repair(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
