package sandbox

import (
	"cmp"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// mailbox is one Gmail account: messages (received and sent), threads and drafts.
type mailbox struct {
	address  string
	messages []*gmailMessage // in arrival order
	byID     map[string]*gmailMessage
	threads  map[string][]*gmailMessage
	drafts   []*gmailDraft
}

type gmailMessage struct {
	id, threadID            string
	from, to, subject, body string
	cc, bcc                 []string
	isHTML                  bool
	labels                  []string
	at                      time.Time
	deleted                 bool
}

type gmailDraft struct {
	id      string
	message *gmailMessage
}

func newMailbox(address string) *mailbox {
	return &mailbox{address: address, byID: map[string]*gmailMessage{}, threads: map[string][]*gmailMessage{}}
}

func (m *mailbox) add(msg *gmailMessage) {
	m.messages = append(m.messages, msg)
	m.byID[msg.id] = msg
	m.threads[msg.threadID] = append(m.threads[msg.threadID], msg)
}

func (msg *gmailMessage) hasLabel(l string) bool {
	for _, x := range msg.labels {
		if strings.EqualFold(x, l) {
			return true
		}
	}
	return false
}

// json renders a message as GMAIL_FETCH_EMAILS returns it; id duplicates messageId for
// callers that expect the Gmail API's key.
func (msg *gmailMessage) json(verbose, idsOnly bool) map[string]any {
	if idsOnly {
		return map[string]any{"messageId": msg.id, "id": msg.id, "threadId": msg.threadID}
	}
	preview := msg.body
	if len(preview) > 100 {
		preview = preview[:100]
	}
	out := map[string]any{
		"messageId": msg.id, "id": msg.id, "threadId": msg.threadID,
		"messageTimestamp": iso(msg.at), "labelIds": append([]string{}, msg.labels...),
		"sender": msg.from, "to": msg.to, "subject": msg.subject,
		"preview": map[string]any{"subject": msg.subject, "body": preview},
	}
	if len(msg.cc) > 0 {
		out["cc"] = strings.Join(msg.cc, ", ")
	}
	if verbose {
		out["messageText"] = msg.body
		out["attachmentList"] = []any{}
	}
	return out
}

func (w *world) mailboxOf(c *call) (*mailbox, *opResult) {
	if c.acct == nil || c.acct.mailbox == nil {
		r := fail(http.StatusBadRequest, "connected account is not a Gmail account")
		return nil, &r
	}
	return c.acct.mailbox, nil
}

// messageOf is the live message the call's message_id names, or the error to answer with.
func (w *world) messageOf(c *call) (*gmailMessage, *opResult) {
	mb, bad := w.mailboxOf(c)
	if bad != nil {
		return nil, bad
	}
	id := strArg(c.args, "message_id")
	msg := mb.byID[id]
	if msg == nil || msg.deleted {
		r := fail(http.StatusNotFound, "Requested entity was not found. (message %s)", id)
		return nil, &r
	}
	return msg, nil
}

func (w *world) newMessageID() string { return "19" + w.ids.hex(14) }

func (w *world) gmailSend(c *call) opResult {
	mb, bad := w.mailboxOf(c)
	if bad != nil {
		return *bad
	}
	to := strArg(c.args, "recipient_email")
	if !strings.Contains(to, "@") {
		return fail(http.StatusBadRequest, "Invalid To header: %q", to)
	}
	from := strArg(c.args, "from_email")
	from = cmp.Or(from, mb.address)
	id := w.newMessageID()
	msg := &gmailMessage{id: id, threadID: id, from: from, to: to, subject: strArg(c.args, "subject"), body: strArg(c.args, "body"),
		cc: stringsArgOf(c.args, "cc"), bcc: stringsArgOf(c.args, "bcc"), isHTML: boolArgOr(c.args, "is_html", false),
		labels: []string{"SENT"}, at: c.now}
	mb.add(msg)
	return opResult{data: map[string]any{"id": id, "threadId": id, "labelIds": []string{"SENT"}}, objectID: id, committed: true}
}

func (w *world) gmailReply(c *call) opResult {
	mb, bad := w.mailboxOf(c)
	if bad != nil {
		return *bad
	}
	tid := strArg(c.args, "thread_id")
	thread := mb.threads[tid]
	var last *gmailMessage
	for _, m := range thread {
		if !m.deleted {
			last = m
		}
	}
	if last == nil {
		return fail(http.StatusNotFound, "Requested entity was not found. (thread %s)", tid)
	}
	subject := last.subject
	if !strings.HasPrefix(strings.ToLower(subject), "re:") {
		subject = "Re: " + subject
	}
	id := w.newMessageID()
	msg := &gmailMessage{id: id, threadID: tid, from: mb.address, to: strArg(c.args, "recipient_email"), subject: subject,
		body: strArg(c.args, "message_body"), cc: stringsArgOf(c.args, "cc"), bcc: stringsArgOf(c.args, "bcc"),
		isHTML: boolArgOr(c.args, "is_html", false), labels: []string{"SENT"}, at: c.now}
	mb.add(msg)
	return opResult{data: map[string]any{"id": id, "threadId": tid, "labelIds": []string{"SENT"}}, objectID: id, committed: true}
}

func (w *world) gmailDraft(c *call) opResult {
	mb, bad := w.mailboxOf(c)
	if bad != nil {
		return *bad
	}
	mid := w.newMessageID()
	tid := strArg(c.args, "thread_id")
	if tid != "" {
		if len(mb.threads[tid]) == 0 {
			return fail(http.StatusNotFound, "Requested entity was not found. (thread %s)", tid)
		}
	} else {
		tid = mid
	}
	msg := &gmailMessage{
		id:       mid,
		threadID: tid,
		from:     mb.address,
		to:       strArg(c.args, "recipient_email"),
		subject:  strArg(c.args, "subject"),
		body:     strArg(c.args, "body"),
		cc:       stringsArgOf(c.args, "cc"),
		bcc:      stringsArgOf(c.args, "bcc"),
		isHTML:   boolArgOr(c.args, "is_html", false),
		labels:   []string{"DRAFT"},
		at:       c.now,
	}
	d := &gmailDraft{id: "r" + strconv.FormatUint(w.ids.next()%9e18, 10), message: msg}
	mb.drafts = append(mb.drafts, d)
	return opResult{data: map[string]any{"id": d.id, "message": map[string]any{"id": mid, "threadId": tid, "labelIds": []string{"DRAFT"}}},
		objectID: d.id, committed: true}
}

func (w *world) gmailLabel(c *call) opResult {
	msg, bad := w.messageOf(c)
	if bad != nil {
		return *bad
	}
	add, remove := stringsArgOf(c.args, "add_label_ids"), stringsArgOf(c.args, "remove_label_ids")
	if len(add) == 0 && len(remove) == 0 {
		return fail(http.StatusBadRequest, "No label add or removes specified")
	}
	for _, l := range add {
		if !msg.hasLabel(l) {
			msg.labels = append(msg.labels, l)
		}
	}
	kept := msg.labels[:0:0]
	for _, l := range msg.labels {
		drop := false
		for _, r := range remove {
			drop = drop || strings.EqualFold(l, r)
		}
		if !drop {
			kept = append(kept, l)
		}
	}
	msg.labels = kept
	return opResult{data: map[string]any{"id": msg.id, "threadId": msg.threadID, "labelIds": append([]string{}, msg.labels...)},
		objectID: msg.id, committed: true}
}

func (w *world) gmailDelete(c *call) opResult {
	msg, bad := w.messageOf(c)
	if bad != nil {
		return *bad
	}
	msg.deleted = true
	return opResult{data: map[string]any{}, objectID: msg.id, committed: true}
}

func (w *world) gmailFetchByID(c *call) opResult {
	msg, bad := w.messageOf(c)
	if bad != nil {
		return *bad
	}
	return opResult{data: msg.json(true, false)}
}

func (w *world) gmailFetchThread(c *call) opResult {
	mb, bad := w.mailboxOf(c)
	if bad != nil {
		return *bad
	}
	tid := strArg(c.args, "thread_id")
	var out []any
	for _, m := range mb.threads[tid] {
		if !m.deleted {
			out = append(out, m.json(true, false))
		}
	}
	if len(out) == 0 {
		return fail(http.StatusNotFound, "Requested entity was not found. (thread %s)", tid)
	}
	return opResult{data: map[string]any{"id": tid, "messages": out}}
}

func (w *world) gmailListDrafts(c *call) opResult {
	mb, bad := w.mailboxOf(c)
	if bad != nil {
		return *bad
	}
	limit := pageSize(intArgOr(c.args, "max_results", 10), 10, 500)
	offset, _ := strconv.Atoi(strArg(c.args, "page_token"))
	verbose := boolArgOr(c.args, "verbose", true)
	var out []any
	total := 0
	for i := len(mb.drafts) - 1; i >= 0; i-- {
		total++
		if total <= offset || len(out) >= limit {
			continue
		}
		d := mb.drafts[i]
		m := map[string]any{"id": d.message.id, "threadId": d.message.threadID}
		if verbose {
			m["to"], m["subject"], m["body"], m["messageTimestamp"] = d.message.to, d.message.subject, d.message.body, iso(d.message.at)
		}
		out = append(out, map[string]any{"id": d.id, "message": m})
	}
	next := ""
	if offset+len(out) < total {
		next = strconv.Itoa(offset + len(out))
	}
	if out == nil {
		out = []any{}
	}
	return opResult{data: map[string]any{"drafts": out, "nextPageToken": next, "resultSizeEstimate": total}}
}

func (w *world) gmailFetch(c *call) opResult {
	mb, bad := w.mailboxOf(c)
	if bad != nil {
		return *bad
	}
	q := parseGmailQuery(strArg(c.args, "query"), c.now)
	labels := stringsArgOf(c.args, "label_ids")
	limit := pageSize(intArgOr(c.args, "max_results", 10), 10, 500)
	offset, _ := strconv.Atoi(strArg(c.args, "page_token"))
	verbose, idsOnly := boolArgOr(c.args, "verbose", true), boolArgOr(c.args, "ids_only", false)
	spam := boolArgOr(c.args, "include_spam_trash", false)
	matched := make([]*gmailMessage, 0, 16)
	for _, m := range mb.messages {
		if m.deleted || (!spam && (m.hasLabel("SPAM") || m.hasLabel("TRASH"))) || !q.match(m) {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && m.hasLabel(l)
		}
		if ok {
			matched = append(matched, m)
		}
	}
	sort.SliceStable(matched, func(i, j int) bool { return matched[i].at.After(matched[j].at) })
	out := []any{}
	for i := offset; i < len(matched) && len(out) < limit; i++ {
		out = append(out, matched[i].json(verbose, idsOnly))
	}
	next := ""
	if offset+len(out) < len(matched) {
		next = strconv.Itoa(offset + len(out))
	}
	return opResult{data: map[string]any{"messages": out, "nextPageToken": next, "resultSizeEstimate": len(matched)}}
}

// gmailQuery is a parsed subset of Gmail's search syntax; every term must match.
type gmailQuery struct{ terms []gmailTerm }

type gmailTerm struct {
	op     string // to, from, cc, bcc, subject, label, in, is, after, before, text
	value  string
	t      time.Time
	negate bool
}

// parseGmailQuery reads to:, from:, cc:, bcc:, subject:, label:, in:, is:, after:, before:,
// newer_than:, older_than:, quoted phrases, parenthesised groups (as one value) and plain
// words; a leading '-' negates a term. Unknown operators are matched as plain text.
func parseGmailQuery(q string, now time.Time) gmailQuery {
	var out gmailQuery
	for _, tok := range tokenizeQuery(q) {
		term := gmailTerm{}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			term.negate, tok = true, tok[1:]
		}
		op, val, has := strings.Cut(tok, ":")
		op = strings.ToLower(op)
		if !has || val == "" {
			term.op, term.value = "text", unquote(tok)
			out.terms = append(out.terms, term)
			continue
		}
		val = unquote(val)
		switch op {
		case "to", "from", "cc", "bcc", "subject", "label", "in", "is":
			term.op, term.value = op, val
		case "after", "before":
			t, ok := gmailDate(val)
			if !ok {
				term.op, term.value = "text", tok
				break
			}
			term.op, term.t = op, t
		case "newer_than", "older_than":
			d, ok := gmailRelative(val)
			if !ok {
				term.op, term.value = "text", tok
				break
			}
			term.op, term.t = "after", now.Add(-d)
			if op == "older_than" {
				term.op = "before"
			}
		default:
			term.op, term.value = "text", unquote(tok)
		}
		out.terms = append(out.terms, term)
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && ((s[0] == '"' && s[len(s)-1] == '"') || (s[0] == '(' && s[len(s)-1] == ')')) {
		return s[1 : len(s)-1]
	}
	return s
}

// tokenizeQuery splits on spaces outside quotes and parentheses.
func tokenizeQuery(q string) []string {
	var out []string
	var cur strings.Builder
	inQuote, depth := false, 0
	for _, r := range q {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == '(' && !inQuote:
			depth++
		case r == ')' && !inQuote && depth > 0:
			depth--
		}
		if (r == ' ' || r == '\t' || r == '\n') && !inQuote && depth == 0 {
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// gmailDate reads epoch seconds or YYYY/MM/DD (also with dashes), as UTC.
func gmailDate(s string) (time.Time, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return time.Unix(n, 0).UTC(), true
	}
	for _, layout := range []string{"2006/01/02", "2006-01-02", "2006/1/2"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// gmailRelative reads 3d, 12h, 2m (months), 1y.
func gmailRelative(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n < 0 {
		return 0, false
	}
	unit := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'm': 30 * 24 * time.Hour, 'y': 365 * 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

func (q gmailQuery) match(m *gmailMessage) bool {
	for _, t := range q.terms {
		if t.matchOne(m) == t.negate {
			return false
		}
	}
	return true
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func (t gmailTerm) matchOne(m *gmailMessage) bool {
	switch t.op {
	case "to":
		if containsFold(m.to, t.value) {
			return true
		}
		for _, x := range append(append([]string{}, m.cc...), m.bcc...) {
			if containsFold(x, t.value) {
				return true
			}
		}
		return false
	case "from":
		return containsFold(m.from, t.value)
	case "cc":
		return containsFold(strings.Join(m.cc, ","), t.value)
	case "bcc":
		return containsFold(strings.Join(m.bcc, ","), t.value)
	case "subject":
		return containsFold(m.subject, t.value)
	case "label":
		return m.hasLabel(t.value) || m.hasLabel(strings.ReplaceAll(t.value, "-", " "))
	case "in":
		switch strings.ToLower(t.value) {
		case "anywhere":
			return true
		case "sent":
			return m.hasLabel("SENT")
		case "inbox":
			return m.hasLabel("INBOX")
		case "drafts", "draft":
			return m.hasLabel("DRAFT")
		}
		return m.hasLabel(t.value)
	case "is":
		switch strings.ToLower(t.value) {
		case "unread":
			return m.hasLabel("UNREAD")
		case "read":
			return !m.hasLabel("UNREAD")
		}
		return m.hasLabel(t.value)
	case "after":
		return !m.at.Before(t.t)
	case "before":
		return m.at.Before(t.t)
	}
	v := t.value
	return containsFold(m.subject, v) || containsFold(m.body, v) || containsFold(m.from, v) || containsFold(m.to, v)
}
