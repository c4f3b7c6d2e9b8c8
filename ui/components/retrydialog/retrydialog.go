// Package retrydialog is the guarded retry's confirmation dialog, drawn as a layer over the
// screen. It shows the evidence (the execution, triage's outcome and reason, the provider state
// and what matched, exactly what will be sent) and either the guard's refusal, at once, or a
// confirmation that starts on "No", ignores keys for the first half second (so a buffered
// Enter cannot confirm), and sends only after the person has typed `failed` and a reason.
// Progress and the result (the new log id, or "ambiguous: run resolve") show in the dialog.
package retrydialog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

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
	ev            app.RetryEvidence
	result        app.RetryOutcome
	armedAt       time.Time
	focus         int
	confirm       textinput.Model
	reason        textinput.Model
	hint          string
	// escAsked is set by an esc while the send is in flight: a second esc hides the dialog.
	escAsked bool
	// scroll is the first evidence line shown when the evidence does not fit.
	scroll int
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
func (m *Model) SetEvidence(ev app.RetryEvidence) {
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
const EscWhileSending = "the retry is being sent and goes on without this dialog: esc again hides it (the row shows RETRYING, then the " +
	"outcome)"

// SetHint shows a warning under the dialog's progress or buttons until the next key.
func (m *Model) SetHint(s string) { m.hint = s }

// SetResult shows how the retry ended.
func (m *Model) SetResult(r app.RetryOutcome) {
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
	if isKey && m.stage != stageGathering {
		switch {
		case key.Matches(k, m.Keys.PageDown), key.Matches(k, m.Keys.HalfDown):
			m.scroll += 5
			m.clampScroll()
			return m, nil
		case key.Matches(k, m.Keys.PageUp), key.Matches(k, m.Keys.HalfUp):
			m.scroll = max(m.scroll-5, 0)
			return m, nil
		}
	}
	if !m.Armed() {
		return m, nil // a key typed ahead of the dialog must not answer it
	}
	if m.TooSmall() {
		return m, nil // the inputs are not on the screen: nothing typed may go into them
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

// View renders the dialog box (the root places it over the screen). The evidence (what is
// being confirmed: the execution, its outcome, the provider's answer, what will be sent and the
// journal's scope) is shown whole, wrapped; on a screen too short for it, it scrolls (pgup/pgdn,
// ctrl+u/ctrl+d) above the inputs and buttons, which stay in view. A screen too small even for
// those says how much room it needs, and the dialog takes no typing.
func (m Model) View() string {
	st := m.Styles
	w := m.boxWidth()
	title, box, ev, bottom := m.parts()
	if m.stage == stageGathering {
		return box.Width(w).Render(st.Dialog.Title.Render(title) + "\n\n" + strings.Join(bottom, "\n"))
	}
	render := func(body []string) string {
		return box.Width(w).Render(st.Dialog.Title.Render(title) + "\n\n" + strings.Join(body, "\n"))
	}
	room, ok := m.room(len(bottom))
	if !ok {
		var lines []string
		for l := range strings.SplitSeq(wrap(m.tooSmallText(len(bottom)), w-4), "\n") {
			lines = append(lines, st.Status.Warn.Render(l))
		}
		return render(lines)
	}
	body := ev
	if len(ev) > room {
		off := min(m.scroll, len(ev)-(room-1))
		body = append(slices.Clone(ev[off:off+room-1]), st.Dialog.Hint.Render(common.Truncate(
			fmt.Sprintf("lines %d–%d of %d · pgup/pgdn scroll the evidence", off+1, off+room-1, len(ev)), w-4)))
	}
	return render(append(append(slices.Clone(body), ""), bottom...))
}

// clampScroll keeps the evidence's scroll within its lines.
func (m *Model) clampScroll() {
	_, _, ev, bottom := m.parts()
	room, _ := m.room(len(bottom))
	m.scroll = max(min(m.scroll, len(ev)-(room-1)), 0)
}

// boxWidth is the dialog's outer width.
func (m Model) boxWidth() int { return min(max(m.width-4, 30), 84) }

// room is how many evidence lines fit above a bottom part of n lines (the box's border, the
// title and the blank lines around the evidence take 5, and the screen's help bar below the
// box keeps its line); ok is false when not even three do.
func (m Model) room(n int) (int, bool) {
	r := m.height - 6 - n
	return r, r >= 3
}

func (m Model) tooSmallText(n int) string {
	return fmt.Sprintf(
		"the terminal is too small to show the evidence and confirm a retry: enlarge it to at least %d lines (esc closes)",
		n+9,
	)
}

// TooSmall reports whether the screen cannot show the confirmation's inputs: typing is refused.
func (m Model) TooSmall() bool {
	if m.stage != stageConfirm {
		return false
	}
	_, _, _, bottom := m.parts()
	_, ok := m.room(len(bottom))
	return !ok
}

// parts builds the dialog's title, box style, evidence lines (they scroll) and bottom lines
// (they stay: the inputs and buttons, the progress, the result).
func (m Model) parts() (string, lipgloss.Style, []string, []string) {
	st := m.Styles
	inner := m.boxWidth() - 4 // border and padding
	m.confirm.SetWidth(inner - 4)
	m.reason.SetWidth(inner - 4)
	e := &m.ev.Exec
	var ev, bottom []string
	line := func(dst *[]string, s string) { *dst = append(*dst, common.Truncate(s, inner)) }
	field := func(dst *[]string, label, value string) {
		lab := st.Dialog.Label.Render(fmt.Sprintf("%-10s", label)) + " "
		for i, v := range strings.Split(wrap(value, inner-11), "\n") {
			if i == 0 {
				line(dst, lab+v)
			} else {
				line(dst, strings.Repeat(" ", 11)+v)
			}
		}
	}
	title := "Retry " + common.Clean(e.ToolSlug) + " once?"
	box := st.Dialog.Box
	switch m.stage {
	case stageGathering:
		line(&bottom, st.Info.Render(m.Spinner+" checking the provider and the journal for "+common.Clean(m.execID)+"…"))
		line(&bottom, "")
		line(&bottom, st.Dialog.Hint.Render("esc to close"))
		return "Retry: gathering evidence", box, nil, bottom
	case stageRefused:
		title = "Retry refused"
		box = st.Dialog.DangerBox
	}
	dur := "unknown"
	if e.HasDuration {
		dur = common.Duration(e.Duration)
	}
	field(&ev, "execution", common.Clean(e.ID)+" · "+common.Stamp(e.Timestamp)+" · "+dur)
	field(&ev, "tool", common.Clean(e.ToolSlug)+" ("+string(m.ev.Triage.Kind)+")")
	field(&ev, "outcome", strings.ToUpper(string(m.ev.Triage.Outcome))+"  "+common.Clean(m.ev.Triage.Reason))
	ps := m.ev.Provider
	if ps.State == "" {
		field(&ev, "provider", "not checked")
	} else {
		p := provider.State(st, ps.State)
		if ps.ReadTool != "" {
			p += " via " + common.Clean(ps.ReadTool)
		}
		if ps.Reason != "" {
			p += ": " + common.Clean(ps.Reason)
		}
		field(&ev, "provider", p)
		for _, it := range ps.Matches {
			s := "• " + common.Clean(it.ID)
			if !it.Time.IsZero() {
				s += " " + common.Stamp(it.Time)
			}
			if it.Summary != "" {
				s += " " + common.Clean(it.Summary)
			}
			if n := it.RetryNote(); n != "" {
				s += " ← " + common.Clean(n)
			}
			field(&ev, "", s)
		}
	}
	switch m.stage {
	case stageRefused:
		reason := m.ev.Decision.Reason
		if r := strings.TrimSpace(ps.Reason); r != "" { // the provider line above already says it
			reason = strings.Replace(reason, ": "+r, "", 1)
		}
		field(&ev, "refused", st.Dialog.Refused.Render("✗ ")+common.Clean(reason))
		field(&ev, "next", common.Clean(StepKeys(m.ev.Decision.Next, *m.Keys)))
		line(&bottom, st.Dialog.ButtonActive.Render("Close")+"  "+st.Dialog.Hint.Render("enter or esc"))
	case stageConfirm, stageSending, stageDone:
		lab := "will send"
		for _, s := range m.ev.Send.Lines() {
			field(&ev, lab, common.Clean(s))
			lab = ""
		}
		switch m.stage {
		case stageConfirm:
			line(
				&bottom,
				st.Dialog.Label.Render("Type ")+st.Bold.Render(`"`+ConfirmWord+`"`)+st.Dialog.Label.Render(
					" to confirm the first attempt did not take effect:",
				),
			)
			line(&bottom, m.confirm.View())
			line(&bottom, st.Dialog.Label.Render("Reason (recorded in the journal):"))
			line(&bottom, m.reason.View())
			no, yes := st.Dialog.Button.Render("[ No ]"), st.Dialog.Button.Render("[ Retry once ]")
			switch m.focus {
			case focusNo:
				no = st.Dialog.ButtonActive.Render("[ No ]")
			case focusYes:
				yes = st.Dialog.ButtonActive.Render("[ Retry once ]")
			}
			line(&bottom, no+"  "+yes)
			switch {
			case m.hint != "":
				line(&bottom, st.Status.Warn.Render(m.hint))
			case !m.Armed():
				line(&bottom, st.Dialog.Hint.Render("keys are ignored for half a second…"))
			default:
				line(&bottom, st.Dialog.Hint.Render("tab moves · enter chooses · esc cancels"))
			}
		case stageSending:
			line(&bottom, st.Info.Render(m.Spinner+" journaling the intent, then sending once (no retries)…"))
			switch {
			case m.escAsked:
				field(&bottom, "", st.Status.Warn.Render(EscWhileSending))
			case m.hint != "":
				field(&bottom, "", st.Status.Warn.Render(m.hint))
			default:
				line(&bottom, st.Dialog.Hint.Render("wait for the outcome · esc hides this dialog"))
			}
		case stageDone:
			r := m.result
			switch {
			case r.NotSent():
				field(&bottom, "result", st.Danger.Render("✗ not sent: ")+common.Clean(NotSentWhy(r, *m.Keys)))
			case r.State == model.AttemptSucceeded:
				field(&bottom, "result", st.OK.Render("✓ retried")+": new log "+st.Bold.Render(common.Clean(orDash(r.NewLogID))))
			case r.State == model.AttemptFailed:
				field(&bottom, "result", st.Danger.Render("✗ the retry failed")+": "+common.Clean(firstOf(r.Detail, r.Err)))
			default:
				field(&bottom, "result", st.Badge.Ambiguous.Render("? ambiguous")+": settle it with "+common.Clean(r.Resolve))
				if d := firstOf(r.Detail, r.Err); d != "" {
					field(&bottom, "", common.Clean(d))
				}
			}
			if r.AttemptID != "" {
				field(&bottom, "attempt", common.Clean(r.AttemptID)+" (x-request-id)")
			}
			line(&bottom, "")
			line(&bottom, st.Dialog.ButtonActive.Render("Close")+"  "+st.Dialog.Hint.Render("enter or esc"))
		}
	}
	return title, box, ev, bottom
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

// NotSentWhy words why a retry was not sent, for the TUI: the error, or the guard's refusal
// and its next step in keys (StepKeys).
func NotSentWhy(r app.RetryOutcome, km keys.KeyMap) string {
	if r.Refusal == "" {
		return r.Err
	}
	why := "refused: " + r.Refusal
	if !r.Next.IsZero() {
		why += "; next: " + StepKeys(r.Next, km)
	}
	return why
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
