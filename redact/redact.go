// Package redact removes secrets from text and JSON before exectriage shows, exports or
// bundles them: API keys and tokens recognisable by their shape (Composio ak_, Stripe-style
// sk_live_, GitHub ghp_/github_pat_, Slack xox*, JWTs, AWS AKIA, Google ya29./AIza, PEM
// private keys, ...), bearer tokens, credentials in URLs, the values of sensitive fields and
// headers (password, token, api_key, client_secret, authorization, cookie, x-api-key, ...), and
// an explicit list of known secrets (the configured COMPOSIO_API_KEY) wherever they appear.
//
// Redaction is deliberately narrow about what counts as a secret by shape: ordinary ids (log
// ids, connected account ids, UUIDs, hashes, emails) have no secret prefix and are left alone,
// so a support bundle keeps what support needs.
package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Marker replaces the value of a sensitive field or header.
const Marker = "[REDACTED]"

// MinKnownLen is the shortest known secret New accepts: replacing a shorter string everywhere
// would destroy ordinary text without protecting anything.
const MinKnownLen = 6

// lastResort replaces a known secret that survived redaction because the surrounding text or a
// marker recreated it (only pathological secrets do that); it is shorter than any known secret,
// so repeating the replacement always ends.
const lastResort = "***"

// Redactor redacts secrets; its zero value and a nil *Redactor redact by pattern only.
// It is safe for concurrent use.
type Redactor struct {
	known []string // longest first, so a secret containing another is replaced whole
}

// New returns a Redactor that, besides the patterns, replaces every occurrence of each known
// secret. Known values are trimmed of surrounding space; values shorter than MinKnownLen are
// ignored.
func New(known ...string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, k := range known {
		for _, v := range []string{k, strings.TrimSpace(k)} {
			if len(v) < MinKnownLen || seen[v] {
				continue
			}
			seen[v] = true
			r.known = append(r.known, v)
			for _, f := range derivedForms(v) {
				if len(f) >= MinKnownLen && !seen[f] {
					seen[f] = true
					r.known = append(r.known, f)
				}
			}
		}
	}
	sort.Slice(r.known, func(i, j int) bool {
		if len(r.known[i]) != len(r.known[j]) {
			return len(r.known[i]) > len(r.known[j])
		}
		return r.known[i] < r.known[j]
	})
	return r
}

func (r *Redactor) knownList() []string {
	if r == nil {
		return nil
	}
	return r.known
}

// span is a byte range of the input to replace with marker.
type span struct {
	start, end int
	marker     string
}

// String returns s with every secret it recognises replaced by a marker: `[REDACTED:kind]` for
// a value recognised by its shape or a known secret, `[REDACTED]` for the value of a sensitive
// field or header.
func (r *Redactor) String(s string) string {
	known := r.knownList()
	if !mayHoldSecret(s) && !containsAny(s, known) && !r.encodedKnown(s) {
		return s
	}
	spans := make([]span, 0, 4)
	for _, k := range known {
		for i := 0; ; {
			j := strings.Index(s[i:], k)
			if j < 0 {
				break
			}
			spans = append(spans, span{i + j, i + j + len(k), kindMarker("known_secret")})
			i += j + len(k)
		}
	}
	spans = appendPatternSpans(spans, s)
	spans = appendFieldSpans(spans, s)
	out := apply(s, spans)
	for containsAny(out, known) {
		for _, k := range known {
			out = strings.ReplaceAll(out, k, lastResort)
		}
	}
	if r.encodedKnown(out) {
		// A known secret spelled with escapes (\u0061k_..., %61k_...): the decoded text is
		// redacted instead, and should decoding again still find one, the whole value goes.
		out = r.String(looseUnescape(out))
		if r.encodedKnown(out) {
			return KnownMarker
		}
	}
	return out
}

func kindMarker(kind string) string { return "[REDACTED:" + kind + "]" }

