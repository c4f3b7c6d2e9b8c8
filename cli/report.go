package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sanitize"
)

// report is what the read commands print from: the session, the loaded window and its
// triage, and the secret policy every printed string goes through.
type report struct {
	a      *app.App
	s      *app.Scanned // scan's rows
	c      *app.Chosen  // show's executions
	policy *redact.Policy
	first  map[string]int // scan: the position of each group's first member
	// whole: stdout is not a terminal (a file, a pipe), so no line is cut to a column width:
	// a reason or a fix cut with … in a saved report is advice lost.
	whole bool
}

func newReport(env *Env, a *app.App) *report {
	return &report{a: a, policy: a.Policy(), whole: !isTerminal(env.Stdout)}
}

// newScanReport is scan's report, over rows.
func newScanReport(env *Env, a *app.App, s *app.Scanned) *report {
	return &report{a: a, s: s, policy: a.Policy(), whole: !isTerminal(env.Stdout)}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// terminalWidth is the width of the terminal w writes to, 0 when it is not one (a pipe or a
// file: no line is fitted to a width).
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0
	}
	cols, _, err := term.GetSize(f.Fd())
	if err != nil || cols <= 0 {
		return 0
	}
	return cols
}

// hide applies the secret policy to a string from the record: the configured key never shows.
func (r *report) hide(s string) string {
	if !r.policy.HasKnown() {
		return s
	}
	return r.policy.Text(s, true)
}

// str is a string from the record made safe to print: key hidden, controls escaped.
func (r *report) str(s string) string { return sanitize.String(r.hide(s)) }

// line is str cut to n columns on a terminal, whole elsewhere.
func (r *report) line(s string, n int) string {
	if r.whole {
		return r.str(s)
	}
	return sanitize.Line(r.hide(s), n)
}

// groupTool is the tool of a group's first member.
func (r *report) groupTool(g *model.DuplicateGroup) string {
	if len(g.ExecutionIDs) == 0 {
		return ""
	}
	if r.first != nil {
		if i, ok := r.first[g.ExecutionIDs[0]]; ok && i >= 0 {
			return r.s.Tool(i)
		}
		return ""
	}
	if r.c != nil {
		return r.c.GroupTool(g.ID)
	}
	return ""
}

// indexFirstMembers maps the first member of each duplicate group to its position (scan
// looks up only those; indexing a million ids would cost more than the scan).
func (r *report) indexFirstMembers() {
	r.first = make(map[string]int, len(r.s.Groups))
	for i := range r.s.Groups {
		if ids := r.s.Groups[i].ExecutionIDs; len(ids) > 0 {
			r.first[ids[0]] = -1
		}
	}
	for i := range r.s.Len() {
		if p, ok := r.first[r.s.ID(i)]; ok && p < 0 {
			r.first[r.s.ID(i)] = i
		}
	}
}

func (r *report) summary() summaryJSON {
	sum := summaryJSON{Executions: r.s.Len(), ByOutcome: map[string]int{}, ByKind: map[string]int{}}
	for _, o := range outcomeOrder {
		sum.ByOutcome[string(o)] = 0
	}
	for _, k := range kindOrder {
		sum.ByKind[string(k)] = 0
	}
	for i := range r.s.Len() {
		t := r.s.Triage(i)
		sum.ByOutcome[string(t.Outcome)]++
		sum.ByKind[string(t.Kind)]++
		if t.Flagged {
			sum.Flagged++
		}
		if t.Case != nil && t.Case.Settled {
			sum.Settled++
		}
	}
	return sum
}

// header is the first line of every human report: where the data came from and what span.
func (r *report) header(w io.Writer, now time.Time) {
	fmt.Fprintf(w, "source: %s", r.str(r.a.SourceName()))
	if since := r.a.Window(); since > 0 {
		fmt.Fprintf(w, " · since %s (%s)", shortDuration(since), stamp(now.Add(-since)))
	}
	fmt.Fprintf(w, " · %d executions", r.s.Len())
	if n := r.s.Len(); n > 0 {
		fmt.Fprintf(w, " · %s … %s", stamp(r.s.Timestamp(n-1)), stamp(r.s.Timestamp(0)))
	}
	fmt.Fprintln(w)
}

var (
	outcomeOrder = model.Outcomes()
	kindOrder    = []model.ToolKind{model.KindRead, model.KindIdempotentWrite, model.KindWrite}
)

// width is the display width of an already sanitized line (runes; sanitize escapes the
// rest).
func width(s string) int { return len([]rune(s)) }

func pad(s string, n int) string {
	if d := n - width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

func who(e *model.Execution) string {
	switch {
	case e.UserID != "" && e.ConnectedAccountID != "":
		return e.UserID + "/" + e.ConnectedAccountID
	case e.UserID != "":
		return e.UserID
	case e.ConnectedAccountID != "":
		return e.ConnectedAccountID
	}
	return "-"
}

// stamp formats a time in UTC to the second; "-" when unknown.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-------------------"
	}
	return model.When(t)
}

func duration(e *model.Execution) string {
	if !e.HasDuration {
		return "-"
	}
	return shortDuration(e.Duration)
}

func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d%time.Hour == 0 && d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
