package triage

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/exectriage/exectriage/model"
)

// Near-duplicate grouping. Two writes of one tool by one caller are the same action when they
// agree on the arguments that identify the effect (who receives it, where it goes: recipient
// and subject, channel, repository and title, issue number, a contact's email) and their free
// text is the same message, possibly reworded: an LLM agent that got a timeout calls the tool
// again with regenerated text.
//
// Free text is a top-level string argument named like a message body (body, message_body,
// text, markdown_text, message, content, description, comment, note(s), html_body), or any
// other top-level string longer than longTextChars or spanning lines, unless its name says
// it identifies the target (identityKey). Every other argument (scalars, lists, objects) must
// be equal, as in exact grouping; volatile keys are ignored everywhere.
//
// A text that differs from the previous attempt's joins its group only when that attempt did
// not succeed (it failed or timed out: the agent saw an error and wrote the call anew). After
// a success a new text is a new message, however alike ("invoice 1042 is attached", then "a
// reminder that invoice 1042 is still open"); an agent that re-sends reworded text after a
// success cannot be told from such a follow-up and is not grouped (a known miss). Identical
// arguments group after a success too (a double submit).
//
// Texts are similar when
//   - they are equal once case, whitespace and HTML tags are ignored, or
//   - they carry the same numbers (amounts, invoice and order numbers, dates, versions: a
//     reworded message keeps them, "order 1041 shipped" and "order 1042 shipped" are two
//     messages), each one's names (capitalised words that do not start a sentence: "Looping
//     in Carlos" and "Looping in Mateo" are two messages) occur in the other, and their
//     other content words (letters, two or more, without common English function words,
//     greetings and sign-offs, with -s/-es/-ed/-ing dropped) have a Dice coefficient
//     2|A∩B|/(|A|+|B|) of at least NearDuplicateSimilarity;
//   - or both carry the same facts, at least one number and minFacts numbers and names in
//     all, with a Dice of at least AnchoredSimilarity: the agent that saw an error rewrote
//     the message freely but kept what it is about.
//
// The threshold was chosen on reworded and on different texts (similar_test.go logs each
// score): names and numbers are left out of the Dice so that a greeting and a signature do
// not make two different messages to one person alike.

// NearDuplicateSimilarity is the least text similarity of two members of one group.
const NearDuplicateSimilarity = 0.65

// AnchoredSimilarity is the least similarity of a text sent again after the previous attempt
// failed or timed out when both carry the same facts (anchored): an agent that saw an error
// rewrites the message freely but keeps its order number, amount, names and dates.
const AnchoredSimilarity = 0.25

// minFacts is how many numbers and names, in all, anchor a text.
const minFacts = 3

// FactsSimilarity is the similarity recorded for a text sent again after a failed attempt that
// shares none of its words but all its entities (entities.go), at least minEntities of them:
// the message written again from scratch or in another language ("Seu pedido A-78274 foi
// enviado em 14 de março", then "Your order A-78274 shipped on March 14"). It is below
// AnchoredSimilarity, so a group joined this way says so (matchWords).
const FactsSimilarity = 0.2

// minEntities is how many entities a text needs for its facts alone to identify it: one order
// number is shared by the order's confirmation and its shipping notice; an order number and a
// tracking code, or an amount and a date, are one message.
const minEntities = 2

// sameEntities: both texts carry the same entities, minEntities or more.
func sameEntities(a, b *textSig) bool {
	fa := a.factsOf()
	return len(fa) >= minEntities && slices.Equal(fa, b.factsOf())
}

// longTextChars: an argument this long that is not known to identify the target is free text.
const longTextChars = 120

