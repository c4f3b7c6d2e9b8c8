package cli

import (
	"bufio"
	"io"
	"strings"

	"github.com/exectriage/exectriage/sanitize"
)

// writeIndented writes compact JSON (json.Marshal's or the redactor's: valid, no white space)
// indented as json.Indent(dst, src, "", indent) would, each line passed through safe (a
// sanitizer whose rule is a line's own: sanitize.JSON, sanitize.Block's), without holding the
// indented text: a record of 60 MB prints with one line in memory, not a 150 MB copy and its
// sanitized copy.
func writeIndented(w io.Writer, src []byte, indent string, safe func([]byte) []byte) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	depth := 0
	newline := func() error {
		if _, err := bw.Write(safe(line)); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
		line = append(line[:0], strings.Repeat(indent, depth)...)
		return nil
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			line = append(line, src[i:j+1]...)
			i = j
		case '{', '[':
			line = append(line, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				line = append(line, src[i+1])
				i++
				continue
			}
			depth++
			if err := newline(); err != nil {
				return err
			}
		case '}', ']':
			depth--
			if err := newline(); err != nil {
				return err
			}
			line = append(line, c)
		case ',':
			line = append(line, c)
			if err := newline(); err != nil {
				return err
			}
		case ':':
			line = append(line, ':', ' ')
		default:
			line = append(line, c)
		}
	}
	if _, err := bw.Write(safe(line)); err != nil {
		return err
	}
	return bw.Flush()
}

// blockSafe is sanitize.Block's rule for a line of bytes (the record show prints).
func blockSafe(b []byte) []byte { return sanitize.BlockBytes(b, 0) }
