package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/exectriage/exectriage/model"
	"github.com/exectriage/exectriage/ui/components/retrydialog"
)

// The flows run the real program loop (teatest) on the demo sandbox: commands run
// concurrently, ticks tick, and the screen is read back through inspect, which runs a function
// on the model inside the program's own goroutine.

// inspect asks the running program to call fn with the model (race-free: Update runs it).
type inspect func(m *Model)

// probe wraps the root model so tests can look inside the running program.
type probe struct{ m *Model }

func (p probe) Init() tea.Cmd { return p.m.Init() }

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if fn, ok := msg.(inspect); ok {
		fn(p.m)
		return p, nil
	}
	_, cmd := p.m.Update(msg)
	return p, cmd
}

func (p probe) View() tea.View { return p.m.View() }

type flow struct {
	t  *testing.T
	tm *teatest.TestModel
	e  *env
}

func startFlow(t *testing.T, e *env, w, h int) *flow {
	t.Helper()
	e.clock.run()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	tm := teatest.NewTestModel(t, probe{e.newModel(ctx)}, teatest.WithInitialTermSize(w, h))
	f := &flow{t: t, tm: tm, e: e}
	f.waitModel("the first load", func(m *Model) bool {
		return !m.load.loading && m.data.DS.Len() > 0 && !m.load.analyzing && m.sel.nextDS == nil
	})
	return f
}

// query runs fn in the program and returns its answer.
func query[T any](f *flow, fn func(m *Model) T) T {
	ch := make(chan T, 1)
	f.tm.Send(inspect(func(m *Model) { ch <- fn(m) }))
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		f.t.Fatal("the program did not answer")
		panic("unreachable")
	}
}

// waitModel polls until cond holds for the model.
func (f *flow) waitModel(what string, cond func(m *Model) bool) {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if query(f, cond) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("timed out waiting for %s; screen:\n%s", what, f.screen())
}

// waitScreen polls until the screen contains every text.
func (f *flow) waitScreen(texts ...string) {
	f.t.Helper()
	f.waitModel("the screen to show "+strings.Join(texts, ", "), func(m *Model) bool {
		s := ansi.Strip(m.Render())
		for _, t := range texts {
			if !strings.Contains(s, t) {
				return false
			}
		}
		return true
	})
}

func (f *flow) screen() string {
	return query(f, func(m *Model) string { return ansi.Strip(m.Render()) })
}

func (f *flow) press(ks ...string) {
	for _, k := range ks {
		switch k {
		case "enter":
			f.tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			f.tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "tab":
			f.tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
		default:
			f.tm.Type(k)
		}
	}
}

// flaggedSend finds a flagged ambiguous GMAIL_SEND_EMAIL whose truth is committed (or not),
// and whose effect the provider shows (or not): a later duplicate's effect can match too.
func (f *flow) flaggedSend(committed bool) string {
	f.t.Helper()
	ids := query(f, func(m *Model) []string {
		var out []string
		ds := m.data.DS
		for i := range ds.Len() {
			if t := ds.Triage(i); t.Flagged && t.Outcome == model.OutcomeAmbiguous && ds.Exec(i).ToolSlug == "GMAIL_SEND_EMAIL" {
				out = append(out, ds.ID(i))
			}
		}
		return out
	})
	be := f.e.deps().App
	for _, id := range ids {
		if f.e.truth(id).Committed != committed {
			continue
		}

		d, err := be.Get(context.Background(), id)
		if err != nil {
			f.t.Fatal(err)
		}
		if committed && d.Status != "failed" {
			continue // a committed timeout the log calls failed: only the provider can refuse it
		}
		if found := be.Verify(context.Background(), &d).State == model.ProviderFound; found == committed {
			return id
		}
	}
	f.t.Fatalf("no flagged Gmail send with committed=%v", committed)
	return ""
}

func (f *flow) quit() {
	f.press("q")
	f.tm.WaitFinished(f.t, teatest.WithFinalTimeout(10*time.Second))
}

// TestFlowRetryRefusedWhenProviderShowsEffect: filter to a Gmail send flagged ambiguous, verify
// it (the provider has the email), press r: the guard refuses at once and nothing is sent.
func TestFlowRetryRefusedWhenProviderShowsEffect(t *testing.T) {
	e := newEnv(t)
	f := startFlow(t, e, 120, 40)
	id := f.flaggedSend(true)
	effects := len(e.srv.Effects())

	f.press("/", "gmsend flagged:yes id:"+id, "enter")
	f.waitModel("the filter to keep one row", func(m *Model) bool { return m.list.Len() == 1 && !m.filter.Active() })
	f.waitScreen("GMAIL_SEND_EMAIL", "AMBIGUOUS", "/gmsend flagged:yes id:"+id)

	f.press("v")
	f.waitModel("the verify", func(m *Model) bool { return m.data.Provider[id].State == model.ProviderFound })
	f.waitScreen("VERIFIED:found", "FOUND  the effect exists")

	f.press("r")
	f.waitScreen("Retry refused", "provider shows the effect")
	if got := len(e.srv.Effects()); got != effects {
		t.Fatalf("the provider has %d effects, had %d: a refused retry sent something", got, effects)
	}
	if atts, err := e.j.Attempts(context.Background(), id); err != nil || len(atts) != 0 {
		t.Fatalf("journal attempts %v, %v: a refused retry claimed an attempt", atts, err)
	}
	f.press("esc")
	f.waitModel("the dialog to close", func(m *Model) bool { return !m.retry.IsOpen() })

	// y opens the copy menu; 1 copies the log id to the clipboard with OSC 52.
	f.press("y")
	f.waitScreen("Copy to the clipboard", "log id", "record (JSON, secrets redacted)", "curl reproduction", "support bundle")
	f.press("1", "enter")
	osc := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(id))
	teatest.WaitFor(t, f.tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(osc)) },
		teatest.WithDuration(5*time.Second))
	f.quit()
}