// textKey reports whether a top-level argument name is a message body in Composio's tool
// schemas (GMAIL_SEND_EMAIL body, GMAIL_REPLY_TO_THREAD message_body, SLACK_SEND_MESSAGE text
// and markdown_text, GITHUB_CREATE_AN_ISSUE body, LINEAR description, ...).
func textKey(k string) bool {
	switch strings.ToLower(k) {
	case "body", "message_body", "html_body", "text_body", "text", "markdown_text", "markdown", "message",
		"content", "description", "comment", "note", "notes", "reply", "reply_text", "caption":
		return true
	}
	return false
}

// identityKey reports whether an argument names the target, however long it is.
func identityKey(k string) bool {
	switch strings.ToLower(k) {
	case "recipient_email", "to", "cc", "bcc", "extra_recipients", "subject", "title", "name", "summary",
		"channel", "channel_id", "thread_id", "thread_ts", "owner", "repo", "issue_number", "email",
		"calendar_id", "start_datetime", "start_time", "parent_id", "page_id", "team_id", "id", "url", "user_id":
		return true
	}
	return false
}

// effectArgs is a write's arguments split into what identifies its effect and its free text.
type effectArgs struct {
	identity []byte   // canonical JSON of the identifying arguments
	keys     []string // names of the identifying top-level arguments, sorted
	textKeys []string // names of the free-text arguments present, sorted
	rawText  string   // the free text, by key; signature(rawText) is what similarity reads
	// pinned says the identity pins the target by its own facts (pinned.go): its labels are
	// in the text, and any text joins after an attempt that did not succeed
	pinned bool
	// subject is an email's subject (an effect family's, intent.go): outside the identity, so
	// that a subject translated with its body stays in the bucket; compared beside the text
	// (clusterBucket) and read for facts with it
	subject string
}

// splitArgs splits arguments (JSON) for near-duplicate grouping; ok is false when they are
// not JSON. Arguments that are not an object are all identity.
func splitArgs(args json.RawMessage, volatile []string) (effectArgs, bool) {
	return splitArgsSkipping(args, volatile, skipSet(volatile))
}

// splitArgsSkipping is splitArgs with skipSet(volatile) made already.
func splitArgsSkipping(args json.RawMessage, volatile []string, skip map[string]bool) (effectArgs, bool) {
	if out, ok := splitArgsQuick(args, skip); ok {
		return out, true
	}
	return splitArgsSlow(args, volatile, skip)
}

// skipSet is the volatile keys in lower case, as a set.
func skipSet(volatile []string) map[string]bool {
	skip := make(map[string]bool, len(volatile))
	for _, k := range volatile {
		skip[strings.ToLower(k)] = true
	}
	return skip
}

// splitArgsQuick is splitArgs read straight from the JSON (model.SplitObject,
// model.AppendCanonical); ok is false when the quick path cannot be sure, and
// splitArgsSlow decides. TestSplitArgsQuickMatchesSlow holds the two equal.
func splitArgsQuick(args json.RawMessage, skip map[string]bool) (effectArgs, bool) {
	ms, ok := model.SplitObject(args)
	if !ok || len(ms) == 0 {
		return effectArgs{}, false
	}
	return splitMembers(ms, len(args), skip)
}

