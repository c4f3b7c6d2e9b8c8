// Package bundle writes the Markdown support bundle Composio support asks for when a write may
// have happened twice or not at all: the SDK versions seen, each execution's log id, request id,
// timestamps, tool, outcome and reason, what the provider shows, the duplicate group it belongs
// to, the journal's history, and why a timeout calls for a look at the provider before any
// retry. Every string taken from a log, the API or a provider goes through redact (secrets) and
// sanitize (terminal controls), and lands in a code span or fence, so the bundle can be pasted
// into a ticket without leaking a token or smuggling markup. Output is deterministic.
package bundle

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/redact"
	"github.com/exectriage/exectriage/sanitize"
	"github.com/exectriage/exectriage/sdkversion"
	"github.com/exectriage/exectriage/triage"
)

// Item is one execution in the bundle with what is known about it.
type Item struct {
	Exec     model.Execution
	Triage   model.Triage
	Provider *model.ProviderState  // nil: not checked
	Group    *model.DuplicateGroup // nil: in no duplicate group
	History  []string              // journal lines, oldest first; nil when no journal was read
	// Session is every execution of the item's tool-router session (the item too), when it
	// has one and they were found: the bundle shows them as a timeline, oldest first.
	Session []model.Execution
	// SessionNote says why the session's executions could not be read ("" when they were).
	SessionNote string
}

// Input is everything Render needs.
type Input struct {
	Items       []Item
	GeneratedAt time.Time
	Source      string // "LIVE", "DEMO", "FILE x.jsonl"
	Version     string // exectriage's version
	// Redactor removes secrets; nil redacts by pattern only. Build it with the configured
	// COMPOSIO_API_KEY so the key is removed wherever it appears.
	Redactor *redact.Redactor
	// HistoryNote says why History is empty for every item (no journal); "" when it was read.
	HistoryNote string
	// NoJournal: no journal was open (HistoryNote, when it is "", says so).
	NoJournal bool
	// Command writes an exectriage command line of the bundle's session ("exectriage --demo
	// verify ID"); nil writes "exectriage VERB ARGS".
	Command func(verb string, args ...string) string
}

// Limits on what one bundle shows of a single value.
const (
	maxInline = 400       // cells of a one-line value
	maxBlock  = 16 * 1024 // bytes of a JSON block (arguments, response)
)

// TimeLayout is how the bundle writes times: UTC, RFC 3339 with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Render writes the bundle for in as Markdown.
func Render(w io.Writer, in Input) error {
	r := &renderer{red: in.Redactor, command: in.Command}
	if r.red == nil {
		r.red = redact.New()
	}
	r.header(in)
	r.summary(in)
	r.sdkVersions(in)
	r.explanation()
	r.items(in)
	r.forSupport()
	if _, err := w.Write(r.b.Bytes()); err != nil {
		return fmt.Errorf("writing bundle: %w", err)
	}
	return nil
}

type renderer struct {
	b       bytes.Buffer
	red     *redact.Redactor
	command func(verb string, args ...string) string
}

// cmd is a command line of the bundle's session, as a code span.
func (r *renderer) cmd(verb string, args ...string) string { return codeSpan(r.cmdLine(verb, args...)) }

// cmdLine is a command line of the bundle's session.
func (r *renderer) cmdLine(verb string, args ...string) string {
	if r.command == nil {
		return strings.Join(append([]string{"exectriage", verb}, args...), " ")
	}
	return r.command(verb, args...)
}

func (r *renderer) p(format string, a ...any) { fmt.Fprintf(&r.b, format, a...) }

// clean is the one road from untrusted text to the bundle: secrets out, controls escaped,
// one line, bounded.
func (r *renderer) clean(s string) string {
	return sanitize.Line(r.red.String(s), maxInline)
}

// code is an untrusted value as an inline code span (no markup, no links inside).
func (r *renderer) code(s string) string { return codeSpan(r.clean(s)) }

// cell is code for a table cell: a pipe would end the cell even inside a code span.
func (r *renderer) cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(r.code(s), "|", `\|`)
}

