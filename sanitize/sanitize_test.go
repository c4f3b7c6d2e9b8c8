package sanitize

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"plain ascii unchanged", "GMAIL_SEND_EMAIL", 0, "GMAIL_SEND_EMAIL"},
		{"empty", "", 10, ""},
		{"csi colour shown", "\x1b[31mred\x1b[0m", 0, `\x1b[31mred\x1b[0m`},
		{"osc 52 clipboard", "\x1b]52;c;aGk=\x07", 0, `\x1b]52;c;aGk=\x07`},
		{"osc 8 link", "\x1b]8;;http://e/\x1b\\x\x1b]8;;\x1b\\", 0, `\x1b]8;;http://e/\x1b\x\x1b]8;;\x1b\`},
		{"title", "\x1b]0;pwned\x07", 0, `\x1b]0;pwned\x07`},
		{"c1 csi as utf-8", "\u009b31m", 0, `\u009b31m`},
		{"c1 csi as raw byte is invalid utf-8", "\x9b31m", 0, "\uFFFD31m"},
		{"newline visible", "a\nb", 0, `a\nb`},
		{"crlf visible", "a\r\nb", 0, `a\r\nb`},
		{"lone cr", "safe\rEVIL", 0, `safe\rEVIL`},
		{"nul and del", "a\x00b\x7fc", 0, `a\x00b\x7fc`},
		{"bidi override", "file_\u202egpj.exe", 0, `file_\u202egpj.exe`},
		{"bidi isolate", "\u2066x\u2069", 0, `\u2066x\u2069`},
		{"zero width space", "pay\u200bpal", 0, `pay\u200bpal`},
		{"soft hyphen", "pay\u00adpal", 0, `pay\u00adpal`},
		{"bom", "\ufeffx", 0, `\ufeffx`},
		{"line separator", "a\u2028b", 0, `a\u2028b`},
		{"tag characters", "hi\U000e0041", 0, `hi\U000e0041`},
		{"lone zwj", "a\u200db", 0, `a\u200db`},
		{"emoji zwj sequence kept", "\U0001f468\u200d\U0001f469\u200d\U0001f467", 0, "\U0001f468\u200d\U0001f469\u200d\U0001f467"},
		{"emoji tag flag kept", "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", 0, "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"},
		{"combining kept on base", "e\u0301", 0, "e\u0301"},
		{"orphan combining mark escaped", "\u0301a", 0, `\u0301a`},
		{"mark after control escaped", "\x1b\u0301", 0, `\x1b\u0301`},
		{"invalid utf-8", "a\xffb", 0, "a\uFFFDb"},
		{"truncated utf-8", "\xe4\xb8", 0, "\uFFFD\uFFFD"},
		{"tab to stop 4", "a\tb", 0, "a   b"},
		{"tab at stop", "abcd\te", 0, "abcd    e"},
		{"tab after wide", "世\tx", 0, "世  x"},
		{"ascii cut", "abcdefghij", 5, "abcd…"},
		{"ascii fits exactly", "abcde", 5, "abcde"},
		{"width one", "abc", 1, "…"},
		{"wide cut keeps width", "日本語テキスト", 5, "日本…"},
		{"wide fits exactly", "日本語", 6, "日本語"},
		{"escape not split", "ab\x1bcd", 5, "ab…"},
		{"cut inside tab", "ab\tcdef", 4, "ab …"},
		{"cjk", "日本語", 0, "日本語"},
		{"emoji", "ok \U0001f44d", 0, "ok \U0001f44d"},
		{"private use kept", "\ue000", 0, "\ue000"},
		{"arabic kept, marks escaped", "a\u061cb", 0, `a\u061cb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Line(tt.in, tt.max)
			if got != tt.want {
				t.Fatalf("Line(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
			checkSafe(t, got, false, tt.max)
		})
	}
}

func TestStringIsLineWithoutLimit(t *testing.T) {
	in := strings.Repeat("x\x1b", 500)
	if got, want := String(in), Line(in, 0); got != want {
		t.Fatalf("String differs from Line(s, 0)")
	}
}

func TestBlock(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"plain unchanged", "a\nb\n", 0, "a\nb\n"},
		{"crlf becomes lf", "a\r\nb", 0, "a\nb"},
		{"lone cr escaped", "a\rb\nc", 0, "a\\rb\nc"},
		{"each line cut", "abcdefgh\nxy\n12345678", 4, "abc…\nxy\n123…"},
		{"controls within lines", "\x1b[2J\n\u202eevil", 0, "\\x1b[2J\n\\u202eevil"},
		{"tabs reset per line", "ab\tc\n\td", 0, "ab  c\n    d"},
		{"vertical tab and form feed", "a\vb\fc", 0, `a\x0bb\x0cc`},
		{"nel escaped", "a\u0085b", 0, `a\u0085b`},
		{"cut line does not swallow next", "日本語日本語\nok", 3, "日…\nok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Block(tt.in, tt.max)
			if got != tt.want {
				t.Fatalf("Block(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
			checkSafe(t, got, true, tt.max)
		})
	}
}

