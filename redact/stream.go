package redact

import "strings"

// The JSON redactor streams: it never holds the document as a tree (a 62 MB log detail took
// `show` to 1.9 GB that way). Two passes over the tokens: the first checks the input and marks
// the objects that are header pairs ({"name": "Authorization", "value": ...}: their "value" is
// hidden, and the name may come after it); the second writes the redacted document, the same
// bytes the tree gave. What it holds is the input, the output and one bit an object.

// bits is a growable bit set, one bit an object in the order objects open.
type bits []uint64

func (b *bits) set(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b bits) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

// isPairName reports whether an object key names the header in a header pair.
func isPairName(k string) bool {
	return strings.EqualFold(k, "name") || strings.EqualFold(k, "key") || strings.EqualFold(k, "header")
}

// frame is one open array or object of the token walk.
type frame struct {
	object    bool
	ordinal   int    // the object's number, in the order objects open
	expectKey bool   // the next string is a key
	key       string // the key whose value comes next (objects)
	n         int    // values written so far (for commas)
}

// headerPairs is the first pass over data (json.Valid accepted it): the header-pair objects.
func headerPairs(data []byte) bits {
	l := lexer{b: data}
	var pairs bits
	var stack []frame
	objects := 0
	for {
		kind, raw := l.next()
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch kind {
		case tokEnd:
			return pairs
		case tokOpen:
			if top != nil && top.object {
				top.expectKey = true
			}
			f := frame{object: raw[0] == '{', expectKey: raw[0] == '{'}
			if f.object {
				f.ordinal = objects
				objects++
			}
			stack = append(stack, f)
		case tokClose:
			stack = stack[:len(stack)-1]
		case tokString:
			if top != nil && top.object && top.expectKey {
				top.key, top.expectKey = unquote(raw), false
				break
			}
			if top != nil && top.object {
				if isPairName(top.key) && IsSensitiveName(unquote(raw)) {
					pairs.set(top.ordinal)
				}
				top.expectKey = true
			}
		default:
			if top != nil && top.object {
				top.expectKey = true
			}
		}
	}
}

// redactStream is the second pass: data (json.Valid accepted it) with its secrets redacted,
// compact.
func (r *Redactor) redactStream(data []byte, pairs bits) []byte {
	l := lexer{b: data}
	out := make([]byte, 0, len(data))
	var stack []frame
	objects := 0
	skip := 0 // > 0: inside a hidden value, at this depth below it
	for {
		kind, raw := l.next()
		if kind == tokEnd {
			return out
		}
		if skip > 0 { // a hidden array or object: only count what opens and closes
			switch kind {
			case tokOpen:
				if raw[0] == '{' {
					objects++
				}
				skip++
			case tokClose:
				skip--
			}
			continue
		}
		if kind == tokClose {
			stack = stack[:len(stack)-1]
			out = append(out, raw[0])
			continue
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if kind == tokString && top != nil && top.object && top.expectKey {
			if top.n > 0 {
				out = append(out, ',')
			}
			top.n++
			top.key, top.expectKey = unquote(raw), false
			out = appendString(out, r.String(top.key))
			out = append(out, ':')
			continue
		}
		// A value: its separator, then whether its key hides it.
		if top != nil {
			if !top.object {
				if top.n > 0 {
					out = append(out, ',')
				}
				top.n++
			} else {
				top.expectKey = true
			}
		}
		var text string
		if kind == tokString {
			text = unquote(raw)
		}
		if top != nil && top.object {
			k := top.key
			if (IsSensitiveName(k) && !(kind == tokString && identifierValue(k, text))) ||
				(pairs.has(top.ordinal) && equalFoldASCII(k, "value")) {
				if hidesSomething(kind, text) {
					out = appendString(out, Marker)
					if kind == tokOpen {
						if raw[0] == '{' {
							objects++
						}
						skip = 1
					}
					continue
				}
			}
		}
		switch kind {
		case tokOpen:
			f := frame{object: raw[0] == '{', expectKey: raw[0] == '{'}
			if f.object {
				f.ordinal = objects
				objects++
			}
			stack = append(stack, f)
			out = append(out, raw[0])
		case tokString:
			out = appendString(out, r.String(text))
		case tokNumber:
			if containsAny(string(raw), r.knownList()) {
				out = appendString(out, kindMarker("known_secret"))
			} else {
				out = append(out, raw...)
			}
		case tokLiteral:
			out = append(out, raw...)
		}
	}
}

// equalFoldASCII is strings.EqualFold for an ASCII target.
func equalFoldASCII(s, t string) bool { return len(s) == len(t) && strings.EqualFold(s, t) }

// hidesSomething reports whether a sensitive field's value could carry a secret: null,
// booleans and empty strings hide nothing; any other value (a number, an array, an object)
// could.
func hidesSomething(kind tokenKind, text string) bool {
	switch kind {
	case tokLiteral:
		return false
	case tokString:
		return text != ""
	}
	return true
}
