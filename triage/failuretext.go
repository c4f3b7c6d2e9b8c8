package triage

import (
	"bytes"
	"cmp"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/exectriage/exectriage/model"
)

// failureText returns the text describing the failure and whether the record carries one. A
// successful log whose response says successful:false is a tool failure too; a successful log
// is never searched for error words in its message (a subject may say "timeout").
func failureText(e *model.Execution, st terminal) (string, bool) {
	var parts []string
	has := false
	if e.Error != nil {
		has = true
		if e.Error.Message != "" {
			parts = append(parts, e.Error.Message)
		}
	}
	if r, ok := responseFailure(e.Response); ok {
		has = true
		if r != "" && (len(parts) == 0 || !strings.Contains(parts[0], r)) {
			parts = append(parts, r)
		}
	}
	if st == statusFailed && len(parts) == 0 && e.Message != "" {
		parts = append(parts, e.Message)
	}
	return strings.Join(parts, "; "), has
}

// ResponseMayFail reports whether a response (data.response) may say what triage reads of it:
// successful:false, a session's result_type (nothingRan: input_required, blocked, an
// approval's request_state), or data that is the provider's failure (ReadDataFailure) — a
// key of the top-level object, or of its data, as encoding/json finds it: any case, escapes,
// and the Unicode letters that fold to s. It answers without decoding: false is certain (most
// responses), true means decoding will tell. It walks the top level and the data's, skipping
// nested values whole, so a provider's object full of false flags and escaped non-ASCII text
// (what real responses are) is answered here rather than decoded.
func ResponseMayFail(resp []byte) bool {
	i := skipSpace(resp, 0)
	if i >= len(resp) || resp[i] != '{' {
		return true // not an object: the decoder says what it is
	}
	if why, _ := walkMembers(resp, i, func(key []byte, plain bool, at int) bool {
		if c := resp[at]; !plain && (bytes.Contains(resp, []byte("esult")) || c == 'f' || c == '{' || c == '"' || '0' <= c && c <= '9') {
			return true // a key whose escapes or non-ASCII letters may spell one of them
		}
		if plain && ResponseKeyMayFail(nil, key, resp[at:]) {
			return true // successful:false, or a session's result (nothingRan decodes it)
		}
		if plain && resp[at] == '{' && bytes.EqualFold(key, dataKey) {
			may, ok := walkMembers(resp, at, func(key []byte, plain bool, at int) bool {
				return !plain || ResponseKeyMayFail(dataKey, key, resp[at:])
			})
			return may || !ok
		}
		return false
	}); why {
		return true
	}
	return false
}

// dataKey is the member of a response that holds the tool's data.
var dataKey = []byte("data")

// walkMembers walks the members of the object at b[i] (a '{'), calling member with each key
// (plain: ASCII without escapes) and the index of its value's first byte, until member says
// true; it skips each value whole. said is member's true; ok is false when the object does
// not end well (a decoder is then the judge: said is true too).
func walkMembers(b []byte, i int, member func(key []byte, plain bool, at int) bool) (said, ok bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return false, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return true, false
		}
		end, plain := stringEnd(b, i)
		if end < 0 {
			return true, false
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return true, false
		}
		if i = skipSpace(b, i+1); i >= len(b) {
			return true, false
		}
		if member(key, plain, i) {
			return true, true
		}
		if i = valueEnd(b, i); i < 0 {
			return true, false
		}
		i = skipSpace(b, i)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return false, true
		default:
			return true, false
		}
	}
}

