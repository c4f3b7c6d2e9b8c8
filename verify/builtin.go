package verify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The built-in verifiers: the write tools of the sandbox's toolkits and the common real ones.
// Argument names follow Composio's tool schemas; item fields are looked up under several
// names, and a missing field makes the answer unknown rather than not_found.

// builtinChecks returns a fresh set (no package-level state).
func builtinChecks() []*check {
	var out []*check
	out = append(out, gmailSend(), gmailReply(), gmailDraft(), gmailLabel(), gmailDelete())
	// SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL is the deprecated alias of SLACK_SEND_MESSAGE, and
	// SLACK_CHAT_POST_MESSAGE its 2024 slug (docs/platform.md, "Tools and their kinds").
	for _, slug := range []string{"SLACK_SEND_MESSAGE", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_CHAT_POST_MESSAGE"} {
		out = append(out, slackPost(slug))
	}
	out = append(out, githubIssue(), githubComment(), hubspotContact(), notionPage(), linearIssue(), calendarEvent())
	return out
}

// Gmail message fields: GMAIL_FETCH_EMAILS items (messageId, threadId, messageTimestamp, to,
// subject, preview.subject, messageText) and the Gmail API's own (id, internalDate).
func gmailIDs() []string   { return []string{"messageId", "id"} }
func gmailTimes() []string { return []string{"messageTimestamp", "internalDate", "date"} }

const gmailPage = 50

