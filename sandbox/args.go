package sandbox

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The arguments a history's executions carry: people, addresses, contents.

func (g *generator) person() (first, last string) { return pick(g, g.p.firsts), pick(g, g.p.lasts) }

// argsFor builds realistic arguments for tool on account a, or nil when the account has
// nothing left to act on. Writes never repeat arguments by accident.
func (g *generator) argsFor(tool *toolDef, a *account, t time.Time) *argSet {
	for range 4 {
		args := g.buildArgs(tool, a, t)
		if args == nil {
			return nil
		}
		raw, err := json.Marshal(args)
		if err != nil {
			panic(fmt.Sprintf("sandbox: arguments of %s: %v", tool.slug, err)) // generated data: a bug
		}
		if !tool.write {
			return &argSet{args, raw}
		}
		key := tool.slug + "|" + a.id + "|" + string(raw)
		if !g.usedArgs[key] {
			g.usedArgs[key] = true
			return &argSet{args, raw}
		}
	}
	return nil
}

// argSet is a tool's arguments, decoded and marshalled.
type argSet struct {
	m   map[string]any
	raw json.RawMessage
}

func (g *generator) buildArgs(tool *toolDef, a *account, t time.Time) map[string]any {
	p := g.p
	tg := g.targets[a]
	switch tool.slug {
	case "GMAIL_SEND_EMAIL", "GMAIL_CREATE_EMAIL_DRAFT":
		first, _ := g.person()
		to := pick(g, g.externals)
		body := "Hi " + capitalize(strings.Split(to, ".")[0]) + ",\n\n" + g.fill(
			pick(g, p.sentences),
			t,
		) + "\n\n" + pick(
			g,
			p.signoffs,
		) + ",\n" + a.user.first
		args := map[string]any{
			"recipient_email": to,
			"subject":         g.fill(strings.ReplaceAll(pick(g, p.subjects), "{first}", first), t),
			"body":            body,
		}
		if g.chance(0.2) {
			args["cc"] = []string{pick(g, g.externals)}
		}
		if g.chance(0.15) {
			args["is_html"] = true
			args["body"] = "<p>" + strings.ReplaceAll(body, "\n\n", "</p><p>") + "</p>"
		}
		return args
	case "GMAIL_REPLY_TO_THREAD":
		if tg == nil || len(tg.threads) == 0 {
			return nil
		}
		root := pick(g, tg.threads)
		return map[string]any{"thread_id": root.threadID, "recipient_email": root.from, "message_body": g.fill(pick(g, p.replies), t)}
	case "GMAIL_ADD_LABEL_TO_EMAIL":
		if tg == nil || len(tg.labelMsgs) == 0 {
			return nil
		}
		m := tg.labelMsgs[0]
		tg.labelMsgs = tg.labelMsgs[1:]
		args := map[string]any{"message_id": m.id, "add_label_ids": []string{pick(g, p.addLabels)}}
		if m.hasLabel("UNREAD") && g.chance(0.5) {
			args["remove_label_ids"] = []string{"UNREAD"}
		}
		return args
	case "GMAIL_DELETE_MESSAGE":
		if tg == nil || len(tg.deleteMsgs) == 0 {
			return nil
		}
		m := tg.deleteMsgs[0]
		tg.deleteMsgs = tg.deleteMsgs[1:]
		return map[string]any{"message_id": m.id}
	case "GMAIL_FETCH_EMAILS":
		q := strings.ReplaceAll(pick(g, p.queries), "{ext}", pick(g, g.externals))
		args := map[string]any{"query": g.fill(q, t), "max_results": 2 + g.r.IntN(4)}
		if g.chance(0.7) {
			args["verbose"] = false
		}
		return args
	case "GMAIL_FETCH_MESSAGE_BY_MESSAGE_ID":
		if tg == nil {
			return nil
		}
		return map[string]any{"message_id": pick(g, tg.messages).id, "format": "full"}
	case "GMAIL_FETCH_MESSAGE_BY_THREAD_ID":
		if tg == nil {
			return nil
		}
		return map[string]any{"thread_id": pick(g, tg.threads).threadID}
	case "GMAIL_LIST_DRAFTS":
		return map[string]any{"max_results": 3 + g.r.IntN(3), "verbose": false}
	case "SLACK_SEND_MESSAGE":
		ch := pick(g, a.company.slack.channels)
		ref := ch.id
		if g.chance(0.4) {
			ref = "#" + ch.name
		}
		key := "text"
		if g.chance(0.25) {
			key = "markdown_text"
		}
		return map[string]any{"channel": ref, key: g.fill(pick(g, p.slackTexts), t)}
	case "SLACK_FETCH_CONVERSATION_HISTORY":
		args := map[string]any{"channel": pick(g, a.company.slack.channels).id, "limit": 3 + g.r.IntN(6)}
		if g.chance(0.4) {
			args["oldest"] = strconv.FormatInt(t.Add(-g.between(time.Hour, 48*time.Hour)).Unix(), 10) + ".000000"
		}
		return args
	case "GITHUB_CREATE_AN_ISSUE":
		rp := pick(g, a.company.github.repos)
		args := map[string]any{
			"owner": rp.owner,
			"repo":  rp.name,
			"title": g.fill(pick(g, p.issueTitles), t),
			"body":  g.fill(pick(g, p.issueBodies), t),
		}
		if g.chance(0.3) {
			args["labels"] = []string{pick(g, []string{"bug", "enhancement", "documentation", "p1"})}
		}
		if g.chance(0.02) { // a repository that does not exist: the provider answers 404
			args["repo"] = rp.name + "-old"
		}
		return args
	case "GITHUB_CREATE_AN_ISSUE_COMMENT", "GITHUB_LIST_ISSUE_COMMENTS":
		rp := pick(g, a.company.github.repos)
		if len(rp.issues) == 0 {
			return nil
		}
		args := map[string]any{"owner": rp.owner, "repo": rp.name, "issue_number": pick(g, rp.issues).number}
		if tool.slug == "GITHUB_CREATE_AN_ISSUE_COMMENT" {
			args["body"] = g.fill(pick(g, p.comments), t)
		}
		return args
	case "GITHUB_LIST_REPOSITORY_ISSUES":
		rp := pick(g, a.company.github.repos)
		return map[string]any{
			"owner":    rp.owner,
			"repo":     rp.name,
			"state":    pick(g, []string{"open", "open", "all"}),
			"per_page": 3 + g.r.IntN(5),
		}
	case "HUBSPOT_CREATE_CONTACT":
		return g.hubspotArgs(a.company.hubspot)
	case "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA":
		if g.chance(0.5) && len(a.company.hubspot.contacts) > 0 {
			return map[string]any{"filterGroups": []any{map[string]any{"filters": []any{map[string]any{
				"propertyName": "email", "operator": "EQ", "value": pick(g, a.company.hubspot.contacts).props["email"]}}}}}
		}
		return map[string]any{"query": strings.ToLower(pick(g, g.p.companies).org), "limit": 5}
	}
	return nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// hubspotArgs draws a new contact whose email the portal has not seen.
func (g *generator) hubspotArgs(pt *portal) map[string]any {
	props := g.hubspotProps(pt)
	args := make(map[string]any, len(props))
	for k, v := range props {
		args[k] = v
	}
	return args
}

func (g *generator) hubspotProps(pt *portal) map[string]string {
	first, last := g.person()
	co := pick(g, g.p.companies)
	email := strings.ToLower(first + "." + last + "@" + co.domain)
	for i := 2; g.usedEmails[pt.id+email]; i++ {
		email = strings.ToLower(first + "." + last + strconv.Itoa(i) + "@" + co.domain)
	}
	g.usedEmails[pt.id+email] = true
	props := map[string]string{"email": email, "firstname": first, "lastname": last, "company": co.name}
	if g.chance(0.5) {
		props["phone"] = fmt.Sprintf("+1 415 555 %04d", g.r.IntN(10000))
	}
	if g.chance(0.4) {
		props["jobtitle"] = pick(g, g.p.jobTitles)
	}
	if g.chance(0.4) {
		props["lifecyclestage"] = pick(g, g.p.stages)
	}
	return props
}

// ---- running the plans ----
