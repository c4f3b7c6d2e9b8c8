package triage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Near-duplicate grouping. Two writes of one tool by one caller are the same action when they
// agree on the arguments that identify the effect (who receives it, where it goes: recipient,
// channel, repository, issue number, a contact's email) and their free text, with its heading
// (a subject, a title), is the same message, possibly reworded: an LLM agent that got a timeout
// calls the tool again with regenerated text.
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
//     all (anchored), however few words they share: the agent that saw an error wrote the
//     message anew but kept what it is about. Two writes of one caller on one target (the
//     bucket: tool, account, identifying arguments) with the same facts, after a failure or
//     an unclear outcome, are one intent however worded.
//
// The threshold was chosen on reworded and on different texts (similar_test.go logs each
// score): names and numbers are left out of the Dice so that a greeting and a signature do
// not make two different messages to one person alike.

// NearDuplicateSimilarity is the least text similarity of two members of one group.
const NearDuplicateSimilarity = 0.65

// minFacts is how many numbers and names, in all, anchor a text.
const minFacts = 3

// FactsSimilarity is the similarity recorded for a text sent again after a failed attempt that
// shares none of its words but all its entities (entities.go), at least minEntities of them:
// the message written again from scratch or in another language ("Seu pedido A-78274 foi
// enviado em 14 de março", then "Your order A-78274 shipped on March 14"). It is below
// NearDuplicateSimilarity, so a group joined this way says so (matchWords).
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

// textKey reports whether a top-level argument name is a message body: one of the names
// Composio's tool schemas give it (GMAIL_SEND_EMAIL body, GMAIL_REPLY_TO_THREAD message_body,
// SLACK_SEND_MESSAGE text and markdown_text, GITHUB_CREATE_AN_ISSUE body, LINEAR description,
// ...), or a name whose last word is one (commit_message, text_content, dismissed_comment,
// output__text, messageBody, hs_note_body: the last word of a compound name is what it is,
// those before qualify it; message_id and comment_id are identifiers), or whose head before a
// preposition is one (note_to_payer, message_for_user: headKeyWord).
func textKey(k string) bool {
	switch strings.ToLower(k) {
	case "body", "message_body", "html_body", "text_body", "text", "markdown_text", "markdown", "message",
		"content", "description", "comment", "note", "notes", "reply", "reply_text", "caption", "commentary":
		return true
	}
	last := headKeyWord(k)
	for _, w := range [...]string{"body", "text", "markdown", "message", "content", "description", "comment", "note", "notes", "reply",
		"caption", "html", "commentary"} {
		if strings.EqualFold(last, w) {
			return true
		}
	}
	return false
}

// headKeyWord is the word an argument name is: its last word, or, when a preposition follows
// the head ("note_to_payer", "message_for_user", "body_of_email"), the last word before the
// first preposition: the words after it qualify the head. A name that is itself a phrase of a
// preposition ("in_reply_to": the message it answers, an identifier), or ends with one
// ("reply_to": an address), has no such head.
func headKeyWord(k string) string {
	// the words as keyWords splits them, read in place: textKey runs on every string argument
	prev, start := "", 0
	for i := 1; i <= len(k); i++ {
		if i < len(k) {
			c, p := k[i], k[i-1]
			if strings.IndexByte("_-.", c) < 0 && !(c >= 'A' && c <= 'Z' && (p >= 'a' && p <= 'z' || p >= '0' && p <= '9')) {
				continue
			}
		}
		w := strings.Trim(k[start:i], "_-.")
		start = i
		if w == "" {
			continue
		}
		switch {
		case !preposition(w):
		case prev == "" || strings.Trim(k[i:], "_-.") == "":
			return lastKeyWord(k) // in_reply_to, reply_to: no head qualified by what follows
		default:
			return prev
		}
		prev = w
	}
	return lastKeyWord(k)
}

// preposition is a word that starts what qualifies the head of a compound name.
func preposition(w string) bool {
	for _, p := range [...]string{"to", "for", "of", "from", "with", "by", "on", "in", "at", "about"} {
		if strings.EqualFold(w, p) {
			return true
		}
	}
	return false
}