// ResponseKeyMayFail is ResponseMayFail for one key of an object response (in is nil) or of
// its data (in is the data's key), and the bytes from its value's first on, as the one-pass
// parser reads them (model.Parser.KeepResponseKey). At the top level: a key that may spell
// successful (any case; a key with other than ASCII letters may fold to it) whose value is
// false, or one that may spell a session's result_type. In the data: a success flag false, an
// error member not empty, a status of 400 or more (ReadDataFailure's members), or a key not
// ASCII. It keeps every response ResponseMayFail keeps, and those with a key that is not
// ASCII.
func ResponseKeyMayFail(in, key, value []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	if len(value) == 0 {
		return true
	}
	if in != nil {
		return dataMemberMayFail(key, value)
	}
	if value[0] == 'f' && bytes.EqualFold(key, []byte("successful")) {
		return true
	}
	if bytes.EqualFold(key, []byte("status")) && dataMemberMayFail(key, value) {
		return true // a proxy's answer relaying a status of 400 or more
	}
	return bytes.EqualFold(key, []byte("result_type")) || bytes.EqualFold(key, []byte("resultType"))
}

// dataMemberMayFail: a member of a tool's data whose name and value may make the data the
// provider's failure (ReadDataFailure), from the value's first bytes, without allocating.
func dataMemberMayFail(key, value []byte) bool {
	var buf [20]byte
	n := 0
	for _, c := range key {
		switch {
		case c == '_' || c == '-':
			continue
		case n == len(buf):
			return false // longer than any member's name the envelope lists
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	name := buf[:n]
	next := func() byte { // the first byte inside a string, list or object value
		if j := skipSpace(value, 1); j < len(value) {
			return value[j]
		}
		return 0
	}
	switch {
	case successFlags[string(name)]:
		return value[0] == 'f'
	case errorMembers[string(name)]:
		switch value[0] {
		case 'n', 'f':
			return false
		case '"':
			return len(value) < 2 || value[1] != '"'
		case '[':
			return next() != ']'
		case '{':
			return next() != '}'
		case '0':
			return len(value) > 1 && '0' <= value[1] && value[1] <= '9'
		}
		return true
	case codeMembers[string(name)]:
		c := value[0]
		if c == '"' && len(value) > 1 {
			c = value[1]
		}
		return c == '4' || c == '5'
	}
	return false
}

// stringEnd returns the index just past the JSON string starting at b[i] (a quote), and
// whether it is plain: ASCII without escapes. -1 when it does not end.
func stringEnd(b []byte, i int) (int, bool) {
	plain := true
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, plain
		case c == '\\':
			plain = false
			j++
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return -1, false
}

// skipString is stringEnd without saying whether the string is plain: the index just past the
// JSON string starting at b[i] (a quote), -1 when it does not end. It jumps from quote to quote
// (bytes.IndexByte): a provider's response is mostly long strings below the top level, which
// a byte-by-byte walk spent a fifth of a production-shaped load's parse on.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		escapes := 0 // the backslashes right before the quote: an odd count escapes it
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the JSON value starting at b[i], skipping an object or
// array whole (strings inside them included); -1 when it does not end.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := skipString(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i // a literal or a number
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// responseFailure reads data.response {successful:false, error:"..."}: the error's words, or
// when it gives none, those of its data when that is the provider's failure.
func responseFailure(resp json.RawMessage) (string, bool) {
	r, ok := decodeResponse(resp)
	if !ok || r.Successful == nil || *r.Successful {
		return "", false
	}
	var s string
	if json.Unmarshal(r.Error, &s) != nil {
		s = strings.TrimSpace(string(r.Error))
		if s == "null" {
			s = ""
		}
	}
	if s == "" {
		if f, ok := ReadDataFailure(r.Data); ok {
			s = f.Text
		}
	}
	return s, true
}

// responseDataFailure reads a response that does not say successful:false (a success, as
// Composio recorded it) whose data is the provider's failure.
func responseDataFailure(resp json.RawMessage) (DataFailure, bool) {
	r, ok := decodeResponse(resp)
	if !ok || r.Successful != nil && !*r.Successful {
		return DataFailure{}, false
	}
	f, failed := ReadDataFailure(r.Data)
	// a proxy's answer ({status, data, headers}) relays the provider's own HTTP status: one of
	// 400 or more is the provider's failure, whatever its body says
	if n := httpCode(r.Status); r.Successful == nil && n >= 400 {
		f.Code, f.Marker, f.Partial, failed = n, "the provider's status "+strconv.Itoa(n), false, true
		if f.Text == "" {
			f.Text = bodyText(r.Data)
		}
	}
	return f, failed
}

type response struct {
	Successful *bool           `json:"successful"`
	Error      json.RawMessage `json:"error"`
	Data       json.RawMessage `json:"data"`
	Status     json.RawMessage `json:"status"` // a proxy's answer: the provider's HTTP status
}

// decodeResponse decodes data.response when ResponseMayFail says it may tell something.
func decodeResponse(resp json.RawMessage) (response, bool) {
	resp = bytes.TrimSpace(resp)
	if len(resp) == 0 || resp[0] != '{' || !ResponseMayFail(resp) {
		return response{}, false // (before r: decoding makes it the heap's)
	}
	r := new(response)
	if json.Unmarshal(resp, r) != nil {
		return response{}, false
	}
	return *r, true
}

func neverSent(low string) string { return findWordPhrase(low, neverSentPhrases) }

func notConnected(low string) string { return findWordPhrase(low, notConnectedPhrases) }

// unsentWords is what a text says in words about the request never leaving (beforeSent): the
// reason's opening, "" for nothing.
func unsentWords(low string) string {
	for _, b := range beforeSent {
		if b.re.MatchString(low) {
			return b.name
		}
	}
	return ""
}

// beforeSent are texts that say in words that the failure came before the request was written:
// before it was sent, before the connection it needed was established, while it waited for
// a connection from a pool, or with no network at all. A request that was sent but not
// completed ("closed before the request completed") is no such text: it may have run.
var beforeSent = []struct {
	re   *regexp.Regexp
	name string
}{
	{regexp.MustCompile(`\bbefore (the |a |an |any )?([a-z]+ ){0,2}request (was |were |could be |had been |got )?(sent|written|dispatched|made)\b|` +
		`\brequest ([a-z]+ ){0,3}before it (was |could be |had been )?(sent|written|dispatched)\b|\bbefore sending (the |a |any )?([a-z]+ )?request\b`),
		"failed before the request was sent"},
	{regexp.MustCompile(`\bbefore (the |a |an )?([a-z]+ ){0,2}(connection|handshake) (was |could be |had been |is )?(established|opened|made|completed)\b|` +
		`\bconnection (was |is |could )?not (be )?(yet )?(established|opened)\b|\b(could not|couldn't|cannot|unable to|failed to) establish (a |the )?([a-z]+ )?connection\b`),
		"failed before its connection was established"},
	{regexp.MustCompile(`\b(waiting for|acquir[a-z]*|obtain[a-z]*) (a |an |the )?(free |available |idle |pooled )?connection\b|\bpool (timeout|exhausted)\b`),
		"failed waiting for a connection"},
	{regexp.MustCompile(`\bno (network|internet) connection\b|\bnot connected to the internet\b|\b(connection|network|device) (appears to be |is )offline\b`),
		"failed with no network"},
}

// answerFault says what a text calls missing or faulty is the answer: a word of absence or of a
// fault said of the response, the reply, the result, the output or the data returned ("Response
// missing", "missing response body", "'data' not found in the response", "Response not valid
// JSON") is about what came back, so the request was carried and its answer lost; that is not
// the refusal "missing", "not found" or "not valid" are on their own. Only within a clause:
// "Error response: 404 Not Found" is a refusal. A step the text places after the send ("after
// sending") is about what followed it, as the answer is.
var answerFault = regexp.MustCompile(
	`\b(response|reply|answer|output|result|returned [a-z]+|received [a-z]+)( [a-z]+)? (is |was |were |could not be |cannot be |has been )?` +
		`(missing|not found|lost|empty|absent|not received|not returned|invalid|malformed|truncated|incomplete|corrupt[a-z]*|unreadable|` +
		`undefined|null|too long|too large|too big|must be|should be|not valid|not a valid|not in the expected|not as expected)\b|` +
		`\bafter (sending|posting|creating|the request was sent|it was sent|it was posted|it was created)\b|` +
		`\b(could not|couldn't|cannot|can't|unable to|failed to) (find|locate|get|read|parse|retrieve|receive|decode) (a |an |the )?([a-z]+ )?` +
		`(response|reply|answer|output|result)\b|` +
		`\b(missing|lost|empty|absent|invalid|malformed|truncated|incomplete|corrupt[a-z]*|unreadable|unexpected)( [a-z]+)? ` +
		`(response|reply|answer|output|result)\b|` +
		`\b(missing|not found)( \S+){0,2} (in|from) (the )?(response|reply|answer|output|result)\b`)

// answerFaultWord is the words answerFault finds in low, "" for none.
func answerFaultWord(low string) string { return answerFault.FindString(low) }

// kindWords is an error kind exectriage does not name (model.ErrorKind's own) as words, its
// parts split where a log writes them together: "RateLimitError" and "RATE_LIMIT" are "rate
// limit error" and "rate limit", read as an error's text is. "" for a kind of exectriage's own
// or none.
func kindWords(k model.ErrorKind) string {
	switch model.ErrorKind(strings.ToLower(string(k))) {
	case "", model.ErrTimeout, model.ErrUpstream5xx, model.ErrRateLimited, model.ErrAuth, model.ErrValidation, model.ErrConnection:
		return ""
	}
	return joinedWords(string(k))
}

// joinedWords is a name a log writes its words joined in (RateLimitError, RATE_LIMIT,
// not-found) as its words, in lower case.
func joinedWords(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' {
			return ' '
		}
		return unicode.ToLower(r)
	}, cmp.Or(identifierWords(s), s))
}