// splitMembers is splitArgsQuick of an object's members (model.SplitObject); size is the
// arguments' length, a bound on the identity's.
func splitMembers(ms []model.ArgMember, size int, skip map[string]bool) (effectArgs, bool) {
	var out effectArgs
	var ok bool
	var texts []string
	var label []bool
	out.pinned, label, ms = pinnedMembers(ms, skip)
	ident := make([]model.ArgMember, 0, len(ms))
	for i, m := range ms {
		if skip[strings.ToLower(m.Key)] || string(m.Raw) == "null" {
			continue // a null argument is an absent one: a rebuilt payload may send either
		}
		if m.IsStr && (isFreeText(m.Key, m.Str) || out.pinned && label[i]) {
			out.textKeys = append(out.textKeys, m.Key)
			texts = append(texts, m.Key+"\x00"+m.Str)
			continue
		}
		if rows, ok := rowsOf(m); ok { // records appended: content, by their facts (rows.go)
			out.textKeys = append(out.textKeys, m.Key)
			texts = append(texts, m.Key+"\x00"+rows)
			continue
		}
		ident = append(ident, m)
		out.keys = append(out.keys, m.Key)
	}
	slices.SortFunc(ident, func(a, b model.ArgMember) int { return strings.Compare(a.Key, b.Key) })
	id := make([]byte, 0, size)
	id = append(id, '{')
	for i, m := range ident {
		if i > 0 {
			id = append(id, ',')
		}
		id = model.AppendKey(id, m.Key)
		id = append(id, ':')
		if id, ok = model.AppendCanonical(id, m.Raw, skip); !ok {
			return out, false
		}
	}
	out.identity = append(id, '}')
	slices.Sort(out.keys)
	slices.Sort(out.textKeys)
	slices.Sort(texts)
	var all strings.Builder
	for _, t := range texts {
		_, s, _ := strings.Cut(t, "\x00")
		all.WriteString(s)
		all.WriteByte('\n')
	}
	out.rawText = all.String()
	return out, true
}

// splitArgsSlow is splitArgs through encoding/json, the reference; skip is volatile in lower
// case.
func splitArgsSlow(args json.RawMessage, volatile []string, skip map[string]bool) (effectArgs, bool) {
	var out effectArgs
	v, err := model.DecodeArgs(args)
	if err != nil {
		return out, false
	}
	m, isObject := v.(map[string]any)
	if !isObject {
		if out.identity, err = model.CanonicalValue(v, volatile); err != nil {
			return out, false
		}
		return out, true
	}
	var texts []string
	// pinning, read from the same members as the quick path reads (pinned.go)
	members, _ := decodeMembers(args)
	pinned, label, pm := pinnedMembers(members, skip)
	out.pinned = pinned
	isLabel := map[string]bool{}
	for i, mb := range pm {
		if pinned && label[i] {
			isLabel[mb.Key] = true
		} else if pinned && string(mb.Raw) != string(members[i].Raw) {
			m[mb.Key] = mb.Str // a pinning value in its normal form
		}
	}
	ident := make(map[string]any, len(m))
	for k, val := range m {
		if skip[strings.ToLower(k)] || val == nil {
			continue // null is absent
		}
		if s, ok := val.(string); ok && (isFreeText(k, s) || isLabel[k]) {
			out.textKeys = append(out.textKeys, k)
			texts = append(texts, k+"\x00"+s)
			continue
		}
		if rows, ok := rowsText(val); ok && rowsKey(k) {
			out.textKeys = append(out.textKeys, k)
			texts = append(texts, k+"\x00"+rows)
			continue
		}
		ident[k] = val
		out.keys = append(out.keys, k)
	}
	if out.identity, err = model.CanonicalValue(ident, volatile); err != nil {
		return out, false
	}
	slices.Sort(out.keys)
	slices.Sort(out.textKeys)
	slices.Sort(texts) // by key, so the text does not depend on map order
	var all strings.Builder
	for _, t := range texts {
		_, s, _ := strings.Cut(t, "\x00")
		all.WriteString(s)
		all.WriteByte('\n')
	}
	out.rawText = all.String() // tokenised only when the bucket has company (textOf)
	return out, true
}

// isFreeText reports whether a string argument is free text.
func isFreeText(k, s string) bool {
	if identityKey(k) {
		return false
	}
	return textKey(k) || utf8.RuneCountInString(s) > longTextChars || strings.Contains(s, "\n")
}

// textSig is what similarity reads of a text.
type textSig struct {
	norm  string   // lower case, tags dropped, whitespace collapsed
	words []string // content words, lower case, sorted, unique
	nums  []string // number tokens, sorted, unique
	names []string // capitalised words not starting a sentence, lower case, sorted, unique
	// masked is the text after maskVolatile; facts its entities (entities.go: identifiers,
	// numbers, dates, times, links, addresses), read when first asked for (factsOf): most
	// comparisons are settled by the words before
	masked    string
	facts     []string
	factsRead bool
}

