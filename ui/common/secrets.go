package common

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/exectriage/exectriage/redact"
)

// KnownMarker replaces a known secret (the configured API key), revealed or not: the same
// marker package redact uses.
const KnownMarker = "[REDACTED:known_secret]"

// Secrets hides secrets in data before a pane shows it: package redact's patterns, sensitive
// fields and headers, and the known secrets (the configured COMPOSIO_API_KEY). A person may
// reveal the secrets of one execution on purpose; the known secrets stay hidden even then.
// A nil *Secrets redacts by pattern only. It is read-only after New, so safe to share.
type Secrets struct {
	r     *redact.Redactor
	known []string // longest first
}

// NewSecrets returns the redaction for panes with known secrets that are never shown. Like
// redact.New, values are also taken trimmed and ones shorter than redact.MinKnownLen are
// ignored (replacing them everywhere would destroy ordinary text).
func NewSecrets(known ...string) *Secrets {
	s := &Secrets{r: redact.New(known...)}
	seen := map[string]bool{}
	for _, k := range known {
		for _, v := range []string{k, strings.TrimSpace(k)} {
			if len(v) >= redact.MinKnownLen && !seen[v] {
				seen[v] = true
				s.known = append(s.known, v)
			}
		}
	}
	sort.Slice(s.known, func(i, j int) bool { return len(s.known[i]) > len(s.known[j]) })
	return s
}

func (s *Secrets) redactor() *redact.Redactor {
	if s == nil {
		return nil
	}
	return s.r
}

func (s *Secrets) knownList() []string {
	if s == nil {
		return nil
	}
	return s.known
}

// Text returns v with its secrets redacted, or, when reveal is set, with only the known
// secrets replaced.
func (s *Secrets) Text(v string, reveal bool) string {
	if !reveal {
		return s.redactor().String(v)
	}
	return s.hideKnown(v)
}

// hideKnown replaces every known secret; a replacement that recreates one (a pathological
// secret that is part of the marker) falls back to "***", shorter than any known secret.
func (s *Secrets) hideKnown(v string) string {
	known := s.knownList()
	for _, k := range known {
		if strings.Contains(v, k) {
			v = strings.ReplaceAll(v, k, KnownMarker)
		}
	}
	for containsAny(v, known) {
		for _, k := range known {
			v = strings.ReplaceAll(v, k, "***")
		}
	}
	return v
}

func containsAny(s string, subs []string) bool {
	for _, k := range subs {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// JSON returns raw with its secrets redacted (redact.Redactor.JSON: sensitive fields, header
// pairs, patterns, known secrets), or, when reveal is set, with only the known secrets
// replaced. A known secret spelled with JSON escapes (\u0061k_...) is still a known secret:
// then the whole value is redacted as if not revealed.
func (s *Secrets) JSON(raw json.RawMessage, reveal bool) json.RawMessage {
	if !reveal {
		return s.redactor().JSON(raw)
	}
	known := s.knownList()
	if len(known) == 0 {
		return raw
	}
	out := []byte(s.hideKnown(string(raw)))
	if bytes.IndexByte(out, '\\') >= 0 && escapedSecret(out, known) {
		return s.redactor().JSON(raw)
	}
	return out
}

// escapedSecret reports whether the text, once JSON string escapes (\uXXXX, \/, \" ...) are
// decoded, holds a known secret. It decodes loosely, so text that is not valid JSON (a value
// cut for display) is checked too.
func escapedSecret(raw []byte, known []string) bool {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		switch n := raw[i+1]; n {
		case 'u':
			if i+6 <= len(raw) {
				if r, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += 5
					continue
				}
			}
			b.WriteByte(c)
		case '"', '\\', '/':
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return containsAny(b.String(), known)
}