// lastKeyWord is the last word of an argument name, as written: split at '_', '-', '.', where
// a lower-case letter or digit meets an upper-case one (messageBody: body), and before the
// last capital of a run followed by a lower-case letter (HTMLBody: body).
func lastKeyWord(k string) string {
	up := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	lowOrDigit := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	start := 0
	for i := 1; i < len(k); i++ {
		switch {
		case strings.IndexByte("_-.", k[i-1]) >= 0 && strings.IndexByte("_-.", k[i]) < 0:
			start = i
		case up(k[i]) && lowOrDigit(k[i-1]), up(k[i]) && up(k[i-1]) && i+1 < len(k) && k[i+1] >= 'a' && k[i+1] <= 'z':
			start = i
		}
	}
	return strings.TrimRight(k[start:], "_-.")
}

// headingKey reports whether an argument is the heading of what a write sends or makes: an
// email's subject, an issue's or a page's title, an event's summary, a record's name. A heading
// names what the message is about, not where it goes (the target is the repository, the
// channel, the recipients): it is kept beside the text (effectArgs.subject), out of the
// identity, so that an agent that rewrote the heading with the body stays in the bucket; a text
// under another heading joins only by its facts (clusterBucket).
func headingKey(k string) bool {
	switch strings.ToLower(k) {
	case "subject", "title", "summary", "name":
		return true
	}
	return false
}

// identityKey reports whether an argument names the target, however long it is.
func identityKey(k string) bool {
	switch strings.ToLower(k) {
	case "recipient_email", "to", "cc", "bcc", "extra_recipients",
		"channel", "channel_id", "thread_id", "thread_ts", "owner", "repo", "issue_number", "email",
		"calendar_id", "start_datetime", "start_time", "parent_id", "page_id", "team_id", "id", "url", "user_id":
		return true
	}
	return false
}

