package common

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sanitize"
)

// MaxShown bounds how much of one value (the arguments, the response, an error message) a
// pane shows; the rest is cut with a marker that says how big the value was.
const MaxShown = 64 << 10

// MaxParse is the largest value parsed for display (structural redaction, indenting). A larger
// one (a 9 MiB response) is cut to a window a little over MaxShown first and shown as text,
// still redacted by pattern and field name, so a huge record costs what a small one does and
// never stalls the UI.
const MaxParse = 512 << 10

// window is how much of a value over MaxParse is read: MaxShown plus room for the indentation
// and for a secret that straddles MaxShown to be recognised whole.
const window = MaxShown + 8<<10

// MaxField bounds a one-line value (an id, a tool slug, a reason) in cells; MaxFieldBytes is
// how much of it is read.
const (
	MaxField      = 1024
	MaxFieldBytes = 4 * MaxField
)

// Body renders a JSON value for a pane: secrets hidden (all of them unless reveal; the known
// ones always), indented, cut to MaxShown with a marker, and cleaned of anything a terminal
// would interpret. Text that is not JSON is shown as text.
func Body(raw json.RawMessage, sec *redact.Policy, reveal bool) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "(none)"
	}
	if len(raw) > MaxParse {
		return bigText(raw, sec, reveal, true)
	}
	if !json.Valid(raw) {
		return TextBody(string(raw), sec, reveal)
	}
	red := sec.JSON(raw, reveal)
	var buf bytes.Buffer
	if err := json.Indent(&buf, red, "", "  "); err != nil {
		buf.Reset()
		buf.Write(red)
	}
	return shown(buf.Bytes(), len(raw), false)
}

// TextBody renders multi-line text (an error message) for a pane the way Body renders JSON.
func TextBody(s string, sec *redact.Policy, reveal bool) string {
	if len(s) > MaxParse {
		return bigText([]byte(s), sec, reveal, false)
	}
	return shown([]byte(sec.Text(s, reveal)), len(s), false)
}

// bigText shows the start of a value too big to parse: a window of it is (loosely) indented,
// redacted as text, and cut before any token the window's edge may have split.
func bigText(raw []byte, sec *redact.Policy, reveal, indent bool) string {
	head := raw[:runeStart(raw, window)]
	if indent {
		head = looseIndent(head)
	}
	red := []byte(sec.Text(string(head), reveal))
	red = red[:runeStart(red, MaxShown)]
	return shown(dropPartialToken(red), len(raw), true)
}

// shown cleans out, cut to MaxShown, and marks a cut with the size of the whole value.
func shown(out []byte, size int, cut bool) string {
	if len(out) > MaxShown {
		out, cut = out[:runeStart(out, MaxShown)], true
	}
	s := CleanBlock(string(bytes.ToValidUTF8(out, []byte("\uFFFD"))))
	if cut {
		s = strings.TrimRight(s, "\n") + "\n" + TruncatedMarker(size)
	}
	return s
}

// TruncatedMarker is the line that ends a value cut for display.
func TruncatedMarker(size int) string {
	return fmt.Sprintf("… [truncated: %s, showing the first %s; the copy menu has the whole record]", Size(size), Size(MaxShown))
}

// Field renders a one-line value: secrets hidden (all unless reveal; the known ones always),
// cleaned, and cut to MaxField cells with an ellipsis.
func Field(s string, sec *redact.Policy, reveal bool) string {
	cut := false
	if len(s) > MaxFieldBytes {
		s, cut = s[:runeStart([]byte(s), MaxFieldBytes)], true
	}
	red := sec.Text(s, reveal)
	if cut {
		red = string(dropPartialToken([]byte(red)))
	}
	out := sanitize.Line(red, MaxField)
	if cut && !strings.HasSuffix(out, sanitize.Ellipsis) {
		out += sanitize.Ellipsis
	}
	return out
}

// runeStart returns the largest index ≤ n (and ≤ len(b)) that starts a UTF-8 sequence, so a
// cut there splits no character.
func runeStart(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return n
}

// maxPartial is how far back from a cut dropPartialToken looks for a delimiter: secrets are
// shorter; a longer unbroken run is not one token a pattern could have recognised.
const maxPartial = 512

// dropPartialToken removes the token a cut may have split: everything after the last
// delimiter (space, quote, bracket, comma...) within maxPartial bytes of the end, else the
// last maxPartial bytes. Half a secret is not recognised by its pattern, so it must not show.
func dropPartialToken(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-maxPartial; i-- {
		if strings.IndexByte(" \t\r\n\"'`,;:=(){}[]<>&|", b[i]) >= 0 {
			return b[:i+1]
		}
	}
	return b[:runeStart(b, max(len(b)-maxPartial, 0))]
}

// looseIndent indents JSON that may be cut short (the start of a huge value): a newline and
// indentation after { [ and , and before } ], outside strings. It never fails.
func looseIndent(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/4)
	depth, inStr, esc := 0, false, false
	nl := func() {
		out = append(out, '\n')
		for range min(depth, 64) {
			out = append(out, ' ', ' ')
		}
	}
	for _, c := range b {
		switch {
		case inStr:
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '{' || c == '[':
			depth++
			out = append(out, c)
			nl()
		case c == '}' || c == ']':
			depth = max(depth-1, 0)
			nl()
			out = append(out, c)
		case c == ',':
			out = append(out, c)
			nl()
		case c == ':':
			out = append(out, ':', ' ')
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			out = append(out, c)
		}
	}
	return out
}

// Size formats a byte count for a person: 512 B, 64 KiB, 9.2 MiB.
func Size(n int) string {
	f, unit := float64(n), "B"
	switch {
	case n >= 1<<30:
		f, unit = f/(1<<30), "GiB"
	case n >= 1<<20:
		f, unit = f/(1<<20), "MiB"
	case n >= 1<<10:
		f, unit = f/(1<<10), "KiB"
	default:
		return fmt.Sprintf("%d B", n)
	}
	s := strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0")
	return s + " " + unit
}