func codeSpan(s string) string {
	if s == "" {
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(TimeLayout)
}

func (r *renderer) header(in Input) {
	flagged := 0
	for _, it := range in.Items {
		if it.Triage.Flagged {
			flagged++
		}
	}
	r.p("# exectriage support bundle\n\n")
	r.p("| | |\n|---|---|\n")
	r.p("| Generated | %s |\n", stamp(in.GeneratedAt))
	r.p("| Source | %s |\n", r.cell(in.Source))
	r.p("| exectriage | %s |\n", r.cell(in.Version))
	r.p("| Executions | %d (%d flagged) |\n\n", len(in.Items), flagged)
	r.p("Secrets and tokens found in these records have been replaced by `[REDACTED]` markers, and control\n")
	r.p("characters are shown as escapes such as `\\x1b`. Times are UTC.\n\n")
}

func (r *renderer) summary(in Input) {
	r.p("## Summary\n\n")
	if len(in.Items) == 0 {
		r.p("No executions were given.\n\n")
		return
	}
	r.p("| Log id | Request id | Time (UTC) | Tool | Outcome | Provider | Duplicate group |\n")
	r.p("|---|---|---|---|---|---|---|\n")
	for _, it := range in.Items {
		e := &it.Exec
		prov := "not checked"
		if it.Provider != nil {
			prov = string(it.Provider.State)
		}
		group := "-"
		if it.Group != nil {
			group = r.cell(it.Group.ID) + " " + r.cell(string(it.Group.Pattern))
		}
		r.p("| %s | %s | %s | %s | %s | %s | %s |\n", r.cell(e.ID), r.cell(e.RequestID), stamp(e.Start()),
			r.cell(e.ToolSlug), outcomeWord(it.Triage), prov, group)
	}
	r.p("\n")
}

func outcomeWord(t model.Triage) string {
	if t.Outcome == "" {
		return "-"
	}
	s := string(t.Outcome)
	if t.Flagged {
		s += " (flagged)"
	}
	return s
}

// sdkLine is one SDK seen in the records.
type sdkLine struct {
	key, text string
	ids       []string
}

// sdkVersions lists the SDKs the records name, with whether each re-sends timed-out writes.
func (r *renderer) sdkVersions(in Input) {
	r.p("## SDK versions seen\n\n")
	byKey := map[string]*sdkLine{}
	var missing []string
	for _, it := range in.Items {
		e := &it.Exec
		if strings.TrimSpace(e.SDKVersion) == "" {
			missing = append(missing, e.ID)
			continue
		}
		eco, pkg, lang := sdkOf(e)
		key := pkg + "\x00" + e.SDKVersion + "\x00" + lang + "\x00" + it.Triage.OldSDK // one line per note triage gave
		l, ok := byKey[key]
		if !ok {
			l = &sdkLine{key: key}
			byKey[key] = l
			name := pkg
			name = cmp.Or(name, "Composio SDK (language not recorded)")
			verdict := "whether it re-sends timed-out writes cannot be told without the language"
			if pkg != "" {
				if retries, ok := sdkversion.RetriesWrites(eco, pkg, e.SDKVersion, sdkversion.PathExecute); ok {
					if retries {
						verdict = fmt.Sprintf("**re-sends timed-out writes** (fixed in %s)", sdkversion.FixedIn(eco))
					} else {
						verdict = "sends each write once"
					}
				} else {
					verdict = "version not readable"
				}
			}
			if it.Triage.OldSDK != "" {
				verdict += "; triage: " + r.code(it.Triage.OldSDK)
			}
			text := fmt.Sprintf("%s %s", r.code(name), r.code(e.SDKVersion))
			if lang != "" {
				text += " (" + r.code(lang) + ")"
			}
			if fw := e.Source.Framework; fw != "" {
				text += ", framework " + r.code(fw)
			}
			l.text = text + ": " + verdict
		}
		l.ids = append(l.ids, e.ID)
	}
	lines := make([]*sdkLine, 0, len(byKey))
	for _, l := range byKey {
		lines = append(lines, l)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].key < lines[j].key })
	for _, l := range lines {
		r.p("- %s; executions %s\n", l.text, r.idList(l.ids))
	}
	if len(missing) > 0 {
		r.p(
			"- not recorded for %s: run `exectriage doctor` in the project to read the installed version from its lock files\n",
			r.idList(missing),
		)
	}
	r.p("\n")
}

func (r *renderer) idList(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = r.code(id)
	}
	return strings.Join(parts, ", ")
}

// sdkOf tells the SDK package from what the record carries (package sdkversion decides):
// source.language (from x-source), else source.framework.
func sdkOf(e *model.Execution) (sdkversion.Ecosystem, string, string) {
	if sdk, hint, ok := sdkversion.FromRecord(e.Source.Language, e.Source.Framework); ok {
		return sdk.Eco, sdk.Name, hint
	}
	return "", "", e.Source.Language
}

