// Package provider renders the provider-state pane's content: which verifier ran which read
// tool, whether the effect was found (with the matching objects as evidence), and the journal's
// history of this execution (confirmations, retry attempts, verdicts). Every value from the
// data has its secrets hidden (unless revealed; the configured API key always) and is cleaned.
package provider

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/data"
	"github.com/exectriage/exectriage/ui/styles"
)

// Content renders the provider state and journal history of execution i. spin is the
// spinner's current frame (shown while a verify runs); sec hides secrets, all of them unless
// reveal (the known ones always).
func Content(st *styles.Styles, s *data.Store, i int, spin string, sec *redact.Policy, reveal bool, verifyKey string) string {
	if s.DS == nil || i < 0 || i >= s.DS.Len() {
		return st.List.Empty.Render("no execution selected")
	}
	e := s.Exec(i)
	tr := s.DS.Triage(i)
	t := &tr
	c := func(v string) string { return common.Field(v, sec, reveal) }
	var b strings.Builder
	row := func(label, value string) {
		b.WriteString(common.LabelMark)
		b.WriteString(st.Pane.Label.Render(fmt.Sprintf("%-9s", label)))
		b.WriteString(" ")
		b.WriteString(value)
		b.WriteString("\n")
	}
	ps, verified := s.Provider[e.ID]
	switch {
	case s.Verifying[e.ID]:
		row("state", st.Info.Render(spin+" checking the provider…"))
	case !verified && !t.Kind.IsWrite():
		row("state", st.Muted.Render("a read: nothing to verify"))
	case !verified:
		row("state", st.Muted.Render("not verified yet: press "+verifyKey+" to ask the provider"))
	default:
		row("state", State(st, ps.State)+"  "+meaning(ps.State))
		v := c(ps.Verifier)
		if ps.ReadTool != "" {
			v += " via " + c(ps.ReadTool)
		}
		v = cmp.Or(v, "none")
		row("verifier", v)
		if !ps.CheckedAt.IsZero() {
			row("checked", common.FullTime(ps.CheckedAt))
		}
		if ps.Reason != "" {
			row("reason", c(ps.Reason))
		}
		if len(ps.ReadArgs) > 0 {
			args := string(ps.ReadArgs) // Field cuts a huge one before redacting it as text
			if len(ps.ReadArgs) <= common.MaxParse {
				args = string(sec.JSON(ps.ReadArgs, reveal))
			}
			row("read args", c(args))
		}
		if len(ps.Matches) > 0 {
			b.WriteString(st.Pane.Label.Render("evidence"))
			b.WriteString("\n")
			for _, m := range ps.Matches {
				line := "  • " + c(m.ID)
				if !m.Time.IsZero() {
					line += "  " + common.Stamp(m.Time)
				}
				if m.Summary != "" {
					line += "  " + c(m.Summary)
				}
				if n := m.RetryNote(); n != "" {
					line += "  ← " + c(n)
				}
				b.WriteString(line)
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\n")
	b.WriteString(st.Pane.Section.Render("── journal "))
	b.WriteString("\n")
	hist := s.History[e.ID]
	if len(hist) == 0 {
		b.WriteString(st.Muted.Render("no confirmations, retries or verdicts recorded"))
	}
	for _, h := range hist {
		b.WriteString(st.Muted.Render(common.Stamp(h.Time)))
		b.WriteString("  ")
		b.WriteString(c(h.Text))
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// State renders a provider state word so it reads without colour too.
func State(st *styles.Styles, k model.ProviderStateKind) string {
	switch k {
	case model.ProviderFound:
		return st.Badge.Found.Render("FOUND")
	case model.ProviderNotFound:
		return st.Badge.Verified.Render("NOT FOUND")
	}
	return st.Badge.Marked.Render("UNKNOWN")
}

func meaning(k model.ProviderStateKind) string {
	switch k {
	case model.ProviderFound:
		return "the effect exists: do not retry"
	case model.ProviderNotFound:
		return "checked: not found since the execution started"
	}
	return "could not tell"
}
