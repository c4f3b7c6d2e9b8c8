package redact

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// lexer walks the tokens of a document json.Valid accepted, without allocating for the
// structure: the two passes of the JSON redactor read it instead of encoding/json's Decoder,
// whose tokens cost an allocation each (a 62 MB detail made 1.3 GB of garbage).
type lexer struct {
	b []byte
	i int
}

type tokenKind uint8

const (
	tokEnd     tokenKind = iota
	tokOpen              // { or [ (raw[0] says which)
	tokClose             // } or ]
	tokString            // raw is the quoted literal
	tokNumber            // raw is the literal
	tokLiteral           // true, false, null
)

// next returns the next token; separators (, and :) are skipped: the caller knows from the
// structure where keys and values are.
func (l *lexer) next() (tokenKind, []byte) {
	for l.i < len(l.b) {
		switch c := l.b[l.i]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
			l.i++
		case '{', '[':
			l.i++
			return tokOpen, l.b[l.i-1 : l.i]
		case '}', ']':
			l.i++
			return tokClose, l.b[l.i-1 : l.i]
		case '"':
			start := l.i
			l.i++
			for l.i < len(l.b) && l.b[l.i] != '"' {
				if l.b[l.i] == '\\' {
					l.i++
				}
				l.i++
			}
			l.i++
			return tokString, l.b[start:min(l.i, len(l.b))]
		case 't', 'n':
			l.i += 4
			return tokLiteral, l.b[l.i-4 : min(l.i, len(l.b))]
		case 'f':
			l.i += 5
			return tokLiteral, l.b[l.i-5 : min(l.i, len(l.b))]
		default:
			start := l.i
			for l.i < len(l.b) && isNumberByte(l.b[l.i]) {
				l.i++
			}
			if l.i == start { // not JSON json.Valid accepts: stop rather than loop
				l.i = len(l.b)
				return tokEnd, nil
			}
			return tokNumber, l.b[start:l.i]
		}
	}
	return tokEnd, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// unquote is the text of a string token, decoded as encoding/json decodes it (escapes, and
// U+FFFD for invalid UTF-8 and lone surrogates); plain ASCII and valid UTF-8 without escapes
// take no decoding.
func unquote(raw []byte) string {
	body := raw[1 : len(raw)-1]
	plain := !slices.Contains(body, '\\')
	if plain && utf8.Valid(body) {
		return string(body)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(body)
	}
	return s
}
