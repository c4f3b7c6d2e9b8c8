package sandbox

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// param is one input parameter of a tool, rendered into a JSON schema like Composio's.
type param struct {
	name     string
	typ      string // string, integer, boolean, array (of strings), objects (array of objects)
	required bool
	desc     string
	def      any
}

// toolDef is a simulated tool: its catalog entry and how it runs.
type toolDef struct {
	slug, name, desc string
	toolkit          string // slug: gmail, slack, github, hubspot
	tags             []string
	params           []param
	write            bool // changes provider state (an Effect when it commits)
	run              func(w *world, c *call) opResult
	input, output    json.RawMessage
	version          string
}

type toolkitDef struct{ slug, name, logo, version string }

// toolkitDefs lists the simulated toolkits.
func toolkitDefs() []toolkitDef {
	return []toolkitDef{
		{"gmail", "Gmail", "https://logos.composio.dev/api/gmail", "20250909_00"},
		{"slack", "Slack", "https://logos.composio.dev/api/slack", "20250911_00"},
		{"github", "GitHub", "https://logos.composio.dev/api/github", "20250905_00"},
		{"hubspot", "HubSpot", "https://logos.composio.dev/api/hubspot", "20250902_00"},
	}
}

func toolkitOf(slug string) (toolkitDef, bool) {
	for _, t := range toolkitDefs() {
		if t.slug == slug {
			return t, true
		}
	}
	return toolkitDef{}, false
}

// catalog is the immutable set of tools a server offers, built once per server.
type catalog struct {
	tools  []*toolDef // sorted by slug
	bySlug map[string]*toolDef
}

func (c *catalog) get(slug string) (*toolDef, bool) {
	t, ok := c.bySlug[strings.ToUpper(strings.TrimSpace(slug))]
	return t, ok
}