func gmailQuoted(s string) string {
	return `"` + strings.NewReplacer(`"`, " ", `\`, " ").Replace(s) + `"`
}

func gmailSend() *check {
	return &check{
		name: "builtin gmail sent mail", tool: "GMAIL_SEND_EMAIL", readTool: "GMAIL_FETCH_EMAILS",
		args: func(orig map[string]any, since time.Time) (map[string]any, error) {
			to, ok1 := argText(orig, "recipient_email")
			s, ok2 := argText(orig, "subject")
			if !ok1 && !ok2 {
				return nil, errors.New("neither recipient_email nor subject recorded: nothing to search by")
			}
			q := []string{"in:sent"}
			if ok1 {
				q = append(q, "to:"+to)
			}
			if ok2 {
				q = append(q, "subject:"+gmailQuoted(s))
			}
			q = append(q, "after:"+strconv.FormatInt(since.Unix(), 10))
			return map[string]any{"query": strings.Join(q, " "), "max_results": gmailPage}, nil
		},
		lists: []string{"messages", "response_data.messages", "data.messages"}, empty: true,
		rules: []rule{
			{item: []string{"to", "recipient", "payload.to"}, want: fromArg("recipient_email"), mode: matchEmail},
			{item: []string{"subject", "preview.subject"}, want: fromArg("subject")},
		},
		times: gmailTimes(), ids: gmailIDs(), pageSize: gmailPage,
		what: func(orig map[string]any) string {
			to, _ := argText(orig, "recipient_email")
			s, _ := argText(orig, "subject")
			return strings.TrimSpace("email to " + to + " " + shortQuote(s))
		},
	}
}

func gmailReply() *check {
	return &check{
		name: "builtin gmail thread reply", tool: "GMAIL_REPLY_TO_THREAD", readTool: "GMAIL_FETCH_EMAILS",
		args: func(orig map[string]any, since time.Time) (map[string]any, error) {
			q := []string{"in:sent"}
			if to, ok := argText(orig, "recipient_email"); ok {
				q = append(q, "to:"+to)
			}
			q = append(q, "after:"+strconv.FormatInt(since.Unix(), 10))
			return map[string]any{"query": strings.Join(q, " "), "max_results": gmailPage}, nil
		},
		lists: []string{"messages", "response_data.messages", "data.messages"}, empty: true,
		rules: []rule{
			{item: []string{"threadId", "thread_id"}, want: requiredArg("thread_id", "thread_id")},
			{item: []string{"messageText", "body", "preview.body", "snippet"}, want: fromArg("message_body", "body"), mode: matchBody},
		},
		times: gmailTimes(), ids: gmailIDs(), pageSize: gmailPage,
		what: func(orig map[string]any) string {
			t, _ := argText(orig, "thread_id")
			return "reply in thread " + t
		},
	}
}

func gmailDraft() *check {
	return &check{
		name: "builtin gmail drafts", tool: "GMAIL_CREATE_EMAIL_DRAFT", readTool: "GMAIL_LIST_DRAFTS",
		args: func(map[string]any, time.Time) (map[string]any, error) {
			return map[string]any{"max_results": gmailPage}, nil
		},
		lists: []string{"drafts", "response_data.drafts", "data.drafts"},
		rules: []rule{
			{item: []string{"message.to", "to"}, want: fromArg("recipient_email"), mode: matchEmail},
			{item: []string{"message.subject", "subject"}, want: fromArg("subject")},
			{item: []string{"message.threadId", "threadId"}, want: fromArg("thread_id")},
		},
		times: []string{"message.messageTimestamp", "message.internalDate", "messageTimestamp"},
		ids:   []string{"id", "draft_id"}, pageSize: gmailPage,
		what: func(orig map[string]any) string {
			to, _ := argText(orig, "recipient_email")
			s, _ := argText(orig, "subject")
			return strings.TrimSpace("draft to " + to + " " + shortQuote(s))
		},
	}
}

func gmailLabel() *check {
	return &check{
		name: "builtin gmail labels", tool: "GMAIL_ADD_LABEL_TO_EMAIL", readTool: "GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID",
		args: func(orig map[string]any, _ time.Time) (map[string]any, error) {
			id, ok := argText(orig, "message_id")
			if !ok {
				return nil, errors.New("argument message_id not recorded")
			}
			return map[string]any{"message_id": id}, nil
		},
		single: true,
		rules: []rule{
			{item: []string{"labelIds", "label_ids"}, want: fromList("add_label_ids")},
			{item: []string{"labelIds", "label_ids"}, want: fromList("remove_label_ids"), negate: true},
		},
		ids: gmailIDs(),
		what: func(orig map[string]any) string {
			id, _ := argText(orig, "message_id")
			var parts []string
			if a := argValues(orig, true, "add_label_ids"); len(a) > 0 {
				parts = append(parts, "+"+strings.Join(a, " +"))
			}
			if r := argValues(orig, true, "remove_label_ids"); len(r) > 0 {
				parts = append(parts, "-"+strings.Join(r, " -"))
			}
			return strings.TrimSpace("message " + id + " " + strings.Join(parts, " "))
		},
	}
}

func gmailDelete() *check {
	return &check{
		name: "builtin gmail message exists", tool: "GMAIL_DELETE_MESSAGE", readTool: "GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID",
		args: func(orig map[string]any, _ time.Time) (map[string]any, error) {
			id, ok := argText(orig, "message_id")
			if !ok {
				return nil, errors.New("argument message_id not recorded")
			}
			return map[string]any{"message_id": id}, nil
		},
		gone: true, goneArg: "message_id",
		rules: []rule{{item: gmailIDs(), want: requiredArg("message_id", "message_id")}},
		ids:   gmailIDs(),
		what: func(orig map[string]any) string {
			id, _ := argText(orig, "message_id")
			return "message " + id
		},
	}
}

// slackPost verifies a message posted to a channel: SLACK_FETCH_CONVERSATION_HISTORY from the
// execution's start, matched on the text (Slack escapes &, < and >; those are decoded). A
// reply in a thread (thread_ts) is matched on its thread too.
func slackPost(slug string) *check {
	return &check{
		name: "builtin slack history", tool: slug, readTool: "SLACK_FETCH_CONVERSATION_HISTORY",
		bestEffort: "SLACK_FETCH_CONVERSATION_HISTORY's arguments are not in the Composio definitions at hand (channel, oldest, limit, " +
			"inclusive as Slack's conversations.history takes them)",
		args: func(orig map[string]any, since time.Time) (map[string]any, error) {
			ch, ok := argText(orig, "channel", "channel_id")
			if !ok {
				return nil, errors.New("argument channel not recorded")
			}
			oldest := fmt.Sprintf("%d.%06d", since.Unix(), since.Nanosecond()/1000)
			return map[string]any{"channel": ch, "oldest": oldest, "limit": 200, "inclusive": true}, nil
		},
		lists: []string{"messages", "response_data.messages", "data.messages"},
		rules: []rule{
			{item: []string{"text"}, want: requiredArg("text", "markdown_text", "text", "blocks")},
			{item: []string{"thread_ts"}, want: fromArg("thread_ts")},
		},
		times: []string{"ts"}, ids: []string{"ts"}, pageSize: 200,
		blind: func(orig map[string]any) string {
			// Slack's conversations.history lists a thread reply only when it was also
			// broadcast to the channel: its absence there proves nothing.
			_, inThread := argText(orig, "thread_ts")
			if b := argValues(orig, false, "reply_broadcast"); inThread && (len(b) == 0 || b[0] != "true") {
				return "a thread reply may not be listed in the channel history"
			}
			return ""
		},
		what: func(orig map[string]any) string {
			ch, _ := argText(orig, "channel", "channel_id")
			t, _ := argText(orig, "markdown_text", "text")
			return strings.TrimSpace("message in " + ch + " " + shortQuote(t))
		},
	}
}

func githubIssue() *check {
	return &check{
		name: "builtin github issues", tool: "GITHUB_CREATE_AN_ISSUE", readTool: "GITHUB_LIST_REPOSITORY_ISSUES",
		args: func(orig map[string]any, since time.Time) (map[string]any, error) {
			owner, repo, err := ownerRepo(orig)
			if err != nil {
				return nil, err
			}
			return map[string]any{"owner": owner, "repo": repo, "state": "all", "since": since.UTC().Format(time.RFC3339),
				"sort": "created", "direction": "desc", "per_page": 100}, nil
		},
		lists: []string{"issues", "details", "response_data", "data"},
		rules: []rule{{item: []string{"title"}, want: requiredArg("title", "title")}},
		times: []string{"created_at", "createdAt"}, ids: []string{"number", "id"}, pageSize: 100,
		what: func(orig map[string]any) string {
			o, r, _ := ownerRepo(orig)
			t, _ := argText(orig, "title")
			return "issue " + shortQuote(t) + " in " + o + "/" + r
		},
	}
}

func githubComment() *check {
	return &check{
		name: "builtin github issue comments", tool: "GITHUB_CREATE_AN_ISSUE_COMMENT", readTool: "GITHUB_LIST_ISSUE_COMMENTS",
		args: func(orig map[string]any, since time.Time) (map[string]any, error) {
			owner, repo, err := ownerRepo(orig)
			if err != nil {
				return nil, err
			}
			n, ok := argText(orig, "issue_number")
			if !ok {
				return nil, errors.New("argument issue_number not recorded")
			}
			num, err := strconv.Atoi(n)
			if err != nil {
				return nil, fmt.Errorf("argument issue_number %q is not a number", n)
			}
			return map[string]any{
				"owner":        owner,
				"repo":         repo,
				"issue_number": num,
				"since":        since.UTC().Format(time.RFC3339),
				"per_page":     100,
			}, nil
		},
		lists: []string{"comments", "details", "response_data", "data"},
		rules: []rule{{item: []string{"body"}, want: requiredArg("body", "body")}},
		times: []string{"created_at", "createdAt"}, ids: []string{"id"}, pageSize: 100,
		what: func(orig map[string]any) string {
			o, r, _ := ownerRepo(orig)
			n, _ := argText(orig, "issue_number")
			return "comment on " + o + "/" + r + "#" + n
		},
	}
}

func ownerRepo(orig map[string]any) (string, string, error) {
	owner, ok1 := argText(orig, "owner")
	repo, ok2 := argText(orig, "repo")
	if !ok1 || !ok2 {
		return "", "", errors.New("arguments owner and repo not recorded")
	}
	return owner, repo, nil
}

// hubspotContact searches with HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA (docs/platform.md, "Tools and their kinds": the real
// slug; HUBSPOT_SEARCH_CONTACTS is no Composio tool): a filter group on the email when given,
// else on first and last name.
func hubspotContact() *check {
	props := []any{"email", "firstname", "lastname", "createdate", "hs_object_id"}
	eq := func(prop, v string) map[string]any {
		return map[string]any{"propertyName": prop, "operator": "EQ", "value": v}
	}
	return &check{
		name: "builtin hubspot contacts", tool: "HUBSPOT_CREATE_CONTACT", readTool: "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA",
		args: func(orig map[string]any, _ time.Time) (map[string]any, error) {
			if email, ok := argText(orig, "email", "properties.email"); ok {
				return map[string]any{
					"filterGroups": []any{map[string]any{"filters": []any{eq("email", email)}}},
					"properties":   props,
					"limit":        100,
				}, nil
			}
			first, _ := argText(orig, "firstname", "properties.firstname")
			last, _ := argText(orig, "lastname", "properties.lastname")
			var filters []any
			if first != "" {
				filters = append(filters, eq("firstname", first))
			}
			if last != "" {
				filters = append(filters, eq("lastname", last))
			}
			if len(filters) > 0 {
				return map[string]any{"filterGroups": []any{map[string]any{"filters": filters}}, "properties": props, "limit": 100}, nil
			}
			return nil, errors.New("neither email nor name recorded: nothing to search by")
		},
		lists: []string{"results", "response_data.results", "data.results", "contacts"},
		rules: []rule{
			{item: []string{"properties.email", "email"}, want: fromArg("email", "properties.email"), mode: matchEmail},
			{item: []string{"properties.firstname", "firstname"}, want: fromArg("firstname", "properties.firstname")},
			{item: []string{"properties.lastname", "lastname"}, want: fromArg("lastname", "properties.lastname")},
		},
		times: []string{"createdAt", "properties.createdate", "created_at"}, ids: []string{"id", "properties.hs_object_id"}, pageSize: 100,
		what: func(orig map[string]any) string {
			if e, ok := argText(orig, "email", "properties.email"); ok {
				return "contact " + e
			}
			f, _ := argText(orig, "firstname", "properties.firstname")
			l, _ := argText(orig, "lastname", "properties.lastname")
			return "contact " + strings.TrimSpace(f+" "+l)
		},
	}
}

// notionPage finds the page by title with NOTION_SEARCH_NOTION_PAGE; the title is read from
// whichever property is of type title.
func notionPage() *check {
	return &check{
		name: "builtin notion search", tool: "NOTION_CREATE_NOTION_PAGE", readTool: "NOTION_SEARCH_NOTION_PAGE",
		bestEffort: "NOTION_SEARCH_NOTION_PAGE's schema is not in the Composio definitions at hand",
		args: func(orig map[string]any, _ time.Time) (map[string]any, error) {
			t, ok := argText(orig, "title")
			if !ok {
				return nil, errors.New("argument title not recorded")
			}
			return map[string]any{"query": t, "filter_value": "page", "filter_property": "object",
				"direction": "descending", "timestamp": "last_edited_time", "page_size": 100}, nil
		},
		lists: []string{"results", "response_data.results", "data.results"},
		rules: []rule{{item: []string{"title"}, get: notionTitle, want: requiredArg("title", "title")}},
		times: []string{"created_time", "createdTime"}, ids: []string{"id"}, pageSize: 100,
		what: func(orig map[string]any) string {
			t, _ := argText(orig, "title")
			return "page " + shortQuote(t)
		},
	}
}

func notionTitle(item any) (any, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, false
	}
	if t, ok := m["title"].(string); ok {
		return t, true
	}
	props, _ := m["properties"].(map[string]any)
	for _, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		rich, ok := pm["title"].([]any)
		if !ok {
			continue
		}
		var b strings.Builder
		for _, r := range rich {
			if rm, ok := r.(map[string]any); ok {
				if s, ok := rm["plain_text"].(string); ok {
					b.WriteString(s)
				} else if tm, ok := rm["text"].(map[string]any); ok {
					s, _ := tm["content"].(string)
					b.WriteString(s)
				}
			}
		}
		return b.String(), true
	}
	return nil, false
}