// textSig is what similarity reads of a text.
type textSig struct {
	norm  string   // lower case, tags dropped, whitespace collapsed
	words []string // content words, lower case, sorted, unique
	nums  []string // number tokens, sorted, unique
	names []string // capitalised words not starting a sentence, lower case, sorted, unique
	// states are the states its words report (statePhrases), sorted, unique; nil for most texts
	states []string
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

// signature tokenises a text: HTML tags dropped, letters and digits kept, case folded, links'
// tracking parameters dropped (withoutTrackingIn) and regenerated values (maskVolatile) masked.
func signature(s string) textSig {
	s = maskVolatile(withoutTrackingIn(s))
	masked := s
	var norm strings.Builder
	var words, nums, names, states []string
	var tok strings.Builder
	digits := false
	prev := ""       // the word before (hebrewWeekday reads two)
	sentence := true // the next word starts a sentence
	capital := false // the word being read started with a capital letter
	flush := func() {
		if tok.Len() == 0 {
			return
		}
		w := strings.TrimSuffix(tok.String(), "'s") // Friday's: Friday
		tok.Reset()
		if digits {
			nums = append(nums, numberValue(w))
		} else {
			day := weekdayOf(w)
			if day == 0 {
				day = hebrewWeekday(prev, w)
			}
			prev = w
			switch {
			case day > 0: // a fact in every language, capitalised or not (scripts.go)
				names = append(names, weekdayKey(day))
			case utf8.RuneCountInString(w) >= 2 && !stopword(w):
				if s, ok := stateByWord[strings.ToLower(w)]; ok {
					states = append(states, s)
				}
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
	var run []rune // an unspaced run (scripts.go), compared by its pairs of characters
	endRun := func() {
		words = pairs(run, words)
		run = run[:0]
	}
	inTag := false
	space := false
	rs := []rune(s)
	for i, r := range rs {
		if len(run) > 0 && !unspaced(r) {
			endRun()
		}
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
		case unspaced(r):
			flush()
			digits = false
			run = append(run, r)
		case unicode.IsLetter(r) || unicode.IsMark(r) && tok.Len() > 0 && !digits:
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
	endRun()
	names = weekdaysIn(masked, names)
	slices.Sort(words)
	slices.Sort(nums)
	slices.Sort(names)
	slices.Sort(states)
	return textSig{
		norm:   norm.String(),
		words:  slices.Compact(words),
		nums:   slices.Compact(nums),
		names:  slices.Compact(names),
		states: slices.Compact(states),
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

// similarity of two free texts in [0, 1]; see the package's near-duplicate rule.
func similarity(a, b textSig) float64 {
	if a.norm == b.norm {
		return 1
	}
	if !sameFacts(a, b) && !leavesOutNumbers(a, b) {
		return 0
	}
	// A name that starts a sentence in one text ("Dana, we shipped") is a word there: it is
	// a fact already compared, not a content word.
	aw, bw := withoutNames(a.words, a, b), withoutNames(b.words, a, b)
	if len(aw) == 0 || len(bw) == 0 {
		return 0 // names and numbers alike, nothing else to compare
	}
	common := commonCount(aw, bw)
	// Texts that differ only in words left out (greetings, function words) share every
	// content word: still reworded, never "identical" (1 is kept for equal texts).
	return min(2*float64(common)/float64(len(aw)+len(bw)), 0.99)
}

// leavesOutNumbers: one text carries numbers, the other none, and each one's names occur in
// the other: a text written again without its order number states no fact against it (its
// words still have to be alike: NearDuplicateSimilarity).
func leavesOutNumbers(a, b textSig) bool {
	return (len(a.nums) == 0) != (len(b.nums) == 0) && among(a.names, b) && among(b.names, a)
}

// sameFacts: equal numbers, and each text's names occur in the other.
func sameFacts(a, b textSig) bool {
	return slices.Equal(a.nums, b.nums) && among(a.names, b) && among(b.names, a)
}

// anchored: the texts carry the same facts, at least one number and minFacts in all (a name
// that starts a sentence in one text is a name in the other: "Ingrid, we shipped" and "Good
// news Ingrid"); after a failed attempt such a text sent again is the same message however it
// is worded.
func anchored(a, b textSig) bool {
	return len(a.nums) > 0 && len(a.nums)+unionLen(a.names, b.names) >= minFacts && sameFacts(a, b)
}

// cutDown: one text says nothing the other does not: its numbers (one at least, the one that
// names the thing) are among the other's, its names occur in the other, and so does each of its
// words; and it says enough to be a message (three facts and words at least). After a failed
// attempt a model writing its call again often writes it shorter ("Dana: order 42609 shipped."
// for the full notice); a text that adds a word ("delivered", "cancelled") is another message.
func cutDown(a, b textSig) bool {
	s, l := a, b
	if len(s.words)+len(s.nums)+len(s.names) > len(l.words)+len(l.nums)+len(l.names) {
		s, l = l, s
	}
	return len(s.nums) > 0 && len(s.words)+len(s.nums)+len(s.names) >= minFacts &&
		commonCount(s.nums, l.nums) == len(s.nums) && among(s.names, l) && subset(withoutNames(s.words, s, l), l.words)
}

// statesDiffer: each text reports a state of its thing (statePhrases) and they share none:
// "order 42609 shipped", then "order 42609 delivered" are two messages about one order.
func statesDiffer(a, b textSig) bool {
	return len(a.states) > 0 && len(b.states) > 0 && commonCount(a.states, b.states) == 0
}

// subset: every value of a is in b (both sorted, unique).
func subset(a, b []string) bool { return commonCount(a, b) == len(a) }

// withoutNames drops the words that are names in either text (a word is stemmed, a name is
// not: "Lucas, ..." starting a sentence is the word "luca", the name "lucas" elsewhere).
func withoutNames(words []string, a, b textSig) []string {
	out := words[:0:0]
	for _, w := range words {
		if !isName(w, a.names) && !isName(w, b.names) {
			out = append(out, w)
		}
	}
	return out
}

// isName reports whether the (stemmed) word w is one of names, as written or stemmed.
func isName(w string, names []string) bool {
	if _, ok := slices.BinarySearch(names, w); ok {
		return true
	}
	for _, n := range names {
		if stem(n) == w {
			return true
		}
	}
	return false
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
	written := strings.Join(ea.textKeys, "/")
	if ea.headingKeys != "" {
		written = strings.TrimPrefix(written+"/"+ea.headingKeys, "/")
	}
	return fmt.Sprintf("%s; %s reworded, %.0f%% similar (numbers and names equal)", same, written, 100*sim)
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
		texts = append(slices.Clip(texts), cmp.Or(ea.headingKeys, "subject")) // "": an effect family's (intent.go)
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

// unionLen is how many distinct values two sorted lists hold in all.
func unionLen(a, b []string) int { return len(a) + len(b) - commonCount(a, b) }

// commonCount is how many values two sorted, unique lists share.
func commonCount(a, b []string) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			n++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return n
}

// headingsDiffer reports whether two headings name different things by their facts: each
// carries numbers and they are not the same ("Invoice 1042", "Invoice 1043"), or each names a
// day of the week and not the same day. A heading rewritten keeps its facts or drops them; one
// about another invoice changes them, whatever the bodies share (the bodies' facts are
// compared apart: anchored).
func headingsDiffer(a, b *bucketMember) bool {
	if a.subject == b.subject || a.subject == "" || b.subject == "" {
		return false
	}
	ha, hb := a.heading, b.heading
	if len(ha.sig.nums) > 0 && len(hb.sig.nums) > 0 && !slices.Equal(ha.sig.nums, hb.sig.nums) {
		return true
	}
	return len(ha.days) > 0 && len(hb.days) > 0 && !slices.Equal(ha.days, hb.days)
}

// headingFacts are what headingsDiffer compares of a heading: its signature (its numbers among
// its words), which a write made of its heading alone is compared by too (headingsAnchored), and
// its days of the week.
type headingFacts struct {
	sig  textSig
	days []string
}

// headingFactsOf reads a heading's facts once, when its member is made ("" has none).
func headingFactsOf(h string) headingFacts {
	if h == "" {
		return headingFacts{}
	}
	s := signature(h)
	return headingFacts{sig: s, days: weekdayNames(s.names)}
}

// headingsSameFacts: two headings over bodies, written differently, that carry the same facts, a
// number among them ("Search returns stale results for invoice 8812", "Stale search results
// (query: invoice 8812)"). Writes of a heading alone are compared by headingsAnchored.
func headingsSameFacts(a, b *bucketMember) bool {
	if a.bodyless || b.bodyless || a.subject == "" || b.subject == "" {
		return false
	}
	x, y := a.heading.sig, b.heading.sig
	return len(x.nums) > 0 && sameFacts(x, y)
}

// A heading alone is short: the same number and name (or two numbers) in two headings name one
// thing (minHeadingFacts); with a number alone, half their words must be the same too
// (minHeadingWords: "Fix payments export for account 84989" and "Account 84989: payments exports
// failing" are one card, "Close account 84989" another).
const (
	minHeadingFacts = 2
	minHeadingWords = 0.5
)

// headingsAnchored: two writes made of their headings alone (a card, a task of a title: no
// text) whose headings carry the same facts, a number among them, and minHeadingFacts in all or
// minHeadingWords of their words. After a failed attempt a heading written anew ("Refund order
// 42609 for Dana", "Dana: refund order 42609") names the same thing, as a body written anew
// does (anchored).
func headingsAnchored(a, b *bucketMember) bool {
	if !a.bodyless || !b.bodyless {
		return false
	}
	x, y := a.heading.sig, b.heading.sig
	if len(x.nums) == 0 || !sameFacts(x, y) {
		return false
	}
	return len(x.nums)+unionLen(x.names, y.names) >= minHeadingFacts || similarity(x, y) >= minHeadingWords
}

// weekdayNames are the days of the week among a signature's names (W: keys, sorted).
func weekdayNames(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, "W:") {
			out = append(out, n)
		}
	}
	return out
}
