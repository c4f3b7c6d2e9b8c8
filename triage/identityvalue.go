package triage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/exectriage/exectriage/model"
)

// identityFact is a string of a write's identity as the fact it states, so that a value a model
// writes again in another type or notation is the same value (notation.go says why):
//   - a number in plain decimal notation ("1250.00", "42", "-3.5") is that number: literal is
//     true and fact its digits, read as a JSON number. A leading zero ("007", a code), a sign
//     "+", an exponent, spaces or more than 15 significant digits after a point (past what a
//     float keeps) are no number's plain notation, and stay a string; thousands grouped
//     ("1,250.00", "1.250,00") are the number (groupedNumber).
//   - the midnight that starts a day, in UTC or without an offset ("2026-03-14T00:00:00Z",
//     with a fraction of zeros or +00:00), is that day ("2026-03-14"): a date sent as a
//     datetime. Any other date-time with its offset is its instant in UTC (offsetInstant), and
//     a day written in words or figures is that day (writtenDay).
//   - a phone number written with a phone's punctuation or a leading + (10 to 15 digits) is
//     its last ten digits, as a contact's phone is compared (addressOrPhone).
//   - "true" and "false" in any case are the JSON literals (flagFact).
//   - anything else is a name (placeName).
func identityFact(s string) (fact string, literal bool) {
	if s == "" {
		return s, false
	}
	if c := s[0]; c >= '0' && c <= '9' || c == '-' {
		if plainNumber(s) {
			return s, true
		}
		if n, ok := groupedNumber(s); ok {
			return n, true
		}
		if day, ok := midnightDay(s); ok {
			return day, false
		}
		if at, ok := offsetInstant(s); ok {
			return at, false
		}
	}
	if c := s[0]; c >= '0' && c <= '9' || c == '+' || c == '(' {
		if p, ok := phoneDigits(s); ok {
			return p, false
		}
	}
	if b, ok := flagFact(s); ok {
		return b, true
	}
	if isDate(s) {
		return s, false
	}
	if day, ok := writtenDay(s); ok {
		return day, false
	}
	return placeName(s), false
}

// keyedFact is identityFact of a string under its argument's name: digits alone are what they
// state under that name (keyedDigits).
func keyedFact(key, s string) (fact string, literal bool) {
	if f, ok := keyedDigits(key, s); ok {
		return f, false
	}
	return identityFact(s)
}

// keyedDigits is digits alone (10 to 15) under an argument's name as the fact they state there,
// written as a string or as a JSON number alike: seconds or milliseconds since 1970 under a name
// that holds a time (epochInstant), else a number dialed under a name that holds a phone
// (dialedDigits). A name that holds both ("sms_send_at") holds a time.
func keyedDigits(key, digits string) (string, bool) {
	if len(digits) < 10 || len(digits) > 15 || !allDigits(digits) {
		return "", false
	}
	if timeKey(key) {
		if at, ok := epochInstant(digits); ok {
			return at, true
		}
	}
	return dialedDigits(key, digits)
}

// plainNumber reports whether s is a number in plain decimal notation: -?(0|[1-9][0-9]*)
// (\.[0-9]+)?, with at most 15 significant digits when it has a point.
func plainNumber(s string) bool {
	i := 0
	if s[0] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigitByte(s[i]) {
		i++
	}
	whole := i - start
	if whole == 0 || whole > 1 && s[start] == '0' {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' || i+1 == len(s) {
		return false
	}
	for i++; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return false
		}
	}
	return len(s)-start-1 <= 15
}

// midnightDay is the day a midnight in UTC or without an offset starts ("2026-03-14T00:00:00Z",
// "2026-03-14 00:00:00.000+00:00": "2026-03-14").
func midnightDay(s string) (string, bool) {
	if len(s) < 19 || s[10] != 'T' && s[10] != ' ' || s[11:19] != "00:00:00" || !isDate(s[:10]) {
		return "", false
	}
	rest := s[19:]
	if strings.HasPrefix(rest, ".") {
		rest = strings.TrimLeft(rest[1:], "0")
	}
	switch rest {
	case "", "Z", "+00:00", "+0000", "-00:00":
		return s[:10], true
	}
	return "", false
}

// isDate reports whether s is YYYY-MM-DD with digits where digits go.
func isDate(s string) bool {
	return len(s) == 10 && s[4] == '-' && s[7] == '-' && run(s, 0, 4, isDigitByte) && run(s, 5, 2, isDigitByte) && run(s, 8, 2, isDigitByte)
}

// phoneDigits is a phone number's last ten digits, "tel:" first, when s is one: 10 to 15
// digits among a phone's punctuation (spaces, + ( ) - .), with a leading + or at least one mark.
func phoneDigits(s string) (string, bool) {
	var digits []byte
	marks := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigitByte(c):
			digits = append(digits, c)
		case strings.IndexByte(" +-().", c) >= 0:
			marks++
		default:
			return "", false
		}
	}
	if len(digits) < 10 || len(digits) > 15 || marks == 0 {
		return "", false
	}
	return "tel:" + string(digits[len(digits)-10:]), true
}