func TestPlainASCIIDoesNotAllocate(t *testing.T) {
	s := "log_-jRTWClpBoVo GMAIL_SEND_EMAIL success 202ms"
	if n := testing.AllocsPerRun(100, func() { _ = Line(s, 0) }); n != 0 {
		t.Fatalf("Line allocated %v times for plain ASCII", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Line(s, 80) }); n != 0 {
		t.Fatalf("Line with a width allocated %v times for plain ASCII that fits", n)
	}
	b := "line one\nline two\n"
	if n := testing.AllocsPerRun(100, func() { _ = Block(b, 80) }); n != 0 {
		t.Fatalf("Block allocated %v times for plain ASCII", n)
	}
	if Line(s, 0) != s {
		t.Fatal("plain ASCII changed")
	}
}

type hostile struct{ name, s string }

// loadHostile reads testdata/hostile.txt and adds the cases too long to write by hand.
func loadHostile(tb testing.TB) []hostile {
	tb.Helper()
	f, err := os.Open("testdata/hostile.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []hostile
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, quoted, ok := strings.Cut(line, "\t")
		if !ok {
			tb.Fatalf("hostile.txt:%d: no tab", n)
		}
		s, err := strconv.Unquote(quoted)
		if err != nil {
			tb.Fatalf("hostile.txt:%d: %v", n, err)
		}
		out = append(out, hostile{name, s})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	out = append(out,
		hostile{"very long ascii line", strings.Repeat("a", 200_000)},
		hostile{"very long line of escapes", strings.Repeat("\x1b[31m", 20_000)},
		hostile{"very long cjk line", strings.Repeat("語", 50_000)},
		hostile{"very long osc 52", "\x1b]52;c;" + strings.Repeat("QUFB", 50_000) + "\x07"},
		hostile{"many lines", strings.Repeat("line\x1b[1A\r\n", 5_000)},
	)
	return out
}

func TestHostileCorpus(t *testing.T) {
	corpus := loadHostile(t)
	if len(corpus) < 45 {
		t.Fatalf("hostile corpus has %d entries, want at least 45", len(corpus))
	}
	for _, h := range corpus {
		t.Run(h.name, func(t *testing.T) {
			for _, max := range []int{0, 1, 2, 3, 7, 20, 80} {
				checkSafe(t, Line(h.s, max), false, max)
				checkSafe(t, Block(h.s, max), true, max)
			}
		})
	}
	t.Logf("hostile strings tried: %d (x7 widths x Line/Block)", len(corpus))
}

// checkSafe fails when out could act on a terminal or hide itself, or is wider than max.
func checkSafe(t *testing.T, out string, block bool, max int) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output is not valid UTF-8: %q", out)
	}
	for i := 0; i < len(out); i++ {
		c := out[i]
		if (c < 0x20 && !(block && c == '\n')) || c == 0x7f {
			t.Fatalf("output byte %d is control 0x%02x: %q", i, c, out)
		}
	}
	if !block && strings.Contains(out, "\t") {
		t.Fatalf("tab not expanded: %q", out)
	}
	rs := []rune(out)
	for i, r := range rs {
		switch {
		case r >= 0x80 && r < 0xa0:
			t.Fatalf("C1 control U+%04X in %q", r, out)
		case isBidi(r):
			t.Fatalf("bidi control U+%04X in %q", r, out)
		case r == zwj:
			// only between two visible, non-ASCII runes (emoji or conjunct)
			if i == 0 || i == len(rs)-1 || rs[i-1] < 0x80 || rs[i+1] < 0x80 || unsafeRune(rs[i+1]) {
				t.Fatalf("dangling ZWJ at rune %d in %q", i, out)
			}
		case r >= tagSpace && r <= cancelTag:
			// only inside a black-flag tag sequence; checked in TestLine
		case unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029:
			t.Fatalf("invisible format character U+%04X in %q", r, out)
		}
	}
	if max > 0 {
		for l := range strings.SplitSeq(out, "\n") {
			if w := ansi.StringWidth(l); w > max {
				t.Fatalf("line width %d > %d: %q", w, max, l)
			}
		}
	}
}

func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

func BenchmarkLinePlainASCII(b *testing.B) {
	s := "log_-jRTWClpBoVo GMAIL_SEND_EMAIL success 202ms user_123"
	for b.Loop() {
		_ = Line(s, 80)
	}
}

func BenchmarkLineHostile(b *testing.B) {
	s := "\x1b]0;t\x07\u202e\x00\tmixed 日本語 \U0001f600 text with some ascii after it"
	for b.Loop() {
		_ = Line(s, 40)
	}
}

func BenchmarkBlockLarge(b *testing.B) {
	s := strings.Repeat("{\"message\": \"\x1b[31mERR\x1b[0m\", \"to\": \"a@b.c\", \"body\": \"日本語\"}\n", 2000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Block(s, 120)
	}
}
