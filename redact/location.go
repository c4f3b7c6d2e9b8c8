package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Hidden replaces a credential in a location (a DSN, a URL) that a message or a screen shows.
const Hidden = "xxxxx"

// secretParam is a parameter name that holds a credential: every name with password in it
// (password, sslpassword, passfile is a path and stays), secret, token or an API key.
var secretParam = regexp.MustCompile(`(?i)password|secret|token|api_?key|access_?key`)

// keywordParam finds the key=value pairs of a libpq keyword DSN, values bare or single-quoted.
var keywordParam = regexp.MustCompile(`(?i)(\b[a-z_]+)(\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)`)

// Location is the one rule for credentials in a location shown to a person: the userinfo
// password of a URL (any scheme: a journal DSN, a base URL), and the value of every query or
// keyword parameter whose name holds password, secret, token or an API key (sslpassword
// included), become Hidden. Anything else is left as it is; a URL that cannot be parsed keeps
// only its scheme.
func Location(s string) string {
	t := strings.TrimSpace(s)
	if !strings.Contains(t, "://") {
		if keywordParam.MatchString(t) && strings.Contains(t, "=") {
			return keywordParam.ReplaceAllStringFunc(t, func(m string) string {
				p := keywordParam.FindStringSubmatch(m)
				if secretParam.MatchString(p[1]) {
					return p[1] + p[2] + Hidden
				}
				return m
			})
		}
		return s
	}
	u, err := url.Parse(t)
	if err != nil {
		scheme, _, _ := strings.Cut(t, "://")
		return scheme + "://(a location that cannot be parsed)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Hidden)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			if secretParam.MatchString(k) {
				q[k] = []string{Hidden}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// LocationSecrets are the credentials Location hides in s, to scrub them from a text that
// quotes s (a driver's error message).
func LocationSecrets(s string) []string {
	t := strings.TrimSpace(s)
	var out []string
	if !strings.Contains(t, "://") {
		for _, p := range keywordParam.FindAllStringSubmatch(t, -1) {
			if v := strings.Trim(p[3], "'"); secretParam.MatchString(p[1]) && v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	u, err := url.Parse(t)
	if err != nil {
		return nil
	}
	if u.User != nil {
		if pw, has := u.User.Password(); has && pw != "" {
			out = append(out, pw, url.QueryEscape(pw))
		}
	}
	for k, vs := range u.Query() {
		if secretParam.MatchString(k) {
			for _, v := range vs {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// ScrubLocation hides in text every credential of the location s (LocationSecrets).
func ScrubLocation(text, s string) string {
	for _, v := range LocationSecrets(s) {
		if len(v) >= 3 {
			text = strings.ReplaceAll(text, v, Hidden)
		}
	}
	return text
}
