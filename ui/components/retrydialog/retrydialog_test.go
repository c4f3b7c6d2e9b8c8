package retrydialog

import (
	"maps"
	"slices"
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
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newDialog(decision triage.GuardDecision) (Model, *fakeClock) {
	c := &fakeClock{t: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	k := keys.Default()
	m := New(common.Common{Styles: styles.New(theme.Default()), Keys: &k, Now: c.now})
	m.SetSize(100, 40)
	m.Open("log_1")
	m.SetEvidence(app.RetryEvidence{
		Exec:     model.Execution{ID: "log_1", ToolSlug: "GMAIL_SEND_EMAIL"},
		Triage:   model.Triage{Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous, Flagged: true, Reason: "timed out"},
		Provider: model.ProviderState{State: model.ProviderNotFound, Reason: "no such email"},
		Decision: decision,
		Send:     phrase.Send{Slug: "GMAIL_SEND_EMAIL", Account: "ca_1", Args: "{}"},
	})
	return m, c
}

func press(m Model, ks ...string) (Model, []tea.Msg) {
	var out []tea.Msg
	for _, k := range ks {
		var msgs []tea.KeyPressMsg
		switch k {
		case "enter":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyEscape})
		case "tab":
			msgs = append(msgs, tea.KeyPressMsg{Code: tea.KeyTab})
		default:
			for _, r := range k {
				msgs = append(msgs, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
		for _, msg := range msgs {
			var cmd tea.Cmd
			m, cmd = m.Update(msg)
			if cmd != nil {
				if r := cmd(); r != nil {
					out = append(out, r)
				}
			}
		}
	}
	return m, out
}

func sent(msgs []tea.Msg) *SendMsg {
	for _, m := range msgs {
		if s, ok := m.(SendMsg); ok {
			return &s
		}
	}
	return nil
}

var needsConfirmation = triage.GuardDecision{Code: triage.RefusedNotConfirmed, Reason: "no one has confirmed"}

func TestConfirmationStartsOnNoAndIgnoresTypedAheadKeys(t *testing.T) {
	m, c := newDialog(needsConfirmation)
	if !strings.Contains(ansi.Strip(m.View()), "keys are ignored") {
		t.Error("the dialog does not say keys are ignored at first")
	}
	// Typed ahead: everything a person might have buffered, including the whole confirmation.
	m, msgs := press(m, "tab", "tab", "failed", "enter", "reason", "enter", "enter")
	if sent(msgs) != nil || !m.Confirming() {
		t.Fatal("keys typed within the first half second answered the dialog")
	}
	c.t = c.t.Add(KeyDelay)
	// On "No", enter cancels.
	m2, msgs := press(m, "enter")
	if sent(msgs) != nil || m2.IsOpen() {
		t.Fatal("enter on the initial focus did not cancel")
	}
}

func TestConfirmationNeedsTheWordAndAReason(t *testing.T) {
	tests := []struct {
		name   string
		keys   []string
		sends  bool
		reason string
	}{
		{"word and reason", []string{"tab", "tab", "failed", "enter", "customer says nothing arrived", "enter", "enter"}, true, "customer says nothing arrived"},
		{"wrong word", []string{"tab", "tab", "fail", "enter", "because", "enter", "tab", "tab", "enter"}, false, ""},
		{"no reason", []string{"tab", "tab", "failed", "enter", "enter", "tab", "tab", "enter"}, false, ""},
		{"yes without typing", []string{"tab", "enter"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, c := newDialog(needsConfirmation)
			c.t = c.t.Add(KeyDelay)
			m, msgs := press(m, tt.keys...)
			s := sent(msgs)
			if (s != nil) != tt.sends {
				t.Fatalf("sent = %v, want %v; dialog:\n%s", s, tt.sends, ansi.Strip(m.View()))
			}
			if s != nil && (s.Reason != tt.reason || s.ExecID != "log_1") {
				t.Errorf("sent %+v", s)
			}
			if !tt.sends && !m.Confirming() {
				t.Error("the dialog left the confirmation without sending")
			}
		})
	}
}

func TestRefusalShowsTheReasonAndTheNextStep(t *testing.T) {
	m, c := newDialog(triage.GuardDecision{Code: triage.RefusedProviderFound, Reason: "provider shows the effect",
		Next: triage.Step{Say: "mark it {1}", Do: []triage.Command{{Verb: triage.VerbMark, ID: "log_1", Verdict: model.VerdictConfirmedSucceeded}}}})
	v := ansi.Strip(m.View())
	for _, want := range []string{"Retry refused", "provider shows the effect", "mark it press m and record confirmed_succeeded"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q", want)
		}
	}
	c.t = c.t.Add(KeyDelay)
	m, msgs := press(m, "tab", "failed", "enter", "x", "enter", "enter")
	if sent(msgs) != nil {
		t.Fatal("a refused retry was sent")
	}
	if m.IsOpen() {
		t.Error("enter did not close the refusal")
	}
}

func TestResultShowsNewLogOrAmbiguous(t *testing.T) {
	for _, tt := range []struct {
		r    app.RetryOutcome
		want string
	}{
		{app.RetryOutcome{AttemptID: "a1", State: model.AttemptSucceeded, NewLogID: "log_new"}, "new log log_new"},
		{app.RetryOutcome{AttemptID: "a1", State: model.AttemptIndeterminate, Detail: "no answer", Resolve: "`exectriage --demo resolve a1`"}, "ambiguous: settle it with `exectriage --demo resolve a1`"},
		{app.RetryOutcome{AttemptID: "a1", State: model.AttemptFailed, Detail: "HTTP 400"}, "the retry failed"},
		{app.RetryOutcome{Err: "no journal"}, "not sent"},
		// A refusal at the send names its next step in keys, not as a command line.
		{app.RetryOutcome{Refusal: "the logs now show a later attempt", Next: triage.Step{Say: "check the provider: {1}", Do: []triage.Command{{Verb: triage.VerbVerify}}}},
			"the provider: press v"},
	} {
		m, _ := newDialog(needsConfirmation)
		m.SetSending()
		m.SetResult(tt.r)
		if v := ansi.Strip(m.View()); !strings.Contains(v, tt.want) {
			t.Errorf("result %+v: dialog lacks %q:\n%s", tt.r, tt.want, v)
		}
	}
}

func TestDialogFitsAShortScreen(t *testing.T) {
	m, _ := newDialog(needsConfirmation)
	m.ev.Triage.Reason = strings.Repeat("a long reason ", 30)
	for _, h := range []int{20, 24, 30} {
		m.SetSize(80, h)
		if n := strings.Count(m.View(), "\n") + 1; n > h {
			t.Errorf("at 80x%d the dialog is %d lines", h, n)
		}
	}
}

// TestNoStoredDataRefusal: the dialog opened on an execution whose log keeps no arguments
// ("Don't store data") shows the guard's own refusal, names the setting and sends nothing.
func TestNoStoredDataRefusal(t *testing.T) {
	e := model.Execution{ID: "log_1", ToolSlug: "GMAIL_SEND_EMAIL", Status: "failed", Detailed: true}
	d := triage.CheckRetry(triage.GuardInput{Execution: &e, Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous,
		Provider: model.ProviderState{State: model.ProviderNotFound}, Confirmed: true, Reason: "r"})
	if d.Code != triage.RefusedNoArguments {
		t.Fatalf("the guard: %+v", d)
	}
	m, c := newDialog(d)
	v := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
	for _, want := range []string{"Retry refused", `"Don't store data"`, "repeat the call from its source"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q in %q", want, v)
		}
	}
	c.t = c.t.Add(KeyDelay)
	if _, msgs := press(m, "tab", "failed", "enter", "x", "enter", "enter"); sent(msgs) != nil {
		t.Fatal("a refused retry was sent")
	}
}

// TestStepKeys: the guard's own next steps, worded for the dialog, name keys where the TUI has
// one and say "in a shell" where it has none; the CLI words the same steps as command lines
// (the words were rewritten from the CLI's by regular expressions).
func TestStepKeys(t *testing.T) {
	e := model.Execution{ID: "log_a-B1", ToolSlug: "GMAIL_SEND_EMAIL", Status: "failed", Detailed: true, Arguments: []byte(`{"to":"a"}`)}
	base := triage.GuardInput{Execution: &e, Kind: model.KindWrite, Outcome: model.OutcomeAmbiguous}
	with := func(f func(*triage.GuardInput)) triage.GuardInput { in := base; f(&in); return in }
	tests := []struct {
		in          triage.GuardInput
		keys, shell string
	}{
		{with(func(in *triage.GuardInput) { in.Provider = model.ProviderState{State: model.ProviderFound} }),
			"do not retry; mark it: press m and record confirmed_succeeded (only a fresh check (v) that no longer finds it changes this)",
			"do not retry; mark it: `exectriage mark log_a-B1 confirmed_succeeded` (only a fresh `exectriage verify log_a-B1` that no longer finds it changes this)"},
		{base, "check it first: press v", "check it first: `exectriage verify log_a-B1`"},
		{with(func(in *triage.GuardInput) { in.Verdict = model.VerdictDuplicate }),
			"do not retry; if that verdict is wrong, record the correction first: press m and record confirmed_failed with a note",
			"do not retry; if that verdict is wrong, record the correction first: `exectriage mark log_a-B1 confirmed_failed --note TEXT`"},
		{with(func(in *triage.GuardInput) {
			in.Attempts = []model.RetryAttempt{{ID: "3f2a", ExecutionID: "log_a-B1", State: model.AttemptIndeterminate}}
		}),
			"settle it from the logs and the provider first: in a shell: `exectriage resolve 3f2a`; never retry over it",
			"settle it from the logs and the provider first: `exectriage resolve 3f2a`; never retry over it"},
	}
	for _, tt := range tests {
		d := triage.CheckRetry(tt.in)
		if got := StepKeys(d.Next, keys.Default()); got != tt.keys {
			t.Errorf("%s: StepKeys\n = %q\nwant %q", d.Code, got, tt.keys)
		}
		if got := d.Next.Shell(); got != tt.shell {
			t.Errorf("%s: Shell\n = %q\nwant %q", d.Code, got, tt.shell)
		}
	}
	// in a session (the demo, an export) the commands carry its flags, in both wordings
	d := triage.CheckRetry(tests[3].in)
	d.Next.In = []string{"--file", "/tmp/my export.jsonl"}
	want := "`exectriage --file '/tmp/my export.jsonl' resolve 3f2a`"
	if got := StepKeys(d.Next, keys.Default()); !strings.Contains(got, "in a shell: "+want) {
		t.Errorf("StepKeys in a session = %q, want %s", got, want)
	}
	if got := d.Next.Shell(); !strings.Contains(got, want) {
		t.Errorf("Shell in a session = %q, want %s", got, want)
	}
}

// Every line of the evidence being confirmed is readable at 80x24 (it scrolls above the inputs,
// which stay in view); at 40x12 the dialog says how much room it needs and takes no typing
// rather than sending keys into inputs off the screen.
func TestTheEvidenceScrollsAndTheInputsStayInView(t *testing.T) {
	m, c := newDialog(triage.GuardDecision{Code: triage.RefusedNotConfirmed})
	m.ev.Triage.Reason = "timed out after 60.0 s \"Request timed out after 60000ms waiting for the provider\": the email may have been sent"
	m.ev.Provider.Matches = []model.EvidenceItem{{ID: "m1", Summary: "to a@b.example"}, {ID: "m2"}, {ID: "m3"}, {ID: "m4"}}
	m.ev.Send = phrase.Send{Slug: "GMAIL_SEND_EMAIL", VersionNote: "20250909_00", Account: "ca_1tEGpuGS_OOp", User: "user_2",
		Args:    `{"body":"` + strings.Repeat("a long body ", 30) + `","recipient_email":"hannah@example.com","subject":"Meeting notes"}`,
		Journal: "SQLite journal"}
	c.t = c.t.Add(KeyDelay)
	pgdn := tea.KeyPressMsg{Code: tea.KeyPgDown}

	m.SetSize(80, 24)
	seen := map[string]bool{}
	for range 20 {
		v := ansi.Strip(m.View())
		if n := strings.Count(v, "\n") + 1; n > 24 {
			t.Fatalf("at 80x24 the dialog is %d lines:\n%s", n, v)
		}
		for _, want := range []string{"Type \"failed\"", "Reason (recorded", "[ No ]", "[ Retry once ]"} {
			if !strings.Contains(v, want) {
				t.Fatalf("at 80x24 %q is not in view:\n%s", want, v)
			}
		}
		for l := range strings.SplitSeq(v, "\n") {
			seen[strings.Trim(l, "│ ")] = true
		}
		m, _ = m.Update(pgdn)
	}
	all := strings.Join(slices.Collect(maps.Keys(seen)), "\n")
	for _, want := range []string{"the email may have been", "• m4", "recipient_email", "guarded by the SQLite journal", "teammates on other journals are not"} {
		if !strings.Contains(all, want) {
			t.Errorf("scrolling never showed %q", want)
		}
	}
	if strings.Contains(all, "…") && !strings.Contains(all, "lines ") {
		t.Errorf("the evidence was cut instead of scrolled:\n%s", all)
	}

	m.SetSize(40, 12)
	v := ansi.Strip(m.View())
	if n := strings.Count(v, "\n") + 1; n > 12 || !strings.Contains(strings.Join(strings.Fields(v), " "), "enlarge it") {
		t.Fatalf("at 40x12:\n%s", v)
	}
	if !m.TooSmall() {
		t.Fatal("TooSmall is false at 40x12")
	}
	m, msgs := press(m, "tab", "tab", "failed", "enter", "why", "enter", "enter")
	if sent(msgs) != nil || m.confirm.Value() != "" || m.reason.Value() != "" {
		t.Fatalf("typing went into inputs off the screen: %q %q", m.confirm.Value(), m.reason.Value())
	}
	m.SetSize(80, 24)
	if m.TooSmall() {
		t.Fatal("TooSmall at 80x24")
	}
}