// factsOf is t's entities, read once.
func (t *textSig) factsOf() []string {
	if !t.factsRead {
		t.facts, t.factsRead = entities(t.masked), true
	}
	return t.facts
}

// maskVolatile replaces what an application regenerates each time it builds a message again
// with a word that is the same in every copy: a time of day to the second (a footer's "Sent
// 21:26:46"), a date and time with seconds, a UUID, a long run of hex (a request or attachment
// id; a hex-looking word shorter than 16 without ':' or '-', such as a version, "3d" or "ab12",
// stays). Masked before comparing, so a rebuilt payload reads as the message it is; a meeting's
// "10:00" (no seconds) and every other number still count.
//
// It is the regular expression volatilePattern (kept in the tests as the oracle) applied as
// ReplaceAllStringFunc would, written out: each alternative starts with a word boundary and a
// word character, so only word starts are tried, in order, each alternative in the order and
// with the preferences of the expression's. On a production email's kilobytes of text the
// expression's backtracking took a quarter of a scan's time.
func maskVolatile(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is in b, or nothing was replaced
	for p := 0; p < len(s); {
		if !isWordByte(s[p]) || p > 0 && isWordByte(s[p-1]) {
			p++
			continue
		}
		end := volatileAt(s, p)
		if end < 0 {
			for p < len(s) && isWordByte(s[p]) { // the next word start is after this word
				p++
			}
			continue
		}
		if m := s[p:end]; strings.ContainsAny(m, ":-") || len(m) >= 16 {
			if b.Len() == 0 && last == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:p])
			b.WriteString(" volatile ")
			last = end
		}
		p = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func isHexByte(c byte) bool { return isDigitByte(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// byteAt is s[i], or 0 past its end.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// run reports whether s[i:i+n] are n bytes that ok accepts.
func run(s string, i, n int, ok func(byte) bool) bool {
	if i+n > len(s) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !ok(s[k]) {
			return false
		}
	}
	return true
}

// wordBoundary reports whether i is a word boundary of s (\b).
func wordBoundary(s string, i int) bool {
	return (i > 0 && isWordByte(s[i-1])) != (i < len(s) && isWordByte(s[i]))
}

// volatileAt is the end of the volatile value starting at the word start p, -1 for none: the
// expression's alternatives in its order (a date and time, a time, a UUID, a hex word).
func volatileAt(s string, p int) int {
	if e := dateTimeAt(s, p); e >= 0 {
		return e
	}
	if e := timeAt(s, p); e >= 0 {
		return e
	}
	if run(s, p, 8, isHexByte) && byteAt(s, p+8) == '-' && run(s, p+9, 4, isHexByte) && byteAt(s, p+13) == '-' && run(s, p+14, 4, isHexByte) &&
		byteAt(s, p+18) == '-' && run(s, p+19, 4, isHexByte) && byteAt(s, p+23) == '-' && run(s, p+24, 12, isHexByte) &&
		wordBoundary(s, p+36) {
		return p + 36
	}
	// a hex word (the whole word: a boundary inside it is impossible) with a digit before a
	// letter
	q, digit, ok := p, false, false
	for ; q < len(s) && isWordByte(s[q]); q++ {
		c := s[q]
		switch {
		case isDigitByte(c):
			digit = true
		case isHexByte(c):
			ok = ok || digit
		default:
			return -1
		}
	}
	if ok {
		return q
	}
	return -1
}

// fractions are the ends of (?:\.\d+)? at i, in the expression's order of preference.
func fractions(s string, i int) []int {
	if byteAt(s, i) != '.' || !isDigitByte(byteAt(s, i+1)) {
		return []int{i}
	}
	j := i + 1
	for j < len(s) && isDigitByte(s[j]) {
		j++
	}
	out := make([]int, 0, j-i)
	for k := j; k > i+1; k-- {
		out = append(out, k)
	}
	return append(out, i)
}

// dateTimeAt matches \d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:z|[+-]\d{2}:?\d{2})?\b at p.
func dateTimeAt(s string, p int) int {
	if !run(s, p, 4, isDigitByte) || byteAt(s, p+4) != '-' || !run(s, p+5, 2, isDigitByte) || byteAt(s, p+7) != '-' ||
		!run(s, p+8, 2, isDigitByte) {
		return -1
	}
	if c := byteAt(s, p+10); c != 't' && c != 'T' && c != ' ' {
		return -1
	}
	i := p + 11
	if !run(s, i, 2, isDigitByte) || byteAt(s, i+2) != ':' || !run(s, i+3, 2, isDigitByte) || byteAt(s, i+5) != ':' ||
		!run(s, i+6, 2, isDigitByte) {
		return -1
	}
	for _, f := range fractions(s, i+8) {
		var zones [4]int
		zs := zones[:0]
		switch c := byteAt(s, f); {
		case c == 'z' || c == 'Z':
			zs = append(zs, f+1)
		case (c == '+' || c == '-') && run(s, f+1, 2, isDigitByte):
			if byteAt(s, f+3) == ':' && run(s, f+4, 2, isDigitByte) {
				zs = append(zs, f+6)
			}
			if run(s, f+3, 2, isDigitByte) {
				zs = append(zs, f+5)
			}
		}
		for _, z := range append(zs, f) {
			if wordBoundary(s, z) {
				return z
			}
		}
	}
	return -1
}

// timeAt matches \d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b at p.
func timeAt(s string, p int) int {
	for _, n := range [2]int{2, 1} {
		if !run(s, p, n, isDigitByte) {
			continue
		}
		i := p + n
		if byteAt(s, i) != ':' || !run(s, i+1, 2, isDigitByte) || byteAt(s, i+3) != ':' || !run(s, i+4, 2, isDigitByte) {
			continue
		}
		for _, f := range fractions(s, i+6) {
			if wordBoundary(s, f) {
				return f
			}
		}
	}
	return -1
}

// signature tokenises a text: HTML tags dropped, letters and digits kept, case folded, and
// regenerated values (maskVolatile) masked.
func signature(s string) textSig {
	s = maskVolatile(s)
	masked := s
	var norm strings.Builder
	var words, nums, names []string
	var tok strings.Builder
	digits := false
	sentence := true // the next word starts a sentence
	capital := false // the word being read started with a capital letter
	flush := func() {
		if tok.Len() == 0 {
			return
		}
		w := strings.TrimSuffix(tok.String(), "'s") // Friday's: Friday
		tok.Reset()
		if digits {
			nums = append(nums, normNumber(w))
		} else {
			if utf8.RuneCountInString(w) >= 2 && !stopword(w) {
				if capital && !sentence {
					names = append(names, w)
				} else {
					words = append(words, stem(w))
				}
			}
			sentence = false
		}
		capital = false
	}
	inTag := false
	space := false
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == '<' && i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || rs[i+1] == '/'):
			inTag = true
			flush()
			digits = false
			sentence = true // a paragraph or line break
			continue
		case inTag:
			if r == '>' {
				inTag = false
			}
			continue
		}
		if tok.Len() == 0 && unicode.IsUpper(r) {
			capital = true
		}
		switch r {
		case '.', '!', '?', '\n', ':', ';':
			if !(r == '.' && digits && i+1 < len(rs) && unicode.IsDigit(rs[i+1])) {
				flush()
				digits = false
				sentence = true
			}
		}
		r = unicode.ToLower(r)
		if unicode.IsSpace(r) {
			space = norm.Len() > 0
		} else {
			if space {
				norm.WriteByte(' ')
				space = false
			}
			norm.WriteRune(r)
		}
		isDigit := unicode.IsDigit(r)
		switch {
		case isDigit:
			if !digits {
				flush()
			}
			digits = true
			tok.WriteRune(r)
		case digits && (r == '.' || r == ',') && i+1 < len(rs) && unicode.IsDigit(rs[i+1]):
			tok.WriteRune(r)
		case unicode.IsLetter(r):
			if digits {
				flush()
				digits = false
			}
			tok.WriteRune(r)
		case (r == '\'' || r == '’') && tok.Len() > 0 && !digits && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			tok.WriteRune('\'') // don't, it's: one word
		default:
			flush()
			digits = false
		}
	}
	flush()
	slices.Sort(words)
	slices.Sort(nums)
	slices.Sort(names)
	return textSig{
		norm:   norm.String(),
		words:  slices.Compact(words),
		nums:   slices.Compact(nums),
		names:  slices.Compact(names),
		masked: masked,
	}
}

