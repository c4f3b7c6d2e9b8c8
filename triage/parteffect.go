package triage

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// What an error text says of the write's own effect. A refusal word proves nothing took effect
// only when it refuses the whole write: a text that says part of it took effect ("1 of 3
// recipients rejected", "3 rows inserted, 2 failed validation", "message sent to the others",
// "failed after the file was uploaded") says the write happened in part, whatever it refuses, so
// it is unclear (the part that went must not be sent again). A text that says in words that none
// of it took effect ("No rows inserted", "nothing was sent", "0 of 3 recipients accepted") is a
// refusal of the whole.

// effectDone is a past participle that says a write's effect took place.
const effectDone = `(sent|created|inserted|posted|uploaded|delivered|saved|added|updated|scheduled|published|charged|booked|` +
	`shared|applied|accepted|written|moved|copied|imported|queued)`

// partDone finds, in a (lower-case) error text, the words that say part of the write took
// effect: a count of what was done ("3 rows inserted"), what was done said of the thing made
// ("message sent", "the file was uploaded", "the others were created") or after what was done to
// it ("truncated and sent"), sent to the others or the rest, or a part named as such (2 of 5,
// partially, some recipients, the rest). A negated effect
// ("was not sent", "could not be created", "already sent": a previous attempt's) does not match:
// the participle must follow its subject or its verb at once.
var partDone = regexp.MustCompile(`\b[1-9][0-9]* (of|out of) [0-9]+\b|\bpartial(ly)?\b|` +
	`\bsome (of the )?(recipients|rows|messages|records|items|files|events|contacts|members|attachments)\b|` +
	`\b[1-9][0-9]* ([a-z]+ ){0,2}` + effectDone + `\b|` +
	`\b(was|were|been|is|are|got) (successfully )?` + effectDone + `\b|` +
	`\b(message|email|mail|file|row|rows|event|record|issue|page|post|comment|task|contact|invoice|refund|payment) ` + effectDone +
	`\b|\b` + effectDone + ` to (the )?(others|rest|remaining)\b|\b(and|then|but) (was |were )?` + effectDone + `\b`)

// noneDone finds the words that say none of the write took effect: a count of zero, "no"
// or "nothing" before the participle ("No rows inserted", "nothing was sent", "0 of 3 recipients
// accepted").
var noneDone = regexp.MustCompile(`\b(no|nothing|none|0) (of [0-9]+ )?([a-z]+ ){0,2}(was |were |has been |have been )?` + effectDone + `\b`)

// effectDoneIn are the past participles that say a write's effect took place in the languages
// the refusal words are read in (words.go), and the words that negate them there when they come
// one or two words before ("nicht gesendet", "no enviado", "n'a pas été envoyé").
var effectDoneIn = []phraseRow{
	{source: "German", phrases: []string{"gesendet", "versendet", "erstellt", "gespeichert", "hochgeladen", "zugestellt", "veröffentlicht"}},
	{source: "French", phrases: []string{"envoyé", "envoyée", "créé", "créée", "enregistré", "enregistrée", "publié", "publiée", "livré",
		"téléversé"}},
	{source: "Spanish", phrases: []string{"enviado", "enviada", "creado", "creada", "guardado", "guardada", "publicado", "publicada",
		"entregado", "subido"}},
	{source: "Portuguese", phrases: []string{"enviado", "enviada", "criado", "criada", "salvo", "salva", "publicado", "publicada", "entregue"}},
	{source: "Italian", phrases: []string{"inviato", "inviata", "creato", "creata", "salvato", "salvata", "pubblicato", "pubblicata",
		"consegnato", "caricato"}},
}

var effectNegations = map[string]bool{"not": true, "never": true, "no": true, "nicht": true, "nie": true, "kein": true, "keine": true,
	"non": true, "pas": true, "jamais": true, "não": true, "nunca": true, "mai": true}

// partEffect says what in an error text says part of the write took effect, "" when nothing
// does or the text says none of it did.
func partEffect(low string) string {
	if noneDone.MatchString(low) {
		return ""
	}
	for _, at := range partDone.FindAllStringIndex(low, -1) {
		if !beforeClause(low, at[0]) {
			return low[at[0]:at[1]]
		}
	}
	return doneInWords(low)
}

// beforeClause reports whether the words at i sit in a clause that places them later than the
// failure: after "before", "until" or "without" ("closed before the request was sent", "failed
// without being posted"): not done.
func beforeClause(low string, i int) bool {
	start := strings.LastIndexAny(low[:i], ".;:,!?\n") + 1
	clause := low[start:i]
	return HasWord(clause, "before") || HasWord(clause, "until") || HasWord(clause, "without")
}

// doneInWords finds a participle of effectDoneIn said as a word of its own and not negated by
// either of the two words before it.
func doneInWords(low string) string {
	words := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for i, w := range words {
		for _, row := range effectDoneIn {
			if !slices.Contains(row.phrases, w) {
				continue
			}
			negated := false
			for j := max(0, i-2); j < i; j++ {
				_, after, _ := strings.Cut(words[j], "'") // n'a, l'allegato: the word after the elision
				negated = negated || effectNegations[words[j]] || effectNegations[after]
			}
			if !negated {
				return w
			}
		}
	}
	return ""
}

// noEffect says what in an error text says none of the write took effect, "" for nothing.
func noEffect(low string) string { return noneDone.FindString(low) }
