// Package retrydialog is the guarded retry's confirmation dialog, drawn as a layer over the
// screen. It shows the evidence (the execution, triage's outcome and reason, the provider state
// and what matched, exactly what will be sent) and either the guard's refusal, at once, or a
// confirmation that starts on "No", ignores keys for the first half second (so a buffered
// Enter cannot confirm), and sends only after the person has typed `failed` and a reason.
// Progress and the result (the new log id, or "ambiguous: run resolve") show in the dialog.
package retrydialog

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/provider"
	"github.com/exectriage/exectriage/ui/keys"
)

// KeyDelay is how long keys are ignored after the dialog opens or the evidence arrives.
const KeyDelay = 500 * time.Millisecond

// ConfirmWord is what the person types to confirm the first attempt did not take effect.
const ConfirmWord = "failed"

// ArmedMsg arrives when the key delay has passed: the frame after it drops the notice.
type ArmedMsg struct{}

// Evidence is what the dialog shows; the root gathers it in a command.
type Evidence = app.RetryEvidence

// Result is how a sent retry ended.
type Result = app.RetryOutcome

// SendMsg asks the root to run the retry (the person confirmed).
type SendMsg struct {
	ExecID string
	Reason string
}

// CloseMsg says the dialog closed.
type CloseMsg struct{}

type stage int

const (
	stageGathering stage = iota
	stageRefused
	stageConfirm
	stageSending
	stageDone
)

// focus positions in the confirmation.
const (
	focusConfirm = iota
	focusReason
	focusNo
	focusYes
	nFocus
)

// Model is the dialog.
type Model struct {
	common.Common
	width, height int
	open          bool
	stage         stage
	execID        string
	ev            Evidence
	result        Result
	armedAt       time.Time
	focus         int
	confirm       textinput.Model
	reason        textinput.Model
	hint          string
	// escAsked is set by an esc while the send is in flight: a second esc hides the dialog.
	escAsked bool
	// Spinner is the spinner's current frame.
	Spinner string
}

// New returns a closed dialog.
func New(c common.Common) Model {
	return Model{Common: c, confirm: common.TextInput(c, "> ", "type "+ConfirmWord, 16),
		reason: common.TextInput(c, "> ", "why you believe it failed (journaled)", 500)}
}

// Open shows the dialog for an execution while the evidence is gathered.
func (m *Model) Open(execID string) {
	*m = Model{Common: m.Common, width: m.width, height: m.height, confirm: m.confirm, reason: m.reason, Spinner: m.Spinner}
	m.confirm.SetValue("")
	m.reason.SetValue("")
	m.confirm.Blur()
	m.reason.Blur()
	m.open, m.stage, m.execID = true, stageGathering, execID
	m.armedAt = m.Now().Add(KeyDelay)
}

// Busy reports whether the dialog waits on work (gathering evidence or sending).
func (m Model) Busy() bool { return m.open && (m.stage == stageGathering || m.stage == stageSending) }

// Sending reports whether the dialog waits for a send in flight.
func (m Model) Sending() bool { return m.open && m.stage == stageSending }

// Confirming reports whether the dialog waits for the person's confirmation.
func (m Model) Confirming() bool { return m.open && m.stage == stageConfirm }

// IsOpen reports whether the dialog is shown.
func (m Model) IsOpen() bool { return m.open }

// ExecID is the execution the dialog is about.
func (m Model) ExecID() string { return m.execID }

// Close hides the dialog.
func (m *Model) Close() { m.open = false }

// SetEvidence shows the gathered evidence: refused at once, or the confirmation on "No".
// Keys are ignored for KeyDelay from now.
func (m *Model) SetEvidence(ev Evidence) {
	m.ev = ev
	if ev.Decision.Allowed || ev.Decision.Code == triage.RefusedNotConfirmed || ev.Decision.Code == triage.RefusedNoReason {
		m.stage, m.focus = stageConfirm, focusNo
	} else {
		m.stage = stageRefused
	}
	m.armedAt = m.Now().Add(KeyDelay)
	m.hint = ""
}