func newCatalog() *catalog {
	s := func(name, desc string, required bool) param {
		return param{name: name, typ: "string", required: required, desc: desc}
	}
	i := func(name, desc string, def any) param { return param{name: name, typ: "integer", desc: desc, def: def} }
	b := func(name, desc string, def bool) param {
		return param{name: name, typ: "boolean", desc: desc, def: def}
	}
	a := func(name, desc string) param { return param{name: name, typ: "array", desc: desc} }
	me := param{name: "user_id", typ: "string", desc: "The user's email address or 'me' for the authenticated user.", def: "me"}
	// every tool carries one of Composio's four kind tags (readOnlyHint, createHint,
	// updateHint, destructiveHint; docs/platform.md, "Tools and their kinds"), idempotentHint only where a
	// definition still does
	read := []string{"readOnlyHint", "openWorldHint"}

	defs := []*toolDef{
		{slug: "GMAIL_SEND_EMAIL", name: "Send Email", toolkit: "gmail", write: true, tags: []string{"important", "createHint"},
			desc: "Sends an email via the Gmail API using the authenticated user's profile. At least one of recipient_email, cc or bcc, " +
				"and subject or body, must be given.",
			params: []param{s("recipient_email", "Primary recipient's email address.", true), s("subject", "Subject line of the email.",
				false),
				s("body", "Email content (plain text or HTML when is_html is true).", true), a("cc",
					"Carbon copy recipients' email addresses."),
				a("bcc", "Blind carbon copy recipients' email addresses."), b("is_html", "Set to true when the body is HTML.", false),
				s("from_email", "Send-as alias to use as the sender; defaults to the account's address.", false), me},
			run: (*world).gmailSend},
		{slug: "GMAIL_REPLY_TO_THREAD", name: "Reply to email thread", toolkit: "gmail", write: true, tags: []string{"createHint"},
			desc: "Sends a reply within a specific Gmail thread, using the thread's subject.",
			params: []param{s("thread_id", "Identifier of the Gmail thread to reply to.", true), s("message_body",
				"Content of the reply.", true),
				s("recipient_email", "Email address of the recipient.", true), a("cc", "Carbon copy recipients."), a("bcc",
					"Blind carbon copy recipients."),
				b("is_html", "Set to true when message_body is HTML.", false), me},
			run: (*world).gmailReply},
		{slug: "GMAIL_CREATE_EMAIL_DRAFT", name: "Create email draft", toolkit: "gmail", write: true, tags: []string{"createHint"},
			desc: "Creates a Gmail email draft; the draft is not sent.",
			params: []param{s("recipient_email", "Primary recipient's email address.", true), s("subject", "Subject line of the draft.",
				true),
				s("body", "Draft content.", true), a("cc", "Carbon copy recipients."), a("bcc", "Blind carbon copy recipients."),
				b("is_html", "Set to true when the body is HTML.", false), s("thread_id", "Thread to place the draft in (a reply draft).",
					false), me},
			run: (*world).gmailDraft},
		{slug: "GMAIL_FETCH_EMAILS", name: "Fetch emails", toolkit: "gmail", tags: read,
			desc: "Fetches a list of email messages from a Gmail account, newest first, with Gmail search syntax (to:, from:, " +
				"subject:\"...\", label:, in:sent, is:unread, after:, before:, newer_than:, plain words).",
			params: []param{s("query", "Gmail advanced search query.", false), i("max_results",
				"Maximum number of messages to return (1-500).", 10),
				a("label_ids", "Only messages carrying all these label ids (e.g. INBOX, SENT, UNREAD)."), s("page_token",
					"Token of the page to return.", false),
				b("include_spam_trash", "Include SPAM and TRASH messages.", false), b("verbose",
					"Return full message text; false returns metadata only.", true),
				b("ids_only", "Return only message and thread ids.", false), me},
			run: (*world).gmailFetch},
		{slug: "GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID", name: "Fetch message by message ID", toolkit: "gmail", tags: read,
			desc:   "Fetches one Gmail message by id. A deleted message answers 404 Not Found.",
			params: []param{s("message_id", "The message id.", true), s("format", "full, minimal, raw or metadata.", false), me},
			run:    (*world).gmailFetchByID},
		{slug: "GMAIL_FETCH_MESSAGE_BY_THREAD_ID", name: "Fetch messages by thread ID", toolkit: "gmail", tags: read,
			desc:   "Fetches every message of one Gmail thread, oldest first.",
			params: []param{s("thread_id", "The thread id.", true), s("page_token", "Token of the page to return.", false), me},
			run:    (*world).gmailFetchThread},
		{slug: "GMAIL_LIST_DRAFTS", name: "List drafts", toolkit: "gmail", tags: read,
			desc: "Lists the account's email drafts, newest first.",
			params: []param{i("max_results", "Maximum number of drafts to return (1-500).", 10), s("page_token",
				"Token of the page to return.", false),
				me},
			run: (*world).gmailListDrafts},
		{slug: "GMAIL_ADD_LABEL_TO_EMAIL", name: "Modify email labels", toolkit: "gmail", write: true, tags: []string{"updateHint",
			"idempotentHint"},
			desc: "Adds and/or removes label ids on one Gmail message; adding a label it already has changes nothing.",
			params: []param{s("message_id", "Id of the message to modify.", true), a("add_label_ids",
				"Label ids to add (e.g. STARRED, IMPORTANT, Label_Invoices)."),
				a("remove_label_ids", "Label ids to remove (e.g. UNREAD, INBOX)."), me},
			run: (*world).gmailLabel},
		{slug: "GMAIL_DELETE_MESSAGE", name: "Delete message", toolkit: "gmail", write: true, tags: []string{"destructiveHint"},
			desc:   "Permanently deletes one Gmail message; it cannot be recovered.",
			params: []param{s("message_id", "Id of the message to delete.", true), me},
			run:    (*world).gmailDelete},
		{slug: "SLACK_SEND_MESSAGE", name: "Send message to channel", toolkit: "slack", write: true, tags: []string{"important",
			"createHint"},
			desc: "Posts a message to a Slack channel, private channel or DM by id or #name. One of text, markdown_text or blocks is " +
				"required.",
			params: []param{s("channel", "Channel id (C…) or name (#general).", true), s("text", "Message text (Slack mrkdwn).", false),
				s("markdown_text", "Message as Markdown; used instead of text.", false), s("blocks",
					"JSON-encoded array of Block Kit blocks.", false),
				s("thread_ts", "Timestamp of the parent message, to reply in a thread.", false), s("username",
					"Bot display name override.", false),
				s("icon_emoji", "Emoji to use as the bot icon.", false), b("reply_broadcast", "Also post a thread reply to the channel.",
					false),
				b("unfurl_links", "Unfurl text-based links.", true), b("mrkdwn", "Interpret text as mrkdwn.", true)},
			run: (*world).slackSend},
		{slug: "SLACK_FETCH_CONVERSATION_HISTORY", name: "Fetch conversation history", toolkit: "slack", tags: read,
			desc: "Fetches a channel's messages newest first, optionally between oldest and latest (Slack ts strings or epoch seconds).",
			params: []param{s("channel", "Channel id (C…) or name.", true), s("oldest", "Only messages after this ts.", false),
				s("latest", "Only messages before this ts.", false),
				i("limit", "Maximum number of messages (1-1000).", 100), b("inclusive", "Include messages exactly at oldest/latest.",
					false), s("cursor", "Pagination cursor.", false)},
			run: (*world).slackHistory},
		{slug: "GITHUB_CREATE_AN_ISSUE", name: "Create an issue", toolkit: "github", write: true, tags: []string{"important", "createHint"},
			desc: "Creates a new issue in a GitHub repository.",
			params: []param{s("owner", "The account owner of the repository (case-insensitive).", true), s("repo",
				"The repository name without .git (case-insensitive).", true),
				s("title", "The title of the issue.", true), s("body", "The contents of the issue.", false), a("assignees",
					"Logins to assign."),
				a("labels", "Label names to associate."), {name: "milestone", typ: "integer", desc: "Milestone number to associate."}},
			run: (*world).githubCreateIssue},
		{slug: "GITHUB_CREATE_AN_ISSUE_COMMENT", name: "Create an issue comment", toolkit: "github", write: true,
			tags: []string{"createHint"},
			desc: "Creates a comment on an issue or pull request.",
			params: []param{s("owner", "The account owner of the repository.", true), s("repo", "The repository name.", true),
				{name: "issue_number", typ: "integer", required: true, desc: "The number that identifies the issue."}, s("body",
					"The contents of the comment.", true)},
			run: (*world).githubComment},
		{slug: "GITHUB_LIST_REPOSITORY_ISSUES", name: "List repository issues", toolkit: "github", tags: read,
			desc: "Lists a repository's issues; since filters on updated_at (ISO 8601).",
			params: []param{s("owner", "The account owner of the repository.", true), s("repo", "The repository name.", true),
				s("state", "open, closed or all.", false), s("since", "Only issues updated at or after this ISO 8601 time.", false),
				s("labels", "Comma-separated label names.", false), s("sort", "created, updated or comments.", false), s("direction",
					"asc or desc.", false),
				i("per_page", "Results per page (max 100).", 30), i("page", "Page number.", 1)},
			run: (*world).githubListIssues},
		{slug: "GITHUB_LIST_ISSUE_COMMENTS", name: "List issue comments", toolkit: "github", tags: read,
			desc: "Lists the comments of one issue, oldest first; since filters on updated_at (ISO 8601).",
			params: []param{s("owner", "The account owner of the repository.", true), s("repo", "The repository name.", true),
				{name: "issue_number", typ: "integer", required: true, desc: "The number that identifies the issue."},
				s("since", "Only comments updated at or after this ISO 8601 time.", false), i("per_page", "Results per page (max 100).",
					30), i("page", "Page number.", 1)},
			run: (*world).githubListComments},
		{slug: "HUBSPOT_CREATE_CONTACT", name: "Create contact", toolkit: "hubspot", write: true, tags: []string{"createHint"},
			desc: "Creates a HubSpot CRM contact. A contact whose email already exists is refused with 409 Conflict.",
			params: []param{s("email", "Email address.", false), s("firstname", "First name.", false), s("lastname", "Last name.", false),
				s("phone", "Phone number.", false), s("company", "Company name.", false), s("website", "Website URL.", false),
				s("jobtitle", "Job title.", false), s("lifecyclestage", "subscriber, lead, marketingqualifiedlead, customer, ...", false)},
			run: (*world).hubspotCreate},
		{slug: "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA", name: "Search contacts by criteria", toolkit: "hubspot", tags: read,
			desc: "Searches HubSpot contacts as HubSpot's CRM search does: filterGroups (OR) of filters (AND) on properties (operators " +
				"EQ, NEQ, CONTAINS_TOKEN, HAS_PROPERTY), or a free-text query, newest first.",
			params: []param{{name: "filterGroups", typ: "objects",
				desc: "Groups of filters: [{filters: [{propertyName, operator, value}]}]."},
				{name: "properties", typ: "array", desc: "Properties to return."}, s("query", "Free-text search.", false),
				i("limit", "Maximum number of results (max 100).", 10), s("after", "Paging cursor from paging.next.after.", false)},
			run: (*world).hubspotSearch},
	}
	// The deprecated alias of SLACK_SEND_MESSAGE, as Composio still serves it.
	for _, d := range defs {
		if d.slug == "SLACK_SEND_MESSAGE" {
			alias := *d
			alias.slug, alias.name = "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL",
				"Sends a message to a Slack channel (deprecated: use SLACK_SEND_MESSAGE)"
			defs = append(defs, &alias)
			break
		}
	}
	c := &catalog{bySlug: make(map[string]*toolDef, len(defs))}
	for _, d := range defs {
		tk, _ := toolkitOf(d.toolkit)
		d.version = tk.version
		d.input = inputSchema(d)
		d.output = json.RawMessage(outputSchema)
		c.tools = append(c.tools, d)
		c.bySlug[d.slug] = d
	}
	sort.Slice(c.tools, func(i, j int) bool { return c.tools[i].slug < c.tools[j].slug })
	return c
}