// expiredTime is "expired" said of the request's own time (Ruby's Timeout::Error says
// "execution expired"; "the wait for the provider expired"): a timeout, where "expired" said
// of what the request needs (a token, a card, a link) is a refusal.
var expiredTime = regexp.MustCompile(`\b(execution|operation|task|job|request|deadline|timer|call|invocation|wait|waiting)` +
	`( for [^.;:]{1,40}?)? (has |had |was |is )?expired\b`)

// negatedTimeout is a timeout said not to have happened ("Timeout not elapsed yet, circuit
// breaker still open": the breaker's wait, not the call's; "not timed out"): no timeout.
var negatedTimeout = regexp.MustCompile(`\btime ?out (has |had |is )?not (yet )?(elapsed|expired|passed|reached)\b|\bnot (yet )?timed out\b`)

// lockWait is a timeout of the wait for a lock ("Lock wait timeout exceeded", Stripe's
// lock_timeout, "timed out waiting for a lock"): the work waits for its lock before it begins,
// so it did not run (a refusal: refusalPhrases), where a timeout while the lock was held is one.
var lockWait = regexp.MustCompile(`\block (wait )?time ?out\b|\btime(d)? ?out (while )?waiting for (a |the )?lock\b`)

func timeoutWord(low string) string {
	if strings.Contains(low, "not") {
		low = negatedTimeout.ReplaceAllString(low, " ")
	}
	if strings.Contains(low, "lock") {
		low = lockWait.ReplaceAllString(low, " ")
	}
	if w := findPhrase(low, timeoutPhrases); w != "" {
		return w
	}
	if expiredTime.MatchString(low) {
		return "timed out"
	}
	if HasWord(low, "408") {
		return "408 request timeout"
	}
	return ""
}

