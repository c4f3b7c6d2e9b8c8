package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// MaxJSONDepth is how deeply nested arguments may be before canonicalisation refuses them.
const MaxJSONDepth = 64

// DefaultVolatileKeys are argument keys whose values change between otherwise identical calls
// (timestamps, nonces, idempotency tokens); they are ignored when comparing arguments.
func DefaultVolatileKeys() []string {
	return []string{
		"timestamp",
		"ts",
		"time",
		"nonce",
		"request_id",
		"idempotency_key",
		"client_msg_id",
		"sent_at",
		"created_at",
		"trace_id",
		RequestTokens,
	}
}

// RequestTokens, in a list of volatile keys, stands for every argument whose name says it is a
// token of the request, not of its effect, however it is spelled: an idempotency key, a nonce, a
// dedupe id, a request, correlation, trace or span id, a client token or client message id
// (idempotencyKey, dedupe_id, x-request-id, clientMsgId). An application makes a new one for
// each call it builds again; a provider that does not honour it acts again.
const RequestTokens = "(request tokens)"

// Skips reports whether an argument's key is one of skip's (a skipSet), matched without case,
// or a request token's when skip holds RequestTokens.
func Skips(skip map[string]bool, key string) bool {
	lk := strings.ToLower(key)
	return skip[lk] || skip[RequestTokens] && requestToken(lk)
}

// requestToken reports whether a key (lower case) names a token of the request: its words,
// separators dropped, say idempotency, nonce or dedupe, or end in request, correlation, trace or
// span id, or are a client's token or message id.
func requestToken(lk string) bool {
	w := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			return -1
		}
		return r
	}, lk)
	switch {
	case strings.Contains(w, "idempoten"), strings.Contains(w, "dedup"),
		strings.HasPrefix(w, "nonce"), strings.HasSuffix(w, "nonce"):
		return true
	}
	for _, end := range [...]string{"requestid", "requestuuid", "correlationid", "traceid", "spanid"} {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return strings.HasPrefix(w, "client") &&
		(strings.HasSuffix(w, "token") || strings.HasSuffix(w, "msgid") || strings.HasSuffix(w, "messageid"))
}

// CanonicalArgs returns arguments as key-sorted compact JSON with the ignored keys (matched
// case-insensitively at any depth) removed. Null or empty input canonicalises to "{}".
func CanonicalArgs(args json.RawMessage, ignore []string) ([]byte, error) {
	// The quick path reads the JSON in place (no tree: a 55 MB argument document decoded
	// into maps took 576 MB); anything unusual is left to the decoding path below, which
	// decides, and a fuzz test holds the two equal.
	if t := bytes.TrimSpace(args); len(t) > 0 && string(t) != "null" {
		if out, ok := appendCanonical(make([]byte, 0, len(t)), t, skipSet(ignore), false); ok {
			return out, nil
		}
	}
	return canonicalArgsSlow(args, ignore)
}

// DecodeArgs decodes arguments (numbers kept as written) for CanonicalValue; null or empty
// input is an empty object.
func DecodeArgs(args json.RawMessage) (any, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments: invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("arguments: trailing data after JSON value")
	}
	return v, nil
}

// CanonicalValue is the identity of a decoded value (DecodeArgs) that duplicate grouping
// compares: CanonicalArgs's form, and an object's member whose value is null left out at any
// depth, as an absent one (a rebuilt payload may send either: {"cc": null} is {}). The
// journal's ArgumentHash keeps nulls: a retry's call is compared exactly as it was sent.
func CanonicalValue(v any, ignore []string) ([]byte, error) { return canonicalValue(v, ignore, true) }

// canonicalArgsSlow is CanonicalArgs by decoding: what the quick path leaves, and its oracle
// in the tests.
func canonicalArgsSlow(args json.RawMessage, ignore []string) ([]byte, error) {
	v, err := DecodeArgs(args)
	if err != nil {
		return nil, err
	}
	return canonicalValue(v, ignore, false)
}

// skipSet is the keys to ignore, lower case, as the canonical writers look them up.
func skipSet(ignore []string) map[string]bool {
	skip := make(map[string]bool, len(ignore))
	for _, k := range ignore {
		skip[strings.ToLower(k)] = true
	}
	return skip
}

func canonicalValue(v any, ignore []string, dropNull bool) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeCanonical(&buf, v, skipSet(ignore), 0, dropNull); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ArgumentHash is the hex SHA-256 of CanonicalArgs, or "" when the arguments are not valid JSON.
func ArgumentHash(args json.RawMessage, ignore []string) string {
	c, err := CanonicalArgs(args, ignore)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:])
}

func writeCanonical(buf *bytes.Buffer, v any, skip map[string]bool, depth int, dropNull bool) error {
	if depth > MaxJSONDepth {
		return fmt.Errorf("arguments: nested deeper than %d levels", MaxJSONDepth)
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k, x := range t {
			if !Skips(skip, k) && !(dropNull && x == nil) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			if err := writeCanonical(buf, t[k], skip, depth+1, dropNull); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, x, skip, depth+1, dropNull); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case json.Number:
		buf.WriteString(canonicalNumber(t))
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("arguments: %w", err)
		}
		buf.Write(b)
	}
	return nil
}

// canonicalNumber writes 1, 1.0 and 1e0 the same way so equal numbers hash equally; integer
// literals are kept as written so large ids never lose precision.
func canonicalNumber(n json.Number) string {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		return s
	}
	f, err := n.Float64()
	if err != nil {
		return s
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	b, _ := json.Marshal(f)
	return string(b)
}
