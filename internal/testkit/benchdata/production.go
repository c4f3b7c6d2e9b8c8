package benchdata

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
)

// Production shapes (Config.Production): what exports of real projects carry beyond the
// generator's short bodies. Emails are HTML with a quoted thread and attachments, Slack
// messages carry blocks, issues and pages long Markdown; responses are the provider's whole
// objects (a sent message with its headers, an issue with its user and labels) and reads
// return pages of them. Sizes are log-normal, so most records are a few KB and some hundreds:
// the text has quotes, newlines, tabs and non-ASCII that a parser must unescape or skip.

// prodText is the stock text bodies are cut from.
var prodText = []string{
	"Please find the details below and let me know if anything is missing.",
	"Thanks for the quick turnaround — we’re on track for Friday’s “go/no-go”.",
	"Résumé attached; the naïve café numbers were off by 3 %, see the table.",
	"Could you confirm the figures before the quarterly review?\n\tThe draft is in the shared folder.",
	"Déploiement terminé. Nächste Schritte: Überprüfung der Protokolle 🚀",
	"Attached is the summary we discussed on the call: <b>action items</b> in bold.",
	"> On Tue, someone wrote:\n> Happy to jump on a call if that helps.\n> Best,\n",
	"{\"note\": \"a pasted JSON snippet\", \"items\": [1, 2, 3]} — as requested.",
	"東京オフィスからの更新: 予定どおり進んでいます。",
}

// logNormal is a size in bytes around median, spread by sigma, within [lo, hi].
func logNormal(r *rand.Rand, median, sigma float64, lo, hi int) int {
	n := int(median * math.Exp(sigma*r.NormFloat64()))
	return min(max(n, lo), hi)
}

// text is about n bytes of prodText, newline-separated.
func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(prodText[r.IntN(len(prodText))])
		b.WriteString("\n\n")
	}
	return b.String()
}

// stableRand is a generator seeded by what a record's arguments say apart from their text: a
// burst's members and an agent's rewordings get the same attachments and quoted thread, as a
// re-send of one message does.
func stableRand(args map[string]any, slug string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(slug))
	for _, k := range []string{"recipient_email", "channel", "owner", "repo", "thread_id", "parent_id", "issue_number", "summary",
		"subject", "title"} {
		if v, ok := args[k]; ok {
			fmt.Fprint(h, k, "=", v, ";")
		}
	}
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// produce gives e production-shaped arguments and response.
func (g *gen) produce(e *model.Execution) {
	var args map[string]any
	if json.Unmarshal(e.Arguments, &args) == nil && args != nil {
		sr := stableRand(args, e.ToolSlug)
		switch {
		case strings.HasPrefix(e.ToolSlug, "GMAIL_") && args["body"] != nil:
			body, _ := args["body"].(string)
			quoted := text(sr, logNormal(sr, 700, 1.1, 100, 60_000))
			args["body"] = "<div dir=\"ltr\">" + strings.ReplaceAll(body, "\n",
				"<br>") + "</div><blockquote class=\"gmail_quote\">" + quoted + "</blockquote>"
			args["is_html"] = true
			var att []map[string]any
			for i := range sr.IntN(4) {
				att = append(att, map[string]any{"name": "report-" + strconv.Itoa(i) + ".pdf", "mimetype": "application/pdf",
					"s3key": "att/" + strconv.FormatUint(sr.Uint64(), 36)})
			}
			if att != nil {
				args["attachment"] = att
			}
		case e.ToolSlug == "SLACK_SEND_MESSAGE":
			t, _ := args["text"].(string)
			var blocks []map[string]any
			for range 1 + sr.IntN(5) {
				blocks = append(blocks, map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": text(sr,
					logNormal(sr, 150, 0.8, 40, 4000))}})
			}
			args["blocks"] = append([]map[string]any{{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": t}}}, blocks...)
		case args["body"] != nil || args["content"] != nil:
			k := "body"
			if args["content"] != nil {
				k = "content"
			}
			s, _ := args[k].(string)
			args[k] = s + "\n\n## Details\n\n" + text(sr, logNormal(sr, 600, 1.0, 100, 40_000)) + "\n```\n" + text(sr, logNormal(sr, 150,
				0.8, 50, 8000)) + "```\n"
		}
		raw, _ := json.Marshal(args)
		e.Arguments = raw
	}
	if e.Response == nil {
		return
	}
	var resp map[string]any
	if json.Unmarshal(e.Response, &resp) != nil || resp["successful"] != true {
		return
	}
	resp["data"] = g.providerObject(e, resp["data"])
	raw, _ := json.Marshal(resp)
	e.Response = raw
}