const outputSchema = `{"type":"object","properties":{"data":{"type":"object","description":"Data from the action execution"},"error":{"type":"string","nullable":true,"description":"Error if any occurred during the execution of the action"},"successful":{"type":"boolean","description":"Whether or not the action execution was successful or not"}},"required":["data","successful"],"title":"ActionResponse"}`

// inputSchema renders the parameters as the JSON schema Composio serves in input_parameters.
func inputSchema(d *toolDef) json.RawMessage {
	props := make(map[string]any, len(d.params))
	var required []string
	for _, p := range d.params {
		prop := map[string]any{"type": p.typ, "description": p.desc, "title": titleCase(p.name)}
		switch p.typ {
		case "array":
			prop["items"] = map[string]any{"type": "string"}
		case "objects":
			prop["type"], prop["items"] = "array", map[string]any{"type": "object"}
		}
		if p.def != nil {
			prop["default"] = p.def
		}
		props[p.name] = prop
		if p.required {
			required = append(required, p.name)
		}
	}
	schema := map[string]any{"type": "object", "title": strings.ReplaceAll(titleCase(strings.ToLower(d.slug)), " ", "") + "Request",
		"description": d.desc, "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	b, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("sandbox: schema of %s: %v", d.slug, err)) // static data: a bug
	}
	return b
}