func (r *renderer) explanation() {
	r.p("## Why a timeout is not a failure\n\n")
	r.p("Since Python `composio` 0.16.0 and TypeScript `@composio/core` 0.14.0, the SDKs send a `tools.execute`\n")
	r.p("or proxy request once and stop there: when the call times out, is rate limited (429) or gets a 5xx, they\n")
	r.p("report the error instead of sending the same write again. These calls are not idempotent (an email sent\n")
	r.p("twice is two emails) and the platform does not deduplicate them. Older SDK releases, and the generated\n")
	r.p("API client used on its own, re-sent such a request up to two more times after a short backoff (about half\n")
	r.p("a second, then about a second), which is how one intended action can appear two or three times in the logs.\n\n")
	r.p("A timeout only says that no answer arrived in time. The request may never have reached the server, may\n")
	r.p("have been carried out with the answer lost on the way back, or may still be running, and from the caller's\n")
	r.p("side these look the same. So a timed-out write is ambiguous, not failed: the next step is to look at the\n")
	r.p("provider (the mailbox, the channel, the repository) for its effect before anything is sent again. Only when\n")
	r.p("the provider shows no trace of it, and the execution log agrees, is a manual retry safe.\n\n")
}

func (r *renderer) items(in Input) {
	if len(in.Items) == 0 {
		return
	}
	r.p("## Executions\n")
	note := in.HistoryNote
	if in.NoJournal {
		note = cmp.Or(note, "no journal was open")
	}
	for n, it := range in.Items {
		r.item(n+1, it, note)
	}
}

func (r *renderer) item(n int, it Item, historyNote string) {
	e, t := &it.Exec, &it.Triage
	r.p("\n### %d. %s %s\n\n", n, r.code(e.ID), r.code(e.ToolSlug))
	end, endKnown := e.End()
	timing := "start " + stamp(e.Start())
	if endKnown {
		timing += ", end " + stamp(end)
	}
	if e.HasDuration {
		timing += ", duration " + e.Duration.Round(time.Millisecond).String()
	}
	r.p("- Log id: %s; timestamp %s\n", r.code(e.ID), stamp(e.Timestamp))
	r.p("- Time: %s\n", timing)
	r.p("- Tool: %s in toolkit %s (%s)\n", r.code(e.ToolSlug), r.code(e.ToolkitSlug), kindWord(t.Kind))
	status := e.Status
	status = cmp.Or(status, "none recorded")
	r.p("- Status: %s", r.code(status))
	if e.Level != "" {
		r.p(", level %s", r.code(e.Level))
	}
	r.p("\n")
	if t.Outcome != "" {
		flag := ""
		if t.Flagged {
			flag = " (flagged)"
		}
		r.p("- Outcome: **%s**%s: %s\n", t.Outcome, flag, r.code(t.Reason))
	}
	ids := []string{"request " + r.code(orDash(e.RequestID))}
	if e.SessionID != "" {
		ids = append(ids, "session "+r.code(e.SessionID))
	}
	if e.TraceID != "" {
		ids = append(ids, "trace "+r.code(e.TraceID))
	}
	r.p("- Ids: %s\n", strings.Join(ids, ", "))
	if e.UserID != "" || e.ConnectedAccountID != "" {
		r.p("- Account: user %s, connected account %s\n", r.code(orDash(e.UserID)), r.code(orDash(e.ConnectedAccountID)))
	}
	sdk := []string{}
	if e.SDKVersion != "" {
		sdk = append(sdk, "version "+r.code(e.SDKVersion))
	}
	for _, kv := range [][2]string{{"host", e.Source.Host}, {"language", e.Source.Language}, {"framework", e.Source.Framework}} {
		if kv[1] != "" {
			sdk = append(sdk, kv[0]+" "+r.code(kv[1]))
		}
	}
	if e.RetryCount >= 0 {
		sdk = append(sdk, fmt.Sprintf("retry count %d", e.RetryCount))
	}
	if len(sdk) > 0 {
		r.p("- Caller: %s\n", strings.Join(sdk, ", "))
	}
	if e.Error != nil {
		parts := []string{}
		if e.Error.Kind != "" {
			parts = append(parts, "kind "+r.code(string(e.Error.Kind)))
		}
		if e.Error.HTTPStatus != 0 {
			parts = append(parts, fmt.Sprintf("HTTP %d", e.Error.HTTPStatus))
		}
		if e.Error.Message != "" {
			parts = append(parts, r.code(e.Error.Message))
		}
		r.p("- Error: %s\n", strings.Join(parts, ", "))
	}
	if e.Message != "" {
		r.p("- Message: %s\n", r.code(e.Message))
	}
	if e.Parent != nil && e.Parent.LogID != "" {
		r.p("- Parent: %s %s\n", r.code(e.Parent.LogID), r.code(e.Parent.ToolSlug))
	}
	r.jsonBlock("Arguments", e.Arguments)
	r.jsonBlock("Response", e.Response)
	r.provider(it.Provider)
	r.group(it.Group, e.ID)
	r.session(it.Session, e)
	if it.SessionNote != "" {
		r.p("\nSession %s: its other executions could not be read (%s)\n", r.code(e.SessionID), r.code(it.SessionNote))
	}
	r.history(it.History, historyNote)
	r.p("\n**Next step:** %s\n", r.nextStep(it))
}

