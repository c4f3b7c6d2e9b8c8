package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/exectriage/exectriage/app"
	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/phrase"
	"github.com/exectriage/exectriage/triage"
	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/components/markdialog"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
)

func TestMarkRecordsAVerdictInTheJournal(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50) // room for every badge of a group member
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	h.keys("m", "2", "tab", "checked with the customer", "enter") // 1 confirmed_failed, 2 confirmed_succeeded
	vs, err := e.j.Verdicts(context.Background(), id)
	if err != nil || len(vs) != 1 || vs[0].Verdict != model.VerdictConfirmedSucceeded || vs[0].Note != "checked with the customer" {
		t.Fatalf("verdicts %+v, %v", vs, err)
	}
	s := h.screen()
	if !strings.Contains(s, "MARKED:confirmed_succeeded") || !strings.Contains(s, "verdict confirmed_succeeded") || !strings.Contains(s, "retries of it are now refused") {
		t.Errorf("the verdict is not shown:\n%s", s)
	}
}

// The mark dialog starts with no verdict chosen: Enter alone records nothing and says why.
func TestMarkDialogNeedsAChoice(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	h.keys("m", "enter")
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 0 {
		t.Fatalf("one Enter recorded %+v (%v)", vs, err)
	}
	if !h.m.mark.IsOpen() || !strings.Contains(h.screen(), "choose a verdict first") {
		t.Fatalf("the dialog closed or did not say what is missing:\n%s", h.screen())
	}
	h.keys("j", "enter")
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 1 || vs[0].Verdict != model.Verdicts()[0] {
		t.Fatalf("j then Enter: verdicts %+v (%v)", vs, err)
	}
}

// TestTheMarkDialogNeverCutsAVerdictsMeaning: at 80 and 120 columns every
// offered verdict's meaning is on screen whole (wrapped under itself), none cut with "…".
func TestTheMarkDialogNeverCutsAVerdictsMeaning(t *testing.T) {
	e := newEnv(t)
	for _, width := range []int{80, 120} {
		h := newHarness(t, e, width, 40)
		i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderFound)
		h.selectRow(i)
		h.keys("m")
		box := ansi.Strip(h.m.mark.View())
		var text strings.Builder
		for l := range strings.SplitSeq(box, "\n") {
			text.WriteString(" " + strings.Trim(l, "│ "))
		}
		flat := strings.Join(strings.Fields(text.String()), " ")
		for _, v := range model.Verdicts() {
			if m := markdialog.Meaning(v); strings.Contains(box, string(v)) && !strings.Contains(flat, m) {
				t.Errorf("%d columns: the meaning of %s is not whole on screen (%q):\n%s", width, v, m, box)
			}
		}
		if strings.Contains(box, "…") {
			t.Errorf("%d columns: something is cut:\n%s", width, box)
		}
		h.keys("esc")
	}
}

// A verdict that settles a flagged write takes it out of the header's count of what needs a
// person, and the header says how many are settled.
func TestSettledWritesLeaveTheFlaggedCount(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged })
	if !ok {
		t.Fatal("no flagged execution in the demo")
	}
	before := h.m.data.DS.Flagged
	want := fmt.Sprintf("!%s flagged", common.Count(before))
	if s := h.screen(); !strings.Contains(s, want) || strings.Contains(s, "settled") {
		t.Fatalf("before: want %q and no settled count:\n%s", want, s)
	}
	h.filterTo(h.m.data.DS.ID(i))
	h.keys("m", "3", "enter") // duplicate
	s := h.screen()
	if want := fmt.Sprintf("!%s flagged  ✓1 settled", common.Count(before-1)); !strings.Contains(s, want) {
		t.Errorf("after a duplicate verdict: want %q:\n%s", want, s)
	}
}

// When the journal could not be opened the header says so for the whole session, and r and m
// refuse at once with the real reason (not after Enter, not with advice to pass --journal).
func TestNoJournalIsShownAndTurnsRetryAndMarkOff(t *testing.T) {
	e := newEnv(t)
	e.parts.Journal = nil
	d := e.deps()
	d.App.NoJournal(errors.New("open /srv/j.db: permission denied"))
	h := &harness{t: t, m: New(context.Background(), d.App, d.UI), e: e}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.run(h.m.Init())
	for _, k := range []string{"r", "m"} {
		h.keys(k)
		s := h.screen()
		if !strings.Contains(s, "NO JOURNAL") {
			t.Errorf("%s: no journal marker in the header:\n%s", k, s)
		}
		if h.m.retry.IsOpen() || h.m.mark.IsOpen() {
			t.Errorf("%s opened its dialog without a journal", k)
			h.keys("esc")
		}
		if _, text := h.m.status.Text(); !strings.Contains(text, k+" is off: the journal could not be opened (open /srv/j.db: permission denied)") {
			t.Errorf("%s: status %q does not give the reason", k, text)
		}
	}
	h.keys("j", "j")
	if !strings.Contains(h.screen(), "NO JOURNAL") {
		t.Error("the marker went away")
	}
}