// providerObject is the provider's whole answer where the generator has its gist.
func (g *gen) providerObject(e *model.Execution, data any) any {
	r := g.r
	headers := func() []map[string]string {
		var hs []map[string]string
		for _, h := range []string{"Delivered-To", "Received", "X-Google-Smtp-Source", "ARC-Seal", "ARC-Message-Signature", "Return-Path",
			"Received-SPF",
			"Authentication-Results", "DKIM-Signature", "MIME-Version", "Date", "Message-ID", "Subject", "From", "To", "Content-Type"} {
			hs = append(hs, map[string]string{"name": h, "value": g.rnd("", b64, 10+r.IntN(50))})
		}
		return hs
	}
	message := func() map[string]any {
		id := g.rnd("19", hexdigits, 14)
		return map[string]any{"id": id, "threadId": id, "labelIds": []string{"INBOX", "CATEGORY_UPDATES"}, "snippet": text(r, 160)[:150],
			"payload": map[string]any{"mimeType": "multipart/alternative", "headers": headers(),
				"parts": []map[string]any{{"mimeType": "text/plain", "body": map[string]any{"size": 1200, "data": g.rnd("", b64,
					logNormal(r, 500, 1.0, 60, 30_000))}}}},
			"sizeEstimate": 4000 + r.IntN(90_000), "internalDate": strconv.FormatInt(e.Timestamp.UnixMilli(), 10)}
	}
	user := func() map[string]any {
		login := g.rnd("", b64[:36], 8)
		return map[string]any{"login": login, "id": r.IntN(9_000_000),
			"avatar_url": "https://avatars.githubusercontent.com/u/" + strconv.Itoa(r.IntN(9_000_000)),
			"html_url":   "https://github.com/" + login, "type": "User", "site_admin": false}
	}
	switch {
	case e.ToolSlug == "GMAIL_FETCH_EMAILS":
		var msgs []map[string]any
		for range 1 + r.IntN(5) {
			msgs = append(msgs, message())
		}
		return map[string]any{"messages": msgs, "nextPageToken": g.rnd("", b64, 20), "resultSizeEstimate": len(msgs) + r.IntN(200)}
	case strings.HasPrefix(e.ToolSlug, "GMAIL_"):
		return message()
	case strings.HasPrefix(e.ToolSlug, "GITHUB_"):
		issue := func() map[string]any {
			n := 1 + r.IntN(4000)
			return map[string]any{"id": 2849000000 + r.IntN(999999), "number": n, "state": "open", "title": text(r, 60)[:50],
				"body": text(r, logNormal(r, 400, 1.0, 50, 20_000)),
				"user": user(), "labels": []map[string]any{{"name": "bug", "color": "d73a4a"}, {"name": "triage", "color": "ededed"}},
				"assignees": []any{user()},
				"reactions": map[string]int{"+1": r.IntN(5), "total_count": r.IntN(9)}, "created_at": e.Timestamp.Format(time.RFC3339),
				"html_url":     "https://github.com/acme/api/issues/" + strconv.Itoa(n),
				"comments_url": "https://api.github.com/repos/acme/api/issues/" + strconv.Itoa(n) + "/comments"}
		}
		if e.ToolSlug == "GITHUB_LIST_REPOSITORY_ISSUES" {
			var is []any
			for range 2 + r.IntN(8) {
				is = append(is, issue())
			}
			return is
		}
		return issue()
	case e.ToolSlug == "SLACK_FETCH_CONVERSATION_HISTORY":
		var msgs []map[string]any
		for range 3 + r.IntN(15) {
			msgs = append(msgs, map[string]any{"type": "message", "user": g.rnd("U0", b64[:36], 9), "text": text(r, logNormal(r, 120, 1.0,
				20, 6000)),
				"ts": strconv.FormatInt(e.Timestamp.Unix()-int64(r.IntN(90000)), 10) + ".000100", "team": "T0" + g.rnd("", b64[:36], 8)})
		}
		return map[string]any{"ok": true, "messages": msgs, "has_more": r.IntN(2) == 0,
			"response_metadata": map[string]string{"next_cursor": g.rnd("", b64, 24)}}
	case strings.HasPrefix(e.ToolSlug, "HUBSPOT_"), strings.HasPrefix(e.ToolSlug, "NOTION_"), strings.HasPrefix(e.ToolSlug, "LINEAR_"),
		strings.HasPrefix(e.ToolSlug, "GOOGLECALENDAR_"):
		props := map[string]any{}
		for i := range 10 + r.IntN(20) {
			props["property_"+strconv.Itoa(i)] = g.rnd("", b64, 5+r.IntN(60))
		}
		return map[string]any{"id": g.uuid(), "object": "page", "properties": props, "created_time": e.Timestamp.Format(time.RFC3339),
			"archived": false, "gist": data}
	}
	return data
}
