package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// A small ordered JSON tree: encoding/json's maps would lose key order and duplicate keys,
// and a support bundle should read like the record it came from.

type nodeKind uint8

const (
	kindLiteral nodeKind = iota // null, true, false (text holds it)
	kindNumber                  // text holds the literal exactly as written
	kindString
	kindArray
	kindObject
)

type node struct {
	kind  nodeKind
	text  string
	keys  []string // object keys, aligned with elems
	elems []*node  // array elements or object values
}

// maxDepth bounds nesting; encoding/json refuses deeper input too.
const maxDepth = 10000

var errTrailing = errors.New("trailing data after JSON value")

// parse reads exactly one JSON value. It builds the tree without recursion.
func parse(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root *node
	var stack []*node
	expectKey := false // inside an object, the next string token is a key
	var pendingKey string
	add := func(n *node) {
		if len(stack) == 0 {
			root = n
			return
		}
		top := stack[len(stack)-1]
		if top.kind == kindObject {
			top.keys = append(top.keys, pendingKey)
			expectKey = true
		}
		top.elems = append(top.elems, n)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= maxDepth {
					return nil, errors.New("JSON nested too deeply")
				}
				n := &node{kind: kindArray}
				if t == '{' {
					n.kind = kindObject
				}
				add(n)
				stack = append(stack, n)
				expectKey = t == '{'
			case '}', ']':
				stack = stack[:len(stack)-1]
				expectKey = len(stack) > 0 && stack[len(stack)-1].kind == kindObject
			}
		case string:
			if expectKey {
				pendingKey = t
				expectKey = false
				continue
			}
			add(&node{kind: kindString, text: t})
		case json.Number:
			add(&node{kind: kindNumber, text: string(t)})
		case bool:
			if t {
				add(&node{kind: kindLiteral, text: "true"})
			} else {
				add(&node{kind: kindLiteral, text: "false"})
			}
		case nil:
			add(&node{kind: kindLiteral, text: "null"})
		}
		if len(stack) == 0 && root != nil {
			break
		}
	}
	if root == nil || len(stack) > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	// one value only
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return root, nil
}

// encode appends n as compact JSON.
func encode(b []byte, n *node) []byte {
	switch n.kind {
	case kindLiteral, kindNumber:
		return append(b, n.text...)
	case kindString:
		return appendString(b, n.text)
	case kindArray:
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = encode(b, e)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n.keys[i])
			b = append(b, ':')
			b = encode(b, e)
		}
		return append(b, '}')
	}
}

// appendString appends s as a JSON string. Like encoding/json it escapes controls, U+2028 and
// U+2029 and repairs invalid UTF-8; unlike it, <, > and & stay as they are.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == 0x2028 || r == 0x2029:
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