func linearIssue() *check {
	return &check{
		name: "builtin linear issues", tool: "LINEAR_CREATE_LINEAR_ISSUE", readTool: "LINEAR_LIST_LINEAR_ISSUES",
		bestEffort: "LINEAR_LIST_LINEAR_ISSUES's schema is not in the Composio definitions at hand",
		args: func(orig map[string]any, _ time.Time) (map[string]any, error) {
			a := map[string]any{"first": 100}
			if p, ok := argText(orig, "project_id"); ok {
				a["project_id"] = p
			}
			return a, nil
		},
		lists: []string{"issues", "issues.nodes", "response_data.issues", "nodes", "data.issues"},
		rules: []rule{
			{item: []string{"title"}, want: requiredArg("title", "title")},
			{item: []string{"team.id", "team_id", "teamId"}, want: fromArg("team_id")},
		},
		times: []string{"createdAt", "created_at"}, ids: []string{"identifier", "id"}, pageSize: 100,
		what: func(orig map[string]any) string {
			t, _ := argText(orig, "title")
			return "issue " + shortQuote(t)
		},
	}
}

// calendarEvent looks the event up by its summary among events updated since the execution
// started (updated_min), so an event scheduled in the past is found too.
func calendarEvent() *check {
	return &check{
		name: "builtin google calendar events", tool: "GOOGLECALENDAR_CREATE_EVENT", readTool: "GOOGLECALENDAR_FIND_EVENT",
		bestEffort: "GOOGLECALENDAR_FIND_EVENT's argument names are contested (camelCase or snake_case): a match may be missed, never " +
			"invented",
		args: func(orig map[string]any, since time.Time) (map[string]any, error) {
			s, ok := argText(orig, "summary")
			if !ok {
				return nil, errors.New("argument summary not recorded")
			}
			a := map[string]any{"query": s, "updated_min": since.UTC().Format(time.RFC3339), "max_results": 100, "single_events": true}
			if c, ok := argText(orig, "calendar_id"); ok {
				a["calendar_id"] = c
			}
			return a, nil
		},
		lists: []string{"items", "event_data.event_data", "event_data", "events", "response_data.items", "data.items"},
		rules: []rule{{item: []string{"summary"}, want: requiredArg("summary", "summary")}},
		times: []string{"created", "created_at"}, ids: []string{"id"}, pageSize: 100,
		what: func(orig map[string]any) string {
			s, _ := argText(orig, "summary")
			return "event " + shortQuote(s)
		},
	}
}

func shortQuote(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", oneLine(s, 50))
}
