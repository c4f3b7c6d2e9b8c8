package sandbox

import (
	"cmp"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// workspace is one company's Slack workspace.
type workspace struct {
	teamID   string
	botUser  string
	channels []*channel
}

type channel struct {
	id, name string
	messages []*slackMessage // ascending ts
	lastTS   string
}

type slackMessage struct {
	ts, user, text, threadTS string
	us                       int64 // ts in microseconds, for ordering
	at                       time.Time
}

func (ws *workspace) find(ref string) *channel {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "#")
	for _, ch := range ws.channels {
		if ch.id == ref || strings.EqualFold(ch.name, ref) {
			return ch
		}
	}
	return nil
}

// slackTS renders t as a Slack ts ("seconds.micros"), unique and increasing in the channel.
func (ch *channel) nextTS(t time.Time) string {
	ts := fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000)
	if ch.lastTS != "" && compareTS(ts, ch.lastTS) <= 0 {
		sec, micro := splitTS(ch.lastTS)
		micro++
		if micro >= 1e6 {
			sec, micro = sec+1, 0
		}
		ts = fmt.Sprintf("%d.%06d", sec, micro)
	}
	ch.lastTS = ts
	return ts
}

func splitTS(ts string) (sec, micro int64) {
	a, b, _ := strings.Cut(ts, ".")
	sec, _ = strconv.ParseInt(a, 10, 64)
	if b != "" {
		b = (b + "000000")[:6]
		micro, _ = strconv.ParseInt(b, 10, 64)
	}
	return sec, micro
}

// tsMicros reads a Slack ts as microseconds.
func tsMicros(ts string) int64 {
	sec, micro := splitTS(ts)
	return sec*1e6 + micro
}

// compareTS orders Slack ts strings numerically.
func compareTS(a, b string) int {
	return cmp.Compare(tsMicros(a), tsMicros(b))
}

func (ch *channel) post(ts, user, text, threadTS string, at time.Time) *slackMessage {
	m := &slackMessage{ts: ts, us: tsMicros(ts), user: user, text: text, threadTS: threadTS, at: at}
	ch.messages = append(ch.messages, m)
	return m
}

func (m *slackMessage) json() map[string]any {
	out := map[string]any{"type": "message", "user": m.user, "text": m.text, "ts": m.ts}
	if m.threadTS != "" {
		out["thread_ts"] = m.threadTS
	}
	return out
}

func (w *world) workspaceOf(c *call) (*workspace, *opResult) {
	if c.acct == nil || c.acct.company == nil || c.acct.toolkit != "slack" {
		r := fail(http.StatusBadRequest, "not_authed")
		return nil, &r
	}
	return c.acct.company.slack, nil
}

// channelOf is the workspace of the call's account and the channel its channel argument names,
// or the error to answer with.
func (w *world) channelOf(c *call) (*workspace, *channel, *opResult) {
	ws, bad := w.workspaceOf(c)
	if bad != nil {
		return nil, nil, bad
	}
	ch := ws.find(strArg(c.args, "channel"))
	if ch == nil {
		r := fail(http.StatusNotFound, "channel_not_found")
		return nil, nil, &r
	}
	return ws, ch, nil
}

func (w *world) slackSend(c *call) opResult {
	ws, ch, bad := w.channelOf(c)
	if bad != nil {
		return *bad
	}
	text := cmp.Or(strArg(c.args, "markdown_text"), strArg(c.args, "text"), strArg(c.args, "blocks"))
	if text == "" {
		return fail(http.StatusBadRequest, "no_text")
	}
	threadTS := strArg(c.args, "thread_ts")
	ts := ch.nextTS(c.now)
	m := ch.post(ts, ws.botUser, text, threadTS, c.now)
	return opResult{data: map[string]any{"ok": true, "channel": ch.id, "ts": ts, "message": m.json()},
		objectID: ch.id + ":" + ts, committed: true}
}

// slackBound reads a ts string or epoch seconds (number or string); "" or 0 is no bound.
func slackBound(v any) (string, bool) {
	switch t := v.(type) {
	case nil:
		return "", true
	case string:
		t = strings.TrimSpace(t)
		if t == "" || t == "0" {
			return "", true
		}
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			return "", false
		}
		return t, true
	case float64:
		if t <= 0 {
			return "", true
		}
		return strconv.FormatFloat(t, 'f', 6, 64), true
	}
	return "", false
}

func (w *world) slackHistory(c *call) opResult {
	_, ch, bad := w.channelOf(c)
	if bad != nil {
		return *bad
	}
	oldest, ok1 := slackBound(c.args["oldest"])
	latest, ok2 := slackBound(c.args["latest"])
	if !ok1 || !ok2 {
		return fail(http.StatusBadRequest, "invalid_ts_oldest")
	}
	inclusive := boolArgOr(c.args, "inclusive", false)
	limit := pageSize(intArgOr(c.args, "limit", 100), 100, 1000)
	skip, _ := strconv.Atoi(strArg(c.args, "cursor"))
	lo, hi := int64(-1), int64(1)<<62
	if oldest != "" {
		lo = tsMicros(oldest)
	}
	if latest != "" {
		hi = tsMicros(latest)
	}
	// ch.messages is in ascending ts order (nextTS makes every ts larger than the last).
	var in []*slackMessage
	for i := len(ch.messages) - 1; i >= 0; i-- {
		m := ch.messages[i]
		if m.us < lo || m.us > hi || (!inclusive && (m.us == lo || m.us == hi)) {
			continue
		}
		in = append(in, m)
	}
	out := []any{}
	for i := skip; i < len(in) && len(out) < limit; i++ {
		out = append(out, in[i].json())
	}
	next, more := "", skip+len(out) < len(in)
	if more {
		next = strconv.Itoa(skip + len(out))
	}
	return opResult{data: map[string]any{"ok": true, "messages": out, "has_more": more, "pin_count": 0,
		"response_metadata": map[string]any{"next_cursor": next}}}
}
