package triage

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Argument roles read from a tool's definition. What names the target of a write (pinned.go)
// is read from the arguments' names and values for any tool; a tool whose definition is known
// also says it in its input schema: a property's format (email, date-time), its type (a list
// of addresses), and the words of its description ("the email address of the contact", "when
// the meeting starts", "the people to invite", "the title of the event"). A role read there
// wins over the name's guess, for any tool, whatever it calls its arguments; a property the
// schema says nothing of is left to the name.

// Role is what one argument is to the target of a write.
type Role uint8

const (
	RoleNone       Role = iota // the schema says nothing of it: the name decides
	RoleStart                  // when an event starts
	RolePeople                 // the people an event gathers
	RoleOwnAddress             // the target's own email address or phone number (a contact's)
	RoleRecipient              // whom a message goes to: not the target's own
	RoleLabel                  // words that name the target (a title, a name, a subject)
	RoleMessage                // a message to someone (its body)
	RoleAccount                // the account the call runs as ("the authenticated user"): not the target
)

// Roles are the roles of a tool's arguments, by argument name as the schema writes it.
type Roles map[string]Role

// RolesOf reads the roles of a tool's top-level arguments from its input schema (a JSON Schema
// object with properties); nil when it says none. created names what the tool creates, one new
// record each call (its slug's nouns after a create verb: "contact" for CRM_CREATE_CONTACT;
// none for a tool that creates nothing): only an address the schema says is that record's own
// ("the contact's email address", "email address of the contact") is its identity, since a CRM
// keeps one contact per address and creating it again is the same intent. An owner's or an
// invitee's address is another person's, and a tool that acts on a person (adds an alias,
// suspends them, shares a file with them) carries its effect in its other arguments, which must
// not turn into words.
func RolesOf(inputParameters json.RawMessage, created []string) Roles {
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(inputParameters) == 0 || json.Unmarshal(inputParameters, &schema) != nil {
		return nil
	}
	var out Roles
	for name, raw := range schema.Properties {
		var p property
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		r := p.role(created)
		if r != RoleNone {
			if out == nil {
				out = Roles{}
			}
			out[name] = r
		}
	}
	return out
}

// property is what a role is read from in one property of a JSON Schema.
type property struct {
	Type        any    `json:"type"` // a name, or a list of names
	Format      string `json:"format"`
	Description string `json:"description"`
	Title       string `json:"title"`
	Items       *struct {
		Type       any                        `json:"type"`
		Format     string                     `json:"format"`
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"items"`
}

// is says whether the property's type is name (or a list holding it).
func (p *property) is(name string) bool {
	switch t := p.Type.(type) {
	case string:
		return t == name
	case []any:
		for _, x := range t {
			if x == name {
				return true
			}
		}
	}
	return false
}

// role reads the property's role: the account first (a call's own user is no target), then a
// message, whom it goes to, the people of an event, when it starts, a target's own address,
// its labels.
func (p *property) role(created []string) Role {
	d := strings.ToLower(p.Description + " " + p.Title)
	format := strings.ToLower(p.Format)
	addresses := p.Items != nil && (strings.EqualFold(p.Items.Format, "email") || p.Items.Properties["email"] != nil)
	switch {
	case hasAny(d, "authenticated user", "the connected account", "'me'", "\"me\"", "in whose account", "whose mailbox"):
		return RoleAccount
	case hasAny(d, "body of the", "message body", "body content", "text of the message", "content of the message",
		"message text", "the message to send", "message to post"):
		return RoleMessage
	case hasAny(d, "recipient", "send to", "sent to", "carbon copy", "cc ", "bcc"):
		return RoleRecipient
	case p.is("array") && (addresses || hasAny(d, "attendee", "guest", "participant", "invitee", "people to invite")):
		return RolePeople
	case (format == "date-time" || format == "date" || hasAny(d, "iso 8601", "rfc 3339", "rfc3339", "timestamp", "date and time")) &&
		hasAny(d, "start", "begin"):
		return RoleStart
	case p.is("string") && ownAddress(d, created):
		return RoleOwnAddress
	case p.is("string") && hasAny(d, "title of", "the title", "subject line", "summary of the", "display name"):
		return RoleLabel
	}
	return RoleNone
}

// ownAddress says whether a description names the email address or phone of the record the
// tool creates (created: its nouns): "the contact's email address", "email address of the new
// contact" (not a billing or recovery address, nor an owner's).
func ownAddress(d string, created []string) bool {
	if !hasAny(d, "email", "e-mail", "phone") {
		return false
	}
	for _, who := range created {
		q := regexp.QuoteMeta(who)
		// "the contact's (primary) email", "email (address) of the (new) contact"
		re := regexp.MustCompile(`\b` + q + `'s (\w+ ){0,2}(email|e-mail|phone)|(email|e-mail|phone)( \w+){0,2} (of|for) (the |a |this )?(new )?` +
			q + `\b`)
		if re.MatchString(d) {
			return true
		}
	}
	return false
}

// Created is what a tool creates, named by its slug: the nouns after a create verb, singular
// and lower case ("contact" for HUBSPOT_CREATE_CONTACT, "user" for GOOGLE_ADMIN_CREATE_USER);
// nil for a tool that creates nothing.
func Created(slug string) []string {
	verb, at := SlugVerb(slug)
	if !strings.EqualFold(verb, "create") || at < 0 {
		return nil
	}
	toks := SlugTokens(slug)
	nouns := toks[at+1:]
	if len(nouns) == 0 { // COURSES_CREATE: the nouns come first, after the toolkit
		nouns = toks[min(1, at):at]
	}
	var out []string
	for _, t := range nouns {
		t = strings.ToLower(t)
		if t == "a" || t == "an" || t == "new" || t == "the" {
			continue
		}
		out = append(out, strings.TrimSuffix(t, "s"))
	}
	return out
}

// hasAny says whether s contains one of words.
func hasAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