// appendIdentityString appends a string member's identity (keyedFact) as JSON: a number's
// digits as a number, a flag as a boolean, any other fact as a string.
func appendIdentityString(dst []byte, m model.ArgMember) ([]byte, bool) {
	fact, literal := keyedFact(m.Key, m.Str)
	switch {
	case literal:
		return model.AppendCanonical(dst, []byte(fact), nil)
	case fact == m.Str:
		return model.AppendCanonical(dst, m.Raw, nil)
	}
	return model.AppendKey(dst, fact), true
}

// identityDeep is a decoded value under its argument's name with every string in it, at any
// depth, read as keyedFact reads a top-level one, and a number of seconds or milliseconds under
// a name that holds a time as that instant: a wrapper of short values (a CRM record's properties,
// a table's fields) states the same facts whichever type or notation a model writes them in.
func identityDeep(key string, v any) any {
	switch x := v.(type) {
	case string:
		fact, literal := keyedFact(key, x)
		switch {
		case !literal:
			return fact
		case fact == "true" || fact == "false":
			return fact == "true"
		}
		return json.Number(fact)
	case json.Number:
		if f, ok := keyedDigits(key, string(x)); ok {
			return f
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = identityDeep(k, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = identityDeep(key, e)
		}
		return out
	}
	return v
}

// appendIdentityNested appends an object or a list member's identity: its strings as the facts
// they state (identityDeep), canonical. A value with no string identityFact could restate (no
// digit, sign, mark or capital after a quote) is appended as it is, unread.
func appendIdentityNested(dst []byte, key string, raw []byte, skip map[string]bool) ([]byte, bool) {
	if !mayRestate(raw) {
		return model.AppendCanonical(dst, raw, skip)
	}
	v, err := model.DecodeArgs(raw)
	if err != nil {
		return dst, false
	}
	b, err := json.Marshal(identityDeep(key, v))
	if err != nil {
		return dst, false
	}
	return model.AppendCanonical(dst, b, skip)
}

// mayRestate reports whether a JSON value may hold a value identityDeep reads otherwise: a
// string that starts with a digit, a sign, '(', '#' or '@', or says true or false, a capital
// letter anywhere (an escape or a letter outside ASCII may be one), or a run of ten digits (a
// number of seconds since 1970).
func mayRestate(raw []byte) bool {
	digits := 0
	for i, c := range raw {
		if c >= 'A' && c <= 'Z' || c == '\\' || c >= 0x80 {
			return true
		}
		if c == '"' && i+1 < len(raw) && strings.IndexByte("0123456789-+(#@", raw[i+1]) >= 0 {
			return true
		}
		if c == '"' && (bytes.HasPrefix(raw[i+1:], []byte(`true"`)) || bytes.HasPrefix(raw[i+1:], []byte(`false"`))) {
			return true
		}
		if !isDigitByte(c) {
			digits = 0
		} else if digits++; digits >= 10 {
			return true
		}
	}
	return false
}

// rewrittenValue names an argument that the group's members wrote in another form while their
// texts and identities read alike (an identifying value: a number as a string, a day as its
// midnight, a name in another case, a list in another order; a text in other spacing or case, or
// a link with other tracking tags; a label list reordered; a text under another name), as
// "amount "1250.00", then 1250" or "arguments body, to, then html_body, to"; "" when every
// member wrote the same arguments alike. A program builds its arguments from the same data the
// same way each time; a model writes them anew. Volatile arguments, and the values maskVolatile
// masks in any argument but the identifying ones (keys: a footer's timestamp, a request id), are
// what a program regenerates; an empty argument (null, "", [], {}) is an absent one.
func rewrittenValue(ms []member, keys []string, skip map[string]bool) string {
	first := map[string][]byte{} // each argument as the first member wrote it
	var names []string           // the first member's arguments, sorted
	for i, m := range ms {
		members, ok := model.SplitObject(m.e.Arguments)
		if !ok {
			return ""
		}
		var these []string
		for _, am := range members {
			if model.Skips(skip, am.Key) || emptyRaw(am.Raw) {
				continue
			}
			these = append(these, am.Key)
			prev, seen := first[am.Key]
			if !seen {
				first[am.Key] = am.Raw
				continue
			}
			if string(prev) == string(am.Raw) { // the same bytes: no form to compare (most re-sends)
				continue
			}
			a, okA := model.AppendCanonical(nil, prev, skip)
			b, okB := model.AppendCanonical(nil, am.Raw, skip)
			if !okA || !okB || string(a) == string(b) {
				continue
			}
			if slices.Contains(keys, am.Key) || maskVolatile(string(a)) != maskVolatile(string(b)) {
				return fmt.Sprintf("%s %s, then %s", am.Key, clip(string(a)), clip(string(b)))
			}
		}
		slices.Sort(these)
		if i == 0 {
			names = these
		} else if !slices.Equal(names, these) { // an argument under another name, or one added
			return fmt.Sprintf("arguments %s, then %s", strings.Join(names, ", "), strings.Join(these, ", "))
		}
	}
	return ""
}

// clip shortens a value quoted in a reason to 40 characters.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}
