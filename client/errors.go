package client

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/exectriage/exectriage/model"
)

// APIError is an answer from the Composio API with a non-2xx status. The body
// {"error": {"message", "code", "slug", "status", "request_id", "suggested_fix", "errors"}} is
// decoded tolerantly: missing or oddly typed fields are left empty, and a body that is not
// JSON (an HTML error page from a proxy, say) yields a Message that says so. Every text field
// has the API key removed, should the server ever echo it.
type APIError struct {
	StatusCode   int
	Code         string // error.code; a number in the spec, kept as text
	Slug         string // error.slug, e.g. a machine-readable error name
	Message      string
	RequestID    string // error.request_id, else the x-request-id response header
	SuggestedFix string

	details []string // error.errors: per-field validation messages
}

// Error is one line: status, message, details, slug/code, suggested fix, request id.
func (e *APIError) Error() string {
	var b strings.Builder
	switch {
	case e.Message == "":
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
		if t := http.StatusText(e.StatusCode); t != "" {
			b.WriteString(" " + t)
		}
	case strings.HasPrefix(e.Message, "HTTP "):
		b.WriteString(e.Message)
	default:
		fmt.Fprintf(&b, "HTTP %d: %s", e.StatusCode, e.Message)
	}
	if len(e.details) > 0 {
		b.WriteString(" (" + strings.Join(e.details, "; ") + ")")
	}
	switch {
	case e.Slug != "" && e.Code != "":
		fmt.Fprintf(&b, " [%s, code %s]", e.Slug, e.Code)
	case e.Slug != "":
		fmt.Fprintf(&b, " [%s]", e.Slug)
	case e.Code != "":
		fmt.Fprintf(&b, " [code %s]", e.Code)
	}
	if e.SuggestedFix != "" {
		b.WriteString("; suggested fix: " + e.SuggestedFix)
	}
	if e.RequestID != "" {
		b.WriteString("; request id " + e.RequestID)
	}
	return b.String()
}

// apiError decodes a non-2xx response. bodyErr is set when the body could not be read.
func (t *transport) apiError(r *response, bodyErr error) *APIError {
	e := &APIError{StatusCode: r.status}
	switch {
	case r.status >= 300 && r.status < 400:
		// Never followed (noRedirects): the key is sent to the configured base URL only.
		where := "no Location"
		if u, err := url.Parse(r.header.Get("Location")); err == nil && r.header.Get("Location") != "" {
			where = "to " + u.Redacted()
		}
		e.Message = fmt.Sprintf(
			"HTTP %d, a redirect (%s) that exectriage does not follow: the API key is only ever sent to the configured base URL; check "+
				"--base-url / COMPOSIO_BASE_URL",
			r.status,
			where,
		)
	case bodyErr != nil:
		e.Message = fmt.Sprintf("HTTP %d (body unreadable: %v)", r.status, bodyErr)
	default:
		decodeErrorBody(e, r.body, r.header.Get("Content-Type"))
	}
	e.RequestID = cmp.Or(e.RequestID, r.header.Get("x-request-id"))
	clean := func(s string) string { return oneLine(t.scrub(s), 300) }
	e.Code, e.Slug, e.Message = clean(e.Code), clean(e.Slug), clean(e.Message)
	e.RequestID, e.SuggestedFix = clean(e.RequestID), clean(e.SuggestedFix)
	for i, d := range e.details {
		e.details[i] = clean(d)
	}
	return e
}

func decodeErrorBody(e *APIError, body []byte, contentType string) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		e.Message = fmt.Sprintf("HTTP %d (empty body)", e.StatusCode)
		return
	}
	if !json.Valid(body) {
		e.Message = fmt.Sprintf("HTTP %d (non-JSON body: %s)", e.StatusCode, mediaType(contentType, body))
		return
	}
	eb, ok := model.ReadErrorBody(body)
	if !ok {
		e.Message = fmt.Sprintf("HTTP %d (JSON body is not an object)", e.StatusCode)
		return
	}
	e.Message = eb.Message
	e.Code = model.JSONText(eb.Fields["code"])
	e.Slug = model.JSONText(eb.Fields["slug"])
	e.RequestID = model.JSONText(eb.Fields["request_id"])
	e.SuggestedFix = model.JSONText(eb.Fields["suggested_fix"])
	e.details = eb.Details
	e.Message = cmp.Or(e.Message, fmt.Sprintf("HTTP %d (JSON body without an error message)", e.StatusCode))
}

// mediaType names what a non-JSON body is, from its Content-Type or, failing that, by sniffing.
func mediaType(contentType string, body []byte) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && mt != "" {
		return mt
	}
	if mt, _, err := mime.ParseMediaType(http.DetectContentType(body)); err == nil {
		return mt
	}
	return "unknown content type"
}

// scrub removes the API key from text that is about to leave the package.
func (t *transport) scrub(s string) string {
	if k := t.cfg.apiKey(); k != "" && strings.Contains(s, k) {
		return strings.ReplaceAll(s, k, "[redacted]")
	}
	return s
}

// redact wraps err so that its message cannot carry the API key; errors.Is/As still see the
// original chain.
func (t *transport) redact(err error) error {
	if err == nil {
		return nil
	}
	if msg := err.Error(); t.scrub(msg) != msg {
		return &redactedError{err: err, msg: t.scrub(msg)}
	}
	return err
}

type redactedError struct {
	err error
	msg string
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// oneLine collapses whitespace (error messages are printed on one line) and caps the length.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}