func droppedWord(low string) string {
	if w := findPhrase(low, droppedPhrases); w != "" {
		return w
	}
	if HasWord(low, "eof") {
		return "EOF"
	}
	return ""
}

func gatewayCode(low string) string {
	for _, c := range []string{"500", "502", "503", "504", "520", "521", "522", "523", "524", "598", "599"} {
		if HasWord(low, c) {
			return c
		}
	}
	return findPhrase(low, gatewayPhrases)
}

// HasWord reports whether w occurs in s with no letter or digit on either side, so "eof" does
// not match "thereof" and "502" does not match "15020".
func HasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isAlnum(s[j-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func after(e *model.Execution) string {
	if e.HasDuration {
		return " after " + secs(e.Duration)
	}
	return ""
}

// kindOf is the error kind a record gives, as it wrote it ("" for none).
func kindOf(e *model.Execution) model.ErrorKind {
	if e.Error == nil {
		return ""
	}
	return e.Error.Kind
}

// Stack frames: a line that says where the code ran when it failed, not what happened: a
// Python traceback's header and its File lines (with the source line under each), a JavaScript,
// Java or .NET "at" line, Ruby's file:line:in lines, Go's goroutine header and file:line lines.
var (
	frameLineRE = regexp.MustCompile(`^(?:Traceback \(most recent call last\):|File ".*", line \d+.*|` +
		`at (?:new |async )?[^\s(]+(?: ?\([^)]*\))?(?: in .*:line \d+)?|(?:from )?\S+\.rb:\d+:in .*|goroutine \d+ \[.*|\S+\.go:\d+(?: \+0x[0-9a-f]+)?|` +
		`\.\.\. \d+ more)$`)
	frameWhereRE = regexp.MustCompile(`[(:]\d+|\(index \d+\)|\.(?:py|js|ts|mjs|cjs|java|cs|rb|go)\b|Native Method|<anonymous>`)
)

// withoutFrames is an error text without its stack frames (frameLineRE): their file and
// function names ("/app/auth/permissions.py", "validateRecipient", "http.js:599") are where the
// code ran, and would be read as a refusal's words or a status. An "at" line counts only with a
// place in it (a line number, a file, a native method): "at least one recipient" is a sentence.
// The exception's own lines stay. A text with no frame is returned as it is.
func withoutFrames(text string) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := lines[:0]
	dropped, code := false, false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		isFrame := frameLineRE.MatchString(t) && (!strings.HasPrefix(t, "at ") || frameWhereRE.MatchString(t))
		switch {
		case isFrame:
			dropped, code = true, strings.HasPrefix(t, "File ")
			continue
		case code && t != "" && len(l) > len(strings.TrimLeft(l, " \t")): // the source line under a Python frame
			code = false
			continue
		}
		code = false
		out = append(out, l)
	}
	if !dropped {
		return text
	}
	return strings.Join(out, "\n")
}

