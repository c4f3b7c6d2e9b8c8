package triage

import (
	"strings"

	"github.com/exectriage/exectriage/model"
)

// effect names what a tool does, for reasons: "the email" + "sent".
type effect struct {
	read   bool
	noun   string // "the email"; "" when unknown
	done   string // "sent"; "" when unknown
	plural bool
}

// effectOf derives the effect from the slug: the verb gives the participle, the words after it
// (articles, prepositions and the toolkit's own name dropped) give the noun.
// GMAIL_SEND_EMAIL → the email / sent; SLACK_SENDS_A_MESSAGE_TO_A_CHANNEL → the message /
// posted; GMAIL_REPLY_TO_THREAD → the reply / sent; LINEAR_CREATE_LINEAR_ISSUE → the issue.
func effectOf(slug string, kind model.ToolKind) effect {
	if kind == model.KindRead {
		return effect{read: true}
	}
	toks := SlugTokens(slug)
	verb, at := SlugVerb(slug)
	fx := effect{done: participle(verb)}
	if at < 0 {
		return fx
	}
	var words []string
	for _, t := range toks[at+1:] {
		if isPreposition(t) {
			break
		}
		if t == "A" || t == "AN" || t == "THE" || t == "NEW" || (len(toks) > 0 && t == toks[0]) {
			continue
		}
		words = append(words, strings.ToLower(t))
	}
	switch {
	case len(words) > 0 && len(words) <= 3:
		fx.noun = "the " + strings.Join(words, " ")
		fx.plural = strings.HasSuffix(words[len(words)-1], "s") && !strings.HasSuffix(words[len(words)-1], "ss")
	case len(words) == 0 && verb == "REPLY":
		fx.noun = "the reply"
	case len(words) == 0 && verb == "COMMENT":
		fx.noun = "the comment"
	}
	if fx.done == "sent" && len(toks) > 0 && isChat(toks[0]) && strings.HasPrefix(fx.noun, "the message") {
		fx.done = "posted" // a chat message is posted to a channel, not sent
	}
	return fx
}

func isChat(toolkit string) bool {
	switch toolkit {
	case "SLACK", "SLACKBOT", "DISCORD", "DISCORDBOT", "MICROSOFTTEAMS", "TEAMS", "TELEGRAM", "MATTERMOST":
		return true
	}
	return false
}

func isPreposition(t string) bool {
	switch t {
	case "TO", "IN", "ON", "FOR", "FROM", "OF", "WITH", "BY", "INTO", "AS", "AT", "VIA", "AND":
		return true
	}
	return false
}

func participle(verb string) string {
	switch verb {
	case "":
		return ""
	case "SEND", "REPLY", "FORWARD", "SUBMIT":
		return "sent"
	case "POST":
		return "posted"
	case "PUT", "SET", "RESET":
		return strings.ToLower(verb)
	case "RUN":
		return "run"
	case "UPSERT":
		return "written"
	case "WRITE":
		return "written"
	case "PIN", "UNPIN":
		return strings.ToLower(verb) + "ned"
	case "STAR", "UNSTAR":
		return strings.ToLower(verb) + "red"
	case "STOP":
		return "stopped"
	case "CANCEL":
		return "cancelled"
	case "EMPTY":
		return "emptied"
	case "COPY":
		return "copied"
	case "COMMENT":
		return "posted"
	}
	v := strings.ToLower(verb)
	if strings.HasSuffix(v, "e") {
		return v + "d"
	}
	return v + "ed"
}

func (f effect) was() string {
	if f.plural {
		return "were"
	}
	return "was"
}

// maybe: "the email may have been sent".
func (f effect) maybe() string {
	if f.read {
		return "a read, safe to run again"
	}
	if f.noun == "" || f.done == "" {
		return "the action may have taken effect"
	}
	return f.noun + " may have been " + f.done
}

// sawTimeout: "the caller saw a timeout but the email was sent".
func (f effect) sawTimeout() string {
	if f.read {
		return "the caller saw a timeout; a read, safe to run again"
	}
	if f.noun == "" || f.done == "" {
		return "the caller saw a timeout but the action took effect"
	}
	return "the caller saw a timeout but " + f.noun + " " + f.was() + " " + f.done
}

// likelyNot: "the email was likely not sent; verify before retrying".
func (f effect) likelyNot() string {
	if f.read {
		return "a read, safe to run again later"
	}
	if f.noun == "" || f.done == "" {
		return "likely not executed; verify before retrying"
	}
	return f.noun + " " + f.was() + " likely not " + f.done + "; verify before retrying"
}

// notProved: "the email was not sent", as what an error does not prove.
func (f effect) notProved() string {
	if f.noun == "" || f.done == "" {
		return "the action did not take effect"
	}
	return f.noun + " " + f.was() + " not " + f.done
}

// not: "the email was not sent".
func (f effect) not() string {
	if f.read {
		return "a read"
	}
	if f.noun == "" || f.done == "" {
		return "the action did not take effect"
	}
	return f.noun + " " + f.was() + " not " + f.done
}