// TestMarkDialogOffersVerdictsThatFit: a read can only be ignored, a clean success
// cannot be confirmed failed, duplicate is offered for group members only; the dialog says
// what the execution is marked now, and a stray ignored does not lift a duplicate.
func TestMarkDialogOffersVerdictsThatFit(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	ds := h.m.data.DS
	read, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Kind == model.KindRead })
	if !ok {
		t.Fatal("no read")
	}
	h.selectRow(read)
	h.keys("m")
	s := h.screen()
	if !strings.Contains(s, "1  ignored") || strings.Contains(s, "confirmed_failed") || strings.Contains(s, "2  ") && strings.Contains(s, "duplicate ") {
		t.Errorf("a read's dialog offers more than ignored:\n%s", s)
	}
	h.keys("esc")
	member, ok := h.find(func(e *model.Execution, t *model.Triage) bool { return t.GroupID != "" && t.Flagged })
	if !ok {
		t.Fatal("no flagged group member")
	}
	h.selectRow(member)
	id := ds.ID(member)
	h.keys("m")
	if s := h.screen(); !strings.Contains(s, "3  duplicate") || !strings.Contains(s, "1  confirmed_failed") {
		t.Fatalf("a flagged group member's dialog:\n%s", s)
	}
	h.keys("3", "enter")
	h.keys("m", "4", "enter") // a stray ignored afterwards
	if s := h.screen(); !strings.Contains(s, "changes nothing the guard allows: it still goes by duplicate") || !strings.Contains(s, "MARKED:duplicate") {
		t.Errorf("after duplicate then ignored:\n%s", s)
	}
	h.keys("m")
	if s := h.screen(); !strings.Contains(s, "now marked duplicate") {
		t.Errorf("the dialog does not say the execution is marked duplicate:\n%s", s)
	}
	h.keys("esc")
	if vs, err := e.j.Verdicts(context.Background(), id); err != nil || len(vs) != 2 {
		t.Fatalf("verdicts %+v %v", vs, err)
	}
}

// When the retry dialog's evidence arrives, a command is scheduled for the end of the key
// delay, so the frame after it drops "keys are ignored…" without a key press (the
// notice stayed until the next key).
func TestRetryDialogSchedulesTheEndOfTheKeyDelay(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	h.m.retry.Open(id)
	start := time.Now() // the tick may start counting when Update makes it
	_, cmd := h.m.Update(evidenceMsg{id: id, ev: app.RetryEvidence{Exec: *h.m.data.Exec(i), Decision: triage.GuardDecision{Code: triage.RefusedNotConfirmed}}})
	if !strings.Contains(ansi.Strip(h.m.View().Content), "keys are ignored") {
		t.Fatal("no key-delay notice right after the evidence")
	}
	if cmd == nil {
		t.Fatal("no command scheduled for the end of the key delay")
	}
	if at, ok := armedAfter(cmd); !ok || at.Sub(start) < retrydialog.KeyDelay {
		t.Fatalf("the command did not wait out the delay and say so (%v, after %v)", ok, at.Sub(start))
	}
	e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
	h.send(retrydialog.ArmedMsg{})
	if s := ansi.Strip(h.m.View().Content); strings.Contains(s, "keys are ignored") || !strings.Contains(s, "tab moves") {
		t.Error("the notice stayed after the delay")
	}
}

// An execution a guarded retry made is linked to the one it retried: a RETRY OF badge in the
// list and a "retry of" row in its detail.
func TestRetriedExecutionIsLinkedToItsOriginal(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 200, 50)
	ds := h.m.data.DS
	orig, made := ds.ID(5), ds.ID(2) // stand-ins: the journal says row 2 is row 5's retry
	h.m.applyJournal(orig, app.JournalState{Entries: app.Entries{Attempts: []model.RetryAttempt{{ID: "att-1", ExecutionID: orig, State: model.AttemptSucceeded, NewLogID: made}}}})
	h.m.refreshPanes()
	h.selectRow(2)
	s := h.screen()
	if !strings.Contains(s, "RETRY OF "+orig) {
		t.Errorf("no RETRY OF badge on %s:\n%s", made, s)
	}
	if !strings.Contains(s, "retry of  "+orig) && !strings.Contains(s, "retry of "+orig) {
		t.Errorf("no retry-of row in the detail of %s", made)
	}
}