// asideKey is a member of an error's JSON body that says something beside the failure, not the
// failure: a warning (Slack's "warning": "missing_charset"), metadata, an identifier, a link to
// documentation, a suggested fix. Its words are no account of what happened to the request.
func asideKey(k string) bool {
	for _, w := range keyWords(k) {
		switch w {
		case "warning", "warnings", "metadata", "fix", "suggestion", "suggested", "hint", "documentation", "docs", "doc", "url",
			"link", "links", "id", "ids":
			return true
		}
	}
	return false
}

// withoutAsides is an error sent as a JSON object without the members beside its failure
// (asideKey, at any depth), written again as JSON; any other text, or a body with none, is
// returned as it is.
func withoutAsides(text string) string {
	if t := strings.TrimSpace(text); len(t) < 2 || t[0] != '{' || !strings.Contains(t, `":`) {
		return text
	}
	var v map[string]any
	if json.Unmarshal([]byte(text), &v) != nil {
		return text
	}
	dropped := false
	var prune func(v any) any
	prune = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if asideKey(k) {
					delete(x, k)
					dropped = true
					continue
				}
				x[k] = prune(e)
			}
		case []any:
			for i, e := range x {
				x[i] = prune(e)
			}
		}
		return v
	}
	prune(v)
	if !dropped {
		return text
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a proxy's page in a message stays as it was written
	if enc.Encode(v) != nil {
		return text
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// failureAccount is what an error text says of the failure: without its stack frames
// (withoutFrames) and, sent as a JSON body, without the members beside it (withoutAsides).
// A log's failure and a write's own answer are read from it alike.
func failureAccount(text string) string { return withoutAsides(withoutFrames(text)) }
