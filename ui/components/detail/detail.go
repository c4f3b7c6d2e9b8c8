// Package detail renders the log detail pane's content: ids, times, duration, tool and kind,
// account, user, SDK, status and error, triage's outcome and reason, the duplicate group, and
// the pretty-printed arguments and response. Every value from the data has its secrets hidden
// (unless the person revealed them; the configured API key always) and is cleaned of anything
// a terminal would act on; big values are cut with a marker.
package detail

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/ui/styles"
)

// NoStoredData is what the pane says of a full record without arguments or response.
const NoStoredData = "this project's logs keep no arguments and no response (\"Don't store data\"): no provider check and no guarded " +
	"retry can be made from them"

// Renderer renders the detail pane. It keeps the rendered bodies (arguments, response, error
// message) of the last few executions: they are the costly part (redaction, indenting, up to
// MaxParse bytes each), and the pane is rebuilt on every message. Use it from one goroutine.
type Renderer struct {
	// Secrets hides secrets; nil redacts by pattern only.
	Secrets *redact.Policy
	cache   [4]bodies
	next    int
}

// bodies are one execution's rendered bodies and the inputs they came from.
type bodies struct {
	id         string
	reveal     bool
	args, resp json.RawMessage
	msg        string
	argsOut    string
	respOut    string
	msgOut     string
	ok         bool
}

// same reports whether a and b are the same bytes in memory (a record replaced by its full
// detail has new slices, so the cache never serves a stale body).
func same(a, b json.RawMessage) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (r *Renderer) bodies(st *styles.Styles, e *model.Execution, reveal bool) *bodies {
	msg := ""
	if e.Error != nil {
		msg = e.Error.Message
	}
	for k := range r.cache {
		c := &r.cache[k]
		if c.ok && c.id == e.ID && c.reveal == reveal && same(c.args, e.Arguments) && same(c.resp, e.Response) && c.msg == msg {
			return c
		}
	}
	c := &r.cache[r.next]
	r.next = (r.next + 1) % len(r.cache)
	*c = bodies{id: e.ID, reveal: reveal, args: e.Arguments, resp: e.Response, msg: msg, ok: true,
		argsOut: common.Body(e.Arguments, r.Secrets, reveal),
		respOut: common.Body(e.Response, r.Secrets, reveal),
	}
	if msg != "" {
		// line by line: a style over a block pads every line to the widest one
		lines := strings.Split(common.TextBody(msg, r.Secrets, reveal), "\n")
		for k, l := range lines {
			lines[k] = st.Danger.Render(l)
		}
		c.msgOut = strings.Join(lines, "\n")
	}
	return c
}