// signatureOf is what similarity reads of split arguments: their free text's signature, whose
// facts are an email's subject's too (the subject is compared beside the text, not in it).
func signatureOf(ea effectArgs) textSig {
	sig := signature(ea.rawText)
	if ea.subject != "" {
		sig.masked = maskVolatile(ea.subject) + "\n" + sig.masked
	}
	return sig
}

// stem drops the English inflections rewording changes most (deploy, deploys, deployed,
// deploying), so that they count as one word. It is not a full stemmer and need not be: both
// texts go through it.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			w = w[:len(w)-len(suf)]
			if n := len(w); n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiousl", rune(w[n-1])) {
				w = w[:n-1] // shipped, shipping: ship
			}
			return w
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		return w[:len(w)-1] // move and moving, expire and expired
	}
	return w
}

// normNumber writes 1,250.00 and 1250 alike.
func normNumber(w string) string {
	w = strings.ReplaceAll(w, ",", "")
	if i := strings.IndexByte(w, '.'); i >= 0 {
		w = strings.TrimRight(w, "0")
		w = strings.TrimSuffix(w, ".")
	}
	return w
}

// similarity of two free texts in [0, 1]; see the package's near-duplicate rule.
func similarity(a, b textSig) float64 {
	if a.norm == b.norm {
		return 1
	}
	if !sameFacts(a, b) {
		return 0
	}
	// A name that starts a sentence in one text ("Dana, we shipped") is a word there: it is
	// a fact already compared, not a content word.
	aw, bw := withoutNames(a.words, a, b), withoutNames(b.words, a, b)
	if len(aw) == 0 || len(bw) == 0 {
		return 0 // names and numbers alike, nothing else to compare
	}
	common := 0
	for i, j := 0, 0; i < len(aw) && j < len(bw); {
		switch c := strings.Compare(aw[i], bw[j]); {
		case c == 0:
			common++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	// Texts that differ only in words left out (greetings, function words) share every
	// content word: still reworded, never "identical" (1 is kept for equal texts).
	return min(2*float64(common)/float64(len(aw)+len(bw)), 0.99)
}

// sameFacts: equal numbers, and each text's names occur in the other.
func sameFacts(a, b textSig) bool {
	return slices.Equal(a.nums, b.nums) && among(a.names, b) && among(b.names, a)
}

// anchored: the texts carry the same facts, at least one number and minFacts in all; after a
// failed attempt such a text sent again is the same message however it is worded.
func anchored(a, b textSig) bool {
	return len(a.nums) > 0 && len(a.nums)+len(a.names) >= minFacts && sameFacts(a, b)
}

// withoutNames drops the words that are names in either text.
func withoutNames(words []string, a, b textSig) []string {
	out := words[:0:0]
	for _, w := range words {
		_, na := slices.BinarySearch(a.names, w)
		_, nb := slices.BinarySearch(b.names, w)
		if !na && !nb {
			out = append(out, w)
		}
	}
	return out
}

// among: every one of names occurs in the other text, as a name or as a word.
func among(names []string, other textSig) bool {
	for _, n := range names {
		_, name := slices.BinarySearch(other.names, n)
		_, word := slices.BinarySearch(other.words, stem(n))
		if !name && !word {
			return false
		}
	}
	return true
}

// matchWords says what the members of a group share: "identical arguments", or the identifying
// arguments and how similar their text is.
func matchWords(ea effectArgs, sim float64) string {
	if sim >= 1 {
		return "identical arguments"
	}
	if ea.pinned && sim <= PinnedSimilarity {
		return pinnedWords(ea)
	}
	if sim <= FactsSimilarity {
		return factsWords(ea)
	}
	keys := ea.keys
	more := ""
	if len(keys) > 4 {
		keys, more = keys[:4], ", …"
	}
	same := "same " + strings.Join(keys, ", ") + more
	if len(keys) == 0 {
		same = "no identifying arguments"
	}
	return fmt.Sprintf("%s; %s reworded, %.0f%% similar (numbers and names equal)", same, strings.Join(ea.textKeys, "/"), 100*sim)
}

// pinnedWords says what a group joined by its pinned target alone shares: "same attendees,
// start_datetime (the target); summary, description written anew".
func pinnedWords(ea effectArgs) string {
	written := "the words"
	if len(ea.textKeys) > 0 {
		written = strings.Join(ea.textKeys, ", ")
	}
	return fmt.Sprintf("same %s (the target's own facts); %s written anew", strings.Join(ea.keys, ", "), written)
}

// factsWords says what a group joined by its facts alone shares: "same recipient_email and
// order A78274, 1Z999AA1…, date 03-14; the text in other words or another language".
func factsWords(ea effectArgs) string {
	keys := ea.keys
	if len(keys) > 3 {
		keys = keys[:3]
	}
	same := "same " + strings.Join(keys, ", ")
	if len(keys) == 0 {
		same = "same"
	}
	var fs []string
	sig := signatureOf(ea)
	for _, f := range sig.factsOf() {
		kind, v, _ := strings.Cut(f, ":")
		if len(v) > 14 {
			v = v[:12] + "…"
		}
		switch kind {
		case "D":
			v = "date " + v
		case "T":
			v = "time " + v
		}
		fs = append(fs, v)
		if len(fs) == 4 {
			break
		}
	}
	texts := ea.textKeys
	if ea.subject != "" {
		texts = append(slices.Clip(texts), "subject")
	}
	return fmt.Sprintf("%s and %s; %s written in other words or another language", same, strings.Join(fs, ", "), strings.Join(texts, "/"))
}

// stopword: common English function words, greetings and sign-offs, which rewording adds and
// drops freely.
func stopword(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at", "for",
		"by", "with", "from", "as", "into", "about", "up", "out", "over", "is", "are", "was", "were",
		"be", "been", "being", "am", "do", "does", "did", "have", "has", "had", "will", "would",
		"shall", "should", "can", "could", "may", "might", "must", "it", "its", "this", "that",
		"these", "those", "there", "here", "which", "who", "what", "when", "where", "how", "why",
		"we", "you", "your", "yours", "our", "ours", "me", "my", "mine", "us", "he", "she", "they",
		"them", "their", "his", "her", "i", "not", "no", "yes", "also", "very", "any", "all",
		"some", "please", "kindly", "let", "know", "now", "again", "still", "yet", "only", "just",
		"hi", "hello", "hey", "dear", "thanks", "thank", "regards", "best", "cheers", "sincerely",
		"kind", "warm", "feel", "free", "reach", "find", "re", "fw", "fwd",
		"don't", "doesn't", "didn't", "isn't", "aren't", "won't", "can't", "it's", "we're", "i'm",
		"let's", "you're", "we've", "there's", "that's", "i've", "we'll", "you'll":
		return true
	}
	return false
}
