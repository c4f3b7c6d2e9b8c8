package model

import (
	"cmp"
	"strings"
)

// SDKFromUserAgent reads the Composio SDK's version, and its language when the product says
// it, from a user agent: the first version after a product token naming Composio
// ("Composio/JS 0.13.1", "composio-python/0.15.2", "@composio/core/0.13.1 node/20.11.0",
// "composio_core/0.7.21 (Python 3.11)"). Both are "" when the user agent names no Composio
// product with a version (another client's, or none).
func SDKFromUserAgent(ua string) (version, language string) {
	low := strings.ToLower(ua)
	i := strings.Index(low, "composio")
	if i < 0 {
		return "", ""
	}
	toks := strings.FieldsFunc(ua[i:], func(r rune) bool {
		return r == ' ' || r == '/' || r == ';' || r == '(' || r == ')' || r == ',' || r == '\t'
	})
	var product []string
	for _, t := range toks {
		if v, ok := versionToken(t); ok {
			version = v
			break
		}
		product = append(product, strings.ToLower(t))
		if len(product) > 3 { // the version belongs to the product's first words
			return "", ""
		}
	}
	if version == "" {
		return "", ""
	}
	for _, p := range product {
		if strings.HasPrefix(p, "@composio") { // an npm scope: the TypeScript SDK
			return version, "typescript"
		}
		for _, w := range strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == '_' || r == '@' || r == '.' }) {
			switch w {
			case "js", "javascript", "typescript", "ts", "node":
				return version, "typescript"
			case "python", "py":
				return version, "python"
			}
		}
	}
	// else the runtime the user agent names: Python's or a JavaScript one's
	for _, t := range strings.FieldsFunc(low, func(r rune) bool { return r == ' ' || r == '/' || r == '(' || r == ')' || r == ';' }) {
		switch t {
		case "python", "cpython", "pypy":
			return version, "python"
		case "node", "nodejs", "deno", "bun":
			return version, "typescript"
		}
	}
	return version, ""
}

// versionToken reports whether t is a version (1.2, 1.2.3, v0.13.1, 1.0.0-beta.1, 1.0.0rc5),
// without its leading v.
func versionToken(t string) (string, bool) {
	t = strings.TrimPrefix(strings.TrimPrefix(t, "v"), "V")
	dots, digits := 0, 0
	for k := 0; k < len(t); k++ {
		c := t[k]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && digits > 0 && dots < 2:
			dots++
			digits = 0
		default:
			// a pre-release or build suffix after a whole major.minor
			if dots >= 1 && digits > 0 && (c == '-' || c == '+' || c >= 'a' && c <= 'z') {
				return t, true
			}
			return "", false
		}
	}
	return t, dots >= 1 && digits > 0
}

// applyUserAgent takes the SDK's version, and language, from a record's user agent when the
// record does not carry them itself.
func applyUserAgent(e *Execution, ua string) {
	if e.SDKVersion != "" || ua == "" {
		return
	}
	v, lang := SDKFromUserAgent(ua)
	e.SDKVersion = v
	e.Source.Language = cmp.Or(e.Source.Language, lang)
}