// SetSending shows progress.
func (m *Model) SetSending() { m.stage, m.hint, m.escAsked = stageSending, "", false }

// EscWhileSending is what the first esc during a send says.
const EscWhileSending = "the retry is being sent and goes on without this dialog: esc again hides it (the row shows RETRYING, then the outcome)"

// SetHint shows a warning under the dialog's progress or buttons until the next key.
func (m *Model) SetHint(s string) { m.hint = s }

// SetResult shows how the retry ended.
func (m *Model) SetResult(r Result) {
	m.stage, m.result, m.hint, m.escAsked = stageDone, r, "", false
}

// SetSize sets the screen size (the dialog sizes itself within it).
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Armed reports whether keys are accepted yet.
func (m Model) Armed() bool { return !m.Now().Before(m.armedAt) }

func (m Model) valid() bool {
	return strings.TrimSpace(m.confirm.Value()) == ConfirmWord && strings.TrimSpace(m.reason.Value()) != ""
}

func (m *Model) setFocus(f int) {
	m.focus = (f + nFocus) % nFocus
	m.confirm.Blur()
	m.reason.Blur()
	switch m.focus {
	case focusConfirm:
		m.confirm.Focus()
	case focusReason:
		m.reason.Focus()
	}
}

// Update handles keys; everything else is ignored.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.open {
		return m, nil
	}
	k, isKey := msg.(tea.KeyPressMsg)
	if !isKey {
		if _, paste := msg.(tea.PasteMsg); !paste || m.stage != stageConfirm || !m.Armed() {
			return m, nil
		}
	}
	closeDialog := func() (Model, tea.Cmd) {
		m.open = false
		return m, func() tea.Msg { return CloseMsg{} }
	}
	// esc always works: backing out is the safe direction. While the send is in flight it asks
	// once first: the send carries on without the dialog (its row shows RETRYING, then the
	// outcome), and a person who closed it by reflex would not see how it ended.
	asked := m.escAsked
	if isKey {
		m.escAsked = false
	}
	if isKey && key.Matches(k, m.Keys.Cancel) {
		if m.stage == stageSending && !asked {
			m.escAsked = true
			return m, nil
		}
		return closeDialog()
	}
	if !m.Armed() {
		return m, nil // a key typed ahead of the dialog must not answer it
	}
	switch m.stage {
	case stageGathering, stageSending:
		if isKey {
			m.hint = ""
		}
		return m, nil
	case stageRefused, stageDone:
		if isKey && (key.Matches(k, m.Keys.Confirm) || key.Matches(k, m.Keys.Quit) && k.String() == "q") {
			return closeDialog()
		}
		return m, nil
	}
	// stageConfirm
	if isKey {
		switch {
		case k.String() == "tab" || k.String() == "down":
			m.setFocus(m.focus + 1)
			return m, nil
		case k.String() == "shift+tab" || k.String() == "up":
			m.setFocus(m.focus - 1)
			return m, nil
		case (k.String() == "left" || k.String() == "right") && m.focus >= focusNo:
			if m.focus == focusNo {
				m.setFocus(focusYes)
			} else {
				m.setFocus(focusNo)
			}
			return m, nil
		case key.Matches(k, m.Keys.Confirm):
			switch m.focus {
			case focusConfirm:
				m.setFocus(focusReason)
			case focusReason:
				if m.valid() {
					m.setFocus(focusYes)
				} else {
					m.hint = "type “" + ConfirmWord + "” and a reason first"
				}
			case focusNo:
				return closeDialog()
			case focusYes:
				if !m.valid() {
					m.hint = "type “" + ConfirmWord + "” and a reason first"
					return m, nil
				}
				m.stage = stageSending
				id, reason := m.execID, strings.TrimSpace(m.reason.Value())
				return m, func() tea.Msg { return SendMsg{ExecID: id, Reason: reason} }
			}
			return m, nil
		}
		if m.focus >= focusNo && k.Text != "" && k.Text != " " {
			// typing on the buttons goes to the confirmation field
			m.setFocus(focusConfirm)
		}
	}
	var cmd tea.Cmd
	switch m.focus {
	case focusConfirm:
		m.confirm, cmd = m.confirm.Update(msg)
	case focusReason:
		m.reason, cmd = m.reason.Update(msg)
	}
	m.hint = ""
	return m, cmd
}