// A read-only session says so in the header and refuses r, m and v with the reason; nothing
// reaches the journal.
func TestReadOnlySessionRefusesWritingKeys(t *testing.T) {
	e := newEnv(t)
	e.parts.Config.Defaults.ReadOnly = true
	h := newHarness(t, e, 120, 40)
	if s := strings.SplitN(h.screen(), "\n", 2)[0]; !strings.Contains(s, "READ-ONLY") {
		t.Fatalf("the header does not say read-only: %s", s)
	}
	i, ok := h.find(func(_ *model.Execution, t *model.Triage) bool { return t.Flagged && t.Kind.IsWrite() })
	if !ok {
		t.Fatal("no flagged write")
	}
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	for _, k := range []string{"r", "m", "v"} {
		h.keys(k)
		if h.m.retry.IsOpen() || h.m.mark.IsOpen() || h.m.data.Verifying[id] {
			t.Fatalf("%s opened its action in a read-only session", k)
		}
		if s := h.screen(); !strings.Contains(s, k+" is off") || !strings.Contains(s, "read-only") {
			t.Errorf("%s: no reason on the status line", k)
		}
		// the reason in the words every front gives (the CLI's refusal: cli TestReadOnlyRefusesEverywhere)
		if _, text := h.m.status.Text(); k != "v" && !strings.Contains(text, phrase.ReadOnlyWrites) ||
			k == "v" && !strings.Contains(text, phrase.ReadOnlyChecks) {
			t.Errorf("%s: the status line says %q", k, text)
		}
	}
	if as, _ := e.j.Attempts(context.Background(), id); len(as) != 0 {
		t.Errorf("attempts journaled: %+v", as)
	}
	if vs, _ := e.j.Verdicts(context.Background(), id); len(vs) != 0 {
		t.Errorf("verdicts journaled: %+v", vs)
	}
}

// armedAfter runs cmd (and, for a batch, every command in it, concurrently) and reports when an
// ArmedMsg came out, if one did within two seconds.
func armedAfter(cmd tea.Cmd) (time.Time, bool) {
	got := make(chan time.Time, 16)
	var run func(c tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case retrydialog.ArmedMsg:
			got <- time.Now()
		case tea.BatchMsg:
			for _, sub := range msg {
				go run(sub)
			}
		}
	}
	go run(cmd)
	select {
	case at := <-got:
		return at, true
	case <-time.After(2 * time.Second):
		return time.Time{}, false
	}
}