func titleCase(s string) string {
	parts := strings.Split(s, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

// validate checks the arguments against the tool's parameters: required ones present and not
// empty, and every known one of the declared JSON type. Unknown keys are ignored, as Composio
// does. The message names every problem.
func (t *toolDef) validate(args map[string]any) error {
	var problems []string
	for _, p := range t.params {
		v, ok := args[p.name]
		if !ok || v == nil {
			if p.required {
				problems = append(problems, fmt.Sprintf("%s: required", p.name))
			}
			continue
		}
		switch p.typ {
		case "string":
			s, isStr := v.(string)
			switch {
			case !isStr:
				problems = append(problems, fmt.Sprintf("%s: expected string", p.name))
			case p.required && strings.TrimSpace(s) == "":
				problems = append(problems, fmt.Sprintf("%s: must not be empty", p.name))
			}
		case "integer":
			if _, ok := intArg(v); !ok {
				problems = append(problems, fmt.Sprintf("%s: expected integer", p.name))
			}
		case "boolean":
			if _, isBool := v.(bool); !isBool {
				problems = append(problems, fmt.Sprintf("%s: expected boolean", p.name))
			}
		case "array":
			if _, ok := stringsArg(v); !ok {
				problems = append(problems, fmt.Sprintf("%s: expected array of strings", p.name))
			}
		case "objects":
			l, ok := v.([]any)
			for _, x := range l {
				if _, isObj := x.(map[string]any); !isObj {
					ok = false
				}
			}
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: expected array of objects", p.name))
			}
		}
	}
	if len(problems) > 0 {
		return &validationError{problems: problems}
	}
	return nil
}

type validationError struct{ problems []string }

func (v *validationError) Error() string {
	return "Invalid request data provided: " + strings.Join(v.problems, "; ")
}

// toolJSON is a tool as GET /tools/{slug} and GET /tools list items render it.
func (t *toolDef) toolJSON() map[string]any {
	tk, _ := toolkitOf(t.toolkit)
	tags := t.tags
	if tags == nil {
		tags = []string{}
	}
	return map[string]any{
		"slug":               t.slug,
		"name":               t.name,
		"description":        t.desc,
		"toolkit":            map[string]any{"slug": tk.slug, "name": tk.name, "logo": tk.logo},
		"input_parameters":   t.input,
		"output_parameters":  t.output,
		"no_auth":            false,
		"available_versions": []string{t.version},
		"version":            t.version,
		"scopes":             []string{},
		"tags":               tags,
		"is_deprecated":      false,
		"deprecated": map[string]any{"displayName": t.name, "version": t.version, "available_versions": []string{t.version},
			"is_deprecated": false, "toolkit": map[string]any{"logo": tk.logo}},
	}
}