// TestFlowRetrySendsOnceAfterTypedConfirmation: on an execution the provider does not show, the
// dialog starts on No, ignores a typed-ahead Enter, and sends exactly once after `failed` and a
// reason are typed; the row then shows RETRIED.
func TestFlowRetrySendsOnceAfterTypedConfirmation(t *testing.T) {
	e := newEnv(t)
	f := startFlow(t, e, 120, 40)
	id := f.flaggedSend(false)
	effects := len(e.srv.Effects())

	f.press("/", "id:"+id, "enter")
	f.waitModel("the filter to keep one row", func(m *Model) bool { return m.list.Len() == 1 && !m.filter.Active() })

	// The clock stands still from the dialog's opening until the test steps past its first
	// half second, so a slow machine cannot let the typed-ahead Enter through by itself.
	e.clock.freeze()
	f.press("r")
	f.waitModel("the confirmation", func(m *Model) bool { return m.retry.Confirming() })
	f.waitScreen("Retry GMAIL_SEND_EMAIL once?", "NOT FOUND", "[ No ]", "[ Retry once ]")

	// An Enter typed ahead (within the first half second) must not answer the dialog.
	f.press("enter")
	if !query(f, func(m *Model) bool { return m.retry.Confirming() }) {
		t.Fatal("a typed-ahead Enter answered the dialog")
	}
	f.waitScreen("keys are ignored for half a second")
	e.clock.Advance(retrydialog.KeyDelay + time.Millisecond)
	e.clock.run()
	// The notice goes when the delay ends, with no key pressed (it stayed for
	// seconds, until the next key).
	f.waitScreen("tab moves · enter chooses")

	// Enter on the focused "No" would cancel; move to the fields and confirm instead.
	f.press("tab", "tab", "failed", "enter", "customer reports the email never arrived")
	if n := len(e.srv.Effects()); n != effects {
		t.Fatal("something was sent before the confirmation was complete")
	}
	f.press("enter") // reason done: focus moves to "Retry once"
	f.waitModel("focus on Retry once", func(m *Model) bool { return strings.Contains(ansi.Strip(m.retry.View()), "[ Retry once ]") })
	f.press("enter")
	f.waitScreen("✓ retried", "new log")

	got := e.srv.Effects()
	if len(got) != effects+1 {
		t.Fatalf("the provider has %d effects, want exactly one more than %d", len(got), effects)
	}
	atts, err := e.j.Attempts(context.Background(), id)
	if err != nil || len(atts) != 1 || atts[0].State != model.AttemptSucceeded {
		t.Fatalf("journal attempts %+v, %v", atts, err)
	}
	if last := got[len(got)-1]; last.RequestID != atts[0].ID || last.ToolSlug != "GMAIL_SEND_EMAIL" {
		t.Errorf("the new effect %+v was not sent with x-request-id = attempt %s", last, atts[0].ID)
	}
	cons, err := e.j.Confirmations(context.Background(), id)
	if err != nil || len(cons) != 1 || cons[0].Reason != "customer reports the email never arrived" || cons[0].Who != "tester@example" {
		t.Errorf("confirmations %+v, %v", cons, err)
	}

	f.press("esc")
	f.waitScreen("RETRIED")
	f.waitModel("the journal line in the provider pane", func(m *Model) bool {
		return strings.Contains(ansi.Strip(m.provider.Content()), "succeeded → new log")
	})
	// The status line says the retry took effect (it said "retried before…").
	f.waitScreen("retried: the retry took effect")

	// A second retry of the same execution is refused by the guard.
	f.press("r")
	f.waitScreen("Retry refused", "already")
	f.press("esc")
	if n := len(e.srv.Effects()); n != effects+1 {
		t.Fatalf("%d effects after the refused second retry", n)
	}

	// The original's detail names the execution its retry made.
	f.waitScreen("retried as " + atts[0].NewLogID)
	f.quit()
}

// TestFlowTypingAFilterKeepsRowsNewestFirst types a query key by key while each keystroke's
// filter runs concurrently with the previous ones: the rows shown are always the newest-first,
// duplicate-free result of the latest query.
func TestFlowTypingAFilterKeepsRowsNewestFirst(t *testing.T) {
	e := newEnv(t)
	f := startFlow(t, e, 120, 40)
	f.press("/", "gmsend")
	f.waitModel("the filter for the whole query", func(m *Model) bool {
		return m.query.String() == "gmsend" && m.sel.lastQ.String() == "gmsend" && m.sel.tag == m.lastSelTag()
	})
	bad := query(f, func(m *Model) string {
		items := m.list.Items().Slice()
		for k := 1; k < len(items); k++ {
			if items[k].Exec <= items[k-1].Exec {
				return "rows out of order or repeated at " + m.data.DS.ID(int(items[k].Exec))
			}
		}
		if len(items) == 0 {
			return "no rows"
		}
		return ""
	})
	if bad != "" {
		t.Fatal(bad)
	}
	f.press("esc", "esc")
	f.quit()
}