func containsAny(s string, subs []string) bool {
	for _, k := range subs {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// mayHoldSecret is a cheap filter: every pattern and field rule needs one of these.
func mayHoldSecret(s string) bool {
	return strings.ContainsAny(s, "_-.:=") || strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") ||
		strings.Contains(s, "AIza") || strings.Contains(s, "ABIA") || strings.Contains(s, "ACCA") || containsBearer(s)
}

// containsBearer reports whether s holds "bearer" in any case, without allocating.
func containsBearer(s string) bool {
	for i := 0; i+6 <= len(s); i++ {
		if (s[i] == 'b' || s[i] == 'B') && strings.EqualFold(s[i:i+6], "bearer") {
			return true
		}
	}
	return false
}

// apply replaces the (possibly overlapping) spans of s; overlapping spans merge and keep the
// marker of the one that starts first (the longer one on a tie).
func apply(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		if spans[i].end != spans[j].end {
			return spans[i].end > spans[j].end
		}
		return spans[i].marker < spans[j].marker
	})
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		i++
		for i < len(spans) && spans[i].start < cur.end {
			cur.end = max(cur.end, spans[i].end)
			i++
		}
		b.WriteString(s[pos:cur.start])
		b.WriteString(cur.marker)
		pos = cur.end
	}
	b.WriteString(s[pos:])
	return b.String()
}

// JSON returns raw with secrets redacted: the value of every sensitive field ("password",
// "access_token", "x-api-key", ...) becomes "[REDACTED]" whatever its type (null, booleans and
// empty strings are kept: they hide nothing), as does the "value" of a {"name": "Authorization",
// "value": ...} header pair; every string (keys included) goes through String. Everything else
// keeps its meaning: key order, duplicate keys and number literals are preserved and the output
// is compact. Input that is not valid JSON comes back as a JSON string holding its redacted
// text, so the result is always valid JSON; empty input comes back empty.
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return raw
	}
	if !json.Valid(trimmed) { // json.Valid also refuses nesting deeper than 10,000
		return r.safeJSON(appendString(nil, r.String(string(raw))))
	}
	return r.safeJSON(r.redactStream(trimmed, headerPairs(trimmed)))
}

// safeJSON is the last check: a known secret must not survive in the encoded output, even one
// that the encoding itself recreated (a secret containing a backslash or quote).
func (r *Redactor) safeJSON(out []byte) json.RawMessage {
	for _, k := range r.knownList() {
		if bytes.Contains(out, []byte(k)) {
			return json.RawMessage(`"` + lastResort + `"`)
		}
	}
	return out
}

// sensitiveExact are normalised field names (lowercase, without - _ . and spaces) that always
// hold secrets.
var sensitiveExact = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "passphrase": true,
	"secret": true, "token": true, "apikey": true, "authorization": true, "proxyauthorization": true,
	"cookie": true, "cookies": true, "setcookie": true, "credential": true, "credentials": true,
	"privatekey": true, "clientsecret": true, "accesskey": true, "secretkey": true,
	"auth": true, "signature": true, "xsignature": true, "sig": true, "xhubsignature": true, "xhubsignature256": true,
	"xslacksignature": true, "sessionkey": true, "sessionid": true,
}

// sensitiveSuffixes make any field ending in them sensitive: client_secret, refresh_token,
// x-api-key, x-user-api-key, aws_secret_access_key, db_password, x-amz-security-token, ...
var sensitiveSuffixes = []string{
	"password",
	"passwd",
	"secret",
	"token",
	"apikey",
	"privatekey",
	"secretkey",
	"accesskey",
	"cookie",
	"passphrase",
	"credentials",
}

// harmlessTokens end in "token" but are pagination cursors or LLM usage counts, not secrets.
var harmlessTokens = map[string]bool{
	"pagetoken": true, "nextpagetoken": true, "prevpagetoken": true, "previouspagetoken": true,
	"synctoken": true, "continuationtoken": true, "maxtoken": true, "inputtoken": true,
	"outputtoken": true, "prompttoken": true, "completiontoken": true, "totaltoken": true,
	"numtoken": true, "cachedtoken": true, "reasoningtoken": true, "stoptoken": true, "csrftokenname": true,
}