// View renders the dialog box (the root places it over the screen). On a short screen long
// fields are cut to one line so the whole dialog, buttons included, stays visible.
func (m Model) View() string {
	out := m.render(false)
	if strings.Count(out, "\n")+1 > m.height {
		out = m.render(true)
	}
	return out
}

func (m Model) render(compact bool) string {
	st := m.Styles
	w := min(max(m.width-4, 30), 84)
	inner := w - 4 // border and padding
	m.confirm.SetWidth(inner - 4)
	m.reason.SetWidth(inner - 4)
	e := &m.ev.Exec
	var b strings.Builder
	line := func(s string) { b.WriteString(common.Truncate(s, inner)); b.WriteString("\n") }
	field := func(label, value string) {
		lab := st.Dialog.Label.Render(fmt.Sprintf("%-10s", label)) + " "
		vals := strings.Split(wrap(value, inner-11), "\n")
		if compact && len(vals) > 1 {
			vals = []string{common.Truncate(value, inner-11)}
		}
		for i, v := range vals {
			if i == 0 {
				line(lab + v)
			} else {
				line(strings.Repeat(" ", 11) + v)
			}
		}
	}
	title := "Retry " + common.Clean(e.ToolSlug) + " once?"
	box := st.Dialog.Box
	switch m.stage {
	case stageGathering:
		title = "Retry: gathering evidence"
		line(st.Info.Render(m.Spinner + " checking the provider and the journal for " + common.Clean(m.execID) + "…"))
		line("")
		line(st.Dialog.Hint.Render("esc to close"))
		return box.Width(w).Render(st.Dialog.Title.Render(title) + "\n\n" + strings.TrimRight(b.String(), "\n"))
	case stageRefused:
		title = "Retry refused"
		box = st.Dialog.DangerBox
	}
	dur := "unknown"
	if e.HasDuration {
		dur = common.Duration(e.Duration)
	}
	field("execution", common.Clean(e.ID)+" · "+common.Stamp(e.Timestamp)+" · "+dur)
	field("tool", common.Clean(e.ToolSlug)+" ("+string(m.ev.Triage.Kind)+")")
	field("outcome", strings.ToUpper(string(m.ev.Triage.Outcome))+"  "+common.Clean(m.ev.Triage.Reason))
	ps := m.ev.Provider
	if ps.State == "" {
		field("provider", "not checked")
	} else {
		p := provider.State(st, ps.State)
		if ps.ReadTool != "" {
			p += " via " + common.Clean(ps.ReadTool)
		}
		if ps.Reason != "" {
			p += ": " + common.Clean(ps.Reason)
		}
		field("provider", p)
		shown := 3
		if compact {
			shown = 1
		}
		for i, ev := range ps.Matches {
			if i == shown {
				field("", fmt.Sprintf("… and %d more", len(ps.Matches)-shown))
				break
			}
			s := "• " + common.Clean(ev.ID)
			if !ev.Time.IsZero() {
				s += " " + common.Stamp(ev.Time)
			}
			if ev.Summary != "" {
				s += " " + common.Clean(ev.Summary)
			}
			if n := ev.RetryNote(); n != "" {
				s += " ← " + common.Clean(n)
			}
			field("", s)
		}
	}
	switch m.stage {
	case stageRefused:
		line("")
		reason := m.ev.Decision.Reason
		if r := strings.TrimSpace(ps.Reason); r != "" { // the provider line above already says it
			reason = strings.Replace(reason, ": "+r, "", 1)
		}
		field("refused", st.Dialog.Refused.Render("✗ ")+common.Clean(reason))
		field("next", common.Clean(StepKeys(m.ev.Decision.Next, *m.Keys)))
		line("")
		line(st.Dialog.ButtonActive.Render("Close") + "  " + st.Dialog.Hint.Render("enter or esc"))
	case stageConfirm, stageSending, stageDone:
		lab := "will send"
		for i, s := range m.ev.Send {
			if compact && i > 0 && i != len(m.ev.Send)-2 {
				continue // keep the call and its arguments
			}
			field(lab, common.Clean(s))
			lab = ""
		}
		if !compact {
			line("")
		}
		if m.stage == stageConfirm {
			line(st.Dialog.Label.Render("Type ") + st.Bold.Render(`"`+ConfirmWord+`"`) + st.Dialog.Label.Render(" to confirm the first attempt did not take effect:"))
			line(m.confirm.View())
			line(st.Dialog.Label.Render("Reason (recorded in the journal):"))
			line(m.reason.View())
			if !compact {
				line("")
			}
			no, yes := st.Dialog.Button.Render("[ No ]"), st.Dialog.Button.Render("[ Retry once ]")
			switch m.focus {
			case focusNo:
				no = st.Dialog.ButtonActive.Render("[ No ]")
			case focusYes:
				yes = st.Dialog.ButtonActive.Render("[ Retry once ]")
			}
			line(no + "  " + yes)
			switch {
			case m.hint != "":
				line(st.Status.Warn.Render(m.hint))
			case !m.Armed():
				line(st.Dialog.Hint.Render("keys are ignored for half a second…"))
			default:
				line(st.Dialog.Hint.Render("tab moves · enter chooses · esc cancels"))
			}
		}
		if m.stage == stageSending {
			line(st.Info.Render(m.Spinner + " journaling the intent, then sending once (no retries)…"))
			switch {
			case m.escAsked:
				line(st.Status.Warn.Render(EscWhileSending))
			case m.hint != "":
				line(st.Status.Warn.Render(m.hint))
			default:
				line(st.Dialog.Hint.Render("wait for the outcome · esc hides this dialog"))
			}
		}
		if m.stage == stageDone {
			r := m.result
			switch {
			case r.Err != "" && r.State == "":
				field("result", st.Danger.Render("✗ not sent: ")+common.Clean(r.Err))
			case r.State == model.AttemptSucceeded:
				field("result", st.OK.Render("✓ retried")+": new log "+st.Bold.Render(common.Clean(orDash(r.NewLogID))))
			case r.State == model.AttemptFailed:
				field("result", st.Danger.Render("✗ the retry failed")+": "+common.Clean(firstOf(r.Detail, r.Err)))
			default:
				field("result", st.Badge.Ambiguous.Render("? ambiguous")+": settle it with "+common.Clean(r.Resolve))
				if d := firstOf(r.Detail, r.Err); d != "" {
					field("", common.Clean(d))
				}
			}
			if r.AttemptID != "" {
				field("attempt", common.Clean(r.AttemptID)+" (x-request-id)")
			}
			line("")
			line(st.Dialog.ButtonActive.Render("Close") + "  " + st.Dialog.Hint.Render("enter or esc"))
		}
	}
	return box.Width(w).Render(st.Dialog.Title.Render(title) + "\n\n" + strings.TrimRight(b.String(), "\n"))
}

func wrap(s string, w int) string {
	if w < 8 || common.Width(s) <= w {
		return s
	}
	return strings.TrimRight(wordwrap(s, w), "\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// StepKeys words a guard's next step for the TUI: a provider check is v, a verdict is m, and
// what has no key here is a command for a shell.
func StepKeys(s triage.Step, km keys.KeyMap) string {
	v, mk := km.Verify.Help().Key, km.Mark.Help().Key
	return s.Words(func(c triage.Command) string {
		switch {
		case c.Verb == triage.VerbVerify && c.Again:
			return "a fresh check (" + v + ")"
		case c.Verb == triage.VerbVerify:
			return "press " + v
		case c.Verb == triage.VerbMark && c.Note:
			return "press " + mk + " and record " + string(c.Verdict) + " with a note"
		case c.Verb == triage.VerbMark:
			return "press " + mk + " and record " + string(c.Verdict)
		}
		return "in a shell: " + c.ShellIn(s.In)
	})
}