// Content renders the detail of execution i of the store (the full record when fetched).
// loading says the full record is being fetched; reveal shows the secrets that are not known
// (the configured API key stays hidden).
func (r *Renderer) Content(st *styles.Styles, s *data.Store, i int, loading, reveal bool) string {
	if s.DS == nil || i < 0 || i >= s.DS.Len() {
		return st.List.Empty.Render("no execution selected")
	}
	e := s.Exec(i)
	tr := s.DS.Triage(i)
	t := &tr
	var b strings.Builder
	row := func(label, value string) {
		if value == "" {
			return
		}
		b.WriteString(common.LabelMark)
		b.WriteString(st.Pane.Label.Render(fmt.Sprintf("%-9s", label)))
		b.WriteString(" ")
		b.WriteString(value)
		b.WriteString("\n")
	}
	c := func(v string) string { return common.Field(v, r.Secrets, reveal) }
	// The most telling facts first: on a short screen the pane shows only its top.
	row("id", st.Bold.Render(c(e.ID)))
	row("tool", st.Bold.Render(c(e.ToolSlug))+"  "+st.Muted.Render(string(t.Kind))+"  "+st.Muted.Render("toolkit ")+c(e.ToolkitSlug))
	row("outcome", outcome(st, t)+"  "+c(t.Reason))
	if t.Flagged {
		row("flagged", st.List.Marker.Render("!")+" a write whose outcome needs a person: verify before any retry")
	}
	status := e.Status
	status = cmp.Or(status, "no terminal status")
	if e.Error != nil {
		status += "  " + strings.Join(nonEmpty(string(e.Error.Kind), httpStatus(e.Error.HTTPStatus)), " ")
	}
	row("status", c(status))
	if e.HasDuration {
		row("duration", common.Duration(e.Duration))
	} else {
		row("duration", "unknown")
	}
	row("time", common.FullTime(e.Timestamp))
	if !e.StartTime.IsZero() || !e.EndTime.IsZero() {
		row("start/end", common.FullTime(e.StartTime)+" → "+common.FullTime(e.EndTime))
	}
	row("account", c(e.ConnectedAccountID))
	row("user", c(e.UserID))
	sdk := strings.TrimSpace(strings.Join(nonEmpty(c(e.Source.Language), c(e.Source.Framework), c(e.SDKVersion), c(e.Source.Host)), " "))
	if e.RetryCount >= 0 {
		sdk += fmt.Sprintf("  retry count %d", e.RetryCount)
	}
	row("sdk", sdk)
	if t.OldSDK != "" {
		row("old sdk", st.Warn.Render(c(t.OldSDK)))
	}
	row("request", c(e.RequestID))
	row("session", c(e.SessionID)) // t lines the session up
	row("trace", c(e.TraceID))
	if e.Parent != nil {
		row("parent", c(e.Parent.LogID+" "+e.Parent.ToolSlug))
	}
	if sd, ok := s.DS.Deliveries.StartedBy(e); ok { // the trigger delivery whose handler made it
		how := "the same user and account, seconds before"
		if sd.ByID {
			how = "its trace names the event"
		}
		row("trigger", c(sd.ID)+fmt.Sprintf("  event %s  attempt %d", c(sd.EventID), sd.Attempt)+st.Muted.Render("  ("+how+")"))
	}
	d := e.Delivery
	if known, ok := s.DS.Deliveries.Delivery(e.ID); d == nil && ok { // the Logs API's detail has none: the trigger logs had it
		d = &known
	}
	if d != nil { // a trigger delivery: what identifies it (show has the same)
		what := "event " + c(d.EventID)
		if d.Attempt > 0 {
			what += fmt.Sprintf("  attempt %d", d.Attempt)
		}
		if d.TriggerID != "" {
			what += "  trigger " + c(d.TriggerID)
		}
		row("delivery", what)
		if d.Error != "" {
			row("", st.Warn.Render("the handler failed: "+c(d.Error)))
		}
		if sub, ok := s.DS.Deliveries.SubscriptionOf(e.ID); ok {
			row("", st.Warn.Render(c(sub.Line())))
		}
	}
	if g := s.DS.Group(i); g != nil {
		gaps := make([]string, len(g.Gaps))
		for k, d := range g.Gaps {
			gaps[k] = common.Gap(d)
		}
		eff := "unknown"
		if g.Effective >= 0 {
			eff = fmt.Sprintf("%d of %d", g.Effective, len(g.ExecutionIDs))
		}
		row("duplicate", st.Warn.Render(fmt.Sprintf("DUP×%d %s", len(g.ExecutionIDs), c(string(g.Pattern))))+
			"  gaps "+strings.Join(gaps, " ")+"  took effect: "+eff)
		row("", st.Muted.Render(c(g.Match)))
		row("", st.Muted.Render(c(g.Reason)))
		if len(g.Deliveries) > 0 {
			row("", st.Muted.Render("trigger deliveries: "+c(strings.Join(g.Deliveries, " → "))))
		}
	}
	if v, ok := s.Verdicts[e.ID]; ok {
		row("verdict", string(v))
	}
	if orig, ok := s.RetryOf[e.ID]; ok {
		row("retry of", c(orig)+st.Muted.Render("  (made by a guarded retry)"))
	}
	for _, a := range s.Attempts[e.ID] {
		if a.NewLogID != "" {
			row("retried as", c(a.NewLogID)+st.Muted.Render("  ("+string(a.State)+")"))
		}
	}
	section := func(name string) {
		b.WriteString("\n")
		b.WriteString(st.Pane.Section.Render("── " + name + " "))
		b.WriteString("\n")
	}
	if !e.Detailed {
		b.WriteString("\n")
		switch {
		case s.Full(e.ID):
			b.WriteString(st.Muted.Render("the source has only this list entry: no arguments or response to show"))
		case loading:
			b.WriteString(st.Muted.Render("loading the full record…"))
		default:
			b.WriteString(st.Muted.Render("the full record (arguments, response) loads when the selection rests"))
		}
		return strings.TrimRight(b.String(), "\n")
	}
	bs := r.bodies(st, e, reveal)
	if e.IsToolExecution() && len(e.Arguments) == 0 && len(e.Response) == 0 {
		b.WriteString("\n")
		b.WriteString(st.Muted.Render(NoStoredData))
		b.WriteString("\n")
	}
	section("arguments")
	b.WriteString(bs.argsOut)
	b.WriteString("\n")
	if bs.msgOut != "" {
		section("error")
		b.WriteString(bs.msgOut)
		b.WriteString("\n")
	}
	section("response")
	b.WriteString(bs.respOut)
	return b.String()
}

func outcome(st *styles.Styles, t *model.Triage) string {
	o := strings.ToUpper(string(t.Outcome))
	switch t.Outcome {
	case model.OutcomeAmbiguous:
		return st.Badge.Ambiguous.Render(o)
	case model.OutcomeRejected:
		return st.Badge.Rejected.Render(o)
	case model.OutcomeFailed:
		return st.Badge.Failed.Render(o)
	case model.OutcomeWaiting:
		return st.Badge.Waiting.Render(o)
	case model.OutcomeSucceeded:
		return st.OK.Render(o)
	}
	return st.Muted.Render("UNKNOWN")
}

func httpStatus(code int) string {
	if code == 0 {
		return ""
	}
	return fmt.Sprintf("http %d", code)
}

func nonEmpty(ss ...string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
