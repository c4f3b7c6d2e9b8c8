package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// The tree redactor the streaming one replaced, kept as the oracle the stream is compared
// with (FuzzStreamMatchesTree): the same document, the same bytes.

func (r *Redactor) jsonTree(raw json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return raw
	}
	root, err := parse(trimmed)
	if err != nil {
		return r.safeJSON(appendString(nil, r.String(string(raw))))
	}
	r.redactNode(root)
	return r.safeJSON(encode(nil, root))
}

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

func (r *Redactor) redactNode(n *node) {
	switch n.kind {
	case kindString:
		n.text = r.String(n.text)
	case kindNumber:
		if containsAny(n.text, r.knownList()) {
			*n = node{kind: kindString, text: kindMarker("known_secret")}
		}
	case kindArray:
		for _, e := range n.elems {
			r.redactNode(e)
		}
	case kindObject:
		headerPair := false
		for i, k := range n.keys {
			if lk := strings.ToLower(k); (lk == "name" || lk == "key" || lk == "header") &&
				n.elems[i].kind == kindString && IsSensitiveName(n.elems[i].text) {
				headerPair = true
			}
		}
		for i, k := range n.keys {
			v := n.elems[i]
			if (IsSensitiveName(k) && !(v.kind == kindString && identifierValue(k, v.text))) || (headerPair && strings.EqualFold(k, "value")) {
				if hidesSomethingNode(v) {
					*v = node{kind: kindString, text: Marker}
				}
			} else {
				r.redactNode(v)
			}
			n.keys[i] = r.String(k)
		}
	}
}

// hidesSomething reports whether a sensitive field's value could carry a secret.
func hidesSomethingNode(v *node) bool {
	switch v.kind {
	case kindLiteral:
		return false // null, true, false
	case kindString:
		return v.text != ""
	}
	return true
}
