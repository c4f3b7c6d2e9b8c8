package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// KnownMarker replaces a known secret (the configured API key), revealed or not.
const KnownMarker = "[REDACTED:known_secret]"

// Policy is exectriage's one rule for secrets in what it prints, shows, copies or bundles:
// by default every secret Redactor recognises is hidden; a person may reveal the secrets of
// one execution on purpose (show --reveal, x in the TUI), and then only the known secrets stay
// hidden. A known secret (the configured COMPOSIO_API_KEY) is never shown in any form: raw,
// JSON-escaped (\u0061k_...), percent-encoded, base64 of itself (alone or inside a longer
// base64 value such as a Basic credential), or inside a URL. A nil *Policy redacts by pattern
// only. It is read-only after NewPolicy, so safe to share.
type Policy struct {
	r *Redactor
}

// NewPolicy returns the policy with these known secrets (see New for what is accepted).
func NewPolicy(known ...string) *Policy { return &Policy{r: New(known...)} }

// Redactor is the policy's redactor (everything hidden), for renderers that take one.
func (p *Policy) Redactor() *Redactor {
	if p == nil {
		return nil
	}
	return p.r
}

// Text returns v with its secrets redacted, or, when reveal is set, with only the known
// secrets hidden.
func (p *Policy) Text(v string, reveal bool) string {
	r := p.Redactor()
	if !reveal {
		return r.String(v)
	}
	out := r.hideKnown(v)
	if r.encodedKnown(out) {
		// An escaped or encoded spelling of a known secret: hidden as if not revealed.
		return r.String(out)
	}
	return out
}

// JSON returns raw with its secrets redacted (Redactor.JSON), or, when reveal is set, with
// only the known secrets hidden. A known secret spelled with escapes survives a plain
// replacement, so then the value is redacted as if not revealed.
func (p *Policy) JSON(raw json.RawMessage, reveal bool) json.RawMessage {
	r := p.Redactor()
	if !reveal {
		return r.JSON(raw)
	}
	if len(r.knownList()) == 0 {
		return raw
	}
	out := []byte(r.hideKnown(string(raw)))
	if r.encodedKnown(string(out)) {
		return r.JSON(raw)
	}
	return out
}

// Leaks reports whether s holds a known secret in any form the policy hides (tests use it as
// the oracle; renderers as a last check).
func (p *Policy) Leaks(s string) bool {
	r := p.Redactor()
	return containsAny(s, r.knownList()) || r.encodedKnown(s)
}

// hideKnown replaces every known secret (and each form New derived from it); a replacement
// that recreates one (a pathological secret that is part of the marker) falls back to "***",
// shorter than any known secret.
func (r *Redactor) hideKnown(v string) string {
	known := r.knownList()
	for _, k := range known {
		if strings.Contains(v, k) {
			v = strings.ReplaceAll(v, k, KnownMarker)
		}
	}
	for containsAny(v, known) {
		for _, k := range known {
			v = strings.ReplaceAll(v, k, lastResort)
		}
	}
	return v
}

// encodedKnown reports whether s, once JSON string escapes (\uXXXX, \/, \") and percent
// escapes are decoded, holds a known secret. It decodes loosely, so text that is not valid
// JSON (a value cut for display) is checked too.
func (r *Redactor) encodedKnown(s string) bool {
	known := r.knownList()
	if len(known) == 0 || !strings.ContainsAny(s, `\%`) {
		return false
	}
	d := looseUnescape(s)
	return d != s && containsAny(d, known)
}

func looseUnescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			switch n := s[i+1]; n {
			case 'u':
				if i+6 <= len(s) {
					if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
						b.WriteRune(rune(v))
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
		case c == '%' && i+2 < len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// derivedForms are the spellings of secret k that text may carry without holding k itself:
// percent-encoded (query and path escaping) and base64 in the standard and URL alphabets. A
// value that embeds k after other bytes (a Basic credential, user:key) encodes it differently
// for each of the three alignments, so for each alignment the characters that depend on k
// alone are a form of their own (of at least minDerivedLen characters).
func derivedForms(k string) []string {
	var out []string
	for _, f := range []string{url.QueryEscape(k), url.PathEscape(k)} {
		if f != k {
			out = append(out, f)
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString([]byte(k)), strings.TrimRight(enc.EncodeToString([]byte(k)), "="))
		for pad := range 3 {
			full := enc.WithPadding(base64.NoPadding).EncodeToString(append(bytes.Repeat([]byte{0}, pad), k...))
			skip := (8*pad + 5) / 6          // characters that carry bits of the prefix
			keep := (8 * (pad + len(k))) / 6 // characters made of whole sextets of the input
			if keep-skip >= minDerivedLen {
				out = append(out, full[skip:keep])
			}
		}
	}
	return out
}

// minDerivedLen is the shortest derived form kept: a shorter run of base64 characters could
// turn up in ordinary text.
const minDerivedLen = 12

// HasKnown reports whether the policy has known secrets to hide (without one, text that
// shows no pattern needs no check).
func (p *Policy) HasKnown() bool { return len(p.Redactor().knownList()) > 0 }

// ContainsKnown reports whether b holds a known secret as written (or a form New derived from
// it): a fast check over rendered output, which then needs Text on its fields.
func (p *Policy) ContainsKnown(b []byte) bool {
	for _, k := range p.Redactor().knownList() {
		if bytes.Contains(b, []byte(k)) {
			return true
		}
	}
	return false
}
