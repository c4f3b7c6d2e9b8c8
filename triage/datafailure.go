package triage

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DataFailure is what a tool's data (data.response.data, or the data of an execute answer)
// says of the call at its top level when it is the provider's own failure: a proxy passes
// the provider's body through as data (Slack's {"ok": false, "error": "channel_not_found"}
// under successful:true), and tools return the provider's flag ({"success": false}). It
// contradicts a recorded success: the provider's answer is the nearer witness of what it did.
type DataFailure struct {
	// Text is the error's words (its message, code or status words), "" when it gives none.
	Text string
	// Code is an HTTP status of 400 or more the error carries (a status member, or its
	// code), 0 for none.
	Code int
	// Partial: the errors come beside results (a batch's results and its errors, an id and
	// an error): part of the call may have taken effect.
	Partial bool
	// Marker says what made it a failure: `ok: false`, `an error member`, `status 404`...
	Marker string
}

// The members of a provider's error envelope, by their names folded (lower case, without _
// and -): a flag of success, the error itself, what describes it, and its codes. Any other
// member that is not empty is a result the call returned.
var (
	successFlags = map[string]bool{"ok": true, "success": true, "successful": true, "succeeded": true}
	errorMembers = map[string]bool{"error": true, "errors": true, "errormessage": true, "errormsg": true, "fault": true}
	wordsMembers = map[string]bool{"message": true, "msg": true, "detail": true, "details": true, "reason": true,
		"errordescription": true}
	codeMembers     = map[string]bool{"status": true, "statuscode": true, "httpstatus": true, "code": true, "errorcode": true}
	envelopeMembers = map[string]bool{"warning": true, "warnings": true, "type": true, "title": true, "requestid": true,
		"documentationurl": true, "responsemetadata": true, "needed": true, "provided": true, "category": true, "numerrors": true,
		"errorcount": true, "moreinfo": true, "traceid": true}
)

// foldName is a member's name as the envelope lists compare it.
func foldName(k string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// ReadDataFailure reads a tool's data at its top level: whether it is the provider's failure
// (a success flag false; or, no flag true, an error member not empty or a status of 400 or
// more), and what it says. A flag true beside errors, or errors beside results, is a failure
// in part. Anything nested deeper is the result's own business (a list of messages each with
// its ok).
func ReadDataFailure(data []byte) (DataFailure, bool) {
	env, ok := readEnvelope(data)
	if !ok {
		return DataFailure{}, false
	}
	f := DataFailure{Code: env.code, Text: env.text}
	switch {
	case env.flagFalse != "":
		f.Marker = env.flagFalse + ": false"
	case env.flagTrue && env.errorSaid:
		f.Marker, f.Partial = "errors beside a success flag", true
	case env.flagTrue:
		return DataFailure{}, false
	case env.errorSaid:
		f.Marker, f.Partial = "an error member", env.results
	case env.code != 0:
		f.Marker, f.Partial = "status "+strconv.Itoa(env.code), env.results
	default:
		return DataFailure{}, false
	}
	return f, true
}

// envelope is what a body's top-level members say as an error envelope's would.
type envelope struct {
	flagFalse           string // the success flag that is false, "" for none
	flagTrue, errorSaid bool   // a success flag true; an error member not empty
	results             bool   // a member that is none of the envelope's and not empty
	code                int    // a status of 400 or more, its own or its error's code
	text                string // the error's own words, else the describing members' (bodyText)
}

// readEnvelope reads a body's top-level members (ok is false when it is no JSON object).
func readEnvelope(data []byte) (envelope, bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return envelope{}, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return envelope{}, false
	}
	var env envelope
	var errText, words []string
	for _, k := range slices.Sorted(maps.Keys(members)) { // in one order, for one text
		v := members[k]
		name := foldName(k)
		switch {
		case successFlags[name]:
			switch string(bytes.TrimSpace(v)) {
			case "false":
				env.flagFalse = k
			case "true":
				env.flagTrue = true
			}
		case errorMembers[name]:
			if t, ok := errorWords(v); ok {
				env.errorSaid = true
				if t != "" {
					errText = append(errText, t)
				}
			}
		case wordsMembers[name]:
			if s, ok := stringOf(v); ok && s != "" {
				words = append(words, s)
			}
		case codeMembers[name]:
			if n := httpCode(v); n >= 400 {
				env.code = n
			}
		case envelopeMembers[name]:
		default:
			env.results = env.results || !emptyJSON(v)
		}
	}
	if env.code == 0 { // the error's own code, when it is an object that carries one
		env.code = errorCode(members)
	}
	// the error's own words; the describing members only when it gives none ({"success": false,
	// "message": "Invalid API key"}): a result's words beside an error are no account of it
	env.text = strings.Join(errText, "; ")
	if env.text == "" {
		env.text = strings.Join(words, "; ")
	}
	env.text = cutText(env.text)
	return env, true
}

// bodyText is what a provider's body says of its failure: its envelope's words, or the body
// itself when it is a string ("Bad Request", a gateway's page).
func bodyText(data []byte) string {
	if env, ok := readEnvelope(data); ok {
		return env.text
	}
	if s, ok := stringOf(bytes.TrimSpace(data)); ok {
		return cutText(s)
	}
	return ""
}

// cutText keeps at most 500 bytes of a text, cut at a rune.
func cutText(s string) string {
	if len(s) <= 500 {
		return s
	}
	cut := 500
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// errorWords is what an error member says: a string, an object's message and its code
// words, or a list's first such; ok is false for an empty one (null, "", [], {}, false).
func errorWords(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if emptyJSON(v) || string(v) == "false" || string(v) == "0" {
		return "", false
	}
	if s, ok := stringOf(v); ok {
		return s, true
	}
	switch v[0] {
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(v, &list) == nil && len(list) > 0 {
			t, _ := errorWords(list[0])
			return t, true
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) == nil {
			var said, codes []string
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				s, ok := stringOf(obj[k])
				if !ok || s == "" {
					continue
				}
				switch name := foldName(k); {
				case wordsMembers[name] || errorMembers[name]:
					said = append(said, s)
				case codeMembers[name] || name == "type":
					codes = append(codes, s)
				}
			}
			if t := strings.Join(append(said, codes...), "; "); t != "" {
				return t, true
			}
		}
	}
	return string(v), true
}

// errorCode is the HTTP status an error object carries as its code or status (Google's
// {"error": {"code": 404, ...}}), 0 for none.
func errorCode(members map[string]json.RawMessage) int {
	for _, k := range slices.Sorted(maps.Keys(members)) {
		v := members[k]
		if !errorMembers[foldName(k)] {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			continue
		}
		for _, ck := range slices.Sorted(maps.Keys(obj)) {
			if codeMembers[foldName(ck)] {
				if n := httpCode(obj[ck]); n >= 400 {
					return n
				}
			}
		}
	}
	return 0
}

// httpCode is a member's value read as an HTTP status (a number, or a number in a string),
// 0 when it is none.
func httpCode(v json.RawMessage) int {
	s := string(bytes.TrimSpace(v))
	if t, ok := stringOf(v); ok {
		s = strings.TrimSpace(t)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n > 599 {
		return 0
	}
	return n
}

func stringOf(v json.RawMessage) (string, bool) {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return strings.TrimSpace(s), true
}

// emptyJSON: null, "", [] or {} (with any spaces inside).
func emptyJSON(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0, string(v) == "null", string(v) == `""`:
		return true
	case v[0] == '[' || v[0] == '{':
		inner := bytes.TrimSpace(v[1 : len(v)-1])
		return len(inner) == 0
	}
	return false
}