// While a retry is being sent, q and ctrl+c ask before leaving (leaving cuts the send off and
// makes its outcome unknown), and esc asks before hiding the sending dialog. Any
// other key withdraws the question; once the send is over, q leaves at once.
func TestQuitAndEscAskWhileARetryIsSent(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 120, 40)
	i := h.flaggedWith("GMAIL_SEND_EMAIL", model.ProviderNotFound)
	h.selectRow(i)
	id := h.m.data.DS.ID(i)
	effects := len(e.srv.Effects())
	h.keys("r")
	if !h.m.retry.Confirming() {
		t.Fatal("r did not open the confirmation")
	}
	e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
	h.keys("tab", "tab", "failed", "enter", "never arrived", "enter")
	// The last Enter asks to send; the send itself is held back, so it stays in flight.
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	send, ok := cmd().(retrydialog.SendMsg)
	if !ok || send.ExecID != id {
		t.Fatalf("Enter on Retry once gave %T, not the send of %s", cmd(), id)
	}
	h.m.Update(send) // its command (the retry) is not run
	if !h.m.data.Retrying[id] {
		t.Fatal("the send is not in flight")
	}
	press := func(k tea.KeyPressMsg) tea.Cmd { _, c := h.m.Update(k); return c }
	q, esc, ctrlC, x := tea.KeyPressMsg{Code: 'q', Text: "q"}, tea.KeyPressMsg{Code: tea.KeyEscape}, tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, tea.KeyPressMsg{Code: 'x', Text: "x"}

	// esc in the sending dialog asks; any key withdraws; esc twice hides it.
	if isQuit(press(esc)) || !h.m.retry.IsOpen() {
		t.Fatal("the first esc closed the sending dialog")
	}
	if s := flat(h.m.retry.View()); !strings.Contains(s, "esc again hides it") {
		t.Fatalf("the first esc did not say what a second does:\n%s", s)
	}
	press(x)
	press(esc)
	if !h.m.retry.IsOpen() {
		t.Fatal("esc, x, esc closed the dialog: the x should have withdrawn the question")
	}
	press(esc)
	if h.m.retry.IsOpen() {
		t.Fatal("a second esc did not hide the dialog")
	}

	// q asks, x withdraws, q asks again, q leaves; ctrl+c the same.
	for _, k := range []tea.KeyPressMsg{q, ctrlC} {
		if isQuit(press(k)) {
			t.Fatalf("%s quit while a retry was being sent", k)
		}
		if s := ansi.Strip(h.m.View().Content); !strings.Contains(s, "quitting now leaves its outcome unknown") {
			t.Fatalf("%s did not say why it asks:\n%s", k, s)
		}
		if isQuit(press(x)) || isQuit(press(k)) {
			t.Fatalf("%s, x, %s quit: the x should have withdrawn the question", k, k)
		}
		if !isQuit(press(k)) {
			t.Fatalf("%s twice did not quit", k)
		}
		h.m.quitAsked = false
	}

	// q and ctrl+c over the open sending dialog ask in the dialog as well.
	h.m.retry.Open(id)
	h.m.retry.SetSending()
	for _, k := range []tea.KeyPressMsg{q, ctrlC} {
		if isQuit(press(k)) {
			t.Fatalf("%s quit over the sending dialog", k)
		}
		if s := flat(h.m.retry.View()); !strings.Contains(s, "quitting now leaves") {
			t.Fatalf("the dialog does not say why %s asks:\n%s", k, s)
		}
		press(x)
	}

	// The send ends: q leaves at once.
	h.send(retriedMsg{id: id, res: app.RetryOutcome{Err: "held back by the test"}})
	press(esc) // the dialog shows the outcome; esc closes it at once
	if h.m.retry.IsOpen() {
		t.Fatal("esc did not close the dialog once the send was over")
	}
	if !isQuit(press(q)) {
		t.Fatal("q did not quit once nothing was in flight")
	}
	if n := len(e.srv.Effects()); n != effects {
		t.Fatalf("%d effects, want %d: the test's send must not run", n, effects)
	}
}

// TestSettlingARowLeavesTheCursorOnTheNext: in the flagged view a row
// that a verdict settles leaves the view; the cursor went to row 1 and the confirmation was
// overwritten at once. The cursor now lands on the row that came next, as lazygit does after
// staging, and the confirmation stays until the next key.
func TestSettlingARowLeavesTheCursorOnTheNext(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 160, 50)
	h.keys("a") // flagged only
	for range 3 {
		h.keys("j")
	}
	at := h.m.list.Cursor()
	it, _ := h.m.list.Selected()
	settled := h.m.data.DS.ID(int(it.Exec))
	h.keys("j")
	next, _ := h.m.list.Selected()
	nextID := h.m.data.DS.ID(int(next.Exec))
	h.keys("k")
	h.keys("m", "3", "enter") // duplicate: settles it, whatever its outcome (it must be in a group)
	if _, text := h.m.status.Text(); !strings.Contains(text, "marked") {
		// not in a group: confirmed_succeeded fits any flagged write
		h.keys("esc", "m", "2", "enter")
	}
	if c := h.m.data.Case(settled); c == nil || !c.Settled {
		t.Fatalf("%s is not settled: %+v (status %q)", settled, c, h.m.status.View())
	}
	if got := h.m.list.Cursor(); got != at {
		t.Errorf("the cursor is on row %d, want %d (where the settled row was)", got, at)
	}
	if it, _ := h.m.list.Selected(); h.m.data.DS.ID(int(it.Exec)) != nextID {
		t.Errorf("the cursor is on %s, want the next row's %s", h.m.data.DS.ID(int(it.Exec)), nextID)
	}
	if _, text := h.m.status.Text(); !strings.Contains(text, settled+" marked") {
		t.Errorf("the confirmation is gone: %q", text)
	}
	h.keys("j")
	if _, text := h.m.status.Text(); strings.Contains(text, "marked") {
		t.Errorf("the confirmation outlived the next key: %q", text)
	}
}