// identifierValue reports whether the value of a field whose name sounds secret is an
// identifier that is not: Composio's tool-router session ids (session_id "trs_…") name a
// session a support engineer must be able to copy and look up, as a web session id must not
// be (it is a login). The value is still checked for every secret shape (String).
func identifierValue(name, v string) bool {
	return normalizeName(name) == "sessionid" && strings.HasPrefix(v, "trs_") &&
		len(v) <= 64 && strings.IndexFunc(v[4:], func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0
}

// IsSensitiveName reports whether a field or header called name holds a secret. Matching is
// case-insensitive and ignores -, _, . and spaces, so "Client-Secret", "client_secret" and
// "clientSecret" are the same name.
func IsSensitiveName(name string) bool {
	if len(name) > 128 {
		return false
	}
	n := normalizeName(name)
	if n == "" || harmlessTokens[n] {
		return false
	}
	if sensitiveExact[n] {
		return true
	}
	for _, suf := range sensitiveSuffixes {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

func normalizeName(name string) string {
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// pattern is a secret recognisable by its shape.
type pattern struct {
	kind string
	re   *regexp.Regexp
	// group is the submatch that holds the secret (0 = whole match)
	group int
	// accept, when set, must approve the secret
	accept func(string) bool
	// lits: the regexp runs only on text holding one of these (a cheap filter; regexps that
	// start with \b or an alternation cannot skip ahead on their own)
	lits []string
}

// patterns are compiled once; regexp values are safe for concurrent use and never change.
var patterns = []pattern{
	{
		kind: "private_key",
		re: regexp.MustCompile(
			`-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)`,
		),
		lits: []string{"PRIVATE KEY"},
	},
	{kind: "composio_key", re: regexp.MustCompile(`\bu?ak_[A-Za-z0-9_-]{12,}`), lits: []string{"ak_"}},
	{
		kind: "stripe_key",
		re:   regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{16,}`),
		lits: []string{"k_live_", "k_test_", "whsec_"},
	},
	{
		kind: "github_token",
		re:   regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{30,}`),
		lits: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
	},
	{
		kind: "slack_token",
		re:   regexp.MustCompile(`\bxox[abeoprs]-[A-Za-z0-9-]{10,}|\bxoxe\.xox[bp]-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}`),
		lits: []string{"xox", "xapp-"},
	},
	{
		kind: "slack_webhook",
		re:   regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+`),
		lits: []string{"hooks.slack.com"},
	},
	{kind: "jwt", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), lits: []string{"eyJ"}},
	{
		kind: "aws_access_key",
		re:   regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
		lits: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
	},
	{kind: "llm_api_key", re: regexp.MustCompile(`\bsk-(?:[A-Za-z0-9]+-)?[A-Za-z0-9_-]{20,}`), lits: []string{"sk-"}},
	{kind: "google_api_key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), lits: []string{"AIza"}},
	{
		kind: "google_oauth_token",
		re:   regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{20,}|\b1//0[0-9A-Za-z_-]{20,}`),
		lits: []string{"ya29.", "1//0"},
	},
	{
		kind: "hubspot_token",
		re:   regexp.MustCompile(`\bpat-(?:na|eu|ap)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`),
		lits: []string{"pat-"},
	},
	{kind: "notion_token", re: regexp.MustCompile(`\bsecret_[A-Za-z0-9]{40,}|\bntn_[A-Za-z0-9]{40,}`), lits: []string{"secret_", "ntn_"}},
	{kind: "linear_key", re: regexp.MustCompile(`\blin_(?:api|oauth)_[A-Za-z0-9]{32,}`), lits: []string{"lin_"}},
	{kind: "npm_token", re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`), lits: []string{"npm_"}},
	{kind: "pypi_token", re: regexp.MustCompile(`\bpypi-AgE[A-Za-z0-9_-]{50,}`), lits: []string{"pypi-AgE"}},
	{kind: "bearer", re: regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{8,})`), group: 1, accept: tokenLike},
	// a secret in a URL's query: ?key=..., &token=..., &sig=... (a field name alone would be too
	// common a word; in a query it names a credential)
	{kind: "url_query_secret", re: regexp.MustCompile(`(?i)[?&](?:key|sig|code)=([^&\s"'#<>]{4,})`), group: 1, lits: []string{"?", "&"}},
	// the password of a URL with credentials: scheme://user:PASSWORD@host
	{
		kind:  "url_password",
		re:    regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]{0,20}://[^/\s:@'"<>]{0,256}:([^/\s@'"<>]{1,256})@`),
		group: 1,
		lits:  []string{"://"},
	},
}