// session writes the item's session as a timeline: each execution, oldest first, with the gap
// before it, its status and this item marked.
func (r *renderer) session(steps []model.Execution, self *model.Execution) {
	if len(steps) < 2 {
		return
	}
	r.p("\nSession %s, %d executions, oldest first:\n\n", r.code(self.SessionID), len(steps))
	for _, ts := range triage.Timeline(steps) {
		s := &steps[ts.Index]
		gap, this, child := "", "", ""
		if ts.HasGap {
			gap = ", " + model.GapText(ts.Gap)
		}
		if s.ID == self.ID {
			this = " (this execution)"
		}
		if ts.Child {
			child = "  " // a meta tool's child, under its parent
		}
		if ts.Continues != "" {
			this = ", the approved re-call of " + r.code(ts.Continues) + this
		}
		r.p("%s- %s %s %s, %s%s%s\n", child, stamp(s.Start()), r.code(s.ID), r.code(s.ToolSlug), r.code(orDash(s.Status)), gap, this)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func kindWord(k model.ToolKind) string {
	switch k {
	case model.KindRead:
		return "a read"
	case model.KindIdempotentWrite:
		return "an idempotent write"
	case model.KindWrite:
		return "a non-idempotent write"
	}
	return "kind unknown"
}

// jsonBlock writes a redacted, indented JSON value in a fence long enough for its content.
func (r *renderer) jsonBlock(label string, raw json.RawMessage) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return
	}
	red := r.red.JSON(raw)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, red, "", "  "); err != nil {
		pretty.Reset()
		pretty.Write(red)
	}
	text := pretty.String()
	note := ""
	if len(text) > maxBlock {
		cut := strings.LastIndexByte(text[:maxBlock], '\n')
		if cut < maxBlock/2 {
			cut = maxBlock
		}
		note = fmt.Sprintf("\n… %d more bytes not shown", len(text)-cut)
		text = text[:cut]
	}
	body := sanitize.Block(text, 0) + note
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	r.p("\n%s:\n\n%sjson\n%s\n%s\n", label, fence, body, fence)
}

func (r *renderer) provider(st *model.ProviderState) {
	r.p("\n#### Provider state\n\n")
	if st == nil {
		r.p("Not checked. Run `exectriage verify` on this execution, or look in the toolkit's own interface.\n")
		return
	}
	line := "- State: **" + string(st.State) + "**"
	if st.Verifier != "" {
		line += " (verifier " + r.code(st.Verifier) + ")"
	}
	if !st.CheckedAt.IsZero() {
		line += ", checked " + stamp(st.CheckedAt)
	}
	r.p("%s\n", line)
	if st.Reason != "" {
		r.p("- Reason: %s\n", r.code(st.Reason))
	}
	if st.ReadTool != "" {
		args := ""
		if len(bytes.TrimSpace(st.ReadArgs)) > 0 {
			args = " with " + r.code(string(r.red.JSON(st.ReadArgs)))
		}
		r.p("- Checked with: %s%s\n", r.code(st.ReadTool), args)
	}
	for _, m := range st.Matches {
		line := "- Evidence: " + r.code(m.ID)
		if !m.Time.IsZero() {
			line += " at " + stamp(m.Time)
		}
		if m.Summary != "" {
			line += ": " + r.code(m.Summary)
		}
		if n := m.RetryNote(); n != "" {
			line += " (" + r.code(n) + ")"
		}
		r.p("%s\n", line)
	}
}

