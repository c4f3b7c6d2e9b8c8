package triage

import "regexp"

// What an error text says of the write's own effect. A refusal word proves nothing took effect
// only when it refuses the whole write: a text that says part of it took effect ("1 of 3
// recipients rejected", "3 rows inserted, 2 failed validation", "message sent to the others",
// "failed after the file was uploaded") says the write happened in part, whatever it refuses, so
// it is unclear (the part that went must not be sent again). A text that says in words that none
// of it took effect ("No rows inserted", "nothing was sent", "0 of 3 recipients accepted") is a
// refusal of the whole.

// effectDone is a past participle that says a write's effect took place.
const effectDone = `(sent|created|inserted|posted|uploaded|delivered|saved|added|updated|scheduled|published|charged|booked|` +
	`shared|applied|accepted|written|moved|copied|imported)`

// partDone finds, in a (lower-case) error text, the words that say part of the write took
// effect: a count of what was done ("3 rows inserted"), what was done said of the thing made
// ("message sent", "the file was uploaded", "the others were created"), sent to the others or the
// rest, or a part named as such (2 of 5, partially, some recipients, the rest). A negated effect
// ("was not sent", "could not be created", "already sent": a previous attempt's) does not match:
// the participle must follow its subject or its verb at once.
var partDone = regexp.MustCompile(`\b[1-9][0-9]* (of|out of) [0-9]+\b|\bpartial(ly)?\b|` +
	`\bsome (of the )?(recipients|rows|messages|records|items|files|events|contacts|members|attachments)\b|` +
	`\b[1-9][0-9]* ([a-z]+ ){0,2}` + effectDone + `\b|` +
	`\b(was|were|been|is|are|got) (successfully )?` + effectDone + `\b|` +
	`\b(message|email|mail|file|row|rows|event|record|issue|page|post|comment|task|contact|invoice|refund|payment) ` + effectDone +
	`\b|\b` + effectDone + ` to (the )?(others|rest|remaining)\b`)

// noneDone finds the words that say none of the write took effect: a count of zero, "no"
// or "nothing" before the participle ("No rows inserted", "nothing was sent", "0 of 3 recipients
// accepted").
var noneDone = regexp.MustCompile(`\b(no|nothing|none|0) (of [0-9]+ )?([a-z]+ ){0,2}(was |were |has been |have been )?` + effectDone + `\b`)

// partEffect says what in an error text says part of the write took effect, "" when nothing
// does or the text says none of it did.
func partEffect(low string) string {
	if noneDone.MatchString(low) {
		return ""
	}
	return partDone.FindString(low)
}

// noEffect says what in an error text says none of the write took effect, "" for nothing.
func noEffect(low string) string { return noneDone.FindString(low) }
