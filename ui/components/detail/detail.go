// Package detail renders the log detail pane's content: ids, times, duration, tool and kind,
// account, user, SDK, status and error, triage's outcome and reason, the duplicate group, and
// the pretty-printed arguments and response. Every value from the data is cleaned first.
package detail

import (
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/ui/styles"
)

// Content renders the detail of execution i of the store (the full record when fetched).
// loading says the full record is being fetched.
func Content(st *styles.Styles, s *data.Store, i int, loading bool) string {
	if s.DS == nil || i < 0 || i >= s.DS.Len() {
		return st.List.Empty.Render("no execution selected")
	}
	e := s.Exec(i)
	t := &s.DS.Triage[i]
	var b strings.Builder
	row := func(label, value string) {
		if value == "" {
			return
		}
		b.WriteString(st.Pane.Label.Render(fmt.Sprintf("%-9s", label)))
		b.WriteString(" ")
		b.WriteString(value)
		b.WriteString("\n")
	}
	c := common.Clean
	// The most telling facts first: on a short screen the pane shows only its top.
	row("id", st.Bold.Render(c(e.ID)))
	row("tool", st.Bold.Render(c(e.ToolSlug))+"  "+st.Muted.Render(string(t.Kind))+"  "+st.Muted.Render("toolkit ")+c(e.ToolkitSlug))
	row("outcome", outcome(st, t)+"  "+c(t.Reason))
	if t.Flagged {
		row("flagged", st.List.Marker.Render("!")+" a write whose outcome needs a person: verify before any retry")
	}
	status := e.Status
	if status == "" {
		status = "no terminal status"
	}
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
	if e.Parent != nil {
		row("parent", c(e.Parent.LogID+" "+e.Parent.ToolSlug))
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
		row("", st.Muted.Render(c(g.Reason)))
	}
	if v, ok := s.Verdicts[e.ID]; ok {
		row("verdict", string(v))
	}
	section := func(name string) {
		b.WriteString("\n")
		b.WriteString(st.Pane.Section.Render("── " + name + " "))
		b.WriteString("\n")
	}
	if !e.Detailed {
		b.WriteString("\n")
		if loading {
			b.WriteString(st.Muted.Render("loading the full record…"))
		} else {
			b.WriteString(st.Muted.Render("list entry only: press enter for arguments and response"))
		}
		return strings.TrimRight(b.String(), "\n")
	}
	section("arguments")
	b.WriteString(common.PrettyJSON(e.Arguments))
	b.WriteString("\n")
	if e.Error != nil && e.Error.Message != "" {
		section("error")
		b.WriteString(st.Danger.Render(common.CleanBlock(e.Error.Message)))
		b.WriteString("\n")
	}
	section("response")
	b.WriteString(common.PrettyJSON(e.Response))
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