func (r *renderer) group(g *model.DuplicateGroup, self string) {
	if g == nil {
		return
	}
	r.p("\n#### Duplicate group %s\n\n", r.code(g.ID))
	r.p("- Pattern: %s", patternWord(g.Pattern))
	if g.Reason != "" {
		r.p(": %s", r.code(g.Reason))
	}
	r.p("\n")
	if g.Match != "" {
		r.p("- Matched on: %s\n", r.code(g.Match))
	}
	var b strings.Builder
	for i, id := range g.ExecutionIDs {
		if i > 0 {
			b.WriteString(" → ")
			if i-1 < len(g.Gaps) {
				b.WriteString("(" + model.GapWords(g.Gaps[i-1]) + ") ")
			}
		}
		b.WriteString(r.code(id))
		if id == self {
			b.WriteString(" (this one)")
		}
	}
	r.p("- Members, oldest first: %s\n", b.String())
	if g.Effective >= 0 {
		r.p("- Took effect at the provider: %d of %d\n", g.Effective, len(g.ExecutionIDs))
	} else {
		r.p("- Took effect at the provider: unknown\n")
	}
}

func patternWord(p model.RetryPattern) string {
	switch p {
	case model.PatternSDKAutoRetry:
		return "`sdk_auto_retry` (spaced like an SDK's automatic retry)"
	case model.PatternAppRetry:
		return "`app_retry` (the application's own retry loop)"
	case model.PatternDoubleSubmit:
		return "`double_submit` (near-simultaneous: two clicks or two workers)"
	case model.PatternSessionAutoRetry:
		return "`session_auto_retry` (spaced like an SDK's automatic retry of a tool-router session write)"
	case model.PatternFrameworkRetry:
		return "`framework_retry` (spaced like an agent framework's tool retry: about 1 s, then 2 s)"
	case model.PatternAgentRetry:
		return "`agent_retry` (the agent called the tool again with regenerated text)"
	case model.PatternTriggerRedelivery:
		return "`trigger_redelivery` (a trigger's event delivered again, its handler writing each time)"
	case model.PatternDuplicateSubscription:
		return "`duplicate_subscription` (one trigger event delivered to two webhook endpoints, its handler writing for each)"
	}
	return codeSpan(sanitize.Line(string(p), 40))
}

func (r *renderer) history(lines []string, note string) {
	r.p("\n#### Journal\n\n")
	switch {
	case len(lines) > 0:
		for _, l := range lines {
			r.p("- %s\n", r.code(l))
		}
	case note != "":
		r.p("%s\n", r.code(note))
	default:
		r.p("No confirmations, retries or verdicts recorded for this execution.\n")
	}
}

func (r *renderer) nextStep(it Item) string {
	e, t := &it.Exec, &it.Triage
	id := r.code(e.ID)
	if t.Kind == model.KindRead {
		return "a read changes nothing at the provider; nothing to retry."
	}
	if it.Provider != nil {
		switch it.Provider.State {
		case model.ProviderFound:
			s := "the provider shows the effect, so do not retry; record it with " +
				r.cmd("mark", r.clean(e.ID), "confirmed_succeeded") + "."
			if it.Group != nil && it.Group.Effective > 1 {
				s = fmt.Sprintf(
					"the effect happened %d times: clean up the extra ones at the provider, and do not retry.",
					it.Group.Effective,
				)
			}
			return s
		case model.ProviderNotFound:
			if t.Outcome == model.OutcomeSucceeded {
				return "the log says success but the provider shows no effect yet: check again before concluding anything."
			}
			return "the provider shows no effect. If the log agrees, a guarded retry sends it once: " +
				codeSpan(r.cmdLine("retry", r.clean(e.ID))+` --confirm-failed --reason "..."`) + "."
		}
	}
	if t.Outcome == model.OutcomeSucceeded && !t.Flagged && it.Group == nil {
		return "nothing to do: the execution succeeded."
	}
	toolkit := e.ToolkitSlug
	toolkit = cmp.Or(toolkit, "the provider")
	return "the provider state is unknown: check " + r.code(toolkit) + " by hand (or run " +
		r.cmd("verify", r.clean(e.ID)) + ") before any retry of " + id + "."
}

func (r *renderer) forSupport() {
	r.p("\n## For Composio support\n\n")
	r.p("The SDK versions, log ids, request ids and UTC timestamps above identify each attempt. If duplicates\n")
	r.p("still appear with an SDK that sends writes once, the duplicate groups show whether they share a request\n")
	r.p("id (one request executed twice) or carry different ones (the caller sent twice).\n")
}