// tokenLike accepts a bearer token unless it reads like a word ("bearer authentication").
func tokenLike(s string) bool {
	if len(s) >= 20 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}

func appendPatternSpans(spans []span, s string) []span {
	bearer := containsBearer(s)
	for _, p := range patterns {
		if p.kind == "bearer" && !bearer || len(p.lits) > 0 && !containsAny(s, p.lits) {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
			start, end := m[2*p.group], m[2*p.group+1]
			if start < 0 || (p.accept != nil && !p.accept(s[start:end])) {
				continue
			}
			spans = append(spans, span{start, end, kindMarker(p.kind)})
		}
	}
	return spans
}

// headerNames take the rest of the line as their value ("Authorization: Basic abc", "Cookie: a=1; b=2").
var headerNames = map[string]bool{"authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true}

// appendFieldSpans finds "name: value", "name=value", "'name': 'value'" and
// "\"name\":\"value\"" in free text; the name decides whether the value is redacted. It walks
// from each ':' and '=' back to the name, which is much cheaper than a regexp over every word.
func appendFieldSpans(spans []span, s string) []span {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != ':' && c != '=' {
			continue
		}
		if c == ':' && strings.HasPrefix(s[i+1:], "//") {
			continue // a URL scheme, not a field
		}
		end := i
		for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t') {
			end--
		}
		if end > 0 && (s[end-1] == '"' || s[end-1] == '\'') {
			end--
			if end > 0 && s[end-1] == '\\' {
				end--
			}
		}
		start := end
		for start > 0 && end-start < 64 && isNameByte(s[start-1]) {
			start--
		}
		for start < end && !isLetter(s[start]) {
			start++ // names start with a letter: "--password" is "password"
		}
		if start == end {
			continue
		}
		name := s[start:end]
		if !IsSensitiveName(name) {
			continue
		}
		v := i + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		vs, ve := fieldValue(s, v, headerNames[normalizeName(name)])
		if vs >= ve {
			continue
		}
		val := s[vs:ve]
		if val == "null" || val == "None" || val == "true" || val == "false" || val == "nil" || strings.HasPrefix(val, "[REDACTED") {
			continue
		}
		spans = append(spans, span{vs, ve, Marker})
	}
	return spans
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// fieldValue returns the byte range of the value that starts at i: the inside of a quoted
// string (', ", or the \" of JSON embedded in a string), the rest of the line for a header, or
// a run up to whitespace or punctuation. A value starting with { or [ is structure, left to JSON.
func fieldValue(s string, i int, header bool) (int, int) {
	if i >= len(s) {
		return i, i
	}
	rest := s[i:]
	for _, q := range []string{`\"`, `\'`, `"`, `'`} {
		if strings.HasPrefix(rest, q) {
			start := i + len(q)
			if end := closingQuote(s, start, q); end >= 0 {
				return start, end
			}
			return start, lineEnd(s, start)
		}
	}
	if header {
		return i, lineEnd(s, i)
	}
	if rest[0] == '{' || rest[0] == '[' {
		return i, i
	}
	end := i
	for end < len(s) && !strings.ContainsRune(" \t\r\n&,;)}]\"'<>\\", rune(s[end])) {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return i, end
}

// closingQuote finds the quote q that ends a string starting at i, skipping backslash escapes;
// -1 when there is none on the line. For the \" of JSON embedded in a JSON string, the inner
// escapes are doubled: \\\" is an escaped quote and \\\\ an escaped backslash of the inner string.
func closingQuote(s string, i int, q string) int {
	for j := i; j < len(s); j++ {
		if s[j] == '\n' {
			return -1
		}
		if len(q) == 1 {
			if s[j] == '\\' {
				j++
			} else if s[j] == q[0] {
				return j
			}
			continue
		}
		switch rest := s[j:]; {
		case strings.HasPrefix(rest, `\\\"`), strings.HasPrefix(rest, `\\\'`), strings.HasPrefix(rest, `\\\\`):
			j += 3
		case strings.HasPrefix(rest, q):
			return j
		case strings.HasPrefix(rest, `\\`):
			j++
		}
	}
	return -1
}

func lineEnd(s string, i int) int {
	if j := strings.IndexAny(s[i:], "\r\n"); j >= 0 {
		return i + j
	}
	return len(s)
}