// Many rows at once: space selects rows (and moves on), * every row shown; m opens one dialog
// that says how many and what happens, and records the verdict on each it fits, one by one;
// v asks once, then checks every selected write; r refuses (a retry is one row at a time); esc
// clears the selection.
func TestManyRowsAtOnce(t *testing.T) {
	e := newEnv(t)
	h := newHarness(t, e, 160, 50)
	h.keys("a") // flagged only
	h.keys(" ", " ", " ")
	if len(h.m.data.Picked) != 3 || h.m.list.Cursor() != 3 {
		t.Fatalf("three spaces: %d selected, cursor at %d", len(h.m.data.Picked), h.m.list.Cursor())
	}
	if !strings.Contains(h.screen(), "3 selected") {
		t.Fatal("the list does not say how many are selected")
	}
	h.keys("r")
	if _, text := h.m.status.Text(); !strings.Contains(text, "one execution at a time") {
		t.Fatalf("r on a selection: %q", text)
	}
	execs, triages := h.m.pickedRows()
	var choices []model.Verdict
	for _, v := range model.Verdicts() {
		for i := range execs {
			if slices.Contains(h.m.be.VerdictsFor(&execs[i], &triages[i]), v) {
				choices = append(choices, v)
				break
			}
		}
	}
	k := slices.Index(choices, model.VerdictIgnored)
	if k < 0 {
		t.Fatalf("ignored does not fit the selection: %v", choices)
	}
	h.keys("m")
	if !h.m.mark.IsOpen() || !strings.Contains(h.screen(), "3 selected executions") {
		t.Fatalf("m on a selection did not open the dialog that says how many:\n%s", h.screen())
	}
	h.keys(strconv.Itoa(k+1), "enter")
	for _, x := range execs {
		if h.m.data.Verdicts[x.ID] != model.VerdictIgnored {
			t.Fatalf("%s was not marked: %v (status %q)", x.ID, h.m.data.Verdicts[x.ID], h.m.status.View())
		}
		recs, err := e.j.Verdicts(t.Context(), x.ID)
		if err != nil || len(recs) != 1 || recs[0].Verdict != model.VerdictIgnored {
			t.Fatalf("the journal of %s: %+v %v", x.ID, recs, err)
		}
	}
	if len(h.m.data.Picked) != 0 {
		t.Fatal("the selection stayed after it was marked")
	}
	h.keys("*")
	if n := h.m.list.Len(); len(h.m.data.Picked) != n || n == 0 {
		t.Fatalf("* selected %d of %d rows", len(h.m.data.Picked), n)
	}
	h.keys("*")
	if len(h.m.data.Picked) != 0 {
		t.Fatal("* again did not clear the selection")
	}
	h.keys("g", " ", " ")
	h.keys("v")
	if _, text := h.m.status.Text(); !strings.Contains(text, "press v again") || len(h.m.data.Provider) != 0 {
		t.Fatalf("the first v on a selection: %q, %d checked", text, len(h.m.data.Provider))
	}
	h.keys("v")
	if len(h.m.data.Provider) != 2 {
		t.Fatalf("the second v checked %d of 2 writes", len(h.m.data.Provider))
	}
	h.keys("esc")
	if len(h.m.data.Picked) != 0 {
		t.Fatal("esc did not clear the selection")
	}
}

// journalReads is the real backend, counting the journal reads the loop asks for.
type journalReads struct {
	Backend
	n *int
}

func (j journalReads) JournalStateOf(ctx context.Context, id string) (app.JournalState, error) {
	*j.n++
	return j.Backend.JournalStateOf(ctx, id)
}

// A retry's end carries what the journal holds of the execution: the TUI shows the attempt at
// once and does not ask the journal again; only when that read failed does it ask.
func TestARetrysEndCarriesItsJournal(t *testing.T) {
	e := newEnv(t)
	var n int
	h := &harness{t: t, m: New(context.Background(), journalReads{e.deps().App, &n}, e.ui), e: e}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.run(h.m.Init())
	id := h.m.data.DS.ID(0)
	att := model.RetryAttempt{ID: "att_1", ExecutionID: id, State: model.AttemptFailed, Detail: "HTTP 404"}
	n = 0
	h.send(retriedMsg{id: id, res: app.RetryOutcome{AttemptID: "att_1", State: model.AttemptFailed, Detail: "HTTP 404",
		Journal: &app.JournalState{Entries: app.Entries{Attempts: []model.RetryAttempt{att}}}}})
	if got := h.m.data.Attempts[id]; len(got) != 1 || got[0].ID != "att_1" {
		t.Fatalf("the attempts shown: %+v", got)
	}
	if n != 0 {
		t.Errorf("the journal was read %d times after a retry's end that carried it", n)
	}
	h.send(retriedMsg{id: id, res: app.RetryOutcome{Err: "the journal could not be read"}})
	if n != 1 {
		t.Errorf("the journal was read %d times after a retry's end that did not carry it, want 1", n)
	}
}
